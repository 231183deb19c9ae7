//! `--partition`: synthetic partitions shaped like a 32 GiB PoRep one, at sizes where synthesis
//! and bellperson's parameter generation would take hours. The parent runs one child per size
//! (and a second on the CPU backend with `--compare-cpu`, whose proofs must match byte for
//! byte); each child generates the partition(s) and the SRS, proves `--runs` times and reports
//! on stdout.
//!
//! `--share-witness` generates one partition and hands the prover `--batch` witnesses that all
//! reference it, instead of `--batch` partitions: a batch of 10 at 2^27 then fits a 125 GiB
//! machine. Each circuit still gets its own r, s, so the proofs differ.
//!
//! `--pinned-inputs` keeps each partition's `a, b, c` in memory from `groth16_c2_alloc_pinned`
//! (page-locked on a GPU), as Curio's engine keeps them in its own pinned pool: the prover then
//! uploads them without a staging copy.
//!
//! The summary reports the share of the call the GPU lock was held (`held%`), the child's peak
//! RSS, what of it is beyond the SRS and the witnesses (`beyond MiB`), and the most host memory
//! the library reserved for circuits in flight (`lib MiB`: split vectors and staging).

use std::path::{Path, PathBuf};
use std::time::Instant;

use bench_support::synthetic_partition::{
    synthetic_srs, write_params, PartitionShape, SyntheticPartition, GENERATOR_VERSION,
};
use blstrs::Scalar;
use ff::Field;
use groth16_c2::{ProveOptions, Srs};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::common::{fail, median, proof_layout_bytes, Flags, DEFAULT_PARAMS_DIR};
use crate::process::{parse_sizes, peak_rss_kb, pin_inputs, run_self, self_command, witness_bytes};

const USAGE: &str = "bench --partition [--log-n 16,18] [--runs 3] [--batch 1] \
    [--share-witness] [--pinned-inputs] [--shape porep|window-post] [--ones-share 0.92] [--srs memory|file] [--compare-cpu] [--cpu-runs 1] \
    [--params-dir params-cache] [--vram-limit 16G]";

/// The largest size benched through a params file (about 360 bytes per domain element:
/// 6 GB at 2^24). Larger SRSs are built in memory, sparing the GPU machine's disk.
const MAX_FILE_LOG_N: u32 = 24;

#[derive(Clone, Copy, PartialEq)]
enum SrsSource {
    Memory,
    File,
}

struct Options {
    runs: usize,
    batch: usize,
    /// One partition behind every witness of the batch.
    share_witness: bool,
    /// `a, b, c` in page-locked memory from the library's allocator.
    pinned_inputs: bool,
    /// The partition's proportions: a PoRep's (the default) or a Window PoSt's.
    kind: ShapeKind,
    ones_share: f64,
    srs: SrsSource,
    compare_cpu: bool,
    cpu_runs: usize,
    dir: PathBuf,
    /// The children's device-memory limit (`GROTH16_C2_VRAM_LIMIT`).
    vram_limit: Option<String>,
}

#[derive(Clone, Copy)]
enum ShapeKind {
    Porep,
    WindowPost,
}

