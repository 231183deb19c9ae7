//! A synthetic circuit shaped like a Filecoin PoRep partition, for the examples and benches:
//! few public inputs, aux variables filling almost the whole domain, A density near 100%,
//! B density near 25%, and a settable share of aux values that are neither 0 nor 1.
//!
//! Each unit of eight aux variables `(b1..b6, x, y)` has eight constraints: `b1 * b1 = b1`
//! (b1 in A and B), `bi * 1 = bi` for b2..b6 (A only), `x * x = y` (x in A and B) and
//! `y * 1 = y`. So A covers every aux variable and B a quarter of them, with dense values in
//! both. Bits are 0 or 1 at random; `x` is a random field element with the probability that
//! gives the requested share of non-0/1 values (`y = x^2` follows), else a bit.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Aux variables (and constraints) per unit.
const UNIT: usize = 8;

/// The shape and values of a synthetic PoRep-like circuit.
#[derive(Clone, Debug)]
pub struct PorepShapedCircuit {
    /// Constraints fill a domain of `2^log_n` (minus room for the input constraints).
    pub log_n: u32,
    /// Public inputs besides ONE.
    pub public_inputs: usize,
    /// Share of aux values that are neither 0 nor 1 (PoRep: about 0.08).
    pub dense_share: f64,
    /// Seed of the values; `None` synthesizes without values (parameter generation).
    pub seed: Option<u64>,
}

impl PorepShapedCircuit {
    /// A circuit for a domain of `2^log_n` with PoRep's shape, values from `seed`.
    pub fn new(log_n: u32, seed: Option<u64>) -> Self {
        PorepShapedCircuit {
            log_n,
            public_inputs: 2,
            dense_share: 0.08,
            seed,
        }
    }

    /// Units of eight constraints: about 97% of the domain, as in a 32 GiB PoRep partition.
    pub fn units(&self) -> usize {
        let n = 1usize << self.log_n;
        // Every public input adds a copy constraint and an input constraint, ONE adds one more.
        let room = n.saturating_sub(2 * self.public_inputs + 1);
        ((n as f64 * 0.97) as usize / UNIT).min(room / UNIT).max(1)
    }

    /// The public inputs (without ONE) this circuit's values expose.
    pub fn public_values(&self) -> Vec<Scalar> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0) ^ 0x5eed);
        (0..self.public_inputs)
            .map(|_| Scalar::random(&mut rng))
            .collect()
    }
}

impl Circuit<Scalar> for PorepShapedCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let publics = self.public_values();
        for (i, v) in publics.iter().enumerate() {
            let known = self.seed.map(|_| *v);
            let input = cs.alloc_input(
                || format!("input {i}"),
                || known.ok_or(SynthesisError::AssignmentMissing),
            )?;
            let copy = cs.alloc(
                || format!("input copy {i}"),
                || known.ok_or(SynthesisError::AssignmentMissing),
            )?;
            cs.enforce(
                || format!("input {i} equals copy"),
                |lc| lc + input,
                |lc| lc + CS::one(),
                |lc| lc + copy,
            );
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
        // x and y are dense with probability p, so that their quarter of aux gives
        // `dense_share` overall.
        let p = (self.dense_share * UNIT as f64 / 2.0).clamp(0.0, 1.0);
        let missing = || SynthesisError::AssignmentMissing;
        for u in 0..self.units() {
            let mut bit = || {
                self.seed.map(|_| {
                    if rng.gen_bool(0.5) {
                        Scalar::ONE
                    } else {
                        Scalar::ZERO
                    }
                })
            };
            let bits: Vec<Option<Scalar>> = (0..6).map(|_| bit()).collect();
            let x_val = self.seed.map(|_| {
                if rng.gen_bool(p) {
                    Scalar::random(&mut rng)
                } else if rng.gen_bool(0.5) {
                    Scalar::ONE
                } else {
                    Scalar::ZERO
                }
            });
            let y_val = x_val.map(|x| x.square());
            let b: Vec<_> = bits
                .iter()
                .enumerate()
                .map(|(i, v)| cs.alloc(|| format!("b{} {u}", i + 1), || v.ok_or_else(missing)))
                .collect::<Result<_, _>>()?;
            let x = cs.alloc(|| format!("x {u}"), || x_val.ok_or_else(missing))?;
            let y = cs.alloc(|| format!("y {u}"), || y_val.ok_or_else(missing))?;
            cs.enforce(
                || format!("b1 boolean {u}"),
                |lc| lc + b[0],
                |lc| lc + b[0],
                |lc| lc + b[0],
            );
            for (i, &bi) in b.iter().enumerate().skip(1) {
                cs.enforce(
                    || format!("b{} copy {u}", i + 1),
                    |lc| lc + bi,
                    |lc| lc + CS::one(),
                    |lc| lc + bi,
                );
            }
            cs.enforce(
                || format!("x squared {u}"),
                |lc| lc + x,
                |lc| lc + x,
                |lc| lc + y,
            );
            cs.enforce(
                || format!("y copy {u}"),
                |lc| lc + y,
                |lc| lc + CS::one(),
                |lc| lc + y,
            );
        }
        Ok(())
    }
}
