//! Page-locked host staging buffers, allocated once and reused. Before taking the lock, a proof
//! copies its inputs (`a, b, c`, the ones bitmaps, the tail indices and scalars) into one with
//! plain CPU copies; inside the lock they go up at full PCIe speed. Registering the host's own
//! buffers instead (`cudaHostRegister`) cost as much CPU time, and measured under two workers
//! it also slowed the other worker's device section: the driver serialises it with that
//! worker's CUDA calls. Here no driver call runs per proof once the pool is warm.

use std::mem::size_of;
use std::ops::Range;

use blst::blst_scalar;
use blstrs::Scalar;
use parking_lot::Mutex;
use rayon::prelude::*;

use super::runtime::{self, HostBuffer};
use crate::assignment::Witness;
use crate::backend::page_locker;
use crate::error::Result;
use crate::page_locked::{self, PageLocker};
use crate::split::CircuitSplit;

/// Buffers not in use, kept for the next proofs (as many as proofs were staged at once).
static FREE: Mutex<Vec<HostBuffer>> = Mutex::new(Vec::new());

/// A buffer of at least `bytes`: the smallest free one that is large enough, else a new one
/// (the largest free one too small is freed first so the pool does not grow without bound).
fn acquire(bytes: usize) -> Result<HostBuffer> {
    let mut free = FREE.lock();
    let fit = free
        .iter()
        .enumerate()
        .filter(|(_, b)| b.bytes() >= bytes)
        .min_by_key(|(_, b)| b.bytes())
        .map(|(i, _)| i);
    if let Some(i) = fit {
        return Ok(free.swap_remove(i));
    }
    let largest = free
        .iter()
        .enumerate()
        .max_by_key(|(_, b)| b.bytes())
        .map(|(i, _)| i);
    let replaced = largest.map(|i| free.swap_remove(i));
    drop(free);
    drop(replaced);
    // An eighth more, rounded up, so slightly larger proofs reuse the buffer.
    HostBuffer::new(bytes.saturating_add(bytes / 8).next_multiple_of(64 << 20))
}

/// The idle buffers of the pool: how many, and their bytes.
pub fn pool() -> (usize, usize) {
    let free = FREE.lock();
    (free.len(), free.iter().map(HostBuffer::bytes).sum())
}

/// Frees every staging buffer not in use (with `release_gpu_memory`).
pub fn release_free() {
    FREE.lock().clear();
}

/// One circuit's inputs in two staging buffers: `a, b, c` in one, which goes back to the pool as
/// soon as they are on the device ([`Staged::release_abc`]), the ones bitmaps and tails in the
/// other. Those of `a, b, c` that the host already keeps in page-locked memory (Curio's pool,
/// [`crate::pinned`]) are not copied: they upload from there.
pub struct Staged {
    abc_buf: Option<HostBuffer>,
    query_buf: Option<HostBuffer>,
    /// In `abc_buf`; `None`: the host's own vector is page-locked and uploads as it is.
    abc: [Option<Range<usize>>; 3],
    /// In `query_buf`.
    ones: [Range<usize>; 3],
    tail_index: [Range<usize>; 3],
    tail_scalars: [Range<usize>; 3],
}

/// The CUDA runtime's page-locked host memory, for [`crate::pinned`].
pub struct CudaPageLocker;

impl PageLocker for CudaPageLocker {
    fn alloc(&self, bytes: usize) -> Result<*mut u8> {
        HostBuffer::new(bytes).map(|b| b.into_raw())
    }

    unsafe fn free(&self, ptr: *mut u8) {
        runtime::host_free(ptr)
    }

    fn is_page_locked(&self, data: &[std::mem::MaybeUninit<u8>]) -> bool {
        runtime::is_page_locked(data)
    }
}

/// Segments start on 64-byte boundaries.
fn place(at: &mut usize, bytes: usize) -> Range<usize> {
    let start = at.next_multiple_of(64);
    *at = start + bytes;
    start..start + bytes
}

/// Which of `w`'s `a, b, c` need a staging copy (those not already page-locked).
fn abc_to_stage(w: &Witness) -> [bool; 3] {
    [w.a, w.b, w.c].map(|v| !v.is_empty() && !page_locked::is_page_locked(v, page_locker))
}

/// The staging bytes circuit `w` with `split` needs (what [`Staged::new`] will take).
pub fn bytes_needed(w: &Witness, split: &CircuitSplit) -> usize {
    let stage = abc_to_stage(w);
    let abc: usize = [w.a, w.b, w.c]
        .iter()
        .zip(stage)
        .map(|(v, s)| if s { size_of_val(*v) + 64 } else { 0 })
        .sum();
    let queries: usize = [&split.l, &split.a, &split.b]
        .iter()
        .map(|q| size_of_val(&q.ones.words[..]) + q.tail_points.len() * 36 + 3 * 64)
        .sum();
    abc + queries
}

