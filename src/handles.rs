//! The handles that supraseal-c2's interface hands out, over the Rust API: references to a
//! loaded SRS, pending batches as tickets, caller-owned GPU locks, and batches of the host's
//! `Assignment`s. The C ABI (`ffi`) and the compat crates' Rust API (`supraseal`) are both
//! thin layers over these, so both behave the same way for the same misuse.

use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use blstrs::Scalar;
use once_cell::sync::Lazy;
use parking_lot::Mutex;

use crate::assignment::{Assignment, Witness};
use crate::error::{Error, Result};
use crate::lock::GpuLock;
use crate::proof::Proof;
use crate::prover::{self, PendingProofs, ProveOptions};
use crate::srs::{self, Srs, SrsData};
use crate::telemetry::ProofTimings;

// ---------------------------------------------------------------------------------------------
// SRS references

/// `{ void* ptr; }`: one reference to a loaded SRS, NULL when empty.
#[repr(C)]
#[derive(Debug)]
pub struct SrsHandle {
    pub ptr: *const c_void,
}

impl SrsHandle {
    /// A handle that holds no reference.
    pub fn empty() -> SrsHandle {
        SrsHandle {
            ptr: std::ptr::null(),
        }
    }

    /// Loads a params file (with `cache`, every caller of the same path shares one load) and
    /// returns one reference to it.
    pub fn load(path: &Path, cache: bool) -> Result<SrsHandle> {
        let srs = Srs::new(path, cache)?;
        Ok(SrsHandle {
            ptr: srs.into_raw() as *const c_void,
        })
    }

    /// Borrows the SRS behind the handle as a new reference.
    ///
    /// # Safety
    /// The handle must be empty or hold a live reference made by this library.
    pub unsafe fn get(&self) -> Result<Srs> {
        if self.ptr.is_null() {
            return Err(Error::InvalidHandle(
                "the SRS handle is empty (dropped or never created)",
            ));
        }
        Ok(Srs::clone_raw(self.ptr as *const SrsData))
    }

    /// Another reference to the same SRS (an empty handle for an empty one).
    ///
    /// # Safety
    /// As [`SrsHandle::get`].
    pub unsafe fn add_reference(&self) -> SrsHandle {
        match self.get() {
            Ok(s) => SrsHandle {
                ptr: s.into_raw() as *const c_void,
            },
            Err(_) => SrsHandle::empty(),
        }
    }

    /// Drops this SRS's path from the cache; references already given out stay valid.
    ///
    /// # Safety
    /// As [`SrsHandle::get`].
    pub unsafe fn evict(&self) {
        if let Ok(s) = self.get() {
            srs::evict(&s.path);
        }
    }

    /// Releases the reference and empties the handle; the SRS is freed with its last one.
    ///
    /// # Safety
    /// As [`SrsHandle::get`].
    pub unsafe fn release(&mut self) {
        if !self.ptr.is_null() {
            drop(Srs::from_raw(self.ptr as *const SrsData));
            self.ptr = std::ptr::null();
        }
    }
}

impl Srs {
    /// A new reference to the SRS behind a C handle, or `None` if the handle is empty.
    ///
    /// # Safety
    /// The handle must be empty or hold a live reference made by this library.
    pub unsafe fn from_handle(handle: &SrsHandle) -> Option<Srs> {
        handle.get().ok()
    }
}

// ---------------------------------------------------------------------------------------------
// Caller-owned GPU locks (a `Box`: created once, destroyed once)

/// A new lock for one GPU, to share between the workers that use that GPU.
pub fn new_gpu_lock() -> *mut c_void {
    Box::into_raw(Box::new(GpuLock::new())) as *mut c_void
}

/// Frees a lock from [`new_gpu_lock`]; NULL is ignored.
///
/// # Safety
/// `lock` must be NULL or come from `new_gpu_lock`, not be freed yet, and not be in use.
pub unsafe fn free_gpu_lock(lock: *mut c_void) {
    if !lock.is_null() {
        drop(Box::from_raw(lock as *mut GpuLock));
    }
}

/// The caller's lock, or `None` for NULL (the library's own).
///
/// # Safety
/// `lock` must be NULL or a live lock from [`new_gpu_lock`].
unsafe fn lock_arg<'a>(lock: *mut c_void) -> Option<&'a GpuLock> {
    (lock as *const GpuLock).as_ref()
}

// ---------------------------------------------------------------------------------------------
// Batches of the host's Assignments

