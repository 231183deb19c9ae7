//! A soak through the C ABI, as Curio's engine runs: several workers share one caller-owned GPU
//! lock, each proving one circuit per call (`generate_groth16_proofs_start_c` + finalize) with
//! the library's proof check on, over circuits of several sizes whose SRSs take turns on the
//! device. It fails on any failed call, any failed check, or any growth of what the library
//! holds between the warm-up and the end: device memory (the library's and the driver's
//! count), page-locked memory outside the staging pool, the pool beyond one buffer per worker,
//! host memory reservations, the process's RSS outside page-locked memory (after handing
//! glibc's free memory back) beyond a slack over the second half of the run, or twice the
//! slack over the whole run. A snapshot between the halves tells a leak (growth in both)
//! from memory kept after its first use (the first half only).
//!
//! `cargo run --release --features bellpepper --example soak -- [--proofs N] [--workers W]
//! [--sizes 16,20,22] [--big K] [--big-every M] [--witnesses P] [--params-dir DIR] [--generate-only]`
//! (defaults: 1000 proofs, 2 workers, sizes 2^16, 2^20, 2^22, every 25th proof 2^24, 2
//! witnesses per size). Params (bellperson's, made by `common::setup`) are generated per size
//! and cached in DIR; the proofs verify against them (the check runs inside each call).
//! `--generate-only` writes the params and stops.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use bench_support::common::*;
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::Scalar;
use ff::Field;
use groth16_c2::ffi;
use groth16_c2::witness::{RecordedWitness, WitnessRecorder};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Page-locked staging buffers one staged circuit holds (`a, b, c`; bitmaps and tails).
const STAGING_BUFFERS_PER_CIRCUIT: usize = 2;

const USAGE: &str = "soak [--proofs N] [--workers W] [--sizes K,K,..] [--big K] \
                     [--big-every M] [--witnesses P] [--params-dir DIR] [--generate-only]";

/// RSS growth tolerated between the warm-up and the end (allocator and driver slack).
const RSS_SLACK_MIB: f64 = 64.0;
/// Device memory growth tolerated, as the driver reports it (its own slack).
const DEVICE_SLACK_MIB: f64 = 8.0;

struct Size {
    log_n: u32,
    srs: CSrs,
    witnesses: Vec<RecordedWitness>,
}

// SAFETY: the C ABI lets any number of threads prove from one SRS handle at once, and the
// witnesses are only read.
unsafe impl Sync for Size {}

/// What the library and the process hold at one moment.
#[derive(Clone, Copy, Debug)]
struct Snapshot {
    rss_mib: f64,
    /// Where RSS growth would come from: anonymous and file pages, glibc's live allocations
    /// (arenas and mmapped chunks), what its arenas keep free, and the process's threads.
    rss_anon_mib: f64,
    rss_file_mib: f64,
    malloc_live_mib: f64,
    malloc_free_mib: f64,
    threads: u64,
    vram_mib: Option<f64>,
    device_used_mib: Option<f64>,
    page_locked_mib: Option<f64>,
    staging_pool: Option<(usize, usize)>,
    reserved: u64,
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn snapshot() -> Snapshot {
    // Memory freed but kept by glibc's arenas is not held by anyone: give it back first, so
    // that RSS counts what is live.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
    let (mut reserved, mut peak) = (0, 0);
    // SAFETY: two writable u64s.
    unsafe { ffi::groth16_c2_host_memory_in_use(&mut reserved, &mut peak) };
    let (malloc_live_mib, malloc_free_mib) = malloc_mib();
    Snapshot {
        rss_mib: proc_status_kib("VmRSS") as f64 / 1024.0,
        rss_anon_mib: proc_status_kib("RssAnon") as f64 / 1024.0,
        rss_file_mib: proc_status_kib("RssFile") as f64 / 1024.0,
        malloc_live_mib,
        malloc_free_mib,
        threads: proc_status_kib("Threads"),
        vram_mib: groth16_c2::gpu_memory().map(|(now, _)| mib(now)),
        device_used_mib: groth16_c2::device_memory_info(0).map(|(free, total)| mib(total - free)),
        page_locked_mib: groth16_c2::page_locked_memory().map(mib),
        staging_pool: groth16_c2::staging_pool(),
        reserved,
    }
}

/// glibc's live allocations and the free memory its arenas keep, in MiB (zero elsewhere).
fn malloc_mib() -> (f64, f64) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        let m = unsafe { libc::mallinfo2() };
        (mib(m.uordblks + m.hblkhd), mib(m.fordblks))
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    (0.0, 0.0)
}

