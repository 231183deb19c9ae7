//! A Groth16 setup for test circuits that is byte for byte bellperson's
//! `generate_random_parameters` (same draws from the rng, same parameters), about ten times
//! faster: a fixed-base comb (one table of `d * 2^(W i) * g` per base, so a scalar multiple is
//! about 26 mixed additions and no doublings) where bellperson's wNAF doubles 255 times per
//! point, and the Lagrange coefficients at tau from one batch inversion. It makes real SRSs of
//! 2^22..2^24 practical where proofs must verify (the soak on the GPU machine). Shared by the
//! examples and `tests/setup.rs`, which checks it against bellperson.

use std::sync::Arc;

use bellpepper_core::{
    Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable,
};
use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};
use ff::{BatchInvert, Field, PrimeField};
use groth16_c2::testing::cpu::fft::scale_by_powers;
use group::prime::{PrimeCurve, PrimeCurveAffine};
use group::{Curve, Group};
use rand_core::RngCore;
use rayon::prelude::*;

/// Window bits of the comb: 26 windows of 1,023 points (2.5 MB for G1, 5 MB for G2).
const COMB_BITS: usize = 10;
/// Variables per parallel task (each normalizes its points to affine at once).
const CHUNK: usize = 1 << 12;

type Lc = Vec<Vec<(Scalar, usize)>>;

/// The circuit as its QAP: per variable, the (coefficient, constraint) pairs of A, B and C.
#[derive(Default)]
struct Assembly {
    num_inputs: usize,
    num_aux: usize,
    num_constraints: usize,
    at_inputs: Lc,
    bt_inputs: Lc,
    ct_inputs: Lc,
    at_aux: Lc,
    bt_aux: Lc,
    ct_aux: Lc,
}

impl ConstraintSystem<Scalar> for Assembly {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_aux += 1;
        self.at_aux.push(vec![]);
        self.bt_aux.push(vec![]);
        self.ct_aux.push(vec![]);
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_inputs += 1;
        self.at_inputs.push(vec![]);
        self.bt_inputs.push(vec![]);
        self.ct_inputs.push(vec![]);
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let row = self.num_constraints;
        let record = |lc: LinearCombination<Scalar>, inputs: &mut Lc, aux: &mut Lc| {
            for (var, coeff) in lc.iter() {
                match var.get_unchecked() {
                    Index::Input(i) => inputs[i].push((*coeff, row)),
                    Index::Aux(i) => aux[i].push((*coeff, row)),
                }
            }
        };
        record(
            a(LinearCombination::zero()),
            &mut self.at_inputs,
            &mut self.at_aux,
        );
        record(
            b(LinearCombination::zero()),
            &mut self.bt_inputs,
            &mut self.bt_aux,
        );
        record(
            c(LinearCombination::zero()),
            &mut self.ct_inputs,
            &mut self.ct_aux,
        );
        self.num_constraints += 1;
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
}

/// Fixed-base multiples of one point: `windows[i][d - 1] = d * 2^(COMB_BITS i) * base`.
struct Comb<G: PrimeCurve> {
    windows: Vec<Vec<G::Affine>>,
}

impl<G: PrimeCurve> Comb<G> {
    fn new(base: G) -> Self {
        let count = (Scalar::NUM_BITS as usize).div_ceil(COMB_BITS);
        let mut starts = Vec::with_capacity(count);
        let mut start = base;
        for _ in 0..count {
            starts.push(start);
            for _ in 0..COMB_BITS {
                start = start.double();
            }
        }
        let windows = starts
            .into_par_iter()
            .map(|start| {
                let mut multiples = Vec::with_capacity((1 << COMB_BITS) - 1);
                let mut acc = start;
                for _ in 1..(1 << COMB_BITS) {
                    multiples.push(acc);
                    acc += start;
                }
                let mut affine = vec![G::Affine::identity(); multiples.len()];
                G::batch_normalize(&multiples, &mut affine);
                affine
            })
            .collect();
        Comb { windows }
    }

    fn mul(&self, s: &Scalar) -> G {
        let bytes = s.to_repr();
        let bit = |i: usize| (bytes.as_ref()[i / 8] >> (i % 8)) & 1;
        let mut acc = G::identity();
        for (w, window) in self.windows.iter().enumerate() {
            let mut d = 0usize;
            for b in (0..COMB_BITS).rev() {
                let i = w * COMB_BITS + b;
                d = (d << 1) | if i < 256 { bit(i) as usize } else { 0 };
            }
            if d != 0 {
                acc += window[d - 1];
            }
        }
        acc
    }

