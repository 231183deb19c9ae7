//! Synthetic partitions for benchmarks: the witness and SRS of one 32 GiB PoRep C2 partition,
//! scaled to a domain of `2^K`, built directly (no circuit synthesis, no trusted setup) and fast
//! enough for `K = 26, 27` on a GPU machine.
//!
//! The shape follows a real partition (docs/design.md, "What a proof computes"): 328 public
//! inputs (ONE first), aux variables filling ~97% of the domain, `a_aux` density 99.7%, one input
//! (ONE) in B, `b_aux` density 25.4%, and a settable share of aux values that are 0 or 1 (92% by
//! default, half of each; the rest random field elements). `a`, `b`, `c` are random: the circuit
//! is not satisfied, which the prover neither checks nor cares about.
//!
//! ```ignore
//! let partition = SyntheticPartition::generate(&PartitionShape::porep(20));
//! let srs = synthetic_srs(&partition);
//! let proofs = groth16_c2::prove(&srs, &[partition.witness()], &[r], &[s])?;
//! ```
//!
//! **The SRS is not a trusted setup**: its points are unrelated multiples of the generators, so
//! proofs made with it do not verify. Benchmarks compare proof bytes between backends instead.
//!
//! Everything is deterministic. The structure (densities) and the SRS depend only on the shape,
//! the values (inputs, aux, `a`, `b`, `c`) also on [`PartitionShape::seed`]: partitions that
//! differ only in their seed share one SRS, as the ten partitions of a real proof do. Work is
//! split into chunks that each draw from their own ChaCha stream keyed by (seed, stream, chunk),
//! so rayon may run them in any order.

mod params;
mod points;

use std::mem::MaybeUninit;

use blst::blst_fr;
use blstrs::Scalar;
use ff::Field;
use groth16_c2::testing::count_ones;
use groth16_c2::{Assignment, Density, Witness};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

pub use params::write_params;
pub use points::synthetic_srs;

/// Bump when the generated structure, values or points change, so that params files written by
/// an older version (benches cache them by this tag) are not used with newer witnesses.
pub const GENERATOR_VERSION: u32 = 1;

/// Values per parallel task: big enough to amortise scheduling, small enough to balance cores.
/// A multiple of 64 so that density chunks cover whole words.
const VALUES_PER_CHUNK: usize = 1 << 14;

/// Seed of the structure (densities): fixed, so that every seed has the same circuit.
const STRUCTURE_SEED: u64 = 0x5eed_c201;

/// Stream ids: each kind of data draws from its own streams.
mod stream {
    pub const A_AUX_DENSITY: u64 = 1;
    pub const B_AUX_DENSITY: u64 = 2;
    pub const INPUTS: u64 = 3;
    pub const AUX: u64 = 4;
    pub const A: u64 = 5;
    pub const B: u64 = 6;
    pub const C: u64 = 7;
}

/// The shape of a synthetic partition. [`PartitionShape::porep`] gives a 32 GiB PoRep one.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionShape {
    /// The domain is `2^log_n`; `h` has `2^log_n - 1` points.
    pub log_n: u32,
    /// Public inputs, the constant ONE included (PoRep: 328).
    pub inputs: usize,
    /// Aux variables as a share of the domain (PoRep: 0.97).
    pub aux_share: f64,
    /// Share of aux variables in A (PoRep: 0.997).
    pub a_aux_density: f64,
    /// Inputs in B: the first `b_inp_count` (PoRep: 1, the constant ONE).
    pub b_inp_count: usize,
    /// Share of aux variables in B (PoRep: 0.254).
    pub b_aux_density: f64,
    /// Share of aux values that are 0 or 1, half of each (PoRep: about 0.92).
    pub ones_share: f64,
    /// Seed of the values (not of the structure or the SRS).
    pub seed: u64,
}

