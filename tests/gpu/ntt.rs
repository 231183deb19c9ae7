//! The GPU NTT equals the CPU FFT bit for bit: every size 2^1 .. 2^24, 2^26 and 2^27 once, random
//! and sparse inputs, forward and inverse, every input/output order, coset variants, and
//! inverse(forward(x)) == x; the H step's coset transforms with the scaling folded in; all of
//! them with the top pass's own twiddle table too.
//! Needs a GPU; prints a SKIP line without one.

use crate::common::gpu::*;
use blstrs::Scalar;
use ff::{Field, PrimeField};
use groth16_c2::testing::cpu::fft::{fft, scale_by_powers, Domain};
use groth16_c2::testing::cuda::kernels::{
    h_pointwise, ntt, ntt_coset, ntt_lde, ntt_lde_quotient, scale_powers, CosetTable, NttTable,
};
use groth16_c2::testing::cuda::runtime::Stream;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

fn random(n: usize, seed: u64, sparse: bool) -> Vec<Scalar> {
    let mut v = vec![Scalar::ZERO; n];
    v.par_chunks_mut(1 << 14)
        .enumerate()
        .for_each(|(k, chunk)| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (k as u64) << 20);
            for x in chunk {
                if !sparse || rng.gen_ratio(1, 64) {
                    *x = Scalar::random(&mut rng);
                }
            }
        });
    v
}

fn bitrev(v: &[Scalar]) -> Vec<Scalar> {
    let lg = v.len().trailing_zeros();
    if lg == 0 {
        return v.to_vec();
    }
    (0..v.len())
        .map(|i| v[i.reverse_bits() >> (usize::BITS - lg)])
        .collect()
}

struct Gpu {
    stream: Stream,
    table: NttTable,
}

impl Gpu {
    fn new(lg_max: u32) -> Gpu {
        let stream = Stream::new().unwrap();
        let table = NttTable::new(lg_max, &stream).unwrap();
        Gpu { stream, table }
    }

    fn ntt(&self, x: &[Scalar], inverse: bool, bitrev_in: bool, bitrev_out: bool) -> Vec<Scalar> {
        let lg = x.len().trailing_zeros();
        let mut d = to_device(x, &self.stream);
        ntt(
            &mut d,
            lg,
            inverse,
            bitrev_in,
            bitrev_out,
            &self.table,
            &self.stream,
        )
        .unwrap();
        to_host(&d, x.len(), &self.stream)
    }

    /// Coset forward: scale by g^i, then NTT (natural order).
    fn coset_ntt(&self, x: &[Scalar]) -> Vec<Scalar> {
        let lg = x.len().trailing_zeros();
        let mut d = to_device(x, &self.stream);
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        scale_powers(&mut d, lg, Scalar::ONE, g, false, &self.stream).unwrap();
        ntt(&mut d, lg, false, false, false, &self.table, &self.stream).unwrap();
        to_host(&d, x.len(), &self.stream)
    }

    /// Coset inverse: inverse NTT, then scale by g^-i / n.
    fn coset_intt(&self, x: &[Scalar]) -> Vec<Scalar> {
        let lg = x.len().trailing_zeros();
        let mut d = to_device(x, &self.stream);
        ntt(&mut d, lg, true, false, false, &self.table, &self.stream).unwrap();
        let n_inv = Scalar::from(x.len() as u64).invert().unwrap();
        let g_inv = Scalar::MULTIPLICATIVE_GENERATOR.invert().unwrap();
        scale_powers(&mut d, lg, n_inv, g_inv, false, &self.stream).unwrap();
        to_host(&d, x.len(), &self.stream)
    }
}

fn cpu_fft(x: &[Scalar], inverse: bool) -> Vec<Scalar> {
    let d = Domain::new(x.len());
    let mut v = x.to_vec();
    fft(
        &mut v,
        if inverse { d.omega_inv() } else { d.omega() },
        d.log_n,
    );
    v
}

