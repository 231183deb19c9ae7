//! Small host helpers: which backend runs, the last call's timings, and proof verification.

use std::ffi::c_char;

use blstrs::Scalar;

use super::panic::{guard, guard_or};
use super::{arg, arg_slice, CError, SrsHandle};
use crate::error::Error;
use crate::proof::Proof;
use crate::telemetry::ProofTimings;

/// The backend this library proves with ("cpu" or "cuda"), a static string.
#[no_mangle]
pub extern "C" fn groth16_c2_backend() -> *const c_char {
    guard_or(std::ptr::null(), || crate::backend_name_cstr().as_ptr())
}

/// Whether this library was built with the CUDA backend (nvcc found at build time). A CUDA
/// build still proves on the CPU where no GPU is visible; `groth16_c2_backend` says which runs.
#[no_mangle]
pub extern "C" fn groth16_c2_built_with_cuda() -> bool {
    crate::built_with_cuda()
}

/// The GPU architectures this library carries code for, e.g.
/// `"sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120+compute_75"` (machine code, then the embedded
/// PTX that newer GPUs compile at first use); `""` in a build without CUDA. A static string.
#[no_mangle]
pub extern "C" fn groth16_c2_cuda_archs() -> *const c_char {
    const ARCHS: &str = concat!(env!("GROTH16_C2_BUILD_CUDA_ARCHS"), "\0");
    ARCHS.as_ptr().cast()
}

/// How many arguments this build's `generate_groth16_proofs_c` takes: 6 (supraseal-c2's form)
/// or 8 (Curio's, the `cuzk-abi` feature). A host calls it once at start-up to catch a library
/// built for the other form, which would otherwise link and misread its arguments.
#[no_mangle]
pub extern "C" fn groth16_c2_abi_arguments() -> i32 {
    if cfg!(feature = "cuzk-abi") {
        8
    } else {
        6
    }
}

/// Copies the timings of the last prove call that finished on this thread into `*out`.
/// Returns false (and leaves `*out` alone) if there was none.
///
/// # Safety
/// `out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_last_timings(out: *mut ProofTimings) -> bool {
    guard_or(false, || {
        match (out.as_mut(), crate::telemetry::last_timings()) {
            (Some(out), Some(t)) => {
                *out = t;
                true
            }
            _ => false,
        }
    })
}

/// Verifies `proof` against the SRS's verifying key and `num_public_inputs` public inputs
/// (without the constant ONE). Code 0: valid; a non-zero code says why not.
///
/// # Safety
/// `public_inputs` must hold `num_public_inputs` elements (may be NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn verify_groth16_proof_c(
    srs: *const SrsHandle,
    proof: *const Proof,
    public_inputs: *const Scalar,
    num_public_inputs: usize,
) -> CError {
    guard(|| {
        let srs = arg(srs, "srs")?.get()?;
        let proof = arg(proof, "proof")?;
        let inputs = if num_public_inputs == 0 {
            &[][..]
        } else {
            arg_slice(public_inputs, num_public_inputs, "public_inputs")?
        };
        if crate::verify::verify(&srs.vk, proof, inputs)? {
            Ok(())
        } else {
            Err(Error::InvalidProof)
        }
    })
}
