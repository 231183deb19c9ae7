//! The proof a Groth16 prover makes, as the C ABI lays it out.

use blstrs::{G1Affine, G2Affine};

/// A Groth16 proof, laid out as supraseal-c2's `groth16_proof` (384 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}
