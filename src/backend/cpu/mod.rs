//! The CPU backend: rayon over all cores, blst for curve arithmetic. Also the oracle that any
//! device backend is tested against.

pub mod fft;
pub mod msm;

use blst::{blst_p1, blst_p2, blst_scalar};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::Backend;
use crate::curve::{g1_affine_as_blst, g1_from_blst, g2_affine_as_blst, g2_from_blst};
use crate::error::Result;
use crate::split::OnesBitmap;

/// Runs every stage on the host CPU.
pub struct CpuBackend;

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn describe(&self) -> String {
        let reason = super::cpu_reason();
        let threads = crate::settings::threads();
        if reason.is_empty() {
            format!("proving on the CPU ({threads} threads)")
        } else {
            format!("proving on the CPU ({threads} threads): {reason}")
        }
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

    fn g1_sum(&self, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective> {
        Ok(g1_from_blst(msm::batch_add::<blst_p1>(
            g1_affine_as_blst(points),
            ones,
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

    fn g2_sum(&self, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective> {
        Ok(g2_from_blst(msm::batch_add::<blst_p2>(
            g2_affine_as_blst(points),
            ones,
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

#[cfg(test)]
mod tests {
    use super::*;
    use group::{Curve, Group};
    use rand::{Rng, SeedableRng};

    /// `n` distinct points, cheaply: `base + i * step`.
    fn points<G: Group + Curve>(rng: &mut impl rand::RngCore, n: usize) -> Vec<G::AffineRepr>
    where
        G::AffineRepr: Default + Clone,
    {
        let (mut p, step) = (G::random(&mut *rng), G::random(&mut *rng));
        let proj: Vec<G> = (0..n)
            .map(|_| {
                p += step;
                p
            })
            .collect();
        let mut out = vec![G::AffineRepr::default(); n];
        G::batch_normalize(&proj, &mut out);
        out
    }

    /// Bitmaps over `len` points: empty, full, random at several densities, and one with whole
    /// batch-addition chunks empty.
    fn bitmaps(rng: &mut impl Rng, len: usize) -> Vec<OnesBitmap> {
        let mut out = vec![OnesBitmap::zeros(0), OnesBitmap::zeros(len)];
        for p in [1.0, 0.5, 0.01] {
            let idx: Vec<u32> = (0..len as u32).filter(|_| rng.gen_bool(p)).collect();
            out.push(OnesBitmap::from_indices(len, &idx));
        }
        let idx: Vec<u32> = (0..len as u32).filter(|i| i % 40_000 < 3).collect();
        out.push(OnesBitmap::from_indices(len, &idx));
        // Shorter than the point vector.
        out.push(OnesBitmap::from_indices(len / 2 + 1, &[0, len as u32 / 2]));
        out
    }

    #[test]
    fn g1_bitmap_sum_matches_naive() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let n = 3 * (1 << 14) + 100;
        let pts = points::<G1Projective>(&mut rng, n);
        for ones in bitmaps(&mut rng, n) {
            let expect =
                (ones.iter_ones()).fold(G1Projective::identity(), |acc, p| acc + pts[p as usize]);
            let got = CpuBackend.g1_sum(&pts, &ones).unwrap();
            assert_eq!(got, expect, "{} of {} set", ones.count, ones.len);
            if ones.count == 0 {
                assert!(bool::from(got.is_identity()));
            }
        }
    }

    #[test]
    fn g2_bitmap_sum_matches_naive() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let n = 2 * (1 << 14) + 70;
        let pts = points::<G2Projective>(&mut rng, n);
        for ones in bitmaps(&mut rng, n) {
            let expect =
                (ones.iter_ones()).fold(G2Projective::identity(), |acc, p| acc + pts[p as usize]);
            let got = CpuBackend.g2_sum(&pts, &ones).unwrap();
            assert_eq!(got, expect, "{} of {} set", ones.count, ones.len);
            if ones.count == 0 {
                assert!(bool::from(got.is_identity()));
            }
        }
    }
}
