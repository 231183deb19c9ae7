//! The Groth16 prover as plain stages over plain data:
//! check → 0/1 split → (lock) H + batch additions + G1 tail MSMs (unlock) → G2 tail MSM → epilogue.
//!
//! `start` runs everything up to the end of the device section and returns a [`PendingProofs`]
//! that owns what is left, so the lock is free for the next worker while this one finishes on
//! the CPU. `finalize` runs the G2 tail MSM and the epilogue.

mod epilogue;
pub mod split;

use std::time::Instant;

use blst::blst_scalar;
use blstrs::{G1Affine, G2Affine, G2Projective, Scalar};
use group::prime::PrimeCurveAffine;

use crate::assignment::Witness;
use crate::backend::{default_backend, Backend, DeviceResults};
use crate::error::{Error, Result};
use crate::lock::{library_lock, GpuLock};
use crate::srs::Srs;
use crate::telemetry::{self, ms, LockSpan, ProofTimings};
use split::{split_circuit, CircuitSplit};

/// A Groth16 proof, laid out as supraseal-c2's `groth16_proof` (384 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

/// Where a call runs and which lock guards its device section.
#[derive(Clone, Copy, Default)]
pub struct ProveOptions<'l> {
    /// The caller's lock; `None` uses the library's own lock for the device.
    pub lock: Option<&'l GpuLock>,
    /// `>= 0` pins the call to that GPU, `-1` lets it spread over GPUs. The CPU backend has a
    /// single device and accepts both.
    pub gpu_index: i32,
    /// The backend; `None` is the process default ([`default_backend`]).
    pub backend: Option<&'static dyn Backend>,
}

impl std::fmt::Debug for ProveOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProveOptions")
            .field("lock", &self.lock)
            .field("gpu_index", &self.gpu_index)
            .field("backend", &self.backend.map(|b| b.name()))
            .finish()
    }
}

/// What `finalize` still needs for one circuit.
#[derive(Debug)]
struct CircuitTail {
    device: DeviceResults,
    b_g2_tail_points: Vec<u32>,
    b_g2_tail_scalars: Vec<blst_scalar>,
    r: Scalar,
    s: Scalar,
}

/// Proofs whose device section is done; owns everything needed to finish them.
pub struct PendingProofs {
    backend: &'static dyn Backend,
    srs: Srs,
    circuits: Vec<CircuitTail>,
    timings: ProofTimings,
    lock_span: LockSpan,
    started: Instant,
}

/// Proves a batch of circuits in one call.
pub fn prove(
    srs: &Srs,
    witnesses: &[Witness],
    r_s: &[Scalar],
    s_s: &[Scalar],
) -> Result<Vec<Proof>> {
    start(srs, witnesses, r_s, s_s, ProveOptions::default())?.finalize()
}

/// Runs a batch up to the end of its device section.
pub fn start(
    srs: &Srs,
    witnesses: &[Witness],
    r_s: &[Scalar],
    s_s: &[Scalar],
    options: ProveOptions,
) -> Result<PendingProofs> {
    let started = Instant::now();
    let backend = options.backend.unwrap_or_else(default_backend);
    check_request(srs, witnesses, r_s, s_s, options)?;
    let mut timings = ProofTimings {
        num_circuits: witnesses.len(),
        ..ProofTimings::default()
    };

    let t = Instant::now();
    let splits: Vec<CircuitSplit> = witnesses.iter().map(split_circuit).collect();
    timings.split_vectors_ms = ms(t.elapsed());

    let devices = plan_devices(backend, witnesses.len(), options.gpu_index)?;
    let lock = options.lock.unwrap_or_else(|| library_lock(devices[0]));
    let t = Instant::now();
    let guard = lock.lock();
    let acquired = Instant::now();
    timings.mutex_wait_ms = ms(acquired - t);
    let device = device_section(backend, srs, witnesses, &splits, &devices, &mut timings);
    // Stamped before the unlock: a waiting worker may take the lock (and stamp its
    // `acquired`) the moment it is released, and the spans must not overlap.
    let released = Instant::now();
    drop(guard);
    timings.gpu_total_ms = ms(released - acquired);
    let device = device?;

    let circuits = device
        .into_iter()
        .zip(splits)
        .zip(r_s.iter().zip(s_s))
        .map(|((device, split), (&r, &s))| {
            // Keep the G2 tail only if the device section left it to finalize.
            let (b_g2_tail_points, b_g2_tail_scalars) = if device.b_g2_tail_done {
                (Vec::new(), Vec::new())
            } else {
                (split.b.tail_points, split.b.tail_scalars)
            };
            CircuitTail {
                device,
                b_g2_tail_points,
                b_g2_tail_scalars,
                r,
                s,
            }
        })
        .collect();
    Ok(PendingProofs {
        backend,
        srs: srs.clone(),
        circuits,
        timings,
        lock_span: LockSpan { acquired, released },
        started,
    })
}

fn check_request(
    srs: &Srs,
    witnesses: &[Witness],
    r_s: &[Scalar],
    s_s: &[Scalar],
    options: ProveOptions,
) -> Result<()> {
    if witnesses.is_empty() {
        return Err(Error::invalid(
            "num_circuits is 0; there is nothing to prove",
        ));
    }
    if r_s.len() != witnesses.len() || s_s.len() != witnesses.len() {
        return Err(Error::invalid(format!(
            "{} circuits but {} r values and {} s values",
            witnesses.len(),
            r_s.len(),
            s_s.len()
        )));
    }
    if options.gpu_index < -1 {
        return Err(Error::invalid(format!(
            "gpu_index {} is neither a device index (>= 0) nor -1 (any)",
            options.gpu_index
        )));
    }
    if bool::from(srs.vk.delta_g1.is_identity()) || bool::from(srs.vk.delta_g2.is_identity()) {
        return Err(Error::UnusableSrs(
            "delta is the identity, which would let anyone forge proofs",
        ));
    }
    for (i, w) in witnesses.iter().enumerate() {
        w.check_against(srs, i)?;
    }
    Ok(())
}

