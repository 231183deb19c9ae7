//! The H polynomial on the GPU equals the CPU's bit for bit for domains 2^1 .. 2^22, with
//! `abc_size` a power of two and not. Needs a GPU; prints a SKIP line without one.

use crate::common::gpu::*;
use blstrs::Scalar;
use ff::Field;
use groth16_c2::testing::cpu::fft::h_polynomial;
use groth16_c2::testing::cuda::device::lock_device;
use rand::SeedableRng;
use rayon::prelude::*;

fn random(n: usize, seed: u64) -> Vec<Scalar> {
    let mut v = vec![Scalar::ZERO; n];
    v.par_chunks_mut(1 << 14)
        .enumerate()
        .for_each(|(k, chunk)| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (k as u64) << 20);
            chunk.iter_mut().for_each(|x| *x = Scalar::random(&mut rng));
        });
    v
}

#[test]
fn gpu_h_matches_cpu_h() {
    let Some(_gpu) = gpu_shared_or_skip("gpu_h_matches_cpu_h") else {
        return;
    };
    // GROTH16_C2_GPU_H_MAX_LOG_N lowers the largest size (the sanitizers' slowest tool runs the
    // same kernels on the smaller ones).
    let max_lg: u32 = std::env::var("GROTH16_C2_GPU_H_MAX_LOG_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(22);
    for lg in 1..=max_lg.clamp(1, 22) {
        let n = 1usize << lg;
        for len in [n, n / 2 + 1, n - n / 7] {
            let (a, b, c) = (
                random(len, 3 * lg as u64),
                random(len, 3 * lg as u64 + 1),
                random(len, 3 * lg as u64 + 2),
            );
            let want = h_polynomial(&a, &b, &c, n);
            let got = {
                let mut guard = lock_device(0).unwrap();
                groth16_c2::testing::cuda::h::h_polynomial(guard.as_mut().unwrap(), &a, &b, &c, n)
                    .unwrap()
            };
            assert_eq!(got.len(), n - 1);
            assert!(got == want, "H differs for n = 2^{lg}, abc_size = {len}");
        }
    }
}
