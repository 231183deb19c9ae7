//! GPU MSMs and batch additions equal the CPU (blstrs, or the CPU backend for big sizes).
//!
//! G1 MSM for 1, 2, 3, 31, 1000, 2^16 and 2^20 points and G2 MSM for 1, 2, 3, 31, 1000 and 2^14
//! points, with random scalars, all 0, all 1, all r - 1, few distinct points repeated many times,
//! sums that cancel to the identity, identity points among the points, the `indices` path (with
//! repeats, into a longer point vector) and, on G1, Montgomery-form scalars. Every case runs
//! with the direct scatter and with the binned one (at any size, over small sub-chunks), and
//! one 2^24 G1 MSM runs with each against the CPU backend; forced window widths of 4 to 22 bits cover every bucket scan and window
//! count the plans use; and MSMs accumulated over chunks of the points as the streamed H MSM
//! runs them. Batch additions on
//! G1 and G2 over empty, full, 50% and 92% bitmaps, lengths that are not multiples of 64, length
//! 1 and length 0, repeated and negated points, identity points.
//!
//! Oracles are computed independently where that is cheap (the identity for cancelling sums,
//! the plain sum of the points for all-1 scalars, per-point scalar sums for repeated points);
//! otherwise blstrs point-by-scalar products up to 1024 points and the CPU backend above.
//! Identity points are left out of the oracle's input altogether.
//!
//! Needs a GPU; prints a SKIP line without one. `GROTH16_C2_GPU_MSM_MAX_N` leaves out the MSMs of
//! more points (with a SKIP line each), for the sanitizers' slow tools.

use std::sync::OnceLock;

use crate::common::gpu::*;
use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use groth16_c2::backend::Backend;
use groth16_c2::backend::CpuBackend;
use groth16_c2::testing::cuda::kernels::MsmStrategy;
use groth16_c2::testing::cuda::msm;
use groth16_c2::testing::split::OnesBitmap;
use group::prime::{PrimeCurve, PrimeCurveAffine};
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

const G1_SIZES: [usize; 7] = [1, 2, 3, 31, 1000, 1 << 16, 1 << 20];
const G2_SIZES: [usize; 6] = [1, 2, 3, 31, 1000, 1 << 14];
const G1_SUM_LENS: [usize; 8] = [0, 1, 63, 64, 65, 1000, (1 << 16) + 1, 1 << 20];
const G2_SUM_LENS: [usize; 5] = [0, 1, 65, 1000, (1 << 14) + 3];
/// Up to this many points the oracle is a sum of blstrs point-by-scalar products.
const NAIVE: usize = 1024;

