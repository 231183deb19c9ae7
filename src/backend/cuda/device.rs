//! Per-device state kept across proofs: streams, the NTT twiddle table, the `a, b, c` working
//! buffers, the per-proof staging buffers and (when it fits) the SRS itself, allocated once and
//! reused so no proof pays for `cudaMalloc` (or the device-wide synchronisation that `cudaFree`
//! implies) on its hot path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use blstrs::Scalar;
use once_cell::sync::OnceCell;
use parking_lot::{Mutex, MutexGuard};

use super::kernels::{CosetTable, NttTable};
use super::resident::{DeviceSrs, ResidentQueries};
use super::runtime::{device_count, memory_info, set_device, vram_held, DeviceBuffer, Stream};
use crate::backend::memory_plan::MemoryPlan;
use crate::error::{Error, Result};
use crate::srs::{Srs, WeakSrs};

pub struct DeviceState {
    pub index: usize,
    pub compute: Stream,
    pub copy: Stream,
    /// A streamed section's per-circuit slices (bitmaps, tails), apart from the points.
    pub side: Stream,
    pub table: Option<NttTable>,
    /// The H step's coset tables, one per domain size seen that folds them.
    pub coset: Vec<CosetTable>,
    pub abc: Vec<DeviceBuffer<Scalar>>,
    pub scratch: Scratch,
    /// The SRS kept on this device between proofs (one at a time), under an all-resident plan.
    pub srs: Option<DeviceSrs>,
    /// The memory plan in force, and what it was made for.
    pub plan: Option<PlannedFor>,
    /// Under a streamed plan: the queries it keeps resident, and its working memory.
    pub partial: Option<ResidentQueries>,
    pub arena: Option<DeviceBuffer<u8>>,
}

/// A memory plan and what it was made for: one SRS, and the settings that size it.
pub struct PlannedFor {
    pub srs: WeakSrs,
    pub key: PlanKey,
    pub plan: MemoryPlan,
}

/// The settings a plan depends on besides the SRS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanKey {
    pub limit: u64,
    pub residency: crate::backend::memory_plan::Residency,
    pub g2_tail_on_gpu: bool,
    pub chunk_points: Option<usize>,
    pub slots: Option<usize>,
    pub sides: Option<usize>,
    pub msm_code: i32,
    pub gather_tails: bool,
    pub h_window: Option<u32>,
}

impl PlannedFor {
    /// Whether this is the plan for `srs` under `key`.
    pub fn is_for(&self, srs: &Srs, key: &PlanKey) -> bool {
        self.key == *key && self.srs.upgrade().is_some_and(|s| s.ptr_eq(srs))
    }
}

/// Circuits whose device section ran on each device, for reports and multi-GPU tests.
static CIRCUITS_PROVED: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];

/// How many circuits' device sections have completed on `device` in this process.
pub fn circuits_proved(device: usize) -> u64 {
    CIRCUITS_PROVED
        .get(device)
        .map_or(0, |c| c.load(Ordering::Relaxed))
}

