//! Fixed-length buffers for the large per-proof vectors (the 0/1 split's bitmaps and tails),
//! mapped straight from the kernel from 64 KiB up and unmapped when dropped.
//!
//! Why not a `Vec`: glibc raises its mmap threshold to the size of every mapped block it frees
//! (up to 32 MiB). After a few proofs, buffers of 128 KiB-32 MiB come from the per-thread
//! arenas instead, and each arena keeps up to twice that threshold free at its top, which
//! `malloc_trim` does not give back. On the H200 soak (16 cores, mixed sizes) that was ~170 MiB
//! of RSS that no allocation held; with these buffers the split's memory goes back to the
//! kernel at the end of every proof, whatever the host's allocator settings. The price is the
//! first write to fresh pages: ~4 ms per circuit of CPU time before the lock (2 cores, sizes
//! 2^16..2^22; above 32 MiB glibc maps every buffer anyway).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use blst::blst_scalar;

/// Values for which all-zero bytes are a valid value and whose drop may be skipped (it frees
/// nothing): the mapped storage starts zeroed and is unmapped without dropping its elements.
///
/// # Safety
/// Implement only for types meeting both conditions.
pub unsafe trait Zeroable: Send + Sync + 'static {}

// SAFETY: plain integers.
unsafe impl Zeroable for u32 {}
// SAFETY: plain integers.
unsafe impl Zeroable for u64 {}
// SAFETY: 32 plain bytes; its drop only zeroes them (an unmapped page is zeroed by the kernel).
unsafe impl Zeroable for blst_scalar {}

/// Buffers from this size up are mapped.
const MAP_FROM_BYTES: usize = 64 << 10;

enum Storage<T> {
    Heap(Vec<T>),
    Mapped { ptr: NonNull<T>, len: usize },
}

/// `len` values, zeroed at creation, on the heap when small and mapped otherwise.
pub struct LargeBuf<T: Zeroable>(Storage<T>);

// SAFETY: the buffer owns its values like a Vec does.
unsafe impl<T: Zeroable> Send for LargeBuf<T> {}
// SAFETY: shared access only reads.
unsafe impl<T: Zeroable> Sync for LargeBuf<T> {}

impl<T: Zeroable> LargeBuf<T> {
    /// `len` zeroed values.
    pub fn zeroed(len: usize) -> LargeBuf<T> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .expect("buffer size overflows");
        if bytes >= MAP_FROM_BYTES {
            if let Some(ptr) = map_zeroed(bytes) {
                return LargeBuf(Storage::Mapped {
                    ptr: ptr.cast(),
                    len,
                });
            }
        }
        let mut v = Vec::with_capacity(len);
        // SAFETY: zero bytes are a valid T (Zeroable), written for all `len` values.
        unsafe {
            std::ptr::write_bytes(v.as_mut_ptr(), 0, len);
            v.set_len(len);
        }
        LargeBuf(Storage::Heap(v))
    }

    /// Whether the values live in their own mapping (for tests).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Storage::Mapped { .. })
    }
}

/// Copies `src` into `dst` (equal lengths) without dropping what `dst` held: for `Zeroable`
/// values that drop may be skipped, and `blst_scalar`'s would zero each one first.
pub fn clone_into<T: Zeroable + Clone>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "clone_into: lengths differ");
    for (d, s) in dst.iter_mut().zip(src) {
        // SAFETY: `d` is a valid, exclusively borrowed slot; skipping its drop is allowed.
        unsafe { std::ptr::write(d, s.clone()) };
    }
}

/// Anonymous zeroed memory from the kernel (`None` if it refuses: the caller uses the heap).
fn map_zeroed(bytes: usize) -> Option<NonNull<u8>> {
    // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    NonNull::new(p.cast())
}

impl<T: Zeroable> Drop for LargeBuf<T> {
    fn drop(&mut self) {
        if let Storage::Mapped { ptr, len } = self.0 {
            // SAFETY: the mapping `zeroed` made (len * size_of::<T>() bytes, which did not
            // overflow there); nothing borrows it any more.
            unsafe { libc::munmap(ptr.as_ptr().cast(), len * std::mem::size_of::<T>()) };
        }
    }
}

impl<T: Zeroable> Deref for LargeBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.0 {
            Storage::Heap(v) => v,
            // SAFETY: `len` initialised (zeroed or written) values in the mapping.
            Storage::Mapped { ptr, len } => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
        }
    }
}

impl<T: Zeroable> DerefMut for LargeBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Storage::Heap(v) => v,
            // SAFETY: as in `deref`, borrowed uniquely through `self`.
            Storage::Mapped { ptr, len } => unsafe {
                std::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
        }
    }
}

impl<T: Zeroable> Default for LargeBuf<T> {
    fn default() -> Self {
        LargeBuf(Storage::Heap(Vec::new()))
    }
}

impl<T: Zeroable> From<Vec<T>> for LargeBuf<T> {
    fn from(v: Vec<T>) -> Self {
        LargeBuf(Storage::Heap(v))
    }
}

impl<T: Zeroable + Clone> Clone for LargeBuf<T> {
    fn clone(&self) -> Self {
        let mut c = LargeBuf::zeroed(self.len());
        clone_into(&mut c, self);
        c
    }
}

impl<T: Zeroable + PartialEq> PartialEq for LargeBuf<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Zeroable + Eq> Eq for LargeBuf<T> {}

impl<T: Zeroable + fmt::Debug> fmt::Debug for LargeBuf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_buffers_live_on_the_heap_and_large_ones_are_mapped_zeroed() {
        let small = LargeBuf::<u64>::zeroed(10);
        assert!(!small.is_mapped());
        assert_eq!(&small[..], &[0; 10]);
        let mut large = LargeBuf::<u32>::zeroed(1 << 20);
        assert!(large.is_mapped());
        assert!(large.iter().all(|&x| x == 0));
        large[12345] = 7;
        *large.last_mut().unwrap() = 9;
        let copy = large.clone();
        assert!(copy.is_mapped());
        assert_eq!(copy, large);
        assert_eq!((copy[12345], copy[(1 << 20) - 1]), (7, 9));
        assert_eq!(LargeBuf::<u32>::zeroed(0).len(), 0);
        assert_eq!(LargeBuf::from(vec![1u32, 2]), {
            let mut b = LargeBuf::zeroed(2);
            b.copy_from_slice(&[1, 2]);
            b
        });
    }

    #[test]
    fn mapped_scalars_are_zero_scalars() {
        let b = LargeBuf::<blst_scalar>::zeroed(4096);
        assert!(b.is_mapped());
        assert!(b.iter().all(|s| *s == blst_scalar::default()));
    }
}
