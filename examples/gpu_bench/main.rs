//! GPU benchmark of the H stage: NTT times for 2^20, 2^24, 2^26, 2^27 and the whole H pipeline
//! for 2^24 and 2^27 (with uploads from pinned memory and without), next to the CPU path on
//! this machine's cores, measured in the same run. Medians of `--runs` runs.
//!
//! Also G1 MSM alone (`--msm`): random points and canonical scalars resident on the device, GPU
//! time by CUDA events, the CPU backend's time at sizes up to 2^22 for the ratio, and a check
//! that both give the same point.
//!
//! And the G1 bitmap batch addition (`--batch 24,27`): the points whose scalar is 1 summed, 46%
//! of random points set as in a PoRep partition, checked against the CPU up to 2^22.
//!
//! And the field multiplication's throughput (`--field`, builds with `gpu-test-kernels`):
//! dependent Montgomery products per second for Fr and Fp against the IMAD ceiling.
//!
//! `--ntt-variants fwd_nn,fwd_nr,inv_nn,coset_nn,lde,h` adds rows named as `sppark_bench ntt`'s
//! (default `fwd_nn` only), for side-by-side tables.
//!
//! `--msm-strategy auto,slices` times the MSM with each bucket strategy (rows `msm_g1`,
//! `msm_g1_slices`), each result checked against the CPU or the first one;
//! `--msm-window 16,20` with each forced window width too (rows `..._w16`; 0: from the size).
//! `--msm-copies 22:12,24:11` also times the MSM over precomputed copies of the points
//! (WINDOW:COPIES, rows `msm_g1_w22_m12`; the copies' making is timed apart and not in the row).
//! `--msm-chunks 23,24` times the MSM accumulated over chunks of 2^23 and 2^24 points, as a
//! streamed H MSM runs it without its uploads (rows `msm_g1_acc23`; with each `--msm-window`).
//!
//! `gpu_bench [--field] [--ntt 20,24,26,27] [--ntt-variants V,..] [--h 24,27] [--msm 20,22,24,26,27] [--batch 24,27] [--msm-strategy auto] [--msm-window 0] [--msm-copies W:M,..] [--msm-chunks C,..] [--runs 5] [--no-cpu]`
//! (pass an empty list, e.g. `--ntt ""`, to skip a section)
//!
//! Needs a build with the CUDA backend (nvcc at build time); other builds print why and exit 2.

#[cfg(groth16_c2_cuda)]
mod bench;

#[cfg(groth16_c2_cuda)]
fn main() {
    bench::main();
}

#[cfg(not(groth16_c2_cuda))]
fn main() {
    eprintln!(
        "gpu_bench: this build of groth16-c2 has no CUDA backend (no nvcc was found at build \
         time, or GROTH16_C2_NO_CUDA / feature cpu-only); build with --features cuda"
    );
    std::process::exit(2);
}
