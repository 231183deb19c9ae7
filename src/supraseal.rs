//! supraseal-c2's Rust-side types and the shared body of its proving functions, for the two
//! compat crates (`compat/supraseal-c2`: upstream 0.1.2's API; `compat/supraseal-c2-cuzk`:
//! Curio's fork). Both re-export these, so a host sees exactly the types it was written for.
//! They run over the Rust API and the handles the C ABI hands out too (`crate::handles`).
//!
//! Misuse panics exactly where supraseal-c2 panics (length mismatches, non-64-bit density
//! words), and a failed proof panics with the library's message: bellperson hands the proof
//! memory back as success, so returning quietly would give it uninitialised proofs.

use std::ffi::{c_char, c_void, CStr};
use std::path::PathBuf;
use std::ptr::NonNull;

use crate::handles::{self, SrsHandle};
use crate::proof::Proof;

/// The error a C call returns: a code and a `malloc`ed message, freed on drop.
/// Same layout and behaviour as `sppark::Error`, which supraseal-c2 returns.
#[repr(C)]
pub struct Error {
    pub code: i32,
    message: Option<NonNull<c_char>>,
}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Error {
        Error {
            code: e.code(),
            message: NonNull::new(handles::malloc_string(&e.to_string())),
        }
    }
}

impl Drop for Error {
    fn drop(&mut self) {
        if let Some(p) = self.message.take() {
            // SAFETY: the library allocated it with malloc and gave us ownership.
            unsafe { libc::free(p.as_ptr().cast()) };
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

/// supraseal-c2 names its error `cuda::Error` (from sppark's `cuda_error!`).
pub mod cuda {
    pub use super::Error;
}

/// A loaded params file; `Clone` adds a reference, `Drop` releases one.
#[repr(transparent)]
pub struct SRS(SrsHandle);

impl Default for SRS {
    fn default() -> Self {
        SRS(SrsHandle::empty())
    }
}

impl SRS {
    /// Loads a bellperson params file; `cache` shares one load per path.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        SrsHandle::load(&srs_path, cache)
            .map(SRS)
            .map_err(Error::from)
    }

    /// Drops this SRS's path from the cache.
    pub fn evict(&self) {
        // SAFETY: an SRS holds an empty handle or a live reference.
        unsafe { self.0.evict() };
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        // SAFETY: as above; the call empties the handle.
        unsafe { self.0.release() };
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        // SAFETY: as above.
        SRS(unsafe { self.0.add_reference() })
    }
}

// The fork's own tests call `expect_err` on `SRS::try_new`, which needs it.
impl std::fmt::Debug for SRS {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "SRS {{ ptr: {:?} }}", self.0.ptr)
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
        std::mem::size_of::<Proof>(),
        "proofs must be 384-byte groth16_proof values (G1, G2, G1 affine)"
    );
}

/// The scalars must be 32-byte BLS12-381 scalars (blstrs' `Scalar`, as bellperson's are).
fn scalar_type<S>() {
    assert_eq!(
        std::mem::size_of::<S>(),
        std::mem::size_of::<blstrs::Scalar>(),
        "scalars must be 32-byte BLS12-381 field elements"
    );
}

/// The shared-density argument list of `generate_groth16_proof` / `start_groth16_proof`.
pub struct Batch<'a, S, D> {
    pub ntt_a_scalars: &'a [*const S],
    pub ntt_b_scalars: &'a [*const S],
    pub ntt_c_scalars: &'a [*const S],
    pub ntt_scalars_actual_size: usize,
    pub input_assignments: &'a [*const S],
    pub aux_assignments: &'a [*const S],
    pub input_assignments_size: usize,
    pub aux_assignments_size: usize,
    pub a_aux_density_bv: &'a [D],
    pub b_g1_input_density_bv: &'a [D],
    pub b_g1_aux_density_bv: &'a [D],
    pub a_aux_total_density: usize,
    pub b_g1_input_total_density: usize,
    pub b_g1_aux_total_density: usize,
    pub num_circuits: usize,
    pub r_s: &'a [S],
    pub s_s: &'a [S],
}

