//! The interlock benchmark: `c` single-partition proofs, at most `j` in flight, from `gw`
//! worker threads per GPU that share that GPU's lock, as Curio runs C2. The lock covers only
//! the device section, so while one worker holds it the others prepare their next proof or
//! finish their last one (G2 tail, epilogue) on the CPU: with enough workers the GPU never
//! waits for the CPU. The report shows whether it does: each GPU's busy share of the wall
//! time, the largest gap between its lock holds, stage medians and a timeline per worker.
//!
//! Proofs are not verified: the synthetic SRS is not a trusted setup, so its proofs cannot
//! verify. What verification would cost is timed once, apart.
//!
//! `--timeline-svg FILE` also draws the whole run of every config as an SVG picture
//! (`timeline_svg.rs`).
//!
//! `--pinned-inputs` moves the witnesses' `a, b, c` to memory from `groth16_c2_alloc_pinned`,
//! as Curio's engine keeps them page-locked: no staging copy. The run ends with where the
//! process's peak host memory went (SRS, witnesses, what the library reserved for proofs in
//! flight).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use bench_support::synthetic_partition::{synthetic_srs, PartitionShape, SyntheticPartition};
use blstrs::Scalar;
use ff::Field;
use groth16_c2::{GpuLock, Proof, ProofTimings, ProveOptions, Srs, Witness};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::common::{fail, median, Flags};
use crate::process::{pin_inputs, witness_bytes};
use crate::timeline_svg::Panel;

const USAGE: &str = "bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] \
    [--ones-share 0.92] [--timeline 4] [--timeline-svg FILE] [--g2-tail cpu,gpu] \
    [--pinned-inputs] [--vram-limit 16G]";

/// Proofs when `--proofs` is given without a value.
const DEFAULT_PROOFS: usize = 8;

/// Width of the timeline in characters.
const COLUMNS: usize = 100;

struct Options {
    proofs: usize,
    jobs: usize,
    /// Worker threads per GPU, one config each.
    workers: Vec<usize>,
    log_n: u32,
    ones_share: f64,
    gpus: usize,
    /// Proofs drawn per worker in the timeline.
    timeline: usize,
    /// Where to write the SVG picture of every config's run.
    timeline_svg: Option<String>,
    /// Whether the G2 tail MSM runs on the GPU, one config each.
    g2_tails: Vec<bool>,
    /// The witnesses' a, b, c in page-locked memory from the library's allocator.
    pinned_inputs: bool,
}

/// One finished proof and who made it.
pub struct Record {
    pub worker: usize,
    pub gpu: usize,
    pub t: ProofTimings,
}

/// One config's results, a row of the summary.
struct Row {
    g2_on_gpu: bool,
    gw: usize,
    s_per_proof: f64,
    proofs_per_s: f64,
    /// Mean over GPUs of the lock-held share of the wall time (NaN without timestamps).
    busy: f64,
    /// The same share between each GPU's first lock acquire and last release: the run
    /// without the pipeline's fill (the first proof's preparation) and drain.
    steady: f64,
    mutex_wait_ms: f64,
    gpu_total_ms: f64,
    /// Median CPU prep (split + prep_msm) over median gpu_total.
    prep_share: f64,
}

