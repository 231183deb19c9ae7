//! Times `Srs::load` (what `create_SRS` runs) on a params file: seconds to a usable SRS,
//! throughput, peak and final resident memory, and where the time went, per run; optionally a
//! first run with the file's pages dropped from the page cache (cold) and micro-measurements of
//! the machine (page-cache copy rate, first-touch rate of fresh memory with and without huge
//! pages) that the breakdown can be read against.
//!
//! Without `--path`, or when the file is missing, it first writes a params file of `--mib` MiB
//! (PoRep-like section proportions, valid points repeated from a small pool). With `--path` and
//! `--no-write` it loads an existing file written by anything (bellperson, supraseal's
//! `gen-srs`) and never writes or deletes it.
//!
//! ```sh
//! cargo run --release --example srs_load -- --mib 3000 --runs 3
//! srs_load --path /tmp/s.params --no-write --runs 3 --cold --micro
//! ```
//!
//! Options: `--mib N` (1024), `--path FILE`, `--no-write`, `--runs N` (3), `--cold` (one run
//! after `posix_fadvise(DONTNEED)` on the file first), `--micro`, `--subgroup` (also check
//! the subgroup), `--keep` (keep a file this program wrote).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use blstrs::{G1Projective, G2Projective, Scalar};
use groth16_c2::srs::{LoadOptions, LoadProfile, Srs};
use group::{Curve, Group};

/// Distinct points generated; the file cycles through them (the loader cannot tell).
const POOL: usize = 1 << 12;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}: `{v}` is not a valid value"))
        })
        .unwrap_or(default)
}

