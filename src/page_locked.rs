//! The host allocations behind [`crate::pinned`]: page-aligned, page-locked through a
//! [`PageLocker`] where a GPU backend runs, and the test for page-locked memory that the CUDA
//! backend's staging uses. The backend that page-locks is passed in, so this module names none.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::error::{Error, Result};

/// Alignment of every allocation (a page; the DMA engines like it, AVX loads too).
pub(crate) const ALIGN: usize = 4096;

/// A backend's page-locked host memory (the CUDA backend's `cudaHostAlloc`).
pub trait PageLocker: Sync {
    /// `bytes` of page-locked host memory.
    fn alloc(&self, bytes: usize) -> Result<*mut u8>;

    /// Frees what [`alloc`](Self::alloc) returned.
    ///
    /// # Safety
    /// `ptr` came from `alloc`; no copy from or to it is pending, nothing uses it afterwards.
    unsafe fn free(&self, ptr: *mut u8);

    /// Whether the driver says all of `data` is page-locked (the host's own `cudaHostAlloc`
    /// or `cudaHostRegister`).
    fn is_page_locked(&self, data: &[std::mem::MaybeUninit<u8>]) -> bool;
}

#[derive(Clone, Copy)]
enum Kind {
    /// By a [`PageLocker`], which frees it.
    PageLocked(&'static dyn PageLocker),
    /// `posix_memalign` (no GPU to pin for).
    Ordinary,
}

/// Live allocations: start address → (bytes, kind).
static LIVE: Mutex<Option<HashMap<usize, (usize, Kind)>>> = Mutex::new(None);

/// `bytes` of host memory, page-aligned; page-locked by the backend `locker` gives, if any.
pub fn alloc(
    bytes: usize,
    locker: impl FnOnce() -> Option<&'static dyn PageLocker>,
) -> Result<*mut u8> {
    if bytes == 0 {
        return Err(Error::invalid("cannot allocate 0 bytes"));
    }
    if bytes > isize::MAX as usize / 2 {
        return Err(Error::invalid(format!(
            "{bytes} bytes is more than any host can hold"
        )));
    }
    let (ptr, kind) = match locker() {
        Some(locker) => (page_locked(locker, bytes)?, Kind::PageLocked(locker)),
        None => (ordinary(bytes)?, Kind::Ordinary),
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
        Some((_, Kind::PageLocked(locker))) => {
            locker.free(ptr);
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

/// Whether the whole of `data` is page-locked host memory, ours or the host's own (which the
/// backend `locker` gives, if any, is asked about), so the GPU can read it directly.
pub fn is_page_locked<T>(
    data: &[T],
    locker: impl FnOnce() -> Option<&'static dyn PageLocker>,
) -> bool {
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
            return matches!(kind, Kind::PageLocked(_)) && start + bytes <= at + len;
        }
    }
    // SAFETY: `data`'s bytes, as possibly uninitialised bytes (padding): only their addresses
    // are looked at.
    let raw = unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), bytes) };
    locker().is_some_and(|l| l.is_page_locked(raw))
}

fn page_locked(locker: &dyn PageLocker, bytes: usize) -> Result<*mut u8> {
    locker.alloc(bytes).map_err(|e| {
        Error::invalid(format!(
            "cannot page-lock {bytes} bytes of host memory ({e}); \
             the host may be out of memory or over its locked-memory limit"
        ))
    })
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
