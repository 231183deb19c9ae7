//! Decoding of uncompressed points from params-file bytes into the layout the prover reads
//! (blst's Montgomery form), checking each point on the way: the flag bits, both coordinates
//! below the field modulus, the curve equation, and optionally the prime-order subgroup.
//!
//! A point with no flag bit set (every point of a well-formed file but the odd infinity in the
//! verifying key) takes a shorter road than `blst_p{1,2}_deserialize` with the same verdicts:
//! big-endian words straight into limbs and a plain comparison with the modulus (the file is
//! public, so blst's constant-time byte loops buy nothing here), then blst's Montgomery
//! multiplications for the conversion and the curve equation, which are the floor of the cost
//! (5 per G1 point, about 14 per G2 point). Anything with a flag bit set goes through blst.

use std::mem::MaybeUninit;
use std::path::Path;

use blst::{
    blst_fp, blst_fp2, blst_fp2_add, blst_fp2_mul, blst_fp2_sqr, blst_fp_add, blst_fp_from_uint64,
    blst_fp_mul, blst_fp_sqr, blst_p1_affine, blst_p1_affine_in_g1, blst_p1_deserialize,
    blst_p2_affine, blst_p2_affine_in_g2, blst_p2_deserialize, BLST_ERROR,
};

use super::layout::{G1_BYTES, G2_BYTES};
use crate::error::{Error, Result};

// Points are decoded in place: the encoding and the decoded point occupy the same bytes.
const _: () = assert!(std::mem::size_of::<blst_p1_affine>() == G1_BYTES);
const _: () = assert!(std::mem::size_of::<blst_p2_affine>() == G2_BYTES);

/// What to verify about each point.
#[derive(Clone, Copy, Debug)]
pub struct PointChecks {
    /// Check membership of the prime-order subgroup (costly; on-curve is always checked).
    pub subgroup: bool,
    /// Reject the point at infinity (bellperson's reader does, for every counted section).
    pub reject_infinity: bool,
}

/// An uncompressed point encoding that blst can decode, of the decoded point's size.
pub trait Encoded: Copy + Default + Send + Sync {
    const BYTES: usize;
    /// Decodes and checks the point whose encoding `slot` holds, writing the point over its
    /// encoding, or says what is wrong (the slot then holds neither).
    ///
    /// # Safety
    /// The slot's `BYTES` bytes must be initialised.
    unsafe fn decode_over(
        slot: &mut MaybeUninit<Self>,
        checks: PointChecks,
    ) -> std::result::Result<(), &'static str>;
}

/// Decodes and checks one point from `bytes` (at least `P::BYTES` of them).
pub fn decode<P: Encoded>(
    bytes: &[u8],
    checks: PointChecks,
) -> std::result::Result<P, &'static str> {
    let bytes = &bytes[..P::BYTES];
    let mut slot = MaybeUninit::<P>::uninit();
    // SAFETY: P is P::BYTES bytes (asserted above for both point types); once copied there, the
    // encoding initialises the slot's bytes, and `decode_over` succeeding initialises the point.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), slot.as_mut_ptr().cast(), P::BYTES);
        P::decode_over(&mut slot, checks)?;
        Ok(slot.assume_init())
    }
}

/// The base field modulus p, little-endian 64-bit limbs.
const MODULUS: [u64; 6] = [
    0xb9fe_ffff_ffff_aaab,
    0x1eab_fffe_b153_ffff,
    0x6730_d2a0_f6b0_f624,
    0x6477_4b84_f385_12bf,
    0x4b1b_a7b6_434b_acd7,
    0x1a01_11ea_397f_e69a,
];

/// 4 in Montgomery form (4 · 2^384 mod p): the constant of y² = x³ + 4, and both halves of
/// G2's 4 + 4i.
const FOUR: blst_fp = blst_fp {
    l: [
        0xaa27_0000_000c_fff3,
        0x53cc_0032_fc34_000a,
        0x478f_e97a_6b0a_807f,
        0xb1d3_7ebe_e6ba_24d7,
        0x8ec9_733b_bf78_ab2f,
        0x09d6_4551_3d83_de7e,
    ],
};