impl Staged {
    /// Copies `w`'s `a, b, c` (those not page-locked already) and `split`'s bitmaps and tails
    /// into a staging buffer.
    pub fn new(w: &Witness, split: &CircuitSplit) -> Result<Staged> {
        let queries = [&split.l, &split.a, &split.b];
        let stage = abc_to_stage(w);
        let mut at = 0;
        let mut abc = [None, None, None];
        for (i, v) in [w.a, w.b, w.c].into_iter().enumerate() {
            if stage[i] {
                abc[i] = Some(place(&mut at, size_of_val(v)));
            }
        }
        let abc_bytes = at;
        at = 0;
        let ones = queries.map(|q| place(&mut at, size_of_val(&q.ones.words[..])));
        let tail_index = queries.map(|q| place(&mut at, size_of_val(&q.tail_points[..])));
        let tail_scalars = queries.map(|q| place(&mut at, size_of_val(&q.tail_scalars[..])));
        let abc_buf = if abc_bytes > 0 {
            Some(acquire(abc_bytes)?)
        } else {
            None
        };
        let staged = Staged {
            abc_buf,
            query_buf: Some(acquire(at)?),
            abc,
            ones,
            tail_index,
            tail_scalars,
        };

        let mut copies: Vec<(*mut u8, &[u8])> = Vec::with_capacity(12);
        for (range, v) in staged.abc.iter().zip([w.a, w.b, w.c]) {
            if let (Some(range), Some(buf)) = (range, &staged.abc_buf) {
                // SAFETY: the range was laid out inside the buffer.
                copies.push((unsafe { buf.as_ptr().add(range.start) }, bytes_of(v)));
            }
        }
        let qbuf = staged.query_buf.as_ref().expect("acquired above");
        for (i, q) in queries.iter().enumerate() {
            // SAFETY: the ranges were laid out inside the buffer.
            let at = |r: &Range<usize>| unsafe { qbuf.as_ptr().add(r.start) };
            copies.push((at(&staged.ones[i]), bytes_of(&q.ones.words)));
            copies.push((at(&staged.tail_index[i]), bytes_of(&q.tail_points)));
            copies.push((at(&staged.tail_scalars[i]), bytes_of(&q.tail_scalars)));
        }
        copy_in(&copies);
        Ok(staged)
    }

    fn slice<'b, T>(buf: &'b Option<HostBuffer>, range: &Range<usize>) -> &'b [T] {
        if range.is_empty() {
            return &[];
        }
        let buf = buf.as_ref().expect("staged, and not released");
        // SAFETY: the range holds a copy of a `[T]` of range.len() bytes, 64-byte aligned.
        unsafe {
            std::slice::from_raw_parts(
                buf.as_ptr().add(range.start).cast::<T>(),
                range.len() / size_of::<T>().max(1),
            )
        }
    }

    /// The staged `a, b, c`; `None` for a vector the host keeps page-locked itself.
    pub fn abc(&self) -> [Option<&[Scalar]>; 3] {
        [0, 1, 2].map(|i| self.abc[i].as_ref().map(|r| Self::slice(&self.abc_buf, r)))
    }

    /// Returns the buffer of `a, b, c` to the pool; every copy from it must have run.
    pub fn release_abc(&mut self) {
        self.abc = [None, None, None];
        if let Some(buf) = self.abc_buf.take() {
            FREE.lock().push(buf);
        }
    }

    /// Query `i`'s (L, A, B) ones bitmap words, tail indices and canonical tail scalars.
    pub fn query(&self, i: usize) -> (&[u64], &[u32], &[blst_scalar]) {
        (
            Self::slice(&self.query_buf, &self.ones[i]),
            Self::slice(&self.query_buf, &self.tail_index[i]),
            Self::slice(&self.query_buf, &self.tail_scalars[i]),
        )
    }
}

/// Copies each source to its destination, in 4 MiB pieces over the prover's threads.
fn copy_in(copies: &[(*mut u8, &[u8])]) {
    const PIECE: usize = 4 << 20;
    let pieces: Vec<(usize, &[u8])> = copies
        .iter()
        .flat_map(|&(dst, src)| {
            src.chunks(PIECE)
                .enumerate()
                .map(move |(k, chunk)| (dst as usize + k * PIECE, chunk))
        })
        .collect();
    crate::settings::pool().install(|| {
        pieces.par_iter().for_each(|&(dst, chunk)| {
            // SAFETY: the destinations were laid out inside staging buffers and do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(chunk.as_ptr(), dst as *mut u8, chunk.len()) };
        })
    });
}

impl Drop for Staged {
    fn drop(&mut self) {
        let mut free = FREE.lock();
        free.extend(self.abc_buf.take());
        free.extend(self.query_buf.take());
    }
}

fn bytes_of<T>(v: &[T]) -> &[u8] {
    // SAFETY: viewing plain-data values as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), size_of_val(v)) }
}