fn check_size(gpu: &Gpu, lg: u32, seed: u64) {
    let n = 1usize << lg;
    for sparse in [false, true] {
        let x = random(n, seed + sparse as u64, sparse);
        let what = |v: &str| format!("2^{lg} {} {v}", if sparse { "sparse" } else { "random" });
        for inverse in [false, true] {
            let want = cpu_fft(&x, inverse);
            let want_rev = bitrev(&want);
            let x_rev = bitrev(&x);
            let kind = if inverse { "inverse" } else { "forward" };
            assert!(
                gpu.ntt(&x, inverse, false, false) == want,
                "{}",
                what(&format!("{kind} NN"))
            );
            assert!(
                gpu.ntt(&x, inverse, false, true) == want_rev,
                "{}",
                what(&format!("{kind} NR"))
            );
            assert!(
                gpu.ntt(&x_rev, inverse, true, false) == want,
                "{}",
                what(&format!("{kind} RN"))
            );
            assert!(
                gpu.ntt(&x_rev, inverse, true, true) == want_rev,
                "{}",
                what(&format!("{kind} RR"))
            );
        }
        // Coset forward and inverse against the CPU, and the round trip.
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let mut want = x.clone();
        scale_by_powers(&mut want, Scalar::ONE, g);
        let want = cpu_fft(&want, false);
        let coset = gpu.coset_ntt(&x);
        assert!(coset == want, "{}", what("coset forward"));
        assert!(
            gpu.coset_intt(&coset) == x,
            "{}",
            what("coset inverse(forward(x))")
        );
        let mut back = gpu.ntt(&gpu.ntt(&x, false, false, true), true, true, false);
        scale_by_powers(
            &mut back,
            Scalar::from(n as u64).invert().unwrap(),
            Scalar::ONE,
        );
        assert!(back == x, "{}", what("inverse(forward(x))"));
    }
}

#[test]
fn ntt_matches_cpu_fft_up_to_2_pow_24() {
    let Some(_gpu) = gpu_shared_or_skip("ntt_matches_cpu_fft_up_to_2_pow_24") else {
        return;
    };
    let gpu = Gpu::new(24);
    for lg in 1..=24 {
        check_size(&gpu, lg, lg as u64);
    }
}

#[test]
fn small_domains_with_a_larger_table() {
    let Some(_gpu) = gpu_shared_or_skip("small_domains_with_a_larger_table") else {
        return;
    };
    // Every size served by one 2^27 table (as the prover does).
    let gpu = Gpu::new(27);
    for lg in [1, 2, 5, 11, 12, 17] {
        check_size(&gpu, lg, 100 + lg as u64);
    }
}

/// One transform of 2^lg against the CPU FFT, forward and inverse, without and then with the
/// top pass's own table (as proofs of these sizes run where VRAM allows).
fn check_once(lg: u32) {
    let mut gpu = Gpu::new(lg);
    let x = random(1 << lg, lg as u64, false);
    let (forward, inverse) = (cpu_fft(&x, false), cpu_fft(&x, true));
    for top in [false, true] {
        if top {
            assert!(gpu.table.build_top(lg, &gpu.stream).unwrap());
        }
        assert!(
            gpu.ntt(&x, false, false, false) == forward,
            "2^{lg} forward, top table {top}"
        );
        let y = gpu.ntt(&x, true, false, true);
        assert!(bitrev(&y) == inverse, "2^{lg} inverse NR, top table {top}");
    }
}

#[test]
fn ntt_2_pow_26_once() {
    let Some(_gpu) = gpu_shared_or_skip("ntt_2_pow_26_once") else {
        return;
    };
    check_once(26);
}

#[test]
fn ntt_2_pow_27_once() {
    let Some(_gpu) = gpu_shared_or_skip("ntt_2_pow_27_once") else {
        return;
    };
    check_once(27);
}

