//! What each GPU is and whether this build carries code it can run, found once per process, so
//! a GPU whose architecture the build lacks fails with a message naming the fix before any
//! proof starts, never with a failed launch deep inside one.

use std::ffi::{c_char, c_int, CStr};

use once_cell::sync::OnceCell;

use super::ffi;
use super::runtime::{check, device_count};
use crate::error::{Error, Result};

/// CUDA's `cudaErrorNoKernelImageForDevice`.
const NO_KERNEL_IMAGE: c_int = 209;

/// The architectures this library was built for, as build.rs describes them
/// (`sm_75,...,sm_120+compute_75`, or `native`).
pub const BUILT_ARCHS: &str = env!("GROTH16_C2_BUILD_CUDA_ARCHS");

/// One visible GPU.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    pub index: usize,
    pub name: String,
    pub major: i32,
    pub minor: i32,
    pub total_memory: usize,
    /// The architecture of the code the driver loaded for it (e.g. 90), or why none loads.
    pub code: std::result::Result<i32, String>,
}

impl GpuInfo {
    /// `sm_90`-style name of the GPU's architecture.
    pub fn sm(&self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }

    /// One line for the start-up report.
    pub fn describe(&self) -> String {
        let gib = self.total_memory as f64 / (1u64 << 30) as f64;
        let code = match &self.code {
            Ok(v) if *v == self.major * 10 + self.minor => "native code".to_string(),
            Ok(v) => format!("runs this build's sm_{v} code"),
            Err(_) => "NO CODE IN THIS BUILD".to_string(),
        };
        format!(
            "GPU {} {} ({}, {gib:.1} GiB): {code}",
            self.index,
            self.name,
            self.sm()
        )
    }
}

/// Every visible GPU, probed on first use (each probe creates the device's context and loads
/// one kernel module; a GPU newer than every architecture in the build compiles the embedded
/// PTX here, once).
pub fn gpus() -> &'static [GpuInfo] {
    static GPUS: OnceCell<Vec<GpuInfo>> = OnceCell::new();
    GPUS.get_or_init(|| (0..device_count()).map(probe).collect())
}

fn probe(index: usize) -> GpuInfo {
    let mut name = [0 as c_char; 256];
    let (mut major, mut minor, mut total_memory) = (0, 0, 0);
    // SAFETY: the buffers are writable and their sizes passed.
    let info = unsafe {
        ffi::g16_device_info(
            index as c_int,
            name.as_mut_ptr(),
            name.len(),
            &mut major,
            &mut minor,
            &mut total_memory,
        )
    };
    let name = if info == ffi::SUCCESS {
        // SAFETY: g16_device_info NUL-terminates within the buffer.
        unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!(
            "(unknown: {})",
            cuda_message("cudaGetDeviceProperties", info)
        )
    };
    let (mut binary, mut ptx) = (0, 0);
    // SAFETY: writes two ints.
    let image = unsafe { ffi::g16_kernel_image_check(index as c_int, &mut binary, &mut ptx) };
    let code = if image == ffi::SUCCESS {
        Ok(binary)
    } else {
        Err(cuda_message("cudaFuncGetAttributes", image))
    };
    let mut gpu = GpuInfo {
        index,
        name,
        major,
        minor,
        total_memory,
        code,
    };
    if image == NO_KERNEL_IMAGE {
        gpu.code = Err(format!(
            "this build of groth16-c2 has GPU code for {BUILT_ARCHS}, none of which {} runs",
            gpu.sm()
        ));
    }
    gpu
}

fn cuda_message(call: &'static str, code: c_int) -> String {
    match check(call, code) {
        Err(e) => e.to_string(),
        Ok(()) => String::new(),
    }
}

/// Fails for a GPU the build cannot run, naming the setting to rebuild with.
pub fn check_device(index: usize) -> Result<()> {
    let Some(gpu) = gpus().get(index) else {
        return Ok(()); // not visible: the device calls that follow report it
    };
    match &gpu.code {
        Ok(_) => Ok(()),
        Err(why) => Err(Error::UnsupportedGpu(format!(
            "GPU {} ({}, {}) cannot run groth16-c2's kernels: {why}. Rebuild with \
             GROTH16_C2_CUDA_ARCHS={}{} (or add it to the list you build for), or set \
             GROTH16_C2_BACKEND=cpu to prove on the CPU",
            gpu.index,
            gpu.name,
            gpu.sm(),
            gpu.major,
            gpu.minor
        ))),
    }
}
