//! Concurrency through the C ABI: many threads proving at once with one shared SRS and one
//! caller-owned lock all get valid proofs; `start` + `destroy_pending_proof` without
//! `finalize` frees everything; the lock is held only around the device section.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;

use bench_support::synthetic::PorepShapedCircuit;
use blstrs::Scalar;
use common::*;
use groth16_c2::{GpuLock, ProveOptions, Srs};

// ---------------------------------------------------------------------------------------------
// A global allocator that counts live bytes (the C ABI's malloc'ed messages bypass it; no
// error happens in the measured section).

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live_bytes() -> isize {
    LIVE.load(Ordering::SeqCst)
}

/// Tests of this file run one at a time: the leak check counts every thread's allocations, and
/// the lock-span check wants the CPU to itself.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const LOG_N: u32 = 9;

fn porep(seed: u64) -> PorepShapedCircuit {
    PorepShapedCircuit::new(LOG_N, Some(seed))
}

fn porep_params(seed: u64) -> ParamsFile {
    params_file(PorepShapedCircuit::new(LOG_N, None), seed)
}

// ---------------------------------------------------------------------------------------------

#[test]
fn eight_threads_share_one_srs_and_one_lock() {
    let _serial = serial();
    const THREADS: usize = 8;
    const PROOFS_EACH: usize = 4;
    let params = porep_params(1);
    let srs = CSrs::load(&params.path, false).unwrap();
    let lock = CLock::new();
    // Witnesses recorded up front so the threads meet in the prover, not in synthesis.
    let circuits: Vec<Vec<(groth16_c2::witness::RecordedWitness, Vec<Scalar>)>> = (0..THREADS)
        .map(|t| {
            (0..PROOFS_EACH)
                .map(|k| {
                    let c = porep((t * PROOFS_EACH + k) as u64 + 10);
                    let publics = c.public_values();
                    (record(c), publics)
                })
                .collect()
        })
        .collect();
    let barrier = Barrier::new(THREADS);
    let results: Vec<Vec<(groth16_c2::Proof, Vec<Scalar>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = circuits
            .iter()
            .enumerate()
            .map(|(t, mine)| {
                let (srs, lock, barrier) = (&srs, &lock, &barrier);
                scope.spawn(move || {
                    // Half the threads use the shared handle, half a clone of their own.
                    let own = (t % 2 == 1).then(|| srs.clone_handle());
                    let srs = own.as_ref().unwrap_or(srs);
                    barrier.wait();
                    mine.iter()
                        .enumerate()
                        .map(|(k, (w, publics))| {
                            let seed = (t * PROOFS_EACH + k) as u64;
                            let (r, s) = (random_scalars(1, seed), random_scalars(1, seed + 100));
                            let pending = start_c(srs, &[w], &r, &s, lock.0)
                                .unwrap_or_else(|e| panic!("thread {t} proof {k}: {e:?}"));
                            let before = pending.timings().unwrap();
                            assert_eq!(before.num_circuits, 1);
                            let proof = pending.finalize().unwrap()[0];
                            drop(pending); // destroy_pending_proof after finalize: a no-op
                            (proof, publics.clone())
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let pvk = bellperson::groth16::prepare_verifying_key(&params.params.vk);
    let mut seen = std::collections::HashSet::new();
    for (t, proofs) in results.iter().enumerate() {
        assert_eq!(proofs.len(), PROOFS_EACH);
        for (k, (proof, publics)) in proofs.iter().enumerate() {
            assert!(
                bellperson::groth16::verify_proof(&pvk, &to_bellperson(proof), publics).unwrap(),
                "thread {t} proof {k} does not verify"
            );
            assert!(
                seen.insert(proof_bytes(&to_bellperson(proof))),
                "duplicate proof"
            );
        }
    }
    assert_eq!(seen.len(), THREADS * PROOFS_EACH);
}

#[test]
fn start_then_destroy_without_finalize_frees_everything() {
    let _serial = serial();
    const ROUNDS: usize = 5;
    let params = porep_params(2);
    let srs = CSrs::load(&params.path, false).unwrap();
    let lock = CLock::new();
    let c = porep(3);
    let publics = c.public_values();
    let w = record(c);
    let (r, s) = (random_scalars(1, 1), random_scalars(1, 2));
    let assignments = [w.assignment()];

    let round = || {
        let pending = start_raw(&srs, &assignments, &r, &s, lock.0, 0).unwrap();
        drop(pending); // destroy_pending_proof without finalize
    };
    // Warm-up: rayon's pool, its queues and any lazily built tables reach their steady size.
    for _ in 0..3 {
        round();
    }
    let proof = start_raw(&srs, &assignments, &r, &s, lock.0, 0)
        .unwrap()
        .finalize()
        .unwrap();
    assert_verifies(&params, &proof[0], &publics);

    // Live bytes must come back exactly. Two things free memory a moment after `destroy`
    // returns without any leak: each proof's last step runs as a job on the prover's pool, and
    // rayon frees that job's box (the proof's answers, under 1 KiB) after it delivered its result
    // to a receiver that is already gone. So each attempt waits up to 2 s for the count to
    // settle. The count covers every thread, so a test harness thread allocating at the same
    // moment can still disturb one attempt: a real leak shows in every attempt.
    let settled = |before: isize| {
        let deadline = Instant::now() + std::time::Duration::from_secs(2);
        loop {
            let now = live_bytes();
            if now == before || Instant::now() > deadline {
                return now;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    };
    let mut deltas = Vec::new();
    for _ in 0..4 {
        let before = live_bytes();
        for _ in 0..ROUNDS {
            round();
        }
        let after = settled(before);
        deltas.push(after - before);
        if after == before {
            break;
        }
    }
    eprintln!("live-byte deltas per attempt: {deltas:?}");
    assert_eq!(
        *deltas.last().unwrap(),
        0,
        "live bytes after {ROUNDS} start + destroy rounds differ from before, in every attempt: {deltas:?}"
    );
}

#[test]
fn lock_is_held_only_around_the_device_section() {
    let _serial = serial();
    let params = porep_params(4);
    let srs = Srs::new(&params.path, false).unwrap();
    let lock = Arc::new(GpuLock::new());
    let recorded: Vec<_> = (0..2).map(|i| record(porep(20 + i))).collect();
    let (r, s) = (random_scalars(1, 5), random_scalars(1, 6));

    // One call alone: the lock span lies inside the call and matches gpu_total_ms.
    let w = recorded[0].witness();
    let options = ProveOptions {
        lock: Some(&*lock),
        gpu_index: 0,
        ..Default::default()
    };
    let before = Instant::now();
    let pending = groth16_c2::start(&srs, &[w], &r, &s, options).unwrap();
    let after = Instant::now();
    let span = pending.lock_span();
    assert!(before <= span.acquired && span.acquired <= span.released && span.released <= after);
    let t = pending.timings();
    let held_ms = (span.released - span.acquired).as_secs_f64() * 1e3;
    assert!(
        (t.gpu_total_ms - held_ms).abs() < 1e-6,
        "{t:?} vs {held_ms}"
    );
    assert!(t.split_vectors_ms > 0.0, "the split runs before the lock");
    // The lock is free while the batch is pending (finalize runs without it): a second start
    // on the same lock, from the same thread, goes through instead of deadlocking.
    // (A detached thread, so that a deadlock fails the test instead of hanging it.)
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let (srs, lock, r, s) = (srs.clone(), lock.clone(), r.clone(), s.clone());
        let rec = recorded[1].clone();
        std::thread::spawn(move || {
            let options = ProveOptions {
                lock: Some(&lock),
                gpu_index: 0,
                ..Default::default()
            };
            let second = groth16_c2::start(&srs, &[rec.witness()], &r, &s, options);
            let _ = tx.send(second.map(|p| p.timings()));
        });
    }
    let t2 = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a second start waits on the lock while the first batch is only pending")
        .unwrap();
    assert!(t2.mutex_wait_ms < 1000.0, "{t2:?}");
    let proofs = pending.finalize().unwrap();
    assert_verifies(&params, &proofs[0], &c_publics(20));

    // Two threads on one lock: their spans never overlap, and whenever the second one asked
    // for the lock while the first held it, it waited for it (mutex_wait_ms > 0).
    let mut waited = false;
    for round in 0..6 {
        let barrier = Barrier::new(2);
        let pendings: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = recorded
                .iter()
                .map(|rec| {
                    let (srs, lock, barrier, r, s) = (&srs, &*lock, &barrier, &r, &s);
                    scope.spawn(move || {
                        let w = rec.witness();
                        barrier.wait();
                        let called = Instant::now();
                        let options = ProveOptions {
                            lock: Some(lock),
                            gpu_index: 0,
                            ..Default::default()
                        };
                        let p = groth16_c2::start(srs, &[w], r, s, options).unwrap();
                        (called, Instant::now(), p)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let (x, y) = (&pendings[0], &pendings[1]);
        let (sx, sy) = (x.2.lock_span(), y.2.lock_span());
        for (called, returned, p) in &pendings {
            let sp = p.lock_span();
            assert!(*called <= sp.acquired && sp.released <= *returned);
        }
        assert!(
            sx.released <= sy.acquired || sy.released <= sx.acquired,
            "round {round}: the two device sections overlap: {:?} / {:?}",
            sx.released.saturating_duration_since(sy.acquired),
            sy.released.saturating_duration_since(sx.acquired)
        );
        let (first, second) = if sx.acquired <= sy.acquired {
            (x, y)
        } else {
            (y, x)
        };
        let t2 = second.2.timings();
        let asked = second.2.lock_span().acquired
            - std::time::Duration::from_secs_f64(t2.mutex_wait_ms / 1e3);
        if asked < first.2.lock_span().released {
            // It asked while the lock was held: it must have waited until the release.
            let gap = first.2.lock_span().released - asked;
            assert!(
                t2.mutex_wait_ms >= gap.as_secs_f64() * 1e3 - 1e-3,
                "round {round}: waited {} ms, the lock was busy for {:?} more",
                t2.mutex_wait_ms,
                gap
            );
            waited = true;
        }
        for (i, (_, _, p)) in pendings.into_iter().enumerate() {
            let proof = p.finalize().unwrap();
            assert_verifies(&params, &proof[0], &c_publics(20 + i as u64));
        }
        if waited && round >= 2 {
            break;
        }
    }
    assert!(
        waited,
        "in no round did one thread ask for the lock while the other held it"
    );
}

fn c_publics(seed: u64) -> Vec<Scalar> {
    porep(seed).public_values()
}
