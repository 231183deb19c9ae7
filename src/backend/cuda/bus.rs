//! The host-to-device bandwidth a device's memory plan assumes: measured once per device (a
//! copy from page-locked memory), so that a card on PCIe 5 (about 55 GB/s), where a streamed
//! proof is bound by its kernels, plans differently from one on PCIe 4 (about 25 GB/s), where
//! every byte kept resident saves time.

use std::sync::atomic::{AtomicU64, Ordering};

use super::device::DeviceState;
use super::runtime::{upload_raw, DeviceBuffer, Event, HostBuffer};
use crate::backend::memory_plan::DEFAULT_BUS_BYTES_PER_S;
use crate::error::Result;

/// Bytes copied for the measurement (after one copy of the same that warms the path up).
const PROBE_BYTES: usize = 64 << 20;

/// Measured bandwidth per device, as f64 bits (0: not yet).
static MEASURED: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];

/// Host-to-device bytes per second for `state`'s device: `GROTH16_C2_BUS_GBPS` when set, else
/// measured at the first call (a few milliseconds) and kept; the model's default where the
/// measurement cannot run (no page-locked memory, no device memory to spare).
pub fn upload_bytes_per_s(state: &DeviceState) -> f64 {
    if let Some(gbps) = setting() {
        return gbps * 1e9;
    }
    let cell = &MEASURED[state.index.min(MEASURED.len() - 1)];
    match f64::from_bits(cell.load(Ordering::Relaxed)) {
        b if b > 0.0 => b,
        _ => {
            let b = measure(state)
                .ok()
                .filter(|b| b.is_finite())
                .map_or(DEFAULT_BUS_BYTES_PER_S, |b| b.clamp(2e9, 200e9));
            cell.store(b.to_bits(), Ordering::Relaxed);
            b
        }
    }
}

/// `GROTH16_C2_BUS_GBPS`: the bandwidth to plan with, in GB/s (measurements, or a bus the
/// probe misjudges).
fn setting() -> Option<f64> {
    std::env::var("GROTH16_C2_BUS_GBPS")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|g| *g > 0.0 && g.is_finite())
}

fn measure(state: &DeviceState) -> Result<f64> {
    let host = HostBuffer::new(PROBE_BYTES)?;
    let mut dev = DeviceBuffer::<u8>::new(PROBE_BYTES)?;
    let (start, end) = (Event::timing()?, Event::timing()?);
    let stream = &state.copy;
    // SAFETY: both buffers hold PROBE_BYTES; the stream is synchronised before they go.
    unsafe {
        upload_raw(dev.as_mut_ptr(), host.as_ptr(), PROBE_BYTES, stream)?;
        start.record(stream)?;
        upload_raw(dev.as_mut_ptr(), host.as_ptr(), PROBE_BYTES, stream)?;
        end.record(stream)?;
    }
    stream.synchronize()?;
    let ms = end.elapsed_ms(&start)?;
    Ok(PROBE_BYTES as f64 / (ms / 1e3))
}
