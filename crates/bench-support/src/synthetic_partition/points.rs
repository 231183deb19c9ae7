//! The synthetic SRS: every query filled with distinct, unrelated-looking multiples of the
//! generators, at a few hundred nanoseconds per point.
//!
//! A query is built in chunks. A chunk walks `LANES` lanes in parallel: lane `l` of row `t` is
//! `S + l·D + t·Q`, with a random start `S` per chunk and random `D`, `Q` per query. A row
//! advances every lane by one affine addition of `Q`, all sharing one field inversion
//! (Montgomery's trick): about 6 field multiplications per point, half the cost of a Jacobian
//! addition plus a batched conversion to affine. Only `S` costs a scalar multiplication.
//!
//! Why not simply `(k0 + i)·G`: sums of such points coincide whenever their index sums do, so
//! an MSM's partial sums would hit `P + P` far more often than with a real SRS (never, in
//! practice), which is not what a benchmark should exercise. Here two partial sums coincide
//! only if they hold equally many points of every chunk and have equal sums of lane numbers
//! and of row numbers.

use std::time::Instant;

use blst::*;
use groth16_c2::srs::{Srs, SrsData, VerifyingKey};
use groth16_c2::testing::curve::{
    g1_affine_from_blst, g1_vec_from_blst, g2_affine_from_blst, g2_vec_from_blst,
};
use rand::RngCore;

use super::{chunk_rng, par_collect, SyntheticPartition, VALUES_PER_CHUNK};

/// Lanes walked side by side: one inversion (~1.8 µs) is shared by this many points.
const LANES: usize = 128;

/// Seed of every SRS point: the SRS depends on the shape only, not on the values' seed.
const SRS_SEED: u64 = 0x5eed_c202;

/// Stream ids of the queries and the verifying key.
mod stream {
    pub const VK: u64 = 16;
    pub const IC: u64 = 17;
    pub const H: u64 = 18;
    pub const L: u64 = 19;
    pub const A: u64 = 20;
    pub const B_G1: u64 = 21;
    pub const B_G2: u64 = 22;
}

/// Builds the SRS that fits `partition` (docs/design.md, "The params file"): `h` of `2^K - 1`
/// points, `l` one per aux variable, `a` every input and the aux variables in A, `b_g1`/`b_g2`
/// the inputs and aux variables in B, `ic` one per input. Parallel over all cores.
///
/// Not a trusted setup (see the module docs): proofs made with it do not verify. The SRS
/// depends only on the shape's structure, so one serves every seed of that shape.
/// `load_time` holds the generation time, `file_bytes` is 0.
pub fn synthetic_srs(partition: &SyntheticPartition) -> Srs {
    let started = Instant::now();
    let w = partition.witness();
    let inputs = w.inputs.len();
    let b_len = w.b_inp_density.popcount + w.b_aux_density.popcount;
    let mut vk_rng = chunk_rng(SRS_SEED, stream::VK, 0);
    let mut g1 = || g1_affine_from_blst(G1::random_multiple(&mut vk_rng));
    let (alpha_g1, beta_g1, delta_g1) = (g1(), g1(), g1());
    let mut g2 = || g2_affine_from_blst(G2::random_multiple(&mut vk_rng));
    let (beta_g2, gamma_g2, delta_g2) = (g2(), g2(), g2());
    let data = SrsData {
        host_pins: Default::default(),
        vk: VerifyingKey {
            alpha_g1,
            beta_g1,
            beta_g2,
            gamma_g2,
            delta_g1,
            delta_g2,
            ic: g1_vec_from_blst(query::<G1>(inputs, stream::IC)),
        },
        h: g1_vec_from_blst(query::<G1>(w.domain_size() - 1, stream::H)),
        l: g1_vec_from_blst(query::<G1>(w.aux.len(), stream::L)),
        a: g1_vec_from_blst(query::<G1>(inputs + w.a_aux_density.popcount, stream::A)),
        b_g1: g1_vec_from_blst(query::<G1>(b_len, stream::B_G1)),
        b_g2: g2_vec_from_blst(query::<G2>(b_len, stream::B_G2)),
        path: format!("<synthetic partition 2^{}>", partition.shape.log_n).into(),
        file_bytes: 0,
        // Fields are evaluated in order: this one after every query is built.
        load_time: started.elapsed(),
    };
    Srs::from_data(data).expect("the synthetic SRS has matching b_g1, b_g2 and a non-empty ic")
}