/// Points per MSM above which a case is left out, with a visible SKIP line
/// (`GROTH16_C2_GPU_MSM_MAX_N`, for the sanitizers: racecheck's own host memory outgrows the GPU
/// machine's 128 GiB on the 2^20-point cases; the smaller ones run the same kernels).
fn max_points() -> usize {
    std::env::var("GROTH16_C2_GPU_MSM_MAX_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Whether an MSM of `n` points runs under the cap; otherwise prints a SKIP line.
fn within_cap(test: &str, n: usize) -> bool {
    let cap = max_points();
    if n <= cap {
        return true;
    }
    say(&format!(
        "SKIP {test}: {n} points, above GROTH16_C2_GPU_MSM_MAX_N={cap}"
    ));
    false
}

/// The sizes within the cap (see [`within_cap`]).
fn capped(test: &str, sizes: &[usize]) -> Vec<usize> {
    sizes
        .iter()
        .copied()
        .filter(|&n| within_cap(test, n))
        .collect()
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The GPU operations under test and the CPU backend's, per group.
trait TestCurve: PrimeCurve<Scalar = Scalar> {
    const NAME: &'static str;
    fn gpu_msm(
        points: &[Self::Affine],
        indices: Option<&[u32]>,
        scalars: &[blst_scalar],
        strategy: MsmStrategy,
    ) -> Self;
    fn gpu_sum(points: &[Self::Affine], ones: &OnesBitmap) -> Self;
    fn cpu_msm(points: &[Self::Affine], indices: &[u32], scalars: &[blst_scalar]) -> Self;
    fn cpu_sum(points: &[Self::Affine], ones: &OnesBitmap) -> Self;
    /// A shared vector of random points, longer than the largest size tested.
    fn points() -> &'static [Self::Affine];
}

impl TestCurve for G1Projective {
    const NAME: &'static str = "G1";
    fn gpu_msm(
        points: &[G1Affine],
        indices: Option<&[u32]>,
        scalars: &[blst_scalar],
        strategy: MsmStrategy,
    ) -> Self {
        msm::msm_g1_with(0, points, indices, scalars, strategy).unwrap()
    }
    fn gpu_sum(points: &[G1Affine], ones: &OnesBitmap) -> Self {
        msm::sum_g1(0, points, ones).unwrap()
    }
    fn cpu_msm(points: &[G1Affine], indices: &[u32], scalars: &[blst_scalar]) -> Self {
        CpuBackend.g1_msm(points, indices, scalars).unwrap()
    }
    fn cpu_sum(points: &[G1Affine], ones: &OnesBitmap) -> Self {
        CpuBackend.g1_sum(points, ones).unwrap()
    }
    fn points() -> &'static [G1Affine] {
        static P: OnceLock<Vec<G1Affine>> = OnceLock::new();
        P.get_or_init(|| make_points::<G1Projective>((1 << 20) + 4099, 0x61))
    }
}

impl TestCurve for G2Projective {
    const NAME: &'static str = "G2";
    fn gpu_msm(
        points: &[G2Affine],
        indices: Option<&[u32]>,
        scalars: &[blst_scalar],
        strategy: MsmStrategy,
    ) -> Self {
        msm::msm_g2_with(0, points, indices, scalars, strategy).unwrap()
    }
    fn gpu_sum(points: &[G2Affine], ones: &OnesBitmap) -> Self {
        msm::sum_g2(0, points, ones).unwrap()
    }
    fn cpu_msm(points: &[G2Affine], indices: &[u32], scalars: &[blst_scalar]) -> Self {
        CpuBackend.g2_msm(points, indices, scalars).unwrap()
    }
    fn cpu_sum(points: &[G2Affine], ones: &OnesBitmap) -> Self {
        CpuBackend.g2_sum(points, ones).unwrap()
    }
    fn points() -> &'static [G2Affine] {
        static P: OnceLock<Vec<G2Affine>> = OnceLock::new();
        P.get_or_init(|| make_points::<G2Projective>((1 << 14) + 37, 0x62))
    }
}

// ---------------------------------------------------------------------------------------------
// Data

/// `n` distinct points, fast: each run of 4096 is `R + j*Q` for random `R, Q` of its own, built
/// by repeated addition and normalized with one inversion.
fn make_points<P: PrimeCurve>(n: usize, seed: u64) -> Vec<P::Affine> {
    const RUN: usize = 4096;
    let mut out = vec![P::Affine::identity(); n];
    out.par_chunks_mut(RUN).enumerate().for_each(|(k, chunk)| {
        let mut rng = rng(seed << 32 | k as u64);
        let (r, q) = (P::random(&mut rng), P::random(&mut rng));
        let mut acc = r;
        let proj: Vec<P> = (0..chunk.len())
            .map(|_| {
                let p = acc;
                acc += q;
                p
            })
            .collect();
        P::batch_normalize(&proj, chunk);
    });
    out
}

fn random_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    let mut v = vec![Scalar::ZERO; n];
    v.par_chunks_mut(1 << 14)
        .enumerate()
        .for_each(|(k, chunk)| {
            let mut rng = rng(seed << 32 | k as u64);
            chunk.iter_mut().for_each(|x| *x = Scalar::random(&mut rng));
        });
    v
}

