//! The SRS on the device. A proof needs every query point on the GPU; uploading 24 GB per 2^26
//! proof would cost about half a second even from pinned memory, so when the device has room the
//! points stay resident between proofs and a proof uploads only its own inputs.
//!
//! `GROTH16_C2_SRS_RESIDENT`: `auto` (default: resident when the SRS and one proof's working set
//! fit in free VRAM with a margin), `1` (always), `0` (never: each proof uploads the queries it
//! needs and frees them).

use blstrs::{G1Affine, G2Affine};

use super::runtime::{memory_info, DeviceBuffer, Event, PinnedRegion, Stream};
use crate::error::Result;
use crate::srs::{Srs, WeakSrs};

/// VRAM left free beyond the estimated working set when deciding residency.
const MARGIN_BYTES: usize = 2 << 30;

/// The five queries of one SRS in device memory.
pub struct DeviceSrs {
    owner: WeakSrs,
    pub h: DeviceBuffer<G1Affine>,
    pub l: DeviceBuffer<G1Affine>,
    pub a: DeviceBuffer<G1Affine>,
    pub b_g1: DeviceBuffer<G1Affine>,
    pub b_g2: DeviceBuffer<G2Affine>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    Auto,
    Always,
    Never,
}

pub fn residency() -> Residency {
    match std::env::var("GROTH16_C2_SRS_RESIDENT").as_deref() {
        Ok("1") | Ok("always") => Residency::Always,
        Ok("0") | Ok("never") => Residency::Never,
        _ => Residency::Auto,
    }
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

/// Page-locks the SRS's queries until the SRS is freed or `release_gpu_memory` runs (first
/// call only), so uploads run at PCIe speed (~55 GB/s instead of ~7.6 from pageable memory): a
/// resident copy made again after another SRS took the device (a process proving with several
/// SRSs) costs a sixth of the time, and one uploaded per proof (`GROTH16_C2_SRS_RESIDENT=0`) is
/// not bound by the host. Page-locking the memory does not add to it: the decoded points are
/// resident already.
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

    /// Whether the SRS it holds has been freed on the host (its device copy is then useless).
    pub fn is_orphaned(&self) -> bool {
        !self.owner.is_loaded()
    }
}

/// Whether `srs` should stay on the current device, given one proof's working set in bytes
/// (any other SRS's resident copy is dropped before this is asked).
pub fn should_keep(srs: &Srs, working_bytes: usize) -> Result<bool> {
    Ok(match residency() {
        Residency::Always => true,
        Residency::Never => false,
        Residency::Auto => {
            let (free, _) = memory_info()?;
            srs_bytes(srs) + working_bytes + MARGIN_BYTES <= free
        }
    })
}
