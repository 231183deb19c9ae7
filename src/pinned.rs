//! Page-locked host memory for hosts that want their `a, b, c` (or anything else they upload)
//! to go to the GPU without a staging copy, and the test the prover uses to find such memory.
//!
//! [`alloc`] page-locks with `cudaHostAlloc` when the CUDA backend is in use; otherwise (a CPU
//! build, no GPU, `GROTH16_C2_BACKEND=cpu`) it hands out ordinary page-aligned memory, so a
//! host can allocate through it unconditionally. [`free`] knows which one it gave.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::error::{Error, Result};

/// Alignment of every allocation (a page; the DMA engines like it, AVX loads too).
const ALIGN: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `cudaHostAlloc`.
    PageLocked,
    /// `posix_memalign` (no GPU to pin for).
    Ordinary,
}

/// Live allocations: start address → (bytes, kind).
static LIVE: Mutex<Option<HashMap<usize, (usize, Kind)>>> = Mutex::new(None);

/// Whether allocations are page-locked: the CUDA backend is the process's backend.
fn pins() -> bool {
    crate::backend::default_backend().name() == "cuda"
}

/// `bytes` of host memory, page-aligned; page-locked where a GPU backend runs.
pub fn alloc(bytes: usize) -> Result<*mut u8> {
    if bytes == 0 {
        return Err(Error::invalid("cannot allocate 0 bytes"));
    }
    if bytes > isize::MAX as usize / 2 {
        return Err(Error::invalid(format!(
            "{bytes} bytes is more than any host can hold"
        )));
    }
    let (ptr, kind) = if pins() {
        (page_locked(bytes)?, Kind::PageLocked)
    } else {
        (ordinary(bytes)?, Kind::Ordinary)
    };
    LIVE.lock()
        .get_or_insert_with(HashMap::new)
        .insert(ptr as usize, (bytes, kind));
    Ok(ptr)
}

/// Frees what [`alloc`] returned. A pointer it did not return (or one freed already) is left
/// alone and reported as an error.
///
/// # Safety
/// No copy from or to the memory may be pending, and nothing may use it afterwards.
pub unsafe fn free(ptr: *mut u8) -> Result<()> {
    let entry = LIVE
        .lock()
        .as_mut()
        .and_then(|live| live.remove(&(ptr as usize)));
    match entry {
        Some((_, Kind::PageLocked)) => {
            release_page_locked(ptr);
            Ok(())
        }
        Some((_, Kind::Ordinary)) => {
            libc::free(ptr.cast());
            Ok(())
        }
        None => Err(Error::invalid(format!(
            "{ptr:p} was not allocated by groth16_c2_alloc_pinned (or was freed already)"
        ))),
    }
}

/// Whether the whole of `data` is page-locked host memory, ours or the host's own
/// (`cudaHostAlloc`, `cudaHostRegister`), so the GPU can read it directly.
pub fn is_page_locked<T>(data: &[T]) -> bool {
    let (start, bytes) = (data.as_ptr() as usize, std::mem::size_of_val(data));
    if bytes == 0 {
        return false;
    }
    if let Some(live) = LIVE.lock().as_ref() {
        // Ours: find the allocation holding the start (few are live; a scan is enough).
        let ours = live
            .iter()
            .find(|(&at, &(len, _))| start >= at && start < at + len);
        if let Some((&at, &(len, kind))) = ours {
            return kind == Kind::PageLocked && start + bytes <= at + len;
        }
    }
    driver_says_page_locked(data)
}

#[cfg(groth16_c2_cuda)]
fn page_locked(bytes: usize) -> Result<*mut u8> {
    crate::backend::cuda::runtime::HostBuffer::new(bytes)
        .map(|b| b.into_raw())
        .map_err(|e| {
            Error::invalid(format!(
                "cannot page-lock {bytes} bytes of host memory ({e}); \
             the host may be out of memory or over its locked-memory limit"
            ))
        })
}

#[cfg(not(groth16_c2_cuda))]
fn page_locked(bytes: usize) -> Result<*mut u8> {
    ordinary(bytes)
}

#[cfg(groth16_c2_cuda)]
unsafe fn release_page_locked(ptr: *mut u8) {
    crate::backend::cuda::runtime::host_free(ptr)
}

#[cfg(not(groth16_c2_cuda))]
unsafe fn release_page_locked(ptr: *mut u8) {
    libc::free(ptr.cast())
}

#[cfg(groth16_c2_cuda)]
fn driver_says_page_locked<T>(data: &[T]) -> bool {
    pins() && crate::backend::cuda::runtime::is_page_locked(data)
}

#[cfg(not(groth16_c2_cuda))]
fn driver_says_page_locked<T>(_: &[T]) -> bool {
    false
}

fn ordinary(bytes: usize) -> Result<*mut u8> {
    let mut ptr: *mut libc::c_void = std::ptr::null_mut();
    // SAFETY: writes one pointer; ALIGN is a power of two and a multiple of the pointer size.
    let code = unsafe { libc::posix_memalign(&mut ptr, ALIGN, bytes) };
    if code != 0 || ptr.is_null() {
        return Err(Error::invalid(format!(
            "cannot allocate {bytes} bytes of host memory"
        )));
    }
    Ok(ptr.cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_usable_and_freed_once() {
        let p = alloc(10_000).unwrap();
        assert_eq!(p as usize % ALIGN, 0);
        // SAFETY: 10_000 bytes were allocated.
        let slice = unsafe { std::slice::from_raw_parts_mut(p, 10_000) };
        slice.fill(7);
        assert_eq!(slice.iter().map(|&b| b as usize).sum::<usize>(), 70_000);
        // Page-locked exactly when a GPU backend pins (never in a CPU-only process).
        assert_eq!(is_page_locked(&slice[..]), pins());
        assert_eq!(is_page_locked(&slice[5000..]), pins());
        // SAFETY: allocated above, nothing pending.
        unsafe { free(p).unwrap() };
        let twice = unsafe { free(p) }.unwrap_err();
        assert!(twice.to_string().contains("freed already"), "{twice}");
    }

    #[test]
    fn absurd_and_empty_requests_are_refused() {
        assert!(alloc(0).is_err());
        assert!(alloc(usize::MAX).is_err());
        let mut own = vec![1u8; 64];
        assert!(!is_page_locked(&own[..]));
        assert!(unsafe { free(own.as_mut_ptr()) }.is_err());
    }
}
