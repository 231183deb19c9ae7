//! The GPU kernels' device-memory sizes (MSM and batch-addition workspaces, NTT tables), as the
//! kernels themselves compute them: from the CUDA launcher in a CUDA build, and from the same C++
//! compiled for the host (`csrc/device_sizes.cpp`) otherwise, so that a proof's memory plan is
//! the same, and tested, on any machine.

use std::ffi::c_int;

/// Which group a curve kernel works in (the launchers' `curve` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Curve {
    G1 = 1,
    G2 = 2,
}

impl Curve {
    /// Bytes of one affine point in device memory (blst's layout).
    pub const fn affine_bytes(self) -> usize {
        match self {
            Curve::G1 => 96,
            Curve::G2 => 192,
        }
    }
}

mod raw {
    use std::ffi::c_int;
    extern "C" {
        pub fn g16_msm_workspace_size(curve: c_int, n: usize, strategy: c_int) -> usize;
        pub fn g16_msm_accumulate_workspace_size(
            curve: c_int,
            n_cap: usize,
            strategy: c_int,
        ) -> usize;
        pub fn g16_msm_accumulate_buckets_size(
            curve: c_int,
            n_cap: usize,
            strategy: c_int,
        ) -> usize;
        pub fn g16_batch_add_workspace_size(curve: c_int, n_points: usize) -> usize;
        pub fn g16_msm_window_bits(n: usize, strategy: c_int) -> u32;
        pub fn g16_ntt_table_size(lg_max: u32) -> usize;
        pub fn g16_ntt_top_table_size(lg_n: u32) -> usize;
        pub fn g16_ntt_coset_table_size(lg_n: u32) -> usize;
    }
}

/// Workspace bytes of an MSM of `n` scalars with the launcher's `strategy` code (0: the
/// default strategy and window); 0 when `n` or the code is out of the kernels' range.
pub fn msm_workspace(curve: Curve, n: usize, strategy: i32) -> usize {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_msm_workspace_size(curve as c_int, n, strategy) }
}

/// Workspace bytes that serve an MSM of any count of scalars up to `n` (a tail, a chunk whose
/// last one is shorter). The kernels' workspace is not monotone in the count: a pass takes
/// `2^28 / n` windows (so just below `2^28 / k` scalars there is one window more per pass than
/// just above), and slices are sized from the entries (17 * 2^16 - 1 scalars need 3.7% more
/// than 17 * 2^16). The largest workspace at those points below `n`, and one sixteenth more,
/// covers every count (checked by the tests).
pub fn msm_workspace_up_to(curve: Curve, n: usize, strategy: i32) -> usize {
    let per_pass_steps = (1..=64).map(|k| (1usize << 28) / k);
    let widths = (1..usize::BITS).map(|lg| (1usize << lg) - 1);
    let most = per_pass_steps
        .chain(widths)
        .filter(|&m| m < n)
        .chain([n])
        .map(|m| msm_workspace(curve, m, strategy))
        .max()
        .unwrap_or(0);
    (most + most / 16).next_multiple_of(256)
}

/// An MSM accumulated over chunks of at most `n_cap` scalars with the launcher's `strategy`
/// code (which must force the window): the bytes of its scratch workspace (free between its
/// calls) and of its buckets (kept between them); None where the kernels cannot accumulate that
/// shape (several passes, G2): the chunks then reduce one by one.
pub fn msm_accumulate_sizes(curve: Curve, n_cap: usize, strategy: i32) -> Option<(usize, usize)> {
    // SAFETY: pure size computations.
    let (ws, buckets) = unsafe {
        (
            raw::g16_msm_accumulate_workspace_size(curve as c_int, n_cap, strategy),
            raw::g16_msm_accumulate_buckets_size(curve as c_int, n_cap, strategy),
        )
    };
    (ws > 0 && buckets > 0).then_some((ws, buckets))
}

/// The window width in bits an MSM of `n` scalars takes with the launcher's `strategy` code
/// (0: out of range).
pub fn msm_window_bits(n: usize, strategy: i32) -> u32 {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_msm_window_bits(n, strategy) }
}

