//! Calls into the host process that it may or may not provide (see `csrc/host_hooks.c`).

use std::ffi::c_int;

extern "C" {
    fn groth16_c2_host_membw_throttle(value: c_int);
    fn groth16_c2_host_has_membw_throttle() -> c_int;
}

/// Whether the host defines `set_membw_throttle(int)` (Curio's cuzk engine does).
pub fn host_has_membw_throttle() -> bool {
    // SAFETY: reads whether a weak symbol resolved.
    unsafe { groth16_c2_host_has_membw_throttle() != 0 }
}

/// Holds the host's memory-bandwidth throttle on while it lives: `set_membw_throttle(1)` when
/// engaged, `set_membw_throttle(0)` when dropped, nothing when the host has no such function.
/// Curio's synthesis threads yield while it is set, leaving memory bandwidth to the CPU G2 MSM.
pub struct MembwThrottle(());

/// Throttles engaged now: the host hears 1 when the first starts and 0 when the last ends, so
/// overlapping G2 tails of one batch do not lift each other's throttle.
static ENGAGED: parking_lot::Mutex<usize> = parking_lot::Mutex::new(0);

impl MembwThrottle {
    pub fn engage() -> MembwThrottle {
        let mut engaged = ENGAGED.lock();
        if *engaged == 0 {
            // SAFETY: the hook takes a plain int; the weak default does nothing.
            unsafe { groth16_c2_host_membw_throttle(1) };
        }
        *engaged += 1;
        MembwThrottle(())
    }
}

impl Drop for MembwThrottle {
    fn drop(&mut self) {
        let mut engaged = ENGAGED.lock();
        *engaged -= 1;
        if *engaged == 0 {
            // SAFETY: as above.
            unsafe { groth16_c2_host_membw_throttle(0) };
        }
    }
}
