//! Radix-2 FFT over Fr on all cores, and the H polynomial built from it.
//!
//! The transform is the iterative Cooley-Tukey one with a precomputed twiddle table, so each
//! butterfly costs one multiplication (a running twiddle, as in bellman's `serial_fft`, costs two).
//! Scalings that bellperson does in separate passes (`1/n`, coset powers, `1/Z`) are folded into
//! the passes that touch the data anyway.

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Elements per task in element-wise passes.
const CHUNK: usize = 1 << 12;

/// A radix-2 evaluation domain of size `2^log_n`, as bellperson's `EvaluationDomain` builds it.
pub struct Domain {
    pub log_n: u32,
    pub n: usize,
    omega: Scalar,
    omega_inv: Scalar,
}

impl Domain {
    pub fn new(n: usize) -> Domain {
        assert!(n.is_power_of_two());
        let log_n = n.trailing_zeros();
        assert!(log_n <= Scalar::S, "domain 2^{log_n} is too large for Fr");
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in log_n..Scalar::S {
            omega = omega.square();
        }
        Domain {
            log_n,
            n,
            omega,
            omega_inv: omega.invert().unwrap(),
        }
    }

    /// Evaluations to coefficients, without the `1/n` factor (callers fold it in).
    pub fn ifft_unscaled(&self, values: &mut [Scalar]) {
        fft(values, self.omega_inv, self.log_n);
    }

    /// Coefficients to evaluations.
    pub fn fft(&self, values: &mut [Scalar]) {
        fft(values, self.omega, self.log_n);
    }

    /// The `n`-th root of unity of this domain.
    pub fn omega(&self) -> Scalar {
        self.omega
    }

    /// Its inverse.
    pub fn omega_inv(&self) -> Scalar {
        self.omega_inv
    }

    /// `1 / n`.
    pub fn n_inv(&self) -> Scalar {
        Scalar::from(self.n as u64).invert().unwrap()
    }
}

/// `v[i] *= first * ratio^i`, in parallel.
pub fn scale_by_powers(v: &mut [Scalar], first: Scalar, ratio: Scalar) {
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let mut u = first * ratio.pow_vartime([(k * CHUNK) as u64]);
        for x in chunk {
            *x *= u;
            u *= ratio;
        }
    });
}

/// In-place FFT of `a` (natural order in and out) with root of unity `omega` of order `2^log_n`.
pub fn fft(a: &mut [Scalar], omega: Scalar, log_n: u32) {
    let n = a.len();
    assert_eq!(n, 1 << log_n);
    if n == 1 {
        return;
    }
    bit_reverse(a, log_n);
    let twiddles = twiddle_table(omega, n / 2);
    let threads = rayon::current_num_threads();
    let mut half = 1;
    while half < n {
        let stride = n / (2 * half);
        let blocks = n / (2 * half);
        if blocks >= 4 * threads || half < 64 {
            a.par_chunks_mut(2 * half).for_each(|block| {
                butterflies(block, half, &twiddles, stride, 0);
            });
        } else {
            // Few large blocks: parallelise inside each one.
            for block in a.chunks_mut(2 * half) {
                let (lo, hi) = block.split_at_mut(half);
                let per = (half / (4 * threads)).max(64);
                lo.par_chunks_mut(per)
                    .zip(hi.par_chunks_mut(per))
                    .enumerate()
                    .for_each(|(k, (lo, hi))| {
                        for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                            butterfly(x, y, &twiddles[(k * per + j) * stride]);
                        }
                    });
            }
        }
        half *= 2;
    }
}

#[inline(always)]
fn butterfly(x: &mut Scalar, y: &mut Scalar, w: &Scalar) {
    let t = *y * w;
    *y = *x - t;
    *x += t;
}

fn butterflies(
    block: &mut [Scalar],
    half: usize,
    twiddles: &[Scalar],
    stride: usize,
    first: usize,
) {
    let (lo, hi) = block.split_at_mut(half);
    for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        butterfly(x, y, &twiddles[(first + j) * stride]);
    }
}

