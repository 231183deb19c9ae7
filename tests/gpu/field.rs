//! GPU field arithmetic (Fr and Fp in 32-bit limbs) equals blstrs, on 10^6 random pairs (a tenth
//! of them with equal operands) and on edge values, and so do chains of 64 dependent products
//! (the benchmark's kernel). Needs a GPU; prints a SKIP line without one.

use crate::common::gpu::*;
use blstrs::{Fp, Scalar};
use ff::Field;
use groth16_c2::testing::cuda::kernels::{field_op, FieldOp, MUL_CHAIN_LEN};
use groth16_c2::testing::cuda::runtime::Stream;
use rand::SeedableRng;

/// Random pairs per field: `GROTH16_C2_GPU_FIELD_PAIRS` (default 10^6; the long run
/// takes 10^7).
fn random_pairs() -> usize {
    std::env::var("GROTH16_C2_GPU_FIELD_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// Values worth testing besides random ones: 0, 1, -1, -2, small, powers of two and their
/// neighbours, and a value with all bits below the modulus' top set.
fn edges<F: Field + From<u64>>() -> Vec<F> {
    let mut v = vec![
        F::ZERO,
        F::ONE,
        -F::ONE,
        -F::ONE.double(),
        F::from(2),
        F::from(u64::MAX),
    ];
    let mut p = F::ONE;
    for _ in 0..384 {
        v.extend([p, p + F::ONE, p - F::ONE]);
        p = p.double();
    }
    v
}

fn pairs<F: Field + From<u64>>(seed: u64) -> (Vec<F>, Vec<F>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let e = edges::<F>();
    let mut a: Vec<F> = Vec::new();
    let mut b: Vec<F> = Vec::new();
    for x in &e {
        for y in &e[..24] {
            a.push(*x);
            b.push(*y);
        }
    }
    for i in 0..random_pairs() {
        let x = F::random(&mut rng);
        a.push(x);
        // Every tenth pair has equal operands (a square through the general product).
        b.push(if i % 10 == 0 { x } else { F::random(&mut rng) });
    }
    (a, b)
}

/// Runs `op` on the GPU over `a, b` and returns the results.
fn gpu<T: Copy + Default>(fp: bool, op: FieldOp, a: &[T], b: &[T]) -> Vec<T> {
    let stream = Stream::new().unwrap();
    let (da, db) = (to_device(a, &stream), to_device(b, &stream));
    let mut out = groth16_c2::testing::cuda::runtime::DeviceBuffer::<T>::new(a.len()).unwrap();
    field_op(fp, op, &da, &db, &mut out, &stream).unwrap();
    to_host(&out, a.len(), &stream)
}

fn limbs<T, const N: usize>(x: &T) -> [u64; N] {
    assert_eq!(std::mem::size_of::<T>(), 8 * N);
    // SAFETY: T is N u64 limbs (blst's memory layout).
    unsafe { std::ptr::read((x as *const T).cast()) }
}

fn check<F, const N: usize>(
    fp: bool,
    name: &str,
    a: &[F],
    b: &[F],
    op: FieldOp,
    expect: impl Fn(&F, &F) -> F + Sync,
) where
    F: Copy + Default + Send + Sync + PartialEq + std::fmt::Debug,
{
    use rayon::prelude::*;
    let got = gpu(fp, op, a, b);
    let want: Vec<F> = a.par_iter().zip(b).map(|(x, y)| expect(x, y)).collect();
    let bad = got.iter().zip(&want).position(|(g, w)| g != w);
    if let Some(i) = bad {
        panic!(
            "{name} {op:?} differs at {i}: a = {:x?}, b = {:x?}, gpu = {:x?}, blstrs = {:x?}",
            limbs::<F, N>(&a[i]),
            limbs::<F, N>(&b[i]),
            limbs::<F, N>(&got[i]),
            limbs::<F, N>(&want[i])
        );
    }
}

#[test]
fn fr_ops_match_blstrs() {
    let Some(_gpu) = gpu_shared_or_skip("fr_ops_match_blstrs") else {
        return;
    };
    let (a, b) = pairs::<Scalar>(1);
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Add, |x, y| *x + y);
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Sub, |x, y| *x - y);
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Mul, |x, y| *x * y);
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::MulChain, |x, y| {
        *x * y.pow_vartime([MUL_CHAIN_LEN])
    });
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::MulChainPaired, |x, y| {
        *x * y.pow_vartime([MUL_CHAIN_LEN]) + y.pow_vartime([MUL_CHAIN_LEN + 1])
    });
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Sqr, |x, _| x.square());
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Neg, |x, _| -*x);
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::Inverse, |x, _| {
        x.invert().unwrap_or(Scalar::ZERO)
    });
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::InverseVartime, |x, _| {
        x.invert().unwrap_or(Scalar::ZERO)
    });
    // Conversions: canonical limbs in, Montgomery out, and back.
    let canonical: Vec<Scalar> = a
        .iter()
        .map(|x| from_limbs(blstrs_canonical_fr(x)))
        .collect();
    check::<_, 4>(
        false,
        "Fr",
        &canonical,
        &b,
        FieldOp::ToMontgomery,
        |c, _| mont_fr(limbs::<_, 4>(c)),
    );
    check::<_, 4>(false, "Fr", &a, &b, FieldOp::FromMontgomery, |x, _| {
        from_limbs(blstrs_canonical_fr(x))
    });
}

