//! SRS handles: reference-counted (`Arc`), `clone_SRS` adds a reference, `drop_SRS` removes one
//! (`crate::handles::SrsHandle`).

use std::ffi::{c_char, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::panic::{guard, guard_or};
use super::{arg, arg_mut, CError};
pub use crate::handles::SrsHandle;

/// Loads a bellperson Groth16 params file into `*ret`. With `cache`, every caller of the same
/// path shares one load (an LRU of 4 paths).
///
/// # Safety
/// `ret` must be writable; `path` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn create_SRS(
    ret: *mut SrsHandle,
    path: *const c_char,
    cache: bool,
) -> CError {
    guard(|| {
        let ret = arg_mut(ret, "ret")?;
        *ret = SrsHandle::empty();
        let path = arg(path, "path")?;
        let path = Path::new(OsStr::from_bytes(CStr::from_ptr(path).to_bytes()));
        *ret = SrsHandle::load(path, cache)?;
        Ok(())
    })
}

/// Removes this SRS's path from the cache; handles already given out stay valid.
///
/// # Safety
/// `srs` must be NULL or a valid handle.
#[no_mangle]
pub unsafe extern "C" fn evict_SRS(srs: *const SrsHandle) {
    guard_or((), || {
        if let Some(h) = srs.as_ref() {
            h.evict();
        }
    })
}

/// Releases one reference and empties the handle; the SRS is freed with its last reference.
///
/// # Safety
/// `srs` must be NULL or a valid handle.
#[no_mangle]
pub unsafe extern "C" fn drop_SRS(srs: *mut SrsHandle) {
    guard_or((), || {
        if let Some(h) = srs.as_mut() {
            h.release();
        }
    })
}

/// Adds one reference; the returned handle must be dropped with `drop_SRS`.
///
/// # Safety
/// `srs` must be NULL or a valid handle.
#[no_mangle]
pub unsafe extern "C" fn clone_SRS(srs: *const SrsHandle) -> SrsHandle {
    guard_or(SrsHandle::empty(), || match srs.as_ref() {
        Some(h) => h.add_reference(),
        None => SrsHandle::empty(),
    })
}
