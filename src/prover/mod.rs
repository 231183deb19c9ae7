//! The Groth16 prover as plain stages over plain data, per circuit:
//! check → 0/1 split + staging → device section (H, batch additions, tail MSMs) → G2 tail MSM
//! (when the CPU runs it) → epilogue.
//!
//! A call's circuits are pipelined per device (`pipeline`): while one is in its device section
//! the next is split and staged, and each is finished on the CPU as soon as its device section
//! ends. `start` returns when the last device section ended and the lock was released, with a
//! [`PendingProofs`] that owns what is left; `finalize` collects the proofs and checks them.

mod epilogue;
mod pipeline;

use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use blstrs::Scalar;
use group::prime::PrimeCurveAffine;

use crate::assignment::Witness;
use crate::backend::cpu::CpuBackend;
use crate::backend::{default_backend, Backend};
use crate::error::{Error, Result};
use crate::lock::{library_lock, GpuLock};
use crate::proof::Proof;
use crate::settings;
use crate::srs::Srs;
use crate::telemetry::{self, ms, unix_ns, LockSpan, ProofTimings};
use pipeline::{DeviceDone, Gate, HoldSpan, Job};

/// The most circuits one call proves (a 32 GiB PoRep sector is 10): a larger count can only be
/// a host bug, and is refused before any of its Assignments is read.
/// cbindgen:ignore
pub const MAX_CIRCUITS: usize = 4096;

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
    /// The proof, assembled on the prover's pool as soon as the circuit's device section ended.
    proof: mpsc::Receiver<Result<Finished>>,
    /// Public inputs without the constant ONE, for the check before the proof is returned.
    public_inputs: Vec<Scalar>,
}

/// One circuit's proof and the CPU time its finishing took.
#[derive(Debug)]
struct Finished {
    proof: Proof,
    g2_ms: f64,
    epilogue_ms: f64,
}

/// Proofs whose device section is done; owns everything needed to finish them.
pub struct PendingProofs {
    srs: Srs,
    circuits: Vec<CircuitTail>,
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

/// Runs a batch up to the release of the GPU lock. The lock is taken once the first circuit is
/// split and staged, and held until the last circuit's device section ended; the later
/// circuits' CPU preparation runs beside the earlier ones' device sections. Each circuit's G2
/// tail MSM (if the device left it to the CPU) and epilogue start on the prover's pool as its
/// device section ends; `finalize` joins them.
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
    check_request(srs, witnesses, r_s, s_s)?;
    let devices = plan_devices(backend, witnesses.len(), options.gpu_index)?;
    let mut used_devices = devices.clone();
    used_devices.dedup();
    for &d in &used_devices {
        backend.check_fits(d, srs)?;
    }

    // Each device runs its own pipeline over its circuits, in batch order.
    let mut used: Vec<usize> = devices.clone();
    used.sort_unstable();
    used.dedup();
    let shares: Vec<(usize, Vec<usize>)> = used
        .iter()
        .map(|&d| (d, (0..devices.len()).filter(|&i| devices[i] == d).collect()))
        .collect();
    // The caller's lock is held once over every device's span; without one, each device's
    // pipeline holds the library's lock of its own device.
    let gates: Vec<Gate> = match options.lock {
        Some(lock) => vec![Gate::new(lock, shares.len())],
        None => used
            .iter()
            .map(|&d| Gate::new(library_lock(d), 1))
            .collect(),
    };
    let gate = |k: usize| &gates[k.min(gates.len() - 1)];
    let job = Job {
        backend,
        srs,
        witnesses,
        depth: settings::staging_buffers(),
    };
    let pool = settings::pool();
    let finish_circuit = |d: DeviceDone| -> CircuitTail {
        let public_inputs = witnesses[d.index]
            .inputs
            .get(1..)
            .unwrap_or_default()
            .to_vec();
        let (r, s) = (r_s[d.index], s_s[d.index]);
        CircuitTail {
            proof: spawn_tail(&pool, srs, d, r, s),
            public_inputs,
        }
    };

