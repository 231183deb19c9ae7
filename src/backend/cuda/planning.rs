//! Chooses a device's memory plan for an SRS (`crate::backend::memory_plan`) from the memory
//! the device has for this process, keeps it while the SRS and the settings that size it stay
//! the same, and says once on stderr what it is.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::device::{self, DeviceState, PlanKey, PlannedFor};
use super::kernels;
use crate::backend::memory_plan::{
    self, MemoryPlan, NoFit, PlanKind, PlanRequest, ProofShape, Residency, DEFAULT_BUS_BYTES_PER_S,
};
use crate::error::{Error, Result};
use crate::split::CircuitSplit;
use crate::srs::Srs;

/// The settings a plan depends on, as they are now, for circuits shaped like `first` (where the
/// G2 tail runs depends on its B query's tail; without a circuit, on the setting alone).
fn key_now(first: Option<&CircuitSplit>) -> PlanKey {
    let g2_tail_on_gpu = match first {
        Some(c) => crate::settings::g2_tail_on_gpu_for(c.b.tail_points.len(), c.b.len()),
        None => crate::settings::g2_tail_on_gpu(),
    };
    PlanKey {
        limit: crate::settings::vram_limit(),
        residency: Residency::from_env(),
        g2_tail_on_gpu,
        chunk_points: chunk_override(),
        slots: count_setting("GROTH16_C2_STREAM_SLOTS"),
        sides: count_setting("GROTH16_C2_STREAM_SIDES"),
        msm_code: kernels::configured_msm_code(),
        gather_tails: std::env::var("GROTH16_C2_STREAM_GATHER").as_deref() != Ok("0"),
        h_window: h_window_override(),
    }
}

/// `GROTH16_C2_STREAM_H_WINDOW`: the window of a streamed H MSM accumulated over its chunks,
/// 4 to 24 bits (measurements; the plan chooses otherwise).
fn h_window_override() -> Option<u32> {
    std::env::var("GROTH16_C2_STREAM_H_WINDOW")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|w| (4..=24).contains(w))
}

/// `GROTH16_C2_STREAM_CHUNK`: G1 points per streamed chunk (tests; the plan chooses otherwise).
fn chunk_override() -> Option<usize> {
    std::env::var("GROTH16_C2_STREAM_CHUNK")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
}

/// A count from 2 to 16 in the environment variable `name`: `GROTH16_C2_STREAM_SLOTS` (chunks in
/// flight) and `GROTH16_C2_STREAM_SIDES` (side buffers), for measurements; the plan chooses
/// otherwise.
fn count_setting(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|c| (2..=16).contains(c))
}

/// The request for proofs over `srs` whose tails are about `tails` entries per query (L, A, B),
/// on a device whose uploads run at `bus` bytes per second.
fn request(srs: &Srs, key: &PlanKey, tails: [usize; 3], budget: usize, bus: f64) -> PlanRequest {
    let shape = ProofShape::of(srs);
    PlanRequest {
        shape,
        budget,
        residency: key.residency,
        g2_tail_on_gpu: key.g2_tail_on_gpu,
        chunk_points: key.chunk_points,
        slots: key.slots,
        sides: key.sides,
        resident_working: memory_plan::resident_working_bytes(
            &shape,
            tails,
            key.g2_tail_on_gpu,
            key.msm_code,
        ),
        msm_code: key.msm_code,
        gather_tails: key.gather_tails,
        bus_bytes_per_s: bus,
        h_window: key.h_window,
    }
}

/// Fails at once when no plan for `srs` could fit `device` even with all its memory free
/// (within the limit): the proof could never run there.
pub fn check_fits(device: usize, srs: &Srs) -> Result<()> {
    let key = key_now(None);
    let ceiling = device::plan_ceiling(device)?;
    // Tails unknown yet: none (the all-resident path's need is checked when the proof plans).
    // Whether it fits does not depend on the bus.
    let req = request(srs, &key, [0; 3], ceiling, DEFAULT_BUS_BYTES_PER_S);
    memory_plan::plan(&req)
        .map(drop)
        .map_err(|e| no_fit(device, e, &key))
}

/// The plan for proofs over `srs` on `state`'s device, `first` being the first circuit's split
/// (its tails size the all-resident path's buffers). A new plan frees what the last one held
/// (but the NTT tables); when another process holds memory the smallest plan needs, waits for
/// it up to `GROTH16_C2_VRAM_WAIT_S`.
pub fn plan_for(state: &mut DeviceState, srs: &Srs, first: &CircuitSplit) -> Result<MemoryPlan> {
    let key = key_now(Some(first));
    if let Some(p) = &state.plan {
        if p.is_for(srs, &key) {
            return Ok(p.plan.clone());
        }
    }
    state.plan = None;
    state.arena = None;
    state.partial = None;
    state.srs = None;
    state.release_buffers();
    // The tables too (milliseconds to rebuild): the plan counts those of its own size only.
    state.table = None;
    state.coset.clear();
    // An eighth more than the first circuit's tails: the others of its SRS differ slightly.
    let tails = [&first.l, &first.a, &first.b].map(|q| {
        let t = q.tail_points.len();
        t + t / 8
    });
    let ceiling = device::plan_ceiling(state.index)?;
    let bus = super::bus::upload_bytes_per_s(state);
    let since = Instant::now();
    let plan = loop {
        let req = request(srs, &key, tails, device::plan_budget(state.index)?, bus);
        match memory_plan::plan(&req) {
            Ok(plan) => break plan,
            Err(e) if e.need <= ceiling && since.elapsed() < device::memory_wait() => {
                // Another process holds what the proof needs; it may let go.
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(no_fit(state.index, e, &key)),
        }
    };
    announce(state.index, srs, &plan);
    state.plan = Some(PlannedFor {
        srs: srs.downgrade(),
        key,
        plan: plan.clone(),
    });
    Ok(plan)
}

fn no_fit(device: usize, e: NoFit, key: &PlanKey) -> Error {
    let why = if key.limit > 0 {
        format!(
            " (GROTH16_C2_VRAM_LIMIT caps the library at {:.2} GiB)",
            device::gib(key.limit as usize)
        )
    } else {
        String::new()
    };
    let all = if key.residency == Residency::Always {
        " with the whole SRS resident (GROTH16_C2_SRS_RESIDENT=1)"
    } else {
        ""
    };
    Error::OutOfDeviceMemory(format!("GPU {device}: {e}{all}{why}"))
}

/// Plans said on stderr: (device, SRS file, what the plan keeps and streams).
static ANNOUNCED: Mutex<Vec<(usize, PathBuf, String)>> = Mutex::new(Vec::new());

/// Says what a new plan does, once per device, SRS and layout: a process proving with several
/// SRSs plans again at each switch (a device keeps one SRS's plan), and says nothing new.
fn announce(device: usize, srs: &Srs, plan: &MemoryPlan) {
    if crate::telemetry::quiet() {
        return;
    }
    let said = (device, srs.path.clone(), plan.layout().to_string());
    {
        let mut announced = ANNOUNCED.lock();
        if announced.contains(&said) {
            return;
        }
        announced.push(said);
    }
    let how = match plan.kind {
        PlanKind::AllResident => "",
        PlanKind::Streamed { .. } => " (the rest streams from page-locked host memory)",
    };
    eprintln!(
        "groth16-c2: GPU {device}, {}: {plan}{how}",
        srs.path.display()
    );
}
