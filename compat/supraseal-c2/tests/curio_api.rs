//! The Curio-fork additions of the compat crate: a caller-owned GPU lock, the split
//! `start_groth16_proof` / `finish_groth16_proof` / `drop_pending_proof` API, and (with the
//! `cuzk` feature) the 20-argument `generate_groth16_proof`. Proofs verify with bellperson.

#[path = "../../../tests/common/circuits.rs"]
mod circuits;

use bellperson::groth16::{
    generate_random_parameters, prepare_verifying_key, verify_proof, PreparedVerifyingKey, Proof,
};
use blstrs::{Bls12, Scalar};
use circuits::MimcChain;
use groth16_c2::witness::{RecordedWitness, WitnessRecorder};
use rand::SeedableRng;

struct Setup {
    pvk: PreparedVerifyingKey<Bls12>,
    srs: supraseal_c2::SRS,
    _dir: tempfile::TempDir,
}

fn setup() -> Setup {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let params = generate_random_parameters::<Bls12, _, _>(
        MimcChain {
            start: None,
            rounds: 30,
        },
        &mut rng,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mimc.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    Setup {
        pvk: prepare_verifying_key(&params.vk),
        srs: supraseal_c2::SRS::try_new(path, true).unwrap(),
        _dir: dir,
    }
}

fn witness(seed: u64) -> (RecordedWitness, Vec<Scalar>) {
    let c = MimcChain {
        start: Some(Scalar::from(seed)),
        rounds: 30,
    };
    let out = c.output();
    (WitnessRecorder::record(c).unwrap(), vec![out])
}

/// Starts a batch as Curio's engine does: one set of densities for all circuits.
fn start(s: &Setup, ws: &[&RecordedWitness], lock: *mut std::ffi::c_void) -> *mut std::ffi::c_void {
    let w = ws[0];
    let ptrs =
        |f: fn(&RecordedWitness) -> *const Scalar| ws.iter().map(|w| f(w)).collect::<Vec<_>>();
    let r: Vec<Scalar> = (0..ws.len()).map(|i| Scalar::from(i as u64 + 2)).collect();
    supraseal_c2::start_groth16_proof(
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
        ws.len(),
        &r,
        &r,
        &s.srs,
        lock,
    )
}

fn assert_verifies(s: &Setup, proofs: &[Proof<Bls12>], publics: &[Vec<Scalar>]) {
    for (p, x) in proofs.iter().zip(publics) {
        assert!(verify_proof(&s.pvk, p, x).unwrap());
    }
}

fn empty_proofs(n: usize) -> Vec<Proof<Bls12>> {
    use group::prime::PrimeCurveAffine;
    (0..n)
        .map(|_| Proof {
            a: blstrs::G1Affine::identity(),
            b: blstrs::G2Affine::identity(),
            c: blstrs::G1Affine::identity(),
        })
        .collect()
}

#[test]
fn split_api_with_a_shared_lock() {
    let s = setup();
    let lock = supraseal_c2::alloc_gpu_mutex();
    assert!(!lock.is_null());
    let (w1, x1) = witness(5);
    let (w2, x2) = witness(6);
    std::thread::scope(|scope| {
        for (w, x) in [(&w1, &x1), (&w2, &x2)] {
            let (s, lock) = (&s, lock as usize);
            scope.spawn(move || {
                for _ in 0..3 {
                    let pending = start(s, &[w, w], lock as *mut _);
                    let mut proofs = empty_proofs(2);
                    supraseal_c2::finish_groth16_proof(pending, &mut proofs);
                    assert_verifies(s, &proofs, &[x.clone(), x.clone()]);
                    // Curio does not drop after finish; hosts that do are safe too.
                    unsafe { supraseal_c2::drop_pending_proof(pending) };
                }
            });
        }
    });
    // Abandoning a started batch.
    let pending = start(&s, &[&w1], std::ptr::null_mut());
    unsafe { supraseal_c2::drop_pending_proof(pending) };
    // Finishing an abandoned batch panics with the library's message.
    let caught = std::panic::catch_unwind(|| {
        supraseal_c2::finish_groth16_proof(pending, &mut empty_proofs(1))
    });
    let msg = caught
        .err()
        .and_then(|p| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("not live"), "{msg}");
    unsafe { supraseal_c2::free_gpu_mutex(lock) };
}

#[test]
fn finish_into_too_few_slots_panics_instead_of_writing_past_them() {
    let s = setup();
    let (w, x) = witness(9);
    let pending = start(&s, &[&w, &w], std::ptr::null_mut());
    let caught = std::panic::catch_unwind(|| {
        supraseal_c2::finish_groth16_proof(pending, &mut empty_proofs(1))
    });
    assert!(caught.is_err());
    let mut proofs = empty_proofs(2);
    supraseal_c2::finish_groth16_proof(pending, &mut proofs);
    assert_verifies(&s, &proofs, &[x.clone(), x]);
}

#[cfg(feature = "cuzk")]
#[test]
fn generate_with_the_callers_lock() {
    let s = setup();
    let lock = supraseal_c2::alloc_gpu_mutex();
    let (w, x) = witness(11);
    let mut proofs = empty_proofs(1);
    let r = [Scalar::from(3u64)];
    supraseal_c2::generate_groth16_proof(
        &[w.a.as_ptr()],
        &[w.b.as_ptr()],
        &[w.c.as_ptr()],
        w.a.len(),
        &[w.inputs.as_ptr()],
        &[w.aux.as_ptr()],
        w.inputs.len(),
        w.aux.len(),
        w.a_aux_density.words(),
        w.b_inp_density.words(),
        w.b_aux_density.words(),
        w.a_aux_density.popcount(),
        w.b_inp_density.popcount(),
        w.b_aux_density.popcount(),
        1,
        &r,
        &r,
        &mut proofs,
        &s.srs,
        lock,
    );
    assert_verifies(&s, &proofs, &[x]);
    unsafe { supraseal_c2::free_gpu_mutex(lock) };
}