    let runs: Vec<(DeviceRun, ProofTimings)> = if shares.len() == 1 {
        // The calling thread runs the only device's pipeline (and takes its lock).
        let mut t = ProofTimings::default();
        let r = pipeline::run_device(
            &job,
            shares[0].0,
            &shares[0].1,
            gate(0),
            &mut t,
            &finish_circuit,
        );
        vec![(r, t)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .enumerate()
                .map(|(k, (device, circuits))| {
                    let (job, finish_circuit) = (&job, &finish_circuit);
                    let gate = gate(k);
                    scope.spawn(move || {
                        let mut t = ProofTimings::default();
                        let r = pipeline::run_device(
                            job,
                            *device,
                            circuits,
                            gate,
                            &mut t,
                            finish_circuit,
                        );
                        (r, t)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };

    let mut timings = ProofTimings {
        num_circuits: witnesses.len(),
        gpu_index: devices[0] as i32,
        start_unix_ns,
        ..ProofTimings::default()
    };
    let mut tails: Vec<Option<CircuitTail>> = (0..witnesses.len()).map(|_| None).collect();
    let mut failure = None;
    for (result, t) in runs {
        // Devices run side by side: a stage took as long as its slowest device.
        timings.absorb_parallel(&t);
        match result {
            Ok(done) => {
                for (i, tail) in done {
                    tails[i] = Some(tail);
                }
            }
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let spans: Vec<HoldSpan> = gates.iter().map(Gate::span).collect();
    let acquired = spans.iter().filter_map(|s| s.acquired).min();
    let released = spans.iter().filter_map(|s| s.released).max();
    let (Some(acquired), Some(released)) = (acquired, released) else {
        return Err(Error::Panic(
            "a device pipeline ended without its lock span".into(),
        ));
    };
    timings.mutex_wait_ms = spans.iter().map(|s| s.wait_ms).fold(0.0, f64::max);
    timings.gpu_total_ms = ms(released - acquired);
    timings.lock_acquired_unix_ns = spans.iter().map(|s| s.acquired_unix_ns).min().unwrap_or(0);
    timings.lock_released_unix_ns = spans.iter().map(|s| s.released_unix_ns).max().unwrap_or(0);
    Ok(PendingProofs {
        srs: srs.clone(),
        circuits: tails
            .into_iter()
            .map(|t| t.expect("every circuit has a device"))
            .collect(),
        verify: options.verify.unwrap_or_else(settings::verify_proofs),
        backend,
        timings,
        lock_span: LockSpan { acquired, released },
        started,
    })
}

/// One device's finished circuits, by their index in the batch.
type DeviceRun = Result<Vec<(usize, CircuitTail)>>;

/// Finishes one circuit on the prover's pool once its device section ended: the G2 tail MSM
/// when the device left it to the CPU, then the epilogue. Only the B query's tail of the split
/// outlives the device section, and only in that case.
fn spawn_tail(
    pool: &rayon::ThreadPool,
    srs: &Srs,
    done: DeviceDone,
    r: Scalar,
    s: Scalar,
) -> mpsc::Receiver<Result<Finished>> {
    let DeviceDone { results, split, .. } = done;
    let srs = srs.clone();
    let (send, receive) = mpsc::sync_channel(1);
    // The split moves to the pool, which frees it: at 2^27 its tails are about a GiB, whose
    // freeing took some 60 ms inside the GPU lock when it was dropped here.
    pool.spawn(move || {
        let b_tail =
            (!results.b_g2_tail_done).then_some((&split.b.tail_points, &split.b.tail_scalars));
        let run = || -> Result<Finished> {
            let t = Instant::now();
            let b_g2 = match &b_tail {
                Some((points, scalars)) => {
                    // The host's synthesis threads back off while it runs (Curio's cuzk
                    // defines the hook).
                    let _throttle = crate::host_hooks::MembwThrottle::engage();
                    results.b_g2 + CpuBackend.g2_msm(&srs.b_g2, points, scalars)?
                }
                None => results.b_g2,
            };
            let g2_ms = if b_tail.is_some() {
                ms(t.elapsed())
            } else {
                0.0
            };
            let t = Instant::now();
            let proof = epilogue::assemble(
                &srs.vk,
                &epilogue::Answers {
                    h: results.h,
                    l: results.l,
                    a: results.a,
                    b_g1: results.b_g1,
                    b_g2,
                },
                r,
                s,
            );
            Ok(Finished {
                proof,
                g2_ms,
                epilogue_ms: ms(t.elapsed()),
            })
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
            .unwrap_or_else(|p| Err(Error::Panic(crate::error::panic_message(p))));
        // The receiver is gone when the host destroyed the pending proof: nothing to deliver.
        let _ = send.send(result);
        drop(split);
    });
    receive
}

fn check_request(srs: &Srs, witnesses: &[Witness], r_s: &[Scalar], s_s: &[Scalar]) -> Result<()> {
    if witnesses.is_empty() {
        return Err(Error::invalid(
            "num_circuits is 0; there is nothing to prove",
        ));
    }
    if witnesses.len() > MAX_CIRCUITS {
        return Err(Error::invalid(format!(
            "{} circuits in one call; at most {MAX_CIRCUITS}",
            witnesses.len()
        )));
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
        w.check_against(&srs.query_counts(), i)?;
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
        let mut proofs = Vec::with_capacity(self.circuits.len());
        for c in &self.circuits {
            let done = c.proof.recv().map_err(|_| {
                Error::Panic("the task finishing a proof ended without a result".into())
            })??;
            timings.b_g2_msm_ms += done.g2_ms;
            timings.epilogue_ms += done.epilogue_ms;
            proofs.push(done.proof);
        }

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
        let vk = &self.srs.vk;
        let inputs: Vec<&[Scalar]> = self.circuits.iter().map(|c| &c.public_inputs[..]).collect();
        let verdicts: Vec<Result<bool>> = settings::pool().install(|| {
            use rayon::prelude::*;
            proofs
                .par_iter()
                .zip(inputs)
                .map(|(p, inputs)| crate::verify::verify(vk, p, inputs))
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
