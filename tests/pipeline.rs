//! Batches are pipelined per device: a call of several circuits takes the lock once, prepares
//! (splits and stages) at most `staging_buffers` circuits at a time, overlaps the next one's
//! preparation with the current one's device section, frees each preparation when its device
//! section ends, and gives the same proofs as one call per circuit. A bad circuit fails the call
//! with its index and leaves nothing behind; the host-memory budget makes preparations wait
//! without deadlocking; `gpu_index = -1` runs one pipeline per device.
//!
//! Every scenario runs on the CPU backend here and, with CUDA and a GPU, on the CUDA backend
//! too (the GPU versions print a SKIP line without a GPU).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use bench_support::synthetic::PorepShapedCircuit;
use common::*;
use groth16_c2::backend::CpuBackend;
use groth16_c2::backend::{Backend, CircuitPrep, DeviceResults};
use groth16_c2::testing::split::{CircuitSplit, OnesBitmap};
use groth16_c2::witness::RecordedWitness;
use groth16_c2::{host_memory, settings};
use groth16_c2::{Error, GpuLock, Proof, ProofTimings, ProveOptions, Srs, Witness};

/// The scenarios change process-wide settings: one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn leak<T>(x: T) -> &'static T {
    Box::leak(Box::new(x))
}

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

/// What a [`Watching`] backend does to one circuit (recognised by its `a` vector).
#[derive(Clone, Copy, PartialEq)]
enum Sabotage {
    None,
    FailSection(*const Scalar),
    PanicInPreparation(*const Scalar),
}

// SAFETY: the pointer is only compared, never dereferenced.
unsafe impl Send for Sabotage {}
unsafe impl Sync for Sabotage {}

/// Delegates to `inner`, counting the preparations alive at once and where they ran, and
/// (optionally) failing one circuit; claims `devices` devices, all served by `inner`'s device 0.
struct Watching {
    inner: &'static dyn Backend,
    lock: &'static GpuLock,
    devices: usize,
    /// Host bytes each preparation claims (for the budget).
    claim: usize,
    sabotage: Mutex<Sabotage>,
    live: AtomicUsize,
    most_live: AtomicUsize,
    prepared_while_held: AtomicUsize,
    prepared_while_free: AtomicUsize,
    sections_while_free: AtomicUsize,
    sections: AtomicUsize,
}

/// A preparation: counts itself alive until dropped; wraps the inner backend's own.
struct Token {
    owner: &'static Watching,
    inner: Option<CircuitPrep>,
}

impl Drop for Token {
    fn drop(&mut self) {
        self.owner.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Watching {
    fn new(inner: &'static dyn Backend, lock: &'static GpuLock) -> &'static Watching {
        Watching::with(inner, lock, 1, 0)
    }

    fn with(
        inner: &'static dyn Backend,
        lock: &'static GpuLock,
        devices: usize,
        claim: usize,
    ) -> &'static Watching {
        leak(Watching {
            inner,
            lock,
            devices,
            claim,
            sabotage: Mutex::new(Sabotage::None),
            live: AtomicUsize::new(0),
            most_live: AtomicUsize::new(0),
            prepared_while_held: AtomicUsize::new(0),
            prepared_while_free: AtomicUsize::new(0),
            sections_while_free: AtomicUsize::new(0),
            sections: AtomicUsize::new(0),
        })
    }

    fn sabotage(&self, s: Sabotage) {
        *self.sabotage.lock().unwrap() = s;
    }

    fn reset(&self) {
        for c in [
            &self.most_live,
            &self.prepared_while_held,
            &self.prepared_while_free,
            &self.sections_while_free,
            &self.sections,
        ] {
            c.store(0, Ordering::SeqCst);
        }
    }
}