fn flag(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

fn status_kib(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn rss_gb() -> f64 {
    status_kib("VmRSS:") as f64 * 1024.0 / 1e9
}

/// Resets VmHWM to the current RSS (Linux `clear_refs` 5); false where not allowed.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Writes a params file of about `bytes` bytes: h ≈ l ≈ a ≈ n, b_g1 = b_g2 ≈ n/4.
fn write_params(path: &Path, bytes: u64) -> std::io::Result<()> {
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
    let mut f = BufWriter::with_capacity(1 << 22, File::create(path)?);
    for p in [&g1[0], &g1[1]] {
        f.write_all(p)?;
    }
    for p in [&g2[0], &g2[1]] {
        f.write_all(p)?;
    }
    f.write_all(&g1[2])?;
    f.write_all(&g2[2])?;
    let g1_section = |f: &mut BufWriter<File>, count: usize| -> std::io::Result<()> {
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

/// Drops the file's clean pages from the page cache (no root needed) and says what share of
/// the file is still cached afterwards.
fn drop_from_page_cache(path: &Path) -> f64 {
    let f = File::open(path).expect("params file opens");
    // SAFETY: advice on an open descriptor.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    cached_share(&f)
}

/// The share of the file's pages in the page cache (mincore on a mapping that is never read).
fn cached_share(f: &File) -> f64 {
    let len = f.metadata().map(|m| m.len() as usize).unwrap_or(0);
    if len == 0 {
        return 0.0;
    }
    // SAFETY: a read-only shared mapping that is only passed to mincore, never read.
    unsafe {
        let map = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        );
        if map == libc::MAP_FAILED {
            return f64::NAN;
        }
        let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
        let mut vec = vec![0u8; len.div_ceil(page)];
        let ok = libc::mincore(map, len, vec.as_mut_ptr()) == 0;
        libc::munmap(map, len);
        if !ok {
            return f64::NAN;
        }
        vec.iter().filter(|&&b| b & 1 != 0).count() as f64 / vec.len() as f64
    }
}

/// Machine rates the load's breakdown can be read against, on one thread: the kernel's copy of
/// cached file pages (`pread` into a reused buffer) and first touch of fresh memory.
fn micro(path: &Path, file_bytes: u64) {
    let f = File::open(path).expect("params file opens");
    let chunk = 384 << 10;
    let mut buf = vec![0u8; chunk];
    let span = file_bytes.min(4 << 30);
    let t = Instant::now();
    let mut at = 0u64;
    while at < span {
        let n = chunk.min((span - at) as usize);
        std::os::unix::fs::FileExt::read_exact_at(&f, &mut buf[..n], at).expect("read");
        at += n as u64;
    }
    let copy = span as f64 / t.elapsed().as_secs_f64() / 1e9;
    println!("micro: pread of cached pages, one thread: {copy:.2} GB/s");
    for huge in [false, true] {
        let bytes = 1usize << 30;
        for round in 0..2 {
            // SAFETY: a fresh anonymous mapping, touched once per page, then unmapped.
            let secs = unsafe {
                let p = libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                assert_ne!(p, libc::MAP_FAILED);
                if huge {
                    libc::madvise(p, bytes, libc::MADV_HUGEPAGE);
                }
                let t = Instant::now();
                let p = p.cast::<u8>();
                for i in (0..bytes).step_by(4096) {
                    p.add(i).write_volatile(1);
                }
                let secs = t.elapsed().as_secs_f64();
                libc::munmap(p.cast(), bytes);
                secs
            };
            println!(
                "micro: first touch of fresh memory, {} pages, round {}: {:.2} GB/s",
                if huge { "2 MiB" } else { "4 KiB" },
                round + 1,
                bytes as f64 / secs / 1e9
            );
        }
    }
}

/// User and system CPU seconds of this process so far.
fn cpu_seconds() -> (f64, f64) {
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        let mut u = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (s(u.ru_utime), s(u.ru_stime))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_profile(p: &LoadProfile) {
    let per = |d: Duration, n: usize| d.as_nanos() as f64 / n.max(1) as f64;
    let points = p.g1_points + p.g2_points;
    println!(
        "      header {:.1} ms, reserve {:.1} ms, pass {:.0} ms ({} tasks on {} threads, {} on the GPU, huge pages {}); \
         thread time: read {:.0} ms ({:.0} ns/point), decode G1 {:.0} ms ({:.0} ns/point), \
         decode G2 {:.0} ms ({:.0} ns/point)",
        ms(p.header),
        ms(p.reserve),
        ms(p.pass),
        p.tasks,
        p.threads,
        p.gpu_chunks,
        if p.huge_pages { "on" } else { "off" },
        ms(p.read_cpu),
        per(p.read_cpu, points),
        ms(p.decode_g1_cpu),
        per(p.decode_g1_cpu, p.g1_points),
        ms(p.decode_g2_cpu),
        per(p.decode_g2_cpu, p.g2_points),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: u64 = arg(&args, "--mib", 1024);
    let runs: usize = arg(&args, "--runs", 3);
    let no_write = flag(&args, "--no-write");
    let given = args.iter().any(|a| a == "--path");
    let path: PathBuf = arg(
        &args,
        "--path",
        PathBuf::from("/tmp/groth16-c2-srs-load.params"),
    );
    let mut wrote = false;
    let size = std::fs::metadata(&path).map(|m| m.len()).ok();
    if no_write {
        assert!(
            size.is_some(),
            "--no-write: {} does not exist",
            path.display()
        );
    } else if size.is_none() || (!given && size.unwrap_or(0) < mib << 19) {
        eprintln!("writing a {mib} MiB params file to {} ...", path.display());
        let t = Instant::now();
        write_params(&path, mib << 20).expect("params file written");
        eprintln!("written in {:.1} s", t.elapsed().as_secs_f64());
        wrote = true;
    }
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    let options = LoadOptions {
        subgroup_check: flag(&args, "--subgroup") || LoadOptions::default().subgroup_check,
    };
    println!(
        "params file: {} ({:.2} GB), threads: {}, subgroup check: {}",
        path.display(),
        file_bytes as f64 / 1e9,
        rayon::current_num_threads(),
        options.subgroup_check
    );
    if flag(&args, "--micro") {
        micro(&path, file_bytes);
    }
    let mut plan = Vec::new();
    if flag(&args, "--cold") {
        plan.push(true);
    }
    plan.extend(std::iter::repeat_n(false, runs));
    println!(
        "{:>4} {:>5} {:>9} {:>8} {:>13} {:>12} {:>9}",
        "run", "cache", "load_s", "GB/s", "peak_rss_GB", "rss_after_GB", "rss/file"
    );
    let mut warm = Vec::new();
    for (run, &cold) in plan.iter().enumerate() {
        let cached = if cold {
            drop_from_page_cache(&path)
        } else {
            cached_share(&File::open(&path).unwrap())
        };
        let base = rss_gb();
        let peak_ok = reset_peak_rss();
        let (user0, sys0) = cpu_seconds();
        let t = Instant::now();
        let (srs, profile) = Srs::load_profiled(&path, options).expect("params load");
        let secs = t.elapsed().as_secs_f64();
        let (user1, sys1) = cpu_seconds();
        let after = rss_gb() - base;
        let peak = if peak_ok {
            format!("{:.2}", status_kib("VmHWM:") as f64 * 1024.0 / 1e9 - base)
        } else {
            "n/a".into()
        };
        println!(
            "{:>4} {:>5} {:>9.3} {:>8.2} {:>13} {:>12.2} {:>9.3}",
            run + 1,
            if cold { "cold" } else { "warm" },
            secs,
            file_bytes as f64 / 1e9 / secs,
            peak,
            after,
            after * 1e9 / file_bytes as f64,
        );
        let points = profile.g1_points + profile.g2_points;
        println!(
            "      cpu: user {:.2} s, sys {:.2} s ({:.0} ns/point, {:.2} GB/s per core); page cache held {:.0}% of the file before the run",
            user1 - user0,
            sys1 - sys0,
            (user1 - user0 + sys1 - sys0) * 1e9 / points as f64,
            file_bytes as f64 / 1e9 / (user1 - user0 + sys1 - sys0),
            cached * 100.0
        );
        print_profile(&profile);
        if !cold {
            warm.push(secs);
        }
        drop(srs);
    }
    if !warm.is_empty() {
        warm.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = warm[warm.len() / 2];
        println!(
            "warm median: {median:.3} s to a usable SRS, {:.2} GB/s",
            file_bytes as f64 / 1e9 / median
        );
    }
    if wrote && !flag(&args, "--keep") {
        let _ = std::fs::remove_file(&path);
    }
}
