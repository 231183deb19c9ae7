//! Page-locked host memory for hosts that want their `a, b, c` (or anything else they upload)
//! to go to the GPU without a staging copy, and the test the prover uses to find such memory.
//!
//! [`alloc`] page-locks with `cudaHostAlloc` when the CUDA backend is in use; otherwise (a CPU
//! build, no GPU, `GROTH16_C2_BACKEND=cpu`) it hands out ordinary page-aligned memory, so a
//! host can allocate through it unconditionally. [`free`] knows which one it gave.

use crate::backend::page_locker;
use crate::error::Result;
use crate::page_locked;

/// Whether allocations are page-locked: the CUDA backend is the process's backend.
#[cfg(test)]
fn pins() -> bool {
    page_locker().is_some()
}

/// `bytes` of host memory, page-aligned; page-locked where a GPU backend runs.
pub fn alloc(bytes: usize) -> Result<*mut u8> {
    page_locked::alloc(bytes, page_locker)
}

/// Frees what [`alloc`] returned. A pointer it did not return (or one freed already) is left
/// alone and reported as an error.
///
/// # Safety
/// No copy from or to the memory may be pending, and nothing may use it afterwards.
pub unsafe fn free(ptr: *mut u8) -> Result<()> {
    page_locked::free(ptr)
}

/// Whether the whole of `data` is page-locked host memory, ours or the host's own
/// (`cudaHostAlloc`, `cudaHostRegister`), so the GPU can read it directly.
pub fn is_page_locked<T>(data: &[T]) -> bool {
    page_locked::is_page_locked(data, page_locker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_usable_and_freed_once() {
        let p = alloc(10_000).unwrap();
        assert_eq!(p as usize % page_locked::ALIGN, 0);
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
