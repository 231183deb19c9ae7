//! supraseal-c2 0.1.2's Rust API as bellperson 0.26 and 0.27 call it (their own cuda-supraseal
//! paths run in compat/bellperson-check): the exact signatures, the 19-parameter
//! `generate_groth16_proof` and `generate_groth16_proofs` giving bellperson's proof bytes, and
//! the error of a missing params file.

#[path = "../../../tests/common/circuits.rs"]
mod circuits;

use std::path::PathBuf;

use bellperson::groth16::{create_proof, generate_random_parameters, Parameters, Proof};
use blstrs::{Bls12, Scalar};
use circuits::MimcChain;
use groth16_c2::witness::{RecordedWitness, WitnessRecorder};
use rand::SeedableRng;
use supraseal_c2::{Assignment, SRS};

fn circuit(seed: u64) -> MimcChain {
    MimcChain {
        start: Some(Scalar::from(seed)),
        rounds: 20,
    }
}

fn params() -> (Parameters<Bls12>, SRS, tempfile::TempDir) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let blank = MimcChain {
        start: None,
        rounds: 20,
    };
    let params = generate_random_parameters::<Bls12, _, _>(blank, &mut rng).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mimc.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    let srs = SRS::try_new(path, false).unwrap();
    (params, srs, dir)
}

fn empty_proof() -> Proof<Bls12> {
    use group::prime::PrimeCurveAffine;
    Proof {
        a: blstrs::G1Affine::identity(),
        b: blstrs::G2Affine::identity(),
        c: blstrs::G1Affine::identity(),
    }
}

/// The argument lists, checked by the compiler: a change of any parameter fails the build.
#[test]
#[allow(clippy::type_complexity)] // spelling the signatures out is the point
fn signatures_are_upstreams() {
    type Pr = Proof<Bls12>;
    let _generate: fn(
        &[*const Scalar],
        &[*const Scalar],
        &[*const Scalar],
        usize,
        &[*const Scalar],
        &[*const Scalar],
        usize,
        usize,
        &[usize],
        &[usize],
        &[usize],
        usize,
        usize,
        usize,
        usize,
        &[Scalar],
        &[Scalar],
        &mut [Pr],
        &SRS,
    ) = supraseal_c2::generate_groth16_proof::<Scalar, usize, Pr>;
    let _proofs: fn(&[Assignment<Scalar>], &[Scalar], &[Scalar], &mut [Pr], &SRS) =
        supraseal_c2::generate_groth16_proofs::<Scalar, Pr>;
    let _srs: fn(PathBuf, bool) -> Result<SRS, supraseal_c2::cuda::Error> = SRS::try_new;
}

#[test]
fn a_missing_params_file_is_an_error_with_a_message() {
    let err = SRS::try_new(PathBuf::from("/nonexistent/upstream.params"), true)
        .expect_err("a missing file must be an error");
    assert_ne!(err.code, 0);
    assert!(String::from(&err).contains("upstream.params"), "{err}");
}

fn assignment(w: &RecordedWitness) -> Assignment<Scalar> {
    Assignment {
        a_aux_density: w.a_aux_density.words().as_ptr() as *const usize,
        a_aux_bit_len: w.aux.len(),
        a_aux_popcount: w.a_aux_density.popcount(),
        b_inp_density: w.b_inp_density.words().as_ptr() as *const usize,
        b_inp_bit_len: w.inputs.len(),
        b_inp_popcount: w.b_inp_density.popcount(),
        b_aux_density: w.b_aux_density.words().as_ptr() as *const usize,
        b_aux_bit_len: w.aux.len(),
        b_aux_popcount: w.b_aux_density.popcount(),
        a: w.a.as_ptr(),
        b: w.b.as_ptr(),
        c: w.c.as_ptr(),
        abc_size: w.a.len(),
        inp_assignment_data: w.inputs.as_ptr(),
        inp_assignment_size: w.inputs.len(),
        aux_assignment_data: w.aux.as_ptr(),
        aux_assignment_size: w.aux.len(),
    }
}

#[test]
fn both_entry_points_give_bellpersons_bytes() {
    let (params, srs, _dir) = params();
    let seeds = [3u64, 4];
    let ws: Vec<RecordedWitness> = seeds
        .iter()
        .map(|&k| WitnessRecorder::record(circuit(k)).unwrap())
        .collect();
    let r = [Scalar::from(11u64), Scalar::from(12u64)];
    let s = [Scalar::from(21u64), Scalar::from(22u64)];
    let expected: Vec<Proof<Bls12>> = seeds
        .iter()
        .zip(r.iter().zip(&s))
        .map(|(&k, (&r, &s))| create_proof::<Bls12, _, _>(circuit(k), &params, r, s).unwrap())
        .collect();

    let ptrs = |f: fn(&RecordedWitness) -> *const Scalar| ws.iter().map(f).collect::<Vec<_>>();
    let w = &ws[0];
    let mut proofs = vec![empty_proof(), empty_proof()];
    supraseal_c2::generate_groth16_proof(
        &ptrs(|w| w.a.as_ptr()),
        &ptrs(|w| w.b.as_ptr()),
        &ptrs(|w| w.c.as_ptr()),
        w.a.len(),
        &ptrs(|w| w.inputs.as_ptr()),
        &ptrs(|w| w.aux.as_ptr()),
        w.inputs.len(),
        w.aux.len(),
        w.a_aux_density.words(),
        w.b_inp_density.words(),
        w.b_aux_density.words(),
        w.a_aux_density.popcount(),
        w.b_inp_density.popcount(),
        w.b_aux_density.popcount(),
        2,
        &r,
        &s,
        &mut proofs,
        &srs,
    );
    assert_eq!(proofs, expected);

    let provers: Vec<Assignment<Scalar>> = ws.iter().map(assignment).collect();
    let mut proofs = vec![empty_proof(), empty_proof()];
    supraseal_c2::generate_groth16_proofs(&provers, &r, &s, &mut proofs, &srs);
    assert_eq!(proofs, expected);
}

#[test]
fn a_length_mismatch_panics_as_upstream_does() {
    let (_params, srs, _dir) = params();
    let w = WitnessRecorder::record(circuit(5)).unwrap();
    let provers = [assignment(&w)];
    let caught = std::panic::catch_unwind(|| {
        let mut proofs = vec![empty_proof()];
        // Two r values for one circuit: upstream's assert_eq! fires.
        supraseal_c2::generate_groth16_proofs(
            &provers,
            &[Scalar::from(1u64), Scalar::from(2u64)],
            &[Scalar::from(1u64)],
            &mut proofs,
            &srs,
        );
    });
    assert!(caught.is_err());
}