pub(crate) fn count_circuit(device: usize) {
    if let Some(c) = CIRCUITS_PROVED.get(device) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// Buffers of one proof's stages after H, grown on demand and reused.
#[derive(Default)]
pub struct Scratch {
    pub workspace: Option<DeviceBuffer<u8>>,
    pub results: Option<DeviceBuffer<u8>>,
    /// L, A, B bitmaps of the points whose scalar is 1.
    pub bitmaps: [Option<DeviceBuffer<u64>>; 3],
    /// L, A, B tail point indices and canonical scalars.
    pub tail_index: [Option<DeviceBuffer<u32>>; 3],
    pub tail_scalars: [Option<DeviceBuffer<[u8; 32]>>; 3],
}

/// Makes `slot` hold a buffer of at least `n` elements (at least one). A new buffer gets an
/// eighth more than asked: partitions of one size differ slightly in their tail counts, and
/// regrowing for each new maximum would put `cudaFree` (a device-wide synchronisation) and
/// `cudaMalloc` inside the lock again and again.
pub fn grow<T: Copy>(slot: &mut Option<DeviceBuffer<T>>, n: usize) -> Result<&mut DeviceBuffer<T>> {
    let n = n.max(1);
    if slot.as_ref().is_none_or(|b| b.len() < n) {
        *slot = None; // free the smaller one first
        *slot = Some(DeviceBuffer::new(n.saturating_add(n / 8))?);
    }
    Ok(slot.as_mut().expect("just filled"))
}

impl DeviceState {
    fn new(index: usize) -> Result<DeviceState> {
        super::probe::check_device(index)?;
        set_device(index)?;
        Ok(DeviceState {
            index,
            compute: Stream::new()?,
            copy: Stream::new()?,
            side: Stream::new()?,
            table: None,
            coset: Vec::new(),
            abc: Vec::new(),
            scratch: Scratch::default(),
            srs: None,
            plan: None,
            partial: None,
            arena: None,
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

    /// Device bytes held by the reusable working buffers (not the SRS).
    pub fn buffer_bytes(&self) -> usize {
        let s = &self.scratch;
        let opt = |b: &Option<DeviceBuffer<u8>>| b.as_ref().map_or(0, DeviceBuffer::bytes);
        self.abc.iter().map(DeviceBuffer::bytes).sum::<usize>()
            + opt(&s.workspace)
            + opt(&s.results)
            + s.bitmaps
                .iter()
                .flatten()
                .map(DeviceBuffer::bytes)
                .sum::<usize>()
            + s.tail_index
                .iter()
                .flatten()
                .map(DeviceBuffer::bytes)
                .sum::<usize>()
            + s.tail_scalars
                .iter()
                .flatten()
                .map(DeviceBuffer::bytes)
                .sum::<usize>()
    }

    /// Frees every buffer that the next proof can rebuild (after an allocation failure, so a
    /// retry starts from an empty device rather than a fragmented one).
    pub fn release_buffers(&mut self) {
        if let Some(t) = &mut self.table {
            t.drop_top();
        }
        self.abc.clear();
        self.scratch = Scratch::default();
    }
}

/// Free VRAM kept beyond a proof's estimated allocations (the NTT table, allocator slack).
pub const HEADROOM_BYTES: usize = 512 << 20;

/// Device bytes this process may still take on `device` now: its free memory, within the
/// host's limit (`GROTH16_C2_VRAM_LIMIT`) on what the library holds there.
pub fn available_bytes(device: usize) -> Result<usize> {
    let (free, _) = memory_info()?;
    Ok(within_limit(free, device))
}

fn within_limit(free: usize, device: usize) -> usize {
    match crate::settings::vram_limit() as usize {
        0 => free,
        limit => free.min(limit.saturating_sub(vram_held(device))),
    }
}

/// The device memory a plan on `device` may use: what this process holds there and what is
/// free, less the headroom, within the limit.
pub fn plan_budget(device: usize) -> Result<usize> {
    let (free, _) = memory_info()?;
    let room = (free + vram_held(device)).saturating_sub(HEADROOM_BYTES);
    Ok(match crate::settings::vram_limit() as usize {
        0 => room,
        limit => room.min(limit),
    })
}

/// The most device memory a plan on `device` could ever have: the card's memory less the
/// headroom, within the limit.
pub fn plan_ceiling(device: usize) -> Result<usize> {
    let _ = device;
    let (_, total) = memory_info()?;
    let most = total.saturating_sub(HEADROOM_BYTES);
    Ok(match crate::settings::vram_limit() as usize {
        0 => most,
        limit => most.min(limit),
    })
}

/// How long a proof waits for device memory before failing (`GROTH16_C2_VRAM_WAIT_S`).
fn memory_wait_limit() -> Duration {
    let secs = std::env::var("GROTH16_C2_VRAM_WAIT_S")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(600.0);
    Duration::from_secs_f64(secs)
}

/// Waits until the current device can hold `more` bytes beyond what this process already has
/// there: another process (or another library in this one) may be using VRAM for a while, and
/// waiting for it costs less than failing a proof. A request that can never fit fails at once.
pub fn wait_for_memory(more: usize) -> Result<()> {
    if more == 0 {
        return Ok(());
    }
    let device = super::runtime::current_device()?;
    let (free, total) = memory_info()?;
    let mut free = within_limit(free, device);
    let need = more + HEADROOM_BYTES;
    if need > total {
        return Err(Error::OutOfDeviceMemory(format!(
            "a proof needs {:.1} GiB more device memory than the GPU's {:.1} GiB allow",
            gib(need),
            gib(total)
        )));
    }
    let limit = crate::settings::vram_limit() as usize;
    if limit > 0 && more + vram_held(device) > limit {
        return Err(Error::OutOfDeviceMemory(format!(
            "a proof needs {:.1} GiB more device memory, past the limit of {:.1} GiB \
             (GROTH16_C2_VRAM_LIMIT)",
            gib(more),
            gib(limit)
        )));
    }
    let limit = memory_wait_limit();
    let since = Instant::now();
    while free < need {
        if since.elapsed() >= limit {
            return Err(Error::OutOfDeviceMemory(format!(
                "waited {:.0} s for {:.1} GiB of device memory; {:.1} GiB of {:.1} GiB are free \
                 (raise GROTH16_C2_VRAM_WAIT_S to wait longer)",
                limit.as_secs_f64(),
                gib(need),
                gib(free),
                gib(total)
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
        free = within_limit(memory_info()?.0, device);
    }
    Ok(())
}

/// How long a proof waits for device memory another process holds (`GROTH16_C2_VRAM_WAIT_S`).
pub fn memory_wait() -> Duration {
    memory_wait_limit()
}

pub fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Drops every device's buffers and resident SRS (waiting for proofs running on them) and
/// unlocks the SRSs' page-locked host memory, so the process's device memory and page-locked
/// memory go back to what they were before the first proof.
pub fn release_all() {
    super::staging::release_free();
    // Every device's state stays locked until the SRSs are unpinned: no section (and so no
    // upload from their pages) runs meanwhile.
    let mut held = Vec::new();
    if let Some(devices) = DEVICES.get() {
        for (index, slot) in devices.iter().enumerate() {
            let mut state = slot.lock();
            if state.is_some() && set_device(index).is_ok() {
                *state = None;
            }
            held.push(state);
        }
    }
    super::resident::unpin_all();
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
