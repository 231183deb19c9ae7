//! The C ABI (docs/design.md, "The C ABI contract"): a thin layer over the Rust API that holds
//! no prover logic.
//!
//! Every exported function runs inside [`panic::guard`], so no panic unwinds into C; pointer
//! arguments go through [`arg`] / [`arg_mut`], which turn NULL into a "null pointer" error.

mod error;
mod lock;
pub(crate) mod panic;
mod pinned;
mod prove;
mod settings;
mod srs;
mod util;

pub use crate::error::codes::*;
pub use crate::handles::live_pending_handles;
pub use error::CError;
pub use lock::{create_gpu_mutex, destroy_gpu_mutex};
pub use pinned::{groth16_c2_alloc_pinned, groth16_c2_free_pinned, groth16_c2_is_pinned};
pub use prove::{
    destroy_pending_proof, finalize_groth16_proof_c, finalize_groth16_proof_timed_c,
    generate_groth16_proofs_c, generate_groth16_proofs_start_c, groth16_pending_timings,
};
pub use settings::{
    groth16_c2_counters, groth16_c2_host_memory_in_use, groth16_c2_release_gpu_memory,
    groth16_c2_set_g2_tail_on_gpu, groth16_c2_set_host_memory_budget,
    groth16_c2_set_staging_buffers, groth16_c2_set_thread_pool_size,
    groth16_c2_set_timings_callback, groth16_c2_set_verify_proofs, groth16_c2_set_vram_limit,
    groth16_c2_thread_pool_size, groth16_c2_vram_limit,
};
pub use srs::{clone_SRS, create_SRS, drop_SRS, evict_SRS, SrsHandle};
pub use util::{
    groth16_c2_abi_arguments, groth16_c2_backend, groth16_c2_built_with_cuda,
    groth16_c2_cuda_archs, groth16_c2_last_timings, verify_groth16_proof_c,
};

/// A reference to `*ptr`, or a "null pointer passed as `name`" error.
///
/// # Safety
/// A non-NULL `ptr` must point to a valid `T` that outlives the returned reference.
pub(crate) unsafe fn arg<'a, T>(ptr: *const T, name: &'static str) -> crate::Result<&'a T> {
    ptr.as_ref().ok_or(crate::Error::NullArgument(name))
}

/// A mutable reference to `*ptr`, or a "null pointer" error.
///
/// # Safety
/// As [`arg`], and no other reference to `*ptr` may be alive.
pub(crate) unsafe fn arg_mut<'a, T>(ptr: *mut T, name: &'static str) -> crate::Result<&'a mut T> {
    ptr.as_mut().ok_or(crate::Error::NullArgument(name))
}

/// A slice of `len` elements at `ptr`, or a "null pointer" error.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` valid `T`s that outlive the slice.
pub(crate) unsafe fn arg_slice<'a, T>(
    ptr: *const T,
    len: usize,
    name: &'static str,
) -> crate::Result<&'a [T]> {
    if ptr.is_null() {
        return Err(crate::Error::NullArgument(name));
    }
    if !crate::assignment::fits_in_memory::<T>(len) {
        return Err(crate::Error::invalid(format!(
            "`{name}` would hold {len} elements, more than fit in memory"
        )));
    }
    Ok(std::slice::from_raw_parts(ptr, len))
}