/// Workspace bytes of a batch addition over `n_points` points.
pub fn batch_add_workspace(curve: Curve, n_points: usize) -> usize {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_batch_add_workspace_size(curve as c_int, n_points) }
}

/// Bytes of the NTT twiddle table for every domain up to `2^lg_max` (0 outside 1..=32).
pub fn ntt_table(lg_max: u32) -> usize {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_ntt_table_size(lg_max) }
}

/// Bytes of the optional top-pass table for transforms of `2^lg_n` (0: that size has none).
pub fn ntt_top_table(lg_n: u32) -> usize {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_ntt_top_table_size(lg_n) }
}

/// Bytes of the H step's coset tables for `2^lg_n` (0: that size does not fold them).
pub fn ntt_coset_table(lg_n: u32) -> usize {
    // SAFETY: a pure size computation.
    unsafe { raw::g16_ntt_coset_table_size(lg_n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch addition keeps one partial sum per thread, twice: at least 32,768 threads (one
    /// bitmap word each and up) so that a streamed chunk fills the GPU, at most 8 words each.
    #[test]
    fn batch_additions_run_enough_threads() {
        let align = |b: usize| b.next_multiple_of(256);
        for (curve, xyzz) in [(Curve::G1, 4 * 48), (Curve::G2, 4 * 96)] {
            for lg in [0u32, 6, 10, 16, 20, 21, 22, 23, 24, 25, 26, 27] {
                let n = 1usize << lg;
                let words = n.div_ceil(64);
                let per_thread = (words / 32768).clamp(1, 8);
                let threads = words.div_ceil(per_thread);
                assert_eq!(
                    batch_add_workspace(curve, n),
                    2 * align(threads * xyzz),
                    "{curve:?} 2^{lg}"
                );
                assert!(
                    threads >= words.min(32768),
                    "{curve:?} 2^{lg}: {threads} threads"
                );
            }
        }
        // From 2^24 points up, 8 words (512 points) per thread, as measured fastest.
        assert_eq!(
            batch_add_workspace(Curve::G1, 1 << 24),
            2 * align(32768 * 192)
        );
        assert_eq!(
            batch_add_workspace(Curve::G1, 1 << 26),
            2 * align(131072 * 192)
        );
    }

    /// Counts where the workspace jumps: just below multiples of 2^16 (the slices follow the
    /// entries, a multiple of 2^20 over up to 16 windows per pass), around the points where
    /// the windows per pass change (2^28 / k) and around powers of two (the window width).
    fn breakpoints(from: usize, to: usize) -> Vec<usize> {
        let mut at = Vec::new();
        for k in (from >> 16)..=(to >> 16) + 1 {
            for d in [0, 1, 8, 64] {
                at.push((k << 16).saturating_sub(d));
            }
        }
        for k in 1..=64 {
            let b = (1usize << 28) / k;
            at.extend([b - 1, b, b + 1]);
        }
        for lg in 0..=27 {
            at.extend([(1usize << lg) - 1, 1 << lg, (1 << lg) + 1]);
        }
        at.retain(|&n| n >= from && n <= to);
        at.sort_unstable();
        at.dedup();
        at
    }

    #[test]
    fn a_workspace_up_to_a_count_serves_every_smaller_count() {
        for curve in [Curve::G1, Curve::G2] {
            for code in [0, 16 << 8] {
                // Every count up to 2^20, then the breakpoints up to 2^27.
                let mut most = 0;
                let counts = (1..=1usize << 20).chain(breakpoints((1 << 20) + 1, 1 << 27));
                for n in counts {
                    most = most.max(msm_workspace(curve, n, code));
                    assert!(
                        most <= msm_workspace_up_to(curve, n, code),
                        "{curve:?} code {code:#x}: {most} bytes below {n} scalars, {} reserved",
                        msm_workspace_up_to(curve, n, code)
                    );
                }
            }
        }
    }
}
