//! The Groth16 prover as plain stages over plain data:
//! check → 0/1 split → (lock) H + batch additions + G1 tail MSMs (unlock) → G2 tail MSM → epilogue.
//!
//! `start` runs everything up to the end of the device section and returns a [`PendingProofs`]
//! that owns what is left, so the lock is free for the next worker while this one finishes on
//! the CPU. `finalize` runs the G2 tail MSM and the epilogue.

mod epilogue;
pub mod split;

use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use blst::blst_scalar;
use blstrs::{G1Affine, G2Affine, G2Projective, Scalar};
use group::prime::PrimeCurveAffine;

use crate::assignment::Witness;
use crate::backend::cpu::CpuBackend;
use crate::backend::{default_backend, Backend, DeviceResults, HostPrep};
use crate::error::{Error, Result};
use crate::lock::{library_lock, GpuLock};
use crate::settings;
use crate::srs::Srs;
use crate::telemetry::{self, ms, unix_ns, LockSpan, ProofTimings};
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
    /// `>= 0` pins the call to that GPU; a negative value (`-1`) lets it spread over GPUs. The
    /// CPU backend has a single device and accepts any value.
    pub gpu_index: i32,
    /// The backend; `None` is the process default ([`default_backend`]).
    pub backend: Option<&'static dyn Backend>,
    /// Check each proof with the verifying key before returning it; `None` follows
    /// [`settings::verify_proofs`](crate::settings::verify_proofs) (on by default).
    pub verify: Option<bool>,
}

impl std::fmt::Debug for ProveOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProveOptions")
            .field("lock", &self.lock)
            .field("gpu_index", &self.gpu_index)
            .field("backend", &self.backend.map(|b| b.name()))
            .field("verify", &self.verify)
            .finish()
    }
}

/// What `finalize` still needs for one circuit.
#[derive(Debug)]
struct CircuitTail {
    device: DeviceResults,
    /// Public inputs without the constant ONE, for the check before the proof is returned.
    public_inputs: Vec<Scalar>,
    r: Scalar,
    s: Scalar,
}

/// The G2 tail MSMs of a batch, running on the prover's pool after the lock was released.
type G2Tails = mpsc::Receiver<Result<(Vec<Option<G2Projective>>, f64)>>;

