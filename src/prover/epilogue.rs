//! Assembles A, B, C from the MSM answers and the randomness `r`, `s`, term for term as
//! bellperson 0.26 does, so equal inputs give equal proof bytes.

use blstrs::{G1Projective, G2Projective, Scalar};
use group::Curve;

use crate::proof::Proof;
use crate::srs::VerifyingKey;

/// The query MSMs of one circuit.
pub struct Answers {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
    pub b_g2: G2Projective,
}

/// `A = alpha + A_msm + r·delta`, `B = beta + B_msm + s·delta`,
/// `C = s·A_msm + r·B_g1_msm + r·s·delta_g1 + s·alpha_g1 + r·beta_g1 + H + L`.
pub fn assemble(vk: &VerifyingKey, m: &Answers, r: Scalar, s: Scalar) -> Proof {
    let g_a = vk.delta_g1 * r + vk.alpha_g1 + m.a;
    let g_b = vk.delta_g2 * s + vk.beta_g2 + m.b_g2;
    let g_c =
        m.a * s + m.b_g1 * r + vk.delta_g1 * (r * s) + vk.alpha_g1 * s + vk.beta_g1 * r + m.h + m.l;
    Proof {
        a: g_a.to_affine(),
        b: g_b.to_affine(),
        c: g_c.to_affine(),
    }
}