    /// `scalars[i] * base` in affine form, in parallel (zero gives the identity).
    fn mul_all(&self, scalars: &[Scalar], out: &mut [G::Affine]) {
        out.par_chunks_mut(CHUNK)
            .zip(scalars.par_chunks(CHUNK))
            .for_each(|(out, scalars)| {
                let points: Vec<G> = scalars.iter().map(|s| self.mul(s)).collect();
                G::batch_normalize(&points, out);
            });
    }
}

/// `sum coeff * lagrange[row]` over one variable's entries.
fn eval_at_tau(lagrange: &[Scalar], entries: &[(Scalar, usize)]) -> Scalar {
    entries.iter().fold(Scalar::ZERO, |acc, (coeff, row)| {
        acc + lagrange[*row] * coeff
    })
}

/// L_j(tau) for the domain of `m` = 2^k points: (tau^m - 1) / m * w^j / (tau - w^j), the values
/// bellperson gets from the inverse FFT of tau's powers.
fn lagrange_at(tau: Scalar, m: usize, omega: Scalar) -> Vec<Scalar> {
    let powers = powers(Scalar::ONE, omega, m);
    let mut inv: Vec<Scalar> = powers.par_iter().map(|w| tau - w).collect();
    inv.par_chunks_mut(CHUNK).for_each(|c| {
        c.batch_invert();
    });
    let scale = (tau.pow_vartime([m as u64]) - Scalar::ONE)
        * Scalar::from(m as u64).invert().expect("m < r");
    powers
        .par_iter()
        .zip(inv.par_iter())
        .map(|(w, d)| scale * w * d)
        .collect()
}

/// `first * x^i` for i < n, in parallel (the CPU backend's power scaling of ones).
fn powers(first: Scalar, x: Scalar, n: usize) -> Vec<Scalar> {
    let mut out = vec![Scalar::ONE; n];
    scale_by_powers(&mut out, first, x);
    out
}

/// What one group of variables (the inputs or the aux) gives: A, B in G1 and G2, and the
/// `(beta A + alpha B + C) / divisor` query (IC or L).
struct Evaluated {
    a: Vec<blstrs::G1Affine>,
    b_g1: Vec<blstrs::G1Affine>,
    b_g2: Vec<blstrs::G2Affine>,
    ext: Vec<blstrs::G1Affine>,
}

#[allow(clippy::too_many_arguments)]
fn evaluate(
    g1: &Comb<G1Projective>,
    g2: &Comb<G2Projective>,
    lagrange: &[Scalar],
    (at, bt, ct): (&Lc, &Lc, &Lc),
    divisor_inv: Scalar,
    alpha: Scalar,
    beta: Scalar,
) -> Evaluated {
    let n = at.len();
    let (mut a_s, mut b_s, mut e_s) = (
        vec![Scalar::ZERO; n],
        vec![Scalar::ZERO; n],
        vec![Scalar::ZERO; n],
    );
    a_s.par_iter_mut()
        .zip(b_s.par_iter_mut())
        .zip(e_s.par_iter_mut())
        .enumerate()
        .for_each(|(i, ((a, b), e))| {
            *a = eval_at_tau(lagrange, &at[i]);
            *b = eval_at_tau(lagrange, &bt[i]);
            let c = eval_at_tau(lagrange, &ct[i]);
            *e = (*a * beta + *b * alpha + c) * divisor_inv;
        });
    let mut out = Evaluated {
        a: vec![blstrs::G1Affine::identity(); n],
        b_g1: vec![blstrs::G1Affine::identity(); n],
        b_g2: vec![blstrs::G2Affine::identity(); n],
        ext: vec![blstrs::G1Affine::identity(); n],
    };
    g1.mul_all(&a_s, &mut out.a);
    g1.mul_all(&b_s, &mut out.b_g1);
    g2.mul_all(&b_s, &mut out.b_g2);
    g1.mul_all(&e_s, &mut out.ext);
    out
}

