//! The internals that the crate's own tests, examples and benchmarks (and their support crate,
//! `crates/bench-support`) check one by one: the backends' parts, the 0/1 split (what a test
//! `Backend` takes), the curve conversions, the witness checks, fault injection. Not part of
//! the API: hidden from the docs and changed with the internals.

pub use crate::assignment::count_ones;
pub use crate::host_hooks::host_has_membw_throttle;

use blstrs::Scalar;

use crate::error::Result;
use crate::ffi::{CError, SrsHandle};
use crate::srs::SrsData;
use crate::{Assignment, Proof, Witness};

/// Checks `w` against `srs` as the prover does before any work.
pub fn check_witness(w: &Witness, srs: &SrsData, index: usize) -> Result<()> {
    w.check_against(&srs.query_counts(), index)
}

/// Checks a host's `Assignment` counts against `srs` as the C ABI does before reading it.
pub fn check_assignment_sizes(a: &Assignment, srs: &SrsData, index: usize) -> Result<()> {
    a.check_sizes(&srs.query_counts(), index)
}

/// `generate_groth16_proofs_c` in whichever form this build exports: the `cuzk-abi` feature
/// adds Curio's `gpu_lock, gpu_index`, passed as NULL and -1 (the library's lock, any GPU), so
/// code outside this crate calls the C ABI the same way under both.
///
/// # Safety
/// As `generate_groth16_proofs_c`: arrays of `num_circuits` elements, valid Assignments.
pub unsafe fn generate_groth16_proofs_c(
    provers: *const Assignment,
    num_circuits: usize,
    r_s: *const Scalar,
    s_s: *const Scalar,
    proofs: *mut Proof,
    srs: *const SrsHandle,
) -> CError {
    #[cfg(not(feature = "cuzk-abi"))]
    return crate::ffi::generate_groth16_proofs_c(provers, num_circuits, r_s, s_s, proofs, srs);
    #[cfg(feature = "cuzk-abi")]
    crate::ffi::generate_groth16_proofs_c(
        provers,
        num_circuits,
        r_s,
        s_s,
        proofs,
        srs,
        std::ptr::null_mut(),
        -1,
    )
}

/// The 0/1 split of a witness.
pub mod split {
    pub use crate::split::*;
}

/// Conversions between blstrs and blst types.
pub mod curve {
    pub use crate::curve::*;
}

/// Test-only fault injection.
pub mod fault {
    pub use crate::fault::*;
}

/// Device memory plans.
pub mod memory_plan {
    pub use crate::backend::memory_plan::*;
}

/// The CPU backend's parts.
pub mod cpu {
    pub use crate::backend::cpu::{fft, msm};
}

/// The CUDA backend's parts.
#[cfg(groth16_c2_cuda)]
pub mod cuda {
    pub use crate::backend::cuda::{device, h, kernels, msm, runtime};
}
