//! Records a `bellpepper-core` circuit's witness exactly as bellperson 0.26's prover builds it
//! internally (`ProvingAssignment`): the input ONE first, one `x * 1 = 0`-style constraint per
//! input appended after synthesis, and density bits set for every variable that appears with a
//! non-zero coefficient in A (aux only) and B (inputs and aux). Rust hosts and tests use it to
//! prove any bellpepper circuit through this library.

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use blstrs::Scalar;
use ff::Field;

use crate::assignment::{Assignment, Density, Witness};

/// A growable density bitvector, LSB-first in u64 words (bitvec's raw layout).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DensityBits {
    words: Vec<u64>,
    len: usize,
    popcount: usize,
}

impl DensityBits {
    fn push_unset(&mut self) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
    }

    fn set(&mut self, i: usize) {
        let (w, b) = (i / 64, i % 64);
        if self.words[w] >> b & 1 == 0 {
            self.words[w] |= 1 << b;
            self.popcount += 1;
        }
    }

    fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// bellperson's `DensityTracker::extend`: input densities share the ONE bit.
    fn extend(&mut self, other: &DensityBits, is_input: bool) {
        if other.len == 0 {
            return;
        }
        if self.len == 0 {
            *self = other.clone();
            return;
        }
        let mut skip = 0;
        if is_input {
            if other.get(0) && !self.get(0) {
                self.set(0);
            }
            skip = 1;
        }
        for i in skip..other.len {
            self.push_unset();
            if other.get(i) {
                self.set(self.len - 1);
            }
        }
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn popcount(&self) -> usize {
        self.popcount
    }

    fn view(&self) -> Density<'_> {
        Density {
            words: &self.words,
            bit_len: self.len,
            popcount: self.popcount,
        }
    }
}

/// A `ConstraintSystem` that records what the prover needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WitnessRecorder {
    pub a_aux_density: DensityBits,
    pub b_inp_density: DensityBits,
    pub b_aux_density: DensityBits,
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
}

/// A circuit's recorded witness: owns the data an [`Assignment`] points to.
pub type RecordedWitness = WitnessRecorder;

impl WitnessRecorder {
    /// Synthesizes `circuit` as bellperson's prover does and returns its witness.
    pub fn record<C: Circuit<Scalar>>(circuit: C) -> Result<RecordedWitness, SynthesisError> {
        let mut cs = WitnessRecorder::default();
        cs.alloc_input(|| "", || Ok(Scalar::ONE))?;
        circuit.synthesize(&mut cs)?;
        for i in 0..cs.inputs.len() {
            cs.enforce(
                || "",
                |lc| lc + Variable::new_unchecked(Index::Input(i)),
                |lc| lc,
                |lc| lc,
            );
        }
        Ok(cs)
    }

