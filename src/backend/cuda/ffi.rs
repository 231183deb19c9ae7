//! Raw declarations: the few CUDA runtime calls we use and the launchers of `cuda/launcher.h`.
//! Only `runtime.rs` and `kernels.rs` call them.

use std::ffi::{c_char, c_int, c_uint, c_void};

pub type CudaError = c_int;
pub type Stream = *mut c_void;
pub type Event = *mut c_void;

pub const SUCCESS: CudaError = 0;
pub const ERROR_HOST_MEMORY_ALREADY_REGISTERED: CudaError = 712;
/// `cudaErrorMemoryAllocation`: the optional VRAM users (the NTT's top table, the H query's
/// copies) treat it as "go without".
pub const ERROR_MEMORY_ALLOCATION: CudaError = 2;

pub const MEMCPY_HOST_TO_DEVICE: c_int = 1;
pub const MEMCPY_DEVICE_TO_HOST: c_int = 2;
pub const MEMCPY_DEVICE_TO_DEVICE: c_int = 3;
pub const STREAM_NON_BLOCKING: c_uint = 1;
pub const EVENT_DISABLE_TIMING: c_uint = 2;
/// Pinned for every device's context, not only the current one.
pub const HOST_REGISTER_PORTABLE: c_uint = 1;
/// Page-locked for every device's context.
pub const HOST_ALLOC_PORTABLE: c_uint = 1;

/// `cudaMemoryTypeHost`: page-locked host memory (cudaHostAlloc or cudaHostRegister).
pub const MEMORY_TYPE_HOST: c_int = 1;

/// `struct cudaPointerAttributes` (CUDA 11+; CUDA 13 added the reserved words, which older
/// runtimes leave alone).
#[repr(C)]
pub struct PointerAttributes {
    pub memory_type: c_int,
    pub device: c_int,
    pub device_pointer: *mut c_void,
    pub host_pointer: *mut c_void,
    pub reserved: [std::ffi::c_long; 8],
}

extern "C" {
    pub fn cudaPointerGetAttributes(
        attributes: *mut PointerAttributes,
        ptr: *const c_void,
    ) -> CudaError;
    pub fn cudaGetDeviceCount(count: *mut c_int) -> CudaError;
    pub fn cudaSetDevice(device: c_int) -> CudaError;
    pub fn cudaGetDevice(device: *mut c_int) -> CudaError;
    pub fn cudaGetErrorString(error: CudaError) -> *const c_char;
    pub fn cudaGetLastError() -> CudaError;
    pub fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> CudaError;
    pub fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> CudaError;
    pub fn cudaFree(ptr: *mut c_void) -> CudaError;
    pub fn cudaMemcpyAsync(
        dst: *mut c_void,
        src: *const c_void,
        count: usize,
        kind: c_int,
        stream: Stream,
    ) -> CudaError;
    pub fn cudaMemsetAsync(
        dst: *mut c_void,
        value: c_int,
        count: usize,
        stream: Stream,
    ) -> CudaError;
    pub fn cudaStreamCreateWithFlags(stream: *mut Stream, flags: c_uint) -> CudaError;
    pub fn cudaStreamDestroy(stream: Stream) -> CudaError;
    pub fn cudaStreamSynchronize(stream: Stream) -> CudaError;
    pub fn cudaStreamWaitEvent(stream: Stream, event: Event, flags: c_uint) -> CudaError;
    pub fn cudaEventCreateWithFlags(event: *mut Event, flags: c_uint) -> CudaError;
    pub fn cudaEventDestroy(event: Event) -> CudaError;
    pub fn cudaEventRecord(event: Event, stream: Stream) -> CudaError;
    pub fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> CudaError;
    pub fn cudaHostUnregister(ptr: *mut c_void) -> CudaError;
    pub fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> CudaError;
    pub fn cudaFreeHost(ptr: *mut c_void) -> CudaError;
    pub fn cudaEventSynchronize(event: Event) -> CudaError;
    pub fn cudaEventElapsedTime(ms: *mut f32, start: Event, end: Event) -> CudaError;
}

