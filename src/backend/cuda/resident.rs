//! The SRS on the device. Uploading 24 GB per 2^26 proof would cost about half a second even
//! from pinned memory, so the queries stay resident between proofs as far as the memory plan
//! allows (`crate::backend::memory_plan`): all of them ([`DeviceSrs`], under an all-resident
//! plan), or some ([`ResidentQueries`], under a streamed one, which streams the others from the
//! page-locked host copy).
//!
//! `GROTH16_C2_SRS_RESIDENT`: `auto` (default: as much as fits), `1` (all of it, or the proof
//! fails), `0` (none: every query streams).

use blstrs::{G1Affine, G2Affine};

use super::kernels;
use super::runtime::{DeviceBuffer, Event, PinnedRegion, Stream};
use crate::backend::memory_plan::{Query, QuerySet};
use crate::error::Result;
use crate::srs::{Srs, WeakSrs};

/// VRAM left free beyond the estimated working set when deciding residency.
const MARGIN_BYTES: usize = 2 << 30;

/// The five queries of one SRS in device memory.
pub struct DeviceSrs {
    owner: WeakSrs,
    /// The H query, `h_copies` times over (see [`DeviceSrs::make_h_copies`]): `h_len` points
    /// per copy.
    pub h: DeviceBuffer<G1Affine>,
    pub h_len: usize,
    /// 1, or the precomputed copies of the H query for `h_window`-bit MSM windows.
    pub h_copies: u32,
    pub h_window: u32,
    pub l: DeviceBuffer<G1Affine>,
    pub a: DeviceBuffer<G1Affine>,
    pub b_g1: DeviceBuffer<G1Affine>,
    pub b_g2: DeviceBuffer<G2Affine>,
}

pub use crate::backend::memory_plan::Residency;

pub fn residency() -> Residency {
    Residency::from_env()
}

/// Device bytes of an SRS's queries.
pub fn srs_bytes(srs: &Srs) -> usize {
    std::mem::size_of_val(&srs.h[..])
        + std::mem::size_of_val(&srs.l[..])
        + std::mem::size_of_val(&srs.a[..])
        + std::mem::size_of_val(&srs.b_g1[..])
        + std::mem::size_of_val(&srs.b_g2[..])
}

/// SRSs whose queries `pin_host` page-locked, so that `release_gpu_memory` can unlock them.
static PINNED: parking_lot::Mutex<Vec<WeakSrs>> = parking_lot::Mutex::new(Vec::new());

/// Page-locks the SRS's queries as [`pin_host`] does; when the host cannot (a locked-memory
/// limit, too little memory), says so on stderr once per process and goes on: copies from
/// pageable memory are slower (~7.6 GB/s against ~55 on PCIe 5) but the same.
pub fn pin_host_or_warn(srs: &Srs) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Err(e) = pin_host(srs) {
        if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) && !crate::telemetry::quiet() {
            eprintln!(
                "groth16-c2: could not page-lock the SRS's {:.1} GiB of points ({e}); streaming \
                 them from pageable memory, which is slower (raise the locked-memory limit, \
                 ulimit -l, to fix this)",
                srs_bytes(srs) as f64 / (1u64 << 30) as f64
            );
        }
    }
}

/// Page-locks the SRS's queries until the SRS is freed or `release_gpu_memory` runs (first
/// call only), so uploads run at PCIe speed (~55 GB/s instead of ~7.6 from pageable memory): a
/// resident copy made again after another SRS took the device (a process proving with several
/// SRSs) costs a sixth of the time, and streamed queries are not bound by the host.
/// Page-locking the memory does not add to it: the decoded points are resident already.
pub fn pin_host(srs: &Srs) -> Result<()> {
    let mut pins = srs.host_pins.0.lock();
    if !pins.is_empty() {
        return Ok(());
    }
    let regions = [
        PinnedRegion::new(&srs.h)?,
        PinnedRegion::new(&srs.l)?,
        PinnedRegion::new(&srs.a)?,
        PinnedRegion::new(&srs.b_g1)?,
        PinnedRegion::new(&srs.b_g2)?,
    ];
    pins.extend(
        regions
            .into_iter()
            .map(|r| Box::new(r) as Box<dyn std::any::Any + Send + Sync>),
    );
    let mut pinned = PINNED.lock();
    pinned.retain(WeakSrs::is_loaded);
    pinned.push(srs.downgrade());
    Ok(())
}