impl PartitionShape {
    /// A 32 GiB PoRep partition's shape at `2^log_n`, seed 1.
    pub fn porep(log_n: u32) -> PartitionShape {
        PartitionShape {
            log_n,
            inputs: 328,
            aux_share: 0.97,
            a_aux_density: 0.997,
            b_inp_count: 1,
            b_aux_density: 0.254,
            ones_share: 0.92,
            seed: 1,
        }
    }

    /// A 32 GiB Window PoSt partition's shape at `2^log_n`, seed 1: 2349 sectors' comm_r and
    /// challenges as inputs (1 + 2349 * 11), and the proportions of the 2 KiB circuit as
    /// groth16-c2's shape log reads them (A and B aux densities 0.758 and 0.724, about 1% of aux
    /// values 0 or 1: Poseidon and SHA state, so nearly every point is in a tail MSM).
    pub fn window_post(log_n: u32) -> PartitionShape {
        PartitionShape {
            log_n,
            inputs: 1 + 2349 * 11,
            aux_share: 0.93,
            a_aux_density: 0.758,
            b_inp_count: 1,
            b_aux_density: 0.724,
            ones_share: 0.01,
            seed: 1,
        }
    }

    /// The domain size `2^log_n`.
    pub fn domain_size(&self) -> usize {
        1 << self.log_n
    }

    /// Aux variables: `aux_share` of the domain.
    pub fn aux_count(&self) -> usize {
        (self.domain_size() as f64 * self.aux_share).round() as usize
    }

    /// Constraints (`abc_size`): one per aux variable and per input, as in PoRep, kept inside
    /// `(2^(log_n - 1), 2^log_n]` so that the domain is exactly `2^log_n`.
    pub fn constraints(&self) -> usize {
        let n = self.domain_size();
        (self.aux_count() + self.inputs).clamp(n / 2 + 1, n)
    }

    /// Says what is wrong with the shape, if anything.
    pub fn check(&self) -> Result<(), String> {
        let share = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} is {v}, not a share in [0, 1]"))
            }
        };
        share("aux_share", self.aux_share)?;
        share("a_aux_density", self.a_aux_density)?;
        share("b_aux_density", self.b_aux_density)?;
        share("ones_share", self.ones_share)?;
        if !(1..=31).contains(&self.log_n) {
            return Err(format!("log_n is {}, not in 1..=31", self.log_n));
        }
        if self.inputs == 0 || self.b_inp_count > self.inputs {
            return Err(format!(
                "{} inputs with {} of them in B: need at least ONE, and no more in B than inputs",
                self.inputs, self.b_inp_count
            ));
        }
        if self.inputs >= self.domain_size() / 2 {
            return Err(format!(
                "{} inputs do not fit a domain of 2^{} with room for aux variables",
                self.inputs, self.log_n
            ));
        }
        Ok(())
    }
}

/// An owned density bitvector (LSB-first u64 words, bits past `bit_len` clear).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DensityWords {
    pub words: Vec<u64>,
    pub bit_len: usize,
    pub popcount: usize,
}

impl DensityWords {
    fn from_words(mut words: Vec<u64>, bit_len: usize) -> DensityWords {
        words.truncate(bit_len.div_ceil(64));
        if bit_len % 64 != 0 {
            if let Some(last) = words.last_mut() {
                *last &= (1u64 << (bit_len % 64)) - 1;
            }
        }
        let popcount = count_ones(&words, bit_len);
        DensityWords {
            words,
            bit_len,
            popcount,
        }
    }

    /// The first `count` of `bit_len` bits set.
    fn first(count: usize, bit_len: usize) -> DensityWords {
        let words = (0..bit_len.div_ceil(64))
            .map(|w| match count.saturating_sub(w * 64) {
                0 => 0,
                k if k >= 64 => u64::MAX,
                k => (1u64 << k) - 1,
            })
            .collect();
        DensityWords::from_words(words, bit_len)
    }

