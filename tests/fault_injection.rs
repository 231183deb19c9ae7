//! Faults injected on the device path (`groth16_c2::testing::fault`), through the C ABI: every device
//! allocation, page-locked host allocation, kernel launch and stream copy of a call fails once in
//! turn, and a worker panics inside the device section. Each fault must end the call with an
//! error (or, where the library has a fallback, the same proofs) and leave the caller's lock
//! free and the host-memory budget empty; the next call must give the same bytes as before, and
//! once the library releases what it keeps between calls, nothing of it may remain (device
//! memory, page-locked memory, staging buffers; the driver's count of device memory in use back
//! to where it was).
//!
//! The CUDA sites run on a GPU (a SKIP line without one); the panic inside the device section
//! also runs on the CPU backend. The driver's count is device-wide: run this test with the GPU
//! to itself (other programs allocating there at the same time make it fail).

mod common;

use std::io::Write;

use bench_support::synthetic::PorepShapedCircuit;
use blstrs::Scalar;
use common::*;
use groth16_c2::testing::fault::{self, Site};
use groth16_c2::witness::RecordedWitness;
use groth16_c2::{ffi, host_memory, Assignment, GpuLock, Proof};

struct Fixture {
    _params: ParamsFile,
    srs: CSrs,
    witnesses: Vec<RecordedWitness>,
    r: Vec<Scalar>,
    s: Vec<Scalar>,
}

/// Two circuits per call, so the second one's preparation runs beside the first's device
/// section (the pipeline's thread, its staging, its reservation).
fn fixture() -> Fixture {
    let log_n = 10;
    let params = params_file(PorepShapedCircuit::new(log_n, None), 7);
    let srs = CSrs::load(&params.path, false).unwrap();
    let witnesses = (0..2)
        .map(|i| record(PorepShapedCircuit::new(log_n, Some(700 + i))))
        .collect();
    Fixture {
        _params: params,
        srs,
        witnesses,
        r: random_scalars(2, 71),
        s: random_scalars(2, 72),
    }
}

/// What the library holds once it has released everything it keeps between calls: device
/// memory and page-locked host memory through its own allocations, the idle staging buffers
/// (count, bytes), and the device memory in use as the driver reports it (every allocation of
/// the process, in MiB). All zero but the last after a call that leaked nothing; `None`s on the
/// CPU backend.
#[derive(Debug, Clone, Copy)]
struct Held {
    vram: Option<usize>,
    page_locked: Option<usize>,
    staging_pool: Option<(usize, usize)>,
    device_used_mib: Option<f64>,
}

/// Driver slack in the device memory in use (its own bookkeeping, not ours).
const DEVICE_SLACK_MIB: f64 = 8.0;

fn released() -> Held {
    ffi::groth16_c2_release_gpu_memory();
    Held {
        vram: groth16_c2::gpu_memory().map(|(now, _)| now),
        page_locked: groth16_c2::page_locked_memory(),
        staging_pool: groth16_c2::staging_pool(),
        device_used_mib: groth16_c2::device_memory_info(0)
            .map(|(free, total)| (total - free) as f64 / (1 << 20) as f64),
    }
}

#[track_caller]
fn assert_nothing_kept(now: Held, baseline: Held, at: &str) {
    assert!(
        now.vram.is_none_or(|b| b == 0),
        "{at}: device memory kept: {now:?}"
    );
    assert!(
        now.page_locked.is_none_or(|b| b == 0),
        "{at}: page-locked memory kept: {now:?}"
    );
    assert!(
        now.staging_pool.is_none_or(|p| p == (0, 0)),
        "{at}: staging kept: {now:?}"
    );
    if let (Some(n), Some(b)) = (now.device_used_mib, baseline.device_used_mib) {
        assert!(
            n <= b + DEVICE_SLACK_MIB,
            "{at}: device memory in use grew: {now:?} vs {baseline:?} (the driver's \
             device-wide count: was another program using the GPU?)"
        );
    }
}

impl Fixture {
    /// One call through `generate_groth16_proofs_start_c` + `finalize_groth16_proof_c` on GPU 0
    /// with the caller's `lock`, from a device with nothing allocated (so every allocation of
    /// the call happens inside it).
    fn prove(&self, lock: &CLock) -> Result<Vec<Proof>, (i32, String)> {
        ffi::groth16_c2_release_gpu_memory();
        let assignments: Vec<Assignment> = self.witnesses.iter().map(|w| w.assignment()).collect();
        start_raw(&self.srs, &assignments, &self.r, &self.s, lock.0, 0)?.finalize()
    }
}

/// What the faults of one site did over every pass of a call.
#[derive(Debug, Default)]
struct SiteTally {
    passes: u64,
    errors: u64,
    fallbacks: u64,
}

