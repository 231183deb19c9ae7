//! Benchmarks our prover against bellperson 0.26's CPU prover on synthetic PoRep-shaped
//! circuits: median time of `--runs` runs, peak resident memory of each, and a check that both
//! produce byte-identical proofs (`cpu_compare.rs`).
//!
//! `cargo run --release --features bellpepper --example bench -- [--log-n 14,15,16,17,18]
//! [--batch 1] [--runs 3] [--params-dir DIR]`
//!
//! Each prover runs in its own child process (this binary re-executed with `--child`), so
//! each one's peak RSS (VmHWM) is its own. Both timings cover the same work, circuit to proofs:
//! bellperson's `create_proof_batch` synthesizes inside, so ours includes recording the witness.
//!
//! `--partition` benches the default backend alone on synthetic 32 GiB PoRep partitions scaled
//! to `2^K` (`bench_support::synthetic_partition`: no synthesis, no bellperson setup, so 2^26 is
//! practical), optionally against the CPU backend in a second child (`partition.rs`):
//!
//! `bench --partition [--log-n 16,18] [--runs 3] [--batch 1] [--share-witness] [--pinned-inputs]
//! [--ones-share 0.92] [--srs memory|file] [--compare-cpu] [--cpu-runs 1] [--params-dir DIR]`
//!
//! `--srs file` (log_n <= 24) writes the SRS once as a params file in the params dir and has
//! each child load it with `Srs::new`; `memory` (the default) builds it in each child.
//! `--share-witness` generates one partition and proves it `--batch` times in the call (with
//! distinct r, s, so the proofs still differ), instead of `--batch` partitions: a batch then
//! holds the memory of one partition, so a batch of 10 at 2^27 fits a 125 GiB machine.
//!
//! `--proofs` runs the interlock benchmark: single-partition proofs from `gw` worker threads
//! per GPU sharing that GPU's lock, as Curio runs them; it reports throughput, each GPU's busy
//! share and a timeline of the workers (see `interlock.rs`):
//!
//! `bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] [--ones-share 0.92]
//! [--timeline 4] [--timeline-svg FILE] [--g2-tail cpu,gpu] [--pinned-inputs]`
//!
//! `--timeline-svg FILE` writes the picture of the GPU's time (`timeline_svg.rs`): one SVG
//! with a panel per config (each `--g2-tail` × `--workers` setting, on one time scale), a
//! lane per worker with each proof's phases (CPU prep, waiting for the lock, holding it, the
//! CPU tail, idle) and a lane per GPU with its lock holds and busy share. Open it in a
//! browser; hovering a bar shows its proof and times.
//!
//! `--plan` prints the memory plan a proof would take on cards of the given free memory (what
//! stays on the GPU, what streams from host memory), without a GPU (`plan.rs`):
//!
//! `bench --plan [--log-n 24,26,27] [--free 10G,11G,16G,24G,48G,80G]`
//!
//! `--partition` and `--proofs` take `--vram-limit 16G`: the library then holds at most that
//! much device memory, as on a card of that size, and streams what does not fit.
//!
//! `process.rs` holds what the benches share: re-running this binary as a child, reading its
//! peak RSS, parsing `--log-n` lists; `bench_support::common` what all examples share.

mod cpu_compare;
mod interlock;
mod partition;
mod plan;
mod process;
mod timeline_svg;

use std::path::PathBuf;

use bench_support::common::{self, fail, Flags, DEFAULT_PARAMS_DIR};
use process::parse_sizes;

const USAGE: &str = concat!(
    "bench [--log-n 14,15,16,17,18] [--batch 1] [--runs 3] [--params-dir params-cache]\n",
    "       bench --partition ... (see the file's doc comment)\n",
    "       bench --plan [--log-n 24,26,27] [--free 10G,11G,16G,24G,48G,80G]\n",
    "       bench --proofs 8 [--jobs 2] [--workers 1,2] [--log-n 20] [--gpus N] ",
    "[--ones-share 0.92] [--timeline 4] [--timeline-svg FILE] [--g2-tail cpu,gpu] ",
    "[--pinned-inputs]"
);

fn main() {
    let mut flags = Flags::from_env();
    if flags.switch("--partition") {
        return partition::main(flags);
    }
    if flags.switch("--plan") {
        return plan::main(flags);
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
        Some(which) => cpu_compare::child_main(which, sizes[0], batch, runs, &dir),
        None => cpu_compare::parent_main(&sizes, batch, runs, &dir),
    }
}
