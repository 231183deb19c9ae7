//! The few groth16-c2 C functions this check reads, to prove that Commit-2 ran through our
//! library. They are linked in with it through the supraseal-c2 compat crate.

use std::ffi::{c_char, c_void, CStr};

/// `groth16_counters` in include/groth16_c2.h: process-wide totals.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub calls: u64,
    pub circuits: u64,
    pub verified: u64,
    pub verify_failures: u64,
    pub failed_calls: u64,
}

/// `Error` in include/groth16_c2.h: `message` is malloc'ed (or NULL) and ours to free.
#[repr(C)]
struct CError {
    code: i32,
    message: *mut c_char,
}

extern "C" {
    fn groth16_c2_backend() -> *const c_char;
    fn groth16_c2_counters(out: *mut Counters) -> CError;
    fn groth16_c2_thread_pool_size() -> usize;
    fn free(ptr: *mut c_void);
}

/// "cpu" or "cuda": the backend groth16-c2 proves with in this process.
pub fn backend() -> String {
    // SAFETY: returns a static NUL-terminated string, or NULL if the library failed.
    let name = unsafe { groth16_c2_backend() };
    if name.is_null() {
        return "unknown".into();
    }
    // SAFETY: non-NULL, static and NUL-terminated.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// The prover's CPU threads.
pub fn threads() -> usize {
    // SAFETY: no arguments, no preconditions.
    unsafe { groth16_c2_thread_pool_size() }
}

pub fn counters() -> Result<Counters, String> {
    let mut out = Counters::default();
    // SAFETY: `out` is a writable `groth16_counters`.
    let err = unsafe { groth16_c2_counters(&mut out) };
    if err.code == 0 {
        return Ok(out);
    }
    let message = if err.message.is_null() {
        format!("groth16_c2_counters failed with code {}", err.code)
    } else {
        // SAFETY: a NUL-terminated string the library allocated with malloc for us.
        let text = unsafe { CStr::from_ptr(err.message) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: as above; freed exactly once.
        unsafe { free(err.message.cast()) };
        text
    };
    Err(message)
}
