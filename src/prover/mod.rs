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
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::prime::PrimeCurveAffine;

use crate::assignment::Witness;
use crate::backend::{default_backend, Backend};
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
#[derive(Clone, Copy, Debug, Default)]
pub struct ProveOptions<'l> {
    /// The caller's lock; `None` uses the library's own lock for the device.
    pub lock: Option<&'l GpuLock>,
    /// `>= 0` pins the call to that GPU, `-1` lets it spread over GPUs. The CPU backend has a
    /// single device and accepts both.
    pub gpu_index: i32,
}

/// Results of the device section for one circuit.
#[derive(Clone, Copy, Debug)]
struct DeviceResults {
    h: G1Projective,
    l: G1Projective,
    a: G1Projective,
    b_g1: G1Projective,
    /// Sum of the B_G2 points whose scalar is 1; the tail MSM comes in `finalize`.
    b_g2_ones: G2Projective,
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
#[derive(Debug)]
pub struct PendingProofs {
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
    let backend = default_backend();
    check_request(srs, witnesses, r_s, s_s, options)?;
    let mut timings = ProofTimings {
        num_circuits: witnesses.len(),
        ..ProofTimings::default()
    };

    let t = Instant::now();
    let splits: Vec<CircuitSplit> = witnesses.iter().map(split_circuit).collect();
    timings.split_vectors_ms = ms(t.elapsed());

    let lock = options.lock.unwrap_or_else(|| library_lock(0));
    let t = Instant::now();
    let guard = lock.lock();
    let acquired = Instant::now();
    timings.mutex_wait_ms = ms(acquired - t);
    let device = device_section(backend, srs, witnesses, &splits, &mut timings);
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
        .map(|((device, split), (&r, &s))| CircuitTail {
            device,
            b_g2_tail_points: split.b.tail_points,
            b_g2_tail_scalars: split.b.tail_scalars,
            r,
            s,
        })
        .collect();
    Ok(PendingProofs {
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

/// Everything that runs under the device lock.
fn device_section(
    backend: &dyn Backend,
    srs: &Srs,
    witnesses: &[Witness],
    splits: &[CircuitSplit],
    timings: &mut ProofTimings,
) -> Result<Vec<DeviceResults>> {
    let mut out = Vec::with_capacity(witnesses.len());
    for (w, split) in witnesses.iter().zip(splits) {
        let t = Instant::now();
        let h = backend.h_msm(&srs.h, w.a, w.b, w.c)?;
        timings.ntt_msm_h_ms += ms(t.elapsed());

        let t = Instant::now();
        let l_ones = backend.g1_sum(&srs.l, &split.l.ones)?;
        let a_ones = backend.g1_sum(&srs.a, &split.a.ones)?;
        let b_g1_ones = backend.g1_sum(&srs.b_g1, &split.b.ones)?;
        let b_g2_ones = backend.g2_sum(&srs.b_g2, &split.b.ones)?;
        timings.batch_add_ms += ms(t.elapsed());

        let t = Instant::now();
        let l_tail = backend.g1_msm(&srs.l, &split.l.tail_points, &split.l.tail_scalars)?;
        let a_tail = backend.g1_msm(&srs.a, &split.a.tail_points, &split.a.tail_scalars)?;
        let b_g1_tail = backend.g1_msm(&srs.b_g1, &split.b.tail_points, &split.b.tail_scalars)?;
        timings.tail_msm_ms += ms(t.elapsed());

        out.push(DeviceResults {
            h,
            l: l_ones + l_tail,
            a: a_ones + a_tail,
            b_g1: b_g1_ones + b_g1_tail,
            b_g2_ones,
        });
    }
    Ok(out)
}

impl PendingProofs {
    /// Runs the G2 tail MSMs and the epilogue.
    pub fn finalize(self) -> Result<Vec<Proof>> {
        self.finalize_timed().map(|(proofs, _)| proofs)
    }

    /// As [`finalize`](Self::finalize), also returning the call's complete stage timings.
    pub fn finalize_timed(self) -> Result<(Vec<Proof>, ProofTimings)> {
        let backend = default_backend();
        let mut timings = self.timings;
        let t = Instant::now();
        let b_g2: Vec<G2Projective> = self
            .circuits
            .iter()
            .map(|c| {
                let tail =
                    backend.g2_msm(&self.srs.b_g2, &c.b_g2_tail_points, &c.b_g2_tail_scalars)?;
                Ok(c.device.b_g2_ones + tail)
            })
            .collect::<Result<_>>()?;
        timings.b_g2_msm_ms = ms(t.elapsed());

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
