//! The internals that the crate's own tests, examples and benchmarks check one by one: the
//! backends' parts, the 0/1 split (what a test `Backend` takes), the curve conversions, fault
//! injection. Not part of the API: hidden from the docs and changed with the internals.

pub use crate::assignment::count_ones;
pub use crate::host_hooks::host_has_membw_throttle;

/// The 0/1 split of a witness.
pub mod split {
    pub use crate::split::*;
}

/// Conversions between blstrs and blst types.
pub mod curve {
    pub use crate::curve::*;
}

/// Test-only fault injection.
pub mod fault {
    pub use crate::fault::*;
}

/// Device memory plans.
pub mod memory_plan {
    pub use crate::backend::memory_plan::*;
}

/// The CPU backend's parts.
pub mod cpu {
    pub use crate::backend::cpu::{fft, msm};
}

/// The CUDA backend's parts.
#[cfg(groth16_c2_cuda)]
pub mod cuda {
    pub use crate::backend::cuda::{device, h, kernels, msm, runtime};
}