/// The breakdown of a snapshot's RSS, one line under `show`'s.
fn show_memory(s: &Snapshot) {
    println!(
        "{:<10} anon {:>8.1} MiB | file {:>8.1} MiB | malloc live {:>8.1} MiB | malloc free {:>7.1} MiB | threads {}",
        "",
        s.rss_anon_mib,
        s.rss_file_mib,
        s.malloc_live_mib,
        s.malloc_free_mib,
        s.threads
    );
}

fn show(label: &str, s: &Snapshot) {
    let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
    println!(
        "{label:<10} rss {:>9.1} MiB | library VRAM {:>9} MiB | device used {:>9} MiB | \
         page-locked {:>8} MiB | staging pool {:>12} | reserved {} B",
        s.rss_mib,
        opt(s.vram_mib),
        opt(s.device_used_mib),
        opt(s.page_locked_mib),
        s.staging_pool
            .map_or("-".into(), |(n, b)| format!("{n} x {:.0} MiB", mib(b))),
        s.reserved
    );
}

/// One call: start + finalize with the shared lock on GPU 0 (or the CPU).
fn prove_one(
    size: &Size,
    witness: usize,
    r: Scalar,
    s: Scalar,
    lock: *mut std::ffi::c_void,
) -> Result<(), String> {
    let a = [size.witnesses[witness].assignment()];
    let mut pending = std::ptr::null_mut();
    // SAFETY: one assignment into a live witness, one r and s, a live SRS and lock.
    take_error(unsafe {
        ffi::generate_groth16_proofs_start_c(
            a.as_ptr(),
            1,
            &r,
            &s,
            &size.srs.0,
            lock,
            0,
            &mut pending,
        )
    })?;
    // SAFETY: all-zero bytes are identity points; the call overwrites them.
    let mut proof: groth16_c2::Proof = unsafe { std::mem::zeroed() };
    // SAFETY: a pending handle from the call above, one proof slot.
    let done = take_error(unsafe { ffi::finalize_groth16_proof_c(pending, &mut proof) });
    ffi::destroy_pending_proof(pending);
    done
}

/// The size of job `i`: every `big_every`-th the big one, otherwise a pseudo-random small one.
fn job_size(i: usize, small: usize, big: Option<usize>, big_every: usize) -> usize {
    match big {
        Some(b) if big_every > 0 && i % big_every == big_every - 1 => b,
        _ => (i.wrapping_mul(2_654_435_761) >> 7) % small,
    }
}