/// The device each circuit runs on: `gpu_index >= 0` pins them all to that device, `-1`
/// spreads them round-robin over `min(devices, circuits)` devices.
fn plan_devices(backend: &dyn Backend, circuits: usize, gpu_index: i32) -> Result<Vec<usize>> {
    let count = backend.device_count().max(1);
    if gpu_index >= 0 {
        let index = gpu_index as usize;
        if index < count {
            return Ok(vec![index; circuits]);
        }
        if backend.name() == "cpu" {
            // The CPU is one device whatever index a GPU-minded host passes.
            return Ok(vec![0; circuits]);
        }
        return Err(Error::invalid(format!(
            "gpu_index {gpu_index}: there is no such GPU ({count} visible)"
        )));
    }
    let spread = count.min(circuits).max(1);
    Ok((0..circuits).map(|i| i % spread).collect())
}

/// Device results tagged with their circuit's position in the batch.
type IndexedResults = Vec<(usize, DeviceResults)>;

/// Everything that runs under the device lock: each device proves its circuits in order, and
/// several devices run at once (one host thread each).
fn device_section(
    backend: &dyn Backend,
    srs: &Srs,
    witnesses: &[Witness],
    splits: &[CircuitSplit],
    devices: &[usize],
    timings: &mut ProofTimings,
) -> Result<Vec<DeviceResults>> {
    let mut used: Vec<usize> = devices.to_vec();
    used.sort_unstable();
    used.dedup();
    let run_device =
        |device: usize, timings: &mut ProofTimings| -> Result<Vec<(usize, DeviceResults)>> {
            let mut out = Vec::new();
            for (i, (w, split)) in witnesses.iter().zip(splits).enumerate() {
                if devices[i] == device {
                    out.push((i, backend.device_section(device, srs, w, split, timings)?));
                }
            }
            Ok(out)
        };
    let mut results: Vec<Option<DeviceResults>> = vec![None; witnesses.len()];
    if used.len() == 1 {
        for (i, r) in run_device(used[0], timings)? {
            results[i] = Some(r);
        }
    } else {
        let per_device: Vec<(Result<IndexedResults>, ProofTimings)> = std::thread::scope(|scope| {
            let handles: Vec<_> = used
                .iter()
                .map(|&device| {
                    scope.spawn(move || {
                        let mut t = ProofTimings::default();
                        (run_device(device, &mut t), t)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for (r, t) in per_device {
            // Devices run side by side: a stage took as long as its slowest device.
            timings.ntt_msm_h_ms = timings.ntt_msm_h_ms.max(t.ntt_msm_h_ms);
            timings.batch_add_ms = timings.batch_add_ms.max(t.batch_add_ms);
            timings.tail_msm_ms = timings.tail_msm_ms.max(t.tail_msm_ms);
            timings.b_g2_msm_ms = timings.b_g2_msm_ms.max(t.b_g2_msm_ms);
            timings.prep_msm_ms = timings.prep_msm_ms.max(t.prep_msm_ms);
            for (i, d) in r? {
                results[i] = Some(d);
            }
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("every circuit has a device"))
        .collect())
}

impl std::fmt::Debug for PendingProofs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingProofs")
            .field("backend", &self.backend.name())
            .field("circuits", &self.circuits.len())
            .field("timings", &self.timings)
            .finish_non_exhaustive()
    }
}

impl PendingProofs {
    /// Runs the G2 tail MSMs and the epilogue.
    pub fn finalize(self) -> Result<Vec<Proof>> {
        self.finalize_timed().map(|(proofs, _)| proofs)
    }

    /// As [`finalize`](Self::finalize), also returning the call's complete stage timings.
    pub fn finalize_timed(self) -> Result<(Vec<Proof>, ProofTimings)> {
        let backend = self.backend;
        let mut timings = self.timings;
        let t = Instant::now();
        let mut tails_here = false;
        let b_g2: Vec<G2Projective> = self
            .circuits
            .iter()
            .map(|c| {
                if c.device.b_g2_tail_done {
                    return Ok(c.device.b_g2);
                }
                tails_here = true;
                let tail =
                    backend.g2_msm(&self.srs.b_g2, &c.b_g2_tail_points, &c.b_g2_tail_scalars)?;
                Ok(c.device.b_g2 + tail)
            })
            .collect::<Result<_>>()?;
        if tails_here {
            timings.b_g2_msm_ms = ms(t.elapsed());
        }

        let t = Instant::now();
        let proofs = self
            .circuits
            .iter()
            .zip(b_g2)
            .map(|(c, b_g2)| {
                epilogue::assemble(
                    &self.srs.vk,
                    &epilogue::Answers {
                        h: c.device.h,
                        l: c.device.l,
                        a: c.device.a,
                        b_g1: c.device.b_g1,
                        b_g2,
                    },
                    c.r,
                    c.s,
                )
            })
            .collect();
        timings.epilogue_ms = ms(t.elapsed());
        timings.total_ms = ms(self.started.elapsed());
        telemetry::record(timings);
        Ok((proofs, timings))
    }

    /// Stage timings so far (`b_g2_msm_ms`, `epilogue_ms` and `total_ms` are filled by finalize).
    pub fn timings(&self) -> ProofTimings {
        self.timings
    }

    /// When the device lock was held.
    pub fn lock_span(&self) -> LockSpan {
        self.lock_span
    }

    /// Circuits in this batch.
    pub fn len(&self) -> usize {
        self.circuits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.circuits.is_empty()
    }
}