fn canonical(scalars: &[Scalar]) -> Vec<blst_scalar> {
    scalars
        .par_iter()
        .map(|s| blst_scalar { b: s.to_bytes_le() })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Oracles

/// `sum(scalars[k] * points[indices[k]])` (or `points[k]`) on the CPU, identity points left out.
fn oracle_msm<P: TestCurve>(
    points: &[P::Affine],
    indices: Option<&[u32]>,
    scalars: &[Scalar],
) -> P {
    let index = |k: usize| indices.map_or(k, |i| i[k] as usize);
    let live: Vec<usize> = (0..scalars.len())
        .filter(|&k| !bool::from(points[index(k)].is_identity()))
        .collect();
    if live.len() <= NAIVE {
        return live
            .par_iter()
            .map(|&k| points[index(k)] * scalars[k])
            .reduce(P::identity, |a, b| a + b);
    }
    let idx: Vec<u32> = live.iter().map(|&k| index(k) as u32).collect();
    let s: Vec<Scalar> = live.iter().map(|&k| scalars[k]).collect();
    P::cpu_msm(points, &idx, &canonical(&s))
}

/// The plain sum of `points`, by additions.
fn point_sum<P: TestCurve>(points: &[P::Affine]) -> P {
    points
        .par_iter()
        .fold(P::identity, |acc, p| acc + *p)
        .reduce(P::identity, |a, b| a + b)
}

/// The strategies each case runs under: the slices with the direct scatter (below 2^24
/// entries) and with the binned one.
const STRATEGIES: [MsmStrategy; 2] = [MsmStrategy::Slices, MsmStrategy::SlicesTestBinned];

/// Checks the GPU MSM under each strategy.
#[track_caller]
fn check_msm<P: TestCurve + std::fmt::Debug>(
    what: &str,
    n: usize,
    points: &[P::Affine],
    indices: Option<&[u32]>,
    scalars: &[Scalar],
    want: P,
) {
    let scalars = canonical(scalars);
    for strategy in STRATEGIES {
        let got = P::gpu_msm(points, indices, &scalars, strategy);
        assert!(
            got == want,
            "{} MSM of {n} points ({strategy:?}), {what}: GPU {:?} != CPU {:?}",
            P::NAME,
            got.to_affine(),
            want.to_affine()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// MSM cases, generic over the group

fn msm_random<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for (i, &n) in sizes.iter().enumerate() {
        let points = &all[..n];
        let s = random_scalars(n, 100 + i as u64);
        let want = oracle_msm::<P>(points, None, &s);
        check_msm("random scalars", n, points, None, &s, want);
        // Points beyond the scalars are ignored.
        check_msm(
            "random scalars, longer point slice",
            n,
            &all[..n + 1],
            None,
            &s,
            want,
        );
    }
}

fn msm_constant_scalars<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for strategy in STRATEGIES {
        assert!(
            P::gpu_msm(all, None, &[], strategy) == P::identity(),
            "an empty MSM"
        );
    }
    for &n in sizes {
        let points = &all[..n];
        let sum = point_sum::<P>(points);
        check_msm(
            "all 0",
            n,
            points,
            None,
            &vec![Scalar::ZERO; n],
            P::identity(),
        );
        check_msm("all 1", n, points, None, &vec![Scalar::ONE; n], sum);
        check_msm("all r - 1", n, points, None, &vec![-Scalar::ONE; n], -sum);
        let two = Scalar::from(2u64);
        check_msm("all 2", n, points, None, &vec![two; n], sum.double());
    }
}

fn msm_repeated_points<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for (i, &n) in sizes.iter().enumerate() {
        for distinct in [1usize, 5] {
            let base = &all[all.len() - distinct..];
            let points: Vec<P::Affine> = (0..n).map(|k| base[k % distinct]).collect();
            let s = random_scalars(n, 200 + i as u64);
            let mut per_point = vec![Scalar::ZERO; distinct];
            for (k, x) in s.iter().enumerate() {
                per_point[k % distinct] += x;
            }
            let want = base
                .iter()
                .zip(&per_point)
                .fold(P::identity(), |acc, (p, x)| acc + *p * x);
            let what = format!("{distinct} distinct points repeated");
            check_msm(&what, n, &points, None, &s, want);
            if n > 1000 {
                continue; // all in one bucket: the all-1 / all r - 1 cases cover big sizes
            }
            // Repeated points with equal scalars: every bucket adds P to P.
            let equal = vec![s[0]; n];
            let want = base.iter().enumerate().fold(P::identity(), |acc, (d, p)| {
                let copies = (n + distinct - 1 - d) / distinct;
                acc + *p * (s[0] * Scalar::from(copies as u64))
            });
            check_msm(
                &format!("{what}, equal scalars"),
                n,
                &points,
                None,
                &equal,
                want,
            );
        }
    }
}

fn msm_cancelling<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for (i, &n) in sizes.iter().enumerate() {
        // Pairs (2k, 2k+1) share a point and have scalars s and -s; an odd last one gets 0.
        let mut points = all[..n].to_vec();
        let mut s = random_scalars(n, 300 + i as u64);
        for k in (1..n).step_by(2) {
            points[k] = points[k - 1];
            s[k] = -s[k - 1];
        }
        if n % 2 == 1 {
            s[n - 1] = Scalar::ZERO;
        }
        check_msm(
            "pairs s, -s on one point",
            n,
            &points,
            None,
            &s,
            P::identity(),
        );
        // The same with the point negated instead of the scalar.
        let mut s = random_scalars(n, 350 + i as u64);
        for k in (1..n).step_by(2) {
            points[k] = -points[k - 1];
            s[k] = s[k - 1];
        }
        if n % 2 == 1 {
            s[n - 1] = Scalar::ZERO;
        }
        check_msm("pairs (P, s), (-P, s)", n, &points, None, &s, P::identity());
    }
}

fn msm_identity_points<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for (i, &n) in sizes.iter().enumerate() {
        let s = random_scalars(n, 400 + i as u64);
        // Every third point, the first and the last are the identity.
        let mut points = all[..n].to_vec();
        for k in (0..n).step_by(3).chain([n - 1]) {
            points[k] = P::Affine::identity();
        }
        let want = oracle_msm::<P>(&points, None, &s);
        check_msm("identity points among them", n, &points, None, &s, want);
        let none = vec![P::Affine::identity(); n];
        check_msm("identity points only", n, &none, None, &s, P::identity());
    }
}