/// Unlocks every SRS's queries that `pin_host` page-locked. The caller makes sure no copy from
/// them is queued (it holds every device's state).
pub fn unpin_all() {
    let pinned = std::mem::take(&mut *PINNED.lock());
    for srs in pinned {
        if let Some(srs) = srs.upgrade() {
            srs.host_pins.0.lock().clear();
        }
    }
}

/// Some of an SRS's queries on the device, under a streamed plan.
pub struct ResidentQueries {
    owner: WeakSrs,
    pub set: QuerySet,
    /// By [`Query::ALL`] order; `None` for the streamed ones.
    buffers: [Option<DeviceBuffer<u8>>; 5],
}

impl ResidentQueries {
    /// Allocates and uploads `set`'s queries of `srs` on `stream`, and waits for them.
    pub fn upload(srs: &Srs, set: QuerySet, stream: &Stream) -> Result<ResidentQueries> {
        fn up<T: Copy>(v: &[T], stream: &Stream) -> Result<DeviceBuffer<u8>> {
            // SAFETY: plain-data points viewed as bytes.
            let bytes =
                unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), size_of_val(v)) };
            let mut b = DeviceBuffer::new(bytes.len())?;
            b.upload_async(bytes, stream)?;
            Ok(b)
        }
        let mut buffers: [Option<DeviceBuffer<u8>>; 5] = Default::default();
        for q in set.iter() {
            buffers[q.index()] = Some(match q {
                Query::H => up(&srs.h, stream)?,
                Query::L => up(&srs.l, stream)?,
                Query::A => up(&srs.a, stream)?,
                Query::BG1 => up(&srs.b_g1, stream)?,
                Query::BG2 => up(&srs.b_g2, stream)?,
            });
        }
        stream.synchronize()?;
        Ok(ResidentQueries {
            owner: srs.downgrade(),
            set,
            buffers,
        })
    }

    /// Whether these are `set`'s queries of `srs`.
    pub fn is(&self, srs: &Srs, set: QuerySet) -> bool {
        self.set == set && self.owner.upgrade().is_some_and(|s| s.ptr_eq(srs))
    }

    /// The device address of query `q` (null when it streams).
    pub fn ptr(&self, q: Query) -> *const std::ffi::c_void {
        self.buffers[q.index()]
            .as_ref()
            .map_or(std::ptr::null(), DeviceBuffer::as_ptr)
    }
}

impl DeviceSrs {
    /// Queues the upload of every query on `stream`; `done` is recorded after the last one.
    pub fn upload(srs: &Srs, stream: &Stream, done: &Event) -> Result<DeviceSrs> {
        fn up<T: Copy>(v: &[T], stream: &Stream) -> Result<DeviceBuffer<T>> {
            let mut b = DeviceBuffer::new(v.len())?;
            b.upload_async(v, stream)?;
            Ok(b)
        }
        let d = DeviceSrs {
            owner: srs.downgrade(),
            h: up(&srs.h, stream)?,
            h_len: srs.h.len(),
            h_copies: 1,
            h_window: 0,
            l: up(&srs.l, stream)?,
            a: up(&srs.a, stream)?,
            b_g1: up(&srs.b_g1, stream)?,
            b_g2: up(&srs.b_g2, stream)?,
        };
        done.record(stream)?;
        Ok(d)
    }

    /// Whether this is `srs` (still loaded: a new load at a reused address is another SRS).
    pub fn is_for(&self, srs: &Srs) -> bool {
        self.owner.upgrade().is_some_and(|s| s.ptr_eq(srs))
    }

    /// Device bytes it holds.
    pub fn bytes(&self) -> usize {
        self.h.len() * 96
            + (self.l.len() + self.a.len() + self.b_g1.len()) * 96
            + self.b_g2.len() * 192
    }