extern "C" {
    #[cfg(feature = "gpu-test-kernels")]
    pub fn g16_fr_test_op(
        op: c_int,
        a: *const c_void,
        b: *const c_void,
        out: *mut c_void,
        n: usize,
        stream: Stream,
    ) -> c_int;
    #[cfg(feature = "gpu-test-kernels")]
    pub fn g16_fp_test_op(
        op: c_int,
        a: *const c_void,
        b: *const c_void,
        out: *mut c_void,
        n: usize,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_table_init(
        table: *mut c_void,
        lg_max: u32,
        omega_max: *const c_void,
        omega_max_inv: *const c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt(
        data: *mut c_void,
        lg_n: u32,
        inverse: c_int,
        bitrev_in: c_int,
        bitrev_out: c_int,
        table: *const c_void,
        lg_max: u32,
        top: *const c_void,
        top_lg: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_top_table_init(
        top: *mut c_void,
        lg_n: u32,
        table: *const c_void,
        lg_max: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_coset_table_init(
        coset: *mut c_void,
        lg_n: u32,
        omega2: *const c_void,
        beta2: *const c_void,
        kappa2: *const c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_coset(
        data: *mut c_void,
        lg_n: u32,
        inverse: c_int,
        table: *const c_void,
        lg_max: u32,
        coset: *const c_void,
        top: *const c_void,
        top_lg: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_lde(
        data: *mut c_void,
        lg_n: u32,
        table: *const c_void,
        lg_max: u32,
        coset: *const c_void,
        top: *const c_void,
        top_lg: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_ntt_lde_quotient(
        a: *mut c_void,
        b: *const c_void,
        c: *mut c_void,
        lg_n: u32,
        table: *const c_void,
        lg_max: u32,
        coset: *const c_void,
        top: *const c_void,
        top_lg: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_scale_powers(
        data: *mut c_void,
        lg_n: u32,
        first: *const c_void,
        ratio: *const c_void,
        index_bitrev: c_int,
        stream: Stream,
    ) -> c_int;
    pub fn g16_h_pointwise(
        a: *mut c_void,
        b: *const c_void,
        c: *const c_void,
        n: usize,
        factor: *const c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_bit_reverse(data: *mut c_void, lg_n: u32, stream: Stream) -> c_int;
    pub fn g16_msm_index_rebase(index: *mut u32, n: usize, base: u32, stream: Stream) -> c_int;
    #[allow(clippy::too_many_arguments)]
    pub fn g16_msm_gather_tail(
        curve: c_int,
        points: *const c_void,
        n_points: usize,
        index: *const u32,
        base: u32,
        scalars: *const c_void,
        n: usize,
        out_points: *mut c_void,
        out_scalars: *mut c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_msm_accumulate(
        curve: c_int,
        points: *const c_void,
        n_points: usize,
        index: *const u32,
        scalars: *const c_void,
        montgomery: c_int,
        n: usize,
        n_cap: usize,
        strategy: c_int,
        buckets: *mut c_void,
        buckets_bytes: usize,
        workspace: *mut c_void,
        workspace_bytes: usize,
        first: c_int,
        stream: Stream,
    ) -> c_int;
    pub fn g16_msm_accumulated(
        curve: c_int,
        n_cap: usize,
        strategy: c_int,
        buckets: *mut c_void,
        buckets_bytes: usize,
        workspace: *mut c_void,
        workspace_bytes: usize,
        result: *mut c_void,
        stream: Stream,
    ) -> c_int;
    #[cfg(feature = "gpu-test-kernels")]
    pub fn g16_curve_test_op(
        curve: c_int,
        op: c_int,
        a: *const c_void,
        b: *const c_void,
        out: *mut c_void,
        n: usize,
        stream: Stream,
    ) -> c_int;
    pub fn g16_msm_precompute(
        curve: c_int,
        points: *mut c_void,
        n_points: usize,
        window: u32,
        copies: u32,
        stream: Stream,
    ) -> c_int;
    pub fn g16_msm(
        curve: c_int,
        points: *const c_void,
        n_points: usize,
        index: *const u32,
        scalars: *const c_void,
        montgomery: c_int,
        n: usize,
        strategy: c_int,
        workspace: *mut c_void,
        workspace_bytes: usize,
        result: *mut c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_srs_decode(
        curve: c_int,
        points: *mut c_void,
        n: usize,
        needs_cpu: *mut u32,
        stream: Stream,
    ) -> CudaError;
    pub fn g16_batch_add(
        curve: c_int,
        points: *const c_void,
        n_points: usize,
        bitmap: *const u64,
        workspace: *mut c_void,
        workspace_bytes: usize,
        result: *mut c_void,
        stream: Stream,
    ) -> c_int;
    pub fn g16_device_info(
        device: c_int,
        name: *mut c_char,
        name_len: usize,
        major: *mut c_int,
        minor: *mut c_int,
        total_memory: *mut usize,
    ) -> c_int;
    pub fn g16_kernel_image_check(
        device: c_int,
        binary_version: *mut c_int,
        ptx_version: *mut c_int,
    ) -> c_int;
}
