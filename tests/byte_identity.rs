//! Our proofs, through the C ABI, are byte-identical to bellperson 0.26's CPU `create_proof`
//! for the same circuit, params, `r` and `s`, and bellperson's verifier accepts them.

mod common;

use bellpepper_core::Circuit;
use bellperson::groth16::{create_proof, prepare_verifying_key, verify_proof};
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::{Bls12, Scalar};
use common::*;
use ff::Field;

/// Proves `circuits` as one batch through the C ABI and checks every proof against bellperson.
fn check_batch<C: Circuit<Scalar> + Clone + Send>(
    params: &ParamsFile,
    circuits: &[C],
    publics: &[Vec<Scalar>],
    seed: u64,
) {
    let srs = CSrs::load(&params.path, false).unwrap();
    let pvk = prepare_verifying_key(&params.params.vk);
    let witnesses: Vec<_> = circuits.iter().cloned().map(record).collect();
    let refs: Vec<_> = witnesses.iter().collect();
    for (label, r, s) in [
        (
            "r = s = 0",
            vec![Scalar::ZERO; circuits.len()],
            vec![Scalar::ZERO; circuits.len()],
        ),
        (
            "random r, s",
            random_scalars(circuits.len(), seed),
            random_scalars(circuits.len(), seed + 1),
        ),
    ] {
        let ours = prove_c(&srs, &refs, &r, &s).unwrap();
        for (i, c) in circuits.iter().enumerate() {
            let theirs =
                create_proof::<Bls12, _, _>(c.clone(), &params.params, r[i], s[i]).unwrap();
            let ours = to_bellperson(&ours[i]);
            assert_eq!(
                proof_bytes(&ours),
                proof_bytes(&theirs),
                "circuit {i} of a batch of {} ({label}): bytes differ from bellperson",
                circuits.len()
            );
            assert!(
                verify_proof(&pvk, &ours, &publics[i]).unwrap(),
                "circuit {i} ({label}) does not verify"
            );
        }
    }
}

fn for_batches<C: Circuit<Scalar> + Clone + Send>(
    params: &ParamsFile,
    make: impl Fn(u64) -> (C, Vec<Scalar>),
) {
    for batch in 1..=3u64 {
        let (circuits, publics): (Vec<C>, Vec<Vec<Scalar>>) =
            (0..batch).map(|i| make(100 * batch + i)).unzip();
        check_batch(params, &circuits, &publics, batch);
    }
}

#[test]
fn mimc_chain_one_public_input() {
    let blank = MimcChain {
        start: None,
        rounds: 300,
    };
    let params = params_file(blank, 1);
    for_batches(&params, |seed| {
        let c = MimcChain {
            start: Some(Scalar::random(rng(seed))),
            rounds: 300,
        };
        let out = c.output();
        (c, vec![out])
    });
}

#[test]
fn sha256_gadget_short_message() {
    let blank = Sha256Circuit {
        message: None,
        len: 8,
    };
    let params = params_file(blank, 2);
    for_batches(&params, |seed| {
        let c = Sha256Circuit {
            message: Some(seed.to_le_bytes().to_vec()),
            len: 8,
        };
        let inputs = c.digest_inputs();
        (c, inputs)
    });
}

#[test]
fn mostly_zero_one_witnesses() {
    let params = params_file(PorepShapedCircuit::new(11, None), 3);
    for_batches(&params, |seed| {
        let c = PorepShapedCircuit::new(11, Some(seed));
        let publics = c.public_values();
        (c, publics)
    });
}

#[test]
fn many_public_inputs() {
    let params = params_file(
        ManyInputs {
            xs: None,
            count: 70,
        },
        4,
    );
    for_batches(&params, |seed| {
        let c = ManyInputs {
            xs: Some(random_scalars(70, seed)),
            count: 70,
        };
        let outs = c.outputs();
        (c, outs)
    });
}

#[test]
fn abc_size_not_a_power_of_two_and_tiny() {
    // 5 rounds: 10 constraints + 2 input constraints = 12, padded to a domain of 16.
    let params = params_file(
        MimcChain {
            start: None,
            rounds: 5,
        },
        5,
    );
    let c = MimcChain {
        start: Some(Scalar::from(9u64)),
        rounds: 5,
    };
    let w = record(c.clone());
    assert_eq!(w.a.len(), 12);
    let out = c.output();
    check_batch(&params, &[c], &[vec![out]], 9);
}
