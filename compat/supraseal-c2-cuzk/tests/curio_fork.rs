//! Curio's supraseal-c2 fork API, used the way its callers use it (cuzk's engine and its
//! bellperson fork's `supraseal.rs`): the exact signatures, one lock per GPU shared by two
//! workers, start on a worker thread and finish on another, a drop after a failed start, a
//! panic in finish. Every proof is bellperson's, byte for byte, or verifies with bellperson.

mod support;

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::mpsc;

use bellperson::groth16::Proof;
use blstrs::{Bls12, Scalar};
use support::*;
use supraseal_c2::{Assignment, SRS};

/// The fork's signatures, checked by the compiler: a change of any parameter fails the build.
#[test]
#[allow(clippy::type_complexity)] // spelling the signatures out is the point
fn signatures_are_the_forks() {
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
        *mut c_void,
        i32,
    ) = supraseal_c2::generate_groth16_proof::<Scalar, usize, Pr>;
    let _start: fn(
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
        &SRS,
        *mut c_void,
        i32,
    ) -> *mut c_void = supraseal_c2::start_groth16_proof::<Scalar, usize>;
    let _finish: fn(*mut c_void, &mut [Pr]) = supraseal_c2::finish_groth16_proof::<Pr>;
    let _drop: unsafe fn(*mut c_void) = supraseal_c2::drop_pending_proof;
    let _alloc: fn() -> *mut c_void = supraseal_c2::alloc_gpu_mutex;
    let _free: unsafe fn(*mut c_void) = supraseal_c2::free_gpu_mutex;
    let _proofs: fn(&[Assignment<Scalar>], &[Scalar], &[Scalar], &mut [Pr], &SRS) =
        supraseal_c2::generate_groth16_proofs::<Scalar, Pr>;
    let _srs: fn(PathBuf, bool) -> Result<SRS, supraseal_c2::cuda::Error> = SRS::try_new;
}

/// The fork's own smoke tests (`extern/supraseal-c2/tests/c2.rs`).
#[test]
fn srs_default_and_a_missing_file() {
    let _s = SRS::default();
    let err = SRS::try_new(PathBuf::from("/nonexistent/cuzk_bad_params.params"), false)
        .expect_err("a missing SRS file must be an error");
    assert_ne!(err.code, 0, "{err:?}");
    assert!(err.to_string().contains("cuzk_bad_params"), "{err}");
}

#[test]
fn generate_with_the_callers_lock_on_every_gpu_index_is_bellpersons_proof() {
    let s = setup();
    let lock = supraseal_c2::alloc_gpu_mutex();
    assert!(!lock.is_null());
    let (w, x) = witness(11);
    let (r, s_) = rs(1, 11);
    let expected = bellperson_proof(&s, 11, r[0], s_[0]);
    // 0: pinned (the CPU backend is one device and takes any index); negative: any GPU.
    for gpu_index in [0, -1, -2, i32::MIN] {
        let proofs = generate(&s, &[&w], &r, &s_, lock, gpu_index);
        assert_eq!(proofs[0], expected, "gpu_index {gpu_index}");
    }
    // NULL: the library's own lock.
    let proofs = generate(&s, &[&w], &r, &s_, std::ptr::null_mut(), -1);
    assert_eq!(proofs[0], expected);
    assert_verifies(&s, &proofs, &[x]);
    unsafe { supraseal_c2::free_gpu_mutex(lock) };
}

/// cuzk's engine: two workers per GPU share that GPU's lock; each starts a partition and hands
/// the pending handle to a finisher thread, then loops for the next one.
#[test]
fn two_workers_start_and_another_thread_finishes() {
    let s = setup();
    let lock = supraseal_c2::alloc_gpu_mutex() as usize;
    let witnesses: Vec<_> = (20..24).map(witness).collect();
    let (send, receive) = mpsc::channel::<(usize, usize, Vec<Scalar>)>();
    std::thread::scope(|scope| {
        let finisher = scope.spawn(|| {
            let mut done = 0;
            for (handle, seed, x) in receive {
                let mut proofs = empty_proofs(1);
                supraseal_c2::finish_groth16_proof(handle as *mut c_void, &mut proofs);
                let (r, s_) = rs(1, seed as u64);
                assert_eq!(proofs[0], bellperson_proof(&s, seed as u64, r[0], s_[0]));
                assert_verifies(&s, &proofs, &[x]);
                done += 1;
            }
            done
        });
        for worker in 0..2 {
            let (s, send, witnesses) = (&s, send.clone(), &witnesses);
            scope.spawn(move || {
                for round in 0..3 {
                    let k = (worker + 2 * round) % witnesses.len();
                    let seed = 20 + k;
                    let (w, x) = &witnesses[k];
                    let (r, s_) = rs(1, seed as u64);
                    let handle = start(s, &[w], &r, &s_, lock as *mut c_void, 0);
                    assert!(!handle.is_null());
                    send.send((handle as usize, seed, x.clone())).unwrap();
                }
            });
        }
        drop(send);
        assert_eq!(finisher.join().unwrap(), 6);
    });
    unsafe { supraseal_c2::free_gpu_mutex(lock as *mut c_void) };
}

