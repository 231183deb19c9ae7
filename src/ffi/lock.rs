//! Caller-owned GPU lock handles (`Box`: created once, destroyed once).

use std::ffi::c_void;

use super::panic::guard_or;
use crate::lock::GpuLock;

/// A new lock for one GPU, to share between the workers that use that GPU.
#[no_mangle]
pub extern "C" fn create_gpu_mutex() -> *mut c_void {
    guard_or(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(GpuLock::new())) as *mut c_void
    })
}

/// Frees a lock from `create_gpu_mutex`. No call may be using it.
///
/// # Safety
/// `lock` must be NULL or come from `create_gpu_mutex` and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn destroy_gpu_mutex(lock: *mut c_void) {
    guard_or((), || {
        if !lock.is_null() {
            drop(Box::from_raw(lock as *mut GpuLock));
        }
    })
}

/// The caller's lock, or `None` for NULL (the library's own).
///
/// # Safety
/// `lock` must be NULL or a live lock from `create_gpu_mutex`.
pub(crate) unsafe fn lock_arg<'a>(lock: *mut c_void) -> Option<&'a GpuLock> {
    (lock as *const GpuLock).as_ref()
}
