//! Proving through the C ABI: the one-shot call and the split `start` / `finalize` form.

use std::ffi::{c_int, c_void};

use blstrs::Scalar;

use super::panic::guard;
use super::{arg, arg_mut, arg_slice, CError, SrsHandle};
use crate::assignment::Assignment;
use crate::error::{Error, Result};
use crate::handles::{self, Batch};
use crate::proof::Proof;
use crate::prover::PendingProofs;
use crate::telemetry::ProofTimings;

/// The raw arguments that describe a batch, as every prove entry point receives them.
struct RawBatch {
    provers: *const Assignment,
    num_circuits: usize,
    r_s: *const Scalar,
    s_s: *const Scalar,
    srs: *const SrsHandle,
}

/// Checks the raw arguments shared by every prove entry point and starts the batch.
///
/// # Safety
/// Pointers must be NULL or valid for `num_circuits` elements; `gpu_lock` NULL or a live lock.
unsafe fn start(batch: RawBatch, gpu_lock: *mut c_void, gpu_index: c_int) -> Result<PendingProofs> {
    let srs = arg(batch.srs, "srs")?;
    let n = batch.num_circuits;
    if n == 0 {
        return Err(Error::invalid(
            "num_circuits is 0; there is nothing to prove",
        ));
    }
    // Refused before any Assignment is read: a count no real batch reaches can only be a host
    // bug, and reading that many would run past the host's array.
    if n > crate::prover::MAX_CIRCUITS {
        return Err(Error::invalid(format!(
            "num_circuits is {n}; one call proves at most {} circuits",
            crate::prover::MAX_CIRCUITS
        )));
    }
    handles::start(Batch {
        provers: arg_slice(batch.provers, n, "provers")?,
        r_s: arg_slice(batch.r_s, n, "r_s")?,
        s_s: arg_slice(batch.s_s, n, "s_s")?,
        srs,
        gpu_lock,
        gpu_index,
    })
}

unsafe fn prove_into(
    batch: RawBatch,
    proofs: *mut Proof,
    gpu_lock: *mut c_void,
    gpu_index: c_int,
) -> Result<()> {
    if proofs.is_null() {
        return Err(Error::NullArgument("proofs"));
    }
    let num_circuits = batch.num_circuits;
    let pending = start(batch, gpu_lock, gpu_index)?;
    let out = std::slice::from_raw_parts_mut(proofs, num_circuits);
    handles::finish(pending, out).map(drop)
}

/// Proves `num_circuits` circuits with randomness `r_s[i]`, `s_s[i]` into `proofs[i]`.
///
/// # Safety
/// Arrays must hold `num_circuits` elements; each Assignment's pointers must be valid for the
/// sizes it states.
#[cfg(not(feature = "cuzk-abi"))]
#[no_mangle]
pub unsafe extern "C" fn generate_groth16_proofs_c(
    provers: *const Assignment,
    num_circuits: usize,
    r_s: *const Scalar,
    s_s: *const Scalar,
    proofs: *mut Proof,
    srs: *const SrsHandle,
) -> CError {
    guard(|| {
        prove_into(
            RawBatch {
                provers,
                num_circuits,
                r_s,
                s_s,
                srs,
            },
            proofs,
            std::ptr::null_mut(),
            -1,
        )
    })
}

/// Curio's form: as the 6-argument call, with the caller's GPU lock (NULL: the library's own)
/// and a GPU index (`-1`: any).
///
/// # Safety
/// As the 6-argument form; `gpu_lock` must be NULL or a live lock from `create_gpu_mutex`.
#[cfg(feature = "cuzk-abi")]
#[no_mangle]
pub unsafe extern "C" fn generate_groth16_proofs_c(
    provers: *const Assignment,
    num_circuits: usize,
    r_s: *const Scalar,
    s_s: *const Scalar,
    proofs: *mut Proof,
    srs: *const SrsHandle,
    gpu_lock: *mut c_void,
    gpu_index: c_int,
) -> CError {
    guard(|| {
        prove_into(
            RawBatch {
                provers,
                num_circuits,
                r_s,
                s_s,
                srs,
            },
            proofs,
            gpu_lock,
            gpu_index,
        )
    })
}

/// Runs a batch up to the end of its GPU section and returns a pending handle in
/// `*pending_out`. The caller's `a, b, c` arrays may be freed when this returns; the
/// assignments and densities must live until `finalize_groth16_proof_c`.
///
/// # Safety
/// As `generate_groth16_proofs_c`; `pending_out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn generate_groth16_proofs_start_c(
    provers: *const Assignment,
    num_circuits: usize,
    r_s: *const Scalar,
    s_s: *const Scalar,
    srs: *const SrsHandle,
    gpu_lock: *mut c_void,
    gpu_index: c_int,
    pending_out: *mut *mut c_void,
) -> CError {
    guard(|| {
        let out = arg_mut(pending_out, "pending_out")?;
        *out = std::ptr::null_mut();
        let batch = RawBatch {
            provers,
            num_circuits,
            r_s,
            s_s,
            srs,
        };
        *out = handles::register_pending(start(batch, gpu_lock, gpu_index)?);
        Ok(())
    })
}

/// Finishes a pending batch (G2 MSM, epilogue) into `proofs[0 .. num_circuits]` and consumes
/// the handle. Calling `destroy_pending_proof` on it afterwards is allowed and does nothing.
///
/// # Safety
/// `proofs` must hold as many proofs as the batch has circuits.
#[no_mangle]
pub unsafe extern "C" fn finalize_groth16_proof_c(
    pending: *mut c_void,
    proofs: *mut Proof,
) -> CError {
    finalize_groth16_proof_timed_c(pending, proofs, std::ptr::null_mut())
}

/// As `finalize_groth16_proof_c`, and writes the batch's complete stage timings to `*timings`
/// (when not NULL): hosts whose threads migrate (Go) cannot rely on `groth16_c2_last_timings`.
///
/// # Safety
/// As `finalize_groth16_proof_c`; `timings` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn finalize_groth16_proof_timed_c(
    pending: *mut c_void,
    proofs: *mut Proof,
    timings: *mut ProofTimings,
) -> CError {
    guard(|| {
        if pending.is_null() {
            return Err(Error::NullArgument("pending"));
        }
        if proofs.is_null() {
            return Err(Error::NullArgument("proofs"));
        }
        let work = handles::take_pending(pending)?;
        let n = work.len();
        let t = handles::finish(work, std::slice::from_raw_parts_mut(proofs, n))?;
        if let Some(out) = timings.as_mut() {
            *out = t;
        }
        Ok(())
    })
}

/// Abandons a pending batch without finalizing it. A finalized, destroyed or NULL handle is
/// ignored, so hosts may call it after `finalize_groth16_proof_c` or instead of it.
#[no_mangle]
pub extern "C" fn destroy_pending_proof(pending: *mut c_void) {
    super::panic::guard_or((), || {
        if !pending.is_null() {
            drop(handles::take_pending(pending));
        }
    })
}

/// Copies the stage timings of a pending batch recorded so far (the device section) into
/// `*out`. After `finalize_groth16_proof_c` the handle is gone: read the complete timings with
/// `groth16_c2_last_timings` on the finalizing thread.
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn groth16_pending_timings(
    pending: *const c_void,
    out: *mut ProofTimings,
) -> CError {
    guard(|| {
        let out = arg_mut(out, "out")?;
        *out = handles::pending_timings(pending)?;
        Ok(())
    })
}
