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

/// Page-locks the SRS's queries for the rest of its life (first call only), so per-proof
/// uploads run at PCIe speed (~55 GB/s instead of ~7.6 from pageable memory).
pub fn pin_host(srs: &Srs) -> Result<()> {
    let mut pins = srs.host_pins.0.lock();
    if !pins.is_empty() {
        return Ok(());
    }
    pins.push(Box::new(PinnedRegion::new(&srs.h)?));
    pins.push(Box::new(PinnedRegion::new(&srs.l)?));
    pins.push(Box::new(PinnedRegion::new(&srs.a)?));
    pins.push(Box::new(PinnedRegion::new(&srs.b_g1)?));
    pins.push(Box::new(PinnedRegion::new(&srs.b_g2)?));
    Ok(())
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