/// `[omega^0, omega^1, ..., omega^(len-1)]`.
fn twiddle_table(omega: Scalar, len: usize) -> Vec<Scalar> {
    let mut t = vec![Scalar::ZERO; len];
    t.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let mut u = omega.pow_vartime([(k * CHUNK) as u64]);
        for x in chunk {
            *x = u;
            u *= omega;
        }
    });
    t
}

fn bit_reverse(a: &mut [Scalar], log_n: u32) {
    let n = a.len();
    let shift = usize::BITS - log_n;
    for i in 0..n {
        let j = i.reverse_bits() >> shift;
        if i < j {
            a.swap(i, j);
        }
    }
}

/// The quotient `h = (A·B − C) / Z` as coefficients, from the evaluations `a, b, c` over the
/// domain of size `n` (zero-padded), exactly as bellperson 0.26 computes it: interpolate, move
/// to the coset `g·<omega>` (`g` = Fr's multiplicative generator), divide by `Z(g) = g^n − 1`
/// pointwise, interpolate back. Returns `n − 1` coefficients (the top one is zero for a
/// satisfied circuit and has no SRS point).
pub fn h_polynomial(a: &[Scalar], b: &[Scalar], c: &[Scalar], n: usize) -> Vec<Scalar> {
    let domain = Domain::new(n);
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let n_inv = domain.n_inv();
    let to_coset = |src: &[Scalar]| -> Vec<Scalar> {
        let mut v = Vec::with_capacity(n);
        v.extend_from_slice(src);
        v.resize(n, Scalar::ZERO);
        domain.ifft_unscaled(&mut v);
        // Coefficients (times n) to coset evaluations: scale by g^i / n, then forward FFT.
        scale_by_powers(&mut v, n_inv, g);
        domain.fft(&mut v);
        v
    };
    let ((mut ea, eb), ec) = rayon::join(
        || rayon::join(|| to_coset(a), || to_coset(b)),
        || to_coset(c),
    );
    // Z is constant on the coset: Z(g·w^i) = g^n − 1. Fold in the 1/n of the inverse FFT too.
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
    let factor = z_inv * n_inv;
    ea.par_chunks_mut(CHUNK)
        .zip(eb.par_chunks(CHUNK))
        .zip(ec.par_chunks(CHUNK))
        .for_each(|((a, b), c)| {
            for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
                *x = (*x * y - z) * factor;
            }
        });
    drop((eb, ec));
    domain.ifft_unscaled(&mut ea);
    scale_by_powers(&mut ea, Scalar::ONE, g.invert().unwrap());
    ea.truncate(n - 1);
    ea
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn naive_dft(a: &[Scalar], omega: Scalar) -> Vec<Scalar> {
        let n = a.len();
        (0..n)
            .map(|i| {
                let wi = omega.pow_vartime([i as u64]);
                let mut acc = Scalar::ZERO;
                let mut w = Scalar::ONE;
                for x in a {
                    acc += *x * w;
                    w *= wi;
                }
                acc
            })
            .collect()
    }

    #[test]
    fn fft_matches_naive_dft_and_inverts() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for log_n in 0..=7 {
            let n = 1usize << log_n;
            let d = Domain::new(n);
            let a: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let mut f = a.clone();
            d.fft(&mut f);
            assert_eq!(f, naive_dft(&a, d.omega), "n = {n}");
            d.ifft_unscaled(&mut f);
            let n_inv = d.n_inv();
            f.iter_mut().for_each(|x| *x *= n_inv);
            assert_eq!(f, a);
        }
    }

    #[test]
    fn large_fft_inverts() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let n = 1 << 14;
        let d = Domain::new(n);
        let a: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let mut f = a.clone();
        d.fft(&mut f);
        d.ifft_unscaled(&mut f);
        scale_by_powers(&mut f, d.n_inv(), Scalar::ONE);
        assert_eq!(f, a);
    }
}
