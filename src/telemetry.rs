//! Per-call stage timings, named as in Curio's logs so existing tooling keeps reading them, the
//! lock's acquire/release timestamps, and process-wide proof and verification counters.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::RwLock;

/// Milliseconds spent in each stage of one prove call (all circuits of the batch together),
/// and when the call started, took and released the GPU lock, and finished.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProofTimings {
    /// Classifying scalars into zeros, ones and the tail (the 0/1 split).
    pub split_vectors_ms: f64,
    /// Preparing the device's inputs before the lock (copying them into page-locked staging).
    pub prep_msm_ms: f64,
    /// Waiting for the GPU lock.
    pub mutex_wait_ms: f64,
    /// The H polynomial (NTTs) and its MSM.
    pub ntt_msm_h_ms: f64,
    /// Batch additions of the points whose scalar is 1.
    pub batch_add_ms: f64,
    /// Pippenger MSMs of the remaining G1 scalars.
    pub tail_msm_ms: f64,
    /// Inside the lock, the device waiting for the next circuit of the call to be prepared on
    /// the CPU (GPU idle; 0 for single-circuit calls and whenever the CPU keeps up).
    pub pipeline_wait_ms: f64,
    /// Time the lock was held (the device section).
    pub gpu_total_ms: f64,
    /// The G2 tail MSM of the B query (after the lock, unless it ran on the GPU).
    pub b_g2_msm_ms: f64,
    /// Assembling the proofs from the MSM results.
    pub epilogue_ms: f64,
    /// Checking the proofs against the verifying key (0 when verification is off).
    pub verify_ms: f64,
    /// From the start of the call to the last proof.
    pub total_ms: f64,
    /// Circuits in the call.
    pub num_circuits: usize,
    /// Circuits whose proof was checked before it was returned.
    pub circuits_verified: usize,
    /// The first GPU the call ran on (0 for the CPU backend).
    pub gpu_index: i32,
    /// Wall-clock timestamps, nanoseconds since the Unix epoch: the call's start, when it took
    /// and released the GPU lock, and when it finished (0 while still pending).
    pub start_unix_ns: u64,
    pub lock_acquired_unix_ns: u64,
    pub lock_released_unix_ns: u64,
    pub end_unix_ns: u64,
    /// Host-to-device bytes the call moved: `a, b, c`, the ones bitmaps and tails, and the SRS
    /// points it streamed (or uploaded to keep resident).
    pub h2d_bytes: u64,
    /// Milliseconds the GPU's copy streams were busy with them (they overlap the kernels).
    pub h2d_busy_ms: f64,
    /// G1 points per chunk of the streamed SRS queries (G2 chunks hold half as many); 0 when the
    /// whole SRS was resident on the GPU.
    pub stream_chunk_points: u64,
}