/// The H step's coset transforms (scaling and constants folded into the passes) against the
/// CPU: forward from bit-reversed coefficients, `NTT(c_i g^i / n)`; inverse to bit-reversed
/// coefficients, `g^-i iNTT(y)_i / (n Z(g))`; two- and three-pass plans, with a table built for
/// the size and for 2^27. Sizes of one pass (2^10 and less) do not fold.
#[test]
fn folded_coset_transforms_match_the_cpu() {
    let Some(_gpu) = gpu_shared_or_skip("folded_coset_transforms_match_the_cpu") else {
        return;
    };
    let stream = Stream::new().unwrap();
    for lg in [1, 5, 10] {
        assert!(
            CosetTable::new(lg, &stream).unwrap().is_none(),
            "2^{lg} folds"
        );
    }
    // GROTH16_C2_GPU_NTT_MAX_LOG_N lowers the largest size (for the sanitizers' slow tools).
    let max_lg: u32 = std::env::var("GROTH16_C2_GPU_NTT_MAX_LOG_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let big = Gpu::new(27);
    for lg in [11u32, 12, 13, 16, 19, 20, 21, 22, 24]
        .into_iter()
        .filter(|&lg| lg <= max_lg)
    {
        let coset = CosetTable::new(lg, &stream).unwrap().expect("folds");
        stream.synchronize().unwrap(); // built on another stream than the transforms'
        let own = Gpu::new(lg);
        for (gpu, which) in [(&own, "own table"), (&big, "2^27 table")] {
            check_folded_coset(gpu, &coset, lg, which);
        }
    }
}

/// The folded coset transforms of 2^lg on `gpu`'s tables against the CPU, random and sparse.
fn check_folded_coset(gpu: &Gpu, coset: &CosetTable, lg: u32, which: &str) {
    let n = 1usize << lg;
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let n_inv = Scalar::from(n as u64).invert().unwrap();
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
    for sparse in [false, true] {
        let x = random(n, 500 + lg as u64 + sparse as u64, sparse);
        let what = format!(
            "2^{lg} {which} {}",
            if sparse { "sparse" } else { "random" }
        );
        let mut d = to_device(&bitrev(&x), &gpu.stream);
        ntt_coset(&mut d, false, &gpu.table, coset, &gpu.stream).unwrap();
        let mut want = x.clone();
        scale_by_powers(&mut want, n_inv, g);
        assert!(
            to_host(&d, n, &gpu.stream) == cpu_fft(&want, false),
            "{what} forward"
        );

        let mut d = to_device(&x, &gpu.stream);
        ntt_coset(&mut d, true, &gpu.table, coset, &gpu.stream).unwrap();
        let mut want = cpu_fft(&x, true);
        scale_by_powers(&mut want, z_inv * n_inv, g.invert().unwrap());
        assert!(
            to_host(&d, n, &gpu.stream) == bitrev(&want),
            "{what} inverse"
        );
    }
}

/// The top pass's own twiddle table (one read per element instead of two products): every
/// order and direction and the folded coset transforms, with the plain table built for the
/// size and for a larger one; and a smaller size's table serving a larger transform's pass
/// of the same shape (2^13's top pass, bits 7..13, is 2^20's middle one).
#[test]
fn top_tables_match_the_cpu() {
    let Some(_gpu) = gpu_shared_or_skip("top_tables_match_the_cpu") else {
        return;
    };
    assert_eq!(NttTable::top_bytes(10), 0, "2^10 is one pass: no top table");
    assert_eq!(NttTable::top_bytes(11), 64 << 11);
    assert_eq!(NttTable::top_bytes(27), 64 << 27);
    let max_lg: u32 = std::env::var("GROTH16_C2_GPU_NTT_MAX_LOG_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    // (the plain table's size, the top table's, the transforms); 2^27 in ntt_2_pow_27_once.
    let cases: [(u32, u32, &[u32]); 5] = [
        (11, 11, &[11]),
        (16, 12, &[12]),
        (19, 19, &[19]),
        (24, 21, &[21]),
        (27, 13, &[13, 20]),
    ];
    for (lg_max, top_lg, sizes) in cases {
        if top_lg > max_lg {
            continue;
        }
        let mut gpu = Gpu::new(lg_max);
        assert!(gpu.table.build_top(top_lg, &gpu.stream).unwrap());
        assert_eq!(gpu.table.top_lg(), Some(top_lg));
        for &lg in sizes.iter().filter(|&&lg| lg <= max_lg) {
            check_size(&gpu, lg, 900 + lg as u64);
            if let Some(coset) = CosetTable::new(lg, &gpu.stream).unwrap() {
                check_folded_coset(&gpu, &coset, lg, &format!("top table of 2^{top_lg}"));
            }
        }
        gpu.table.drop_top();
        assert_eq!(gpu.table.top_lg(), None);
    }
}

/// The H step's fused sequences (`ntt_lde` for `a` and `b`; `ntt_lde_quotient` for `c`, the
/// point-wise step and the inverse) against the separate kernels they replace (the plain
/// inverse `ntt`, `ntt_coset` forward, `h_pointwise`, `ntt_coset` inverse), bit for bit: sizes
/// that run the separate passes (2^11, 2^19) and the fused ones (2^20 and up), and 2^27 with
/// the top pass's own table, as a proof of that size runs; and the point-wise step in two
/// buffers (`a b`, then `- c`) as a streamed proof runs it.
#[test]
fn fused_h_sequences_match_the_separate_kernels() {
    let Some(_gpu) = gpu_shared_or_skip("fused_h_sequences_match_the_separate_kernels") else {
        return;
    };
    let max_lg: u32 = std::env::var("GROTH16_C2_GPU_NTT_MAX_LOG_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(27);
    for lg in [11u32, 19, 20, 21, 24, 27]
        .into_iter()
        .filter(|&lg| lg <= max_lg)
    {
        let mut gpu = Gpu::new(lg);
        if lg == 27 {
            assert!(gpu.table.build_top(27, &gpu.stream).unwrap());
        }
        let coset = CosetTable::new(lg, &gpu.stream).unwrap().expect("folds");
        let n = 1usize << lg;
        // c sparse, as in a proof (mostly 0 and 1).
        let inputs: Vec<Vec<Scalar>> = (0..3)
            .map(|i| random(n, 700 + 3 * lg as u64 + i, i == 2))
            .collect();
        let upload = || -> Vec<_> { inputs.iter().map(|x| to_device(x, &gpu.stream)).collect() };

        let mut separate = upload();
        for d in separate.iter_mut() {
            ntt(d, lg, true, false, true, &gpu.table, &gpu.stream).unwrap();
            ntt_coset(d, false, &gpu.table, &coset, &gpu.stream).unwrap();
        }
        let [a, b, c] = &mut separate[..] else {
            unreachable!("three vectors")
        };
        h_pointwise(a, Some(&*b), Some(&*c), n, Scalar::ONE, &gpu.stream).unwrap();
        ntt_coset(a, true, &gpu.table, &coset, &gpu.stream).unwrap();
        let want = to_host(a, n, &gpu.stream);
        drop(separate);

        // In two buffers, as a streamed proof runs it on a small card: a b, then c in b's place.
        let mut two = upload();
        for d in two.iter_mut() {
            ntt_lde(d, &gpu.table, &coset, &gpu.stream).unwrap();
        }
        let [a, b, c] = &mut two[..] else {
            unreachable!("three vectors")
        };
        h_pointwise(a, Some(&*b), None, n, Scalar::ONE, &gpu.stream).unwrap();
        h_pointwise(a, None, Some(&*c), n, Scalar::ONE, &gpu.stream).unwrap();
        ntt_coset(a, true, &gpu.table, &coset, &gpu.stream).unwrap();
        let in_two = to_host(a, n, &gpu.stream);
        drop(two);
        assert!(in_two == want, "2^{lg}: the H step in two buffers differs");

        let mut fused = upload();
        for d in fused.iter_mut().take(2) {
            ntt_lde(d, &gpu.table, &coset, &gpu.stream).unwrap();
        }
        let [a, b, c] = &mut fused[..] else {
            unreachable!("three vectors")
        };
        ntt_lde_quotient(a, b, c, &gpu.table, &coset, &gpu.stream).unwrap();
        let got = to_host(a, n, &gpu.stream);
        assert!(got == want, "2^{lg}: the fused H step differs");
        assert!(
            got.iter().any(|x| !bool::from(x.is_zero())),
            "2^{lg}: all zero"
        );
    }
}
