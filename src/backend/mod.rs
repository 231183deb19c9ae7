//! The seam between the prover's stages and the hardware that runs the heavy ones.
//!
//! Everything that differs between the CPU and a GPU sits behind [`Backend`]: the H polynomial
//! with its MSM, batch additions of the "ones", and the tail MSMs. Splitting, locking, the
//! epilogue and the C ABI are shared.

pub mod cpu;
/// cbindgen:ignore
#[cfg(feature = "cuda")]
pub mod cuda;

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use crate::error::Result;
use crate::prover::split::OnesBitmap;

/// The heavy operations of one proof.
pub trait Backend: Send + Sync {
    /// Short name for logs and reports ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// `MSM(h_query, h)` where `h` is the quotient polynomial of `a·b − c` over the domain of
    /// size `h_query.len() + 1` (`a, b, c` are zero-padded to it).
    fn h_msm(
        &self,
        h_query: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> Result<G1Projective>;

    /// `sum(points[p] for every p set in ones)`; `ones.len <= points.len()`.
    fn g1_sum(&self, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective>;
    /// `sum(scalars[k] * points[indices[k]])`, scalars canonical.
    fn g1_msm(
        &self,
        points: &[G1Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G1Projective>;
    /// As `g1_sum`, over G2.
    fn g2_sum(&self, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective>;
    /// As `g1_msm`, over G2.
    fn g2_msm(
        &self,
        points: &[G2Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G2Projective>;
}

/// The backend this process uses: CUDA when the library is built with the `cuda` feature and a
/// GPU is visible (unless `GROTH16_C2_BACKEND=cpu`), else the CPU. Decided once per process.
pub fn default_backend() -> &'static dyn Backend {
    static CHOICE: once_cell::sync::Lazy<&'static dyn Backend> = once_cell::sync::Lazy::new(|| {
        let forced_cpu = std::env::var("GROTH16_C2_BACKEND").as_deref() == Ok("cpu");
        #[cfg(feature = "cuda")]
        if !forced_cpu && cuda::available() {
            return &cuda::CudaBackend;
        }
        let _ = forced_cpu;
        &cpu::CpuBackend
    });
    *CHOICE
}
