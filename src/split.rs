//! The 0/1 split: for each query, which SRS points get a scalar of 1 (summed by a plain batch
//! addition), which get 0 (skipped), and which need a real multi-scalar multiplication.
//!
//! In PoRep circuits almost every aux value is a bit, so this split is where most of the speed
//! comes from. It runs in parallel inside one circuit: each block of variables is classified on
//! its own, with its first SRS point found from the density popcounts of the blocks before it.
//! The "ones" of a query are a bitmap over its points (1 bit per point, what a device batch
//! addition reads); each block writes the bitmap words of its own points, and the one word it
//! may share with the next block is merged after the parallel pass. The A, B and L queries all
//! select from the aux variables, so one pass over `aux` classifies each value once for all
//! three.

use blst::{blst_scalar, blst_scalar_from_fr};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::assignment::{Density, Witness};
use crate::curve::scalar_limbs;
use crate::large_buf::{clone_into, LargeBuf};

/// Variables per parallel task; a multiple of 64 so blocks start on a density word.
const BLOCK: usize = 1 << 15;

/// The points of a query whose scalar is 1: bit `p` (bit `p % 64` of `words[p / 64]`, LSB
/// first, like the density vectors) is set iff point `p` gets scalar 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OnesBitmap {
    /// `len.div_ceil(64)` words; the bits at and above `len` are 0.
    pub words: LargeBuf<u64>,
    /// Points covered: the bits that are valid.
    pub len: usize,
    /// Set bits.
    pub count: usize,
}

impl OnesBitmap {
    /// `len` points, none set.
    pub fn zeros(len: usize) -> OnesBitmap {
        OnesBitmap {
            words: LargeBuf::zeroed(len.div_ceil(64)),
            len,
            count: 0,
        }
    }

    /// `len` points, those in `indices` set (each `< len`; repeats count once).
    pub fn from_indices(len: usize, indices: &[u32]) -> OnesBitmap {
        let mut b = OnesBitmap::zeros(len);
        for &i in indices {
            let i = i as usize;
            assert!(i < len, "index {i} outside a bitmap of {len} points");
            b.words[i / 64] |= 1 << (i % 64);
        }
        b.count = b.words.iter().map(|w| w.count_ones() as usize).sum();
        b
    }

    /// Whether point `p` gets scalar 1 (false at and above `len`).
    pub fn is_set(&self, p: usize) -> bool {
        p < self.len && (self.words[p / 64] >> (p % 64)) & 1 == 1
    }

    /// The set points, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| SetBits {
            word: w,
            base: (i * 64) as u32,
        })
    }

    /// The set points as an index list, ascending.
    pub fn to_indices(&self) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.count);
        v.extend(self.iter_ones());
        v
    }
}

/// The set bits of one word, as `base + bit`.
struct SetBits {
    word: u64,
    base: u32,
}

impl Iterator for SetBits {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.word == 0 {
            return None;
        }
        let b = self.word.trailing_zeros();
        self.word &= self.word - 1;
        Some(self.base + b)
    }
}

/// One query's MSM, split by scalar value. Points are positions in the query's point vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuerySplit {
    /// Points whose scalar is 1, over all the points the split covers.
    pub ones: OnesBitmap,
    /// Points whose scalar is neither 0 nor 1 (ascending), with their scalars in canonical form.
    pub tail_points: LargeBuf<u32>,
    pub tail_scalars: LargeBuf<blst_scalar>,
    /// How many selected variables were 0 (skipped).
    pub zeros: usize,
}

impl QuerySplit {
    /// An empty split whose next point is `first_point`: its bitmap covers the points before.
    fn starting_at(first_point: usize) -> QuerySplit {
        QuerySplit {
            ones: OnesBitmap::zeros(first_point),
            ..QuerySplit::default()
        }
    }

