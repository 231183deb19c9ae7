//! The GPU tests, one binary (one copy of the library and its GPU code): a module per area.
//!
//! - `field`, `curve`: the field and curve formulas against blstrs (the CUDA test kernels:
//!   feature `gpu-test-kernels`; without it these modules are left out, with a SKIP line)
//! - `ntt`, `h`: the NTT and the H polynomial against the CPU's
//! - `msm`: MSMs and batch additions against blstrs and the CPU backend
//! - `prove`: whole proofs, resident and streamed, against the CPU backend and bellperson
//!
//! They share one process, and so the device, the library's device state and its process-wide
//! settings: kernel tests hold the device shared for their whole run, the proofs exclusively
//! (`common::gpu::gpu_turn`), and every setting a test changes is restored when its guard drops.
//!
//! In a build without CUDA the binary has no tests (`tests/build_config.rs` says so); with
//! CUDA but no GPU every test prints a SKIP line and passes. Filter by module as usual, e.g.
//! `cargo test --release --features cuda,bellpepper,gpu-test-kernels --test gpu msm::`.
#![cfg(groth16_c2_cuda)]

mod common;

/// The areas, in `tests/gpu/`.
mod gpu {
    #[cfg(feature = "gpu-test-kernels")]
    mod curve;
    #[cfg(feature = "gpu-test-kernels")]
    mod field;
    mod h;
    mod msm;
    mod ntt;
    mod prove;
}

/// Without the test kernels the field and curve tests are not built: say so, as a skip.
#[cfg(not(feature = "gpu-test-kernels"))]
#[test]
fn field_and_curve_need_the_test_kernels() {
    common::gpu::say(
        "SKIP field::*, curve::*: built without feature gpu-test-kernels (the CUDA test kernels)",
    );
}
