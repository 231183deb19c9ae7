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
            message: malloc_string(&e.to_string()),
        }
    }
}

/// Copies `s` into a NUL-terminated `malloc` allocation (NULL if allocation fails).
fn malloc_string(s: &str) -> *mut c_char {
    let bytes: Vec<u8> = s.bytes().map(|b| if b == 0 { b' ' } else { b }).collect();
    // SAFETY: we write exactly bytes.len() + 1 bytes into a fresh allocation of that size.
    unsafe {
        let p = libc::malloc(bytes.len() + 1) as *mut u8;
        if p.is_null() {
            return std::ptr::null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
        p as *mut c_char
    }
}
