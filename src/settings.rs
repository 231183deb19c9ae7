//! Process-wide settings a host may change at run time: whether proofs are checked before they
//! are returned, and how many CPU threads the prover uses. Each starts from an environment
//! variable, so hosts that cannot call new C functions can still set them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use once_cell::sync::Lazy;
use parking_lot::RwLock;
use rayon::ThreadPool;

use crate::error::{Error, Result};

/// Whether proofs are verified before they are returned: on unless `GROTH16_C2_VERIFY=0`.
static VERIFY: Lazy<AtomicBool> =
    Lazy::new(|| AtomicBool::new(std::env::var("GROTH16_C2_VERIFY").as_deref() != Ok("0")));

/// Whether `finalize` checks each proof with the verifying key before returning it.
pub fn verify_proofs() -> bool {
    VERIFY.load(Ordering::Relaxed)
}

/// Turns the check of each proof before it is returned on or off (default on).
pub fn set_verify_proofs(on: bool) {
    VERIFY.store(on, Ordering::Relaxed)
}

/// The prover's CPU threads. Replaced, not resized, by [`set_threads`]: calls already running
/// keep the pool they started on.
static POOL: Lazy<RwLock<Arc<ThreadPool>>> =
    Lazy::new(|| RwLock::new(Arc::new(build_pool(threads_from_env()))));

/// `CUZK_GPU_THREADS` (the name Curio's fork reads), else 0 (one per core).
fn threads_from_env() -> usize {
    std::env::var("CUZK_GPU_THREADS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

fn build_pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("groth16-c2-{i}"))
        .build()
        .expect("spawning the prover's threads")
}

/// The pool the prover's CPU work runs on.
pub(crate) fn pool() -> Arc<ThreadPool> {
    POOL.read().clone()
}