    /// Variables this split classified.
    pub fn len(&self) -> usize {
        self.ones.count + self.tail_points.len() + self.zeros
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

impl CircuitSplit {
    /// The circuit's shape as the prover sees it, on one `key=value` line: its H domain, sizes,
    /// densities, and per query the points whose scalar is 1, 0 or neither (the tail, which
    /// needs a real MSM). What `GROTH16_C2_LOG_SHAPES=1` prints per circuit.
    pub fn shape_line(&self, w: &Witness) -> String {
        let pct = |part: usize, whole: usize| 100.0 * part as f64 / whole.max(1) as f64;
        let mut line = format!(
            "groth16-c2 shape domain=2^{} abc={} inputs={} aux={} a_aux_density={:.1}% \
             b_aux_density={:.1}%",
            w.domain_size().trailing_zeros(),
            w.a.len(),
            w.inputs.len(),
            w.aux.len(),
            pct(w.a_aux_density.popcount, w.aux.len()),
            pct(w.b_aux_density.popcount, w.aux.len()),
        );
        for (name, q) in [("l", &self.l), ("a", &self.a), ("b", &self.b)] {
            let n = q.len();
            line += &format!(
                " {name}_points={n} {name}_ones={:.1}% {name}_zeros={:.1}% {name}_tail={:.1}%",
                pct(q.ones.count, n),
                pct(q.zeros, n),
                pct(q.tail_points.len(), n)
            );
        }
        line
    }
}

/// Splits every query of one circuit.
pub fn split_circuit(w: &Witness) -> CircuitSplit {
    // A: every input (inputs have full A density), then the aux variables in A after them.
    // B: the inputs in B, then the aux variables in B after them. L: every aux variable.
    let [a, b] = split_queries(
        w.inputs,
        [None, Some(&w.b_inp_density)],
        [QuerySplit::default(), QuerySplit::default()],
    );
    let [a, b, l] = split_queries(
        w.aux,
        [Some(&w.a_aux_density), Some(&w.b_aux_density), None],
        [a, b, QuerySplit::default()],
    );
    CircuitSplit { a, b, l }
}

/// Splits `scalars[j]` for every `j` selected by `density` (all when `None`); the k-th selected
/// variable uses point `first_point + k`. The bitmap covers points `0 .. first_point +
/// selected`, with none set below `first_point`.
pub fn split_query(
    scalars: &[Scalar],
    density: Option<&Density>,
    first_point: usize,
) -> QuerySplit {
    let [q] = split_queries(scalars, [density], [QuerySplit::starting_at(first_point)]);
    q
}

/// Splits `K` queries over the same variables in one pass over `scalars`. Query `k` selects the
/// variables whose `densities[k]` bit is set (all when `None`) and continues `prefixes[k]`: its
/// first point is `prefixes[k].ones.len`, and the result holds the prefix's points too.
fn split_queries<const K: usize>(
    scalars: &[Scalar],
    densities: [Option<&Density>; K],
    prefixes: [QuerySplit; K],
) -> [QuerySplit; K] {
    for d in densities.iter().flatten() {
        assert_eq!(d.bit_len, scalars.len(), "density length != variables");
    }
    let blocks = scalars.len().div_ceil(BLOCK);
    // Points and tail entries each block has per query, so that every block knows where its
    // points and its tail entries start, and writes them in place (no per-block lists to
    // concatenate: PoSt's tails are 99% of every query).
    let used: Vec<([usize; K], [usize; K])> = scalars
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(blk, chunk)| count_block(chunk, blk * BLOCK, &densities))
        .collect();
    let mut starts: [Vec<usize>; K] = std::array::from_fn(|_| Vec::with_capacity(blocks));
    let mut ends: [usize; K] = std::array::from_fn(|k| prefixes[k].ones.len);
    let mut tail_starts: [Vec<usize>; K] = std::array::from_fn(|_| Vec::with_capacity(blocks));
    let mut tail_ends: [usize; K] = std::array::from_fn(|k| prefixes[k].tail_points.len());
    for (points, tails) in &used {
        for k in 0..K {
            starts[k].push(ends[k]);
            ends[k] += points[k];
            tail_starts[k].push(tail_ends[k]);
            tail_ends[k] += tails[k];
        }
    }
    let mut tail_points: [LargeBuf<u32>; K] =
        std::array::from_fn(|k| LargeBuf::zeroed(tail_ends[k]));
    let mut tail_scalars: [LargeBuf<blst_scalar>; K] =
        std::array::from_fn(|k| LargeBuf::zeroed(tail_ends[k]));
    for k in 0..K {
        let n = prefixes[k].tail_points.len();
        clone_into(&mut tail_points[k][..n], &prefixes[k].tail_points);
        clone_into(&mut tail_scalars[k][..n], &prefixes[k].tail_scalars);
    }

    let mut words: [LargeBuf<u64>; K] =
        std::array::from_fn(|k| LargeBuf::zeroed(ends[k].div_ceil(64)));
    // Each block gets the words from its first point's word up to (not including) the next
    // block's first word; the one word it may share with the next block comes back as a carry.
    let mut sinks: Vec<std::vec::IntoIter<Sink>> = words
        .iter_mut()
        .zip(&starts)
        .map(|(w, s)| block_sinks(w, s).into_iter())
        .collect();
    let mut tails: Vec<std::vec::IntoIter<TailSink>> = tail_points
        .iter_mut()
        .zip(tail_scalars.iter_mut())
        .zip(&tail_starts)
        .zip(&tail_ends)
        .map(|(((p, s), starts), &end)| tail_sinks(p, s, starts, end).into_iter())
        .collect();
    let tasks: Vec<([Sink; K], [TailSink; K])> = (0..blocks)
        .map(|_| {
            (
                std::array::from_fn(|k| sinks[k].next().expect("a sink per block")),
                std::array::from_fn(|k| tails[k].next().expect("a tail sink per block")),
            )
        })
        .collect();
    drop((sinks, tails));
    let parts: Vec<BlockOut<K>> = scalars
        .par_chunks(BLOCK)
        .zip(tasks)
        .enumerate()
        .map(|(blk, (chunk, (mut sinks, mut tails)))| {
            classify_block(chunk, blk * BLOCK, &densities, &mut sinks, &mut tails)
        })
        .collect();

    let mut k = 0;
    prefixes.map(|prefix| {
        let mut words = std::mem::take(&mut words[k]);
        for (blk, p) in parts.iter().enumerate() {
            if p.carry[k] != 0 {
                words[starts[k][blk + 1] / 64] |= p.carry[k];
            }
        }
        for (w, p) in words.iter_mut().zip(prefix.ones.words.iter()) {
            debug_assert_eq!(*w & p, 0);
            *w |= p;
        }
        let ones = OnesBitmap {
            words,
            len: ends[k],
            count: prefix.ones.count + parts.iter().map(|p| p.ones[k]).sum::<usize>(),
        };
        let zeros = prefix.zeros + parts.iter().map(|p| p.zeros[k]).sum::<usize>();
        let split = QuerySplit {
            ones,
            tail_points: std::mem::take(&mut tail_points[k]),
            tail_scalars: std::mem::take(&mut tail_scalars[k]),
            zeros,
        };
        k += 1;
        split
    })
}

/// Where one block writes its bits of a query's bitmap.
struct Sink<'a> {
    /// The words this block owns.
    words: &'a mut [u64],
    /// The point of bit 0 of `words[0]`.
    base: usize,
    /// The next point to write.
    pos: usize,
    /// Bits for the word after `words`, which a later block owns; ORed in after the parallel
    /// pass.
    carry: u64,
}

