//! What the tests share: a MiMC circuit's params written as Filecoin ships them, witnesses
//! recorded the way bellperson's supraseal path lays them out, and the fork's calls made with
//! exactly the arguments Curio's bellperson fork passes (one set of densities per batch).
#![allow(dead_code)]

#[path = "../../../../tests/common/circuits.rs"]
mod circuits;

use std::ffi::c_void;

use bellperson::groth16::{
    create_proof, generate_random_parameters, prepare_verifying_key, verify_proof, Parameters,
    PreparedVerifyingKey, Proof,
};
use blstrs::{Bls12, Scalar};
pub use circuits::MimcChain;
use groth16_c2::witness::{RecordedWitness, WitnessRecorder};
use rand::SeedableRng;

pub const ROUNDS: usize = 30;

pub struct Setup {
    pub params: Parameters<Bls12>,
    pub pvk: PreparedVerifyingKey<Bls12>,
    pub srs: supraseal_c2::SRS,
    _dir: tempfile::TempDir,
}

pub fn setup() -> Setup {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let blank = MimcChain {
        start: None,
        rounds: ROUNDS,
    };
    let params = generate_random_parameters::<Bls12, _, _>(blank, &mut rng).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mimc.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    Setup {
        pvk: prepare_verifying_key(&params.vk),
        params,
        srs: supraseal_c2::SRS::try_new(path, false).unwrap(),
        _dir: dir,
    }
}

pub fn circuit(seed: u64) -> MimcChain {
    MimcChain {
        start: Some(Scalar::from(seed)),
        rounds: ROUNDS,
    }
}

/// A recorded witness and its public input.
pub fn witness(seed: u64) -> (RecordedWitness, Vec<Scalar>) {
    let c = circuit(seed);
    let out = c.output();
    (WitnessRecorder::record(c).unwrap(), vec![out])
}

/// bellperson's CPU proof of the same circuit with the same r and s: the bytes ours must equal.
pub fn bellperson_proof(s: &Setup, seed: u64, r: Scalar, s_: Scalar) -> Proof<Bls12> {
    create_proof::<Bls12, _, _>(circuit(seed), &s.params, r, s_).unwrap()
}

pub fn rs(n: usize, seed: u64) -> (Vec<Scalar>, Vec<Scalar>) {
    let r = (0..n)
        .map(|i| Scalar::from(seed * 100 + i as u64 + 2))
        .collect();
    let s = (0..n)
        .map(|i| Scalar::from(seed * 100 + i as u64 + 50))
        .collect();
    (r, s)
}

fn ptrs(ws: &[&RecordedWitness], f: fn(&RecordedWitness) -> *const Scalar) -> Vec<*const Scalar> {
    ws.iter().map(|w| f(w)).collect()
}

/// `start_groth16_proof` as Curio's bellperson fork calls it.
pub fn start(
    s: &Setup,
    ws: &[&RecordedWitness],
    r: &[Scalar],
    s_: &[Scalar],
    lock: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    let w = ws[0];
    supraseal_c2::start_groth16_proof(
        &ptrs(ws, |w| w.a.as_ptr()),
        &ptrs(ws, |w| w.b.as_ptr()),
        &ptrs(ws, |w| w.c.as_ptr()),
        w.a.len(),
        &ptrs(ws, |w| w.inputs.as_ptr()),
        &ptrs(ws, |w| w.aux.as_ptr()),
        w.inputs.len(),
        w.aux.len(),
        w.a_aux_density.words(),
        w.b_inp_density.words(),
        w.b_aux_density.words(),
        w.a_aux_density.popcount(),
        w.b_inp_density.popcount(),
        w.b_aux_density.popcount(),
        ws.len(),
        r,
        s_,
        &s.srs,
        lock,
        gpu_index,
    )
}

/// `generate_groth16_proof` (21 parameters) as Curio's engine calls it.
pub fn generate(
    s: &Setup,
    ws: &[&RecordedWitness],
    r: &[Scalar],
    s_: &[Scalar],
    lock: *mut c_void,
    gpu_index: i32,
) -> Vec<Proof<Bls12>> {
    let w = ws[0];
    let mut proofs = empty_proofs(ws.len());
    supraseal_c2::generate_groth16_proof(
        &ptrs(ws, |w| w.a.as_ptr()),
        &ptrs(ws, |w| w.b.as_ptr()),
        &ptrs(ws, |w| w.c.as_ptr()),
        w.a.len(),
        &ptrs(ws, |w| w.inputs.as_ptr()),
        &ptrs(ws, |w| w.aux.as_ptr()),
        w.inputs.len(),
        w.aux.len(),
        w.a_aux_density.words(),
        w.b_inp_density.words(),
        w.b_aux_density.words(),
        w.a_aux_density.popcount(),
        w.b_inp_density.popcount(),
        w.b_aux_density.popcount(),
        ws.len(),
        r,
        s_,
        &mut proofs,
        &s.srs,
        lock,
        gpu_index,
    );
    proofs
}

pub fn assert_verifies(s: &Setup, proofs: &[Proof<Bls12>], publics: &[Vec<Scalar>]) {
    assert_eq!(proofs.len(), publics.len());
    for (i, (p, x)) in proofs.iter().zip(publics).enumerate() {
        assert!(
            verify_proof(&s.pvk, p, x).unwrap(),
            "proof {i} does not verify"
        );
    }
}

pub fn empty_proofs(n: usize) -> Vec<Proof<Bls12>> {
    use group::prime::PrimeCurveAffine;
    (0..n)
        .map(|_| Proof {
            a: blstrs::G1Affine::identity(),
            b: blstrs::G2Affine::identity(),
            c: blstrs::G1Affine::identity(),
        })
        .collect()
}

/// The message of a caught panic.
pub fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