impl ProofTimings {
    /// Every stage by its Curio name, in pipeline order.
    pub fn stages(&self) -> [(&'static str, f64); 12] {
        [
            ("split_vectors_ms", self.split_vectors_ms),
            ("prep_msm_ms", self.prep_msm_ms),
            ("mutex_wait_ms", self.mutex_wait_ms),
            ("ntt_msm_h_ms", self.ntt_msm_h_ms),
            ("batch_add_ms", self.batch_add_ms),
            ("tail_msm_ms", self.tail_msm_ms),
            ("pipeline_wait_ms", self.pipeline_wait_ms),
            ("gpu_total_ms", self.gpu_total_ms),
            ("b_g2_msm_ms", self.b_g2_msm_ms),
            ("epilogue_ms", self.epilogue_ms),
            ("verify_ms", self.verify_ms),
            ("total_ms", self.total_ms),
        ]
    }

    /// Curio's `key=value` log line.
    pub fn log_line(&self) -> String {
        let mut line = format!(
            "groth16-c2 circuits={} gpu={}",
            self.num_circuits, self.gpu_index
        );
        for (name, ms) in self.stages() {
            line += &format!(" {name}={ms:.1}");
        }
        line += &format!(
            " verified={} lock_acquired_unix_ns={} lock_released_unix_ns={} h2d_bytes={} \
             h2d_busy_ms={:.1} stream_chunk_points={}",
            self.circuits_verified,
            self.lock_acquired_unix_ns,
            self.lock_released_unix_ns,
            self.h2d_bytes,
            self.h2d_busy_ms,
            self.stream_chunk_points
        );
        line
    }
}

impl ProofTimings {
    /// Takes in the stage times of one device of a call whose devices ran side by side: each
    /// stage took as long as its slowest device.
    pub(crate) fn absorb_parallel(&mut self, device: &ProofTimings) {
        self.split_vectors_ms = self.split_vectors_ms.max(device.split_vectors_ms);
        self.prep_msm_ms = self.prep_msm_ms.max(device.prep_msm_ms);
        self.ntt_msm_h_ms = self.ntt_msm_h_ms.max(device.ntt_msm_h_ms);
        self.batch_add_ms = self.batch_add_ms.max(device.batch_add_ms);
        self.tail_msm_ms = self.tail_msm_ms.max(device.tail_msm_ms);
        self.pipeline_wait_ms = self.pipeline_wait_ms.max(device.pipeline_wait_ms);
        self.b_g2_msm_ms = self.b_g2_msm_ms.max(device.b_g2_msm_ms);
        // Every device's copies cross its own link: bytes add up, busy time overlaps.
        self.h2d_bytes += device.h2d_bytes;
        self.h2d_busy_ms = self.h2d_busy_ms.max(device.h2d_busy_ms);
        self.stream_chunk_points = self.stream_chunk_points.max(device.stream_chunk_points);
    }
}

/// When the device lock was taken and released during a call.
#[derive(Clone, Copy, Debug)]
pub struct LockSpan {
    pub acquired: std::time::Instant,
    pub released: std::time::Instant,
}

/// Whether each circuit's shape goes to stderr as it is split (`GROTH16_C2_LOG_SHAPES=1`; see
/// `CircuitSplit::shape_line`).
pub(crate) fn log_shapes() -> bool {
    std::env::var("GROTH16_C2_LOG_SHAPES").as_deref() == Ok("1")
}

/// Whether the library keeps its notes off stderr (`GROTH16_C2_QUIET=1`).
pub(crate) fn quiet() -> bool {
    matches!(
        std::env::var("GROTH16_C2_QUIET").as_deref(),
        Ok("1" | "true" | "yes")
    )
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Nanoseconds since the Unix epoch (0 if the clock is before it).
pub(crate) fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Process-wide totals since the library was loaded.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofCounters {
    /// Calls that returned proofs.
    pub calls: u64,
    /// Circuits proved (proofs returned).
    pub circuits: u64,
    /// Proofs checked against the verifying key before they were returned.
    pub verified: u64,
    /// Proofs that failed that check (each failed its call with an error; none was returned).
    pub verify_failures: u64,
    /// Calls that failed for any reason.
    pub failed_calls: u64,
}

static CALLS: AtomicU64 = AtomicU64::new(0);
static CIRCUITS: AtomicU64 = AtomicU64::new(0);
static VERIFIED: AtomicU64 = AtomicU64::new(0);
static VERIFY_FAILURES: AtomicU64 = AtomicU64::new(0);
static FAILED_CALLS: AtomicU64 = AtomicU64::new(0);

/// The process-wide counters.
pub fn counters() -> ProofCounters {
    ProofCounters {
        calls: CALLS.load(Ordering::Relaxed),
        circuits: CIRCUITS.load(Ordering::Relaxed),
        verified: VERIFIED.load(Ordering::Relaxed),
        verify_failures: VERIFY_FAILURES.load(Ordering::Relaxed),
        failed_calls: FAILED_CALLS.load(Ordering::Relaxed),
    }
}

pub(crate) fn count_verified(ok: u64, failed: u64) {
    VERIFIED.fetch_add(ok + failed, Ordering::Relaxed);
    VERIFY_FAILURES.fetch_add(failed, Ordering::Relaxed);
}

pub(crate) fn count_failed_call() {
    FAILED_CALLS.fetch_add(1, Ordering::Relaxed);
}

/// A host's function called with every finished call's timings (on the finalizing thread).
pub type TimingsCallback = unsafe extern "C" fn(timings: *const ProofTimings, user: *mut c_void);

#[derive(Clone, Copy)]
struct Callback {
    f: TimingsCallback,
    user: usize,
}

static CALLBACK: RwLock<Option<Callback>> = RwLock::new(None);

/// Registers (or with `None` removes) the function called with each finished call's timings.
pub fn set_callback(f: Option<TimingsCallback>, user: *mut c_void) {
    *CALLBACK.write() = f.map(|f| Callback {
        f,
        user: user as usize,
    });
}

thread_local! {
    static LAST: Cell<Option<ProofTimings>> = const { Cell::new(None) };
}

/// `GROTH16_C2_LOG_TIMINGS`: 0 (default) nothing, 1 one line per call, 2 also a line per
/// streamed device section on where its time went, 3 also each of its timed ops on its stream.
fn log_level() -> u8 {
    static LEVEL: once_cell::sync::Lazy<u8> =
        once_cell::sync::Lazy::new(
            || match std::env::var("GROTH16_C2_LOG_TIMINGS").as_deref() {
                Ok("1") => 1,
                Ok("2") => 2,
                Ok("3") => 3,
                _ => 0,
            },
        );
    *LEVEL
}

/// Whether each finished call is logged as one `key=value` line on stderr.
fn log_enabled() -> bool {
    log_level() >= 1
}

/// Whether streamed device sections log their ops' times (`GROTH16_C2_LOG_TIMINGS=2`).
#[cfg_attr(not(groth16_c2_cuda), allow(dead_code))] // only the CUDA backend streams
pub(crate) fn log_stream_ops() -> bool {
    log_level() >= 2
}

/// Whether streamed device sections also print a line per timed op (`GROTH16_C2_LOG_TIMINGS=3`).
#[cfg_attr(not(groth16_c2_cuda), allow(dead_code))] // only the CUDA backend streams
pub(crate) fn log_stream_trace() -> bool {
    log_level() >= 3
}

/// Records the timings of a call that finished on this thread: counters, the thread's last
/// timings, the host's callback and the log line (`device` names the backend and GPU there; it
/// is only asked for when the line is printed).
pub(crate) fn record(t: ProofTimings, device: impl FnOnce() -> String) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    CIRCUITS.fetch_add(t.num_circuits as u64, Ordering::Relaxed);
    LAST.with(|c| c.set(Some(t)));
    if let Some(cb) = *CALLBACK.read() {
        // SAFETY: the host registered this function for exactly this call.
        unsafe { (cb.f)(&t, cb.user as *mut c_void) };
    }
    if log_enabled() {
        eprintln!("{} {}", t.log_line(), device());
    }
}

/// The timings of the last call that finished on this thread.
pub fn last_timings() -> Option<ProofTimings> {
    LAST.with(|c| c.get())
}
