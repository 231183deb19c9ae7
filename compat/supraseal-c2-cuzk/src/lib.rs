//! The public Rust API of Curio's supraseal-c2 fork (filecoin-project/curio,
//! `extern/supraseal-c2/src/lib.rs` on main), item for item, on top of groth16-c2: the caller's
//! GPU lock and GPU index in `generate_groth16_proof` and `start_groth16_proof`, the split
//! `start` / `finish` / `drop` API, and the lock's `alloc` / `free`. Curio's cuzk switches by
//! replacing its `supraseal-c2 = { path = "../supraseal-c2" }` patch entry with this folder.
//!
//! As in the fork, every negative `gpu_index` means "any GPU", a NULL `gpu_mtx` means the
//! library's own lock, misuse panics where the fork panics, and a failed proof panics with the
//! library's message. Beyond the fork: `finish_groth16_proof` checks the handle and the number
//! of proof slots (a stale handle or a short slice panics instead of corrupting memory).
//!
//! The library also satisfies what cuzk expects from its prover crate at link time: the CUDA
//! runtime's `cudaHostAlloc` / `cudaFreeHost` (for its pinned pool; in a CPU-only build,
//! fallbacks over ordinary memory), and it calls cuzk's `set_membw_throttle` (when defined)
//! around a G2 tail MSM that runs on the CPU.

use std::ffi::c_void;

pub use groth16_c2::supraseal::{cuda, free_gpu_mutex, Assignment, Error, SRS};
use groth16_c2::supraseal::{finish, prove, start, Batch};

/// Proves a batch of circuits that share densities and sizes under the caller's GPU lock
/// (`gpu_mtx`, NULL: the library's own) on `gpu_index` (negative: any GPU). 21 parameters.
#[allow(clippy::too_many_arguments, clippy::not_unsafe_ptr_arg_deref)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    assert_eq!(proofs.len(), num_circuits);
    let provers = Batch {
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    }
    .assignments();
    prove(&provers, r_s, s_s, proofs, srs, gpu_mtx, gpu_index);
}

/// Proves a batch of circuits given as `Assignment`s, with the library's own lock on any GPU.
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    let num_circuits = provers.len();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    prove(provers, r_s, s_s, proofs, srs, std::ptr::null_mut(), -1);
}

/// A lock for `gpu_mtx`, one per GPU, shared by that GPU's workers; free it with
/// [`free_gpu_mutex`].
pub fn alloc_gpu_mutex() -> *mut c_void {
    groth16_c2::supraseal::alloc_gpu_mutex()
}

/// Runs a batch's GPU section under `gpu_mtx` on `gpu_index` and returns as soon as the lock
/// is released, with a pending handle for [`finish_groth16_proof`] (on any thread) or
/// [`drop_pending_proof`]. 20 parameters.
#[allow(clippy::too_many_arguments, clippy::not_unsafe_ptr_arg_deref)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    let provers = Batch {
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    }
    .assignments();
    start(&provers, r_s, s_s, srs, gpu_mtx, gpu_index)
}

/// Finishes a pending batch into `proofs` (the G2 tail, the epilogue, the proof check) and
/// consumes the handle; panics with the library's message on error.
// Safe as in the fork: the handle is an opaque ticket the library validates, never a pointer
// that gets dereferenced, so a stale one is a panic with a message, not undefined behaviour.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    finish(handle, proofs);
}

/// Abandons a pending batch without finishing it (a finished, dropped or NULL handle is
/// ignored).
///
/// # Safety
/// `handle` must come from `start_groth16_proof` or be NULL.
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    groth16_c2::supraseal::drop_pending_proof(handle);
}
