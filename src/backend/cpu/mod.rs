//! The CPU backend: rayon over all cores, blst for curve arithmetic. Also the oracle that any
//! device backend is tested against.

pub mod fft;
pub mod msm;

use blst::{blst_p1, blst_p2, blst_scalar};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::Backend;
use crate::curve::{g1_affine_as_blst, g1_from_blst, g2_affine_as_blst, g2_from_blst};
use crate::error::Result;

/// Runs every stage on the host CPU.
pub struct CpuBackend;

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn h_msm(
        &self,
        h_query: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> Result<G1Projective> {
        let n = h_query.len() + 1;
        let h = fft::h_polynomial(a, b, c, n);
        Ok(msm_h(h_query, &h))
    }

    fn g1_sum(&self, points: &[G1Affine], indices: &[u32]) -> Result<G1Projective> {
        Ok(g1_from_blst(msm::batch_add::<blst_p1>(
            g1_affine_as_blst(points),
            indices,
        )))
    }

    fn g1_msm(
        &self,
        points: &[G1Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G1Projective> {
        Ok(g1_from_blst(msm::msm::<blst_p1>(
            g1_affine_as_blst(points),
            Some(indices),
            scalars,
        )))
    }

    fn g2_sum(&self, points: &[G2Affine], indices: &[u32]) -> Result<G2Projective> {
        Ok(g2_from_blst(msm::batch_add::<blst_p2>(
            g2_affine_as_blst(points),
            indices,
        )))
    }

    fn g2_msm(
        &self,
        points: &[G2Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G2Projective> {
        Ok(g2_from_blst(msm::msm::<blst_p2>(
            g2_affine_as_blst(points),
            Some(indices),
            scalars,
        )))
    }
}

/// `MSM(h_query, h)` on all cores.
pub fn msm_h(h_query: &[G1Affine], h: &[Scalar]) -> G1Projective {
    let scalars: Vec<blst_scalar> = h_scalars(h);
    g1_from_blst(msm::msm::<blst_p1>(
        g1_affine_as_blst(h_query),
        None,
        &scalars,
    ))
}

/// Canonical form of the H coefficients, in parallel.
fn h_scalars(h: &[Scalar]) -> Vec<blst_scalar> {
    use rayon::prelude::*;
    h.par_iter()
        .map(|s| blst_scalar { b: s.to_bytes_le() })
        .collect()
}
