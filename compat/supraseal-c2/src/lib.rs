//! supraseal-c2 0.1.2's Rust API, item for item, on top of groth16-c2's C ABI, plus the GPU
//! lock and split-proof functions of Curio's fork. A host switches with one line:
//! `[patch.crates-io] supraseal-c2 = { path = ".../compat/supraseal-c2" }`.
//!
//! Misuse panics exactly where 0.1.2 panics (length mismatches, non-64-bit density words), and
//! a failed proof panics with the library's message: bellperson hands the proof memory back as
//! success, so returning quietly would give it uninitialised proofs.

// Keep groth16-c2 linked: the `extern "C"` functions below are defined there.
extern crate groth16_c2;

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::ptr::NonNull;

/// The error a C call returns: a code and a `malloc`ed message, freed on drop.
/// Same layout and behaviour as `sppark::Error`, which 0.1.2 returns.
#[repr(C)]
pub struct Error {
    pub code: i32,
    message: Option<NonNull<c_char>>,
}

impl Drop for Error {
    fn drop(&mut self) {
        if let Some(p) = self.message.take() {
            // SAFETY: the library allocated it with malloc and gave us ownership.
            unsafe { libc_free(p.as_ptr().cast()) };
        }
    }
}

impl From<&Error> for String {
    fn from(e: &Error) -> String {
        match e.message {
            // SAFETY: a NUL-terminated string owned by `e`.
            Some(p) => unsafe { CStr::from_ptr(p.as_ptr()) }
                .to_string_lossy()
                .into_owned(),
            None => format!("groth16-c2 error #{}", e.code),
        }
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        String::from(&e)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&String::from(self))
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "Error {{ code: {}, message: {:?} }}",
            self.code,
            String::from(self)
        )
    }
}

impl std::error::Error for Error {}

/// 0.1.2 names its error `cuda::Error` (from sppark's `cuda_error!`).
pub mod cuda {
    pub use super::Error;
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut c_void);
    fn create_SRS(ret: &mut SRS, srs_path: *const c_char, cache: bool) -> Error;
    fn evict_SRS(by_ref: &SRS);
    fn drop_SRS(by_ref: &mut SRS);
    fn clone_SRS(by_ref: &SRS) -> SRS;
    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);
    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: c_int,
        pending_out: *mut *mut c_void,
    ) -> Error;
    fn finalize_groth16_proof_c(handle: *mut c_void, proofs: *mut c_void) -> Error;
    fn destroy_pending_proof(handle: *mut c_void);
    fn groth16_pending_timings(handle: *const c_void, out: *mut groth16_c2::ProofTimings) -> Error;
}

/// A loaded params file; `Clone` adds a reference, `Drop` releases one.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    fn default() -> Self {
        SRS {
            ptr: std::ptr::null(),
        }
    }
}

impl SRS {
    /// Loads a bellperson params file; `cache` shares one load per path.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        let path = std::ffi::CString::new(srs_path.to_str().unwrap()).unwrap();
        let mut ret = SRS::default();
        // SAFETY: `ret` is writable and `path` NUL-terminated.
        let err = unsafe { create_SRS(&mut ret, path.as_ptr(), cache) };
        if err.code != 0 {
            Err(err)
        } else {
            Ok(ret)
        }
    }

    /// Drops this SRS's path from the cache.
    pub fn evict(&self) {
        // SAFETY: `self` is a valid handle.
        unsafe { evict_SRS(self) };
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        // SAFETY: `self` is a valid (possibly empty) handle; the call empties it.
        unsafe { drop_SRS(self) };
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        // SAFETY: `self` is a valid handle.
        unsafe { clone_SRS(self) }
    }
}

// SAFETY: the handle is a reference count on immutable, thread-safe data.
unsafe impl Sync for SRS {}
unsafe impl Send for SRS {}

/// One circuit's witness, laid out as the C `Assignment`.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// The proof slots must be `groth16_proof`s (bellperson's `Proof<Bls12>` is).
fn check_proof_type<PR>() {
    assert_eq!(
        std::mem::size_of::<PR>(),
        384,
        "proofs must be 384-byte groth16_proof values (G1, G2, G1 affine)"
    );
}

