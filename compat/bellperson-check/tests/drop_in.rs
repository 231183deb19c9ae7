//! bellperson 0.26 or 0.27 (features `v026`, `v027`) with `cuda-supraseal`, patched to our
//! `supraseal-c2` compat crate, proves real bellperson circuits through its own API
//! (`SuprasealParameters`, `create_proof_batch`, `create_random_proof_batch`), bellperson's
//! verifier accepts every proof, and the library it linked is the build it should be (CUDA
//! when nvcc was there, CPU otherwise: `GROTH16_C2_EXPECT_CUDA`, set by the outer test).

// v027 wins when both are on (v026 is the default feature).
#[cfg(all(feature = "v026", not(feature = "v027")))]
extern crate bellperson026 as bellperson;
#[cfg(feature = "v027")]
extern crate bellperson027 as bellperson;

#[path = "../../../tests/common/circuits.rs"]
mod circuits;

use std::path::{Path, PathBuf};

use bellpepper_core::Circuit;
use bellperson::groth16::{
    create_proof, create_proof_batch, create_random_proof, create_random_proof_batch,
    generate_random_parameters, prepare_verifying_key, verify_proof, PreparedVerifyingKey, Proof,
    SuprasealParameters,
};
use blstrs::{Bls12, Scalar};
use circuits::{ManyInputs, MimcChain, Sha256Circuit};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn scalars(n: usize, seed: u64) -> Vec<Scalar> {
    let mut r = rng(seed);
    (0..n).map(|_| Scalar::random(&mut r)).collect()
}

/// Params written with bellperson's `Parameters::write`, as Filecoin ships them.
struct Params {
    pvk: PreparedVerifyingKey<Bls12>,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

fn write_params<C: Circuit<Scalar>>(blank: C, seed: u64) -> Params {
    let params = generate_random_parameters::<Bls12, _, _>(blank, &mut rng(seed)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("circuit.params");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    params.write(&mut f).unwrap();
    drop(f);
    Params {
        pvk: prepare_verifying_key(&params.vk),
        path,
        _dir: dir,
    }
}

fn load(path: &Path) -> SuprasealParameters<Bls12> {
    SuprasealParameters::new(path.to_path_buf()).expect("SuprasealParameters::new")
}

fn assert_all_verify(
    pvk: &PreparedVerifyingKey<Bls12>,
    proofs: &[Proof<Bls12>],
    publics: &[Vec<Scalar>],
    what: &str,
) {
    assert_eq!(proofs.len(), publics.len());
    for (i, (p, x)) in proofs.iter().zip(publics).enumerate() {
        assert!(
            verify_proof(pvk, p, x).unwrap(),
            "{what}: proof {i} does not verify"
        );
    }
}

/// Single proofs and batches of 1..3, with given and with random r, s.
fn check_circuit<C: Circuit<Scalar> + Clone + Send>(
    params: &Params,
    make: impl Fn(u64) -> (C, Vec<Scalar>),
) {
    let srs = load(&params.path);
    let (c, x) = make(1);
    let p = create_proof::<Bls12, _, &SuprasealParameters<Bls12>>(
        c.clone(),
        &srs,
        Scalar::from(3u64),
        Scalar::from(5u64),
    )
    .unwrap();
    assert_all_verify(&params.pvk, &[p], std::slice::from_ref(&x), "create_proof");
    let p = create_random_proof(c, &srs, &mut rng(2)).unwrap();
    assert_all_verify(&params.pvk, &[p], &[x], "create_random_proof");
    for batch in 1..=3u64 {
        let (circuits, publics): (Vec<C>, Vec<Vec<Scalar>>) =
            (0..batch).map(|i| make(10 * batch + i)).unzip();
        let r = scalars(batch as usize, batch);
        let s = scalars(batch as usize, batch + 50);
        let proofs = create_proof_batch(circuits.clone(), &srs, r.clone(), s.clone()).unwrap();
        assert_all_verify(&params.pvk, &proofs, &publics, "create_proof_batch");
        // Deterministic for the same r, s.
        let again = create_proof_batch(circuits.clone(), &srs, r, s).unwrap();
        assert!(proofs == again, "create_proof_batch is not deterministic");
        let proofs = create_random_proof_batch(circuits, &srs, &mut rng(batch + 99)).unwrap();
        assert_all_verify(&params.pvk, &proofs, &publics, "create_random_proof_batch");
    }
}

#[test]
fn sha256_gadget() {
    let params = write_params(
        Sha256Circuit {
            message: None,
            len: 8,
        },
        1,
    );
    check_circuit(&params, |seed| {
        let c = Sha256Circuit {
            message: Some(seed.to_le_bytes().to_vec()),
            len: 8,
        };
        let x = c.digest_inputs();
        (c, x)
    });
}

#[test]
fn mimc_chain_with_one_public_input() {
    let params = write_params(
        MimcChain {
            start: None,
            rounds: 200,
        },
        2,
    );
    check_circuit(&params, |seed| {
        let c = MimcChain {
            start: Some(Scalar::from(seed + 7)),
            rounds: 200,
        };
        let x = vec![c.output()];
        (c, x)
    });
}

#[test]
fn many_public_inputs() {
    let params = write_params(
        ManyInputs {
            xs: None,
            count: 50,
        },
        3,
    );
    check_circuit(&params, |seed| {
        let c = ManyInputs {
            xs: Some(scalars(50, seed)),
            count: 50,
        };
        let x = c.outputs();
        (c, x)
    });
}

#[test]
fn threads_prove_on_one_srs_at_once() {
    let params = write_params(
        MimcChain {
            start: None,
            rounds: 100,
        },
        4,
    );
    let srs = load(&params.path);
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let (srs, pvk) = (&srs, &params.pvk);
            scope.spawn(move || {
                for k in 0..3u64 {
                    let c = MimcChain {
                        start: Some(Scalar::from(100 * t + k)),
                        rounds: 100,
                    };
                    let x = vec![c.output()];
                    let p = create_random_proof_batch(vec![c], srs, &mut rng(t * 10 + k)).unwrap();
                    assert_all_verify(pvk, &p, &[x], "thread");
                }
            });
        }
    });
}