impl Sink<'_> {
    /// Appends the low `n` bits of `bits` (the rest are 0).
    fn put(&mut self, bits: u64, n: u32) {
        let rel = self.pos - self.base;
        let (w, off) = (rel / 64, (rel % 64) as u32);
        self.or(w, bits << off);
        if off + n > 64 {
            self.or(w + 1, bits >> (64 - off));
        }
        self.pos += n as usize;
    }

    fn or(&mut self, w: usize, bits: u64) {
        if bits == 0 {
            return;
        }
        match self.words.get_mut(w) {
            Some(x) => *x |= bits,
            None => {
                debug_assert_eq!(w, self.words.len());
                self.carry |= bits;
            }
        }
    }
}

/// Cuts `words` into one [`Sink`] per block, block `i` starting at point `starts[i]`.
fn block_sinks<'a>(words: &'a mut [u64], starts: &[usize]) -> Vec<Sink<'a>> {
    let Some(&first) = starts.first() else {
        return Vec::new();
    };
    let mut rest = &mut words[first / 64..];
    let mut out = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let mine = match starts.get(i + 1) {
            Some(&next) => next / 64 - start / 64,
            None => rest.len(),
        };
        let (w, r) = std::mem::take(&mut rest).split_at_mut(mine);
        rest = r;
        out.push(Sink {
            words: w,
            base: start / 64 * 64,
            pos: start,
            carry: 0,
        });
    }
    out
}