impl<S, D> Batch<'_, S, D> {
    /// One `Assignment` per circuit, after supraseal-c2's own asserts.
    pub fn assignments(&self) -> Vec<Assignment<S>> {
        let n = self.num_circuits;
        assert_eq!(self.ntt_a_scalars.len(), n);
        assert_eq!(self.ntt_b_scalars.len(), n);
        assert_eq!(self.ntt_c_scalars.len(), n);
        assert_eq!(self.input_assignments.len(), n);
        assert_eq!(self.aux_assignments.len(), n);
        assert_eq!(self.r_s.len(), n);
        assert_eq!(self.s_s.len(), n);

        let bv_element_size: usize = std::mem::size_of::<D>() * 8;
        assert!(
            bv_element_size == 64,
            "only 64-bit elements in bit vectors are supported"
        );
        assert!(self.a_aux_density_bv.len() * bv_element_size >= self.aux_assignments_size);
        assert!(self.b_g1_aux_density_bv.len() * bv_element_size >= self.aux_assignments_size);

        (0..n)
            .map(|c| Assignment::<S> {
                a_aux_density: self.a_aux_density_bv.as_ptr().cast(),
                a_aux_bit_len: self.aux_assignments_size,
                a_aux_popcount: self.a_aux_total_density,
                b_inp_density: self.b_g1_input_density_bv.as_ptr().cast(),
                b_inp_bit_len: self.input_assignments_size,
                b_inp_popcount: self.b_g1_input_total_density,
                b_aux_density: self.b_g1_aux_density_bv.as_ptr().cast(),
                b_aux_bit_len: self.aux_assignments_size,
                b_aux_popcount: self.b_g1_aux_total_density,
                a: self.ntt_a_scalars[c],
                b: self.ntt_b_scalars[c],
                c: self.ntt_c_scalars[c],
                abc_size: self.ntt_scalars_actual_size,
                inp_assignment_data: self.input_assignments[c],
                inp_assignment_size: self.input_assignments_size,
                aux_assignment_data: self.aux_assignments[c],
                aux_assignment_size: self.aux_assignments_size,
            })
            .collect()
    }
}

/// Panics with the library's message, as supraseal-c2 does on a failed proof.
fn or_panic<T>(r: crate::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a batch through its device section under `gpu_mtx` (NULL: the library's own lock) on
/// `gpu_index` (negative: any GPU) and returns the pending handle; panics with the library's
/// message on error.
// Safe, as in supraseal-c2 and Curio's fork: `gpu_mtx` must be NULL or a live lock from
// `alloc_gpu_mutex`, a contract their callers already keep.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn start<S>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    assert_eq!(r_s.len(), provers.len());
    assert_eq!(s_s.len(), provers.len());
    scalar_type::<S>();
    // SAFETY: the Assignment layouts are the same and S is a 32-byte scalar (checked above), so
    // the slices reinterpret element for element; the host vouches for the pointers inside, as
    // supraseal-c2's callers do.
    let work = or_panic(unsafe {
        handles::start(handles::Batch {
            provers: std::slice::from_raw_parts(provers.as_ptr().cast(), provers.len()),
            r_s: std::slice::from_raw_parts(r_s.as_ptr().cast(), r_s.len()),
            s_s: std::slice::from_raw_parts(s_s.as_ptr().cast(), s_s.len()),
            srs: &srs.0,
            gpu_lock: gpu_mtx,
            gpu_index,
        })
    });
    handles::register_pending(work)
}

/// Finishes a pending batch into `proofs` and consumes the handle; panics with the library's
/// message on error (also for a `proofs` slice shorter than the batch).
// The handle is an opaque ticket the library validates, never dereferenced: a stale one is a
// panic with a message, not undefined behaviour.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn finish<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    check_proof_type::<PR>();
    // The batch size, so a short `proofs` slice panics instead of being written past (and the
    // handle stays live, as it did before the check).
    let n = or_panic(handles::pending_timings(handle)).num_circuits;
    assert!(
        proofs.len() >= n,
        "{} proof slots for a batch of {n} circuits",
        proofs.len()
    );
    let work = or_panic(handles::take_pending(handle));
    // SAFETY: PR is a 384-byte groth16_proof (checked above), laid out as Proof.
    let out = unsafe { std::slice::from_raw_parts_mut(proofs.as_mut_ptr().cast::<Proof>(), n) };
    or_panic(handles::finish(work, out));
}

/// Proves a batch in one call: `start`, then `finish`.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn prove<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    check_proof_type::<PR>();
    assert_eq!(proofs.len(), provers.len());
    let pending = start(provers, r_s, s_s, srs, gpu_mtx, gpu_index);
    finish(pending, proofs);
}

/// A GPU lock for the calls that take `gpu_mtx`; free it with [`free_gpu_mutex`].
pub fn alloc_gpu_mutex() -> *mut c_void {
    handles::new_gpu_lock()
}

/// Frees a lock from [`alloc_gpu_mutex`].
///
/// # Safety
/// `ptr` must come from `alloc_gpu_mutex`, not be freed already, and not be in use.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    handles::free_gpu_lock(ptr);
}

/// Abandons a pending batch without finishing it.
///
/// # Safety
/// `handle` must come from `start` (a finished or dropped one is ignored).
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    if !handle.is_null() {
        drop(handles::take_pending(handle));
    }
}
