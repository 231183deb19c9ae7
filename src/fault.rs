//! Fault injection, for tests only: makes one chosen pass through a named site of the device
//! path fail (an error where the real call returns one, a panic where a worker could panic), so
//! tests can show that every such failure reaches the caller as an error, releases the lock and
//! leaks nothing. Nothing in the library arms it; disarmed, each site costs one relaxed load.
//!
//! A test arms one site with the number of passes to let through first, runs a call, then
//! disarms and reads how many passes the site saw: raising the count until the fault no longer
//! fires walks every pass of the call (every allocation, every launch, every copy).

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

/// A place on the device path where a fault can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// A device allocation (`cudaMalloc`).
    DeviceAlloc,
    /// A page-locked host allocation or registration (`cudaHostAlloc`, `cudaHostRegister`).
    HostAlloc,
    /// A kernel launcher's status (the kernels are queued; the launcher reports a failure).
    KernelLaunch,
    /// An asynchronous copy or memset on a stream.
    Copy,
    /// A panic in the middle of a circuit's device section (on the CUDA backend, with uploads
    /// and kernels in flight).
    DeviceSectionPanic,
}

impl Site {
    pub const ALL: [Site; 5] = [
        Site::DeviceAlloc,
        Site::HostAlloc,
        Site::KernelLaunch,
        Site::Copy,
        Site::DeviceSectionPanic,
    ];
}

/// What an armed site saw between [`arm`] and [`disarm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// Passes through the armed site.
    pub passes: u64,
    /// Whether the fault fired (a pass beyond the ones let through).
    pub fired: bool,
}

struct Plan {
    site: Site,
    let_through: u64,
    passes: u64,
    fired: bool,
}

static ARMED: AtomicBool = AtomicBool::new(false);
static PLAN: Mutex<Option<Plan>> = Mutex::new(None);

/// Arms `site`: its first `let_through` passes succeed, the next one fails, later ones succeed.
/// One site at a time; arming again replaces the plan.
pub fn arm(site: Site, let_through: u64) {
    *PLAN.lock() = Some(Plan {
        site,
        let_through,
        passes: 0,
        fired: false,
    });
    ARMED.store(true, Ordering::SeqCst);
}

/// Disarms, returning what the armed site saw (`None` if nothing was armed).
pub fn disarm() -> Option<Report> {
    ARMED.store(false, Ordering::SeqCst);
    PLAN.lock().take().map(|p| Report {
        passes: p.passes,
        fired: p.fired,
    })
}

/// Counts a pass through `site`; true when this pass is the one to fail (the library's sites
/// call it).
pub fn strikes(site: Site) -> bool {
    if !ARMED.load(Ordering::Relaxed) {
        return false;
    }
    let mut plan = PLAN.lock();
    let Some(p) = plan.as_mut().filter(|p| p.site == site) else {
        return false;
    };
    p.passes += 1;
    let strike = !p.fired && p.passes > p.let_through;
    p.fired |= strike;
    strike
}

/// Panics here when the armed site is [`Site::DeviceSectionPanic`] and this pass is the one.
pub(crate) fn panic_point() {
    if strikes(Site::DeviceSectionPanic) {
        panic!("injected fault: a panic inside the device section");
    }
}
