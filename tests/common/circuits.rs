//! Reference circuits shared by our tests and by `compat/bellperson-check` (which includes this
//! file by its path): a MiMC-style chain, bellperson's SHA-256 gadget and a circuit with many
//! public inputs.
#![allow(dead_code)]

use bellpepper_core::{
    boolean::Boolean, num::AllocatedNum, Circuit, ConstraintSystem, SynthesisError,
};
use blstrs::Scalar;
use ff::Field;

/// MiMC-style chain: `x_{i+1} = (x_i + k_i)^3`, the last value public (one public input).
#[derive(Clone)]
pub struct MimcChain {
    pub start: Option<Scalar>,
    pub rounds: usize,
}

impl MimcChain {
    fn constant(i: usize) -> Scalar {
        Scalar::from((i as u64) * 7 + 3)
    }

    pub fn output(&self) -> Scalar {
        let mut x = self.start.unwrap();
        for i in 0..self.rounds {
            let t = x + Self::constant(i);
            x = t.square() * t;
        }
        x
    }
}

impl Circuit<Scalar> for MimcChain {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut x_val = self.start;
        let mut x = cs.alloc(|| "x0", || x_val.ok_or(SynthesisError::AssignmentMissing))?;
        for i in 0..self.rounds {
            let k = Self::constant(i);
            let t_val = x_val.map(|x| x + k);
            let sq_val = t_val.map(|t| t.square());
            let sq = cs.alloc(
                || format!("sq {i}"),
                || sq_val.ok_or(SynthesisError::AssignmentMissing),
            )?;
            cs.enforce(
                || format!("sq {i}"),
                |lc| lc + x + (k, CS::one()),
                |lc| lc + x + (k, CS::one()),
                |lc| lc + sq,
            );
            let cube_val = sq_val.zip(t_val).map(|(s, t)| s * t);
            let last = i + 1 == self.rounds;
            let cube = if last {
                cs.alloc_input(
                    || "out",
                    || cube_val.ok_or(SynthesisError::AssignmentMissing),
                )?
            } else {
                cs.alloc(
                    || format!("cube {i}"),
                    || cube_val.ok_or(SynthesisError::AssignmentMissing),
                )?
            };
            cs.enforce(
                || format!("cube {i}"),
                |lc| lc + sq,
                |lc| lc + x + (k, CS::one()),
                |lc| lc + cube,
            );
            x = cube;
            x_val = cube_val;
        }
        Ok(())
    }
}

/// bellperson's SHA-256 gadget on a short message; the digest packed into public inputs.
#[derive(Clone)]
pub struct Sha256Circuit {
    pub message: Option<Vec<u8>>,
    pub len: usize,
}

impl Sha256Circuit {
    pub fn digest_inputs(&self) -> Vec<Scalar> {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(self.message.as_ref().unwrap());
        let bits: Vec<bool> = digest
            .iter()
            .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1 == 1))
            .collect();
        bellperson::gadgets::multipack::compute_multipacking(&bits)
    }
}

impl Circuit<Scalar> for Sha256Circuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut bits = Vec::with_capacity(self.len * 8);
        for i in 0..self.len * 8 {
            let v = self
                .message
                .as_ref()
                .map(|m| (m[i / 8] >> (7 - i % 8)) & 1 == 1);
            bits.push(Boolean::from(
                bellpepper_core::boolean::AllocatedBit::alloc(
                    cs.namespace(|| format!("bit {i}")),
                    v,
                )?,
            ));
        }
        let digest = bellperson::gadgets::sha256::sha256(cs.namespace(|| "sha256"), &bits)?;
        bellperson::gadgets::multipack::pack_into_inputs(cs.namespace(|| "pack"), &digest)
    }
}

/// Many public inputs: `x_i * x_i = y_i` with every `y_i` public.
#[derive(Clone)]
pub struct ManyInputs {
    pub xs: Option<Vec<Scalar>>,
    pub count: usize,
}

impl ManyInputs {
    pub fn outputs(&self) -> Vec<Scalar> {
        self.xs
            .as_ref()
            .unwrap()
            .iter()
            .map(|x| x.square())
            .collect()
    }
}

impl Circuit<Scalar> for ManyInputs {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        for i in 0..self.count {
            let xv = self.xs.as_ref().map(|v| v[i]);
            let x = AllocatedNum::alloc(cs.namespace(|| format!("x {i}")), || {
                xv.ok_or(SynthesisError::AssignmentMissing)
            })?;
            let y = x.square(cs.namespace(|| format!("sq {i}")))?;
            y.inputize(cs.namespace(|| format!("y {i}")))?;
        }
        Ok(())
    }
}