impl ShapeKind {
    fn parse(name: Option<&str>) -> ShapeKind {
        match name {
            None | Some("porep") => ShapeKind::Porep,
            Some("window-post") => ShapeKind::WindowPost,
            Some(other) => fail(&format!(
                "--shape takes porep or window-post, not {other:?}"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            ShapeKind::Porep => "porep",
            ShapeKind::WindowPost => "window-post",
        }
    }

    fn shape(self, log_n: u32) -> PartitionShape {
        match self {
            ShapeKind::Porep => PartitionShape::porep(log_n),
            ShapeKind::WindowPost => PartitionShape::window_post(log_n),
        }
    }
}

pub fn main(mut flags: Flags) {
    let child = flags.switch("--child");
    let kind = ShapeKind::parse(flags.value("--shape").as_deref());
    let sizes = parse_sizes(&flags.value("--log-n").unwrap_or_else(|| "16,18".into()));
    let o = Options {
        runs: flags.parse("--runs", 3),
        batch: flags.parse("--batch", 1),
        share_witness: flags.switch("--share-witness"),
        pinned_inputs: flags.switch("--pinned-inputs"),
        kind,
        ones_share: flags.parse("--ones-share", kind.shape(16).ones_share),
        srs: match flags.value("--srs").as_deref() {
            None | Some("memory") => SrsSource::Memory,
            Some("file") => SrsSource::File,
            Some(other) => fail(&format!("--srs takes memory or file, not {other:?}")),
        },
        compare_cpu: flags.switch("--compare-cpu"),
        cpu_runs: flags.parse("--cpu-runs", 1),
        dir: PathBuf::from(flags.parse("--params-dir", DEFAULT_PARAMS_DIR.to_string())),
        vram_limit: flags.value("--vram-limit"),
    };
    flags.finish(USAGE);
    if let Some(limit) = &o.vram_limit {
        if let Err(e) = groth16_c2::host_memory::parse_bytes(limit) {
            fail(&format!("--vram-limit: {e}"));
        }
    }
    check(&sizes, &o);
    if child {
        child_main(sizes[0], &o);
    } else {
        parent_main(&sizes, &o);
    }
}

fn check(sizes: &[u32], o: &Options) {
    if o.runs == 0 || o.batch == 0 || o.cpu_runs == 0 {
        fail(&format!(
            "need --runs, --batch, --cpu-runs >= 1\nusage: {USAGE}"
        ));
    }
    for &k in sizes {
        if let Err(e) = shape(k, o).check() {
            fail(&format!("2^{k}: {e}"));
        }
        if o.srs == SrsSource::File && !matches!(o.kind, ShapeKind::Porep) {
            fail("--srs file has PoRep-shaped params only; other shapes build theirs in memory");
        }
        if o.srs == SrsSource::File && k > MAX_FILE_LOG_N {
            fail(&format!(
                "--srs file is for log_n <= {MAX_FILE_LOG_N}; 2^{k} builds its SRS in memory"
            ));
        }
    }
}

fn shape(log_n: u32, o: &Options) -> PartitionShape {
    PartitionShape {
        ones_share: o.ones_share,
        ..o.kind.shape(log_n)
    }
}

fn params_path(dir: &Path, log_n: u32) -> PathBuf {
    dir.join(format!(
        "synthetic-partition-k{log_n}-v{GENERATOR_VERSION}.params"
    ))
}

// ---------------------------------------------------------------------------------------------
// Parent

/// One child's report.
#[derive(Default)]
struct Report {
    backend: String,
    constraints: usize,
    tail_share: f64,
    gen_s: f64,
    srs_s: f64,
    load_mb_s: Option<f64>,
    /// Per stage (in `ProofTimings::stages` order), its time in every run.
    stages: Vec<(String, Vec<f64>)>,
    proofs: Vec<String>,
    peak_kb: u64,
    /// Peak device memory of the child (GPU backends), and the SRS's size.
    vram_peak_mib: Option<f64>,
    srs_mib: f64,
    /// The witnesses' bytes (distinct partitions), and the library's peak reservation.
    inputs_mib: f64,
    lib_peak_mib: f64,
    /// G1 points per streamed chunk (0: the whole SRS resident).
    chunk_points: u64,
}

impl Report {
    fn median(&self, stage: &str) -> f64 {
        self.stages
            .iter()
            .find(|(name, _)| name == stage)
            .map_or(f64::NAN, |(_, v)| median(v))
    }
}

fn parent_main(sizes: &[u32], o: &Options) {
    println!(
        "groth16-c2 partition bench: {} shape, c={b} j={b} gw=1 (each run proves {b} partition(s) \
         in one call, {}), {:.0}% of aux values 0/1, SRS {}, median of {} runs{}",
        o.kind.name(),
        if o.share_witness {
            "one witness shared by all"
        } else {
            "one witness per partition"
        },
        o.ones_share * 100.0,
        match o.srs {
            SrsSource::Memory => "built in memory",
            SrsSource::File => "loaded from a params file",
        },
        o.runs,
        if o.compare_cpu {
            format!(" ({} on the CPU backend)", o.cpu_runs)
        } else {
            String::new()
        },
        b = o.batch
    );
    let mut rows = Vec::new();
    for &k in sizes {
        if o.srs == SrsSource::File {
            ensure_params(&o.dir, k);
        }
        eprintln!("partition bench 2^{k} ...");
        let ours = run_child(k, o, false);
        let cpu = o.compare_cpu.then(|| {
            eprintln!("partition bench 2^{k}, CPU backend ...");
            run_child(k, o, true)
        });
        rows.push((k, ours, cpu));
    }
    print_summary(&rows, o);
    print_stages(&rows);
    let differ = rows
        .iter()
        .any(|(_, ours, cpu)| cpu.as_ref().is_some_and(|c| !identical(ours, c)));
    if differ {
        fail("the proofs differ from the CPU backend's");
    }
}

fn identical(a: &Report, b: &Report) -> bool {
    !a.proofs.is_empty() && a.proofs == b.proofs
}

fn print_summary(rows: &[(u32, Report, Option<Report>)], o: &Options) {
    println!();
    print!(
        "{:>5} {:>8} {:>11} {:>6} {:>7} {:>7} {:>9} {:>10} {:>9} {:>9}",
        "log_n",
        "backend",
        "constraints",
        "tail%",
        "gen s",
        "srs s",
        "load MB/s",
        "total ms",
        "proofs/s",
        "peak MiB"
    );
    print!(
        " {:>9} {:>12} {:>6} {:>10} {:>8} {:>9} {:>10} {:>8}",
        "SRS MiB", "VRAM MiB", "held%", "beyond MiB", "lib MiB", "GB up/c", "up busy ms", "chunk"
    );
    if o.compare_cpu {
        print!(" {:>10} {:>8} {:>9}", "cpu ms", "cpu/ours", "identical");
    }
    println!();
    for (k, r, cpu) in rows {
        let total = r.median("total_ms");
        let load = r.load_mb_s.map_or("-".into(), |v| format!("{v:.0}"));
        print!(
            "{:>5} {:>8} {:>11} {:>6.1} {:>7.2} {:>7.2} {:>9} {:>10.1} {:>9.3} {:>9.0}",
            k,
            r.backend,
            r.constraints,
            r.tail_share * 100.0,
            r.gen_s,
            r.srs_s,
            load,
            total,
            o.batch as f64 * 1e3 / total,
            r.peak_kb as f64 / 1024.0
        );
        let beyond = r.vram_peak_mib.map_or("-".into(), |v| format!("{v:.0}"));
        print!(" {:>9.0} {beyond:>12}", r.srs_mib);
        print!(
            " {:>6.1} {:>10.0} {:>8.0}",
            100.0 * r.median("gpu_total_ms") / total,
            r.peak_kb as f64 / 1024.0 - r.srs_mib - r.inputs_mib,
            r.lib_peak_mib
        );
        print!(
            " {:>9.2} {:>10.1} {:>8}",
            r.median("h2d_mb") / 1e3 / o.batch as f64,
            r.median("h2d_busy_ms"),
            if r.chunk_points == 0 {
                "resident".to_string()
            } else {
                format!("2^{:.1}", (r.chunk_points as f64).log2())
            }
        );
        if let Some(c) = cpu {
            let cpu_total = c.median("total_ms");
            print!(
                " {:>10.1} {:>8.2} {:>9}",
                cpu_total,
                cpu_total / total,
                if identical(r, c) { "yes" } else { "NO" }
            );
        }
        println!();
    }
    println!(
        "(tail%: aux values neither 0 nor 1; gen s: generating the partition(s); srs s: \
         building the SRS in memory or loading the file; total ms: median prove call, \
         start to finalize; peak MiB: the child's peak RSS, SRS included; VRAM MiB: the peak \
         device memory the library held; held%: GPU lock held / call; beyond MiB: \
         peak RSS minus the SRS and the witnesses; lib MiB: the library's peak reservation for \
         circuits in flight; GB up/c: host-to-device bytes per circuit; up busy ms: the copy \
         streams' busy time per call; chunk: G1 points per streamed chunk of the SRS, or \
         resident)"
    );
}

/// Median ms of every stage, one column per size (and per backend with --compare-cpu).
fn print_stages(rows: &[(u32, Report, Option<Report>)]) {
    let mut columns: Vec<(String, &Report)> = Vec::new();
    for (k, r, cpu) in rows {
        columns.push((format!("2^{k} {}", r.backend), r));
        if let Some(c) = cpu {
            columns.push((format!("2^{k} cpu"), c));
        }
    }
    println!("\nmedian stage ms:");
    print!("  {:<18}", "stage");
    for (name, _) in &columns {
        print!(" {name:>12}");
    }
    println!();
    let Some((_, first)) = columns.first() else {
        return;
    };
    for (stage, _) in &first.stages {
        print!("  {stage:<18}");
        for (_, r) in &columns {
            print!(" {:>12.1}", r.median(stage));
        }
        println!();
    }
}

/// Writes the params file of `2^log_n` unless it is there (an older GENERATOR_VERSION has
/// another name). The children only load it, so neither times the writing.
fn ensure_params(dir: &Path, log_n: u32) -> PathBuf {
    let path = params_path(dir, log_n);
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(dir)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", dir.display())));
    let t = Instant::now();
    let srs = synthetic_srs(&SyntheticPartition::generate(&PartitionShape::porep(log_n)));
    let gen_s = t.elapsed().as_secs_f64();
    // A temp name, then rename: a killed run never leaves a truncated file under the name.
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let t = Instant::now();
    if let Err(e) = write_params(&srs, &tmp).and_then(|()| std::fs::rename(&tmp, &path)) {
        let _ = std::fs::remove_file(&tmp);
        fail(&format!("cannot write {}: {e}", path.display()));
    }
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len()) as f64;
    let write_s = t.elapsed().as_secs_f64();
    eprintln!(
        "wrote {} ({:.2} GB): SRS built in {gen_s:.2} s, written in {write_s:.2} s \
         ({:.0} MB/s)",
        path.display(),
        bytes / 1e9,
        bytes / 1e6 / write_s
    );
    path
}

fn run_child(log_n: u32, o: &Options, cpu: bool) -> Report {
    let mut child = self_command();
    child
        .args(["--partition", "--child", "--log-n", &log_n.to_string()])
        .args(["--batch", &o.batch.to_string()])
        .args(["--shape", o.kind.name()])
        .args(["--ones-share", &o.ones_share.to_string()])
        .args(["--params-dir"])
        .arg(&o.dir)
        .args([
            "--srs",
            if o.srs == SrsSource::File {
                "file"
            } else {
                "memory"
            },
        ]);
    if o.share_witness {
        child.arg("--share-witness");
    }
    if o.pinned_inputs {
        child.arg("--pinned-inputs");
    }
    if let Some(limit) = &o.vram_limit {
        child.env("GROTH16_C2_VRAM_LIMIT", limit);
    }
    if cpu {
        child
            .env("GROTH16_C2_BACKEND", "cpu")
            .args(["--runs", &o.cpu_runs.to_string()]);
    } else {
        child.args(["--runs", &o.runs.to_string()]);
    }
    let which = if cpu { "the CPU child" } else { "the child" };
    parse_report(&run_self(child, &format!("{which} at 2^{log_n}")))
}

fn parse_report(stdout: &str) -> Report {
    let mut r = Report::default();
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| -> f64 {
            words
                .get(i)
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN)
        };
        match words.first().copied() {
            Some("backend") => r.backend = words.get(1).unwrap_or(&"?").to_string(),
            Some("constraints") => r.constraints = num(1) as usize,
            Some("tail_share") => r.tail_share = num(1),
            Some("gen_s") => r.gen_s = num(1),
            Some("srs_s") => r.srs_s = num(1),
            Some("load_mb_s") => r.load_mb_s = Some(num(1)),
            Some("stage") => {
                let name = words.get(1).unwrap_or(&"?").to_string();
                match r.stages.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, v)) => v.push(num(2)),
                    None => r.stages.push((name, vec![num(2)])),
                }
            }
            Some("proof") => r.proofs.push(words.get(2).unwrap_or(&"").to_string()),
            Some("vmhwm_kb") => r.peak_kb = num(1) as u64,
            Some("vram_peak_mib") => r.vram_peak_mib = Some(num(1)),
            Some("srs_mib") => r.srs_mib = num(1),
            Some("inputs_mib") => r.inputs_mib = num(1),
            Some("lib_peak_mib") => r.lib_peak_mib = num(1),
            Some("chunk_points") => r.chunk_points = num(1) as u64,
            _ => {}
        }
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Child: generates, proves `--runs` times, reports on stdout one `key value...` per line.

