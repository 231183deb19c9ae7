//! Measures params-file load throughput and memory: writes a large bellperson-format params
//! file (PoRep-like section proportions, valid points repeated from a small pool), then loads
//! it with `Srs::load` and reports MB/s and resident memory against the file size.
//!
//! `cargo run --release --example srs_load -- [--mib 1024] [--path /tmp/srs-load.params] [--runs 3] [--keep]`

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use blstrs::{G1Projective, G2Projective, Scalar};
use groth16_c2::srs::{LoadOptions, Srs};
use group::{Curve, Group};

/// Distinct points generated; the file cycles through them (the loader cannot tell).
const POOL: usize = 1 << 12;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().ok().expect("a valid value"))
        .unwrap_or(default)
}

fn status_kib(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Writes a params file of about `bytes` bytes: h ≈ l ≈ a ≈ n, b_g1 = b_g2 ≈ n/4.
fn write_params(path: &PathBuf, bytes: u64) -> std::io::Result<()> {
    let g1: Vec<[u8; 96]> = (1..=POOL as u64)
        .map(|i| {
            (G1Projective::generator() * Scalar::from(i))
                .to_affine()
                .to_uncompressed()
        })
        .collect();
    let g2: Vec<[u8; 192]> = (1..=POOL as u64)
        .map(|i| {
            (G2Projective::generator() * Scalar::from(i))
                .to_affine()
                .to_uncompressed()
        })
        .collect();
    // 96 * (3n + n/4) + 192 * n/4 = 360 n bytes.
    let n = (bytes / 360) as usize;
    let mut f = BufWriter::with_capacity(1 << 22, std::fs::File::create(path)?);
    for p in [&g1[0], &g1[1]] {
        f.write_all(p)?;
    }
    for p in [&g2[0], &g2[1]] {
        f.write_all(p)?;
    }
    f.write_all(&g1[2])?;
    f.write_all(&g2[2])?;
    let g1_section = |f: &mut BufWriter<std::fs::File>, count: usize| -> std::io::Result<()> {
        f.write_all(&(count as u32).to_be_bytes())?;
        for i in 0..count {
            f.write_all(&g1[i % POOL])?;
        }
        Ok(())
    };
    g1_section(&mut f, 3)?; // ic
    g1_section(&mut f, n - 1)?; // h
    g1_section(&mut f, n * 97 / 100)?; // l
    g1_section(&mut f, n)?; // a
    g1_section(&mut f, n / 4)?; // b_g1
    f.write_all(&((n / 4) as u32).to_be_bytes())?;
    for i in 0..n / 4 {
        f.write_all(&g2[i % POOL])?;
    }
    f.flush()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: u64 = arg(&args, "--mib", 1024);
    let runs: usize = arg(&args, "--runs", 3);
    let path: PathBuf = arg(
        &args,
        "--path",
        PathBuf::from("/tmp/groth16-c2-srs-load.params"),
    );
    if !path.exists() || std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) < mib << 19 {
        eprintln!("writing a {mib} MiB params file to {} ...", path.display());
        let t = Instant::now();
        write_params(&path, mib << 20).expect("params file written");
        eprintln!("written in {:.1} s", t.elapsed().as_secs_f64());
    }
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    println!(
        "params file: {} ({:.1} MB), threads: {}",
        path.display(),
        file_bytes as f64 / 1e6,
        rayon::current_num_threads()
    );
    println!(
        "{:>4} {:>10} {:>10} {:>14} {:>14}",
        "run", "load_s", "MB/s", "rss_delta_MB", "rss/file"
    );
    let mut rates = Vec::new();
    for run in 0..runs {
        let before = status_kib("VmRSS:");
        let t = Instant::now();
        let srs = Srs::load(&path, LoadOptions::default()).expect("params load");
        let secs = t.elapsed().as_secs_f64();
        let rss = status_kib("VmRSS:").saturating_sub(before) as f64 * 1024.0;
        rates.push(file_bytes as f64 / 1e6 / secs);
        println!(
            "{:>4} {:>10.2} {:>10.0} {:>14.1} {:>14.3}",
            run + 1,
            secs,
            file_bytes as f64 / 1e6 / secs,
            rss / 1e6,
            rss / file_bytes as f64
        );
        drop(srs);
    }
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("median load throughput: {:.0} MB/s", rates[rates.len() / 2]);
    println!(
        "peak resident (VmHWM): {:.1} MB",
        status_kib("VmHWM:") as f64 * 1024.0 / 1e6
    );
    if !args.iter().any(|a| a == "--keep") {
        let _ = std::fs::remove_file(&path);
    }
}
