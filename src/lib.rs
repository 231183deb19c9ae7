//! groth16-c2: a Groth16 prover for BLS12-381 with a C ABI that is a drop-in replacement for
//! supraseal-c2 (Filecoin PoRep Commit-2).
//!
//! The Rust API ([`Srs`], [`prove`], [`start`] / [`PendingProofs::finalize`], [`GpuLock`]) does
//! the work; [`ffi`] is a thin C layer over it. Without a GPU backend everything runs on the CPU
//! ([`backend_name`] says which).

pub mod assignment;
pub mod backend;
pub mod curve;
pub mod error;
pub mod ffi;
pub mod lock;
pub mod prover;
pub mod settings;
pub mod srs;
#[cfg(feature = "bellpepper")]
pub mod synthetic;
#[cfg(feature = "bellpepper")]
/// cbindgen:ignore
pub mod synthetic_partition;
pub mod telemetry;
pub mod verify;
#[cfg(feature = "bellpepper")]
pub mod witness;

use std::ffi::CStr;

pub use assignment::{Assignment, Density, Witness};
pub use error::{Error, Result};
pub use lock::GpuLock;
pub use prover::{prove, start, PendingProofs, Proof, ProveOptions};
pub use srs::{LoadOptions, Srs, VerifyingKey};
pub use telemetry::ProofTimings;

/// The backend proofs run on ("cpu" or "cuda").
pub fn backend_name() -> &'static str {
    backend::default_backend().name()
}

/// Device memory held by this process through the CUDA backend: `(now, peak)` in bytes, all
/// GPUs together; `None` without the `cuda` feature.
pub fn gpu_memory() -> Option<(usize, usize)> {
    #[cfg(feature = "cuda")]
    {
        use backend::cuda::runtime::vram;
        Some((vram::current(), vram::peak()))
    }
    #[cfg(not(feature = "cuda"))]
    None
}

/// Frees the device memory the library holds between proofs (working buffers and resident
/// SRS copies on every GPU) and its idle page-locked staging buffers, waiting for proofs running
/// on them. The next proof allocates again.
pub fn release_gpu_memory() {
    #[cfg(feature = "cuda")]
    backend::cuda::device::release_all();
}

pub(crate) fn backend_name_cstr() -> &'static CStr {
    match backend_name() {
        "cuda" => c"cuda",
        _ => c"cpu",
    }
}