/// A batch as supraseal-c2's callers describe it.
pub struct Batch<'a> {
    pub provers: &'a [Assignment],
    pub r_s: &'a [Scalar],
    pub s_s: &'a [Scalar],
    pub srs: &'a SrsHandle,
    /// NULL: the library's own lock.
    pub gpu_lock: *mut c_void,
    /// Negative: any GPU.
    pub gpu_index: i32,
}

/// Checks a batch's sizes against its SRS and runs it up to the end of its device section.
///
/// # Safety
/// Each Assignment's pointers must be valid for the sizes it states; `srs` as
/// [`SrsHandle::get`]; `gpu_lock` NULL or a live lock from [`new_gpu_lock`].
pub unsafe fn start(batch: Batch) -> Result<PendingProofs> {
    let n = batch.provers.len();
    if n == 0 {
        return Err(Error::invalid(
            "num_circuits is 0; there is nothing to prove",
        ));
    }
    if batch.r_s.len() != n || batch.s_s.len() != n {
        return Err(Error::invalid(format!(
            "{n} circuits with {} r and {} s values",
            batch.r_s.len(),
            batch.s_s.len()
        )));
    }
    let srs = batch.srs.get()?;
    let witnesses = batch
        .provers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.check_sizes(&srs.query_counts(), i)?;
            a.view(i)
        })
        .collect::<Result<Vec<Witness>>>()?;
    let options = ProveOptions {
        lock: lock_arg(batch.gpu_lock),
        gpu_index: batch.gpu_index,
        ..Default::default()
    };
    prover::start(&srs, &witnesses, batch.r_s, batch.s_s, options)
}

/// Finishes `work` into `out` (as many proofs as the batch has circuits, or an error before any
/// work when `out` is shorter) and returns the batch's complete timings.
pub fn finish(work: PendingProofs, out: &mut [Proof]) -> Result<ProofTimings> {
    let n = work.len();
    if out.len() < n {
        return Err(Error::invalid(format!(
            "{} proof slots for a batch of {n} circuits",
            out.len()
        )));
    }
    let (proofs, timings) = work.finalize_timed()?;
    out[..n].copy_from_slice(&proofs);
    Ok(timings)
}

// ---------------------------------------------------------------------------------------------
// Pending batches as tickets
//
// Hosts disagree on who frees a pending proof: Curio's fork treats `finalize` as consuming the
// handle, while the split API also has `destroy_pending_proof`, which some hosts call after
// `finalize`. A boxed pointer would leak in the first convention or double-free in the second.
// So the `void*` a host holds is a never-reused ticket number into a registry: `finalize`
// takes the work out, `destroy` drops whatever is left, and a stale, repeated or made-up
// ticket is a clear error (or a no-op for `destroy`), never a use-after-free.

static NEXT_TICKET: AtomicU64 = AtomicU64::new(1);
static PENDING: Lazy<Mutex<HashMap<u64, PendingProofs>>> = Lazy::new(|| Mutex::new(HashMap::new()));

const NOT_LIVE: &str = "the pending handle is not live: it was already finalized or destroyed, or did not come from generate_groth16_proofs_start_c";

/// Stores `work` and returns its ticket as the host's handle (never NULL).
pub fn register_pending(work: PendingProofs) -> *mut c_void {
    let ticket = NEXT_TICKET.fetch_add(1, Ordering::Relaxed);
    PENDING.lock().insert(ticket, work);
    ticket as usize as *mut c_void
}

fn ticket(handle: *const c_void) -> Result<u64> {
    if handle.is_null() {
        return Err(Error::NullArgument("pending"));
    }
    Ok(handle as usize as u64)
}

/// Removes and returns the work behind `handle`.
pub fn take_pending(handle: *const c_void) -> Result<PendingProofs> {
    let t = ticket(handle)?;
    PENDING
        .lock()
        .remove(&t)
        .ok_or(Error::InvalidHandle(NOT_LIVE))
}

/// The timings recorded so far for a live handle (`num_circuits`: its batch's size).
pub fn pending_timings(handle: *const c_void) -> Result<ProofTimings> {
    let t = ticket(handle)?;
    PENDING
        .lock()
        .get(&t)
        .map(|w| w.timings())
        .ok_or(Error::InvalidHandle(NOT_LIVE))
}

/// Handles alive now (for leak checks).
pub fn live_pending_handles() -> usize {
    PENDING.lock().len()
}

// ---------------------------------------------------------------------------------------------
// Error messages for C-shaped callers

/// Copies `s` into a NUL-terminated `malloc` allocation the caller releases with `free` (NULL if
/// allocation fails); NUL bytes inside become spaces.
pub fn malloc_string(s: &str) -> *mut c_char {
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