    /// The public inputs without the constant ONE, as verifiers take them.
    pub fn public_inputs(&self) -> &[Scalar] {
        &self.inputs[1..]
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

    /// The C-ABI struct pointing into this witness; valid while `self` is alive and unchanged.
    pub fn assignment(&self) -> Assignment {
        Assignment {
            a_aux_density: self.a_aux_density.words.as_ptr(),
            a_aux_bit_len: self.a_aux_density.len,
            a_aux_popcount: self.a_aux_density.popcount,
            b_inp_density: self.b_inp_density.words.as_ptr(),
            b_inp_bit_len: self.b_inp_density.len,
            b_inp_popcount: self.b_inp_density.popcount,
            b_aux_density: self.b_aux_density.words.as_ptr(),
            b_aux_bit_len: self.b_aux_density.len,
            b_aux_popcount: self.b_aux_density.popcount,
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
}

/// bellperson's `eval_with_trackers`: sums the terms and marks variables with non-zero
/// coefficients in the given densities.
fn eval_tracking(
    lc: &LinearCombination<Scalar>,
    mut input_density: Option<&mut DensityBits>,
    mut aux_density: Option<&mut DensityBits>,
    inputs: &[Scalar],
    aux: &[Scalar],
) -> Scalar {
    let mut acc = Scalar::ZERO;
    for (&i, coeff) in lc.iter_inputs() {
        if !bool::from(coeff.is_zero()) {
            acc += if *coeff == Scalar::ONE {
                inputs[i]
            } else {
                inputs[i] * coeff
            };
            if let Some(d) = input_density.as_deref_mut() {
                d.set(i);
            }
        }
    }
    for (&i, coeff) in lc.iter_aux() {
        if !bool::from(coeff.is_zero()) {
            acc += if *coeff == Scalar::ONE {
                aux[i]
            } else {
                aux[i] * coeff
            };
            if let Some(d) = aux_density.as_deref_mut() {
                d.set(i);
            }
        }
    }
    acc
}

impl ConstraintSystem<Scalar> for WitnessRecorder {
    type Root = Self;

    fn new() -> Self {
        WitnessRecorder::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux_density.push_unset();
        self.b_aux_density.push_unset();
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_inp_density.push_unset();
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        // Inputs have full density in A (the input constraints), so only aux is tracked there.
        let a_val = eval_tracking(
            &a,
            None,
            Some(&mut self.a_aux_density),
            &self.inputs,
            &self.aux,
        );
        let b_val = eval_tracking(
            &b,
            Some(&mut self.b_inp_density),
            Some(&mut self.b_aux_density),
            &self.inputs,
            &self.aux,
        );
        let c_val = eval_tracking(&c, None, None, &self.inputs, &self.aux);
        self.a.push(a_val);
        self.b.push(b_val);
        self.c.push(c_val);
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    fn is_extensible() -> bool {
        true
    }

    fn extend(&mut self, other: &Self) {
        self.a_aux_density.extend(&other.a_aux_density, false);
        self.b_inp_density.extend(&other.b_inp_density, true);
        self.b_aux_density.extend(&other.b_aux_density, false);
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        // The first input of `other` is its own temporary ONE.
        self.inputs.extend_from_slice(&other.inputs[1..]);
        self.aux.extend_from_slice(&other.aux);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// As bellperson's `test_proving_assignment_extend`: recording in parts and extending gives
    /// the same witness as recording at once.
    #[test]
    fn extend_matches_recording_at_once() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for k in [2usize, 4, 8] {
            for j in [10usize, 20, 50] {
                let mut full = WitnessRecorder::default();
                full.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
                let mut parts: Vec<WitnessRecorder> = Vec::new();
                for i in 0..k * j {
                    if i % k == 0 {
                        let mut p = WitnessRecorder::default();
                        p.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
                        parts.push(p);
                    }
                    let part = parts.last_mut().unwrap();
                    if rng.gen() {
                        let v = Scalar::random(&mut rng);
                        let a = full.alloc(|| "a", || Ok(v)).unwrap();
                        let b = part.alloc(|| "a", || Ok(v)).unwrap();
                        full.enforce(|| "c", |lc| lc + a, |lc| lc + a, |lc| lc);
                        part.enforce(|| "c", |lc| lc + b, |lc| lc + b, |lc| lc);
                    }
                    if rng.gen() {
                        let v = Scalar::random(&mut rng);
                        let a = full.alloc_input(|| "i", || Ok(v)).unwrap();
                        let b = part.alloc_input(|| "i", || Ok(v)).unwrap();
                        full.enforce(|| "c", |lc| lc, |lc| lc + a, |lc| lc);
                        part.enforce(|| "c", |lc| lc, |lc| lc + b, |lc| lc);
                    }
                }
                let mut combined = WitnessRecorder::default();
                combined.alloc_input(|| "one", || Ok(Scalar::ONE)).unwrap();
                for p in &parts {
                    combined.extend(p);
                }
                assert_eq!(combined.inputs, full.inputs);
                assert_eq!(combined.aux, full.aux);
                assert_eq!(combined.a_aux_density, full.a_aux_density);
                assert_eq!(combined.b_aux_density, full.b_aux_density);
                assert_eq!(combined.a, full.a);
            }
        }
    }
}