impl Backend for &'static Watching {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn device_count(&self) -> usize {
        self.devices
    }
    fn prep_bytes(&self, w: &Witness, split: &CircuitSplit) -> usize {
        self.claim + self.inner.prep_bytes(w, split)
    }
    fn prepare_circuit(
        &self,
        w: &Witness,
        split: &CircuitSplit,
        device: usize,
    ) -> groth16_c2::Result<Option<CircuitPrep>> {
        if *self.sabotage.lock().unwrap() == Sabotage::PanicInPreparation(w.a.as_ptr()) {
            panic!("sabotaged preparation");
        }
        let counter = if self.lock.is_held() {
            &self.prepared_while_held
        } else {
            &self.prepared_while_free
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let live = self.live.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_live.fetch_max(live, Ordering::SeqCst);
        let _ = device;
        Ok(Some(Box::new(Token {
            owner: self,
            inner: self.inner.prepare_circuit(w, split, 0)?,
        })))
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
        assert!(device < self.devices, "device {device} of {}", self.devices);
        if !self.lock.is_held() {
            self.sections_while_free.fetch_add(1, Ordering::SeqCst);
        }
        self.sections.fetch_add(1, Ordering::SeqCst);
        if *self.sabotage.lock().unwrap() == Sabotage::FailSection(w.a.as_ptr()) {
            return Err(Error::InvalidArgument("sabotaged device section".into()));
        }
        let token = prep
            .and_then(|p| p.downcast_ref::<Token>())
            .expect("every circuit was prepared by this backend");
        self.inner
            .device_section(0, srs, w, split, token.inner.as_ref(), timings)
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

fn as_backend(w: &'static Watching) -> &'static dyn Backend {
    leak(w)
}

fn options<'l>(backend: &'static dyn Backend, lock: &'l GpuLock, gpu: i32) -> ProveOptions<'l> {
    ProveOptions {
        lock: Some(lock),
        gpu_index: gpu,
        backend: Some(backend),
        ..Default::default()
    }
}

/// The proofs of each circuit proved alone, with the same r and s.
fn one_by_one(
    f: &Fixture,
    backend: &'static dyn Backend,
    r: &[Scalar],
    s: &[Scalar],
) -> Vec<Proof> {
    let lock = GpuLock::new();
    f.witnesses
        .iter()
        .enumerate()
        .map(|(i, (w, _))| {
            groth16_c2::start(
                &f.srs,
                &[w.witness()],
                &r[i..=i],
                &s[i..=i],
                options(backend, &lock, 0),
            )
            .and_then(|p| p.finalize())
            .unwrap()[0]
        })
        .collect()
}

fn set_depth(n: usize) {
    settings::set_staging_buffers(n).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Scenarios, for any backend

/// Five circuits in one call, with 2 and then 1 staging buffers: the same proofs as five single
/// calls; never more preparations alive than buffers; all but the first two prepared inside the
/// lock (they wait for a device section to end); every device section under the lock, which is
/// taken once; nothing alive after the call.
fn batch_is_pipelined_and_bounded(inner: &'static dyn Backend) {
    let f = fixture(10, 5, 91);
    let lock = leak(GpuLock::new());
    let watching = Watching::new(inner, lock);
    let backend = as_backend(watching);
    let (r, s) = (random_scalars(5, 1), random_scalars(5, 2));
    let alone = one_by_one(&f, inner, &r, &s);
    let batch: Vec<Witness> = f.witnesses.iter().map(|(w, _)| w.witness()).collect();
    for depth in [2, 1] {
        set_depth(depth);
        watching.reset();
        let pending = groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock, 0));
        set_depth(2);
        let (proofs, t) = pending.unwrap().finalize_timed().unwrap();
        assert_eq!(
            proofs, alone,
            "depth {depth}: a batch proves as single calls do"
        );
        for (i, p) in proofs.iter().enumerate() {
            assert_verifies(&f.params, p, &f.witnesses[i].1);
        }
        assert_eq!(t.circuits_verified, 5);
        assert_eq!(
            watching.most_live.load(Ordering::SeqCst),
            depth,
            "depth {depth}"
        );
        assert_eq!(watching.live.load(Ordering::SeqCst), 0, "all freed");
        assert_eq!(watching.sections.load(Ordering::SeqCst), 5);
        assert_eq!(watching.sections_while_free.load(Ordering::SeqCst), 0);
        assert!(
            watching.prepared_while_held.load(Ordering::SeqCst) >= 5 - depth,
            "depth {depth}: circuits after the first {depth} are prepared inside the call's \
             device span"
        );
        assert!(watching.prepared_while_free.load(Ordering::SeqCst) >= 1);
        // One lock span for the whole call.
        let held_ms = (t.lock_released_unix_ns - t.lock_acquired_unix_ns) as f64 / 1e6;
        assert!((held_ms - t.gpu_total_ms).abs() < 1.0, "{t:?}");
        assert!(t.gpu_total_ms >= t.ntt_msm_h_ms, "{t:?}");
        assert!(!lock.is_held());
    }
}

/// A device section that fails on circuit 2 of 4, then a preparation that panics on circuit 3:
/// each call fails with that error, frees every preparation, releases the lock, and the next
/// call proves.
fn bad_circuit_fails_the_call_cleanly(inner: &'static dyn Backend) {
    let f = fixture(9, 4, 92);
    let lock = leak(GpuLock::new());
    let watching = Watching::new(inner, lock);
    let backend = as_backend(watching);
    let (r, s) = (random_scalars(4, 3), random_scalars(4, 4));
    let batch: Vec<Witness> = f.witnesses.iter().map(|(w, _)| w.witness()).collect();
    let reserved_before = host_memory::usage().0;

    watching.sabotage(Sabotage::FailSection(batch[2].a.as_ptr()));
    let e = groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock, 0)).unwrap_err();
    assert!(e.to_string().contains("sabotaged device section"), "{e}");
    assert_eq!(
        watching.live.load(Ordering::SeqCst),
        0,
        "preparations freed"
    );
    assert!(!lock.is_held());
    assert_eq!(
        host_memory::usage().0,
        reserved_before,
        "reservations returned"
    );

    watching.sabotage(Sabotage::PanicInPreparation(batch[3].a.as_ptr()));
    let e = groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock, 0)).unwrap_err();
    assert!(
        matches!(&e, Error::Panic(m) if m.contains("sabotaged preparation")),
        "{e}"
    );
    assert_eq!(watching.live.load(Ordering::SeqCst), 0);
    assert!(!lock.is_held());
    assert_eq!(host_memory::usage().0, reserved_before);

    watching.sabotage(Sabotage::None);
    let proofs = groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock, 0))
        .and_then(|p| p.finalize())
        .unwrap();
    for (i, p) in proofs.iter().enumerate() {
        assert_verifies(&f.params, p, &f.witnesses[i].1);
    }
}