fn msm_indices<P: TestCurve + std::fmt::Debug>(sizes: &[usize]) {
    let all = P::points();
    for (i, &n) in sizes.iter().enumerate() {
        let mut rng = rng(500 + i as u64);
        // Random indices into the whole (longer) vector, with repeats: random picks repeat by
        // themselves at big sizes; force some at small ones.
        let mut idx: Vec<u32> = (0..n).map(|_| rng.gen_range(0..all.len() as u32)).collect();
        if n >= 2 {
            idx[1] = idx[0];
        }
        if n >= 31 {
            idx[n - 1] = idx[n / 2];
            idx[7] = (all.len() - 1) as u32; // the last point
        }
        let s = random_scalars(n, 600 + i as u64);
        let want = oracle_msm::<P>(all, Some(&idx), &s);
        check_msm("random indices with repeats", n, all, Some(&idx), &s, want);
        // Descending indices: the order of the index list does not matter.
        let desc: Vec<u32> = (0..n as u32).map(|k| (all.len() as u32 - 1) - k).collect();
        let want = oracle_msm::<P>(all, Some(&desc), &s);
        check_msm("descending indices", n, all, Some(&desc), &s, want);
        // Every index the same point, scalars s and -s: the identity.
        if n >= 2 {
            let same = vec![idx[0]; n];
            let mut s2 = s.clone();
            for k in (1..n).step_by(2) {
                s2[k] = -s2[k - 1];
            }
            if n % 2 == 1 {
                s2[n - 1] = Scalar::ZERO;
            }
            check_msm(
                "one point through every index, cancelling scalars",
                n,
                all,
                Some(&same),
                &s2,
                P::identity(),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Batch additions

fn random_bitmap(len: usize, share: f64, seed: u64) -> OnesBitmap {
    let mut rng = rng(seed);
    let idx: Vec<u32> = (0..len as u32).filter(|_| rng.gen_bool(share)).collect();
    OnesBitmap::from_indices(len, &idx)
}

#[track_caller]
fn check_sum<P: TestCurve + std::fmt::Debug>(
    what: &str,
    points: &[P::Affine],
    ones: &OnesBitmap,
    want: P,
) {
    let got = P::gpu_sum(points, ones);
    assert!(
        got == want,
        "{} batch addition, len {} ({} set), {what}: GPU {:?} != CPU {:?}",
        P::NAME,
        ones.len,
        ones.count,
        got.to_affine(),
        want.to_affine()
    );
}

fn sums<P: TestCurve + std::fmt::Debug>(lens: &[usize]) {
    let all = P::points();
    for (i, &len) in lens.iter().enumerate() {
        let seed = 700 + 10 * i as u64;
        let empty = OnesBitmap::zeros(len);
        assert_eq!(empty.count, 0);
        check_sum("empty bitmap", all, &empty, P::identity());

        let full = OnesBitmap::from_indices(len, &(0..len as u32).collect::<Vec<_>>());
        assert_eq!(full.count, len);
        let want = P::cpu_sum(all, &full);
        assert!(want == point_sum::<P>(&all[..len]), "CPU oracle disagrees");
        check_sum("full bitmap, exact point slice", &all[..len], &full, want);
        check_sum("full bitmap, longer point slice", all, &full, want);

        for (share, k) in [(0.5, 1), (0.92, 2), (0.01, 3)] {
            let ones = random_bitmap(len, share, seed + k);
            let want = P::cpu_sum(all, &ones);
            check_sum(&format!("random {share} of the points"), all, &ones, want);
        }

        if len == 0 {
            continue;
        }
        // Few distinct points, repeated and negated: the affine additions meet P + P and P - P.
        let base = &all[all.len() - 3..];
        let points: Vec<P::Affine> = (0..len)
            .map(|k| match k % 4 {
                0 | 1 => base[k % 3],
                2 => -base[k % 3],
                _ => base[(k + 1) % 3],
            })
            .collect();
        for (share, k) in [(1.0, 4), (0.5, 5)] {
            let ones = random_bitmap(len, share, seed + k);
            let want = point_sum::<P>(
                &ones
                    .iter_ones()
                    .map(|p| points[p as usize])
                    .collect::<Vec<_>>(),
            );
            check_sum(
                &format!("repeated and negated points, {share} set"),
                &points,
                &ones,
                want,
            );
        }
        // P and -P only, all set: the identity (or one point for an odd count).
        let pm: Vec<P::Affine> = (0..len)
            .map(|k| if k % 2 == 0 { base[0] } else { -base[0] })
            .collect();
        let full_pm = OnesBitmap::from_indices(len, &(0..len as u32).collect::<Vec<_>>());
        let want = if len % 2 == 1 {
            base[0].to_curve()
        } else {
            P::identity()
        };
        check_sum("P, -P, P, -P ...", &pm, &full_pm, want);

        // Identity points among the set ones.
        let mut points = all[..len].to_vec();
        for k in (0..len).step_by(5).chain([len - 1]) {
            points[k] = P::Affine::identity();
        }
        let ones = random_bitmap(len, 0.7, seed + 6);
        let live: Vec<u32> = ones
            .iter_ones()
            .filter(|&p| !bool::from(points[p as usize].is_identity()))
            .collect();
        let want = P::cpu_sum(&points, &OnesBitmap::from_indices(len, &live));
        check_sum("identity points among the set ones", &points, &ones, want);
    }
}

// ---------------------------------------------------------------------------------------------
// Tests

macro_rules! gpu_test {
    ($name:ident, $body:expr) => {
        #[test]
        fn $name() {
            let Some(_gpu) = gpu_shared_or_skip(stringify!($name)) else {
                return;
            };
            $body
        }
    };
}

/// A GPU test of one MSM check over a list of sizes, those above the cap left out (see
/// [`within_cap`]).
macro_rules! msm_test {
    ($name:ident, $check:expr, $sizes:expr) => {
        gpu_test!($name, $check(&capped(stringify!($name), &$sizes)));
    };
}

msm_test!(g1_msm_random_scalars, msm_random::<G1Projective>, G1_SIZES);
msm_test!(
    g1_msm_zero_one_minus_one,
    msm_constant_scalars::<G1Projective>,
    G1_SIZES
);
msm_test!(
    g1_msm_repeated_points,
    msm_repeated_points::<G1Projective>,
    G1_SIZES
);
msm_test!(
    g1_msm_sums_to_identity,
    msm_cancelling::<G1Projective>,
    G1_SIZES
);
msm_test!(
    g1_msm_identity_points,
    msm_identity_points::<G1Projective>,
    G1_SIZES
);
msm_test!(g1_msm_indices, msm_indices::<G1Projective>, G1_SIZES);

msm_test!(g2_msm_random_scalars, msm_random::<G2Projective>, G2_SIZES);
msm_test!(
    g2_msm_zero_one_minus_one,
    msm_constant_scalars::<G2Projective>,
    G2_SIZES
);
msm_test!(
    g2_msm_repeated_points,
    msm_repeated_points::<G2Projective>,
    G2_SIZES
);
msm_test!(
    g2_msm_sums_to_identity,
    msm_cancelling::<G2Projective>,
    G2_SIZES
);
msm_test!(
    g2_msm_identity_points,
    msm_identity_points::<G2Projective>,
    G2_SIZES
);
msm_test!(g2_msm_indices, msm_indices::<G2Projective>, G2_SIZES);

gpu_test!(g1_batch_addition, sums::<G1Projective>(&G1_SUM_LENS));

/// Every window width the plans use or could be forced to (4, 13, 16, 20, 22 bits: the
/// single-block and the multi-block bucket scan, 13 to 64 windows), on random scalars and on
/// all-equal ones (a single bucket per window), under each strategy.
#[test]
fn g1_msm_forced_windows() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_forced_windows") else {
        return;
    };
    let all = <G1Projective as TestCurve>::points();
    for (i, n) in [1000usize, 1 << 16].into_iter().enumerate() {
        if !within_cap("g1_msm_forced_windows", n) {
            continue;
        }
        let points = &all[..n];
        let s = random_scalars(n, 1000 + i as u64);
        let random = oracle_msm::<G1Projective>(points, None, &s);
        let equal = vec![s[0]; n];
        let equal_want = point_sum::<G1Projective>(points) * s[0];
        for window in [4u32, 13, 16, 20, 22] {
            for strategy in STRATEGIES {
                for (what, scalars, want) in [
                    ("random scalars", &s, random),
                    ("equal scalars", &equal, equal_want),
                ] {
                    let got =
                        msm::msm_g1_window(0, points, None, &canonical(scalars), strategy, window)
                            .unwrap();
                    assert!(
                        got == want,
                        "G1 MSM of {n} points, {window}-bit windows ({strategy:?}), {what}"
                    );
                }
            }
        }
    }
}

/// An MSM accumulated over chunks of the points (as a streamed H MSM runs it) equals the plain
/// one: chunks that divide the points and one that does not, a single chunk, chunks of one
/// point, with the window of the whole size and with 20-bit windows (what 2^25 points and up
/// take).
/// The device gather of one curve (`msm::gather_tail_g1` or `_g2`).
type Gather<A> =
    fn(usize, &[A], &[u32], u32, &[blst_scalar]) -> groth16_c2::Result<(Vec<A>, Vec<blst_scalar>)>;

/// A chunk's tail piece gathered on the device, as the streamed tails append it to a gathered
/// tail: each entry's point (relative to the chunk's first index), the identity for an index
/// outside the chunk (past it, or below it so that the subtraction wraps), its scalar as it was.
fn gather_tail_case<P: TestCurve>(label: &str, gather: Gather<P::Affine>)
where
    P::Affine: Default + PartialEq + std::fmt::Debug,
{
    let points = make_points::<P>(1000, 70);
    let base = 5000u32;
    for (i, n) in [1usize, 7, 1000, 100_003].into_iter().enumerate() {
        let mut rng = rng(71 + i as u64);
        let index: Vec<u32> = (0..n)
            .map(|k| match k % 13 {
                5 => base + 1000 + rng.gen_range(0..50),
                9 => rng.gen_range(0..base),
                _ => base + rng.gen_range(0..1000),
            })
            .collect();
        let scalars = canonical(&random_scalars(n, 72 + i as u64));
        let (got_points, got_scalars) = gather(0, &points, &index, base, &scalars).unwrap();
        for (k, &ix) in index.iter().enumerate() {
            let want = points
                .get(ix.wrapping_sub(base) as usize)
                .copied()
                .unwrap_or_default();
            assert_eq!(got_points[k], want, "{label}: entry {k} of {n}, index {ix}");
            assert_eq!(got_scalars[k].b, scalars[k].b, "{label}: scalar {k} of {n}");
        }
    }
}

#[test]
fn tail_pieces_gather_on_the_device() {
    let Some(_gpu) = gpu_shared_or_skip("tail_pieces_gather_on_the_device") else {
        return;
    };
    gather_tail_case::<G1Projective>("G1", msm::gather_tail_g1);
    gather_tail_case::<G2Projective>("G2", msm::gather_tail_g2);
}

#[test]
fn g1_msm_accumulated_over_chunks() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_accumulated_over_chunks") else {
        return;
    };
    for (n, chunks, window) in [
        (1usize, vec![1usize], 0u32),
        (31, vec![1, 7, 31], 0),
        (1000, vec![64, 333, 1000], 0),
        (70_001, vec![4096, 65_536, 70_001], 0),
        (70_001, vec![20_000], 20),
        (1 << 20, vec![1 << 18, 300_000], 0),
        (1 << 20, vec![1 << 18], 20),
    ] {
        if !within_cap("g1_msm_accumulated_over_chunks", n) {
            continue;
        }
        let points = make_points::<G1Projective>(n, 40 + n as u64);
        let scalars = random_scalars(n, 41 + n as u64);
        let want = msm::msm_g1_montgomery(0, &points, &scalars, MsmStrategy::Auto).unwrap();
        for chunk in chunks {
            let got = msm::msm_g1_accumulated(0, &points, &scalars, chunk, window).unwrap();
            assert_eq!(
                got, want,
                "{n} points in chunks of {chunk}, window {window}"
            );
        }
    }
}

