//! The GPU lock: a mutex a host owns (one per GPU, shared by its workers) that covers only the
//! device section of a proof. Hosts that pass none get the library's own lock for the device.

use once_cell::sync::Lazy;
use parking_lot::Mutex;

/// A lock around one device's kernel region.
#[derive(Debug, Default)]
pub struct GpuLock(Mutex<()>);

impl GpuLock {
    pub fn new() -> GpuLock {
        GpuLock::default()
    }

    /// Takes the lock for a span that may end on another thread (several devices of one call
    /// share one hold); pair with [`release_raw`](Self::release_raw).
    pub(crate) fn acquire_raw(&self) {
        std::mem::forget(self.0.lock());
    }

    /// Ends a hold begun with [`acquire_raw`](Self::acquire_raw).
    ///
    /// # Safety
    /// This call's `acquire_raw` must be the one holding the lock, and it is released once.
    pub(crate) unsafe fn release_raw(&self) {
        self.0.force_unlock();
    }

    /// Whether some call holds the lock right now (for tests and diagnostics).
    pub fn is_held(&self) -> bool {
        self.0.is_locked()
    }
}

/// Devices the library keeps a lock for when the host passes none. The CPU backend has one.
const OWN_LOCKS: usize = 16;

static LIBRARY_LOCKS: Lazy<Vec<GpuLock>> =
    Lazy::new(|| (0..OWN_LOCKS).map(|_| GpuLock::new()).collect());

/// The library's own lock for `device`.
pub fn library_lock(device: usize) -> &'static GpuLock {
    &LIBRARY_LOCKS[device % OWN_LOCKS]
}
