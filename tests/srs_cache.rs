//! The SRS cache and handle reference counting: cached `create_SRS` calls of one path share one
//! load, `evict_SRS` makes the next call load again, the cache keeps at most 4 paths (least
//! recently used dropped first), and an SRS is freed with the last `drop_SRS` of its handles.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Barrier;

use blstrs::Scalar;
use common::*;
use groth16_c2::ffi::{self, SrsHandle};
use groth16_c2::srs::{cached_paths, WeakSrs};
use groth16_c2::Srs;

const ROUNDS: usize = 20;

fn mimc_params(seed: u64) -> ParamsFile {
    params_file(
        MimcChain {
            start: None,
            rounds: ROUNDS,
        },
        seed,
    )
}

/// Proves one small circuit with `srs` and checks the proof with bellperson.
fn assert_proves(params: &ParamsFile, srs: &CSrs) {
    let c = MimcChain {
        start: Some(Scalar::from(11u64)),
        rounds: ROUNDS,
    };
    let out = c.output();
    let proofs = prove_c(
        srs,
        &[&record(c)],
        &[Scalar::from(2u64)],
        &[Scalar::from(3u64)],
    )
    .expect("proving with a live handle");
    assert_verifies(params, &proofs[0], &[out]);
}

/// Observes the SRS behind a C handle without holding it.
fn weak(h: &CSrs) -> WeakSrs {
    unsafe { Srs::from_handle(&h.0) }
        .expect("a live handle")
        .downgrade()
}

