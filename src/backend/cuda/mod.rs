//! The CUDA backend. Today the H polynomial (NTTs and element-wise steps) runs on the GPU and the
//! MSMs still run on the CPU; every result is bit-identical to the CPU backend.
//!
//! All `unsafe` CUDA calls live in this module: `ffi` declares them, `runtime` wraps the CUDA
//! runtime, `kernels` the launchers of `cuda/launcher.h`.

pub mod device;
/// cbindgen:ignore
mod ffi;
pub mod h;
pub mod kernels;
pub mod runtime;

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::cpu::CpuBackend;
use super::Backend;
use crate::error::Result;
use crate::prover::split::OnesBitmap;

/// H on the GPU, everything else on the CPU backend.
pub struct CudaBackend;

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn h_msm(
        &self,
        h_query: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> Result<G1Projective> {
        let n = h_query.len() + 1;
        let h = {
            let mut guard = device::lock_device(0)?;
            let state = guard.as_mut().expect("lock_device creates the state");
            h::h_polynomial(state, a, b, c, n)?
        };
        Ok(super::cpu::msm_h(h_query, &h))
    }

    fn g1_sum(&self, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective> {
        CpuBackend.g1_sum(points, ones)
    }

    fn g1_msm(
        &self,
        points: &[G1Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G1Projective> {
        CpuBackend.g1_msm(points, indices, scalars)
    }

    fn g2_sum(&self, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective> {
        CpuBackend.g2_sum(points, ones)
    }

    fn g2_msm(
        &self,
        points: &[G2Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G2Projective> {
        CpuBackend.g2_msm(points, indices, scalars)
    }
}

/// Whether a CUDA device is usable by this process.
pub fn available() -> bool {
    runtime::device_count() > 0
}
