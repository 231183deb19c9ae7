//! groth16-c2: a Groth16 prover for BLS12-381 with a C ABI that is a drop-in replacement for
//! supraseal-c2 (Filecoin PoRep Commit-2).
//!
//! The Rust API ([`Srs`], [`prove`], [`start`] / [`PendingProofs::finalize`], [`GpuLock`]) does
//! the work; [`ffi`] is a thin C layer over it. Without a GPU backend everything runs on the CPU
//! ([`backend_name`] says which).
//!
//! # Layers
//!
//! The modules form layers; each names only modules of its own layer or of the layers below,
//! and none depend on each other in a cycle (`tests/layering.rs` checks both, with this table):
//!
//! 0. leaves: `error`, `curve`, `fault`, `host_hooks`, [`host_memory`], `large_buf`,
//!    [`settings`], [`telemetry`];
//! 1. the data of a proof: `assignment` (the witness), `split` (its 0/1 split), `proof`,
//!    `witness` (the bellpepper recorder), `page_locked` (host allocations);
//! 2. [`srs`] and [`verify`];
//! 3. the backends ([`backend`]: the CPU's, the CUDA's) and [`pinned`], the page-locked memory
//!    they give hosts;
//! 4. the prover (`prover`, `lock`) and the SRS loader over the backends (`srs_load`);
//! 5. this crate root (the Rust API);
//! 6. [`ffi`] (the C ABI), `supraseal` (the compat crates' Rust API) and `testing`.
//!
//! Modules without a link are internal (`witness`: public with the feature `bellpepper`;
//! `supraseal`: public for the compat crates, hidden from these docs). `testing`, hidden too,
//! lends the crate's own tests, examples and benchmarks the internals they check one by one; it
//! is not part of the API. Benchmark inputs (synthetic circuits and partitions) and the helpers
//! the tests and examples share are in the dev-only crate `crates/bench-support`.

mod assignment;
pub mod backend;
mod curve;
mod error;
/// cbindgen:ignore
mod fault;
pub mod ffi;
mod handles;
/// cbindgen:ignore
mod host_hooks;
pub mod host_memory;
mod large_buf;
mod lock;
mod page_locked;
pub mod pinned;
mod proof;
mod prover;
pub mod settings;
mod split;
pub mod srs;
mod srs_load;
/// cbindgen:ignore
#[doc(hidden)] // the compat crates' shared body: not part of the API
pub mod supraseal;
pub mod telemetry;
/// cbindgen:ignore
#[doc(hidden)] // internals for the crate's own tests and examples: not part of the API
pub mod testing;
pub mod verify;
#[cfg(feature = "bellpepper")]
pub mod witness;

use std::ffi::CStr;

pub use assignment::{Assignment, Density, Witness};
pub use error::{Error, Result};
pub use lock::GpuLock;
pub use proof::Proof;
pub use prover::{prove, start, PendingProofs, ProveOptions};
pub use srs::{LoadOptions, Srs, VerifyingKey};
pub use telemetry::ProofTimings;

pub use backend::{built_with_cuda, BUILT_CUDA_ARCHS};

/// The backend proofs run on ("cpu" or "cuda").
pub fn backend_name() -> &'static str {
    backend::default_backend().name()
}

/// What proofs run on, in words: the backend, each GPU with its architecture and whether this
/// build has code for it, or why it is the CPU (the line a process's first call prints).
pub fn backend_description() -> String {
    backend::default_backend().describe()
}

/// Device memory held by this process through the CUDA backend: `(now, peak)` in bytes, all
/// GPUs together; `None` in a build without CUDA.
pub fn gpu_memory() -> Option<(usize, usize)> {
    #[cfg(groth16_c2_cuda)]
    {
        use backend::cuda::runtime::VRAM;
        Some((VRAM.current(), VRAM.peak()))
    }
    #[cfg(not(groth16_c2_cuda))]
    None
}

/// Host memory the CUDA backend holds page-locked (staging buffers, registered regions), in
/// bytes; `None` in a build without CUDA.
pub fn page_locked_memory() -> Option<usize> {
    #[cfg(groth16_c2_cuda)]
    return Some(backend::cuda::runtime::PAGE_LOCKED.current());
    #[cfg(not(groth16_c2_cuda))]
    None
}

/// The idle page-locked staging buffers kept for the next proofs: `(buffers, bytes)`; `None` in
/// a build without CUDA.
pub fn staging_pool() -> Option<(usize, usize)> {
    #[cfg(groth16_c2_cuda)]
    return Some(backend::cuda::staging::pool());
    #[cfg(not(groth16_c2_cuda))]
    None
}

/// Free and total device memory of GPU `device` as the driver reports it (everything every
/// process holds there); `None` without CUDA or without that GPU.
pub fn device_memory_info(device: usize) -> Option<(usize, usize)> {
    #[cfg(groth16_c2_cuda)]
    {
        use backend::cuda::runtime;
        if device >= runtime::device_count() || runtime::set_device(device).is_err() {
            return None;
        }
        runtime::memory_info().ok()
    }
    #[cfg(not(groth16_c2_cuda))]
    {
        let _ = device;
        None
    }
}

/// Frees the device memory the library holds between proofs (working buffers and resident
/// SRS copies on every GPU) and its idle page-locked staging buffers, waiting for proofs running
/// on them. The next proof allocates again.
pub fn release_gpu_memory() {
    #[cfg(groth16_c2_cuda)]
    backend::cuda::device::release_all();
}

pub(crate) fn backend_name_cstr() -> &'static CStr {
    match backend_name() {
        "cuda" => c"cuda",
        _ => c"cpu",
    }
}
