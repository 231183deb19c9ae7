//! Random-mutation fuzzing on stable Rust, through the C ABI: the params parser
//! (`create_SRS` over mutated params files) and the Assignment checks (`generate_groth16_
//! proofs_c` over assignments whose sizes, bit lengths, popcounts and values lie, with pointers
//! honest for the lengths they claim, as the ABI's contract requires). Every outcome must be a
//! success or an error with a message; a caught panic (`GROTH16_C2_ERR_PANIC`) is a finding, a
//! crash kills the test binary.
//!
//! Each target runs for `GROTH16_C2_FUZZ_SECONDS` (default 15) from seed `GROTH16_C2_FUZZ_SEED`
//! (default: a fixed one, so CI is reproducible) and prints its executions:
//! `GROTH16_C2_FUZZ_SECONDS=1800 cargo test --release --features bellpepper --test fuzz -- --nocapture`.
//! A failure prints the seed and iteration that reproduce it.

mod common;

use std::time::{Duration, Instant};

use blstrs::Scalar;
use common::*;
use ff::Field;
use groth16_c2::ffi::{self, GROTH16_C2_ERR_PANIC};
use groth16_c2::testing::count_ones;
use groth16_c2::Assignment;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn budget() -> Duration {
    let secs = std::env::var("GROTH16_C2_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15.0);
    Duration::from_secs_f64(secs)
}

fn seed() -> u64 {
    std::env::var("GROTH16_C2_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6731_6332)
}

fn mimc(start: Option<Scalar>) -> MimcChain {
    MimcChain { start, rounds: 12 }
}

/// Fails on a caught panic, naming what reproduces it.
#[track_caller]
fn no_panic(outcome: Result<(), (i32, String)>, target: &str, seed: u64, iteration: u64) {
    if let Err((code, msg)) = outcome {
        assert_ne!(
            code, GROTH16_C2_ERR_PANIC,
            "{target}: a panic reached the boundary (GROTH16_C2_FUZZ_SEED={seed}, iteration \
             {iteration}): {msg}"
        );
        assert!(!msg.is_empty(), "{target}: an error without a message");
    }
}

/// One random mutation of a params file image.
fn mutate(rng: &mut ChaCha8Rng, bytes: &mut Vec<u8>) {
    let len = bytes.len().max(1);
    match rng.gen_range(0..9) {
        0 => {
            for _ in 0..rng.gen_range(1..8) {
                let i = rng.gen_range(0..len);
                if let Some(b) = bytes.get_mut(i) {
                    *b ^= 1 << rng.gen_range(0..8);
                }
            }
        }
        1 => {
            let i = rng.gen_range(0..len);
            if let Some(b) = bytes.get_mut(i) {
                *b = rng.gen();
            }
        }
        2 => bytes.truncate(rng.gen_range(0..len)),
        3 => {
            let extra: Vec<u8> = (0..rng.gen_range(1..300)).map(|_| rng.gen()).collect();
            bytes.extend_from_slice(&extra);
        }
        4 => {
            // A count field (or any 4 bytes) rewritten: near its value, huge, or random.
            let i = rng.gen_range(0..len.saturating_sub(4).max(1));
            if i + 4 <= bytes.len() {
                let old = u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
                let new = match rng.gen_range(0..4) {
                    0 => old.wrapping_add(1),
                    1 => old.wrapping_sub(1),
                    2 => u32::MAX - rng.gen_range(0..4),
                    _ => rng.gen(),
                };
                bytes[i..i + 4].copy_from_slice(&new.to_be_bytes());
            }
        }
        5 => {
            // A run of bytes copied over another place (points moved, counts duplicated).
            let n = rng.gen_range(1..200).min(len);
            let from = rng.gen_range(0..=len - n);
            let to = rng.gen_range(0..=len - n);
            if from + n <= bytes.len() && to + n <= bytes.len() {
                let run = bytes[from..from + n].to_vec();
                bytes[to..to + n].copy_from_slice(&run);
            }
        }
        6 => {
            let n = rng.gen_range(1..500).min(len);
            let at = rng.gen_range(0..=len - n);
            if at + n <= bytes.len() {
                bytes[at..at + n].fill(0);
            }
        }
        7 => {
            // Flag bits on what may be a point's first byte.
            let i = rng.gen_range(0..len);
            if let Some(b) = bytes.get_mut(i) {
                *b |= [0x80, 0x40, 0x20, 0xe0][rng.gen_range(0..4)];
            }
        }
        _ => {
            let at = rng.gen_range(0..len);
            let run: Vec<u8> = (0..rng.gen_range(1..100)).map(|_| rng.gen()).collect();
            let at = at.min(bytes.len());
            bytes.splice(at..at, run);
        }
    }
}

#[test]
fn fuzz_the_params_parser() {
    let params = params_file(mimc(None), 31);
    let clean = std::fs::read(&params.path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzzed.params");
    let seed = seed();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (start, budget) = (Instant::now(), budget());
    let (mut runs, mut loaded) = (0u64, 0u64);
    while start.elapsed() < budget {
        let mut bytes = clean.clone();
        for _ in 0..rng.gen_range(1..4) {
            mutate(&mut rng, &mut bytes);
        }
        std::fs::write(&path, &bytes).unwrap();
        let cache = rng.gen_bool(0.3);
        match CSrs::load(&path, cache) {
            Ok(srs) => {
                loaded += 1;
                drop(srs);
            }
            Err(e) => no_panic(Err(e), "params parser", seed, runs),
        }
        if cache {
            groth16_c2::srs::evict(&path);
        }
        runs += 1;
    }
    eprintln!(
        "fuzz_the_params_parser: {runs} executions in {:.1} s ({loaded} loaded), seed {seed}, \
         no findings",
        start.elapsed().as_secs_f64()
    );
    assert!(runs > 0);
}

/// Owned buffers an assignment points into, with honest lengths.
struct Lying {
    words: [Vec<u64>; 3],
    abc: [Vec<Scalar>; 3],
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
    a: Assignment,
}

/// A value near `v`: itself mostly, else off by a little or by a lot.
fn near(rng: &mut ChaCha8Rng, v: usize) -> usize {
    match rng.gen_range(0..10) {
        0 => v + 1,
        1 => v.saturating_sub(1),
        2 => v + rng.gen_range(2..100),
        3 => rng.gen_range(0..=v.max(1)),
        _ => v,
    }
}

fn lying_assignment(rng: &mut ChaCha8Rng, honest: &Assignment, w: &RecordedView) -> Lying {
    let bits = [
        honest.a_aux_bit_len,
        honest.b_inp_bit_len,
        honest.b_aux_bit_len,
    ];
    let mut words: [Vec<u64>; 3] = [
        w.densities[0].clone(),
        w.densities[1].clone(),
        w.densities[2].clone(),
    ];
    let mut bit_len = bits;
    let mut popcount = [
        honest.a_aux_popcount,
        honest.b_inp_popcount,
        honest.b_aux_popcount,
    ];
    for k in 0..3 {
        if rng.gen_bool(0.3) {
            bit_len[k] = near(rng, bits[k]);
            words[k].resize(bit_len[k].div_ceil(64), 0);
            if rng.gen_bool(0.5) {
                for word in words[k].iter_mut() {
                    *word = rng.next_u64();
                }
            }
            popcount[k] = count_ones(&words[k], bit_len[k]);
        }
        if rng.gen_bool(0.2) {
            popcount[k] = near(rng, popcount[k]);
        }
    }
    let sized = |v: &[Scalar], rng: &mut ChaCha8Rng| -> Vec<Scalar> {
        let mut out = v.to_vec();
        if rng.gen_bool(0.2) {
            out.resize(near(rng, v.len()), Scalar::ZERO);
        }
        if rng.gen_bool(0.2) && !out.is_empty() {
            let i = rng.gen_range(0..out.len());
            out[i] = [
                Scalar::ZERO,
                Scalar::ONE,
                -Scalar::ONE,
                Scalar::random(&mut *rng),
            ][rng.gen_range(0..4)];
        }
        out
    };
    let abc_len = near(rng, w.abc[0].len());
    let abc = [0, 1, 2].map(|k| {
        let mut v = w.abc[k].clone();
        v.resize(abc_len, Scalar::ZERO);
        v
    });
    let inputs = sized(&w.inputs, rng);
    let aux = sized(&w.aux, rng);
    let mut l = Lying {
        words,
        abc,
        inputs,
        aux,
        a: *honest,
    };
    let ptr_or_null = |v: &Vec<u64>| {
        if v.is_empty() {
            std::ptr::null()
        } else {
            v.as_ptr()
        }
    };
    l.a.a_aux_density = ptr_or_null(&l.words[0]);
    l.a.b_inp_density = ptr_or_null(&l.words[1]);
    l.a.b_aux_density = ptr_or_null(&l.words[2]);
    (l.a.a_aux_bit_len, l.a.b_inp_bit_len, l.a.b_aux_bit_len) =
        (bit_len[0], bit_len[1], bit_len[2]);
    (l.a.a_aux_popcount, l.a.b_inp_popcount, l.a.b_aux_popcount) =
        (popcount[0], popcount[1], popcount[2]);
    (l.a.a, l.a.b, l.a.c) = (l.abc[0].as_ptr(), l.abc[1].as_ptr(), l.abc[2].as_ptr());
    l.a.abc_size = abc_len;
    l.a.inp_assignment_data = l.inputs.as_ptr();
    l.a.inp_assignment_size = l.inputs.len();
    l.a.aux_assignment_data = l.aux.as_ptr();
    l.a.aux_assignment_size = l.aux.len();
    l
}

/// The honest witness's vectors, owned.
struct RecordedView {
    densities: [Vec<u64>; 3],
    abc: [Vec<Scalar>; 3],
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
}

#[test]
fn fuzz_the_assignment_checks() {
    let params = params_file(mimc(None), 32);
    let srs = CSrs::load(&params.path, false).unwrap();
    let w = record(mimc(Some(Scalar::from(9u64))));
    let honest = w.assignment();
    // SAFETY: the recorded witness's pointers are valid for the lengths it reports.
    let view = unsafe {
        let words =
            |p: *const u64, bits: usize| std::slice::from_raw_parts(p, bits.div_ceil(64)).to_vec();
        let scalars = |p: *const Scalar, n: usize| std::slice::from_raw_parts(p, n).to_vec();
        RecordedView {
            densities: [
                words(honest.a_aux_density, honest.a_aux_bit_len),
                words(honest.b_inp_density, honest.b_inp_bit_len),
                words(honest.b_aux_density, honest.b_aux_bit_len),
            ],
            abc: [honest.a, honest.b, honest.c].map(|p| scalars(p, honest.abc_size)),
            inputs: scalars(honest.inp_assignment_data, honest.inp_assignment_size),
            aux: scalars(honest.aux_assignment_data, honest.aux_assignment_size),
        }
    };
    let seed = seed();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (start, budget) = (Instant::now(), budget());
    let (mut runs, mut proved) = (0u64, 0u64);
    while start.elapsed() < budget {
        let batch: Vec<Lying> = (0..rng.gen_range(1..4))
            .map(|_| lying_assignment(&mut rng, &honest, &view))
            .collect();
        let assignments: Vec<Assignment> = batch.iter().map(|l| l.a).collect();
        let r = random_scalars(assignments.len(), runs);
        let s = random_scalars(assignments.len(), runs + 1);
        let outcome = if rng.gen_bool(0.5) {
            prove_raw(&srs, &assignments, &r, &s).map(|_| ())
        } else {
            start_raw(&srs, &assignments, &r, &s, std::ptr::null_mut(), -1)
                .and_then(|p| p.finalize())
                .map(|_| ())
        };
        if outcome.is_ok() {
            proved += 1;
        }
        no_panic(outcome, "assignment checks", seed, runs);
        runs += 1;
    }
    // The library stays healthy: the honest witness still proves and verifies.
    let proofs = prove_c(&srs, &[&w], &random_scalars(1, 5), &random_scalars(1, 6)).unwrap();
    assert_verifies(
        &params,
        &proofs[0],
        &[mimc(Some(Scalar::from(9u64))).output()],
    );
    assert_eq!(
        ffi::live_pending_handles(),
        0,
        "no pending handle left behind"
    );
    eprintln!(
        "fuzz_the_assignment_checks: {runs} executions in {:.1} s ({proved} proved and \
         verified), seed {seed}, no findings",
        start.elapsed().as_secs_f64()
    );
    assert!(runs > 0);
}