/// Where one block writes its tail entries of a query: its own stretch of the query's tail.
struct TailSink<'a> {
    points: &'a mut [u32],
    scalars: &'a mut [blst_scalar],
    /// Entries written.
    n: usize,
}

/// Cuts a query's tail buffers into one [`TailSink`] per block, block `i` starting at entry
/// `starts[i]` and the last ending at `end`.
fn tail_sinks<'a>(
    points: &'a mut [u32],
    scalars: &'a mut [blst_scalar],
    starts: &[usize],
    end: usize,
) -> Vec<TailSink<'a>> {
    let Some(&first) = starts.first() else {
        return Vec::new();
    };
    let (mut points, mut scalars) = (&mut points[first..end], &mut scalars[first..end]);
    let mut out = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let len = starts.get(i + 1).unwrap_or(&end) - start;
        let (p, rest_p) = std::mem::take(&mut points).split_at_mut(len);
        let (s, rest_s) = std::mem::take(&mut scalars).split_at_mut(len);
        (points, scalars) = (rest_p, rest_s);
        out.push(TailSink {
            points: p,
            scalars: s,
            n: 0,
        });
    }
    out
}

/// What one block found for each of `K` queries (its bitmap bits and tail entries are in its
/// sinks).
struct BlockOut<const K: usize> {
    carry: [u64; K],
    ones: [usize; K],
    zeros: [usize; K],
}

/// The variables of one word (up to 64) by value: bit j of `.0` says variable j is 1, of `.1`
/// that it is neither 0 nor 1.
fn word_classes(vars: &[Scalar]) -> (u64, u64) {
    let one = *scalar_limbs(&Scalar::ONE);
    let (mut ones, mut others) = (0u64, 0u64);
    for (j, s) in vars.iter().enumerate() {
        let limbs = scalar_limbs(s);
        let is_one = *limbs == one;
        ones |= (is_one as u64) << j;
        others |= ((!is_one && *limbs != [0; 4]) as u64) << j;
    }
    (ones, others)
}

/// The variables of each query one word selects (all its valid ones without a density).
fn word_selection<const K: usize>(
    densities: &[Option<&Density>; K],
    word: usize,
    len: usize,
) -> [u64; K] {
    let valid = u64::MAX >> (64 - len);
    std::array::from_fn(|k| densities[k].map_or(valid, |d| d.words[word] & valid))
}

/// One block's points and tail entries per query: the counting pass before [`classify_block`].
fn count_block<const K: usize>(
    chunk: &[Scalar],
    first_var: usize,
    densities: &[Option<&Density>; K],
) -> ([usize; K], [usize; K]) {
    let (mut points, mut tails) = ([0; K], [0; K]);
    for (wi, vars) in chunk.chunks(64).enumerate() {
        let (_, others) = word_classes(vars);
        let selected = word_selection(densities, first_var / 64 + wi, vars.len());
        for k in 0..K {
            points[k] += selected[k].count_ones() as usize;
            tails[k] += (others & selected[k]).count_ones() as usize;
        }
    }
    (points, tails)
}

fn classify_block<const K: usize>(
    chunk: &[Scalar],
    first_var: usize,
    densities: &[Option<&Density>; K],
    sinks: &mut [Sink; K],
    tails: &mut [TailSink; K],
) -> BlockOut<K> {
    let mut out = BlockOut {
        carry: [0; K],
        ones: [0; K],
        zeros: [0; K],
    };
    let mut canonical: [blst_scalar; 64] = std::array::from_fn(|_| blst_scalar::default());
    for (wi, vars) in chunk.chunks(64).enumerate() {
        let (ones, others) = word_classes(vars);
        let selected = word_selection(densities, first_var / 64 + wi, vars.len());
        let mut need = others & selected.iter().fold(0, |acc, s| acc | s);
        while need != 0 {
            let j = need.trailing_zeros() as usize;
            // SAFETY: both are plain 32-byte values.
            unsafe { blst_scalar_from_fr(&mut canonical[j], (&vars[j] as *const Scalar).cast()) };
            need &= need - 1;
        }
        for (k, &sel) in selected.iter().enumerate() {
            let first_point = sinks[k].pos;
            let packed = compress(ones & sel, sel);
            sinks[k].put(packed, sel.count_ones());
            out.ones[k] += packed.count_ones() as usize;
            out.zeros[k] += (sel & !ones & !others).count_ones() as usize;
            let mut tail = others & sel;
            let t = &mut tails[k];
            while tail != 0 {
                let j = tail.trailing_zeros();
                let point = first_point + (sel & ((1u64 << j) - 1)).count_ones() as usize;
                t.points[t.n] = point as u32;
                t.scalars[t.n] = canonical[j as usize].clone();
                t.n += 1;
                tail &= tail - 1;
            }
        }
    }
    for (c, s) in out.carry.iter_mut().zip(sinks.iter()) {
        *c = s.carry;
    }
    for t in tails.iter() {
        assert_eq!(
            t.n,
            t.points.len(),
            "the counting pass and the split disagree"
        );
    }
    out
}