/// Flag bits of an encoding's first byte: compressed, infinity, sign of y.
const FLAG_BITS: u8 = 0xe0;

fn check_flags(first_byte: u8) -> std::result::Result<bool, &'static str> {
    if first_byte & 0x80 != 0 {
        return Err("has the compression flag set, but params files hold uncompressed points");
    }
    Ok(first_byte & 0x40 != 0)
}

fn blst_problem(err: BLST_ERROR) -> &'static str {
    match err {
        BLST_ERROR::BLST_POINT_NOT_ON_CURVE => "is not on the curve",
        BLST_ERROR::BLST_BAD_ENCODING => {
            "has a bad encoding (a coordinate is not below the field modulus)"
        }
        BLST_ERROR::BLST_POINT_NOT_IN_GROUP => "is not in the prime-order subgroup",
        _ => "cannot be decoded",
    }
}

/// The little-endian limbs of a 48-byte big-endian number, or `None` if it is not below p.
#[inline(always)]
fn limbs_below_p(bytes: &[u8]) -> Option<[u64; 6]> {
    let mut limbs = [0u64; 6];
    for (i, word) in bytes[..48].chunks_exact(8).enumerate() {
        limbs[5 - i] = u64::from_be_bytes(word.try_into().expect("8 bytes"));
    }
    // Lexicographic from the top limb: below p iff the first differing limb is smaller.
    let below = limbs
        .iter()
        .rev()
        .zip(MODULUS.iter().rev())
        .find(|(l, m)| l != m)
        .is_some_and(|(l, m)| l < m);
    below.then_some(limbs)
}

/// Limb equality without a call to `memcmp` (which a plain `==` on arrays becomes).
#[inline(always)]
fn fp_eq(a: &blst_fp, b: &blst_fp) -> bool {
    a.l.iter().zip(&b.l).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// G1 without flag bits, decoded over its own encoding: what `blst_p1_deserialize` does on
/// that path, same verdicts, without copies of the point.
///
/// # Safety
/// `p` must be valid for reads and writes and its 96 bytes initialised (with the encoding).
#[inline(always)]
unsafe fn decode_g1_plain(p: *mut blst_p1_affine) -> std::result::Result<(), BLST_ERROR> {
    let coords = {
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), G1_BYTES);
        (limbs_below_p(&bytes[..48]), limbs_below_p(&bytes[48..]))
    };
    let (Some(x), Some(y)) = coords else {
        return Err(BLST_ERROR::BLST_BAD_ENCODING);
    };
    let (px, py) = (
        std::ptr::addr_of_mut!((*p).x),
        std::ptr::addr_of_mut!((*p).y),
    );
    blst_fp_from_uint64(px, x.as_ptr());
    blst_fp_from_uint64(py, y.as_ptr());
    let [mut xx, mut xxx, mut rhs, mut yy] = [blst_fp::default(); 4];
    blst_fp_sqr(&mut xx, px);
    blst_fp_mul(&mut xxx, &xx, px);
    blst_fp_add(&mut rhs, &xxx, &FOUR);
    blst_fp_sqr(&mut yy, py);
    // blst's outputs are fully reduced, so equal field elements have equal limbs.
    if !fp_eq(&rhs, &yy) {
        return Err(BLST_ERROR::BLST_POINT_NOT_ON_CURVE);
    }
    if fp_eq(&*px, &blst_fp::default()) {
        // (0, ±2): on the curve but of order 3; blst refuses it without being asked.
        return Err(BLST_ERROR::BLST_POINT_NOT_IN_GROUP);
    }
    Ok(())
}