    /// Replaces the H query by `copies` copies of it for `window`-bit windows (copy `j` is
    /// `2^(window j)` times the points; `kernels::msm_precompute`), which its MSM then reads.
    /// Needs room for both the old and the new buffer while it runs.
    pub fn make_h_copies(&mut self, window: u32, copies: u32, stream: &Stream) -> Result<()> {
        let mut all = DeviceBuffer::<G1Affine>::new(self.h_len * copies as usize)?;
        all.copy_from_async(&self.h, stream)?;
        // SAFETY: `all` holds copies * h_len points, the first h_len copied above.
        unsafe { kernels::msm_precompute(all.as_mut_ptr(), self.h_len, window, copies, stream)? };
        // The old buffer is freed once the copy from it has run.
        stream.synchronize()?;
        self.h = all;
        self.h_copies = copies;
        self.h_window = window;
        Ok(())
    }

    /// Whether the SRS it holds has been freed on the host (its device copy is then useless).
    pub fn is_orphaned(&self) -> bool {
        !self.owner.is_loaded()
    }
}

/// How many precomputed copies of the H query its MSM may use (`GROTH16_C2_MSM_COPIES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopiesPolicy {
    /// From `COPIES_FROM_POINTS` H points up, as many as fit in free VRAM beside the SRS,
    /// this proof's working set and 2 GiB, leaving room for another prover process of the same
    /// size (its SRS and working set) where that room is there now.
    Auto,
    Never,
    /// Up to this many (2..=31), at any size, where free VRAM allows (tests, tuning).
    Most(u32),
}

pub fn copies_policy() -> CopiesPolicy {
    match std::env::var("GROTH16_C2_MSM_COPIES")
        .as_deref()
        .map(str::trim)
    {
        Ok("0") | Ok("1") | Ok("never") => CopiesPolicy::Never,
        Ok(v) => match v.parse::<u32>() {
            Ok(m) if (2..=31).contains(&m) => CopiesPolicy::Most(m),
            _ => CopiesPolicy::Auto,
        },
        Err(_) => CopiesPolicy::Auto,
    }
}

/// H points from which the copies pay by default: at 2^24 points 22-bit windows over 12
/// copies took the MSM from 124.2 to 99.4 ms on the H200 (2^26: 427.6 to 375.2; 2^27 over 6
/// copies: 822.5 to 754.0); below, their 2^21 buckets per group cost more than they save.
pub const COPIES_FROM_POINTS: usize = 1 << 23;

/// The window width and the most copies the H MSM of `h_len` points would use under `policy`
/// (None: no copies): 22 bits (12 windows) from `COPIES_FROM_POINTS` up; a forced count on
/// smaller sizes takes the width the plain MSM would (log2 n - 3, 4..=16 bits).
pub fn h_copies_shape(h_len: usize, policy: CopiesPolicy) -> Option<(u32, u32)> {
    let lg = usize::BITS - 1 - h_len.max(1).leading_zeros();
    let window = if h_len >= COPIES_FROM_POINTS {
        22
    } else {
        lg.saturating_sub(3).clamp(4, 16)
    };
    let windows = 256u32.div_ceil(window);
    let most = match policy {
        CopiesPolicy::Never => return None,
        CopiesPolicy::Auto if h_len < COPIES_FROM_POINTS => return None,
        CopiesPolicy::Auto => windows,
        CopiesPolicy::Most(m) => m.min(windows),
    };
    // Point indices over all copies stay below 2^31.
    let most = most.min((((1usize << 31) - 1) / h_len.max(1)).min(31) as u32);
    (most >= 2).then_some((window, most))
}

/// Whether `srs` should stay on the current device, given one proof's working set in bytes
/// (any other SRS's resident copy is dropped before this is asked).
pub fn should_keep(srs: &Srs, working_bytes: usize) -> Result<bool> {
    Ok(match residency() {
        Residency::Always => true,
        Residency::Never => false,
        Residency::Auto => {
            let free = super::device::available_bytes(super::runtime::current_device()?)?;
            srs_bytes(srs) + working_bytes + MARGIN_BYTES <= free
        }
    })
}
