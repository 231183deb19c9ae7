//! Parallel decoding of uncompressed points from the mapped params file straight into the
//! vectors the prover reads (blst's Montgomery layout), checking each point on the way.

use std::mem::MaybeUninit;
use std::path::Path;

use blst::{
    blst_p1_affine, blst_p1_affine_in_g1, blst_p1_deserialize, blst_p2_affine,
    blst_p2_affine_in_g2, blst_p2_deserialize, BLST_ERROR,
};
use rayon::prelude::*;

use super::layout::{Section, G1_BYTES, G2_BYTES};
use crate::error::{Error, Result};

/// Points decoded per task: big enough to amortise scheduling, small enough to balance 2..128 cores.
const POINTS_PER_TASK: usize = 1 << 14;

/// What to verify about each point.
#[derive(Clone, Copy, Debug)]
pub struct PointChecks {
    /// Check membership of the prime-order subgroup (costly; on-curve is always checked).
    pub subgroup: bool,
    /// Reject the point at infinity (bellperson's reader does, for every counted section).
    pub reject_infinity: bool,
}

/// An uncompressed point encoding that blst can decode.
pub trait Encoded: Copy + Default + Send + Sync {
    const BYTES: usize;
    /// Decodes and checks one point, or says what is wrong with it.
    fn decode(bytes: &[u8], checks: PointChecks) -> std::result::Result<Self, &'static str>;
}

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

impl Encoded for blst_p1_affine {
    const BYTES: usize = G1_BYTES;
    fn decode(bytes: &[u8], checks: PointChecks) -> std::result::Result<Self, &'static str> {
        let infinity = check_flags(bytes[0])?;
        if infinity && checks.reject_infinity {
            return Err("is the point at infinity");
        }
        let mut p = blst_p1_affine::default();
        // SAFETY: `bytes` holds G1_BYTES bytes and the uncompressed flag was checked, so blst
        // reads exactly 96 bytes.
        let err = unsafe { blst_p1_deserialize(&mut p, bytes.as_ptr()) };
        if err != BLST_ERROR::BLST_SUCCESS {
            return Err(blst_problem(err));
        }
        // SAFETY: p is a valid, initialised affine point.
        if checks.subgroup && !infinity && unsafe { !blst_p1_affine_in_g1(&p) } {
            return Err(blst_problem(BLST_ERROR::BLST_POINT_NOT_IN_GROUP));
        }
        Ok(p)
    }
}

impl Encoded for blst_p2_affine {
    const BYTES: usize = G2_BYTES;
    fn decode(bytes: &[u8], checks: PointChecks) -> std::result::Result<Self, &'static str> {
        let infinity = check_flags(bytes[0])?;
        if infinity && checks.reject_infinity {
            return Err("is the point at infinity");
        }
        let mut p = blst_p2_affine::default();
        // SAFETY: as for G1, with 192 bytes.
        let err = unsafe { blst_p2_deserialize(&mut p, bytes.as_ptr()) };
        if err != BLST_ERROR::BLST_SUCCESS {
            return Err(blst_problem(err));
        }
        // SAFETY: p is a valid, initialised affine point.
        if checks.subgroup && !infinity && unsafe { !blst_p2_affine_in_g2(&p) } {
            return Err(blst_problem(BLST_ERROR::BLST_POINT_NOT_IN_GROUP));
        }
        Ok(p)
    }
}

/// Decodes one point outside any section (the verifying key's fixed points).
pub fn decode_one<P: Encoded>(
    path: &Path,
    name: &'static str,
    bytes: &[u8],
    checks: PointChecks,
) -> Result<P> {
    P::decode(&bytes[..P::BYTES], checks).map_err(|problem| Error::BadPoint {
        path: path.to_path_buf(),
        section: name,
        index: 0,
        problem,
    })
}

/// Decodes every point of `section` in parallel. `file` is the whole mapped file.
///
/// Each task releases the file pages it has read (`release`), so the mapping does not add a
/// second copy of the SRS to the resident set while the decoded copy grows.
pub fn decode_section<P: Encoded>(
    path: &Path,
    file: &[u8],
    section: &Section,
    checks: PointChecks,
    release: &(dyn Fn(&[u8]) + Sync),
) -> Result<Vec<P>> {
    let bytes = &file[section.bytes.clone()];
    debug_assert_eq!(bytes.len(), section.count * P::BYTES);
    let mut out: Vec<P> = Vec::with_capacity(section.count);
    let first_bad = out.spare_capacity_mut()[..section.count]
        .par_chunks_mut(POINTS_PER_TASK)
        .zip(bytes.par_chunks(POINTS_PER_TASK * P::BYTES))
        .enumerate()
        .map(|(task, (slots, encoded))| {
            let bad = decode_into(slots, encoded, checks)
                .map(|(i, problem)| (task * POINTS_PER_TASK + i, problem));
            release(encoded);
            bad
        })
        .flatten()
        .min_by_key(|(index, _)| *index);
    if let Some((index, problem)) = first_bad {
        return Err(Error::BadPoint {
            path: path.to_path_buf(),
            section: section.name,
            index,
            problem,
        });
    }
    // SAFETY: every slot in 0..count was written by `decode_into` (no task failed).
    unsafe { out.set_len(section.count) };
    Ok(out)
}

/// Decodes `encoded` into `slots`; returns the first failing index within the chunk.
fn decode_into<P: Encoded>(
    slots: &mut [MaybeUninit<P>],
    encoded: &[u8],
    checks: PointChecks,
) -> Option<(usize, &'static str)> {
    for (i, (slot, bytes)) in slots
        .iter_mut()
        .zip(encoded.chunks_exact(P::BYTES))
        .enumerate()
    {
        match P::decode(bytes, checks) {
            Ok(p) => {
                slot.write(p);
            }
            Err(problem) => return Some((i, problem)),
        }
    }
    None
}