/// The 0.1.2 argument list of one batch, with its checks (the same asserts as 0.1.2).
#[allow(clippy::too_many_arguments)]
fn assignments<S, D>(
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
) -> Vec<Assignment<S>> {
    assert_eq!(ntt_a_scalars.len(), num_circuits);
    assert_eq!(ntt_b_scalars.len(), num_circuits);
    assert_eq!(ntt_c_scalars.len(), num_circuits);
    assert_eq!(input_assignments.len(), num_circuits);
    assert_eq!(aux_assignments.len(), num_circuits);
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);

    let bv_element_size: usize = std::mem::size_of::<D>() * 8;
    assert!(
        bv_element_size == 64,
        "only 64-bit elements in bit vectors are supported"
    );
    assert!(a_aux_density_bv.len() * bv_element_size >= aux_assignments_size);
    assert!(b_g1_aux_density_bv.len() * bv_element_size >= aux_assignments_size);

    (0..num_circuits)
        .map(|c| Assignment::<S> {
            a_aux_density: a_aux_density_bv.as_ptr().cast(),
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr().cast(),
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr().cast(),
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[c],
            b: ntt_b_scalars[c],
            c: ntt_c_scalars[c],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[c],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[c],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

/// Starts a batch through the split C API (whose signature does not depend on the library's
/// `cuzk-abi` feature); panics with the library's message on error.
fn start<S>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
) -> *mut c_void {
    let mut pending = std::ptr::null_mut();
    // SAFETY: the arrays hold `provers.len()` elements (checked by the callers).
    let err = unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr().cast(),
            provers.len(),
            r_s.as_ptr().cast(),
            s_s.as_ptr().cast(),
            srs,
            gpu_mtx,
            -1,
            &mut pending,
        )
    };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
    pending
}

fn prove_all<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
) {
    check_proof_type::<PR>();
    let pending = start(provers, r_s, s_s, srs, gpu_mtx);
    finish_groth16_proof(pending, proofs);
}

/// Proves a batch of circuits that share densities and sizes (0.1.2's 19 parameters; with the
/// `cuzk` feature, Curio's fork's 20, the last being the caller's GPU lock).
#[allow(clippy::too_many_arguments)]
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
    #[cfg(feature = "cuzk")] gpu_mtx: *mut c_void,
) {
    #[cfg(not(feature = "cuzk"))]
    let gpu_mtx = std::ptr::null_mut();
    assert_eq!(proofs.len(), num_circuits);
    let provers = assignments(
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
    );
    prove_all(&provers, r_s, s_s, proofs, srs, gpu_mtx);
}

/// Proves a batch of circuits given as `Assignment`s.
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
    prove_all(provers, r_s, s_s, proofs, srs, std::ptr::null_mut());
}

/// A GPU lock for `start_groth16_proof` (Curio's fork); free it with `free_gpu_mutex`.
pub fn alloc_gpu_mutex() -> *mut c_void {
    // SAFETY: no preconditions.
    unsafe { create_gpu_mutex() }
}

/// Frees a lock from `alloc_gpu_mutex`.
///
/// # Safety
/// `ptr` must come from `alloc_gpu_mutex`, not be freed already, and not be in use.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr);
}

/// Runs a batch through its GPU section under `gpu_mtx` (NULL: the library's own lock) and
/// returns a pending handle for `finish_groth16_proof` or `drop_pending_proof` (Curio's fork).
#[allow(clippy::too_many_arguments)]
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
) -> *mut c_void {
    let provers = assignments(
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
    );
    start(&provers, r_s, s_s, srs, gpu_mtx)
}

/// Finishes a pending batch into `proofs` and consumes the handle; panics with the library's
/// message on error.
// Safe as in Curio's fork: the handle is an opaque ticket the library validates, never a
// pointer that gets dereferenced, so a stale one is a panic with a message, not UB.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    check_proof_type::<PR>();
    // The batch size, so a short `proofs` slice panics instead of being written past.
    let mut timings = groth16_c2::ProofTimings::default();
    // SAFETY: the library checks the handle; `timings` is writable.
    let err = unsafe { groth16_pending_timings(handle, &mut timings) };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
    assert!(
        proofs.len() >= timings.num_circuits,
        "{} proof slots for a batch of {} circuits",
        proofs.len(),
        timings.num_circuits
    );
    // SAFETY: the handle is live and `proofs` has room for the whole batch.
    let err = unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr().cast()) };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
}

/// Abandons a pending batch without finishing it.
///
/// # Safety
/// `handle` must come from `start_groth16_proof` (a finished or dropped one is ignored).
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    destroy_pending_proof(handle);
}