/// Two workers proving batches of 3 where every preparation claims 1 GiB, under a 1 GiB
/// budget: no deadlock, at most one preparation beyond the budget at any time (the one a call
/// holding the GPU needs), every proof verifies, and every byte comes back.
fn budget_bounds_preparations_without_deadlock(inner: &'static dyn Backend) {
    const GIB: usize = 1 << 30;
    let f = fixture(9, 3, 93);
    let lock = leak(GpuLock::new());
    let watching = Watching::with(inner, lock, 1, GIB);
    let backend = as_backend(watching);
    let batch: Vec<Witness> = f.witnesses.iter().map(|(w, _)| w.witness()).collect();
    host_memory::set_budget(GIB as u64);
    host_memory::reset_peak();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        std::thread::scope(|scope| {
            for worker in 0..2u64 {
                let (f, batch) = (&f, &batch);
                scope.spawn(move || {
                    for call in 0..3u64 {
                        let seed = 100 * worker + call;
                        let (r, s) = (random_scalars(3, seed), random_scalars(3, seed + 50));
                        let proofs =
                            groth16_c2::start(&f.srs, batch, &r, &s, options(backend, lock, 0))
                                .and_then(|p| p.finalize())
                                .unwrap();
                        for (i, p) in proofs.iter().enumerate() {
                            assert_verifies(&f.params, p, &f.witnesses[i].1);
                        }
                    }
                });
            }
        })
    }));
    host_memory::set_budget(0);
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
    let (now, peak) = host_memory::usage();
    assert_eq!(now, 0, "every reservation returned");
    assert!(peak >= GIB as u64, "the claims were reserved");
    assert!(
        peak < 3 * GIB as u64,
        "at most the budget plus one urgent preparation: peak {peak}"
    );
}

