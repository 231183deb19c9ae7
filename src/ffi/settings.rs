//! Run-time settings and telemetry for hosts: proof checks, the CPU thread pool, where the G2
//! tail MSM runs, the staging buffers per call and the host-memory budget, process-wide
//! counters, a timings callback, and releasing device memory.

use std::ffi::c_void;

use super::panic::{guard, guard_or};
use super::{arg_mut, CError};
use crate::settings;
use crate::telemetry::{self, ProofCounters, ProofTimings};

/// Turns the check of every proof against the verifying key before it is returned on (the
/// default; `GROTH16_C2_VERIFY=0` starts with it off) or off.
#[no_mangle]
pub extern "C" fn groth16_c2_set_verify_proofs(on: bool) {
    guard_or((), || settings::set_verify_proofs(on))
}

/// Sets the number of CPU threads the prover uses (0: one per core; the default comes from
/// `CUZK_GPU_THREADS`). Calls that start afterwards use the new pool.
#[no_mangle]
pub extern "C" fn groth16_c2_set_thread_pool_size(threads: usize) -> CError {
    guard(|| settings::set_threads(threads))
}

/// The number of CPU threads the prover uses.
#[no_mangle]
pub extern "C" fn groth16_c2_thread_pool_size() -> usize {
    guard_or(0, settings::threads)
}

/// Runs the B query's G2 tail MSM on the GPU inside the lock (`true`, the default) or on the
/// CPU after the lock is released (`false`; `GROTH16_C2_G2_TAIL=cpu` starts with `false`).
/// The CPU backend always runs it after the lock.
#[no_mangle]
pub extern "C" fn groth16_c2_set_g2_tail_on_gpu(on: bool) {
    guard_or((), || settings::set_g2_tail_on_gpu(on))
}

/// Sets how many circuits of one call are split and staged at once per device (1 to 64; the
/// default 2, or `GROTH16_C2_STAGING_BUFFERS`, overlaps the next circuit's preparation with the
/// current one's device section). Calls that start afterwards use it.
#[no_mangle]
pub extern "C" fn groth16_c2_set_staging_buffers(buffers: usize) -> CError {
    guard(|| settings::set_staging_buffers(buffers))
}

/// Sets the host-memory budget in bytes (0, the default: none; `GROTH16_C2_HOST_MEMORY_BUDGET`,
/// e.g. `64G`, sets it at start): the split vectors and page-locked staging that proofs in
/// flight may hold together. A circuit's preparation waits until it fits, except when its call
/// holds the GPU and nothing else, so workers never deadlock on it.
#[no_mangle]
pub extern "C" fn groth16_c2_set_host_memory_budget(bytes: u64) {
    guard_or((), || crate::host_memory::set_budget(bytes))
}

/// Caps the device memory the library holds on each GPU, in bytes (0, the default: no cap but
/// the GPU's free memory; `GROTH16_C2_VRAM_LIMIT`, e.g. `16G`, sets it at start). Proofs keep
/// what fits of the SRS on the device and stream the rest from page-locked host memory; a proof
/// that cannot fit even streamed fails with `GROTH16_C2_ERR_OUT_OF_DEVICE_MEMORY` naming the
/// minimum. Takes effect for proofs that start afterwards.
#[no_mangle]
pub extern "C" fn groth16_c2_set_vram_limit(bytes: u64) {
    guard_or((), || crate::settings::set_vram_limit(bytes))
}

/// The device-memory cap per GPU in bytes (0: none).
#[no_mangle]
pub extern "C" fn groth16_c2_vram_limit() -> u64 {
    guard_or(0, crate::settings::vram_limit)
}

/// Host memory the library holds for proofs in flight now, and the most it held at once, in
/// bytes (into `*now` and `*peak`, either may be NULL).
///
/// # Safety
/// Non-NULL pointers must be writable.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_host_memory_in_use(now: *mut u64, peak: *mut u64) {
    guard_or((), || {
        let (n, p) = crate::host_memory::usage();
        if let Some(now) = now.as_mut() {
            *now = n;
        }
        if let Some(peak) = peak.as_mut() {
            *peak = p;
        }
    })
}

/// Copies the process-wide counters (calls, circuits, proofs checked, failed checks, failed
/// calls) into `*out`.
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_counters(out: *mut ProofCounters) -> CError {
    guard(|| {
        *arg_mut(out, "out")? = telemetry::counters();
        Ok(())
    })
}

/// Registers `callback`, called with every finished call's timings on the finalizing thread
/// (`user` is passed back unchanged); NULL removes it. The timings pointer is valid only during
/// the call. The callback must not unwind and should return quickly.
///
/// # Safety
/// `callback` must stay callable, and `user` valid for it, until it is replaced or removed.
#[no_mangle]
pub unsafe extern "C" fn groth16_c2_set_timings_callback(
    callback: Option<unsafe extern "C" fn(timings: *const ProofTimings, user: *mut c_void)>,
    user: *mut c_void,
) {
    guard_or((), || telemetry::set_callback(callback, user))
}

/// Frees the device memory the library keeps between proofs (working buffers and resident SRS
/// copies on every GPU) and its idle page-locked staging buffers, after proofs running on them
/// finish. The next proof allocates again.
#[no_mangle]
pub extern "C" fn groth16_c2_release_gpu_memory() {
    guard_or((), crate::release_gpu_memory)
}
