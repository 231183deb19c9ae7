//! Pending-proof handles as opaque tickets, not pointers.
//!
//! Hosts disagree on who frees a pending proof: Curio's fork treats `finalize` as consuming the
//! handle, while the split API also has `destroy_pending_proof`, which some hosts call after
//! `finalize`. A boxed pointer would leak in the first convention or double-free in the second.
//! So the `void*` a host holds is a never-reused ticket number into a registry: `finalize`
//! takes the work out, `destroy` drops whatever is left, and a stale, repeated or made-up
//! ticket is a clear error (or a no-op for `destroy`), never a use-after-free.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use once_cell::sync::Lazy;
use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::prover::PendingProofs;
use crate::telemetry::ProofTimings;

static NEXT_TICKET: AtomicU64 = AtomicU64::new(1);
static PENDING: Lazy<Mutex<HashMap<u64, PendingProofs>>> = Lazy::new(|| Mutex::new(HashMap::new()));

const NOT_LIVE: &str = "the pending handle is not live: it was already finalized or destroyed, or did not come from generate_groth16_proofs_start_c";

/// Stores `work` and returns its ticket as the host's handle (never NULL).
pub(crate) fn register(work: PendingProofs) -> *mut c_void {
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
pub(crate) fn take(handle: *const c_void) -> Result<PendingProofs> {
    let t = ticket(handle)?;
    PENDING
        .lock()
        .remove(&t)
        .ok_or(Error::InvalidHandle(NOT_LIVE))
}

/// The timings recorded so far for a live handle.
pub(crate) fn timings(handle: *const c_void) -> Result<ProofTimings> {
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
