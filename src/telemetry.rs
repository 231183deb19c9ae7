//! Per-call stage timings, named as in Curio's logs so existing tooling keeps reading them.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// Milliseconds spent in each stage of one prove call (all circuits of the batch together).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProofTimings {
    /// Classifying scalars into zeros, ones and the tail (the 0/1 split).
    pub split_vectors_ms: f64,
    /// Building the MSM inputs the backend needs (pointers, canonical scalars).
    pub prep_msm_ms: f64,
    /// Waiting for the GPU lock.
    pub mutex_wait_ms: f64,
    /// The H polynomial (NTTs) and its MSM.
    pub ntt_msm_h_ms: f64,
    /// Batch additions of the points whose scalar is 1.
    pub batch_add_ms: f64,
    /// Pippenger MSMs of the remaining G1 scalars.
    pub tail_msm_ms: f64,
    /// Time the lock was held (the device section).
    pub gpu_total_ms: f64,
    /// The G2 tail MSM of the B query (after the lock).
    pub b_g2_msm_ms: f64,
    /// Assembling the proofs from the MSM results.
    pub epilogue_ms: f64,
    /// From the start of the call to the last proof.
    pub total_ms: f64,
    /// Circuits in the call.
    pub num_circuits: usize,
}

impl ProofTimings {
    /// Curio's `key=value` log line.
    pub fn log_line(&self) -> String {
        format!(
            "groth16-c2 circuits={} split_vectors_ms={:.1} prep_msm_ms={:.1} mutex_wait_ms={:.1} ntt_msm_h_ms={:.1} batch_add_ms={:.1} tail_msm_ms={:.1} gpu_total_ms={:.1} b_g2_msm_ms={:.1} epilogue_ms={:.1} total_ms={:.1}",
            self.num_circuits,
            self.split_vectors_ms,
            self.prep_msm_ms,
            self.mutex_wait_ms,
            self.ntt_msm_h_ms,
            self.batch_add_ms,
            self.tail_msm_ms,
            self.gpu_total_ms,
            self.b_g2_msm_ms,
            self.epilogue_ms,
            self.total_ms
        )
    }
}

/// When the device lock was taken and released during a call.
#[derive(Clone, Copy, Debug)]
pub struct LockSpan {
    pub acquired: Instant,
    pub released: Instant,
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

thread_local! {
    static LAST: Cell<Option<ProofTimings>> = const { Cell::new(None) };
}

/// Records the timings of a call that finished on this thread, and logs them when
/// `GROTH16_C2_LOG_TIMINGS=1`.
pub(crate) fn record(t: ProofTimings) {
    LAST.with(|c| c.set(Some(t)));
    if std::env::var("GROTH16_C2_LOG_TIMINGS").as_deref() == Ok("1") {
        eprintln!("{}", t.log_line());
    }
}

/// The timings of the last call that finished on this thread.
pub fn last_timings() -> Option<ProofTimings> {
    LAST.with(|c| c.get())
}
