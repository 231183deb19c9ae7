//! The 0/1 split: for each query, which SRS points get a scalar of 1 (summed by a plain batch
//! addition), which get 0 (skipped), and which need a real multi-scalar multiplication.
//!
//! In PoRep circuits almost every aux value is a bit, so this split is where most of the speed
//! comes from. It runs in parallel inside one circuit: each block of variables is classified on
//! its own, with its first SRS point found from the density popcounts of the blocks before it.

use blst::{blst_scalar, blst_scalar_from_fr};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::assignment::{Density, Witness};
use crate::curve::scalar_limbs;

/// Variables per parallel task; a multiple of 64 so blocks start on a density word.
const BLOCK: usize = 1 << 15;

/// One query's MSM, split by scalar value. Indices are positions in the query's point vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuerySplit {
    /// Points whose scalar is 1.
    pub ones: Vec<u32>,
    /// Points whose scalar is neither 0 nor 1, with their scalars in canonical form.
    pub tail_points: Vec<u32>,
    pub tail_scalars: Vec<blst_scalar>,
    /// How many selected variables were 0 (skipped).
    pub zeros: usize,
}

impl QuerySplit {
    fn append(&mut self, mut other: QuerySplit) {
        self.ones.append(&mut other.ones);
        self.tail_points.append(&mut other.tail_points);
        self.tail_scalars.append(&mut other.tail_scalars);
        self.zeros += other.zeros;
    }

    /// Variables this query covers.
    pub fn len(&self) -> usize {
        self.ones.len() + self.tail_points.len() + self.zeros
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The three G1 queries' splits of one circuit; B's split serves both B_G1 and B_G2.
#[derive(Clone, Debug, Default)]
pub struct CircuitSplit {
    pub a: QuerySplit,
    pub b: QuerySplit,
    pub l: QuerySplit,
}

/// Splits every query of one circuit.
pub fn split_circuit(w: &Witness) -> CircuitSplit {
    let inputs = w.inputs.len();
    let ((a, b), l) = rayon::join(
        || {
            rayon::join(
                || {
                    // A: every input (inputs have full A density), then aux in A.
                    let mut a = split_query(w.inputs, None, 0);
                    a.append(split_query(w.aux, Some(&w.a_aux_density), inputs));
                    a
                },
                || {
                    // B: inputs in B, then aux in B after them.
                    let mut b = split_query(w.inputs, Some(&w.b_inp_density), 0);
                    b.append(split_query(
                        w.aux,
                        Some(&w.b_aux_density),
                        w.b_inp_density.popcount,
                    ));
                    b
                },
            )
        },
        || split_query(w.aux, None, 0),
    );
    CircuitSplit { a, b, l }
}

/// Splits `scalars[j]` for every `j` selected by `density` (all when `None`); the k-th selected
/// variable uses point `first_point + k`.
pub fn split_query(
    scalars: &[Scalar],
    density: Option<&Density>,
    first_point: usize,
) -> QuerySplit {
    let blocks = scalars.len().div_ceil(BLOCK);
    // Points used by each block, so every block knows where its points start.
    let mut starts: Vec<usize> = (0..blocks)
        .into_par_iter()
        .map(|blk| {
            let lo = blk * BLOCK;
            let hi = (lo + BLOCK).min(scalars.len());
            match density {
                None => hi - lo,
                Some(d) => crate::assignment::count_ones(&d.words[lo / 64..], hi - lo),
            }
        })
        .collect();
    let mut next = first_point;
    for s in starts.iter_mut() {
        let used = *s;
        *s = next;
        next += used;
    }
    let parts: Vec<QuerySplit> = scalars
        .par_chunks(BLOCK)
        .zip(starts.par_iter())
        .enumerate()
        .map(|(blk, (chunk, &start))| classify_block(chunk, blk * BLOCK, density, start))
        .collect();
    let mut out = QuerySplit::default();
    out.ones.reserve(parts.iter().map(|p| p.ones.len()).sum());
    out.tail_points
        .reserve(parts.iter().map(|p| p.tail_points.len()).sum());
    out.tail_scalars
        .reserve(parts.iter().map(|p| p.tail_scalars.len()).sum());
    for p in parts {
        out.append(p);
    }
    out
}

fn classify_block(
    chunk: &[Scalar],
    first_var: usize,
    density: Option<&Density>,
    mut point: usize,
) -> QuerySplit {
    let one = *scalar_limbs(&Scalar::ONE);
    let mut out = QuerySplit::default();
    for (j, s) in chunk.iter().enumerate() {
        if let Some(d) = density {
            if !d.get(first_var + j) {
                continue;
            }
        }
        let limbs = scalar_limbs(s);
        if *limbs == [0; 4] {
            out.zeros += 1;
        } else if *limbs == one {
            out.ones.push(point as u32);
        } else {
            let mut canonical = blst_scalar::default();
            // SAFETY: both are plain 32-byte values.
            unsafe { blst_scalar_from_fr(&mut canonical, (s as *const Scalar).cast()) };
            out.tail_points.push(point as u32);
            out.tail_scalars.push(canonical);
        }
        point += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn density(bits: &[bool]) -> Vec<u64> {
        let mut w = vec![0u64; bits.len().div_ceil(64)];
        for (i, &b) in bits.iter().enumerate() {
            if b {
                w[i / 64] |= 1 << (i % 64);
            }
        }
        w
    }

    #[test]
    fn split_matches_a_plain_filter() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for n in [0usize, 1, 63, 64, 65, BLOCK - 1, BLOCK + 3, 3 * BLOCK + 17] {
            let scalars: Vec<Scalar> = (0..n)
                .map(|_| match rng.gen_range(0..3) {
                    0 => Scalar::ZERO,
                    1 => Scalar::ONE,
                    _ => Scalar::random(&mut rng),
                })
                .collect();
            let bits: Vec<bool> = (0..n).map(|_| rng.gen_bool(0.7)).collect();
            let words = density(&bits);
            let d = Density::new(&words, n);
            let split = split_query(&scalars, Some(&d), 5);

            let mut expect = QuerySplit::default();
            let mut point = 5u32;
            for (s, &bit) in scalars.iter().zip(&bits) {
                if !bit {
                    continue;
                }
                if bool::from(s.is_zero()) {
                    expect.zeros += 1;
                } else if *s == Scalar::ONE {
                    expect.ones.push(point);
                } else {
                    expect.tail_points.push(point);
                    expect.tail_scalars.push(blst_scalar { b: s.to_bytes_le() });
                }
                point += 1;
            }
            assert_eq!(split, expect, "n = {n}");
        }
    }
}