/// `len` distinct points of one query.
fn query<G: WalkGroup>(len: usize, stream: u64) -> Vec<G::Affine> {
    let mut rng = chunk_rng(SRS_SEED, stream, usize::MAX);
    let (lane_step, row_step) = (G::random_multiple(&mut rng), G::random_multiple(&mut rng));
    par_collect(len, VALUES_PER_CHUNK, |chunk, n| {
        let start = G::random_multiple(&mut chunk_rng(SRS_SEED, stream, chunk));
        Walk::<G>::new(G::chain(&start, &lane_step, n.min(LANES)), row_step)
    })
}

/// The lanes of one chunk, yielded row by row, forever.
struct Walk<G: WalkGroup> {
    lanes: Vec<G::Affine>,
    step: G::Affine,
    next: usize,
    dx: Vec<G::Fq>,
    prefix: Vec<G::Fq>,
}

impl<G: WalkGroup> Walk<G> {
    fn new(lanes: Vec<G::Affine>, step: G::Affine) -> Self {
        let n = lanes.len();
        Walk {
            lanes,
            step,
            next: 0,
            dx: vec![G::Fq::default(); n],
            prefix: vec![G::Fq::default(); n],
        }
    }

    /// Adds `step` to every lane: `λ = (y_Q - y_P) / (x_Q - x_P)`, `x = λ² - x_P - x_Q`,
    /// `y = λ(x_P - x) - y_P`, with the divisions batched into one inversion.
    fn advance(&mut self) {
        let (qx, qy) = G::xy(&self.step);
        let mut product: Option<G::Fq> = None;
        for (i, p) in self.lanes.iter().enumerate() {
            self.dx[i] = G::sub(qx, G::xy(p).0);
            let next = product.map_or(self.dx[i], |acc| G::mul(&acc, &self.dx[i]));
            self.prefix[i] = next;
            product = Some(next);
        }
        let product = product.expect("a walk has at least one lane");
        // Zero only if a lane met ±Q: a chance of about 2^-240 per query.
        assert!(product != G::Fq::default(), "a lane met the step point");
        let mut inv = G::inverse(&product);
        for i in (0..self.lanes.len()).rev() {
            let inv_dx = if i == 0 {
                inv
            } else {
                G::mul(&inv, &self.prefix[i - 1])
            };
            inv = G::mul(&inv, &self.dx[i]);
            let (px, py) = G::xy(&self.lanes[i]);
            let lambda = G::mul(&G::sub(qy, py), &inv_dx);
            let x = G::sub(&G::sub(&G::sqr(&lambda), px), qx);
            let y = G::sub(&G::mul(&lambda, &G::sub(px, &x)), py);
            self.lanes[i] = G::from_xy(x, y);
        }
    }
}

impl<G: WalkGroup> Iterator for Walk<G> {
    type Item = G::Affine;

    fn next(&mut self) -> Option<G::Affine> {
        if self.next == self.lanes.len() {
            self.advance();
            self.next = 0;
        }
        self.next += 1;
        Some(self.lanes[self.next - 1])
    }
}

/// What the walk needs of G1 and G2: the coordinate field's arithmetic (blst's, on the
/// Montgomery form) and a few point operations.
trait WalkGroup {
    type Fq: Copy + Default + PartialEq;
    type Affine: Copy + Send + Sync;
    fn xy(p: &Self::Affine) -> (&Self::Fq, &Self::Fq);
    fn from_xy(x: Self::Fq, y: Self::Fq) -> Self::Affine;
    fn mul(a: &Self::Fq, b: &Self::Fq) -> Self::Fq;
    fn sqr(a: &Self::Fq) -> Self::Fq;
    fn sub(a: &Self::Fq, b: &Self::Fq) -> Self::Fq;
    fn inverse(a: &Self::Fq) -> Self::Fq;
    /// `k·G` for a random 255-bit `k` (one scalar multiplication).
    fn random_multiple(rng: &mut impl RngCore) -> Self::Affine;
    /// `start + i·step` for `i < n`, by Jacobian additions and one batched conversion.
    fn chain(start: &Self::Affine, step: &Self::Affine, n: usize) -> Vec<Self::Affine>;
}

/// A random 255-bit scalar as little-endian bytes, for blst's multiplication.
fn random_scalar_bytes(rng: &mut impl RngCore) -> [u8; 32] {
    let mut k = [0u8; 32];
    rng.fill_bytes(&mut k);
    k[31] &= 0x7f;
    k
}

struct G1;
struct G2;

