//! Page-locked host memory for hosts: `a, b, c` allocated here (or in the host's own
//! `cudaHostAlloc` pool) upload to the GPU without a staging copy.

use std::ffi::c_void;

use super::panic::{guard, guard_or};
use super::{arg_mut, CError};
use crate::pinned;

/// Allocates `bytes` of page-aligned host memory into `*out`: page-locked (`cudaHostAlloc`)
/// when proofs run on a GPU, ordinary memory otherwise. Free it with
/// `groth16_c2_free_pinned`. Proofs whose `a`, `b`, `c` lie in such memory skip the staging
/// copy. Fails with a clear error (and `*out` NULL) when the memory cannot be had.
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_alloc_pinned(bytes: usize, out: *mut *mut c_void) -> CError {
    guard(|| {
        let out = arg_mut(out, "out")?;
        *out = std::ptr::null_mut();
        *out = pinned::alloc(bytes)?.cast();
        Ok(())
    })
}

/// Frees memory from `groth16_c2_alloc_pinned`. NULL is ignored; a pointer this library did not
/// allocate (or freed already) is left alone and reported with an error.
///
/// # Safety
/// No proof may still read the memory (after `start` returns, none does), and nothing may use
/// it afterwards.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_free_pinned(ptr: *mut c_void) -> CError {
    guard(|| {
        if ptr.is_null() {
            return Ok(());
        }
        pinned::free(ptr.cast())
    })
}

/// Whether the `bytes` at `ptr` are page-locked host memory (this library's or the host's own
/// `cudaHostAlloc`/`cudaHostRegister`), so the GPU reads them without a staging copy.
///
/// # Safety
/// `ptr` is only inspected, never read; any value is allowed.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_is_pinned(ptr: *const c_void, bytes: usize) -> bool {
    guard_or(false, || {
        if ptr.is_null() || bytes == 0 {
            return false;
        }
        // The slice is only used for its address range; it is never read.
        pinned::is_page_locked(std::slice::from_raw_parts(ptr.cast::<u8>(), bytes))
    })
}