/// G2 without flag bits, decoded over its own encoding: what `blst_p2_deserialize` does on
/// that path, same verdicts.
///
/// # Safety
/// As for [`decode_g1_plain`], with 192 bytes.
#[inline(always)]
unsafe fn decode_g2_plain(p: *mut blst_p2_affine) -> std::result::Result<(), BLST_ERROR> {
    // Each coordinate is c1 then c0.
    let coords = {
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), G2_BYTES);
        (
            limbs_below_p(&bytes[..48]),
            limbs_below_p(&bytes[48..96]),
            limbs_below_p(&bytes[96..144]),
            limbs_below_p(&bytes[144..]),
        )
    };
    let (Some(x1), Some(x0), Some(y1), Some(y0)) = coords else {
        return Err(BLST_ERROR::BLST_BAD_ENCODING);
    };
    let (px, py) = (
        std::ptr::addr_of_mut!((*p).x),
        std::ptr::addr_of_mut!((*p).y),
    );
    blst_fp_from_uint64(std::ptr::addr_of_mut!((*px).fp[0]), x0.as_ptr());
    blst_fp_from_uint64(std::ptr::addr_of_mut!((*px).fp[1]), x1.as_ptr());
    blst_fp_from_uint64(std::ptr::addr_of_mut!((*py).fp[0]), y0.as_ptr());
    blst_fp_from_uint64(std::ptr::addr_of_mut!((*py).fp[1]), y1.as_ptr());
    let b = blst_fp2 { fp: [FOUR, FOUR] };
    let [mut xx, mut xxx, mut rhs, mut yy] = [blst_fp2::default(); 4];
    blst_fp2_sqr(&mut xx, px);
    blst_fp2_mul(&mut xxx, &xx, px);
    blst_fp2_add(&mut rhs, &xxx, &b);
    blst_fp2_sqr(&mut yy, py);
    if !(fp_eq(&rhs.fp[0], &yy.fp[0]) & fp_eq(&rhs.fp[1], &yy.fp[1])) {
        return Err(BLST_ERROR::BLST_POINT_NOT_ON_CURVE);
    }
    Ok(())
}

/// The curve-specific pieces of [`decode_over`]: blst's functions for one group.
struct Group<P> {
    plain: unsafe fn(*mut P) -> std::result::Result<(), BLST_ERROR>,
    deserialize: unsafe extern "C" fn(*mut P, *const u8) -> BLST_ERROR,
    in_group: unsafe extern "C" fn(*const P) -> bool,
}

/// Decodes the encoding in `slot` over itself: the plain encoding on our fast path, flagged
/// ones through blst, then the optional subgroup check.
#[inline(always)]
unsafe fn decode_over<P: Default>(
    slot: &mut MaybeUninit<P>,
    checks: PointChecks,
    group: Group<P>,
) -> std::result::Result<(), &'static str> {
    let p = slot.as_mut_ptr();
    let first = *p.cast::<u8>();
    let infinity = if first & FLAG_BITS == 0 {
        (group.plain)(p).map_err(blst_problem)?;
        false
    } else {
        let infinity = check_flags(first)?;
        if infinity && checks.reject_infinity {
            return Err("is the point at infinity");
        }
        let mut q = P::default();
        // The uncompressed flag was checked, so blst reads exactly the point's bytes.
        let err = (group.deserialize)(&mut q, p.cast::<u8>());
        if err != BLST_ERROR::BLST_SUCCESS {
            return Err(blst_problem(err));
        }
        p.write(q);
        infinity
    };
    if checks.subgroup && !infinity && !(group.in_group)(p) {
        return Err(blst_problem(BLST_ERROR::BLST_POINT_NOT_IN_GROUP));
    }
    Ok(())
}

impl Encoded for blst_p1_affine {
    const BYTES: usize = G1_BYTES;
    #[inline]
    unsafe fn decode_over(
        slot: &mut MaybeUninit<Self>,
        checks: PointChecks,
    ) -> std::result::Result<(), &'static str> {
        let group = Group {
            plain: decode_g1_plain,
            deserialize: blst_p1_deserialize,
            in_group: blst_p1_affine_in_g1,
        };
        decode_over(slot, checks, group)
    }
}

