//! The kernels' result points (XYZZ coordinates, cuda/curve.cuh) and their conversion to blstrs
//! points on the host: one inversion per coordinate, negligible next to any kernel.

use blst::{
    blst_fp, blst_fp2, blst_fp2_inverse, blst_fp2_mul, blst_fp_inverse, blst_fp_mul,
    blst_p1_affine, blst_p2_affine,
};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use group::Group;

use super::kernels::Curve;
use crate::curve::{g1_affine_from_blst, g2_affine_from_blst};

/// A G1 point as the kernels write it: `x = X/ZZ`, `y = Y/ZZZ`, the identity has `ZZ = 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct G1Xyzz {
    pub x: blst_fp,
    pub y: blst_fp,
    pub zz: blst_fp,
    pub zzz: blst_fp,
}

/// A G2 point as the kernels write it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct G2Xyzz {
    pub x: blst_fp2,
    pub y: blst_fp2,
    pub zz: blst_fp2,
    pub zzz: blst_fp2,
}

const _: () = {
    assert!(std::mem::size_of::<G1Xyzz>() == 192);
    assert!(std::mem::size_of::<G2Xyzz>() == 384);
};

fn fp_is_zero(x: &blst_fp) -> bool {
    x.l.iter().all(|&l| l == 0)
}

impl G1Xyzz {
    pub fn to_projective(self) -> G1Projective {
        if fp_is_zero(&self.zz) {
            return G1Projective::identity();
        }
        let mut p = blst_p1_affine::default();
        let mut inv = blst_fp::default();
        // SAFETY: blst field operations on valid, initialised values.
        unsafe {
            blst_fp_inverse(&mut inv, &self.zz);
            blst_fp_mul(&mut p.x, &self.x, &inv);
            blst_fp_inverse(&mut inv, &self.zzz);
            blst_fp_mul(&mut p.y, &self.y, &inv);
        }
        G1Projective::from(g1_affine_from_blst(p))
    }
}

impl G2Xyzz {
    pub fn to_projective(self) -> G2Projective {
        if self.zz.fp.iter().all(fp_is_zero) {
            return G2Projective::identity();
        }
        let mut p = blst_p2_affine::default();
        let mut inv = blst_fp2::default();
        // SAFETY: blst field operations on valid, initialised values.
        unsafe {
            blst_fp2_inverse(&mut inv, &self.zz);
            blst_fp2_mul(&mut p.x, &self.x, &inv);
            blst_fp2_inverse(&mut inv, &self.zzz);
            blst_fp2_mul(&mut p.y, &self.y, &inv);
        }
        G2Projective::from(g2_affine_from_blst(p))
    }
}

/// What the generic device code needs to know about a group.
pub trait GpuCurve {
    type Affine: Copy + Send + Sync;
    type Projective: Copy + group::Group + Send;
    type Xyzz: Copy + Default + Send;
    const CURVE: Curve;
    fn to_projective(p: &Self::Xyzz) -> Self::Projective;
}

pub struct G1;
pub struct G2;

impl GpuCurve for G1 {
    type Affine = G1Affine;
    type Projective = G1Projective;
    type Xyzz = G1Xyzz;
    const CURVE: Curve = Curve::G1;
    fn to_projective(p: &G1Xyzz) -> G1Projective {
        p.to_projective()
    }
}

impl GpuCurve for G2 {
    type Affine = G2Affine;
    type Projective = G2Projective;
    type Xyzz = G2Xyzz;
    const CURVE: Curve = Curve::G2;
    fn to_projective(p: &G2Xyzz) -> G2Projective {
        p.to_projective()
    }
}

/// Views 32-byte scalars (`blst_scalar`, which is not `Copy`, or `Scalar`) as plain byte arrays
/// for device copies.
pub fn scalar_bytes<S>(scalars: &[S]) -> &[[u8; 32]] {
    assert_eq!(std::mem::size_of::<S>(), 32, "scalars are 32-byte values");
    assert!(std::mem::align_of::<S>() >= 1);
    // SAFETY: S is 32 bytes of plain data (checked size); [u8; 32] has alignment 1.
    unsafe { std::slice::from_raw_parts(scalars.as_ptr().cast(), scalars.len()) }
}