/// One 2^24-point G1 MSM with random scalars under each strategy, against the CPU backend.
#[test]
fn g1_msm_2_pow_24() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_2_pow_24") else {
        return;
    };
    let n = 1 << 24;
    if !within_cap("g1_msm_2_pow_24", n) {
        return;
    }
    let points = make_points::<G1Projective>(n, 0x63);
    let s = random_scalars(n, 900);
    let idx: Vec<u32> = (0..n as u32).collect();
    let want = G1Projective::cpu_msm(&points, &idx, &canonical(&s));
    check_msm("random scalars", n, &points, None, &s, want);
}
gpu_test!(g2_batch_addition, sums::<G2Projective>(&G2_SUM_LENS));

/// The H MSM's order: scalar k with point bitrev(k). The H shape (2^b - 1 scalars and points:
/// the reversed indices never reach the last point), fewer scalars than 2^b with every point
/// there, fewer points than reversed indices (those positions count as the identity), one
/// scalar, and edge values among random ones; every strategy. Oracle: blstrs or the CPU backend over the permuted points.
#[test]
fn g1_msm_bit_reversed_scalars() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_bit_reversed_scalars") else {
        return;
    };
    let all = <G1Projective as TestCurve>::points();
    let rev = |k: usize, bits: u32| (k as u32).reverse_bits() >> (32 - bits);
    // (bits, scalars, points)
    let cases = [
        (1, 1, 1),
        (1, 2, 2),
        (3, 7, 7),
        (3, 8, 5),
        (10, 1023, 1023),
        (10, 1000, 1024),
        (13, 5000, 8191),
        (16, (1 << 16) - 1, (1 << 16) - 1),
        (20, (1 << 20) - 1, (1 << 20) - 1),
    ];
    for (i, &(bits, n, n_points)) in cases.iter().enumerate() {
        if !within_cap("g1_msm_bit_reversed_scalars", n.max(n_points)) {
            continue;
        }
        let points = &all[..n_points];
        let mut s = random_scalars(n, 1700 + i as u64);
        for (k, x) in s.iter_mut().enumerate() {
            match k % 13 {
                2 => *x = Scalar::ZERO,
                4 => *x = Scalar::ONE,
                6 => *x = -Scalar::ONE,
                _ => {}
            }
        }
        let live: Vec<usize> = (0..n)
            .filter(|&k| (rev(k, bits) as usize) < n_points)
            .collect();
        let idx: Vec<u32> = live.iter().map(|&k| rev(k, bits)).collect();
        let sc: Vec<Scalar> = live.iter().map(|&k| s[k]).collect();
        let want = oracle_msm::<G1Projective>(points, Some(&idx), &sc);
        for strategy in STRATEGIES {
            let got = msm::msm_g1_bit_reversed(0, points, &s, bits, strategy).unwrap();
            assert!(
                got == want,
                "G1 MSM of {n} bit-reversed scalars over {bits} bits, {n_points} points \
                 ({strategy:?}): GPU {:?} != CPU {:?}",
                got.to_affine(),
                want.to_affine()
            );
        }
    }
    // More scalars than reversed indices, or no bits: an error, not a wrong sum.
    let s = random_scalars(9, 1790);
    assert!(msm::msm_g1_bit_reversed(0, &all[..16], &s, 3, MsmStrategy::Auto).is_err());
    assert!(msm::msm_g1_bit_reversed(0, &all[..16], &s, 0, MsmStrategy::Auto).is_err());
}