    /// Each of `bit_len` bits set with probability `p`, from the structure seed.
    fn random(p: f64, bit_len: usize, stream: u64) -> DensityWords {
        let chance = Chance::new(p);
        let words = par_collect(bit_len.div_ceil(64), VALUES_PER_CHUNK / 64, |chunk, _| {
            let mut rng = chunk_rng(STRUCTURE_SEED, stream, chunk);
            std::iter::repeat_with(move || {
                (0..64).fold(0u64, |w, bit| w | (chance.hit(&mut rng) as u64) << bit)
            })
        });
        DensityWords::from_words(words, bit_len)
    }

    pub fn view(&self) -> Density<'_> {
        Density {
            words: &self.words,
            bit_len: self.bit_len,
            popcount: self.popcount,
        }
    }
}

/// One partition's witness, owning everything an [`Assignment`] points to.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticPartition {
    pub shape: PartitionShape,
    /// `abc_size` = [`PartitionShape::constraints`] random values each.
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    /// Public inputs, ONE first.
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
    pub a_aux_density: DensityWords,
    pub b_inp_density: DensityWords,
    pub b_aux_density: DensityWords,
}

impl SyntheticPartition {
    /// Builds the partition in parallel. Panics if [`PartitionShape::check`] fails.
    pub fn generate(shape: &PartitionShape) -> SyntheticPartition {
        if let Err(e) = shape.check() {
            panic!("synthetic partition shape: {e}");
        }
        let (aux_len, abc_len, seed) = (shape.aux_count(), shape.constraints(), shape.seed);
        let random = |stream| {
            par_collect(abc_len, VALUES_PER_CHUNK, move |chunk, _| {
                let mut rng = chunk_rng(seed, stream, chunk);
                std::iter::repeat_with(move || random_scalar(&mut rng))
            })
        };
        let ones = Chance::new(shape.ones_share);
        SyntheticPartition {
            a: random(stream::A),
            b: random(stream::B),
            c: random(stream::C),
            inputs: inputs(shape.inputs, seed),
            aux: par_collect(aux_len, VALUES_PER_CHUNK, |chunk, _| {
                let mut rng = chunk_rng(seed, stream::AUX, chunk);
                std::iter::repeat_with(move || aux_value(&mut rng, ones))
            }),
            a_aux_density: DensityWords::random(
                shape.a_aux_density,
                aux_len,
                stream::A_AUX_DENSITY,
            ),
            b_inp_density: DensityWords::first(shape.b_inp_count, shape.inputs),
            b_aux_density: DensityWords::random(
                shape.b_aux_density,
                aux_len,
                stream::B_AUX_DENSITY,
            ),
            shape: shape.clone(),
        }
    }

    /// A borrowed view for the Rust API.
    pub fn witness(&self) -> Witness<'_> {
        Witness {
            a: &self.a,
            b: &self.b,
            c: &self.c,
            inputs: &self.inputs,
            aux: &self.aux,
            a_aux_density: self.a_aux_density.view(),
            b_inp_density: self.b_inp_density.view(),
            b_aux_density: self.b_aux_density.view(),
        }
    }

    /// The C-ABI struct pointing into this partition; valid while `self` is alive and unchanged.
    pub fn assignment(&self) -> Assignment {
        let d = |d: &DensityWords| (d.words.as_ptr(), d.bit_len, d.popcount);
        let (a_aux_density, a_aux_bit_len, a_aux_popcount) = d(&self.a_aux_density);
        let (b_inp_density, b_inp_bit_len, b_inp_popcount) = d(&self.b_inp_density);
        let (b_aux_density, b_aux_bit_len, b_aux_popcount) = d(&self.b_aux_density);
        Assignment {
            a_aux_density,
            a_aux_bit_len,
            a_aux_popcount,
            b_inp_density,
            b_inp_bit_len,
            b_inp_popcount,
            b_aux_density,
            b_aux_bit_len,
            b_aux_popcount,
            a: self.a.as_ptr(),
            b: self.b.as_ptr(),
            c: self.c.as_ptr(),
            abc_size: self.a.len(),
            inp_assignment_data: self.inputs.as_ptr(),
            inp_assignment_size: self.inputs.len(),
            aux_assignment_data: self.aux.as_ptr(),
            aux_assignment_size: self.aux.len(),
        }
    }

    /// The share of aux values that are neither 0 nor 1 (what the tail MSMs see).
    pub fn tail_share(&self) -> f64 {
        let tail = self
            .aux
            .par_iter()
            .filter(|v| **v != Scalar::ZERO && **v != Scalar::ONE)
            .count();
        tail as f64 / self.aux.len().max(1) as f64
    }
}