/// The bits of `x` at the set positions of `mask`, packed to the low end (x86's PEXT).
fn compress(x: u64, mask: u64) -> u64 {
    if mask == u64::MAX {
        return x;
    }
    let mut out = 0;
    let mut rest = x & mask;
    while rest != 0 {
        let b = rest.trailing_zeros();
        out |= 1u64 << (mask & ((1u64 << b) - 1)).count_ones();
        rest &= rest - 1;
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

    fn random_scalars(rng: &mut impl Rng, n: usize, p_other: f64) -> Vec<Scalar> {
        (0..n)
            .map(|_| {
                if rng.gen_bool(p_other) {
                    Scalar::random(&mut *rng)
                } else if rng.gen_bool(0.5) {
                    Scalar::ONE
                } else {
                    Scalar::ZERO
                }
            })
            .collect()
    }

    /// The split by a plain filter: the ones as an index list, the tail, the zeros.
    #[derive(Default)]
    struct Plain {
        ones: Vec<u32>,
        tail_points: Vec<u32>,
        tail_scalars: Vec<blst_scalar>,
        zeros: usize,
    }

    fn plain_filter(
        scalars: &[Scalar],
        selected: impl Fn(usize) -> bool,
        first_point: u32,
        into: &mut Plain,
    ) {
        let mut point = first_point;
        for (j, s) in scalars.iter().enumerate() {
            if !selected(j) {
                continue;
            }
            if bool::from(s.is_zero()) {
                into.zeros += 1;
            } else if *s == Scalar::ONE {
                into.ones.push(point);
            } else {
                into.tail_points.push(point);
                into.tail_scalars.push(blst_scalar { b: s.to_bytes_le() });
            }
            point += 1;
        }
    }

    /// Checks `split` against the plain filter's ones list and tail, over `len` points.
    fn check(split: &QuerySplit, expect: Plain, len: usize, what: &str) {
        let (ones, rest) = (expect.ones.clone(), expect);
        assert_eq!(split.ones.len, len, "{what}: len");
        assert_eq!(split.ones.words.len(), len.div_ceil(64), "{what}: words");
        assert_eq!(split.ones.count, ones.len(), "{what}: count");
        assert_eq!(split.ones.to_indices(), ones, "{what}: ones");
        assert_eq!(
            split.ones,
            OnesBitmap::from_indices(len, &ones),
            "{what}: bitmap"
        );
        for p in [0, len / 2, len.saturating_sub(1), len, len + 1] {
            assert_eq!(
                split.ones.is_set(p),
                ones.contains(&(p as u32)),
                "{what}: bit {p}"
            );
        }
        assert_eq!(
            split.tail_points[..],
            rest.tail_points,
            "{what}: tail points"
        );
        assert_eq!(
            split.tail_scalars[..],
            rest.tail_scalars,
            "{what}: tail scalars"
        );
        assert_eq!(split.zeros, rest.zeros, "{what}: zeros");
    }

    #[test]
    fn split_matches_a_plain_filter() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let sizes = [
            0usize,
            1,
            63,
            64,
            65,
            BLOCK - 1,
            BLOCK,
            BLOCK + 1,
            3 * BLOCK + 17,
        ];
        for n in sizes {
            for (p_sel, p_other) in [(0.7, 0.33), (1.0, 0.1), (0.05, 0.5), (0.0, 0.3)] {
                let scalars = random_scalars(&mut rng, n, p_other);
                let bits: Vec<bool> = (0..n).map(|_| rng.gen_bool(p_sel)).collect();
                let mut words = density(&bits);
                // Bits past the end of the density are not variables.
                if n % 64 != 0 {
                    *words.last_mut().unwrap() |= !0 << (n % 64);
                }
                let d = Density::new(&words, n);
                for first_point in [0usize, 5, 64, 100, 128, 1000] {
                    let what = format!("n = {n}, density {p_sel}, first point {first_point}");
                    let split = split_query(&scalars, Some(&d), first_point);
                    let mut expect = Default::default();
                    plain_filter(&scalars, |j| bits[j], first_point as u32, &mut expect);
                    check(&split, expect, first_point + d.popcount, &what);
                    assert_eq!(split.len(), d.popcount);

                    let split = split_query(&scalars, None, first_point);
                    let mut expect = Default::default();
                    plain_filter(&scalars, |_| true, first_point as u32, &mut expect);
                    check(&split, expect, first_point + n, &format!("{what}, all"));
                }
            }
        }
    }

    #[test]
    fn circuit_split_matches_a_plain_filter() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        for (inputs, aux) in [
            (1usize, 0usize),
            (1, 1),
            (3, 64),
            (64, 63),
            (70, BLOCK + 1),
            (328, 2 * BLOCK + 100),
        ] {
            let inp = random_scalars(&mut rng, inputs, 0.5);
            let aux_s = random_scalars(&mut rng, aux, 0.2);
            let a_bits: Vec<bool> = (0..aux).map(|_| rng.gen_bool(0.97)).collect();
            let b_bits: Vec<bool> = (0..aux).map(|_| rng.gen_bool(0.25)).collect();
            let bi_bits: Vec<bool> = (0..inputs).map(|_| rng.gen_bool(0.6)).collect();
            let (aw, bw, biw) = (density(&a_bits), density(&b_bits), density(&bi_bits));
            let w = Witness {
                a: &[],
                b: &[],
                c: &[],
                inputs: &inp,
                aux: &aux_s,
                a_aux_density: Density::new(&aw, aux),
                b_inp_density: Density::new(&biw, inputs),
                b_aux_density: Density::new(&bw, aux),
            };
            let split = split_circuit(&w);
            let what = format!("{inputs} inputs, {aux} aux");

            let mut a = Default::default();
            plain_filter(&inp, |_| true, 0, &mut a);
            plain_filter(&aux_s, |j| a_bits[j], inputs as u32, &mut a);
            let a_len = inputs + w.a_aux_density.popcount;
            check(&split.a, a, a_len, &format!("{what}: A"));

            let mut b = Default::default();
            let b_inp = w.b_inp_density.popcount;
            plain_filter(&inp, |j| bi_bits[j], 0, &mut b);
            plain_filter(&aux_s, |j| b_bits[j], b_inp as u32, &mut b);
            let b_len = b_inp + w.b_aux_density.popcount;
            check(&split.b, b, b_len, &format!("{what}: B"));

            let mut l = Default::default();
            plain_filter(&aux_s, |_| true, 0, &mut l);
            check(&split.l, l, aux, &format!("{what}: L"));
        }
    }

    #[test]
    fn shape_line_counts_each_kind_of_scalar() {
        // 4 inputs (ONE, 0, 1, 5), 8 aux: 0 0 1 1 1 7 9 0; A over aux 0..4, B over none.
        let s = |v: u64| Scalar::from(v);
        let inp = [s(1), s(0), s(1), s(5)];
        let aux = [s(0), s(0), s(1), s(1), s(1), s(7), s(9), s(0)];
        let (aw, bw, biw) = ([0b1111u64], [0u64], [0u64]);
        let w = Witness {
            a: &inp[..3],
            b: &[],
            c: &[],
            inputs: &inp,
            aux: &aux,
            a_aux_density: Density::new(&aw, 8),
            b_inp_density: Density::new(&biw, 4),
            b_aux_density: Density::new(&bw, 8),
        };
        let line = split_circuit(&w).shape_line(&w);
        for field in [
            "domain=2^2",
            "abc=3",
            "inputs=4",
            "aux=8",
            "a_aux_density=50.0%",
            "b_aux_density=0.0%",
            // L: 3 zeros, 3 ones, 2 others of 8.
            "l_points=8 l_ones=37.5% l_zeros=37.5% l_tail=25.0%",
            // A: inputs 1 0 1 5, then aux 0 0 1 1: 4 ones, 3 zeros, 1 other of 8.
            "a_points=8 a_ones=50.0% a_zeros=37.5% a_tail=12.5%",
            "b_points=0 b_ones=0.0% b_zeros=0.0% b_tail=0.0%",
        ] {
            assert!(line.contains(field), "{field:?} not in {line:?}");
        }
    }

    #[test]
    fn bitmap_helpers() {
        let b = OnesBitmap::from_indices(130, &[0, 63, 64, 129, 64]);
        assert_eq!(b.count, 4);
        assert_eq!(b.words.len(), 3);
        assert_eq!(b.to_indices(), vec![0, 63, 64, 129]);
        assert!(b.is_set(63) && b.is_set(129) && !b.is_set(1) && !b.is_set(130));
        assert_eq!(OnesBitmap::zeros(0), OnesBitmap::default());
        assert_eq!(OnesBitmap::zeros(65).iter_ones().count(), 0);
        for mask in [0u64, 1, u64::MAX, 0xF0F0_0000_FFFF_0001, 1 << 63] {
            for x in [0u64, u64::MAX, 0x1234_5678_9ABC_DEF0] {
                let mut expect = 0u64;
                let mut k = 0;
                for b in 0..64 {
                    if (mask >> b) & 1 == 1 {
                        expect |= ((x >> b) & 1) << k;
                        k += 1;
                    }
                }
                assert_eq!(compress(x, mask), expect, "x {x:#x} mask {mask:#x}");
            }
        }
    }
}

