//! Support for GPU tests: a visible skip when no CUDA device is present (CI has none), the
//! shared and exclusive turns on the device, and host <-> device round trips for the kernel
//! tests. Used by the `gpu` binary and by the GPU parts of `pipeline`, `interlock` and
//! `fault_injection`.
#![allow(dead_code)]

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use groth16_c2::testing::cuda::runtime::{device_count, set_device, DeviceBuffer, Stream};

/// The device as the tests of one process share it. Kernel tests (field, curve, NTT, H, MSM)
/// hold it shared for their whole run: they touch no process-wide setting, so they run side
/// by side as they did in binaries of their own. The proofs of `prove` hold it exclusively:
/// they set process-wide settings (the device-memory limit, streaming variables, the G2 tail),
/// release the device state and read the process's device-memory tallies and per-device
/// circuit counters, none of which may see another test's work meanwhile.
static GPU: RwLock<()> = RwLock::new(());

/// A kernel test's shared hold on the device; see [`GPU`].
pub type GpuShare = RwLockReadGuard<'static, ()>;

/// Exclusive use of the device by this process's tests: no kernel test and no other proof of
/// the binary runs on it until the guard drops (CPU work of other tests still runs). See
/// [`GPU`].
pub fn gpu_turn() -> RwLockWriteGuard<'static, ()> {
    GPU.write().unwrap_or_else(|e| e.into_inner())
}

/// True when a GPU is present. Otherwise prints a SKIP line straight to the terminal (past the
/// test harness's output capture, so a skipped GPU test is never mistaken for a pass).
pub fn gpu_or_skip(test: &str) -> bool {
    if device_count() > 0 {
        set_device(0).expect("cudaSetDevice(0)");
        return true;
    }
    say(&format!(
        "SKIP {test}: no CUDA device (this test needs a GPU)"
    ));
    false
}

/// [`gpu_or_skip`] for a kernel test: with a GPU, a shared hold on it for the test to keep
/// until it ends (`let Some(_gpu) = gpu_shared_or_skip(..) else { return };`).
pub fn gpu_shared_or_skip(test: &str) -> Option<GpuShare> {
    if !gpu_or_skip(test) {
        return None;
    }
    Some(GPU.read().unwrap_or_else(|e| e.into_inner()))
}

/// True when at least `n` GPUs are present; otherwise prints a SKIP line as [`gpu_or_skip`].
pub fn gpus_or_skip(test: &str, n: usize) -> bool {
    let count = device_count();
    if count >= n {
        set_device(0).expect("cudaSetDevice(0)");
        return true;
    }
    say(&format!(
        "SKIP {test}: {count} CUDA device(s) visible, this test needs {n}"
    ));
    false
}

/// Writes `line` straight to stderr, past the test harness's output capture.
pub fn say(line: &str) {
    let line = format!("{line}\n");
    // SAFETY: writing a byte buffer to fd 2.
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
}

pub fn to_device<T: Copy>(data: &[T], stream: &Stream) -> DeviceBuffer<T> {
    let mut d = DeviceBuffer::new(data.len()).unwrap();
    d.upload_async(data, stream).unwrap();
    d
}

pub fn to_host<T: Copy + Default>(d: &DeviceBuffer<T>, len: usize, stream: &Stream) -> Vec<T> {
    let mut v = vec![T::default(); len];
    d.download_async(&mut v, stream).unwrap();
    stream.synchronize().unwrap();
    v
}
