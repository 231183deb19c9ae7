//! Support for GPU tests: a visible skip when no CUDA device is present (CI has none), and
//! host <-> device round trips for the kernel tests.
#![allow(dead_code)]

use groth16_c2::testing::cuda::runtime::{device_count, set_device, DeviceBuffer, Stream};

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
