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
//!
//! `--partition` benches the default backend alone on synthetic 32 GiB PoRep partitions scaled
//! to `2^K` (`groth16_c2::synthetic_partition`: no synthesis, no bellperson setup, so 2^26 is
//! practical), optionally against the CPU backend in a second child:
//!
//! `bench --partition [--log-n 16,18] [--runs 3] [--batch 1] [--ones-share 0.92]
//! [--srs memory|file] [--compare-cpu] [--cpu-runs 1] [--params-dir DIR]`
//!
//! `--srs file` (log_n <= 24) writes the SRS once as a params file in the params dir and has
//! each child load it with `Srs::new`; `memory` (the default) builds it in each child.
//!
//! `--proofs` runs the interlock benchmark: single-partition proofs from `gw` worker threads
//! per GPU sharing that GPU's lock, as Curio runs them; it reports throughput, each GPU's busy
//! share and a timeline of the workers (see `mod interlock`):
//!
//! `bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] [--ones-share 0.92]
//! [--timeline 4] [--g2-tail cpu,gpu]`

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

const USAGE: &str = concat!(
    "bench [--log-n 14,15,16,17,18] [--batch 1] [--runs 3] [--params-dir params-cache]\n",
    "       bench --partition ... (see the file's doc comment)\n",
    "       bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] ",
    "[--ones-share 0.92] [--timeline 4] [--g2-tail cpu,gpu]"
);

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
    if flags.switch("--partition") {
        return partition::main(flags);
    }
    if std::env::args().any(|a| a == "--proofs") {
        return interlock::main(flags);
    }
    let child = flags.value("--child");
    let sizes = parse_sizes(
        &flags
            .value("--log-n")
            .unwrap_or_else(|| "14,15,16,17,18".into()),
    );
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
    let mut child = self_command();
    child
        .args(["--child", which, "--log-n", &log_n.to_string()])
        .args(["--batch", &batch.to_string(), "--runs", &runs.to_string()])
        .arg("--params-dir")
        .arg(dir);
    let stdout = run_self(child, &format!("the {which} child at 2^{log_n}"));
    let mut r = Report::default();
    for line in stdout.lines() {
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
                for (name, v) in t.stages() {
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

// ---------------------------------------------------------------------------------------------
// Shared by both modes.

fn parse_sizes(list: &str) -> Vec<u32> {
    list.split(',')
        .map(|k| {
            k.trim()
                .parse()
                .unwrap_or_else(|_| fail(&format!("--log-n: cannot parse {k:?}")))
        })
        .collect()
}

/// This binary, to be re-executed as a child.
fn self_command() -> Command {
    Command::new(std::env::current_exe().unwrap_or_else(|e| fail(&format!("current_exe: {e}"))))
}

/// Runs a child (its stderr shows through) and returns its stdout; exits if it fails.
fn run_self(mut child: Command, what: &str) -> String {
    let out = child
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot start {what}: {e}")));
    if !out.status.success() {
        fail(&format!("{what} failed: {}", out.status));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
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

// ---------------------------------------------------------------------------------------------
// `--partition`: synthetic partitions shaped like a 32 GiB PoRep one, at sizes where synthesis
// and bellperson's parameter generation would take hours.

mod partition {
    use groth16_c2::synthetic_partition::{
        synthetic_srs, write_params, PartitionShape, SyntheticPartition, GENERATOR_VERSION,
    };
    use groth16_c2::{ProveOptions, Srs};

    use super::*;

    const USAGE: &str = "bench --partition [--log-n 16,18] [--runs 3] [--batch 1] \
        [--ones-share 0.92] [--srs memory|file] [--compare-cpu] [--cpu-runs 1] \
        [--params-dir params-cache]";

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
        ones_share: f64,
        srs: SrsSource,
        compare_cpu: bool,
        cpu_runs: usize,
        dir: PathBuf,
    }

    pub fn main(mut flags: Flags) {
        let child = flags.switch("--child");
        let sizes = parse_sizes(&flags.value("--log-n").unwrap_or_else(|| "16,18".into()));
        let o = Options {
            runs: flags.parse("--runs", 3),
            batch: flags.parse("--batch", 1),
            ones_share: flags.parse("--ones-share", 0.92),
            srs: match flags.value("--srs").as_deref() {
                None | Some("memory") => SrsSource::Memory,
                Some("file") => SrsSource::File,
                Some(other) => fail(&format!("--srs takes memory or file, not {other:?}")),
            },
            compare_cpu: flags.switch("--compare-cpu"),
            cpu_runs: flags.parse("--cpu-runs", 1),
            dir: PathBuf::from(flags.parse("--params-dir", DEFAULT_PARAMS_DIR.to_string())),
        };
        flags.finish(USAGE);
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
            if let Err(e) = shape(k, o.ones_share).check() {
                fail(&format!("2^{k}: {e}"));
            }
            if o.srs == SrsSource::File && k > MAX_FILE_LOG_N {
                fail(&format!(
                    "--srs file is for log_n <= {MAX_FILE_LOG_N}; 2^{k} builds its SRS in memory"
                ));
            }
        }
    }

    fn shape(log_n: u32, ones_share: f64) -> PartitionShape {
        PartitionShape {
            ones_share,
            ..PartitionShape::porep(log_n)
        }
    }

    fn params_path(dir: &Path, log_n: u32) -> PathBuf {
        dir.join(format!(
            "synthetic-partition-k{log_n}-v{GENERATOR_VERSION}.params"
        ))
    }

    // -----------------------------------------------------------------------------------------
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
            "groth16-c2 partition bench: shape c={b} j={b} gw=1 (each run proves {b} partition(s) \
             in one call), {:.0}% of aux values 0/1, SRS {}, median of {} runs{}",
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
        print!(" {:>9} {:>12}", "SRS MiB", "VRAM-SRS MiB");
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
            let beyond = r
                .vram_peak_mib
                .map_or("-".into(), |v| format!("{:.0}", v - r.srs_mib));
            print!(" {:>9.0} {beyond:>12}", r.srs_mib);
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
             start to finalize; peak MiB: the child's peak RSS, SRS included; VRAM-SRS MiB: peak \
             device memory beyond the SRS's own size)"
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
                _ => {}
            }
        }
        r
    }

    // -----------------------------------------------------------------------------------------
    // Child: generates, proves `--runs` times, reports on stdout one `key value...` per line.

    fn child_main(log_n: u32, o: &Options) {
        let t = Instant::now();
        let partitions: Vec<SyntheticPartition> = (0..o.batch)
            .map(|i| {
                SyntheticPartition::generate(&PartitionShape {
                    seed: i as u64 + 1,
                    ..shape(log_n, o.ones_share)
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

        let witnesses: Vec<_> = partitions.iter().map(|p| p.witness()).collect();
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
        if let Some((_, peak)) = groth16_c2::gpu_memory() {
            let srs_bytes = (srs.h.len() + srs.l.len() + srs.a.len() + srs.b_g1.len()) * 96
                + srs.b_g2.len() * 192;
            println!("vram_peak_mib {}", peak as f64 / (1 << 20) as f64);
            println!("srs_mib {}", srs_bytes as f64 / (1 << 20) as f64);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// `--proofs`: the interlock benchmark, single-partition proofs from workers sharing GPU locks.

mod interlock {
    //! The interlock benchmark: `c` single-partition proofs, at most `j` in flight, from `gw`
    //! worker threads per GPU that share that GPU's lock, as Curio runs C2. The lock covers only
    //! the device section, so while one worker holds it the others prepare their next proof or
    //! finish their last one (G2 tail, epilogue) on the CPU: with enough workers the GPU never
    //! waits for the CPU. The report shows whether it does: each GPU's busy share of the wall
    //! time, the largest gap between its lock holds, stage medians and a timeline per worker.
    //!
    //! Proofs are not verified: the synthetic SRS is not a trusted setup, so its proofs cannot
    //! verify. What verification would cost is timed once, apart.

    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};

    use groth16_c2::synthetic_partition::{synthetic_srs, PartitionShape, SyntheticPartition};
    use groth16_c2::{GpuLock, Proof, ProofTimings, ProveOptions, Srs, Witness};

    use super::*;

    const USAGE: &str = "bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] \
        [--ones-share 0.92] [--timeline 4] [--g2-tail cpu,gpu]";

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
        /// Whether the G2 tail MSM runs on the GPU, one config each.
        g2_tails: Vec<bool>,
    }

    /// One finished proof and who made it.
    struct Record {
        worker: usize,
        gpu: usize,
        t: ProofTimings,
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

        let partitions = generate(&shape, o.proofs.min(2));
        let srs = synthetic_srs(&partitions[0]);
        println!("SRS built in {:.3} s", srs.load_time.as_secs_f64());
        let witnesses: Vec<Witness> = partitions.iter().map(|p| p.witness()).collect();

        let mut rows = Vec::new();
        let mut sample = None;
        for &g2_on_gpu in &o.g2_tails {
            groth16_c2::settings::set_g2_tail_on_gpu(g2_on_gpu);
            for &gw in &o.workers {
                let proof = warm_up(&srs, &witnesses, o.gpus, gw);
                sample.get_or_insert(proof);
                let records = run(&srs, &witnesses, &o, gw);
                rows.push(report(&records, &o, g2_on_gpu, gw));
            }
        }
        print_summary(&rows);
        if let Some(proof) = sample {
            time_verification(&srs, &proof, &partitions[0]);
        }
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
            g2_tails: flags
                .parse("--g2-tail", "gpu".to_string())
                .split(',')
                .map(|x| match x.trim() {
                    "cpu" => false,
                    "gpu" => true,
                    other => fail(&format!("--g2-tail takes cpu or gpu, not {other:?}")),
                })
                .collect(),
        };
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

    // -----------------------------------------------------------------------------------------
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

    // -----------------------------------------------------------------------------------------
    // Report

    /// A proof's phase boundaries, ns since the Unix epoch.
    struct Phases {
        start: u64,
        /// Prep ends and the lock is requested.
        requested: u64,
        acquired: u64,
        released: u64,
        end: u64,
    }

    fn phases(t: &ProofTimings) -> Phases {
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

    /// Merges intervals; returns the time they cover and the largest gap between them.
    fn union_and_gap(mut spans: Vec<(u64, u64)>) -> (u64, u64) {
        spans.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
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
    fn worker_name(w: usize) -> String {
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
}