#[test]
fn g1_msm_montgomery_scalars() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_montgomery_scalars") else {
        return;
    };
    let all = <G1Projective as TestCurve>::points();
    assert!(
        msm::msm_g1_montgomery(0, all, &[], MsmStrategy::Auto).unwrap() == G1Projective::identity()
    );
    for (i, &n) in G1_SIZES.iter().enumerate() {
        if !within_cap("g1_msm_montgomery_scalars", n) {
            continue;
        }
        let points = &all[..n];
        let mut s = random_scalars(n, 800 + i as u64);
        // Edge values among the random ones.
        for (k, x) in s.iter_mut().enumerate() {
            match k % 17 {
                3 => *x = Scalar::ZERO,
                5 => *x = Scalar::ONE,
                7 => *x = -Scalar::ONE,
                11 => *x = Scalar::from(u64::MAX),
                _ => {}
            }
        }
        let want = oracle_msm::<G1Projective>(points, None, &s);
        for strategy in STRATEGIES {
            let got = msm::msm_g1_montgomery(0, points, &s, strategy).unwrap();
            assert!(
                got == want,
                "G1 Montgomery MSM of {n} points ({strategy:?}): GPU {:?} != CPU {:?}",
                got.to_affine(),
                want.to_affine()
            );
        }
        // The canonical path on the same scalars agrees.
        assert!(msm::msm_g1(0, points, None, &canonical(&s)).unwrap() == want);
        for (what, v, want) in [
            ("all 0", Scalar::ZERO, G1Projective::identity()),
            ("all 1", Scalar::ONE, point_sum::<G1Projective>(points)),
            (
                "all r - 1",
                -Scalar::ONE,
                -point_sum::<G1Projective>(points),
            ),
        ] {
            for strategy in STRATEGIES {
                let got = msm::msm_g1_montgomery(0, points, &vec![v; n], strategy).unwrap();
                assert!(
                    got == want,
                    "G1 Montgomery MSM of {n} points ({strategy:?}), {what}"
                );
            }
        }
    }
}