/// Implements [`WalkGroup`] over blst's functions of one group.
macro_rules! walk_group {
    ($group:ident, $fq:ident, $affine:ident, $jacobian:ident,
     $mul:ident, $sqr:ident, $sub:ident, $inverse:ident,
     $generator:ident, $mult:ident, $from_affine:ident, $to_affine:ident, $add_affine:ident,
     $batch_to_affine:ident) => {
        impl WalkGroup for $group {
            type Fq = $fq;
            type Affine = $affine;

            fn xy(p: &$affine) -> (&$fq, &$fq) {
                (&p.x, &p.y)
            }

            fn from_xy(x: $fq, y: $fq) -> $affine {
                $affine { x, y }
            }

            fn mul(a: &$fq, b: &$fq) -> $fq {
                let mut r = $fq::default();
                // SAFETY: blst reads two field elements and writes one.
                unsafe { $mul(&mut r, a, b) };
                r
            }

            fn sqr(a: &$fq) -> $fq {
                let mut r = $fq::default();
                // SAFETY: as for mul.
                unsafe { $sqr(&mut r, a) };
                r
            }

            fn sub(a: &$fq, b: &$fq) -> $fq {
                let mut r = $fq::default();
                // SAFETY: as for mul.
                unsafe { $sub(&mut r, a, b) };
                r
            }

            fn inverse(a: &$fq) -> $fq {
                let mut r = $fq::default();
                // SAFETY: as for mul.
                unsafe { $inverse(&mut r, a) };
                r
            }

            fn random_multiple(rng: &mut impl RngCore) -> $affine {
                let k = random_scalar_bytes(rng);
                let (mut p, mut out) = ($jacobian::default(), $affine::default());
                // SAFETY: `k` holds the 255 bits blst reads; the generator is a static point.
                unsafe {
                    $mult(&mut p, $generator(), k.as_ptr(), 255);
                    $to_affine(&mut out, &p);
                }
                out
            }

            fn chain(start: &$affine, step: &$affine, n: usize) -> Vec<$affine> {
                let mut p = $jacobian::default();
                // SAFETY: valid points in, one point out.
                unsafe { $from_affine(&mut p, start) };
                let jacobian: Vec<$jacobian> = (0..n)
                    .map(|_| {
                        let current = p;
                        // SAFETY: as above; blst allows the output to alias the input. `add`
                        // (not `add_or_double`) is enough: `start + i·step = step` has no chance.
                        unsafe { $add_affine(&mut p, &current, step) };
                        current
                    })
                    .collect();
                let mut out = vec![$affine::default(); n];
                // blst's batch conversion reads one contiguous array when the second pointer
                // is NULL.
                let points = [jacobian.as_ptr(), std::ptr::null()];
                // SAFETY: `out` and `jacobian` hold `n` points each.
                unsafe { $batch_to_affine(out.as_mut_ptr(), points.as_ptr(), n) };
                out
            }
        }
    };
}

walk_group!(
    G1,
    blst_fp,
    blst_p1_affine,
    blst_p1,
    blst_fp_mul,
    blst_fp_sqr,
    blst_fp_sub,
    blst_fp_inverse,
    blst_p1_generator,
    blst_p1_mult,
    blst_p1_from_affine,
    blst_p1_to_affine,
    blst_p1_add_affine,
    blst_p1s_to_affine
);

walk_group!(
    G2,
    blst_fp2,
    blst_p2_affine,
    blst_p2,
    blst_fp2_mul,
    blst_fp2_sqr,
    blst_fp2_sub,
    blst_fp2_inverse,
    blst_p2_generator,
    blst_p2_mult,
    blst_p2_from_affine,
    blst_p2_to_affine,
    blst_p2_add_affine,
    blst_p2s_to_affine
);

#[cfg(test)]
mod tests {
    use blstrs::{G1Affine, G1Projective, Scalar};
    use group::{Curve, Group};

    use super::*;

    #[test]
    fn walk_gives_start_plus_lane_and_row_steps() {
        let g = G1Projective::generator();
        let (s, d, q) = (
            Scalar::from(1000u64),
            Scalar::from(7u64),
            Scalar::from(31u64),
        );
        let affine = |k: Scalar| -> blst_p1_affine {
            let p: G1Affine = (g * k).to_affine();
            groth16_c2::testing::curve::g1_affine_as_blst(std::slice::from_ref(&p))[0]
        };
        let lanes = 5;
        let walk = Walk::<G1>::new(G1::chain(&affine(s), &affine(d), lanes), affine(q));
        for (i, p) in walk.take(lanes * 4).enumerate() {
            let (row, lane) = ((i / lanes) as u64, (i % lanes) as u64);
            let expected = s + d * Scalar::from(lane) + q * Scalar::from(row);
            assert_eq!(
                g1_affine_from_blst(p),
                (g * expected).to_affine(),
                "point {i}"
            );
        }
    }
}
