//! The worker interlock: the caller's lock covers only the device section, `start` returns at
//! the release while the G2 tail MSM still runs, many workers on one lock all get proofs that
//! verify, a bad request fails alone, and proofs are checked before they are returned.
//!
//! Every scenario runs on the CPU backend here and, with the `cuda` feature and a GPU, on the
//! CUDA backend too (the GPU versions print a SKIP line without a GPU). The GPU-only scenario
//! proves 2 workers × 50 proofs of three sizes and checks device memory after equals before.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use bench_support::synthetic::PorepShapedCircuit;
use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use common::*;
use ff::Field;
use groth16_c2::backend::CpuBackend;
use groth16_c2::backend::{Backend, CircuitPrep, DeviceResults};
use groth16_c2::testing::split::{CircuitSplit, OnesBitmap};
use groth16_c2::witness::RecordedWitness;
use groth16_c2::{Error, GpuLock, Proof, ProofTimings, ProveOptions, Srs, Witness};

/// The scenarios share the process-wide counters and (on a GPU) the device: one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

fn leak<T>(x: T) -> &'static T {
    Box::leak(Box::new(x))
}

/// A PoRep-shaped circuit's params (written once per test) and witnesses.
struct Fixture {
    params: ParamsFile,
    srs: Srs,
    witnesses: Vec<(RecordedWitness, Vec<Scalar>)>,
}

fn fixture(log_n: u32, count: usize, seed: u64) -> Fixture {
    let params = params_file(PorepShapedCircuit::new(log_n, None), seed);
    let srs = Srs::new(&params.path, false).unwrap();
    let witnesses = (0..count)
        .map(|i| {
            let c = PorepShapedCircuit::new(log_n, Some(seed * 1000 + i as u64));
            let publics = c.public_values();
            (record(c), publics)
        })
        .collect();
    Fixture {
        params,
        srs,
        witnesses,
    }
}

