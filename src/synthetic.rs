//! A synthetic circuit shaped like a Filecoin PoRep partition, for the examples and benches:
//! few public inputs, aux variables filling almost the whole domain, A density near 100%,
//! B density near 25%, and a settable share of aux values that are neither 0 nor 1.
//!
//! Each unit of four aux variables `(b1, b2, b3, x)` has four constraints:
//! `b1 * b1 = b1` (b1 in B), `b2 * 1 = b2`, `b3 * 1 = b3`, `x * 1 = x`. Bits are 0 or 1 at
//! random; `x` is a random field element with the probability that gives the requested share
//! of non-0/1 values, else a bit.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

    /// Units of four constraints: about 97% of the domain, as in a 32 GiB PoRep partition.
    pub fn units(&self) -> usize {
        let n = 1usize << self.log_n;
        // Every public input adds a copy constraint and an input constraint, ONE adds one more.
        let room = n.saturating_sub(2 * self.public_inputs + 1);
        ((n as f64 * 0.97) as usize / 4).min(room / 4).max(1)
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
        // x is dense with probability p so that x's quarter of aux gives `dense_share` overall.
        let p = (self.dense_share * 4.0).clamp(0.0, 1.0);
        for u in 0..self.units() {
            let mut value = |dense: bool| -> Option<Scalar> {
                self.seed.map(|_| {
                    if dense && rng.gen_bool(p) {
                        Scalar::random(&mut rng)
                    } else if rng.gen_bool(0.5) {
                        Scalar::ONE
                    } else {
                        Scalar::ZERO
                    }
                })
            };
            let (v1, v2, v3, vx) = (value(false), value(false), value(false), value(true));
            let get = |v: Option<Scalar>| move || v.ok_or(SynthesisError::AssignmentMissing);
            let b1 = cs.alloc(|| format!("b1 {u}"), get(v1))?;
            let b2 = cs.alloc(|| format!("b2 {u}"), get(v2))?;
            let b3 = cs.alloc(|| format!("b3 {u}"), get(v3))?;
            let x = cs.alloc(|| format!("x {u}"), get(vx))?;
            cs.enforce(
                || format!("b1 boolean {u}"),
                |lc| lc + b1,
                |lc| lc + b1,
                |lc| lc + b1,
            );
            cs.enforce(
                || format!("b2 copy {u}"),
                |lc| lc + b2,
                |lc| lc + CS::one(),
                |lc| lc + b2,
            );
            cs.enforce(
                || format!("b3 copy {u}"),
                |lc| lc + b3,
                |lc| lc + CS::one(),
                |lc| lc + b3,
            );
            cs.enforce(
                || format!("x copy {u}"),
                |lc| lc + x,
                |lc| lc + CS::one(),
                |lc| lc + x,
            );
        }
        Ok(())
    }
}