pub fn main(mut flags: Flags) {
    let o = options(&mut flags);
    flags.finish(USAGE);
    let shape = PartitionShape {
        ones_share: o.ones_share,
        ..PartitionShape::porep(o.log_n)
    };
    if let Err(e) = shape.check() {
        fail(&format!("2^{}: {e}", o.log_n));
    }
    println!(
        "groth16-c2 interlock bench: backend {}, {} CPU threads, c={} j={} gpus={} K={}, \
         {:.0}% of aux values 0/1",
        groth16_c2::backend_name(),
        groth16_c2::settings::threads(),
        o.proofs,
        o.jobs,
        o.gpus,
        o.log_n,
        o.ones_share * 100.0
    );
    println!(
        "proofs are not verified: the synthetic SRS is not a real trusted setup, so its \
         proofs cannot verify"
    );
    if groth16_c2::backend_name() == "cpu" && o.g2_tails.contains(&true) {
        println!("(the CPU backend runs the G2 tail after the lock whatever --g2-tail says)");
    }

    let mut partitions = generate(&shape, o.proofs.min(2));
    let srs = synthetic_srs(&partitions[0]);
    println!("SRS built in {:.3} s", srs.load_time.as_secs_f64());
    let witness_bytes: usize = witness_bytes(&partitions);
    let pinned = pin_inputs(&mut partitions, o.pinned_inputs);
    let witnesses: Vec<Witness> = partitions
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut w = p.witness();
            if let Some([a, b, c]) = pinned.get(k) {
                (w.a, w.b, w.c) = (a.as_slice(), b.as_slice(), c.as_slice());
            }
            w
        })
        .collect();
    groth16_c2::host_memory::reset_peak();

    let mut rows = Vec::new();
    let mut panels = Vec::new();
    let mut sample = None;
    for &g2_on_gpu in &o.g2_tails {
        groth16_c2::settings::set_g2_tail_on_gpu(g2_on_gpu);
        for &gw in &o.workers {
            let proof = warm_up(&srs, &witnesses, o.gpus, gw);
            sample.get_or_insert(proof);
            let records = run(&srs, &witnesses, &o, gw);
            let row = report(&records, &o, g2_on_gpu, gw);
            if o.timeline_svg.is_some() {
                panels.push(panel(&row, &o, records));
            }
            rows.push(row);
        }
    }
    print_summary(&rows);
    if let Some(path) = &o.timeline_svg {
        write_timeline_svg(path, &o, panels);
    }
    print_memory(&srs, witness_bytes, o.pinned_inputs);
    if let Some(proof) = sample {
        time_verification(&srs, &proof, &partitions[0]);
    }
    drop(witnesses);
    drop(pinned);
}

/// Where the process's peak host memory went.
fn print_memory(srs: &Srs, witness_bytes: usize, pinned: bool) {
    let gb = |b: f64| b / 1e9;
    let srs_bytes = ((srs.h.len() + srs.l.len() + srs.a.len() + srs.b_g1.len()) * 96
        + srs.b_g2.len() * 192) as f64;
    let peak = crate::process::peak_rss_kb() as f64 * 1024.0;
    let library = groth16_c2::host_memory::usage().1 as f64;
    println!(
        "host memory: peak RSS {:.1} GB = SRS {:.1} GB + witnesses {:.1} GB{} + library's          peak for proofs in flight (splits, staging) {:.1} GB + other {:.1} GB",
        gb(peak),
        gb(srs_bytes),
        gb(witness_bytes as f64),
        if pinned { " (a, b, c pinned)" } else { "" },
        gb(library),
        gb(peak - srs_bytes - witness_bytes as f64 - library)
    );
}

fn options(flags: &mut Flags) -> Options {
    let o = Options {
        proofs: take_proofs(flags),
        jobs: flags.parse("--jobs", 2),
        workers: parse_list("--workers", &flags.parse("--workers", "1,2".to_string())),
        log_n: flags.parse("--log-n", 20),
        ones_share: flags.parse("--ones-share", 0.92),
        gpus: flags.parse(
            "--gpus",
            groth16_c2::backend::default_backend().device_count(),
        ),
        timeline: flags.parse("--timeline", 4),
        timeline_svg: flags.value("--timeline-svg"),
        g2_tails: flags
            .parse("--g2-tail", "gpu".to_string())
            .split(',')
            .map(|x| match x.trim() {
                "cpu" => false,
                "gpu" => true,
                other => fail(&format!("--g2-tail takes cpu or gpu, not {other:?}")),
            })
            .collect(),
        pinned_inputs: flags.switch("--pinned-inputs"),
    };
    // The device-memory limit a smaller card would impose: the SRS then streams.
    if let Some(limit) = flags.value("--vram-limit") {
        match groth16_c2::host_memory::parse_bytes(&limit) {
            Ok(bytes) => groth16_c2::settings::set_vram_limit(bytes),
            Err(e) => fail(&format!("--vram-limit: {e}")),
        }
    }
    if o.proofs == 0 || o.jobs == 0 || o.gpus == 0 || o.workers.contains(&0) {
        fail(&format!(
            "need --proofs, --jobs, --gpus, --workers >= 1\nusage: {USAGE}"
        ));
    }
    o
}

