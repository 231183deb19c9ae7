//! Benchmarks our prover against bellperson 0.26's CPU prover on synthetic PoRep-shaped
//! circuits: median time of `--runs` runs, peak resident memory of each, and a check that both
//! produce byte-identical proofs.
//!
//! `cargo run --release --features bellpepper --example bench -- [--log-n 14,15,16,17,18]
//! [--batch 1] [--runs 3] [--params-dir DIR]`
//!
//! Each prover runs in its own child process (this binary re-executed with `--child`), so
//! each one's peak RSS (VmHWM) is its own. Both timings cover the same work, circuit to proofs:
//! bellperson's `create_proof_batch` synthesizes inside, so ours includes recording the witness.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use blstrs::{Bls12, Scalar};
use common::*;
use ff::Field;
use groth16_c2::synthetic::PorepShapedCircuit;
use groth16_c2::witness::WitnessRecorder;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const USAGE: &str =
    "bench [--log-n 14,15,16,17,18] [--batch 1] [--runs 3] [--params-dir params-cache]";

/// One child's report.
#[derive(Default)]
struct Report {
    constraints: usize,
    /// Circuit to proofs, per run.
    run_ms: Vec<f64>,
    /// Ours only: the prove call alone, per run.
    prove_ms: Vec<f64>,
    /// Ours only: stage timings of the last run.
    stages: Vec<(String, f64)>,
    proofs: Vec<String>,
    peak_kb: u64,
}

fn main() {
    let mut flags = Flags::from_env();
    let child = flags.value("--child");
    let sizes: Vec<u32> = flags
        .value("--log-n")
        .unwrap_or_else(|| "14,15,16,17,18".into())
        .split(',')
        .map(|k| {
            k.trim()
                .parse()
                .unwrap_or_else(|_| fail(&format!("--log-n: cannot parse {k:?}")))
        })
        .collect();
    let batch: usize = flags.parse("--batch", 1);
    let runs: usize = flags.parse("--runs", 3);
    let dir = PathBuf::from(flags.parse("--params-dir", DEFAULT_PARAMS_DIR.to_string()));
    flags.finish(USAGE);
    if batch == 0 || runs == 0 || sizes.iter().any(|k| !(2..=30).contains(k)) {
        fail(&format!(
            "need --batch >= 1, --runs >= 1, 2 <= log_n <= 30\nusage: {USAGE}"
        ));
    }
    match child.as_deref() {
        Some(which) => child_main(which, sizes[0], batch, runs, &dir),
        None => parent_main(&sizes, batch, runs, &dir),
    }
}

// ---------------------------------------------------------------------------------------------
// Parent: runs the children and prints the table.

fn parent_main(sizes: &[u32], batch: usize, runs: usize, dir: &Path) {
    println!(
        "groth16-c2 bench: backend {}, shape c={batch} j={batch} gw=1 (each run proves {batch} \
         circuit(s) in one call), median of {runs} runs",
        groth16_c2::backend_name()
    );
    // Generate missing params up front so no child times or measures parameter generation.
    for &k in sizes {
        ensure_params(dir, k);
    }
    let mut rows = Vec::new();
    for &k in sizes {
        eprintln!("bench 2^{k}: ours ...");
        let ours = run_child("ours", k, batch, runs, dir);
        eprintln!("bench 2^{k}: bellperson ...");
        let theirs = run_child("bellperson", k, batch, runs, dir);
        rows.push((k, ours, theirs));
    }

    println!();
    println!(
        "{:>5} {:>11} {:>10} {:>12} {:>14} {:>9} {:>10} {:>10} {:>9}",
        "log_n",
        "constraints",
        "ours ms",
        "(prove ms)",
        "bellperson ms",
        "ours/bp",
        "ours MiB",
        "bp MiB",
        "identical"
    );
    let mut all_identical = true;
    for (k, ours, theirs) in &rows {
        let identical = !ours.proofs.is_empty() && ours.proofs == theirs.proofs;
        all_identical &= identical;
        let (o, b) = (median(&ours.run_ms), median(&theirs.run_ms));
        println!(
            "{:>5} {:>11} {:>10.1} {:>12.1} {:>14.1} {:>9.3} {:>10.1} {:>10.1} {:>9}",
            k,
            ours.constraints,
            o,
            median(&ours.prove_ms),
            b,
            o / b,
            ours.peak_kb as f64 / 1024.0,
            theirs.peak_kb as f64 / 1024.0,
            if identical { "yes" } else { "NO" }
        );
    }
    println!(
        "(ms: circuit to proofs, both including synthesis; prove ms: our prove call alone; MiB: \
         peak RSS of each prover's own process, params included)"
    );
    if let Some((k, ours, _)) = rows.last() {
        println!("\nour stages at 2^{k} (last run, {batch} circuit(s)):");
        println!("  {:<18} {:>10}", "stage", "ms");
        for (name, v) in &ours.stages {
            println!("  {name:<18} {v:>10.1}");
        }
    }
    if !all_identical {
        fail("our proofs differ from bellperson's");
    }
}

