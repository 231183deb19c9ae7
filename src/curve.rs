//! Zero-cost views between blstrs' curve types and the raw blst structs they wrap.
//!
//! blstrs declares `Scalar`, `G1Affine`, `G2Affine`, `G1Projective` and `G2Projective` as
//! `#[repr(transparent)]` over blst's `blst_fr`, `blst_p1_affine`, `blst_p2_affine`, `blst_p1`
//! and `blst_p2`. That is what lets hosts hand us `fr_t*` and `g1_affine_t*` memory directly, and
//! what lets the CPU backend call blst's batch routines on SRS slices without copying. All the
//! casts that rely on it live here.

use blst::{blst_fr, blst_p1, blst_p1_affine, blst_p2, blst_p2_affine};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

const _: () = {
    assert!(std::mem::size_of::<Scalar>() == 32);
    assert!(std::mem::size_of::<G1Affine>() == 96);
    assert!(std::mem::size_of::<G2Affine>() == 192);
    assert!(std::mem::size_of::<G1Affine>() == std::mem::size_of::<blst_p1_affine>());
    assert!(std::mem::size_of::<G2Affine>() == std::mem::size_of::<blst_p2_affine>());
    assert!(std::mem::size_of::<G1Projective>() == std::mem::size_of::<blst_p1>());
    assert!(std::mem::size_of::<G2Projective>() == std::mem::size_of::<blst_p2>());
    assert!(std::mem::size_of::<Scalar>() == std::mem::size_of::<blst_fr>());
};

/// Views G1 points as blst affine points.
pub fn g1_affine_as_blst(points: &[G1Affine]) -> &[blst_p1_affine] {
    // SAFETY: repr(transparent) wrapper, same size and alignment (checked above).
    unsafe { std::slice::from_raw_parts(points.as_ptr().cast(), points.len()) }
}

/// Views G2 points as blst affine points.
pub fn g2_affine_as_blst(points: &[G2Affine]) -> &[blst_p2_affine] {
    // SAFETY: repr(transparent) wrapper, same size and alignment (checked above).
    unsafe { std::slice::from_raw_parts(points.as_ptr().cast(), points.len()) }
}

/// Wraps a blst Jacobian G1 point.
pub fn g1_from_blst(p: blst_p1) -> G1Projective {
    // SAFETY: repr(transparent) wrapper around blst_p1.
    unsafe { std::mem::transmute::<blst_p1, G1Projective>(p) }
}

/// Wraps a blst Jacobian G2 point.
pub fn g2_from_blst(p: blst_p2) -> G2Projective {
    // SAFETY: repr(transparent) wrapper around blst_p2.
    unsafe { std::mem::transmute::<blst_p2, G2Projective>(p) }
}

/// Wraps a blst affine G1 point.
pub fn g1_affine_from_blst(p: blst_p1_affine) -> G1Affine {
    // SAFETY: repr(transparent) wrapper around blst_p1_affine.
    unsafe { std::mem::transmute::<blst_p1_affine, G1Affine>(p) }
}

/// Wraps a blst affine G2 point.
pub fn g2_affine_from_blst(p: blst_p2_affine) -> G2Affine {
    // SAFETY: repr(transparent) wrapper around blst_p2_affine.
    unsafe { std::mem::transmute::<blst_p2_affine, G2Affine>(p) }
}

/// Reinterprets a vector of blst affine G1 points as blstrs points without copying.
pub fn g1_vec_from_blst(v: Vec<blst_p1_affine>) -> Vec<G1Affine> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: same size and alignment, so the allocation's layout is unchanged.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast(), v.len(), v.capacity()) }
}

/// Reinterprets a vector of blst affine G2 points as blstrs points without copying.
pub fn g2_vec_from_blst(v: Vec<blst_p2_affine>) -> Vec<G2Affine> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: same size and alignment, so the allocation's layout is unchanged.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast(), v.len(), v.capacity()) }
}

/// The raw Montgomery limbs of a scalar, as hosts lay out `fr_t`.
pub fn scalar_limbs(s: &Scalar) -> &[u64; 4] {
    // SAFETY: Scalar is repr(transparent) over blst_fr { l: [u64; 4] }.
    unsafe { &*(s as *const Scalar).cast::<[u64; 4]>() }
}