fn options<'l>(backend: &'static dyn Backend, lock: &'l GpuLock) -> ProveOptions<'l> {
    ProveOptions {
        lock: Some(lock),
        gpu_index: 0,
        backend: Some(backend),
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------------
// A backend that watches the lock

/// Delegates to `inner`, noting whether `lock` is held when the prover prepares host inputs
/// and when it runs the device section.
struct Watching {
    inner: &'static dyn Backend,
    lock: &'static GpuLock,
    prepared_while_held: AtomicUsize,
    prepared_while_free: AtomicUsize,
    sections_while_held: AtomicUsize,
    sections_while_free: AtomicUsize,
}

impl Watching {
    fn new(inner: &'static dyn Backend, lock: &'static GpuLock) -> &'static Watching {
        leak(Watching {
            inner,
            lock,
            prepared_while_held: AtomicUsize::new(0),
            prepared_while_free: AtomicUsize::new(0),
            sections_while_held: AtomicUsize::new(0),
            sections_while_free: AtomicUsize::new(0),
        })
    }

    fn note(&self, held: &AtomicUsize, free: &AtomicUsize) {
        let counter = if self.lock.is_held() { held } else { free };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

impl Backend for Watching {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn device_count(&self) -> usize {
        self.inner.device_count()
    }
    fn prep_bytes(&self, w: &Witness, split: &CircuitSplit) -> usize {
        self.inner.prep_bytes(w, split)
    }
    fn prepare_circuit(
        &self,
        w: &Witness,
        split: &CircuitSplit,
        device: usize,
    ) -> groth16_c2::Result<Option<CircuitPrep>> {
        self.note(&self.prepared_while_held, &self.prepared_while_free);
        self.inner.prepare_circuit(w, split, device)
    }
    fn device_section(
        &self,
        device: usize,
        srs: &Srs,
        w: &Witness,
        split: &CircuitSplit,
        prep: Option<&CircuitPrep>,
        timings: &mut ProofTimings,
    ) -> groth16_c2::Result<DeviceResults> {
        self.note(&self.sections_while_held, &self.sections_while_free);
        self.inner
            .device_section(device, srs, w, split, prep, timings)
    }
    fn h_msm(
        &self,
        q: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> groth16_c2::Result<G1Projective> {
        self.inner.h_msm(q, a, b, c)
    }
    fn g1_sum(&self, p: &[G1Affine], ones: &OnesBitmap) -> groth16_c2::Result<G1Projective> {
        self.inner.g1_sum(p, ones)
    }
    fn g1_msm(
        &self,
        p: &[G1Affine],
        i: &[u32],
        s: &[blst_scalar],
    ) -> groth16_c2::Result<G1Projective> {
        self.inner.g1_msm(p, i, s)
    }
    fn g2_sum(&self, p: &[G2Affine], ones: &OnesBitmap) -> groth16_c2::Result<G2Projective> {
        self.inner.g2_sum(p, ones)
    }
    fn g2_msm(
        &self,
        p: &[G2Affine],
        i: &[u32],
        s: &[blst_scalar],
    ) -> groth16_c2::Result<G2Projective> {
        self.inner.g2_msm(p, i, s)
    }
}

// ---------------------------------------------------------------------------------------------
// Scenarios, for any backend

/// Preparation runs with the lock free, the device section with it held, the timestamps put
/// the lock span after the split and preparation, and `start` returns (lock free again) while
/// the G2 tail MSM, started at the release, is still running.
fn lock_covers_only_the_device_section(backend: &'static dyn Backend) {
    let f = fixture(12, 1, 61);
    let lock = leak(GpuLock::new());
    let watching = Watching::new(backend, lock);
    let (w, publics) = &f.witnesses[0];
    let (r, s) = (random_scalars(1, 1), random_scalars(1, 2));

    // The G2 tail runs for milliseconds and `start` returns microseconds after the release;
    // a preempted test thread can still lose that race, so a few attempts are allowed.
    let mut returned_first = 0;
    for attempt in 0..3 {
        let before = now_ns();
        let pending = groth16_c2::start(&f.srs, &[w.witness()], &r, &s, options(watching, lock))
            .unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
        let returned = now_ns();
        assert!(!lock.is_held(), "the lock is free once start returns");
        let (proofs, t) = pending.finalize_timed().unwrap();
        assert_verifies(&f.params, &proofs[0], publics);

        assert_eq!(watching.prepared_while_held.load(Ordering::SeqCst), 0);
        assert_eq!(watching.sections_while_free.load(Ordering::SeqCst), 0);
        assert_eq!(
            watching.sections_while_held.load(Ordering::SeqCst),
            attempt + 1
        );
        assert!(before <= t.start_unix_ns);
        let prep_ns = ((t.split_vectors_ms + t.prep_msm_ms) * 1e6) as u64;
        assert!(
            t.lock_acquired_unix_ns >= t.start_unix_ns + prep_ns,
            "the lock was taken before the split and preparation were done: {t:?}"
        );
        assert!(t.lock_acquired_unix_ns <= t.lock_released_unix_ns);
        assert!(t.lock_released_unix_ns <= returned && returned <= t.end_unix_ns);
        let held_ms = (t.lock_released_unix_ns - t.lock_acquired_unix_ns) as f64 / 1e6;
        assert!((held_ms - t.gpu_total_ms).abs() < 1.0, "{t:?}");
        assert!(t.b_g2_msm_ms > 0.0, "the G2 tail ran after the lock: {t:?}");
        assert_eq!(t.circuits_verified, 1);
        // The G2 tail started no earlier than the release and ran for b_g2_msm_ms.
        let g2_earliest_end = t.lock_released_unix_ns + (t.b_g2_msm_ms * 1e6) as u64;
        if returned < g2_earliest_end {
            returned_first += 1;
            break;
        }
    }
    assert!(
        returned_first > 0,
        "in 3 attempts start never returned before the G2 tail MSM could have ended"
    );
}

/// `threads` workers × `each` proofs on one lock: every proof verifies (checked by the library
/// and again by bellperson), all are distinct, and no two lock spans overlap.
fn workers_share_one_lock(backend: &'static dyn Backend, threads: usize, each: usize) {
    let f = fixture(9, threads, 62);
    let lock = GpuLock::new();
    let counters_before = groth16_c2::telemetry::counters();
    let barrier = Barrier::new(threads);
    let results: Vec<Vec<(Proof, ProofTimings)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (f, lock, barrier) = (&f, &lock, &barrier);
                scope.spawn(move || {
                    let (w, _) = &f.witnesses[t];
                    barrier.wait();
                    (0..each)
                        .map(|k| {
                            let seed = (t * each + k) as u64;
                            let (r, s) = (random_scalars(1, seed), random_scalars(1, seed + 999));
                            let pending = groth16_c2::start(
                                &f.srs,
                                &[w.witness()],
                                &r,
                                &s,
                                options(backend, lock),
                            )
                            .unwrap_or_else(|e| panic!("worker {t} proof {k}: {e}"));
                            let (proofs, timings) = pending.finalize_timed().unwrap();
                            (proofs[0], timings)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let pvk = bellperson::groth16::prepare_verifying_key(&f.params.params.vk);
    let mut seen = std::collections::HashSet::new();
    let mut spans = Vec::new();
    for (t, proofs) in results.iter().enumerate() {
        for (k, (proof, timings)) in proofs.iter().enumerate() {
            assert_eq!(
                timings.circuits_verified, 1,
                "checked before it was returned"
            );
            assert!(
                bellperson::groth16::verify_proof(&pvk, &to_bellperson(proof), &f.witnesses[t].1)
                    .unwrap(),
                "worker {t} proof {k} does not verify"
            );
            assert!(
                seen.insert(proof_bytes(&to_bellperson(proof))),
                "duplicate proof"
            );
            spans.push((timings.lock_acquired_unix_ns, timings.lock_released_unix_ns));
        }
    }
    assert_eq!(seen.len(), threads * each);
    spans.sort_unstable();
    for pair in spans.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "two lock spans overlap: {pair:?}");
    }
    let after = groth16_c2::telemetry::counters();
    assert!(after.verified >= counters_before.verified + (threads * each) as u64);
}

/// Among workers proving on one lock, a batch whose middle circuit is malformed and a circuit
/// whose witness does not satisfy the constraints fail with errors naming them; every other
/// proof succeeds and verifies, and the lock keeps working.
fn bad_input_fails_alone(backend: &'static dyn Backend) {
    let f = fixture(9, 3, 63);
    let lock = GpuLock::new();
    let failures_before = groth16_c2::telemetry::counters().verify_failures;
    const THREADS: usize = 4;
    const EACH: usize = 5;
    let barrier = Barrier::new(THREADS);
    let outcomes: Vec<Vec<Result<Vec<Proof>, Error>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (f, lock, barrier) = (&f, &lock, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    (0..EACH)
                        .map(|k| {
                            let short_aux;
                            let bent_a;
                            let mut batch: Vec<Witness> =
                                f.witnesses.iter().map(|(w, _)| w.witness()).collect();
                            if (t, k) == (1, 2) {
                                // The middle circuit's aux is one value short.
                                short_aux = batch[1].aux[..batch[1].aux.len() - 1].to_vec();
                                batch[1].aux = &short_aux;
                            }
                            if (t, k) == (2, 3) {
                                // The last circuit's witness no longer satisfies A·B = C.
                                let mut a = batch[2].a.to_vec();
                                a[0] += Scalar::ONE;
                                bent_a = a;
                                batch[2].a = &bent_a;
                            }
                            let seed = (t * EACH + k) as u64;
                            let (r, s) = (random_scalars(3, seed), random_scalars(3, seed + 99));
                            groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock))
                                .and_then(|p| p.finalize())
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, per_worker) in outcomes.iter().enumerate() {
        for (k, outcome) in per_worker.iter().enumerate() {
            match ((t, k), outcome) {
                ((1, 2), Err(Error::Circuit { index, reason })) => {
                    assert_eq!(*index, 1, "{reason}");
                }
                ((2, 3), Err(Error::ProofCheckFailed { index })) => assert_eq!(*index, 2),
                ((1, 2), other) | ((2, 3), other) => {
                    panic!("worker {t} call {k} should have failed, got {other:?}")
                }
                (_, Ok(proofs)) => {
                    for (i, proof) in proofs.iter().enumerate() {
                        assert_verifies(&f.params, proof, &f.witnesses[i].1);
                    }
                }
                (_, Err(e)) => panic!("worker {t} call {k} failed beside the bad ones: {e}"),
            }
        }
    }
    let failures = groth16_c2::telemetry::counters().verify_failures - failures_before;
    assert_eq!(failures, 1, "one proof failed its check");
    assert!(!lock.is_held());
}

// ---------------------------------------------------------------------------------------------
// The CPU backend (CI)

#[test]
fn cpu_lock_covers_only_the_device_section() {
    let _serial = serial();
    lock_covers_only_the_device_section(&CpuBackend);
}

#[test]
fn cpu_four_workers_twenty_proofs_one_lock_all_verify() {
    let _serial = serial();
    workers_share_one_lock(&CpuBackend, 4, 20);
}

#[test]
fn cpu_bad_input_in_a_batch_fails_alone() {
    let _serial = serial();
    bad_input_fails_alone(&CpuBackend);
}

#[test]
fn verification_can_be_turned_off() {
    let _serial = serial();
    let f = fixture(9, 1, 64);
    let lock = GpuLock::new();
    let (r, s) = (random_scalars(1, 3), random_scalars(1, 4));
    let mut batch = vec![f.witnesses[0].0.witness()];
    let mut a = batch[0].a.to_vec();
    a[0] += Scalar::ONE;
    batch[0].a = &a;
    let checked = groth16_c2::start(&f.srs, &batch, &r, &s, options(&CpuBackend, &lock))
        .and_then(|p| p.finalize());
    assert!(matches!(checked, Err(Error::ProofCheckFailed { index: 0 })));
    let unchecked_options = ProveOptions {
        verify: Some(false),
        ..options(&CpuBackend, &lock)
    };
    let (proofs, t) = groth16_c2::start(&f.srs, &batch, &r, &s, unchecked_options)
        .and_then(|p| p.finalize_timed())
        .unwrap();
    assert_eq!(t.circuits_verified, 0);
    assert!(!groth16_c2::verify::verify(&f.srs.vk, &proofs[0], &f.witnesses[0].1).unwrap());
}

// ---------------------------------------------------------------------------------------------
// The CUDA backend (skipped without a GPU)

#[cfg(groth16_c2_cuda)]
mod gpu {
    use super::*;
    use common::gpu::{gpu_or_skip, say};
    use groth16_c2::backend::CudaBackend;
    use groth16_c2::testing::cuda::runtime::memory_info;

    #[test]
    fn gpu_lock_covers_only_the_device_section() {
        let _serial = serial();
        if gpu_or_skip("gpu_lock_covers_only_the_device_section") {
            // The G2 tail runs on the GPU by default; this checks the CPU placement's ordering.
            groth16_c2::settings::set_g2_tail_on_gpu(false);
            let outcome =
                std::panic::catch_unwind(|| lock_covers_only_the_device_section(&CudaBackend));
            groth16_c2::settings::set_g2_tail_on_gpu(true);
            if let Err(p) = outcome {
                std::panic::resume_unwind(p);
            }
        }
    }

    #[test]
    fn gpu_four_workers_twenty_proofs_one_lock_all_verify() {
        let _serial = serial();
        if gpu_or_skip("gpu_four_workers_twenty_proofs_one_lock_all_verify") {
            workers_share_one_lock(&CudaBackend, 4, 20);
        }
    }

    #[test]
    fn gpu_bad_input_in_a_batch_fails_alone() {
        let _serial = serial();
        if gpu_or_skip("gpu_bad_input_in_a_batch_fails_alone") {
            bad_input_fails_alone(&CudaBackend);
        }
    }

    /// A proof that needs device memory another user holds waits for it rather than failing:
    /// with a short limit it fails with a clear error (and the next proof is fine), with the
    /// default limit it waits until the memory is freed and then proves.
    #[test]
    fn gpu_proof_waits_for_device_memory() {
        use groth16_c2::testing::cuda::runtime::DeviceBuffer;
        let _serial = serial();
        if !gpu_or_skip("gpu_proof_waits_for_device_memory") {
            return;
        }
        let f = fixture(12, 1, 80);
        let (w, publics) = &f.witnesses[0];
        let (r, s) = (random_scalars(1, 8), random_scalars(1, 9));
        let lock = GpuLock::new();
        let prove = || {
            groth16_c2::start(&f.srs, &[w.witness()], &r, &s, options(&CudaBackend, &lock))
                .and_then(|p| p.finalize())
        };
        groth16_c2::release_gpu_memory();
        // Another user of the GPU takes all but 256 MiB.
        let (free, _) = memory_info().unwrap();
        let hog = DeviceBuffer::<u8>::new(free - (256 << 20)).unwrap();

        std::env::set_var("GROTH16_C2_VRAM_WAIT_S", "0.3");
        let refused = prove();
        std::env::remove_var("GROTH16_C2_VRAM_WAIT_S");
        match refused {
            Err(Error::OutOfDeviceMemory(message)) => {
                assert!(message.contains("GROTH16_C2_VRAM_WAIT_S"), "{message}")
            }
            other => panic!("expected a wait that runs out, got {other:?}"),
        }

        let waited = std::time::Instant::now();
        let proofs = std::thread::scope(|scope| {
            scope.spawn(move || {
                std::thread::sleep(std::time::Duration::from_secs(1));
                groth16_c2::testing::cuda::runtime::set_device(0).unwrap();
                drop(hog);
            });
            prove().expect("the proof waits for the memory and then runs")
        });
        assert!(
            waited.elapsed() >= std::time::Duration::from_millis(900),
            "the proof cannot have run before the memory was freed"
        );
        assert_verifies(&f.params, &proofs[0], publics);
        say("gpu_proof_waits_for_device_memory: refused after 0.3 s, then waited ~1 s and proved");
    }

    /// Two workers × 50 proofs of three sizes (each size its own SRS, so the resident copy
    /// changes under them), every proof verified; after releasing the library's device memory,
    /// the device holds what it held before.
    #[test]
    fn gpu_two_workers_fifty_mixed_proofs_and_memory_comes_back() {
        let _serial = serial();
        if !gpu_or_skip("gpu_two_workers_fifty_mixed_proofs_and_memory_comes_back") {
            return;
        }
        groth16_c2::release_gpu_memory();
        let (accounted_before, _) = groth16_c2::gpu_memory().unwrap();
        let (free_before, _) = memory_info().unwrap();
        let sizes = [10u32, 12, 14];
        let fixtures: Vec<Fixture> = sizes
            .iter()
            .map(|&k| fixture(k, 2, 70 + k as u64))
            .collect();
        let lock = GpuLock::new();
        const EACH: usize = 50;
        let proved: Vec<usize> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2)
                .map(|worker| {
                    let (fixtures, lock) = (&fixtures, &lock);
                    scope.spawn(move || {
                        for k in 0..EACH {
                            let f = &fixtures[(k * 7 + worker * 3) % fixtures.len()];
                            let (w, publics) = &f.witnesses[worker];
                            let seed = (worker * EACH + k) as u64;
                            let (r, s) = (random_scalars(1, seed), random_scalars(1, seed + 7));
                            let proofs = groth16_c2::start(
                                &f.srs,
                                &[w.witness()],
                                &r,
                                &s,
                                options(&CudaBackend, lock),
                            )
                            .and_then(|p| p.finalize())
                            .unwrap_or_else(|e| panic!("worker {worker} proof {k}: {e}"));
                            assert_verifies(&f.params, &proofs[0], publics);
                        }
                        EACH
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(proved.iter().sum::<usize>(), 2 * EACH);
        drop(fixtures);
        groth16_c2::release_gpu_memory();
        let (accounted_after, _) = groth16_c2::gpu_memory().unwrap();
        let (free_after, _) = memory_info().unwrap();
        say(&format!(
            "device memory: accounted {accounted_before} -> {accounted_after} bytes, free {free_before} -> {free_after} bytes"
        ));
        assert_eq!(accounted_after, accounted_before);
        // The driver may keep a little for itself (streams, module data); no proof-sized leak.
        assert!(
            free_after + (64 << 20) >= free_before,
            "{} MiB of device memory did not come back",
            (free_before - free_after) >> 20
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Telemetry and settings through the C ABI

static CALLBACK_CALLS: Mutex<Vec<ProofTimings>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_timings(t: *const ProofTimings, user: *mut std::ffi::c_void) {
    assert_eq!(user as usize, 0x5eed);
    CALLBACK_CALLS.lock().unwrap().push(*t);
}

#[test]
fn telemetry_and_settings_through_the_c_abi() {
    use groth16_c2::ffi::*;
    let _serial = serial();
    let f = fixture(9, 1, 65);
    let lock = GpuLock::new();
    let (r, s) = (random_scalars(1, 5), random_scalars(1, 6));

    // The CPU pool is resizable and reports its size.
    take_error(groth16_c2_set_thread_pool_size(3)).unwrap();
    assert_eq!(groth16_c2_thread_pool_size(), 3);

    let mut before = groth16_c2::telemetry::ProofCounters::default();
    take_error(unsafe { groth16_c2_counters(&mut before) }).unwrap();
    unsafe { groth16_c2_set_timings_callback(Some(on_timings), 0x5eed as *mut _) };
    let w = f.witnesses[0].0.witness();
    let proofs = groth16_c2::start(&f.srs, &[w], &r, &s, options(&CpuBackend, &lock))
        .and_then(|p| p.finalize())
        .unwrap();
    unsafe { groth16_c2_set_timings_callback(None, std::ptr::null_mut()) };
    // Removed: this call is not reported.
    groth16_c2::start(&f.srs, &[w], &r, &s, options(&CpuBackend, &lock))
        .and_then(|p| p.finalize())
        .unwrap();
    assert_verifies(&f.params, &proofs[0], &f.witnesses[0].1);

    let calls = std::mem::take(&mut *CALLBACK_CALLS.lock().unwrap());
    assert_eq!(
        calls.len(),
        1,
        "one report per finished call while registered"
    );
    let t = calls[0];
    assert_eq!((t.num_circuits, t.circuits_verified), (1, 1));
    assert!(t.start_unix_ns <= t.lock_acquired_unix_ns);
    assert!(t.lock_acquired_unix_ns <= t.lock_released_unix_ns);
    assert!(t.lock_released_unix_ns <= t.end_unix_ns);
    assert!(t.total_ms >= t.gpu_total_ms && t.gpu_total_ms > 0.0);
    let line = t.log_line();
    for key in [
        "split_vectors_ms=",
        "prep_msm_ms=",
        "mutex_wait_ms=",
        "ntt_msm_h_ms=",
        "batch_add_ms=",
        "tail_msm_ms=",
        "gpu_total_ms=",
        "b_g2_msm_ms=",
        "epilogue_ms=",
        "total_ms=",
        "lock_acquired_unix_ns=",
    ] {
        assert!(line.contains(key), "{key} missing from {line}");
    }

    let mut after = groth16_c2::telemetry::ProofCounters::default();
    take_error(unsafe { groth16_c2_counters(&mut after) }).unwrap();
    assert!(after.calls >= before.calls + 2);
    assert!(after.verified >= before.verified + 2);
    assert!(take_error(unsafe { groth16_c2_counters(std::ptr::null_mut()) }).is_err());

    // Verification off through the C ABI: a bent witness's proof is returned unchecked.
    groth16_c2_set_verify_proofs(false);
    let mut bent = w;
    let mut a = bent.a.to_vec();
    a[0] += Scalar::ONE;
    bent.a = &a;
    let unchecked = groth16_c2::start(&f.srs, &[bent], &r, &s, options(&CpuBackend, &lock))
        .and_then(|p| p.finalize_timed());
    groth16_c2_set_verify_proofs(true);
    assert_eq!(unchecked.unwrap().1.circuits_verified, 0);

    take_error(groth16_c2_set_thread_pool_size(0)).unwrap();
    assert!(groth16_c2_thread_pool_size() >= 1);
}