/// Fails each pass through `site` of a call in turn; checks the outcome and what is left.
fn walk_site(
    f: &Fixture,
    lock: &CLock,
    site: Site,
    expected: &[Proof],
    baseline: Held,
) -> SiteTally {
    let gpu_lock = unsafe { &*(lock.0 as *const GpuLock) };
    let mut tally = SiteTally::default();
    for let_through in 0.. {
        fault::arm(site, let_through);
        let outcome = f.prove(lock);
        let report = fault::disarm().expect("armed");
        if !report.fired {
            // Every pass of the call was let through: the call is whole again.
            tally.passes = report.passes;
            assert_eq!(
                outcome.as_deref(),
                Ok(expected),
                "{site:?}: an unfaulted call"
            );
            break;
        }
        let at = format!("{site:?}, pass {} of the call", let_through + 1);
        match outcome {
            Ok(proofs) => {
                // A fallback (pageable uploads when no page-locked staging can be had).
                assert!(proofs == expected, "{at}: a fallback gave other proofs");
                tally.fallbacks += 1;
            }
            Err((code, msg)) => {
                let expected_code = if site == Site::DeviceSectionPanic {
                    ffi::GROTH16_C2_ERR_PANIC
                } else {
                    ffi::GROTH16_C2_ERR_CUDA
                };
                assert_eq!(code, expected_code, "{at}: {msg}");
                assert!(msg.contains("injected fault"), "{at}: {msg}");
                tally.errors += 1;
            }
        }
        assert!(!gpu_lock.is_held(), "{at}: the caller's lock is still held");
        assert_eq!(
            host_memory::usage().0,
            0,
            "{at}: host memory still reserved"
        );
        // The next call proves the same bytes and leaves what a clean call leaves.
        let again = f.prove(lock);
        assert_eq!(
            again.as_deref(),
            Ok(expected),
            "{at}: the call after the fault"
        );
        assert_nothing_kept(released(), baseline, &at);
    }
    tally
}

fn walk(sites: &[Site]) {
    let f = fixture();
    let lock = CLock::new();
    let expected = f.prove(&lock).expect("a clean call");
    assert!(expected.iter().all(|p| *p != zero_proof()));
    let baseline = released();
    assert_nothing_kept(baseline, baseline, "a clean call");
    let again = f.prove(&lock);
    assert_eq!(again.as_deref(), Ok(&expected[..]), "deterministic");
    assert_nothing_kept(released(), baseline, "a second clean call");
    for &site in sites {
        let t = walk_site(&f, &lock, site, &expected, baseline);
        // Past the harness's capture, so that a passing run still shows what it covered.
        let _ = writeln!(
            std::io::stderr(),
            "fault injection {site:?}: {} passes per call, each failed once: {} errors, {} \
             fallbacks with the same proofs",
            t.passes,
            t.errors,
            t.fallbacks
        );
        assert!(
            t.passes > 0,
            "{site:?}: the call never passed through the site"
        );
        assert_eq!(t.errors + t.fallbacks, t.passes);
    }
}

/// The fault switch is process-wide: one test at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The fault switch itself: counts passes, fires once, and is inert when disarmed.
#[test]
fn an_armed_site_fails_once_after_the_passes_it_lets_through() {
    let _serial = serial();
    assert_eq!(fault::disarm(), None);
    fault::arm(Site::Copy, 2);
    let fired: Vec<bool> = (0..5).map(|_| fault::strikes(Site::Copy)).collect();
    assert!(
        !fault::strikes(Site::DeviceAlloc),
        "another site is not armed"
    );
    assert_eq!(fired, [false, false, true, false, false]);
    assert_eq!(
        fault::disarm(),
        Some(fault::Report {
            passes: 5,
            fired: true
        })
    );
    assert!(!fault::strikes(Site::Copy), "disarmed");
}

/// A panic inside the device section of either circuit of a call, on the backend this build
/// proves with (the CPU here on CI; on a GPU build with a GPU, the CUDA section with uploads
/// and the H stage in flight).
#[test]
fn a_panic_inside_the_device_section_fails_the_call_and_leaks_nothing() {
    let _serial = serial();
    walk(&[Site::DeviceSectionPanic]);
}

#[cfg(groth16_c2_cuda)]
#[test]
fn gpu_each_allocation_launch_and_copy_failing_once_fails_the_call_cleanly() {
    let _serial = serial();
    if common::gpu::gpu_or_skip(
        "gpu_each_allocation_launch_and_copy_failing_once_fails_the_call_cleanly",
    ) {
        walk(&[
            Site::DeviceAlloc,
            Site::HostAlloc,
            Site::KernelLaunch,
            Site::Copy,
        ]);
    }
}