/// Proofs whose device section is done; owns everything needed to finish them.
pub struct PendingProofs {
    srs: Srs,
    circuits: Vec<CircuitTail>,
    g2_tails: Option<G2Tails>,
    verify: bool,
    backend: &'static dyn Backend,
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

/// Runs a batch up to the release of the GPU lock: the 0/1 split and the backend's host
/// preparation before the lock, only the device section under it. The G2 tail MSMs that the
/// device left to the CPU start on the prover's pool as the lock is released; `finalize` joins
/// them.
pub fn start(
    srs: &Srs,
    witnesses: &[Witness],
    r_s: &[Scalar],
    s_s: &[Scalar],
    options: ProveOptions,
) -> Result<PendingProofs> {
    let result = start_batch(srs, witnesses, r_s, s_s, options);
    if result.is_err() {
        telemetry::count_failed_call();
    }
    result
}

fn start_batch(
    srs: &Srs,
    witnesses: &[Witness],
    r_s: &[Scalar],
    s_s: &[Scalar],
    options: ProveOptions,
) -> Result<PendingProofs> {
    let started = Instant::now();
    let start_unix_ns = unix_ns(SystemTime::now());
    let backend = options.backend.unwrap_or_else(default_backend);
    crate::backend::announce(backend);
    let pool = settings::pool();
    check_request(srs, witnesses, r_s, s_s)?;
    let devices = plan_devices(backend, witnesses.len(), options.gpu_index)?;
    let mut timings = ProofTimings {
        num_circuits: witnesses.len(),
        gpu_index: devices[0] as i32,
        start_unix_ns,
        ..ProofTimings::default()
    };

    // CPU preparation, before the lock.
    let t = Instant::now();
    let splits: Vec<CircuitSplit> = pool.install(|| witnesses.iter().map(split_circuit).collect());
    timings.split_vectors_ms = ms(t.elapsed());
    let t = Instant::now();
    let host_prep = backend.prepare_host(witnesses, &splits, &devices)?;
    timings.prep_msm_ms = ms(t.elapsed());

    // The device section, under the lock. The lock is taken on this (host) thread and never
    // inside a pool task, so work stealing cannot nest one worker's wait inside another's hold.
    let lock = options.lock.unwrap_or_else(|| library_lock(devices[0]));
    let t = Instant::now();
    let guard = lock.lock();
    let acquired = Instant::now();
    timings.lock_acquired_unix_ns = unix_ns(SystemTime::now());
    timings.mutex_wait_ms = ms(acquired - t);
    let device = device_section(
        backend,
        srs,
        witnesses,
        &splits,
        &host_prep,
        &devices,
        &mut timings,
    );
    // Stamped before the unlock: a waiting worker may take the lock (and stamp its
    // `acquired`) the moment it is released, and the spans must not overlap.
    timings.lock_released_unix_ns = unix_ns(SystemTime::now());
    let released = Instant::now();
    drop(guard);
    // Staging buffers go back to their pool after the lock.
    drop(host_prep);
    timings.gpu_total_ms = ms(released - acquired);
    let device = device?;

    let g2_tails = spawn_g2_tails(&pool, srs, &device, splits);
    let circuits = device
        .into_iter()
        .zip(witnesses)
        .zip(r_s.iter().zip(s_s))
        .map(|((device, w), (&r, &s))| CircuitTail {
            device,
            public_inputs: w.inputs.get(1..).unwrap_or_default().to_vec(),
            r,
            s,
        })
        .collect();
    Ok(PendingProofs {
        srs: srs.clone(),
        circuits,
        g2_tails,
        verify: options.verify.unwrap_or_else(settings::verify_proofs),
        backend,
        timings,
        lock_span: LockSpan { acquired, released },
        started,
    })
}

/// Starts the G2 tail MSMs the device section left to the CPU (none when it ran them).
fn spawn_g2_tails(
    pool: &rayon::ThreadPool,
    srs: &Srs,
    device: &[DeviceResults],
    splits: Vec<CircuitSplit>,
) -> Option<G2Tails> {
    if device.iter().all(|d| d.b_g2_tail_done) {
        return None;
    }
    let work: Vec<Option<(Vec<u32>, Vec<blst_scalar>)>> = device
        .iter()
        .zip(splits)
        .map(|(d, split)| {
            (!d.b_g2_tail_done).then_some((split.b.tail_points, split.b.tail_scalars))
        })
        .collect();
    let srs = srs.clone();
    let (send, receive) = mpsc::sync_channel(1);
    pool.spawn(move || {
        let t = Instant::now();
        // The host's synthesis threads back off while it runs (Curio's cuzk defines the hook).
        let _throttle = crate::host_hooks::MembwThrottle::engage();
        let run = || -> Result<Vec<Option<G2Projective>>> {
            work.iter()
                .map(|w| {
                    w.as_ref()
                        .map(|(points, scalars)| CpuBackend.g2_msm(&srs.b_g2, points, scalars))
                        .transpose()
                })
                .collect()
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
            .unwrap_or_else(|p| Err(Error::Panic(crate::error::panic_message(p))))
            .map(|tails| (tails, ms(t.elapsed())));
        drop(_throttle);
        // The receiver is gone when the host destroyed the pending proof: nothing to deliver.
        let _ = send.send(result);
    });
    Some(receive)
}

fn check_request(srs: &Srs, witnesses: &[Witness], r_s: &[Scalar], s_s: &[Scalar]) -> Result<()> {
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

/// The device each circuit runs on: `gpu_index >= 0` pins them all to that device, a negative
/// one (`-1`, as Curio's fork treats any negative index) spreads them round-robin over
/// `min(devices, circuits)` devices.
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
#[allow(clippy::too_many_arguments)]
fn device_section(
    backend: &dyn Backend,
    srs: &Srs,
    witnesses: &[Witness],
    splits: &[CircuitSplit],
    host_prep: &HostPrep,
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
                    let prep = host_prep.get(i);
                    out.push((
                        i,
                        backend.device_section(device, srs, w, split, prep, timings)?,
                    ));
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
            .field("circuits", &self.circuits.len())
            .field("timings", &self.timings)
            .finish_non_exhaustive()
    }
}

impl PendingProofs {
    /// Joins the G2 tail MSMs, assembles the proofs and (unless turned off) checks each one.
    pub fn finalize(self) -> Result<Vec<Proof>> {
        self.finalize_timed().map(|(proofs, _)| proofs)
    }

    /// As [`finalize`](Self::finalize), also returning the call's complete stage timings.
    pub fn finalize_timed(self) -> Result<(Vec<Proof>, ProofTimings)> {
        let result = self.finish();
        if result.is_err() {
            telemetry::count_failed_call();
        }
        result
    }

    fn finish(self) -> Result<(Vec<Proof>, ProofTimings)> {
        let mut timings = self.timings;
        let tails = match &self.g2_tails {
            Some(receive) => {
                let (tails, tail_ms) = receive.recv().map_err(|_| {
                    Error::Panic("the G2 tail MSM task ended without a result".into())
                })??;
                timings.b_g2_msm_ms += tail_ms;
                tails
            }
            None => vec![None; self.circuits.len()],
        };

        let t = Instant::now();
        let proofs: Vec<Proof> = self
            .circuits
            .iter()
            .zip(tails)
            .map(|(c, tail)| {
                epilogue::assemble(
                    &self.srs.vk,
                    &epilogue::Answers {
                        h: c.device.h,
                        l: c.device.l,
                        a: c.device.a,
                        b_g1: c.device.b_g1,
                        b_g2: tail.map_or(c.device.b_g2, |tail| c.device.b_g2 + tail),
                    },
                    c.r,
                    c.s,
                )
            })
            .collect();
        timings.epilogue_ms = ms(t.elapsed());

        if self.verify {
            let t = Instant::now();
            self.check_proofs(&proofs)?;
            timings.verify_ms = ms(t.elapsed());
            timings.circuits_verified = proofs.len();
        }
        timings.total_ms = ms(self.started.elapsed());
        timings.end_unix_ns = unix_ns(SystemTime::now());
        let backend = self.backend;
        telemetry::record(timings, || {
            backend.device_label(timings.gpu_index.max(0) as usize)
        });
        Ok((proofs, timings))
    }

    /// Fails the call, naming the first bad circuit, if any proof does not verify.
    fn check_proofs(&self, proofs: &[Proof]) -> Result<()> {
        let (vk, circuits) = (&self.srs.vk, &self.circuits);
        let verdicts: Vec<Result<bool>> = settings::pool().install(|| {
            use rayon::prelude::*;
            proofs
                .par_iter()
                .zip(circuits)
                .map(|(p, c)| crate::verify::verify(vk, p, &c.public_inputs))
                .collect()
        });
        let failed = verdicts.iter().filter(|v| !matches!(v, Ok(true))).count();
        telemetry::count_verified((proofs.len() - failed) as u64, failed as u64);
        for (index, verdict) in verdicts.into_iter().enumerate() {
            if !verdict? {
                return Err(Error::ProofCheckFailed { index });
            }
        }
        Ok(())
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