/// The parameters bellperson's `generate_random_parameters(circuit, rng)` returns, from the
/// same draws of `rng` (g1, g2, alpha, beta, gamma, delta, tau, in its order).
pub fn generate_random_parameters<C: Circuit<Scalar>, R: RngCore>(
    circuit: C,
    rng: &mut R,
) -> Result<Parameters<Bls12>, SynthesisError> {
    let g1 = G1Projective::random(&mut *rng);
    let g2 = G2Projective::random(&mut *rng);
    let alpha = Scalar::random(&mut *rng);
    let beta = Scalar::random(&mut *rng);
    let gamma = Scalar::random(&mut *rng);
    let delta = Scalar::random(&mut *rng);
    let tau = Scalar::random(&mut *rng);

    let mut cs = Assembly::default();
    cs.alloc_input(|| "", || Ok(Scalar::ONE))?;
    circuit.synthesize(&mut cs)?;
    // x * 0 = 0 for every input, as bellperson adds them, so that IC is fully dense.
    for i in 0..cs.num_inputs {
        cs.enforce(
            || "",
            |lc| lc + Variable::new_unchecked(Index::Input(i)),
            |lc| lc,
            |lc| lc,
        );
    }

    // bellperson's evaluation domain: the constraints padded to a power of two.
    let m = cs.num_constraints.next_power_of_two().max(1);
    let exp = m.trailing_zeros();
    if exp >= Scalar::S {
        return Err(SynthesisError::PolynomialDegreeTooLarge);
    }
    let omega = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - exp)]);
    let gamma_inv =
        Option::<Scalar>::from(gamma.invert()).ok_or(SynthesisError::UnexpectedIdentity)?;
    let delta_inv =
        Option::<Scalar>::from(delta.invert()).ok_or(SynthesisError::UnexpectedIdentity)?;

    let (comb1, comb2) = rayon::join(|| Comb::new(g1), || Comb::new(g2));

    // H: tau^i * (tau^m - 1) / delta for i < m - 1.
    let z_over_delta = (tau.pow_vartime([m as u64]) - Scalar::ONE) * delta_inv;
    let h_scalars = powers(z_over_delta, tau, m - 1);
    let mut h = vec![blstrs::G1Affine::identity(); m - 1];
    comb1.mul_all(&h_scalars, &mut h);
    drop(h_scalars);

    let lagrange = lagrange_at(tau, m, omega);
    let inputs = evaluate(
        &comb1,
        &comb2,
        &lagrange,
        (&cs.at_inputs, &cs.bt_inputs, &cs.ct_inputs),
        gamma_inv,
        alpha,
        beta,
    );
    let aux = evaluate(
        &comb1,
        &comb2,
        &lagrange,
        (&cs.at_aux, &cs.bt_aux, &cs.ct_aux),
        delta_inv,
        alpha,
        beta,
    );
    if aux.ext.iter().any(|p| bool::from(p.is_identity())) {
        return Err(SynthesisError::UnconstrainedVariable);
    }

    let (g1, g2) = (g1.to_affine(), g2.to_affine());
    let vk = VerifyingKey::<Bls12> {
        alpha_g1: (g1 * alpha).to_affine(),
        beta_g1: (g1 * beta).to_affine(),
        beta_g2: (g2 * beta).to_affine(),
        gamma_g2: (g2 * gamma).to_affine(),
        delta_g1: (g1 * delta).to_affine(),
        delta_g2: (g2 * delta).to_affine(),
        ic: inputs.ext,
    };
    // Points at infinity (a variable absent from A or B) are left out of A and B.
    let dense = |v: Vec<blstrs::G1Affine>| -> Vec<blstrs::G1Affine> {
        v.into_iter()
            .filter(|p| !bool::from(p.is_identity()))
            .collect()
    };
    let b_g2: Vec<blstrs::G2Affine> = inputs
        .b_g2
        .into_iter()
        .chain(aux.b_g2)
        .filter(|p| !bool::from(p.is_identity()))
        .collect();
    Ok(Parameters {
        vk,
        h: Arc::new(h),
        l: Arc::new(aux.ext),
        a: Arc::new(dense(inputs.a.into_iter().chain(aux.a).collect())),
        b_g1: Arc::new(dense(inputs.b_g1.into_iter().chain(aux.b_g1).collect())),
        b_g2: Arc::new(b_g2),
    })
}