/// `--proofs` selects this mode, so its value may be left out.
fn take_proofs(flags: &mut Flags) -> usize {
    let args: Vec<String> = std::env::args().collect();
    let value = args
        .iter()
        .position(|a| a == "--proofs")
        .and_then(|i| args.get(i + 1))
        .filter(|v| !v.starts_with("--"));
    if value.is_none() {
        flags.switch("--proofs");
        return DEFAULT_PROOFS;
    }
    flags.parse("--proofs", DEFAULT_PROOFS)
}

fn parse_list(name: &str, list: &str) -> Vec<usize> {
    list.split(',')
        .map(|v| {
            v.trim()
                .parse()
                .unwrap_or_else(|_| fail(&format!("{name}: cannot parse {v:?}")))
        })
        .collect()
}

/// `count` partitions that differ only in their values, so they share one SRS.
fn generate(shape: &PartitionShape, count: usize) -> Vec<SyntheticPartition> {
    (0..count)
        .map(|i| {
            let t = Instant::now();
            let p = SyntheticPartition::generate(&PartitionShape {
                seed: i as u64 + 1,
                ..shape.clone()
            });
            println!(
                "partition {} of {count}: {} constraints, {:.1}% tail, generated in {:.3} s",
                i + 1,
                p.a.len(),
                p.tail_share() * 100.0,
                t.elapsed().as_secs_f64()
            );
            p
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Proving

/// One proof on `gpu` with verification off (see the module doc).
fn prove_one(
    srs: &Srs,
    w: &Witness,
    index: usize,
    gpu: usize,
    lock: Option<&GpuLock>,
) -> (Proof, ProofTimings) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1e7c + index as u64);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let options = ProveOptions {
        lock,
        gpu_index: gpu as i32,
        verify: Some(false),
        ..Default::default()
    };
    let (mut proofs, t) = groth16_c2::start(srs, std::slice::from_ref(w), &[r], &[s], options)
        .and_then(|pending| pending.finalize_timed())
        .unwrap_or_else(|e| fail(&format!("proof {index} on gpu {gpu} failed: {e}")));
    (proofs.remove(0), t)
}

/// Untimed proofs, one per worker at once, a round per partition: the first upload of the
/// SRS into VRAM, the first allocation of each worker's page-locked staging buffer and the
/// growth of device buffers to the largest partition happen once in a prover's life and
/// must not count. Returns GPU 0's proof (of the first partition) for timing verification.
fn warm_up(srs: &Srs, witnesses: &[Witness], gpus: usize, gw: usize) -> Proof {
    let mut proofs: Vec<Proof> = Vec::new();
    for w in witnesses {
        proofs.extend(std::thread::scope(|scope| {
            let handles: Vec<_> = (0..gpus * gw)
                .map(|i| scope.spawn(move || prove_one(srs, w, 0, i / gw, None).0))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        }));
    }
    proofs.swap_remove(0)
}

/// A counting semaphore: at most `jobs` proofs in flight, whatever the worker count. It
/// hands slots out first come, first served: otherwise a worker that just gave its slot
/// back retakes it before the woken waiters, and the workers of other GPUs starve.
struct Slots {
    state: Mutex<SlotState>,
    changed: Condvar,
}

struct SlotState {
    free: usize,
    /// Tickets drawn and tickets served: waiters are served in ticket order.
    drawn: u64,
    served: u64,
}

impl Slots {
    fn new(jobs: usize) -> Slots {
        Slots {
            state: Mutex::new(SlotState {
                free: jobs,
                drawn: 0,
                served: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn take(&self) {
        let mut state = self.state.lock().unwrap();
        let ticket = state.drawn;
        state.drawn += 1;
        let mut state = self
            .changed
            .wait_while(state, |s| s.free == 0 || s.served != ticket)
            .unwrap();
        state.free -= 1;
        state.served += 1;
        // The next ticket may be able to go too.
        self.changed.notify_all();
    }

    fn give(&self) {
        self.state.lock().unwrap().free += 1;
        self.changed.notify_all();
    }
}

/// What the workers of one run share.
struct Shared<'a> {
    srs: &'a Srs,
    witnesses: &'a [Witness<'a>],
    locks: Vec<GpuLock>,
    /// The next proof index to hand out.
    next: AtomicUsize,
    slots: Slots,
    proofs: usize,
}

/// Proves `o.proofs` proofs with `gw` workers per GPU; returns them in no particular order.
fn run(srs: &Srs, witnesses: &[Witness], o: &Options, gw: usize) -> Vec<Record> {
    let shared = Shared {
        srs,
        witnesses,
        locks: (0..o.gpus).map(|_| GpuLock::new()).collect(),
        next: AtomicUsize::new(0),
        slots: Slots::new(o.jobs),
        proofs: o.proofs,
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..gw * o.gpus)
            .map(|worker| {
                let shared = &shared;
                scope.spawn(move || work(shared, worker, worker / gw))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// One worker: takes a slot before an index, so that no more than `jobs` proofs are in
/// flight, and gives the slot back once its proof is finalized.
fn work(shared: &Shared, worker: usize, gpu: usize) -> Vec<Record> {
    let mut done = Vec::new();
    loop {
        shared.slots.take();
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        if index >= shared.proofs {
            shared.slots.give();
            return done;
        }
        let w = &shared.witnesses[index % shared.witnesses.len()];
        let (_, t) = prove_one(shared.srs, w, index, gpu, Some(&shared.locks[gpu]));
        shared.slots.give();
        done.push(Record { worker, gpu, t });
    }
}

// ---------------------------------------------------------------------------------------------
// Report

/// A proof's phase boundaries, ns since the Unix epoch.
pub struct Phases {
    pub start: u64,
    /// Prep ends and the lock is requested.
    pub requested: u64,
    pub acquired: u64,
    pub released: u64,
    pub end: u64,
}

pub fn phases(t: &ProofTimings) -> Phases {
    let wait_ns = (t.mutex_wait_ms * 1e6) as u64;
    Phases {
        start: t.start_unix_ns,
        requested: t
            .lock_acquired_unix_ns
            .saturating_sub(wait_ns)
            .max(t.start_unix_ns),
        acquired: t.lock_acquired_unix_ns,
        released: t.lock_released_unix_ns,
        end: t.end_unix_ns,
    }
}

fn stamped(t: &ProofTimings) -> bool {
    [
        t.start_unix_ns,
        t.lock_acquired_unix_ns,
        t.lock_released_unix_ns,
        t.end_unix_ns,
    ]
    .iter()
    .all(|&ns| ns > 0)
}

/// The median over `records` of one value of each proof.
fn median_of(records: &[&Record], f: impl Fn(&ProofTimings) -> f64) -> f64 {
    median(&records.iter().map(|r| f(&r.t)).collect::<Vec<_>>())
}

/// Prints one config's results as they come, and returns its summary row.
fn report(records: &[Record], o: &Options, g2_on_gpu: bool, gw: usize) -> Row {
    let all: Vec<&Record> = records.iter().collect();
    let tail = if g2_on_gpu { "gpu" } else { "cpu" };
    let stamped = all.iter().all(|r| stamped(&r.t));
    let t0 = all.iter().map(|r| r.t.start_unix_ns).min().unwrap_or(0);
    let t1 = all.iter().map(|r| r.t.end_unix_ns).max().unwrap_or(0);
    let wall_s = t1.saturating_sub(t0) as f64 / 1e9;
    let (s_per_proof, proofs_per_s) = (wall_s / o.proofs as f64, o.proofs as f64 / wall_s);
    println!(
        "\nc={} j={} gw={gw} gpus={} K={} g2_tail={tail}: wall {wall_s:.2} s, \
         {s_per_proof:.3} s/proof, {proofs_per_s:.2} proofs/s",
        o.proofs, o.jobs, o.gpus, o.log_n
    );
    let (busy, steady) = if stamped {
        let shares = print_gpus(&all, o.gpus, t0, t1);
        let mean =
            |f: fn(&(f64, f64)) -> f64| shares.iter().map(f).sum::<f64>() / shares.len() as f64;
        (mean(|s| s.0), mean(|s| s.1))
    } else {
        println!(
            "  the prover left some timestamps at 0: wall time, busy shares and the \
             timeline are meaningless"
        );
        (f64::NAN, f64::NAN)
    };
    print_stages(&all);
    print_worker_waits(&all, gw * o.gpus);
    if stamped {
        print_timeline(&all, gw * o.gpus, gw, o.timeline, t0);
    }
    let gpu_total_ms = median_of(&all, |t| t.gpu_total_ms);
    Row {
        g2_on_gpu,
        gw,
        s_per_proof,
        proofs_per_s,
        busy,
        steady,
        mutex_wait_ms: median_of(&all, |t| t.mutex_wait_ms),
        gpu_total_ms,
        prep_share: median_of(&all, |t| t.split_vectors_ms + t.prep_msm_ms) / gpu_total_ms,
    }
}

/// The intervals merged where they overlap or touch, in order.
pub fn merged(mut spans: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    spans.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Merges intervals; returns the time they cover and the largest gap between them.
fn union_and_gap(spans: Vec<(u64, u64)>) -> (u64, u64) {
    let merged = merged(spans);
    let covered = merged.iter().map(|(a, b)| b - a).sum();
    let gap = merged
        .windows(2)
        .map(|w| w[1].0 - w[0].1)
        .max()
        .unwrap_or(0);
    (covered, gap)
}

/// Each GPU's lock-held share of the run's wall time and of its steady window (first
/// acquire to last release); prints them and returns them.
fn print_gpus(records: &[&Record], gpus: usize, t0: u64, t1: u64) -> Vec<(f64, f64)> {
    let wall = t1.saturating_sub(t0).max(1) as f64;
    println!(
        "  {:>4} {:>7} {:>7} {:>9} {:>13}",
        "gpu", "proofs", "busy %", "steady %", "max idle ms"
    );
    (0..gpus)
        .map(|g| {
            let held: Vec<(u64, u64)> = records
                .iter()
                .filter(|r| r.gpu == g)
                .map(|r| (r.t.lock_acquired_unix_ns, r.t.lock_released_unix_ns))
                .collect();
            let proofs = held.len();
            let first = held.iter().map(|h| h.0).min().unwrap_or(0);
            let last = held.iter().map(|h| h.1).max().unwrap_or(0);
            let (covered, gap) = union_and_gap(held);
            let busy = covered as f64 / wall;
            let steady = covered as f64 / last.saturating_sub(first).max(1) as f64;
            println!(
                "  {g:>4} {proofs:>7} {:>7.1} {:>9.1} {:>13.1}",
                busy * 100.0,
                steady * 100.0,
                gap as f64 / 1e6
            );
            (busy, steady)
        })
        .collect()
}

fn print_stages(records: &[&Record]) {
    let Some(first) = records.first() else {
        return;
    };
    println!("  {:<18} {:>10}", "stage", "median ms");
    for (i, (name, _)) in first.t.stages().iter().enumerate() {
        println!(
            "  {name:<18} {:>10.1}",
            median_of(records, |t| t.stages()[i].1)
        );
    }
    println!(
        "  {:<18} {:>10.1}",
        "h2d_busy_ms",
        median_of(records, |t| t.h2d_busy_ms)
    );
    println!(
        "  {:<18} {:>10.2} (chunks of {} points; 0: the whole SRS resident)",
        "h2d GB",
        median_of(records, |t| t.h2d_bytes as f64 / 1e9),
        first.t.stream_chunk_points
    );
}

fn print_worker_waits(records: &[&Record], workers: usize) {
    println!(
        "  {:<8} {:>4} {:>7} {:>22}",
        "worker", "gpu", "proofs", "median mutex_wait ms"
    );
    for w in 0..workers {
        let mine: Vec<&Record> = records.iter().copied().filter(|r| r.worker == w).collect();
        let (gpu, wait) = match mine.first() {
            Some(r) => (
                r.gpu.to_string(),
                format!("{:.1}", median_of(&mine, |t| t.mutex_wait_ms)),
            ),
            None => ("-".into(), "-".into()),
        };
        println!(
            "  {:<8} {gpu:>4} {:>7} {wait:>22}",
            worker_name(w),
            mine.len()
        );
    }
}

/// A, B, ... Z, then numbers.
pub fn worker_name(w: usize) -> String {
    match u8::try_from(w) {
        Ok(w) if w < 26 => char::from(b'A' + w).to_string(),
        _ => w.to_string(),
    }
}

/// One line per worker: its first `per_worker` proofs, from the run's start `t0` to the
/// end of the last proof drawn.
fn print_timeline(records: &[&Record], workers: usize, gw: usize, per_worker: usize, t0: u64) {
    let drawn: Vec<Vec<&Record>> = (0..workers)
        .map(|w| {
            let mut mine: Vec<&Record> =
                records.iter().copied().filter(|r| r.worker == w).collect();
            mine.sort_by_key(|r| r.t.start_unix_ns);
            mine.truncate(per_worker);
            mine
        })
        .collect();
    let Some(t1) = drawn.iter().flatten().map(|r| r.t.end_unix_ns).max() else {
        return;
    };
    let span = t1.saturating_sub(t0).max(1) as f64;
    println!("  timeline of the first {per_worker} proof(s) of each worker:");
    println!(
        "  (p prep: start to lock request, w waiting for the lock, = holding the lock (GPU), \
         f after release to the end: G2 tail, epilogue; . idle)"
    );
    for (w, mine) in drawn.iter().enumerate() {
        let label = format!("worker {} (gpu {}):", worker_name(w), w / gw);
        println!("  {label:<20} {}", draw(mine, t0, span));
    }
    let ruler: String = (0..COLUMNS)
        .map(|c| if c % 10 == 0 { '|' } else { '-' })
        .collect();
    println!("  {:<20} {ruler}", "");
    println!(
        "  {:<20} 0 .. {:.1} ms from the run's start; | every 10 columns = {:.1} ms",
        "",
        span / 1e6,
        span / 1e6 / COLUMNS as f64 * 10.0
    );
}

/// One timeline row: each column shows the phase (or idleness) covering most of it.
fn draw(records: &[&Record], t0: u64, span: f64) -> String {
    let segments: Vec<(f64, f64, char)> = records
        .iter()
        .flat_map(|r| {
            let p = phases(&r.t);
            let at = |ns: u64| ns.saturating_sub(t0) as f64;
            [
                (at(p.start), at(p.requested), 'p'),
                (at(p.requested), at(p.acquired), 'w'),
                (at(p.acquired), at(p.released), '='),
                (at(p.released), at(p.end), 'f'),
            ]
        })
        .collect();
    let width = span / COLUMNS as f64;
    (0..COLUMNS)
        .map(|c| {
            let (a, b) = (c as f64 * width, (c + 1) as f64 * width);
            let overlap = |&(s, e, _): &(f64, f64, char)| (e.min(b) - s.max(a)).max(0.0);
            let busiest = segments
                .iter()
                .max_by(|x, y| overlap(x).total_cmp(&overlap(y)));
            let covered: f64 = segments.iter().map(overlap).sum();
            match busiest {
                Some(seg) if overlap(seg) > 0.0 && overlap(seg) >= width - covered => seg.2,
                _ => '.',
            }
        })
        .collect()
}

fn print_summary(rows: &[Row]) {
    println!(
        "\nsummary (vs gw=1: throughput against the gw=1 config with the same g2 tail; busy: \
         mean over GPUs of the lock-held share of the wall time; steady: the same from each \
         GPU's first lock acquire to its last release; prep %: median CPU prep \
         (split + prep_msm) as a share of median gpu_total):"
    );
    println!(
        "  {:>7} {:>3} {:>8} {:>9} {:>8} {:>7} {:>9} {:>14} {:>13} {:>7}",
        "g2_tail",
        "gw",
        "s/proof",
        "proofs/s",
        "vs gw=1",
        "busy %",
        "steady %",
        "mutex_wait ms",
        "gpu_total ms",
        "prep %"
    );
    for row in rows {
        let base = rows
            .iter()
            .find(|b| b.gw == 1 && b.g2_on_gpu == row.g2_on_gpu);
        let ratio = base.map_or("-".into(), |b| {
            format!("{:.2}", row.proofs_per_s / b.proofs_per_s)
        });
        println!(
            "  {:>7} {:>3} {:>8.3} {:>9.2} {ratio:>8} {:>7.1} {:>9.1} {:>14.1} {:>13.1} {:>7.1}",
            if row.g2_on_gpu { "gpu" } else { "cpu" },
            row.gw,
            row.s_per_proof,
            row.proofs_per_s,
            row.busy * 100.0,
            row.steady * 100.0,
            row.mutex_wait_ms,
            row.gpu_total_ms,
            row.prep_share * 100.0
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The picture (`--timeline-svg`)

/// One config's run as a panel of the picture.
fn panel(row: &Row, o: &Options, records: Vec<Record>) -> Panel {
    Panel {
        caption: format!(
            "{} per GPU, G2 tail on the {}: {} proofs in {:.3} s, {:.2} proofs/s",
            count(row.gw, "worker"),
            if row.g2_on_gpu { "GPU" } else { "CPU" },
            o.proofs,
            row.s_per_proof * o.proofs as f64,
            row.proofs_per_s
        ),
        gw: row.gw,
        gpus: o.gpus,
        records,
    }
}

/// Writes the configs whose proofs all have timestamps (the picture needs them) as one SVG.
fn write_timeline_svg(path: &str, o: &Options, mut panels: Vec<Panel>) {
    let configs = panels.len();
    panels.retain(|p| p.records.iter().all(|r| stamped(&r.t)));
    if panels.len() < configs {
        println!("timeline picture: left out configs whose proofs lack timestamps");
    }
    let title = format!(
        "groth16-c2 interlock bench: {} proofs of 2^{} constraints, at most {} in flight, {}",
        o.proofs,
        o.log_n,
        o.jobs,
        count(o.gpus, "GPU")
    );
    let svg = crate::timeline_svg::render(&title, &device_words(), &panels);
    std::fs::write(path, svg).unwrap_or_else(|e| fail(&format!("--timeline-svg {path}: {e}")));
    println!("timeline picture: {path} (open it in a browser; hover a bar for its times)");
}

/// "1 GPU", "2 GPUs".
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// What the proofs ran on, in words: the GPU as the library's log line names it, or the
/// CPU backend.
fn device_words() -> String {
    let label = groth16_c2::backend::default_backend().device_label(0);
    let field = |key: &str| {
        label
            .split(' ')
            .find_map(|kv| kv.strip_prefix(key))
            .map(|v| v.replace('_', " "))
    };
    match (field("gpu_name="), field("gpu_arch=")) {
        (Some(name), Some(arch)) => format!("backend cuda on {name} ({arch})"),
        _ => format!(
            "backend {} ({} CPU threads)",
            groth16_c2::backend_name(),
            groth16_c2::settings::threads()
        ),
    }
}

/// Times checking one proof, which the bench leaves off (the synthetic SRS cannot pass it).
fn time_verification(srs: &Srs, proof: &Proof, partition: &SyntheticPartition) {
    let inputs = &partition.inputs[1..];
    let mut ms = Vec::new();
    let mut ok = false;
    for _ in 0..5 {
        let t = Instant::now();
        ok = groth16_c2::verify::verify(&srs.vk, proof, inputs)
            .unwrap_or_else(|e| fail(&format!("verify: {e}")));
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "\nverification costs {:.2} ms per proof (off in this bench: the synthetic SRS is not \
         a real setup; the check said {ok})",
        median(&ms)
    );
}