/// A batch of two (the fork's callers pass `num_circuits` circuits with shared densities).
#[test]
fn a_batch_finishes_into_its_slots() {
    let s = setup();
    let (w1, x1) = witness(5);
    let (w2, x2) = witness(6);
    let (r, s_) = rs(2, 5);
    let pending = start(&s, &[&w1, &w2], &r, &s_, std::ptr::null_mut(), -1);
    let mut proofs = empty_proofs(2);
    supraseal_c2::finish_groth16_proof(pending, &mut proofs);
    assert_eq!(proofs[0], bellperson_proof(&s, 5, r[0], s_[0]));
    assert_eq!(proofs[1], bellperson_proof(&s, 6, r[1], s_[1]));
    assert_verifies(&s, &proofs, &[x1, x2]);
    // finish consumes the handle; the bellperson fork nulls it, hosts that drop it anyway are
    // safe.
    unsafe { supraseal_c2::drop_pending_proof(pending) };
}

/// A start that fails (here: a witness for another circuit) panics with the library's message
/// and leaves nothing behind: the bellperson fork's handle stays NULL, its drop is a no-op, and
/// the lock is free for the next proof.
#[test]
fn a_failed_start_panics_and_releases_the_lock() {
    let s = setup();
    let lock = supraseal_c2::alloc_gpu_mutex() as usize;
    let other = WitnessOfAnotherCircuit::new();
    let (r, s_) = rs(1, 3);
    let caught =
        std::panic::catch_unwind(|| start(&s, &[&other.0], &r, &s_, lock as *mut c_void, 0));
    let msg = panic_text(caught.expect_err("a start with a mismatched witness must panic"));
    assert!(msg.contains("circuit 0"), "{msg}");
    unsafe { supraseal_c2::drop_pending_proof(std::ptr::null_mut()) };
    // The lock was released: another worker proves with it right away.
    let (w, x) = witness(3);
    let pending = start(&s, &[&w], &r, &s_, lock as *mut c_void, 0);
    let mut proofs = empty_proofs(1);
    supraseal_c2::finish_groth16_proof(pending, &mut proofs);
    assert_verifies(&s, &proofs, &[x]);
    unsafe { supraseal_c2::free_gpu_mutex(lock as *mut c_void) };
}

/// A witness with a different number of aux variables than the SRS expects.
struct WitnessOfAnotherCircuit(groth16_c2::witness::RecordedWitness);

impl WitnessOfAnotherCircuit {
    fn new() -> Self {
        let c = MimcChain {
            start: Some(Scalar::from(9u64)),
            rounds: ROUNDS + 3,
        };
        WitnessOfAnotherCircuit(groth16_c2::witness::WitnessRecorder::record(c).unwrap())
    }
}

/// A panic in finish: into too few slots (the fork would write past them; we panic first and
/// keep the handle live), then the bellperson fork's drop of the unfinished handle, which
/// abandons the batch; finishing it again panics with "not live".
#[test]
fn a_panic_in_finish_then_the_forks_drop() {
    let s = setup();
    let (w, x) = witness(9);
    let (r, s_) = rs(2, 9);
    let pending = start(&s, &[&w, &w], &r, &s_, std::ptr::null_mut(), -1);
    let caught = std::panic::catch_unwind(|| {
        supraseal_c2::finish_groth16_proof(pending, &mut empty_proofs(1))
    });
    assert!(panic_text(caught.unwrap_err()).contains("2 circuits"));
    // The handle is still live: a retry with room for both proofs succeeds.
    let mut proofs = empty_proofs(2);
    supraseal_c2::finish_groth16_proof(pending, &mut proofs);
    assert_verifies(&s, &proofs, &[x.clone(), x.clone()]);

    // Now the error path the fork's `PendingProofHandle::drop` takes: finish never ran.
    let pending = start(&s, &[&w], &r[..1], &s_[..1], std::ptr::null_mut(), -1);
    unsafe { supraseal_c2::drop_pending_proof(pending) };
    let caught = std::panic::catch_unwind(|| {
        supraseal_c2::finish_groth16_proof(pending, &mut empty_proofs(1))
    });
    assert!(panic_text(caught.unwrap_err()).contains("not live"));
}

/// bellperson 0.27's supraseal path builds `Assignment`s as struct literals, one per circuit.
#[test]
fn generate_groth16_proofs_from_struct_literals() {
    let s = setup();
    let (w, x) = witness(31);
    let (r, s_) = rs(1, 31);
    let provers = [Assignment::<Scalar> {
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
    }];
    let mut proofs = empty_proofs(1);
    supraseal_c2::generate_groth16_proofs(&provers, &r, &s_, &mut proofs, &s.srs);
    assert_eq!(proofs[0], bellperson_proof(&s, 31, r[0], s_[0]));
    assert_verifies(&s, &proofs, &[x]);
}
