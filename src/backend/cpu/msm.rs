//! Multi-scalar multiplication and batch addition on the CPU, over points picked out of an SRS
//! query by index (MSM) or by bitmap (batch addition), using blst's Pippenger tiles and affine
//! batch addition on all cores.
//!
//! blst's routines take arrays of point pointers, so the selected SRS points are never copied.
//! The MSM is cut into tiles (a window of scalar bits × a run of points), one rayon task each,
//! and the tiles are recombined with doublings, as blst's own Rust binding does with its pool.

use blst::{
    blst_p1, blst_p1_add_or_double, blst_p1_affine, blst_p1_double, blst_p1s_add,
    blst_p1s_mult_pippenger, blst_p1s_mult_pippenger_scratch_sizeof, blst_p1s_tile_pippenger,
    blst_p2, blst_p2_add_or_double, blst_p2_affine, blst_p2_double, blst_p2s_add,
    blst_p2s_mult_pippenger, blst_p2s_mult_pippenger_scratch_sizeof, blst_p2s_tile_pippenger,
    blst_scalar, limb_t,
};
use rayon::prelude::*;

use crate::split::OnesBitmap;

/// Bits in a canonical Fr scalar.
const SCALAR_BITS: usize = 255;
/// Below this many points, one untiled blst call beats the tiling overhead.
const SMALL_MSM: usize = 64;
/// Points per batch-addition task.
const ADD_CHUNK: usize = 1 << 14;

/// The curve-specific blst entry points, so G1 and G2 share one tiling code path.
pub trait BlstCurve: Sized + Copy + Default + Send + Sync {
    type Affine: Sync;
    fn add(a: &Self, b: &Self) -> Self;
    fn double(a: &Self) -> Self;
    /// # Safety
    /// `points` holds `n` valid pointers.
    unsafe fn sum_affine(points: *const *const Self::Affine, n: usize) -> Self;
    fn scratch_bytes(n: usize) -> usize;
    /// # Safety
    /// `points` is blst's point argument for `scalars.len()` points (see [`PointPtrs`]);
    /// `scratch` is large enough.
    unsafe fn msm(
        points: *const *const Self::Affine,
        scalars: &[blst_scalar],
        scratch: &mut [limb_t],
    ) -> Self;
    /// # Safety
    /// As `msm`, with at least 2 points and `scratch` sized for `window`.
    unsafe fn tile(
        points: *const *const Self::Affine,
        scalars: &[blst_scalar],
        scratch: &mut [limb_t],
        bit0: usize,
        window: usize,
    ) -> Self;
}

macro_rules! blst_curve {
    ($proj:ty, $aff:ty, $add:ident, $dbl:ident, $sum:ident, $msm:ident, $scratch:ident, $tile:ident) => {
        impl BlstCurve for $proj {
            type Affine = $aff;
            fn add(a: &Self, b: &Self) -> Self {
                let mut r = <$proj>::default();
                // SAFETY: valid points in, one out.
                unsafe { $add(&mut r, a, b) };
                r
            }
            fn double(a: &Self) -> Self {
                let mut r = <$proj>::default();
                // SAFETY: valid point in, one out.
                unsafe { $dbl(&mut r, a) };
                r
            }
            unsafe fn sum_affine(points: *const *const $aff, n: usize) -> Self {
                let mut r = <$proj>::default();
                $sum(&mut r, points, n);
                r
            }
            fn scratch_bytes(n: usize) -> usize {
                // SAFETY: a pure size computation.
                unsafe { $scratch(n) }
            }
            unsafe fn msm(
                points: *const *const $aff,
                scalars: &[blst_scalar],
                scratch: &mut [limb_t],
            ) -> Self {
                let mut r = <$proj>::default();
                let s = [scalars.as_ptr().cast::<u8>(), std::ptr::null()];
                $msm(
                    &mut r,
                    points,
                    scalars.len(),
                    s.as_ptr(),
                    SCALAR_BITS,
                    scratch.as_mut_ptr(),
                );
                r
            }
            unsafe fn tile(
                points: *const *const $aff,
                scalars: &[blst_scalar],
                scratch: &mut [limb_t],
                bit0: usize,
                window: usize,
            ) -> Self {
                let mut r = <$proj>::default();
                let s = [scalars.as_ptr().cast::<u8>(), std::ptr::null()];
                $tile(
                    &mut r,
                    points,
                    scalars.len(),
                    s.as_ptr(),
                    SCALAR_BITS,
                    scratch.as_mut_ptr(),
                    bit0,
                    window,
                );
                r
            }
        }
    };
}

blst_curve!(
    blst_p1,
    blst_p1_affine,
    blst_p1_add_or_double,
    blst_p1_double,
    blst_p1s_add,
    blst_p1s_mult_pippenger,
    blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_tile_pippenger
);
blst_curve!(
    blst_p2,
    blst_p2_affine,
    blst_p2_add_or_double,
    blst_p2_double,
    blst_p2s_add,
    blst_p2s_mult_pippenger,
    blst_p2s_mult_pippenger_scratch_sizeof,
    blst_p2s_tile_pippenger
);