/// Precomputed copies (`copies` m, copy j = 2^(c j) P): the copies themselves against blstrs
/// (identity points included), then MSMs over them against the CPU for one group of windows
/// (m = windows) and ragged groups, every scalar order the MSM takes (natural, an index with
/// repeats and out-of-range entries, bit-reversed Montgomery scalars), random and edge scalars
/// (0, 1, r - 1, all equal), identity points, one point; and the bad shapes refused.
#[test]
fn g1_msm_precomputed_copies() {
    let Some(_gpu) = gpu_shared_or_skip("g1_msm_precomputed_copies") else {
        return;
    };
    let all = <G1Projective as TestCurve>::points();
    // The copies.
    let mut pts = all[..37].to_vec();
    pts[5] = G1Affine::identity();
    let (c, m) = (7u32, 5u32);
    let copies = msm::precompute_g1(0, &pts, c, m).unwrap();
    assert_eq!(copies.len(), pts.len() * m as usize);
    for j in 0..m as usize {
        let factor = Scalar::from(2u64).pow_vartime([u64::from(c) * j as u64]);
        for (i, p) in pts.iter().enumerate() {
            let want = (G1Projective::from(*p) * factor).to_affine();
            assert_eq!(copies[j * pts.len() + i], want, "copy {j} of point {i}");
        }
    }
    // (window, copies, points): one group, ragged groups, wide windows.
    let shapes = [
        (16u32, 16u32, 1usize),
        (16, 16, 1000),
        (16, 3, 1000),
        (13, 2, 31),
        (9, 29, 3),
        (20, 13, 5000),
        (22, 12, (1 << 16) + 3),
    ];
    for (i, &(window, m, n)) in shapes.iter().enumerate() {
        if !within_cap("g1_msm_precomputed_copies", n) {
            continue;
        }
        let mut points = all[..n].to_vec();
        if n > 10 {
            points[7] = G1Affine::identity();
        }
        let mut s = random_scalars(n, 2100 + i as u64);
        for (k, x) in s.iter_mut().enumerate() {
            match k % 11 {
                2 => *x = Scalar::ZERO,
                4 => *x = Scalar::ONE,
                6 => *x = -Scalar::ONE,
                _ => {}
            }
        }
        let equal = vec![s[0]; n];
        for (what, sc) in [("random and edge scalars", &s), ("equal scalars", &equal)] {
            let want = oracle_msm::<G1Projective>(&points, None, sc);
            for strategy in [MsmStrategy::Slices, MsmStrategy::SlicesTestBinned] {
                let got = msm::msm_g1_precomputed_with(
                    0,
                    &points,
                    None,
                    &canonical(sc),
                    false,
                    0,
                    window,
                    m,
                    strategy,
                )
                .unwrap();
                assert!(
                    got == want,
                    "G1 MSM of {n} points over {m} copies for {window}-bit windows ({strategy:?}), {what}"
                );
            }
        }
        // An index with repeats and entries past the points (the identity).
        let idx: Vec<u32> = (0..n as u32)
            .map(|k| {
                if k % 9 == 4 {
                    n as u32 + k
                } else {
                    (k * 7) % n as u32
                }
            })
            .collect();
        let live: Vec<usize> = (0..n).filter(|&k| (idx[k] as usize) < n).collect();
        let want = oracle_msm::<G1Projective>(
            &points,
            Some(&live.iter().map(|&k| idx[k]).collect::<Vec<_>>()),
            &live.iter().map(|&k| s[k]).collect::<Vec<_>>(),
        );
        let got =
            msm::msm_g1_precomputed(0, &points, Some(&idx), &canonical(&s), false, 0, window, m)
                .unwrap();
        assert!(got == want, "indexed G1 MSM of {n} points over {m} copies");
        // Bit-reversed Montgomery scalars (the H MSM's shape): 2^b - 1 scalars and points.
        let bits = usize::BITS - n.leading_zeros();
        let rev = |k: usize| (k as u32).reverse_bits() >> (32 - bits);
        let live: Vec<usize> = (0..n).filter(|&k| (rev(k) as usize) < n).collect();
        let want = oracle_msm::<G1Projective>(
            &points,
            Some(&live.iter().map(|&k| rev(k)).collect::<Vec<_>>()),
            &live.iter().map(|&k| s[k]).collect::<Vec<_>>(),
        );
        for strategy in [MsmStrategy::Slices, MsmStrategy::SlicesTestBinned] {
            let got =
                msm::msm_g1_precomputed_with(0, &points, None, &s, true, bits, window, m, strategy)
                    .unwrap();
            assert!(
                got == want,
                "bit-reversed G1 MSM of {n} points over {m} copies ({strategy:?})"
            );
        }
    }
    // Refused: copies without a window, more copies than windows, copies on too many points.
    let s = canonical(&random_scalars(8, 2190));
    let p = &all[..8];
    assert!(msm::msm_g1_precomputed(0, p, None, &s, false, 0, 0, 2).is_err());
    assert!(msm::msm_g1_precomputed(0, p, None, &s, false, 0, 16, 17).is_err());
    assert!(msm::precompute_g1(0, p, 16, 17).is_err());
    assert!(msm::precompute_g1(0, p, 3, 2).is_err());
}