#[test]
fn srs_handles_behave_like_supraseal() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<supraseal_c2::SRS>();

    let params = write_params(
        MimcChain {
            start: None,
            rounds: 10,
        },
        5,
    );
    let a = supraseal_c2::SRS::try_new(params.path.clone(), true).unwrap();
    let b = a.clone();
    a.evict();
    drop(a);
    // `b` still proves after its sibling was evicted and dropped.
    let srs = SuprasealParameters::<Bls12>::new(params.path.clone()).unwrap();
    let c = MimcChain {
        start: Some(Scalar::ONE),
        rounds: 10,
    };
    let x = vec![c.output()];
    let p = create_random_proof(c, &srs, &mut rng(1)).unwrap();
    assert_all_verify(&params.pvk, &[p], &[x], "after evict");
    drop(b);

    let err = supraseal_c2::SRS::try_new(PathBuf::from("/nonexistent/x.params"), false)
        .err()
        .unwrap();
    assert!(err.code != 0);
    assert!(err.to_string().contains("/nonexistent/x.params"), "{err}");
    // bellperson turns it into an io::Error carrying the message.
    let e = SuprasealParameters::<Bls12>::new(PathBuf::from("/nonexistent/x.params"))
        .err()
        .unwrap();
    assert!(e.to_string().contains("No such file"), "{e}");
}

#[test]
fn misuse_panics_as_in_supraseal() {
    let params = write_params(
        MimcChain {
            start: None,
            rounds: 10,
        },
        6,
    );
    let srs = supraseal_c2::SRS::try_new(params.path.clone(), false).unwrap();
    let r = [Scalar::ONE];
    let mut proofs = vec![[0u8; 384]; 1];
    // r_s shorter than num_circuits: 0.1.2 asserts.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        supraseal_c2::generate_groth16_proofs::<Scalar, [u8; 384]>(&[], &r, &r, &mut proofs, &srs)
    }));
    assert!(caught.is_err(), "length mismatch must panic");
    // A failing proof panics with the library's message instead of returning unwritten proofs.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        supraseal_c2::generate_groth16_proofs::<Scalar, [u8; 384]>(&[], &[], &[], &mut [], &srs)
    }));
    let msg = caught
        .err()
        .and_then(|p| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("num_circuits is 0"), "panic message: {msg}");
}

extern "C" {
    // From groth16-c2, linked in through the compat crate.
    fn groth16_c2_built_with_cuda() -> bool;
    fn groth16_c2_cuda_archs() -> *const std::ffi::c_char;
    fn groth16_c2_backend() -> *const std::ffi::c_char;
}

#[test]
fn linked_the_expected_build() {
    // SAFETY: plain calls; the strings are static.
    let (cuda, archs, backend) = unsafe {
        (
            groth16_c2_built_with_cuda(),
            std::ffi::CStr::from_ptr(groth16_c2_cuda_archs()).to_string_lossy(),
            std::ffi::CStr::from_ptr(groth16_c2_backend()).to_string_lossy(),
        )
    };
    println!("groth16-c2 linked: built with CUDA {cuda} ({archs}), proving on {backend}");
    match std::env::var("GROTH16_C2_EXPECT_CUDA").as_deref() {
        Ok("1") => assert!(
            cuda,
            "expected a CUDA build of groth16-c2, got a CPU-only one"
        ),
        Ok("0") => assert!(
            !cuda,
            "expected a CPU-only build of groth16-c2, got {archs}"
        ),
        _ => println!("GROTH16_C2_EXPECT_CUDA unset: not checking which build"),
    }
    assert_eq!(archs.is_empty(), !cuda);
    // A host that only adds the [patch] line gets every default architecture.
    if cuda && std::env::var_os("GROTH16_C2_CUDA_ARCHS").is_none() {
        for arch in [
            "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
        ] {
            assert!(archs.contains(arch), "{arch} missing from {archs}");
        }
    }
}
