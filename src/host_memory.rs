//! The host-memory budget: an upper bound on the bytes the library itself holds for proofs in
//! flight (each circuit's split vectors and page-locked staging), shared by every worker of the
//! process. A circuit's preparation waits until its bytes fit instead of overcommitting the host.
//!
//! Nothing deadlocks on it: a request is admitted when it fits, when nothing else is reserved,
//! or when its call holds the GPU lock with nothing reserved of its own (that call cannot make
//! progress otherwise, and every other reservation waits for the GPU it holds).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use once_cell::sync::Lazy;
use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};

/// The budget in bytes; 0 is no limit. Starts from `GROTH16_C2_HOST_MEMORY_BUDGET`.
static BUDGET: Lazy<AtomicU64> = Lazy::new(|| {
    let from_env = std::env::var("GROTH16_C2_HOST_MEMORY_BUDGET")
        .ok()
        .and_then(|v| match parse_bytes(&v) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("groth16-c2: ignoring GROTH16_C2_HOST_MEMORY_BUDGET: {e}");
                None
            }
        });
    AtomicU64::new(from_env.unwrap_or(0))
});

/// Bytes reserved now, and the most ever reserved at once.
static STATE: Mutex<Usage> = Mutex::new(Usage {
    reserved: 0,
    peak: 0,
});
static FREED: Condvar = Condvar::new();

struct Usage {
    reserved: u64,
    peak: u64,
}

/// The budget in bytes (0: none).
pub fn budget() -> u64 {
    BUDGET.load(Ordering::Relaxed)
}

/// Sets the budget in bytes (0: none). Waiting preparations re-check at once.
pub fn set_budget(bytes: u64) {
    BUDGET.store(bytes, Ordering::Relaxed);
    FREED.notify_all();
}

/// Bytes reserved now and the peak since the process started (or [`reset_peak`]).
pub fn usage() -> (u64, u64) {
    let s = STATE.lock();
    (s.reserved, s.peak)
}

/// Starts a new peak measurement from what is reserved now.
pub fn reset_peak() {
    let mut s = STATE.lock();
    s.peak = s.reserved;
}

/// Bytes held for one circuit until dropped.
#[derive(Debug)]
pub struct Reservation {
    bytes: u64,
}

impl Reservation {
    /// Waits until `bytes` fit the budget. `urgent` is asked again whenever the wait is
    /// re-checked: when it says true the request is admitted at once (see the module comment).
    pub fn wait_for(bytes: u64, urgent: &dyn Fn() -> bool) -> Reservation {
        let mut s = STATE.lock();
        loop {
            let budget = budget();
            if budget == 0
                || s.reserved == 0
                || s.reserved.saturating_add(bytes) <= budget
                || urgent()
            {
                s.reserved += bytes;
                s.peak = s.peak.max(s.reserved);
                return Reservation { bytes };
            }
            // `urgent` can turn true without a release; look again now and then.
            FREED.wait_for(&mut s, Duration::from_millis(20));
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        STATE.lock().reserved -= self.bytes;
        FREED.notify_all();
    }
}

/// Parses `123`, `64G`, `64GiB`, `500M`, `1.5T` (binary units; a plain number is bytes).
pub fn parse_bytes(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => {
            return Err(Error::invalid(format!(
                "{text:?}: unknown unit {other:?} (use bytes, K, M, G or T)"
            )))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| Error::invalid(format!("{text:?} is not a size like 64G")))?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(Error::invalid(format!("{text:?} is not a usable size")));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert_eq!(parse_bytes("64G").unwrap(), 64 << 30);
        assert_eq!(parse_bytes(" 1.5 GiB ").unwrap(), 3 << 29);
        assert_eq!(parse_bytes("500m").unwrap(), 500 << 20);
        assert!(parse_bytes("12 apples").is_err());
        assert!(parse_bytes("G").is_err());
        assert!(parse_bytes("").is_err());
    }

    // One test drives the process-wide budget, so no other test in this binary races it.
    #[test]
    fn requests_wait_for_room_and_urgent_ones_never_do() {
        set_budget(100);
        let first = Reservation::wait_for(60, &|| false);
        // Fits next to the first: admitted.
        let second = Reservation::wait_for(40, &|| false);
        assert_eq!(usage().0, 100);

        // Does not fit: waits until a release.
        let admitted = Arc::new(AtomicBool::new(false));
        let waiter = {
            let admitted = admitted.clone();
            std::thread::spawn(move || {
                let r = Reservation::wait_for(50, &|| false);
                admitted.store(true, Ordering::SeqCst);
                r.bytes()
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(!admitted.load(Ordering::SeqCst), "admitted past the budget");
        drop(first);
        assert_eq!(waiter.join().unwrap(), 50);
        assert!(admitted.load(Ordering::SeqCst));

        // Urgent requests (a call holding the GPU with nothing reserved) pass at once.
        let over = Reservation::wait_for(1000, &|| true);
        assert_eq!(usage().0, 40 + 1000);
        assert!(usage().1 >= 1040);
        drop((second, over));

        // Alone, a request larger than the whole budget still runs (nothing to wait for).
        let big = Reservation::wait_for(500, &|| false);
        assert_eq!(usage().0, 500);
        drop(big);
        assert_eq!(usage().0, 0);
        set_budget(0);
    }
}