/// ONE, then random public inputs.
fn inputs(count: usize, seed: u64) -> Vec<Scalar> {
    let mut rng = chunk_rng(seed, stream::INPUTS, 0);
    std::iter::once(Scalar::ONE)
        .chain(std::iter::repeat_with(|| random_scalar(&mut rng)))
        .take(count)
        .collect()
}

/// 0 or 1 with probability `ones` (half each), else a random field element.
fn aux_value(rng: &mut ChaCha8Rng, ones: Chance) -> Scalar {
    if !ones.hit(rng) {
        random_scalar(rng)
    } else if rng.next_u32() & 1 == 1 {
        Scalar::ONE
    } else {
        Scalar::ZERO
    }
}

/// A random field element for a quarter of `Scalar::random`'s cost: four random limbs below
/// 2^254 (so below the modulus) taken as the Montgomery form. The value itself is that times
/// R^-1, spread over the whole field.
fn random_scalar(rng: &mut impl RngCore) -> Scalar {
    let mut l = [
        rng.next_u64(),
        rng.next_u64(),
        rng.next_u64(),
        rng.next_u64(),
    ];
    l[3] >>= 2;
    Scalar::from(blst_fr { l })
}

/// A coin that comes up with probability `p`, from one u32 draw.
#[derive(Clone, Copy, Debug)]
struct Chance(u64);

impl Chance {
    fn new(p: f64) -> Chance {
        Chance((p.clamp(0.0, 1.0) * (1u64 << 32) as f64) as u64)
    }

    fn hit(self, rng: &mut impl RngCore) -> bool {
        (rng.next_u32() as u64) < self.0
    }
}

/// The ChaCha stream of one chunk of one kind of data: chunks can be generated in any order,
/// in parallel, and still give the same values.
fn chunk_rng(seed: u64, stream: u64, chunk: usize) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&stream.to_le_bytes());
    key[16..24].copy_from_slice(&(chunk as u64).to_le_bytes());
    key[24..].copy_from_slice(b"c2-synth");
    ChaCha8Rng::from_seed(key)
}

/// A vector of `len` values built in parallel, `chunk_len` per task: `chunk_values(i, n)` yields
/// the `n` values of chunk `i`. Writes straight into the vector (no zeroing pass over gigabytes).
fn par_collect<T, I>(
    len: usize,
    chunk_len: usize,
    chunk_values: impl Fn(usize, usize) -> I + Sync,
) -> Vec<T>
where
    T: Send,
    I: Iterator<Item = T>,
{
    let mut out: Vec<T> = Vec::with_capacity(len);
    out.spare_capacity_mut()[..len]
        .par_chunks_mut(chunk_len)
        .enumerate()
        .for_each(|(chunk, slots)| {
            let mut values = chunk_values(chunk, slots.len());
            for slot in slots.iter_mut() {
                let v = values
                    .next()
                    .expect("a chunk yields a value for every slot");
                MaybeUninit::write(slot, v);
            }
        });
    // SAFETY: every slot in 0..len was written above (a chunk that runs short panics, and the
    // panic propagates out of `for_each` before this line).
    unsafe { out.set_len(len) };
    out
}

#[cfg(test)]
mod tests;