fn main() {
    let mut flags = Flags::from_env();
    let proofs: usize = flags.parse("--proofs", 1000);
    let workers: usize = flags.parse("--workers", 2);
    let sizes: String = flags.parse("--sizes", "16,20,22".to_string());
    let big: u32 = flags.parse("--big", 24);
    let big_every: usize = flags.parse("--big-every", 25);
    let per_size: usize = flags.parse("--witnesses", 2);
    let dir = PathBuf::from(flags.parse("--params-dir", DEFAULT_PARAMS_DIR.to_string()));
    let generate_only = flags.switch("--generate-only");
    flags.finish(USAGE);
    let mut logs: Vec<u32> = sizes
        .split(',')
        .map(|k| {
            k.trim()
                .parse()
                .unwrap_or_else(|_| fail(&format!("--sizes: `{k}` is not a number\n{USAGE}")))
        })
        .collect();
    let small = logs.len();
    let big = (big > 0 && big_every > 0).then(|| {
        logs.push(big);
        small
    });
    if proofs == 0 || workers == 0 || per_size == 0 || logs.iter().any(|k| !(2..=27).contains(k)) {
        fail(&format!("need N, W, P >= 1 and sizes in 2..=27\n{USAGE}"));
    }

    if generate_only {
        for &log_n in &logs {
            println!(
                "params   2^{log_n}: {}",
                ensure_params(&dir, log_n).display()
            );
        }
        return;
    }
    println!("backend  {}", groth16_c2::backend_description());
    ffi::groth16_c2_set_verify_proofs(true);
    let sizes: Vec<Size> = logs
        .iter()
        .map(|&log_n| {
            let path = ensure_params(&dir, log_n);
            let srs = CSrs::load(&path).unwrap_or_else(|e| fail(&format!("create_SRS: {e}")));
            let t = Instant::now();
            let witnesses = (0..per_size)
                .map(|i| {
                    let c = PorepShapedCircuit::new(log_n, Some(1000 * log_n as u64 + i as u64));
                    WitnessRecorder::record(c).unwrap_or_else(|e| fail(&format!("{e}")))
                })
                .collect();
            println!(
                "size     2^{log_n}: params {}, {per_size} witnesses in {:.1} s",
                path.display(),
                t.elapsed().as_secs_f64()
            );
            Size {
                log_n,
                srs,
                witnesses,
            }
        })
        .collect();

    let lock = ffi::create_gpu_mutex();
    let lock_addr = lock as usize;
    // Warm-up: every worker proves every size once, concurrently, so that buffers and the
    // staging pool reach their working size; the last SRS on the device is the last size's.
    let warm_up = || {
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let sizes = &sizes;
                scope.spawn(move || {
                    let lock = lock_addr as *mut std::ffi::c_void;
                    for size in sizes {
                        prove_one(size, 0, Scalar::ONE, Scalar::ONE, lock)
                            .unwrap_or_else(|e| fail(&format!("warm-up 2^{}: {e}", size.log_n)));
                    }
                });
            }
        });
        // The same last SRS on the device for every snapshot.
        let last = sizes.last().expect("sizes");
        prove_one(last, 0, Scalar::ONE, Scalar::ONE, lock)
            .unwrap_or_else(|e| fail(&format!("warm-up 2^{}: {e}", last.log_n)));
    };
    warm_up();
    let counters_before = counters();
    let before = snapshot();
    let maps_before = mappings();
    show("before", &before);
    show_memory(&before);

    // Two halves with a snapshot between them: a leak grows RSS in both, while memory the
    // allocator or the driver keeps after its first use shows in the first half only.
    let failures = Mutex::new(Vec::<String>::new());
    let times: Vec<Mutex<Vec<f64>>> = sizes.iter().map(|_| Mutex::new(Vec::new())).collect();
    let mut wall = 0.0;
    let mut run_half = |from: usize, to: usize| {
        let next = AtomicUsize::new(from);
        let t = Instant::now();
        std::thread::scope(|scope| {
            for worker in 0..workers {
                let (sizes, next, failures, times) = (&sizes, &next, &failures, &times);
                scope.spawn(move || {
                    let lock = lock_addr as *mut std::ffi::c_void;
                    let mut rng = ChaCha8Rng::seed_from_u64((from + worker) as u64);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= to {
                            return;
                        }
                        let k = job_size(i, small, big, big_every);
                        let w = i % sizes[k].witnesses.len();
                        let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
                        let call = Instant::now();
                        match prove_one(&sizes[k], w, r, s, lock) {
                            Ok(()) => times[k]
                                .lock()
                                .unwrap()
                                .push(call.elapsed().as_secs_f64() * 1e3),
                            Err(e) => failures
                                .lock()
                                .unwrap()
                                .push(format!("proof {i} (2^{}): {e}", sizes[k].log_n)),
                        }
                        if (i + 1) % 100 == 0 {
                            eprintln!("{} proofs", i + 1);
                        }
                    }
                });
            }
        });
        wall += t.elapsed().as_secs_f64();
        warm_up();
    };
    run_half(0, proofs / 2);
    let middle = snapshot();
    let maps_middle = mappings();
    show("middle", &middle);
    show_memory(&middle);
    run_half(proofs / 2, proofs);
    let counters_after = counters();
    let after = snapshot();
    let maps_after = mappings();
    show("after", &after);
    show_memory(&after);
    show_mapping_growth("first half", &maps_before, &maps_middle);
    show_mapping_growth("second half", &maps_middle, &maps_after);

    println!("\n| size | proofs | median ms per call | max ms |");
    println!("|---|---|---|---|");
    for (size, times) in sizes.iter().zip(&times) {
        let mut v = times.lock().unwrap().clone();
        v.sort_by(f64::total_cmp);
        println!(
            "| 2^{} | {} | {:.1} | {:.1} |",
            size.log_n,
            v.len(),
            median(&v),
            v.last().copied().unwrap_or(0.0)
        );
    }
    let checked = counters_after.verified - counters_before.verified;
    let check_failures = counters_after.verify_failures - counters_before.verify_failures;
    let failures = failures.into_inner().unwrap();
    println!(
        "\n{proofs} proofs by {workers} workers on one lock in {wall:.1} s ({:.2} proofs/s); \
         {} failed calls, {checked} proofs checked by the library (warm-ups included), {check_failures} failed checks",
        proofs as f64 / wall,
        failures.len()
    );

    let mut problems: Vec<String> = failures.iter().take(10).cloned().collect();
    if check_failures > 0 || checked < proofs as u64 {
        problems.push(format!(
            "{checked} of {proofs} proofs checked, {check_failures} failed"
        ));
    }
    // Page-locked memory counts in RSS: compare what is not page-locked, and hold the pool to
    // what the workers can use at once: a staged circuit holds two buffers (its `a, b, c`,
    // and its bitmaps and tails), one circuit per call and worker.
    let unpinned = |s: &Snapshot| s.rss_mib - s.page_locked_mib.unwrap_or(0.0);
    let (first, second) = (
        unpinned(&middle) - unpinned(&before),
        unpinned(&after) - unpinned(&middle),
    );
    println!(
        "RSS outside page-locked memory: {first:+.1} MiB over the first half, {second:+.1} MiB \
         over the second"
    );
    let growth = |f: fn(&Snapshot) -> f64| (f(&middle) - f(&before), f(&after) - f(&middle));
    let (live, anon, file) = (
        growth(|s| s.malloc_live_mib),
        growth(|s| s.rss_anon_mib),
        growth(|s| s.rss_file_mib),
    );
    println!(
        "of which glibc's live allocations {:+.1} / {:+.1} MiB, anonymous pages {:+.1} / {:+.1}, \
         file pages {:+.1} / {:+.1} (first half / second)",
        live.0, live.1, anon.0, anon.1, file.0, file.1
    );
    if second > RSS_SLACK_MIB || first + second > 2.0 * RSS_SLACK_MIB {
        problems.push(format!(
            "RSS outside page-locked memory grew by {first:.1} + {second:.1} MiB"
        ));
    }
    if after.vram_mib != before.vram_mib {
        problems.push("the library's device memory changed".into());
    }
    if let (Some(a), Some(b)) = (after.device_used_mib, before.device_used_mib) {
        if a > b + DEVICE_SLACK_MIB {
            problems.push(format!("device memory in use grew by {:.1} MiB", a - b));
        }
    }
    let outside_pool =
        |s: &Snapshot| s.page_locked_mib.unwrap_or(0.0) - mib(s.staging_pool.map_or(0, |p| p.1));
    if outside_pool(&after) != outside_pool(&before) {
        problems.push(format!(
            "page-locked memory outside the staging pool changed: {:.1} -> {:.1} MiB",
            outside_pool(&before),
            outside_pool(&after)
        ));
    }
    if let Some((buffers, _)) = after.staging_pool {
        if buffers > STAGING_BUFFERS_PER_CIRCUIT * workers {
            problems.push(format!(
                "{buffers} idle staging buffers for {workers} workers proving one circuit each"
            ));
        }
    }
    if after.reserved != 0 {
        problems.push(format!(
            "{} B of host memory still reserved",
            after.reserved
        ));
    }

    drop(sizes);
    ffi::groth16_c2_release_gpu_memory();
    show("released", &snapshot());
    // SAFETY: no call uses the lock any more.
    unsafe { ffi::destroy_gpu_mutex(lock) };
    if !problems.is_empty() {
        fail(&format!("soak failed:\n  {}", problems.join("\n  ")));
    }
    println!("soak passed");
}

