//! The GPU lock: a mutex a host owns (one per GPU, shared by its workers) that covers only the
//! device section of a proof. Hosts that pass none get the library's own lock for the device.

use once_cell::sync::Lazy;
use parking_lot::{Mutex, MutexGuard};

/// A lock around one device's kernel region.
#[derive(Debug, Default)]
pub struct GpuLock(Mutex<()>);

impl GpuLock {
    pub fn new() -> GpuLock {
        GpuLock::default()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.0.lock()
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