/// Sets the number of CPU threads the prover uses (0: one per core). Takes effect for calls
/// that start afterwards.
pub fn set_threads(threads: usize) -> Result<()> {
    if threads > 4096 {
        return Err(Error::invalid(format!(
            "{threads} CPU threads is not a sensible pool size"
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("groth16-c2-{i}"))
        .build()
        .map_err(|e| Error::invalid(format!("cannot start {threads} threads: {e}")))?;
    *POOL.write() = Arc::new(pool);
    Ok(())
}

/// Threads in the prover's pool.
pub fn threads() -> usize {
    pool().current_num_threads()
}

/// Where a GPU backend runs the B query's G2 tail MSM: on the GPU inside the lock (default), or
/// on the CPU after the lock is released (`GROTH16_C2_G2_TAIL=cpu`). Measured on an H200 with
/// 16 cores at 2^24: 41 ms on the GPU against 1.0-1.6 s on the CPU, which then became the
/// bottleneck of two workers (45% GPU busy against 96%). The CPU path suits hosts with many
/// more cores per GPU.
static G2_TAIL_ON_GPU: Lazy<AtomicBool> =
    Lazy::new(|| AtomicBool::new(std::env::var("GROTH16_C2_G2_TAIL").as_deref() != Ok("cpu")));

/// Whether a GPU backend runs the G2 tail MSM inside the lock.
pub fn g2_tail_on_gpu() -> bool {
    G2_TAIL_ON_GPU.load(Ordering::Relaxed)
}

/// Whether a GPU backend runs the G2 tail MSM of a B query with `tail` of its `points` in the
/// tail: as set, except that a tail of more than half the points always runs on the GPU. PoSt's
/// B queries are such (99% of the points at 2 KiB: Poseidon state, not bits): at 32 GiB that is
/// some 90 M G2 points, minutes on a CPU and a fraction of a second on a GPU, where a PoRep
/// tail (5%) is the small job the setting is about.
pub fn g2_tail_on_gpu_for(tail: usize, points: usize) -> bool {
    g2_tail_on_gpu() || 2 * tail > points
}

/// Moves the G2 tail MSM onto the GPU (inside the lock) or back to the CPU (after it).
pub fn set_g2_tail_on_gpu(on: bool) {
    G2_TAIL_ON_GPU.store(on, Ordering::Relaxed)
}

/// Circuits of one call prepared at once per device (split and staged): the one in its device
/// section and those waiting for it. 2 (the default) overlaps the next circuit's preparation
/// with the current one's device section; 1 prepares each after the one before has finished
/// (less memory, the GPU waits); more only helps when preparation times vary a lot. From
/// `GROTH16_C2_STAGING_BUFFERS`.
static STAGING_BUFFERS: Lazy<std::sync::atomic::AtomicUsize> = Lazy::new(|| {
    let env = std::env::var("GROTH16_C2_STAGING_BUFFERS").ok();
    let parsed = env.as_deref().map(|v| v.trim().parse::<usize>());
    let value = match parsed {
        Some(Ok(n)) if (1..=MAX_STAGING_BUFFERS).contains(&n) => n,
        None => 2,
        Some(_) => {
            eprintln!(
                "groth16-c2: ignoring GROTH16_C2_STAGING_BUFFERS={:?} (1..={MAX_STAGING_BUFFERS})",
                env.unwrap_or_default()
            );
            2
        }
    };
    std::sync::atomic::AtomicUsize::new(value)
});

/// The most circuits a call may prepare at once per device.
/// cbindgen:ignore
pub const MAX_STAGING_BUFFERS: usize = 64;

/// Circuits of one call prepared at once per device.
pub fn staging_buffers() -> usize {
    STAGING_BUFFERS.load(Ordering::Relaxed)
}

/// Sets how many circuits of one call are prepared at once per device (1..=64).
pub fn set_staging_buffers(n: usize) -> Result<()> {
    if !(1..=MAX_STAGING_BUFFERS).contains(&n) {
        return Err(Error::invalid(format!(
            "{n} staging buffers: use 1 to {MAX_STAGING_BUFFERS} (2 overlaps preparation with \
             the device)"
        )));
    }
    STAGING_BUFFERS.store(n, Ordering::Relaxed);
    Ok(())
}

/// The most device memory the library holds on each GPU, in bytes (0: no limit but the
/// GPU's free memory). Starts from `GROTH16_C2_VRAM_LIMIT` (e.g. `16G`): for hosts that share a
/// GPU with other work, and to see on a large card what a smaller one would do.
static VRAM_LIMIT: Lazy<std::sync::atomic::AtomicU64> = Lazy::new(|| {
    let from_env = std::env::var("GROTH16_C2_VRAM_LIMIT").ok().and_then(|v| {
        match crate::host_memory::parse_bytes(&v) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                eprintln!("groth16-c2: ignoring GROTH16_C2_VRAM_LIMIT: {e}");
                None
            }
        }
    });
    std::sync::atomic::AtomicU64::new(from_env.unwrap_or(0))
});

/// The device-memory limit per GPU in bytes (0: none).
pub fn vram_limit() -> u64 {
    VRAM_LIMIT.load(Ordering::Relaxed)
}

/// Sets the device-memory limit per GPU in bytes (0: none). Proofs that start afterwards plan
/// their memory within it; what the library already holds beyond it is released by their
/// planning.
pub fn set_vram_limit(bytes: u64) {
    VRAM_LIMIT.store(bytes, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mostly_tail_g2_query_stays_on_the_gpu_whatever_the_setting() {
        set_g2_tail_on_gpu(false);
        // PoRep's B: 5% tail goes where the host asked.
        assert!(!g2_tail_on_gpu_for(5, 100));
        assert!(!g2_tail_on_gpu_for(50, 100), "half is not more than half");
        // PoSt's B: 99% tail runs on the GPU anyway.
        assert!(g2_tail_on_gpu_for(99, 100));
        assert!(g2_tail_on_gpu_for(51, 100));
        assert!(
            !g2_tail_on_gpu_for(0, 0),
            "an empty query has no tail to move"
        );
        set_g2_tail_on_gpu(true);
        assert!(g2_tail_on_gpu_for(5, 100));
        assert!(g2_tail_on_gpu_for(0, 0));
    }
}