/// Pointer to each selected point.
fn gather<A>(points: &[A], indices: &[u32]) -> Vec<*const A> {
    indices
        .iter()
        .map(|&i| &points[i as usize] as *const A)
        .collect()
}

/// The points of one MSM as blst takes them: an array with a pointer per selected point, or,
/// for all points of a query in order, none at all (blst reads `[first, NULL]` as "consecutive
/// points from first"), which spares the H MSM a pointer per point.
struct PointPtrs<'a, A> {
    gathered: Option<Vec<*const A>>,
    all: &'a [A],
}

// SAFETY: the pointers are shared read-only views of SRS points that outlive the call.
unsafe impl<A: Sync> Send for PointPtrs<'_, A> {}
unsafe impl<A: Sync> Sync for PointPtrs<'_, A> {}

impl<A> PointPtrs<'_, A> {
    /// Calls `f` with blst's point argument for the points from the `lo`-th selected one on.
    fn from<R>(&self, lo: usize, f: impl FnOnce(*const *const A) -> R) -> R {
        match &self.gathered {
            Some(ptrs) => f(ptrs[lo..].as_ptr()),
            None => {
                let run = [&self.all[lo] as *const A, std::ptr::null()];
                f(run.as_ptr())
            }
        }
    }
}

/// `sum(points[p] for p set in ones)`, by affine batch addition on all cores: each task takes
/// a run of bitmap words and gathers pointers to its set points.
pub fn batch_add<C: BlstCurve>(points: &[C::Affine], ones: &OnesBitmap) -> C {
    assert!(ones.len <= points.len(), "bitmap longer than the points");
    ones.words
        .par_chunks(ADD_CHUNK / 64)
        .enumerate()
        .map(|(chunk, words)| {
            let first = chunk * ADD_CHUNK;
            let mut ptrs: Vec<*const C::Affine> =
                Vec::with_capacity(words.iter().map(|w| w.count_ones() as usize).sum());
            for (i, &w) in words.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let p = first + i * 64 + w.trailing_zeros() as usize;
                    ptrs.push(&points[p]);
                    w &= w - 1;
                }
            }
            if ptrs.is_empty() {
                return C::default();
            }
            // SAFETY: every pointer points into `points`.
            unsafe { C::sum_affine(ptrs.as_ptr(), ptrs.len()) }
        })
        .reduce(C::default, |a, b| C::add(&a, &b))
}

/// The window size blst picks for `n` points.
fn window_for(n: usize) -> usize {
    let bits = usize::BITS as usize - 1 - n.leading_zeros() as usize;
    if bits > 12 {
        bits - 3
    } else if bits > 4 {
        bits - 2
    } else {
        bits.max(2)
    }
}

