//! The GPU curve formulas (mixed addition, doubling, general addition with its doubling and
//! cancelling branches, a small scalar multiple) equal blstrs on G1 and G2, for 1000 random
//! pairs and the edge pairs every formula must survive: an identity operand, both identities,
//! `b == a`, `b == -a` and `a == 2b`. Needs a GPU; prints a SKIP line without one.

use std::fmt::Debug;

use crate::common::gpu::*;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use groth16_c2::testing::cuda::msm::{curve_op_g1, curve_op_g2};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::SeedableRng;

const RANDOM_PAIRS: usize = 1000;

/// The operations of `g16_curve_test_op`, with what each must compute.
const OPS: [(i32, &str); 5] = [
    (0, "a + b (mixed additions)"),
    (1, "2a + 2b (doublings, general addition)"),
    (2, "(a + b) + (a + b) (general addition, doubling branch)"),
    (3, "(a + b) - (a + b) (general addition, identity branch)"),
    (4, "13 (a + b)"),
];

fn expected<P: Group<Scalar = Scalar>>(op: i32, a: P, b: P) -> P {
    let s = a + b;
    match op {
        0 => s,
        1 => a.double() + b.double(),
        2 => s.double(),
        3 => P::identity(),
        4 => s * Scalar::from(13u64),
        _ => unreachable!(),
    }
}

/// 1000 random pairs, then the edge pairs, each with a label for failure messages.
fn pairs<P>(seed: u64) -> (Vec<P::AffineRepr>, Vec<P::AffineRepr>, Vec<String>)
where
    P: Curve + Group<Scalar = Scalar>,
    P::AffineRepr: PrimeCurveAffine<Curve = P>,
{
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut pa: Vec<P> = Vec::new();
    let mut pb: Vec<P> = Vec::new();
    let mut labels = Vec::new();
    for i in 0..RANDOM_PAIRS {
        pa.push(P::random(&mut rng));
        pb.push(P::random(&mut rng));
        labels.push(format!("random pair {i}"));
    }
    let o = P::identity();
    let g = P::generator();
    let mut edge = |a: P, b: P, what: &str| {
        pa.push(a);
        pb.push(b);
        labels.push(what.to_string());
    };
    for k in 0..4 {
        let (a, b) = if k == 0 {
            (g, g.double())
        } else {
            (P::random(&mut rng), P::random(&mut rng))
        };
        edge(o, b, &format!("a = identity ({k})"));
        edge(a, o, &format!("b = identity ({k})"));
        edge(o, o, &format!("both identity ({k})"));
        edge(a, a, &format!("b == a ({k})"));
        edge(a, -a, &format!("b == -a ({k})"));
        edge(b.double(), b, &format!("a == 2b ({k})"));
        edge(b, b.double(), &format!("b == 2a ({k})"));
    }
    let mut a = vec![P::AffineRepr::identity(); pa.len()];
    let mut b = vec![P::AffineRepr::identity(); pb.len()];
    P::batch_normalize(&pa, &mut a);
    P::batch_normalize(&pb, &mut b);
    (a, b, labels)
}

fn check<P>(curve: &str, seed: u64, gpu: impl Fn(i32, &[P::AffineRepr], &[P::AffineRepr]) -> Vec<P>)
where
    P: Curve + Group<Scalar = Scalar> + Debug,
    P::AffineRepr: PrimeCurveAffine<Curve = P>,
{
    let (a, b, labels) = pairs::<P>(seed);
    for (op, what) in OPS {
        let got = gpu(op, &a, &b);
        assert_eq!(got.len(), a.len(), "{curve} op {op}: one result per pair");
        let mut bad = Vec::new();
        for i in 0..a.len() {
            let want = expected(op, a[i].to_curve(), b[i].to_curve());
            if got[i] != want {
                bad.push(format!(
                    "  {}: got {:?}, want {:?}",
                    labels[i],
                    got[i].to_affine(),
                    want.to_affine()
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{curve} op {op} = {what}: {} of {} pairs differ from blstrs, first ones:\n{}",
            bad.len(),
            a.len(),
            bad[..bad.len().min(8)].join("\n")
        );
    }
}

#[test]
fn g1_curve_ops_match_blstrs() {
    let Some(_gpu) = gpu_shared_or_skip("g1_curve_ops_match_blstrs") else {
        return;
    };
    check::<G1Projective>("G1", 1, |op, a: &[G1Affine], b: &[G1Affine]| {
        curve_op_g1(0, op, a, b).unwrap()
    });
}

#[test]
fn g2_curve_ops_match_blstrs() {
    let Some(_gpu) = gpu_shared_or_skip("g2_curve_ops_match_blstrs") else {
        return;
    };
    check::<G2Projective>("G2", 2, |op, a: &[G2Affine], b: &[G2Affine]| {
        curve_op_g2(0, op, a, b).unwrap()
    });
}

#[test]
fn curve_ops_of_no_pairs_are_empty() {
    let Some(_gpu) = gpu_shared_or_skip("curve_ops_of_no_pairs_are_empty") else {
        return;
    };
    for (op, _) in OPS {
        assert!(curve_op_g1(0, op, &[], &[]).unwrap().is_empty());
        assert!(curve_op_g2(0, op, &[], &[]).unwrap().is_empty());
    }
}
