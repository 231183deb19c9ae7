//! cuzk defines `set_membw_throttle(int)` and its synthesis threads back off while it is 1; the
//! fork sets it around its CPU G2 MSM. This test binary defines it as cuzk does, so the library
//! finds it (a weak reference) and must set it for the G2 tail MSM on the CPU and clear it
//! after, every time. Other test binaries do not define it and still link and prove.

mod support;

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

use support::*;

static CURRENT: AtomicI32 = AtomicI32::new(0);
static ENGAGED: AtomicUsize = AtomicUsize::new(0);
static RELEASED: AtomicUsize = AtomicUsize::new(0);

/// The same signature as cuzk-pce's `set_membw_throttle`.
#[no_mangle]
pub extern "C" fn set_membw_throttle(value: i32) {
    CURRENT.store(value, Ordering::SeqCst);
    match value {
        0 => RELEASED.fetch_add(1, Ordering::SeqCst),
        _ => ENGAGED.fetch_add(1, Ordering::SeqCst),
    };
}

#[test]
fn the_throttle_is_set_around_the_cpu_g2_msm_and_cleared_after() {
    assert!(groth16_c2::testing::host_has_membw_throttle());
    // On a GPU the G2 tail runs inside the lock by default; put it on the CPU as the fork does.
    groth16_c2::ffi::groth16_c2_set_g2_tail_on_gpu(false);
    let s = setup();
    for seed in 40..43 {
        let (w, x) = witness(seed);
        let (r, s_) = rs(1, seed);
        let pending = start(&s, &[&w], &r, &s_, std::ptr::null_mut(), -1);
        let mut proofs = empty_proofs(1);
        supraseal_c2::finish_groth16_proof(pending, &mut proofs);
        assert_verifies(&s, &proofs, &[x]);
        assert_eq!(
            CURRENT.load(Ordering::SeqCst),
            0,
            "the throttle was left on"
        );
    }
    let (on, off) = (
        ENGAGED.load(Ordering::SeqCst),
        RELEASED.load(Ordering::SeqCst),
    );
    assert_eq!(on, 3, "one throttle per proof's CPU G2 MSM");
    assert_eq!(off, on, "every throttle released");
}
