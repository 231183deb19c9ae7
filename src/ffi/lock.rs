//! Caller-owned GPU lock handles (`crate::handles::new_gpu_lock`).

use std::ffi::c_void;

use super::panic::guard_or;
use crate::handles;

/// A new lock for one GPU, to share between the workers that use that GPU.
#[no_mangle]
pub extern "C" fn create_gpu_mutex() -> *mut c_void {
    guard_or(std::ptr::null_mut(), handles::new_gpu_lock)
}

/// Frees a lock from `create_gpu_mutex`. No call may be using it.
///
/// # Safety
/// `lock` must be NULL or come from `create_gpu_mutex` and not be destroyed yet.
#[no_mangle]
pub unsafe extern "C" fn destroy_gpu_mutex(lock: *mut c_void) {
    guard_or((), || handles::free_gpu_lock(lock))
}