fn child_main(log_n: u32, o: &Options) {
    let t = Instant::now();
    let distinct = if o.share_witness { 1 } else { o.batch };
    let mut partitions: Vec<SyntheticPartition> = (0..distinct)
        .map(|i| {
            SyntheticPartition::generate(&PartitionShape {
                seed: i as u64 + 1,
                ..shape(log_n, o)
            })
        })
        .collect();
    println!("gen_s {}", t.elapsed().as_secs_f64());
    println!("constraints {}", partitions[0].a.len());
    println!("tail_share {}", partitions[0].tail_share());
    let srs = match o.srs {
        SrsSource::Memory => synthetic_srs(&partitions[0]),
        SrsSource::File => {
            let path = params_path(&o.dir, log_n);
            let srs = Srs::new(&path, false)
                .unwrap_or_else(|e| fail(&format!("loading {}: {e}", path.display())));
            println!("load_mb_s {}", srs.load_mb_per_s());
            srs
        }
    };
    // Generation time in memory, load time from a file.
    println!("srs_s {}", srs.load_time.as_secs_f64());

    let mib = |bytes: usize| bytes as f64 / (1 << 20) as f64;
    let inputs: usize = witness_bytes(&partitions);
    println!("inputs_mib {}", mib(inputs));
    // With --pinned-inputs, each partition's a, b, c move to page-locked memory.
    let pinned = pin_inputs(&mut partitions, o.pinned_inputs);
    // With --share-witness, `batch` witnesses of the one partition.
    let witnesses: Vec<_> = (0..o.batch)
        .map(|i| {
            let k = i % partitions.len();
            let mut w = partitions[k].witness();
            if let Some([a, b, c]) = pinned.get(k) {
                (w.a, w.b, w.c) = (a.as_slice(), b.as_slice(), c.as_slice());
            }
            w
        })
        .collect();
    groth16_c2::host_memory::reset_peak();
    // The same r, s in every child, so that backends can be compared byte for byte.
    let mut rng = ChaCha8Rng::seed_from_u64(0xbe7c);
    let r: Vec<Scalar> = (0..o.batch).map(|_| Scalar::random(&mut rng)).collect();
    let s: Vec<Scalar> = (0..o.batch).map(|_| Scalar::random(&mut rng)).collect();
    // Verification off: the synthetic SRS is not a real setup, so its proofs cannot verify.
    let options = ProveOptions {
        verify: Some(false),
        ..Default::default()
    };
    let mut proofs = Vec::new();
    for _ in 0..o.runs {
        let (p, timings) = groth16_c2::start(&srs, &witnesses, &r, &s, options)
            .and_then(|pending| pending.finalize_timed())
            .unwrap_or_else(|e| fail(&format!("proving failed: {e}")));
        for (name, v) in timings.stages() {
            println!("stage {name} {v}");
        }
        println!("stage h2d_busy_ms {}", timings.h2d_busy_ms);
        println!("stage h2d_mb {}", timings.h2d_bytes as f64 / 1e6);
        println!("chunk_points {}", timings.stream_chunk_points);
        proofs = p;
    }
    println!("backend {}", groth16_c2::backend_name());
    for (i, p) in proofs.iter().enumerate() {
        let hex: String = proof_layout_bytes(p)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        println!("proof {i} {hex}");
    }
    println!("vmhwm_kb {}", peak_rss_kb());
    println!(
        "lib_peak_mib {}",
        mib(groth16_c2::host_memory::usage().1 as usize)
    );
    let srs_bytes =
        (srs.h.len() + srs.l.len() + srs.a.len() + srs.b_g1.len()) * 96 + srs.b_g2.len() * 192;
    println!("srs_mib {}", mib(srs_bytes));
    if let Some((_, peak)) = groth16_c2::gpu_memory() {
        println!("vram_peak_mib {}", mib(peak));
    }
    drop(witnesses);
    drop(pinned);
}