/// Runs this binary as a child for one prover and size, and parses its report.
fn run_child(which: &str, log_n: u32, batch: usize, runs: usize, dir: &Path) -> Report {
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("current_exe: {e}")));
    let out = Command::new(exe)
        .args(["--child", which, "--log-n", &log_n.to_string()])
        .args(["--batch", &batch.to_string(), "--runs", &runs.to_string()])
        .arg("--params-dir")
        .arg(dir)
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot start the {which} child: {e}")));
    if !out.status.success() {
        fail(&format!(
            "the {which} child failed at 2^{log_n}: {}",
            out.status
        ));
    }
    let mut r = Report::default();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut words = line.split_whitespace();
        let (key, rest): (&str, Vec<&str>) = match words.next() {
            Some(k) => (k, words.collect()),
            None => continue,
        };
        let num =
            |i: usize| -> f64 { rest.get(i).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN) };
        match key {
            "constraints" => r.constraints = num(0) as usize,
            "run_ms" => r.run_ms.push(num(0)),
            "prove_ms" => r.prove_ms.push(num(0)),
            "stage" => r.stages.push((rest[0].to_string(), num(1))),
            "proof" => r.proofs.push(rest[1].to_string()),
            "vmhwm_kb" => r.peak_kb = num(0) as u64,
            _ => {}
        }
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Child: proves with one prover and reports on stdout, one `key value...` per line.

fn child_main(which: &str, log_n: u32, batch: usize, runs: usize, dir: &Path) {
    let path = params_path(dir, log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..batch)
        .map(|i| PorepShapedCircuit::new(log_n, Some(i as u64 + 1)))
        .collect();
    // The same r, s in both children.
    let mut rng = ChaCha8Rng::seed_from_u64(0xbe7c);
    let r: Vec<Scalar> = (0..batch).map(|_| Scalar::random(&mut rng)).collect();
    let s: Vec<Scalar> = (0..batch).map(|_| Scalar::random(&mut rng)).collect();

    let proofs: Vec<bellperson::groth16::Proof<Bls12>> = match which {
        "ours" => {
            let srs = groth16_c2::Srs::new(&path, false)
                .unwrap_or_else(|e| fail(&format!("loading {}: {e}", path.display())));
            let mut last = Vec::new();
            for _ in 0..runs {
                let t = Instant::now();
                let witnesses: Vec<_> = circuits
                    .iter()
                    .map(|c| WitnessRecorder::record(c.clone()).expect("synthesis"))
                    .collect();
                let views: Vec<_> = witnesses.iter().map(|w| w.witness()).collect();
                let t_prove = Instant::now();
                last = groth16_c2::prove(&srs, &views, &r, &s)
                    .unwrap_or_else(|e| fail(&format!("our prover failed: {e}")));
                println!("prove_ms {}", t_prove.elapsed().as_secs_f64() * 1e3);
                println!("run_ms {}", t.elapsed().as_secs_f64() * 1e3);
                println!("constraints {}", witnesses[0].a.len());
            }
            if let Some(t) = groth16_c2::telemetry::last_timings() {
                for (name, v) in stage_rows(&t) {
                    println!("stage {name} {v}");
                }
            }
            last.iter().map(to_bellperson).collect()
        }
        "bellperson" => {
            let params = read_params(&path);
            let mut last = Vec::new();
            for _ in 0..runs {
                let t = Instant::now();
                last = bellperson::groth16::create_proof_batch::<Bls12, _, _>(
                    circuits.clone(),
                    &params,
                    r.clone(),
                    s.clone(),
                )
                .unwrap_or_else(|e| fail(&format!("bellperson failed: {e}")));
                println!("run_ms {}", t.elapsed().as_secs_f64() * 1e3);
            }
            last
        }
        other => fail(&format!("--child takes ours or bellperson, not {other:?}")),
    };
    for (i, p) in proofs.iter().enumerate() {
        let mut bytes = Vec::new();
        p.write(&mut bytes).expect("writing to a Vec");
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        println!("proof {i} {hex}");
    }
    println!("vmhwm_kb {}", peak_rss_kb());
}

/// This process's peak resident set size (VmHWM) in KiB, 0 where /proc is not available.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