impl Encoded for blst_p2_affine {
    const BYTES: usize = G2_BYTES;
    #[inline]
    unsafe fn decode_over(
        slot: &mut MaybeUninit<Self>,
        checks: PointChecks,
    ) -> std::result::Result<(), &'static str> {
        let group = Group {
            plain: decode_g2_plain,
            deserialize: blst_p2_deserialize,
            in_group: blst_p2_affine_in_g2,
        };
        decode_over(slot, checks, group)
    }
}

/// Decodes one point outside any section (the verifying key's fixed points).
pub fn decode_one<P: Encoded>(
    path: &Path,
    name: &'static str,
    bytes: &[u8],
    checks: PointChecks,
) -> Result<P> {
    decode::<P>(bytes, checks).map_err(|problem| Error::BadPoint {
        path: path.to_path_buf(),
        section: name,
        index: 0,
        problem,
    })
}

/// Decodes a chunk of points in place: each slot holds its point's encoding (read there from
/// the file) and gets the decoded point. Returns the first failing index within the chunk;
/// the slots from there on are then not points.
///
/// # Safety
/// Every slot's `P::BYTES` bytes must be initialised (with the encoding).
pub unsafe fn decode_in_place<P: Encoded>(
    slots: &mut [MaybeUninit<P>],
    checks: PointChecks,
) -> Option<(usize, &'static str)> {
    for (i, slot) in slots.iter_mut().enumerate() {
        // SAFETY: the caller initialised the slot's bytes.
        if let Err(problem) = P::decode_over(slot, checks) {
            return Some((i, problem));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
    use group::{prime::PrimeCurveAffine, Curve, Group};

    const ALL: PointChecks = PointChecks {
        subgroup: false,
        reject_infinity: false,
    };

    fn blst_g1(bytes: &[u8]) -> std::result::Result<blst_p1_affine, BLST_ERROR> {
        let mut p = blst_p1_affine::default();
        match unsafe { blst_p1_deserialize(&mut p, bytes.as_ptr()) } {
            BLST_ERROR::BLST_SUCCESS => Ok(p),
            e => Err(e),
        }
    }

    fn blst_g2(bytes: &[u8]) -> std::result::Result<blst_p2_affine, BLST_ERROR> {
        let mut p = blst_p2_affine::default();
        match unsafe { blst_p2_deserialize(&mut p, bytes.as_ptr()) } {
            BLST_ERROR::BLST_SUCCESS => Ok(p),
            e => Err(e),
        }
    }

    #[test]
    fn four_is_four_in_montgomery_form() {
        let mut four = blst_fp::default();
        unsafe { blst_fp_from_uint64(&mut four, [4u64, 0, 0, 0, 0, 0].as_ptr()) };
        assert_eq!(four.l, FOUR.l);
    }

    /// The short road and blst agree, point for point and verdict for verdict, on valid points
    /// and on every kind of damage (off the curve, coordinates at or above p, x = 0).
    #[test]
    fn plain_decoding_matches_blst() {
        let mut g1 = Vec::new();
        let mut g2 = Vec::new();
        for i in 1..40u64 {
            g1.push(
                (G1Projective::generator() * Scalar::from(i * 7919))
                    .to_affine()
                    .to_uncompressed(),
            );
            g2.push(
                (G2Projective::generator() * Scalar::from(i * 7919))
                    .to_affine()
                    .to_uncompressed(),
            );
        }
        let p_be: Vec<u8> = MODULUS.iter().rev().flat_map(|l| l.to_be_bytes()).collect();
        let mut cases1: Vec<[u8; 96]> = g1.clone();
        for (i, p) in g1.iter().enumerate() {
            let mut bad = *p;
            bad[95 - i % 96] ^= 1 << (i % 8);
            cases1.push(bad);
            let mut at_p = *p;
            at_p[48 * (i % 2)..48 * (i % 2) + 48].copy_from_slice(&p_be);
            cases1.push(at_p);
        }
        let mut x0 = [0u8; 96];
        x0[95] = 2; // (0, 2)
        cases1.push(x0);
        cases1.push([0u8; 96]);
        for bytes in &cases1 {
            let mut p = blst_p1_affine::default();
            let ours = unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    (&mut p as *mut blst_p1_affine).cast(),
                    96,
                );
                decode_g1_plain(&mut p).map(|()| p)
            };
            match (ours, blst_g1(bytes)) {
                (Ok(a), Ok(b)) => assert_eq!((a.x.l, a.y.l), (b.x.l, b.y.l)),
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!("G1 {bytes:?}: ours {a:?}, blst {b:?}"),
            }
        }
        let mut cases2: Vec<[u8; 192]> = g2.clone();
        for (i, p) in g2.iter().enumerate() {
            let mut bad = *p;
            bad[191 - i % 192] ^= 1 << (i % 8);
            cases2.push(bad);
            let mut at_p = *p;
            let k = i % 4;
            at_p[48 * k..48 * k + 48].copy_from_slice(&p_be);
            cases2.push(at_p);
        }
        cases2.push([0u8; 192]);
        for bytes in &cases2 {
            let mut p = blst_p2_affine::default();
            let ours = unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    (&mut p as *mut blst_p2_affine).cast(),
                    192,
                );
                decode_g2_plain(&mut p).map(|()| p)
            };
            match (ours, blst_g2(bytes)) {
                (Ok(a), Ok(b)) => assert_eq!(
                    (a.x.fp[0].l, a.x.fp[1].l, a.y.fp[0].l, a.y.fp[1].l),
                    (b.x.fp[0].l, b.x.fp[1].l, b.y.fp[0].l, b.y.fp[1].l)
                ),
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!("G2: ours {a:?}, blst {b:?}"),
            }
        }
        // The flagged encodings go through blst: infinity decodes when allowed.
        let inf1 = G1Affine::identity().to_uncompressed();
        let inf2 = G2Affine::identity().to_uncompressed();
        assert!(decode::<blst_p1_affine>(&inf1, ALL).is_ok());
        assert!(decode::<blst_p2_affine>(&inf2, ALL).is_ok());
        let refuse = PointChecks {
            reject_infinity: true,
            ..ALL
        };
        assert_eq!(
            decode::<blst_p1_affine>(&inf1, refuse).err(),
            Some("is the point at infinity")
        );
    }

    #[test]
    fn in_place_decoding_reports_the_first_bad_index() {
        let pts: Vec<[u8; 96]> = (1..=9u64)
            .map(|i| {
                (G1Projective::generator() * Scalar::from(i))
                    .to_affine()
                    .to_uncompressed()
            })
            .collect();
        let mut slots: Vec<MaybeUninit<blst_p1_affine>> = Vec::with_capacity(pts.len());
        slots.resize_with(pts.len(), MaybeUninit::uninit);
        let fill = |slots: &mut [MaybeUninit<blst_p1_affine>], pts: &[[u8; 96]]| {
            for (s, p) in slots.iter_mut().zip(pts) {
                unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), s.as_mut_ptr().cast(), 96) };
            }
        };
        fill(&mut slots, &pts);
        assert_eq!(unsafe { decode_in_place(&mut slots, ALL) }, None);
        for (s, p) in slots.iter().zip(&pts) {
            let got = crate::curve::g1_affine_from_blst(unsafe { s.assume_init() });
            assert_eq!(got, G1Affine::from_uncompressed(p).unwrap());
        }
        let mut bad = pts.clone();
        bad[6][95] ^= 1;
        bad[8][95] ^= 1;
        fill(&mut slots, &bad);
        assert_eq!(
            unsafe { decode_in_place(&mut slots, ALL) },
            Some((6, "is not on the curve"))
        );
    }
}
