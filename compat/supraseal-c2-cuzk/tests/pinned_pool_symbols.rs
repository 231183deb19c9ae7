//! cuzk's pinned pool (`cuzk-core/src/pinned_pool.rs`) declares `cudaHostAlloc` and
//! `cudaFreeHost` itself and relies on the prover crate to bring the CUDA runtime. This binary
//! declares them the same way: it links only if the library provides them, in a CUDA build
//! (the CUDA runtime) and in a CPU-only build (fallbacks over ordinary memory) alike.

use std::ffi::{c_int, c_uint, c_void};

extern "C" {
    fn cudaHostAlloc(p_host: *mut *mut c_void, size: usize, flags: c_uint) -> c_int;
    fn cudaFreeHost(ptr: *mut c_void) -> c_int;
}

/// `cudaHostAllocPortable`, the flag cuzk passes.
const CUDA_HOST_ALLOC_PORTABLE: c_uint = 1;

#[test]
fn cuzks_pinned_pool_links_and_allocates_where_it_can() {
    let size = 1 << 20;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    let err = unsafe { cudaHostAlloc(&mut ptr, size, CUDA_HOST_ALLOC_PORTABLE) };
    if err != 0 {
        // Only the real CUDA runtime without a usable GPU may refuse (cuzk then falls back to
        // ordinary memory).
        assert!(
            groth16_c2::built_with_cuda() && groth16_c2::backend_name() == "cpu",
            "cudaHostAlloc failed ({err}) where it must work"
        );
        return;
    }
    assert!(!ptr.is_null());
    // The memory is usable for the whole size.
    let bytes = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, size) };
    bytes.fill(0xa5);
    assert!(bytes.iter().all(|&b| b == 0xa5));
    assert_eq!(unsafe { cudaFreeHost(ptr) }, 0);
}
