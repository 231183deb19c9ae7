//! Per-device state kept across proofs: streams, the NTT twiddle table and the `a, b, c`
//! working buffers, allocated once and reused so no proof pays for `cudaMalloc` (or the
//! device-wide synchronisation that `cudaFree` implies) on its hot path.

use blstrs::Scalar;
use once_cell::sync::OnceCell;
use parking_lot::{Mutex, MutexGuard};

use super::kernels::NttTable;
use super::runtime::{device_count, set_device, DeviceBuffer, Stream};
use crate::error::Result;

pub struct DeviceState {
    pub index: usize,
    pub compute: Stream,
    pub copy: Stream,
    pub table: Option<NttTable>,
    pub abc: Vec<DeviceBuffer<Scalar>>,
}

impl DeviceState {
    fn new(index: usize) -> Result<DeviceState> {
        set_device(index)?;
        Ok(DeviceState {
            index,
            compute: Stream::new()?,
            copy: Stream::new()?,
            table: None,
            abc: Vec::new(),
        })
    }

    /// Makes the three `a, b, c` buffers hold at least `n` elements each.
    pub fn ensure_abc(&mut self, n: usize) -> Result<()> {
        if self.abc.len() == 3 && self.abc.iter().all(|b| b.len() >= n) {
            return Ok(());
        }
        self.abc.clear(); // free the smaller ones first
        for _ in 0..3 {
            self.abc.push(DeviceBuffer::new(n)?);
        }
        Ok(())
    }
}

static DEVICES: OnceCell<Vec<Mutex<Option<DeviceState>>>> = OnceCell::new();

/// Locks the state of `device`, creating it on first use, with the device made current.
pub fn lock_device(device: usize) -> Result<MutexGuard<'static, Option<DeviceState>>> {
    let devices = DEVICES.get_or_init(|| (0..device_count()).map(|_| Mutex::new(None)).collect());
    let slot = devices.get(device).ok_or_else(|| {
        crate::Error::invalid(format!(
            "GPU {device} does not exist ({} visible)",
            devices.len()
        ))
    })?;
    let mut guard = slot.lock();
    set_device(device)?;
    if guard.is_none() {
        *guard = Some(DeviceState::new(device)?);
    }
    Ok(guard)
}