/// One mapping of the address space (`/proc/self/smaps`): what backs it and its resident KiB.
struct Mapping {
    bytes: u64,
    what: String,
    rss_kib: u64,
}

/// The process's mappings by start address (empty where there is no `/proc/self/smaps`).
fn mappings() -> std::collections::HashMap<u64, Mapping> {
    let mut maps = std::collections::HashMap::new();
    let Ok(text) = std::fs::read_to_string("/proc/self/smaps") else {
        return maps;
    };
    let mut current: Option<u64> = None;
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let first = fields.next().unwrap_or("");
        if let Some((start, end)) = first.split_once('-') {
            if let (Ok(start), Ok(end)) =
                (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16))
            {
                let perms = fields.next().unwrap_or("");
                let path = fields.nth(3).unwrap_or("[anonymous]");
                maps.insert(
                    start,
                    Mapping {
                        bytes: end - start,
                        what: format!("{path} {perms}"),
                        rss_kib: 0,
                    },
                );
                current = Some(start);
                continue;
            }
        }
        if first == "Rss:" {
            if let (Some(start), Some(kib)) = (current, fields.next().and_then(|v| v.parse().ok()))
            {
                if let Some(m) = maps.get_mut(&start) {
                    m.rss_kib = kib;
                }
            }
        }
    }
    maps
}