/// References to the SRS behind `w` (C handles, Rust handles and the cache's), 0 once freed.
fn refs(w: &WeakSrs) -> usize {
    w.upgrade().map_or(0, |s| s.handle_count() - 1)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

/// All the cache checks in one test: the cache is process-wide.
#[test]
fn cache_shares_evicts_and_keeps_at_most_four_paths() {
    let params = mimc_params(1);
    let dir = tempfile::tempdir().unwrap();
    // Five paths with the same content: the cache keys on the (canonical) path.
    let paths: Vec<PathBuf> = (0..5)
        .map(|i| {
            let p = dir.path().join(format!("copy{i}.params"));
            std::fs::copy(&params.path, &p).unwrap();
            p
        })
        .collect();

    // Two cached loads of one path share one load.
    let h1 = CSrs::load(&paths[0], true).unwrap();
    let h2 = CSrs::load(&paths[0], true).unwrap();
    assert_eq!(
        h1.0.ptr, h2.0.ptr,
        "two cached loads of one path share one load"
    );
    let first = weak(&h1);
    assert_eq!(refs(&first), 3, "the cache and two handles");
    let rust = Srs::new(&paths[0], true).unwrap();
    assert!(rust.ptr_eq(&unsafe { Srs::from_handle(&h1.0) }.unwrap()));
    assert_eq!(rust.handle_count(), 4);
    drop(rust);
    assert_eq!(cached_paths(), vec![canonical(&paths[0])]);

    // An uncached load of a cached path is a load of its own and leaves the cache alone.
    let own = CSrs::load(&paths[0], false).unwrap();
    assert_ne!(own.0.ptr, h1.0.ptr);
    assert_eq!(refs(&first), 3);
    assert_eq!(cached_paths(), vec![canonical(&paths[0])]);
    drop(own);

    // Threads that ask for one path at once wait for a single load.
    let barrier = Barrier::new(4);
    let ptrs: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (barrier, path) = (&barrier, &paths[1]);
                scope.spawn(move || {
                    barrier.wait();
                    let h = CSrs::load(path, true).unwrap();
                    h.0.ptr as usize
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        ptrs.iter().all(|&p| p == ptrs[0]),
        "concurrent cached loads of one path: {ptrs:x?}"
    );

    // A symlink is the same file: it shares the load of its target.
    let link = dir.path().join("link.params");
    std::os::unix::fs::symlink(&paths[1], &link).unwrap();
    let via_link = CSrs::load(&link, true).unwrap();
    let h1b = CSrs::load(&paths[1], true).unwrap();
    assert_eq!(
        via_link.0.ptr, h1b.0.ptr,
        "a symlink shares its target's load"
    );
    drop((via_link, h1b));

    // evict_SRS: the handles stay valid, and the next cached load reads the file again.
    unsafe { ffi::evict_SRS(&h1.0) };
    assert!(!cached_paths().contains(&canonical(&paths[0])));
    assert_eq!(refs(&first), 2, "the cache let go of its reference");
    assert_proves(&params, &h2);
    let h3 = CSrs::load(&paths[0], true).unwrap();
    assert_ne!(
        h3.0.ptr, h1.0.ptr,
        "after evict_SRS the path is loaded again"
    );
    assert!(cached_paths().contains(&canonical(&paths[0])));
    assert_eq!(refs(&first), 2, "the old load is not the cache's any more");
    assert_proves(&params, &h3);
    // The old load is freed with its last handle; the new one lives on in the cache.
    let third = weak(&h3);
    drop(h1);
    assert!(first.is_loaded());
    drop(h2);
    assert!(
        !first.is_loaded(),
        "an evicted SRS is freed with its last handle"
    );
    drop(h3);
    assert!(third.is_loaded(), "the cache keeps the new load");
    assert_eq!(refs(&third), 1);
    // Evicting twice, or a path that is not cached, is harmless.
    for p in [&paths[0], &paths[1], &paths[0]] {
        let h = CSrs::load(p, false).unwrap();
        unsafe { ffi::evict_SRS(&h.0) };
    }
    assert!(!third.is_loaded(), "evicted without handles: freed");
    assert!(cached_paths().is_empty(), "{:?}", cached_paths());

    // At most four paths; the least recently used goes first.
    let mut weaks = Vec::new();
    for p in &paths {
        let h = CSrs::load(p, true).unwrap();
        weaks.push(weak(&h));
    }
    let expect =
        |idx: &[usize]| -> Vec<PathBuf> { idx.iter().map(|&i| canonical(&paths[i])).collect() };
    assert_eq!(
        cached_paths(),
        expect(&[1, 2, 3, 4]),
        "the first path was dropped"
    );
    assert!(
        !weaks[0].is_loaded(),
        "dropped from the cache without handles: freed"
    );
    assert!(weaks[1..].iter().all(|w| w.is_loaded()));
    // A hit makes a path the most recently used; the next miss drops the least recent.
    let hit = CSrs::load(&paths[1], true).unwrap();
    assert!(weaks[1]
        .upgrade()
        .unwrap()
        .ptr_eq(&unsafe { Srs::from_handle(&hit.0) }.unwrap()));
    assert_eq!(cached_paths(), expect(&[2, 3, 4, 1]));
    let h0 = CSrs::load(&paths[0], true).unwrap();
    assert_eq!(cached_paths(), expect(&[3, 4, 1, 0]));
    assert!(!weaks[2].is_loaded());
    // A handle outlives its path's eviction from the LRU.
    let keep = CSrs::load(&paths[3], true).unwrap(); // order: 4, 1, 0, 3
    let w3 = weak(&keep);
    let extra = dir.path().join("extra.params");
    std::fs::copy(&params.path, &extra).unwrap();
    let hx = CSrs::load(&extra, true).unwrap();
    let hy = CSrs::load(&paths[2], true).unwrap();
    let hz = CSrs::load(&paths[4], true).unwrap(); // order: 3, extra, 2, 4
    let hw = CSrs::load(&paths[1], true).unwrap();
    assert_eq!(
        cached_paths(),
        vec![
            canonical(&extra),
            canonical(&paths[2]),
            canonical(&paths[4]),
            canonical(&paths[1])
        ]
    );
    assert!(w3.is_loaded(), "the handle keeps an SRS the cache dropped");
    assert_eq!(refs(&w3), 1);
    assert_proves(&params, &keep);
    drop(keep);
    assert!(!w3.is_loaded());

    // Clean up the process-wide cache.
    for h in [&h0, &hit, &hx, &hy, &hz, &hw] {
        unsafe { ffi::evict_SRS(&h.0) };
    }
    assert!(cached_paths().is_empty(), "{:?}", cached_paths());
}

#[test]
fn rust_handles_count_references() {
    let params = mimc_params(2);
    let srs = Srs::new(&params.path, false).unwrap();
    assert_eq!(srs.handle_count(), 1, "an uncached load has no other owner");
    let a = srs.clone();
    let b = a.clone();
    assert_eq!(srs.handle_count(), 3);
    assert!(a.ptr_eq(&srs) && b.ptr_eq(&srs));
    drop(a);
    assert_eq!(b.handle_count(), 2);
    let w = srs.downgrade();
    drop(srs);
    assert!(w.is_loaded());
    assert_eq!(b.handle_count(), 1);
    drop(b);
    assert!(!w.is_loaded(), "freed with the last handle");
    assert!(w.upgrade().is_none());
    // A second uncached load is a load of its own.
    let x = Srs::new(&params.path, false).unwrap();
    let y = Srs::new(&params.path, false).unwrap();
    assert!(!x.ptr_eq(&y));
}

#[test]
fn c_handles_of_an_uncached_srs_are_freed_with_the_last_drop() {
    let params = mimc_params(3);
    let h = CSrs::load(&params.path, false).unwrap();
    let w = weak(&h);
    assert_eq!(refs(&w), 1);
    let c1 = h.clone_handle();
    let c2 = unsafe { ffi::clone_SRS(&c1.0) };
    assert_eq!(c1.0.ptr, h.0.ptr);
    assert_eq!(c2.ptr, h.0.ptr);
    assert_eq!(refs(&w), 3);

    // The original goes first: the clones stay valid.
    drop(h);
    assert_eq!(refs(&w), 2);
    assert_proves(&params, &c1);

    // drop_SRS empties the handle, so dropping it again does not release a second reference.
    let mut c2 = c2;
    unsafe { ffi::drop_SRS(&mut c2) };
    assert!(c2.ptr.is_null());
    assert_eq!(refs(&w), 1);
    unsafe { ffi::drop_SRS(&mut c2) };
    assert_eq!(refs(&w), 1, "a second drop_SRS of one handle is a no-op");
    assert!(
        unsafe { ffi::clone_SRS(&c2) }.ptr.is_null(),
        "cloning an empty handle"
    );
    // evict_SRS on an uncached SRS does not release anything.
    unsafe { ffi::evict_SRS(&c1.0) };
    assert_eq!(refs(&w), 1);

    drop(c1);
    assert!(!w.is_loaded(), "freed with the last drop_SRS");

    // The same through raw handles only, with no wrapper involved.
    let path = std::ffi::CString::new(params.path.as_os_str().as_encoded_bytes()).unwrap();
    let mut raw = SrsHandle {
        ptr: std::ptr::null(),
    };
    take_error(unsafe { ffi::create_SRS(&mut raw, path.as_ptr(), false) }).unwrap();
    let w = unsafe { Srs::from_handle(&raw) }.unwrap().downgrade();
    let mut clones: Vec<SrsHandle> = (0..5).map(|_| unsafe { ffi::clone_SRS(&raw) }).collect();
    assert_eq!(refs(&w), 6);
    unsafe { ffi::drop_SRS(&mut raw) };
    for (i, c) in clones.iter_mut().enumerate() {
        assert!(w.is_loaded());
        unsafe { ffi::drop_SRS(c) };
        assert_eq!(refs(&w), 4 - i);
    }
    assert!(!w.is_loaded());
}
