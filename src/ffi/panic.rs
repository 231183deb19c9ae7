//! The panic boundary: every exported function's body runs in here.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::CError;
use crate::error::{panic_message, Error, Result};

/// Runs `f`, turning its error or a panic into the C error value.
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> CError {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CError::ok(),
        Ok(Err(e)) => e.into(),
        Err(payload) => Error::Panic(panic_message(payload)).into(),
    }
}

/// Runs `f` for a function that cannot report errors; a panic returns `fallback`.
pub(crate) fn guard_or<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        eprintln!(
            "groth16-c2: internal error (panic): {}",
            panic_message(payload)
        );
        fallback
    })
}