/// `gpu_index = -1` over three (claimed) devices: five circuits in three pipelines, one hold of
/// the caller's lock, the same proofs as one device; without a caller's lock too.
fn one_pipeline_per_device(inner: &'static dyn Backend) {
    let f = fixture(9, 5, 94);
    let lock = leak(GpuLock::new());
    let watching = Watching::with(inner, lock, 3, 0);
    let backend = as_backend(watching);
    let (r, s) = (random_scalars(5, 5), random_scalars(5, 6));
    let alone = one_by_one(&f, inner, &r, &s);
    let batch: Vec<Witness> = f.witnesses.iter().map(|(w, _)| w.witness()).collect();
    let (proofs, t) = groth16_c2::start(&f.srs, &batch, &r, &s, options(backend, lock, -1))
        .and_then(|p| p.finalize_timed())
        .unwrap();
    assert_eq!(proofs, alone);
    assert_eq!(watching.sections_while_free.load(Ordering::SeqCst), 0);
    assert_eq!(watching.live.load(Ordering::SeqCst), 0);
    let held_ms = (t.lock_released_unix_ns - t.lock_acquired_unix_ns) as f64 / 1e6;
    assert!((held_ms - t.gpu_total_ms).abs() < 1.0, "{t:?}");
    assert!(!lock.is_held());

    let own_locks = ProveOptions {
        lock: None,
        ..options(backend, lock, -1)
    };
    let proofs = groth16_c2::start(&f.srs, &batch, &r, &s, own_locks)
        .and_then(|p| p.finalize())
        .unwrap();
    assert_eq!(proofs, alone);
}

// ---------------------------------------------------------------------------------------------
// The CPU backend (CI)

#[test]
fn cpu_batch_is_pipelined_and_bounded() {
    let _serial = serial();
    batch_is_pipelined_and_bounded(&CpuBackend);
}

#[test]
fn cpu_bad_circuit_fails_the_call_cleanly() {
    let _serial = serial();
    bad_circuit_fails_the_call_cleanly(&CpuBackend);
}

#[test]
fn cpu_budget_bounds_preparations_without_deadlock() {
    let _serial = serial();
    budget_bounds_preparations_without_deadlock(&CpuBackend);
}

#[test]
fn cpu_one_pipeline_per_device() {
    let _serial = serial();
    one_pipeline_per_device(&CpuBackend);
}

#[test]
fn staging_buffers_setting_refuses_nonsense() {
    let _serial = serial();
    assert!(settings::set_staging_buffers(0).is_err());
    assert!(settings::set_staging_buffers(settings::MAX_STAGING_BUFFERS + 1).is_err());
    assert_eq!(settings::staging_buffers(), 2);
}

// ---------------------------------------------------------------------------------------------
// The CUDA backend (skipped without a GPU)

#[cfg(groth16_c2_cuda)]
mod gpu {
    use super::*;
    use common::gpu::gpu_or_skip;
    use groth16_c2::backend::CudaBackend;

    #[test]
    fn gpu_batch_is_pipelined_and_bounded() {
        let _serial = serial();
        if gpu_or_skip("gpu_batch_is_pipelined_and_bounded") {
            batch_is_pipelined_and_bounded(&CudaBackend);
        }
    }

    #[test]
    fn gpu_bad_circuit_fails_the_call_cleanly() {
        let _serial = serial();
        if gpu_or_skip("gpu_bad_circuit_fails_the_call_cleanly") {
            bad_circuit_fails_the_call_cleanly(&CudaBackend);
        }
    }

    #[test]
    fn gpu_budget_bounds_preparations_without_deadlock() {
        let _serial = serial();
        if gpu_or_skip("gpu_budget_bounds_preparations_without_deadlock") {
            budget_bounds_preparations_without_deadlock(&CudaBackend);
        }
    }