#[test]
fn fp_ops_match_blstrs() {
    let Some(_gpu) = gpu_shared_or_skip("fp_ops_match_blstrs") else {
        return;
    };
    let (a, b) = pairs::<Fp>(2);
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Add, |x, y| *x + y);
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Sub, |x, y| *x - y);
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Mul, |x, y| *x * y);
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::MulChain, |x, y| {
        *x * y.pow_vartime([MUL_CHAIN_LEN])
    });
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::MulChainPaired, |x, y| {
        *x * y.pow_vartime([MUL_CHAIN_LEN]) + y.pow_vartime([MUL_CHAIN_LEN + 1])
    });
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Sqr, |x, _| x.square());
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Neg, |x, _| -*x);
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::Inverse, |x, _| {
        x.invert().unwrap_or(Fp::ZERO)
    });
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::InverseVartime, |x, _| {
        x.invert().unwrap_or(Fp::ZERO)
    });
    let canonical: Vec<Fp> = a
        .iter()
        .map(|x| from_limbs(blstrs_canonical_fp(x)))
        .collect();
    check::<_, 6>(true, "Fp", &canonical, &b, FieldOp::ToMontgomery, |c, _| {
        mont_fp(limbs::<_, 6>(c))
    });
    check::<_, 6>(true, "Fp", &a, &b, FieldOp::FromMontgomery, |x, _| {
        from_limbs(blstrs_canonical_fp(x))
    });
}

fn from_limbs<T, const N: usize>(l: [u64; N]) -> T {
    assert_eq!(std::mem::size_of::<T>(), 8 * N);
    // SAFETY: T is N u64 limbs.
    unsafe { std::ptr::read((&l as *const [u64; N]).cast()) }
}

fn blstrs_canonical_fr(x: &Scalar) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: blst converts a Montgomery Fr to canonical u64 limbs.
    unsafe { blst::blst_uint64_from_fr(out.as_mut_ptr(), (x as *const Scalar).cast()) };
    out
}

fn mont_fr(l: [u64; 4]) -> Scalar {
    let mut out = blst::blst_fr::default();
    // SAFETY: canonical limbs in, Montgomery out.
    unsafe { blst::blst_fr_from_uint64(&mut out, l.as_ptr()) };
    Scalar::from(out)
}

fn blstrs_canonical_fp(x: &Fp) -> [u64; 6] {
    let mut out = [0u64; 6];
    // SAFETY: blst converts a Montgomery Fp to canonical u64 limbs.
    unsafe { blst::blst_uint64_from_fp(out.as_mut_ptr(), (x as *const Fp).cast()) };
    out
}

fn mont_fp(l: [u64; 6]) -> Fp {
    let mut out = blst::blst_fp::default();
    // SAFETY: canonical limbs in, Montgomery out.
    unsafe { blst::blst_fp_from_uint64(&mut out, l.as_ptr()) };
    from_limbs(limbs::<_, 6>(&out))
}