/// Timing of `split_circuit` on a PoRep-shaped witness (328 inputs, a_aux density 99.7%, b_aux
/// 25.4%, 8% of aux values neither 0 nor 1). Run with
/// `cargo test --release --features bellpepper --lib split_circuit_timing -- --ignored --nocapture`.
#[cfg(test)]
mod timing {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::time::Instant;

    fn bits(rng: &mut impl Rng, n: usize, p: f64) -> Vec<u64> {
        let mut w = vec![0u64; n.div_ceil(64)];
        for i in 0..n {
            if rng.gen_bool(p) {
                w[i / 64] |= 1 << (i % 64);
            }
        }
        w
    }

    /// The same split as `split_circuit`, with one pass over `aux` per query.
    fn split_circuit_three_passes(w: &Witness) -> CircuitSplit {
        let ((a, b), l) = rayon::join(
            || {
                rayon::join(
                    || {
                        let [a] = split_queries(w.inputs, [None], [QuerySplit::default()]);
                        let [a] = split_queries(w.aux, [Some(&w.a_aux_density)], [a]);
                        a
                    },
                    || {
                        let [b] = split_queries(
                            w.inputs,
                            [Some(&w.b_inp_density)],
                            [QuerySplit::default()],
                        );
                        let [b] = split_queries(w.aux, [Some(&w.b_aux_density)], [b]);
                        b
                    },
                )
            },
            || split_query(w.aux, None, 0),
        );
        CircuitSplit { a, b, l }
    }