    /// A copy of `v` in memory from the library's allocator.
    struct Pinned(*mut u8, usize);

    impl Pinned {
        fn copy_of(v: &[Scalar]) -> Pinned {
            let p = groth16_c2::pinned::alloc(std::mem::size_of_val(v)).unwrap();
            // SAFETY: the allocation holds the whole copy.
            unsafe {
                std::ptr::copy_nonoverlapping(v.as_ptr().cast(), p, std::mem::size_of_val(v))
            };
            Pinned(p, v.len())
        }
        fn slice(&self) -> &[Scalar] {
            // SAFETY: `len` scalars were copied in.
            unsafe { std::slice::from_raw_parts(self.0.cast(), self.1) }
        }
    }

    impl Drop for Pinned {
        fn drop(&mut self) {
            unsafe { groth16_c2::pinned::free(self.0) }.unwrap();
        }
    }

    /// `a, b, c` in page-locked memory (the library's allocator, or the host's own
    /// `cudaHostRegister`) are found, uploaded without a staging copy (the staging shrinks by
    /// their size), and prove the same bytes as from the host's own vectors, in a batch of 3.
    #[test]
    fn gpu_pinned_inputs_skip_staging_and_prove_the_same() {
        use groth16_c2::pinned::is_page_locked;
        use groth16_c2::testing::cuda::runtime::PinnedRegion;
        use groth16_c2::testing::split::split_circuit;
        let _serial = serial();
        if !gpu_or_skip("gpu_pinned_inputs_skip_staging_and_prove_the_same") {
            return;
        }
        let f = fixture(12, 3, 95);
        let (r, s) = (random_scalars(3, 7), random_scalars(3, 8));
        let own: Vec<Witness> = f.witnesses.iter().map(|(w, _)| w.witness()).collect();
        let copies: Vec<[Pinned; 3]> = own
            .iter()
            .map(|w| [w.a, w.b, w.c].map(Pinned::copy_of))
            .collect();
        // The third circuit's vectors: the host's own, registered by the host.
        let registered = [own[2].a, own[2].b, own[2].c].map(|v| v.to_vec());
        let _regions: Vec<PinnedRegion> = registered
            .iter()
            .map(|v| PinnedRegion::new(v).unwrap())
            .collect();
        let pinned: Vec<Witness> = own
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut w = *w;
                if i < 2 {
                    let [a, b, c] = &copies[i];
                    (w.a, w.b, w.c) = (a.slice(), b.slice(), c.slice());
                } else {
                    (w.a, w.b, w.c) = (&registered[0], &registered[1], &registered[2]);
                }
                w
            })
            .collect();
        for w in &pinned {
            assert!(is_page_locked(w.a) && is_page_locked(w.b) && is_page_locked(w.c));
        }
        assert!(!is_page_locked(own[0].a), "a plain Vec is not page-locked");

        let split = split_circuit(&own[0]);
        let saved =
            CudaBackend.prep_bytes(&own[0], &split) - CudaBackend.prep_bytes(&pinned[0], &split);
        assert!(
            saved >= 3 * std::mem::size_of_val(own[0].a),
            "staging shrinks by a, b, c"
        );

        let lock = GpuLock::new();
        let prove = |ws: &[Witness]| {
            groth16_c2::start(&f.srs, ws, &r, &s, options(&CudaBackend, &lock, 0))
                .and_then(|p| p.finalize())
                .unwrap()
        };
        let from_own = prove(&own);
        let from_pinned = prove(&pinned);
        assert_eq!(
            from_own, from_pinned,
            "the same proofs from page-locked inputs"
        );
        for (i, p) in from_pinned.iter().enumerate() {
            assert_verifies(&f.params, p, &f.witnesses[i].1);
        }
    }

    #[test]
    fn gpu_one_pipeline_per_device() {
        let _serial = serial();
        if gpu_or_skip("gpu_one_pipeline_per_device") {
            one_pipeline_per_device(&CudaBackend);
        }
    }
}