/// Where RSS grew between two snapshots: the mappings that grew (or appeared) the most, and the
/// totals by what backs them, so a leak shows as glibc's heap, a driver's mapping or new ones.
fn show_mapping_growth(
    label: &str,
    from: &std::collections::HashMap<u64, Mapping>,
    to: &std::collections::HashMap<u64, Mapping>,
) {
    if to.is_empty() {
        return;
    }
    let mut grown: Vec<(i64, u64, &Mapping, bool)> = to
        .iter()
        .map(|(start, m)| {
            let old = from.get(start).filter(|o| o.bytes == m.bytes);
            (
                m.rss_kib as i64 - old.map_or(0, |o| o.rss_kib as i64),
                *start,
                m,
                old.is_none(),
            )
        })
        .collect();
    let gone: i64 = from
        .iter()
        .filter(|(start, m)| to.get(start).is_none_or(|n| n.bytes != m.bytes))
        .map(|(_, m)| m.rss_kib as i64)
        .sum();
    grown.sort_by_key(|g| std::cmp::Reverse(g.0));
    let total: i64 = grown.iter().map(|g| g.0).sum::<i64>() - gone;
    println!(
        "RSS by mapping, {label}: {:+.1} MiB in all ({} mappings now, {} new, {:.1} MiB in mappings gone)",
        total as f64 / 1024.0,
        to.len(),
        grown.iter().filter(|g| g.3).count(),
        gone as f64 / 1024.0
    );
    for (kib, start, m, new) in grown.iter().take(6).filter(|g| g.0 != 0) {
        println!(
            "  {:+9.1} MiB  {start:#014x} {:>10.1} MiB{} {}",
            *kib as f64 / 1024.0,
            m.bytes as f64 / (1 << 20) as f64,
            if *new { " new" } else { "" },
            m.what
        );
    }
}

fn counters() -> groth16_c2::telemetry::ProofCounters {
    let mut c = groth16_c2::telemetry::ProofCounters::default();
    // SAFETY: writable.
    take_error(unsafe { ffi::groth16_c2_counters(&mut c) })
        .unwrap_or_else(|e| fail(&format!("groth16_c2_counters: {e}")));
    c
}