    fn time(f: impl Fn() -> CircuitSplit) -> (f64, f64) {
        let mut times: Vec<f64> = (0..7)
            .map(|_| {
                let t = Instant::now();
                let s = f();
                let el = t.elapsed().as_secs_f64() * 1e3;
                drop(s);
                el
            })
            .collect();
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (times[0], times[times.len() / 2])
    }

    #[test]
    #[ignore]
    fn split_circuit_timing() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let inputs: Vec<Scalar> = (0..328).map(|_| Scalar::random(&mut rng)).collect();
        // PoRep's shape (8% of aux values neither 0 nor 1), then PoSt's (99%).
        for (shape, other, a_density, b_density, log) in [
            ("porep", 0.08, 0.997, 0.254, 20u32),
            ("porep", 0.08, 0.997, 0.254, 21),
            ("porep", 0.08, 0.997, 0.254, 22),
            ("post", 0.99, 0.758, 0.724, 20),
            ("post", 0.99, 0.758, 0.724, 22),
        ] {
            let n = 1usize << log;
            let aux: Vec<Scalar> = (0..n)
                .map(|_| {
                    let x: f64 = rng.gen();
                    if x < other {
                        Scalar::random(&mut rng)
                    } else if x < (1.0 + other) / 2.0 {
                        Scalar::ZERO
                    } else {
                        Scalar::ONE
                    }
                })
                .collect();
            let a_words = bits(&mut rng, n, a_density);
            let b_words = bits(&mut rng, n, b_density);
            let bi_words = bits(&mut rng, inputs.len(), 0.5);
            let w = Witness {
                a: &[],
                b: &[],
                c: &[],
                inputs: &inputs,
                aux: &aux,
                a_aux_density: Density::new(&a_words, n),
                b_inp_density: Density::new(&bi_words, inputs.len()),
                b_aux_density: Density::new(&b_words, n),
            };
            let fused = split_circuit(&w);
            let three = split_circuit_three_passes(&w);
            assert_eq!(fused.a, three.a);
            assert_eq!(fused.b, three.b);
            assert_eq!(fused.l, three.l);
            drop((fused, three));
            let (t1, m1) = time(|| split_circuit_three_passes(&w));
            let (t3, m3) = time(|| split_circuit(&w));
            println!(
                "split {shape} 2^{log}: three passes min {t1:.2} median {m1:.2} ms; one pass min {t3:.2} median {m3:.2} ms ({} threads)",
                rayon::current_num_threads()
            );
        }
    }

    /// RSS of the process in MiB, after glibc gives back what it can.
    fn rss_mib() -> f64 {
        // SAFETY: malloc_trim only releases free memory.
        unsafe { libc::malloc_trim(0) };
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }

    /// Two threads splitting circuits of mixed sizes at once, as two workers do: the split's
    /// memory must go back after each (glibc's arenas once kept ~100 MiB of it here, ~170 MiB
    /// on the H200 soak). Alone (it reads the process's RSS):
    /// `RAYON_NUM_THREADS=16 cargo test --release --features bellpepper --lib split_memory --
    /// --ignored --nocapture` (16 threads: as many arenas as a GPU host).
    #[test]
    #[ignore]
    fn split_memory_goes_back_after_each_circuit() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        let inputs: Vec<Scalar> = (0..328).map(|_| Scalar::random(&mut rng)).collect();
        // Per size: aux values, A and B densities over aux, B density over the inputs.
        type Parts = (Vec<Scalar>, Vec<u64>, Vec<u64>, Vec<u64>);
        let witnesses: Vec<Parts> = [16u32, 18, 20, 22]
            .iter()
            .map(|&log| {
                let n = 1usize << log;
                let aux = (0..n)
                    .map(|_| match rng.gen::<f64>() {
                        x if x < 0.08 => Scalar::random(&mut rng),
                        x if x < 0.5 => Scalar::ZERO,
                        _ => Scalar::ONE,
                    })
                    .collect();
                let (a, b) = (bits(&mut rng, n, 0.997), bits(&mut rng, n, 0.254));
                (aux, a, b, bits(&mut rng, inputs.len(), 0.5))
            })
            .collect();
        let run = |rounds: usize| {
            std::thread::scope(|scope| {
                for t in 0..2 {
                    let (witnesses, inputs) = (&witnesses, &inputs);
                    scope.spawn(move || {
                        for r in 0..rounds {
                            let (aux, a, b, bi) = &witnesses[(r * 7 + t * 3) % witnesses.len()];
                            let w = Witness {
                                a: &[],
                                b: &[],
                                c: &[],
                                inputs,
                                aux,
                                a_aux_density: Density::new(a, aux.len()),
                                b_inp_density: Density::new(bi, inputs.len()),
                                b_aux_density: Density::new(b, aux.len()),
                            };
                            drop(split_circuit(&w));
                        }
                    });
                }
            })
        };
        run(8);
        let before = rss_mib();
        let t = Instant::now();
        run(100);
        let middle = rss_mib();
        run(100);
        let after = rss_mib();
        println!(
            "split RSS: {before:.1} MiB, then {:+.1} and {:+.1} MiB over 200 circuits each ({} \
             threads, {:.1} ms per circuit)",
            middle - before,
            after - middle,
            rayon::current_num_threads(),
            t.elapsed().as_secs_f64() * 1e3 / 400.0
        );
        // The last buffers of 2^22 are ~15 MiB; the arenas once kept ~100 MiB here.
        assert!(
            middle - before < 16.0 && after - middle < 16.0,
            "RSS grew by {:.1} + {:.1} MiB",
            middle - before,
            after - middle
        );
    }
}