/// `sum(scalars[k] * points[indices[k]])` with Pippenger tiles on all cores; with `indices`
/// `None`, `sum(scalars[k] * points[k])`.
pub fn msm<C: BlstCurve>(
    points: &[C::Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
) -> C {
    let n = scalars.len();
    match indices {
        Some(idx) => assert_eq!(idx.len(), n),
        None => assert!(points.len() >= n),
    }
    if n == 0 {
        return C::default();
    }
    let ptrs = PointPtrs {
        gathered: indices.map(|idx| gather(points, idx)),
        all: points,
    };
    if n < SMALL_MSM {
        let mut scratch = vec![0 as limb_t; C::scratch_bytes(n).div_ceil(8)];
        // SAFETY: n points and scalars, scratch sized by blst for n.
        return ptrs.from(0, |p| unsafe { C::msm(p, scalars, &mut scratch) });
    }
    let threads = rayon::current_num_threads();
    let window = window_for(n);
    // Signed (Booth) digits carry into one more window above the top bit, as in blst.
    let windows = SCALAR_BITS / window + 1;
    // Enough tiles to keep every core busy, each with at least SMALL_MSM / 2 points.
    let runs = (2 * threads)
        .div_ceil(windows)
        .clamp(1, n / (SMALL_MSM / 2));
    // blst's XYZZ bucket size: the scratch for one point uses a window of 1, i.e. one bucket.
    let bucket_bytes = C::scratch_bytes(1);
    let scratch_words = (bucket_bytes << (window - 1)).div_ceil(8);
    let tiles: Vec<(usize, usize)> = (0..windows)
        .flat_map(|w| (0..runs).map(move |r| (w, r)))
        .collect();
    let results: Vec<(usize, C)> = tiles
        .par_iter()
        .map_init(
            || vec![0 as limb_t; scratch_words],
            |scratch, &(w, r)| {
                let (lo, hi) = (r * n / runs, (r + 1) * n / runs);
                // SAFETY: lo..hi has at least n / runs >= 32 points, scratch sized for window.
                let t = ptrs.from(lo, |p| unsafe {
                    C::tile(p, &scalars[lo..hi], scratch, w * window, window)
                });
                (w, t)
            },
        )
        .collect();
    let mut per_window = vec![C::default(); windows];
    for (w, t) in results {
        per_window[w] = C::add(&per_window[w], &t);
    }
    let mut acc = per_window[windows - 1];
    for w in (0..windows - 1).rev() {
        for _ in 0..window {
            acc = C::double(&acc);
        }
        acc = C::add(&acc, &per_window[w]);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{g1_affine_as_blst, g1_from_blst, g2_affine_as_blst, g2_from_blst};
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
    use ff::Field;
    use group::{Curve, Group};
    use rand::SeedableRng;

    fn canonical(s: &Scalar) -> blst_scalar {
        blst_scalar { b: s.to_bytes_le() }
    }

    #[test]
    fn g1_msm_matches_naive() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let pts: Vec<G1Affine> = (0..300)
            .map(|_| G1Projective::random(&mut rng).to_affine())
            .collect();
        for n in [1usize, 2, 3, 31, 63, 64, 65, 200, 1000] {
            let idx: Vec<u32> = (0..n).map(|i| ((i * 7) % pts.len()) as u32).collect();
            let sc: Vec<Scalar> = (0..n)
                .map(|i| {
                    if i % 5 == 0 {
                        -Scalar::ONE
                    } else {
                        Scalar::random(&mut rng)
                    }
                })
                .collect();
            let mut expect = G1Projective::identity();
            for (i, s) in idx.iter().zip(&sc) {
                expect += pts[*i as usize] * s;
            }
            let bs: Vec<blst_scalar> = sc.iter().map(canonical).collect();
            let got = g1_from_blst(msm::<blst_p1>(g1_affine_as_blst(&pts), Some(&idx), &bs));
            assert_eq!(got, expect, "msm n = {n}");
        }
    }

    #[test]
    fn g2_msm_matches_naive() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let pts: Vec<G2Affine> = (0..100)
            .map(|_| G2Projective::random(&mut rng).to_affine())
            .collect();
        for n in [1usize, 2, 70, 150] {
            let idx: Vec<u32> = (0..n).map(|i| (i % pts.len()) as u32).collect();
            let sc: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let mut expect = G2Projective::identity();
            for (i, s) in idx.iter().zip(&sc) {
                expect += pts[*i as usize] * s;
            }
            let bs: Vec<blst_scalar> = sc.iter().map(canonical).collect();
            assert_eq!(
                g2_from_blst(msm::<blst_p2>(g2_affine_as_blst(&pts), Some(&idx), &bs)),
                expect
            );
        }
    }

    #[test]
    fn tiles_split_across_point_runs_match_naive() {
        // Many threads make the MSM cut each window into several runs of points.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(48)
            .build()
            .unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let pts: Vec<G1Affine> = (0..64)
            .map(|_| G1Projective::random(&mut rng).to_affine())
            .collect();
        for n in [64usize, 100, 1000, 5000] {
            let idx: Vec<u32> = (0..n).map(|i| (i % pts.len()) as u32).collect();
            let sc: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let mut expect = G1Projective::identity();
            for (i, s) in idx.iter().zip(&sc) {
                expect += pts[*i as usize] * s;
            }
            let bs: Vec<blst_scalar> = sc.iter().map(canonical).collect();
            let got = pool
                .install(|| g1_from_blst(msm::<blst_p1>(g1_affine_as_blst(&pts), Some(&idx), &bs)));
            assert_eq!(got, expect, "n = {n}");
        }
    }

    #[test]
    fn msm_over_all_points_in_order_matches_naive() {
        // The contiguous form (no pointer array), on few and many threads, small and tiled.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(48)
            .build()
            .unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let pts: Vec<G1Affine> = (0..3000)
            .map(|_| G1Projective::random(&mut rng).to_affine())
            .collect();
        for n in [1usize, 2, 31, 64, 1000, 3000] {
            let sc: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let expect: G1Projective = pts.iter().zip(&sc).map(|(p, s)| *p * s).sum();
            let bs: Vec<blst_scalar> = sc.iter().map(canonical).collect();
            let run = || g1_from_blst(msm::<blst_p1>(g1_affine_as_blst(&pts), None, &bs));
            assert_eq!(run(), expect, "n = {n}");
            assert_eq!(pool.install(run), expect, "n = {n}, 48 threads");
        }
    }

    #[test]
    fn sums_that_cancel_give_identity() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let p = G1Projective::random(&mut rng).to_affine();
        let pts = vec![p, -p, p];
        let ones = OnesBitmap::from_indices(3, &[0, 1]);
        let got = g1_from_blst(batch_add::<blst_p1>(g1_affine_as_blst(&pts), &ones));
        assert!(bool::from(got.is_identity()));
        let ones = OnesBitmap::from_indices(3, &[0, 2]);
        let got = g1_from_blst(batch_add::<blst_p1>(g1_affine_as_blst(&pts), &ones));
        assert_eq!(got, G1Projective::from(p).double());
    }
}
