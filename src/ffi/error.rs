//! The error value every fallible C function returns: a code and a `malloc`ed message the
//! caller releases with `free` (supraseal-c2's Rust side does exactly that).

use std::ffi::c_char;

use crate::error::Error;

/// `{ int32_t code; char* message; }`. `code == 0` is success and `message` is then NULL.
#[repr(C)]
#[derive(Debug)]
pub struct CError {
    pub code: i32,
    pub message: *mut c_char,
}

impl CError {
    pub(crate) fn ok() -> CError {
        CError {
            code: 0,
            message: std::ptr::null_mut(),
        }
    }
}

impl From<Error> for CError {
    fn from(e: Error) -> CError {
        CError {
            code: e.code(),
            message: crate::handles::malloc_string(&e.to_string()),
        }
    }
}
