//! SRS handles: reference-counted (`Arc`), `clone_SRS` adds a reference, `drop_SRS` removes one.

use std::ffi::{c_char, c_void, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::panic::{guard, guard_or};
use super::{arg, arg_mut, CError};
use crate::error::Error;
use crate::srs::{self, Srs, SrsData};

/// `{ void* ptr; }`: one reference to a loaded SRS, NULL when empty.
#[repr(C)]
#[derive(Debug)]
pub struct SrsHandle {
    pub ptr: *const c_void,
}

impl SrsHandle {
    fn empty() -> SrsHandle {
        SrsHandle {
            ptr: std::ptr::null(),
        }
    }

    /// Borrows the SRS behind the handle as a new reference.
    ///
    /// # Safety
    /// The handle must be empty or hold a live reference made by this library.
    pub(crate) unsafe fn get(&self) -> crate::Result<Srs> {
        if self.ptr.is_null() {
            return Err(Error::InvalidHandle(
                "the SRS handle is empty (dropped or never created)",
            ));
        }
        Ok(Srs::clone_raw(self.ptr as *const SrsData))
    }
}

impl Srs {
    /// A new reference to the SRS behind a C handle, or `None` if the handle is empty.
    ///
    /// # Safety
    /// The handle must be empty or hold a live reference made by this library.
    pub unsafe fn from_handle(handle: &SrsHandle) -> Option<Srs> {
        handle.get().ok()
    }
}

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
        let srs = Srs::new(path, cache)?;
        ret.ptr = srs.into_raw() as *const c_void;
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
            if let Ok(s) = h.get() {
                srs::evict(&s.path);
            }
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
            if !h.ptr.is_null() {
                drop(Srs::from_raw(h.ptr as *const SrsData));
                h.ptr = std::ptr::null();
            }
        }
    })
}

/// Adds one reference; the returned handle must be dropped with `drop_SRS`.
///
/// # Safety
/// `srs` must be NULL or a valid handle.
#[no_mangle]
pub unsafe extern "C" fn clone_SRS(srs: *const SrsHandle) -> SrsHandle {
    guard_or(SrsHandle::empty(), || match srs.as_ref().map(|h| h.get()) {
        Some(Ok(s)) => SrsHandle {
            ptr: s.into_raw() as *const c_void,
        },
        _ => SrsHandle::empty(),
    })
}
