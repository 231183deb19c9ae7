//! The fast setup of the examples (`bench_support::common::setup`) against bellperson's
//! `generate_random_parameters`: the same rng seed must give the same params file, byte for
//! byte, for circuits with sparse B queries, many inputs, one input, and sizes that are not
//! powers of two.

mod common;

use bellpepper_core::Circuit;
use bench_support::common::setup;
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::{Bls12, Scalar};
use common::*;

fn params_bytes(p: &bellperson::groth16::Parameters<Bls12>) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

fn same_as_bellperson<C: Circuit<Scalar> + Clone>(name: &str, blank: C, seed: u64) {
    let theirs = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(
        blank.clone(),
        &mut rng(seed),
    )
    .unwrap();
    let ours = setup::generate_random_parameters(blank, &mut rng(seed)).unwrap();
    assert!(
        !theirs.h.is_empty() && !theirs.l.is_empty(),
        "{name}: degenerate reference"
    );
    let (t, o) = (params_bytes(&theirs), params_bytes(&ours));
    assert_eq!(t.len(), o.len(), "{name}: params sizes differ");
    if let Some(i) = t.iter().zip(&o).position(|(a, b)| a != b) {
        panic!("{name}: params differ from byte {i} of {}", t.len());
    }
}

#[test]
fn porep_shaped_params_equal_bellpersons() {
    for (log_n, seed) in [(4, 1), (9, 2), (12, 3)] {
        same_as_bellperson(
            &format!("2^{log_n}"),
            PorepShapedCircuit::new(log_n, None),
            seed,
        );
    }
}

#[test]
fn other_circuits_params_equal_bellpersons() {
    let mimc = MimcChain {
        start: None,
        rounds: 7,
    };
    same_as_bellperson("mimc", mimc, 4);
    let many = ManyInputs {
        xs: None,
        count: 33,
    };
    same_as_bellperson("many inputs", many, 5);
    let sha = Sha256Circuit {
        message: None,
        len: 3,
    };
    same_as_bellperson("sha256", sha, 6);
}
