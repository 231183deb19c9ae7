//! The benchmark itself (CUDA builds only; see main.rs).

use std::time::Instant;

use blst::blst_scalar;
use blstrs::Scalar;
use blstrs::{G1Affine, G1Projective};
use ff::{Field, PrimeField};
use groth16_c2::testing::cpu::fft::{fft, h_polynomial, Domain};
use groth16_c2::testing::cuda::device::lock_device;
use groth16_c2::testing::cuda::h;
use groth16_c2::testing::cuda::kernels::{self, ntt, MsmStrategy, NttTable};
use groth16_c2::testing::cuda::msm;
use groth16_c2::testing::cuda::runtime::{DeviceBuffer, PinnedRegion, Stream};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::SeedableRng;
use rayon::prelude::*;

fn list(args: &[String], name: &str, default: &str) -> Vec<u32> {
    let v = args
        .iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
        .unwrap_or(default);
    v.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a number"))
        .collect()
}

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

/// One machine-readable line per measurement, `RESULT <what> <size> <value> <unit>`, for
/// scripts that compare builds (scripts/gpu-ab.sh).
fn result(what: &str, size: &str, value: f64, unit: &str) {
    println!("RESULT {what} {size} {value:.3} {unit}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

pub fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = list(&args, "--runs", "5")[0] as usize;
    let cpu = !args.iter().any(|a| a == "--no-cpu");
    let ntt_sizes = list(&args, "--ntt", "20,24,26,27");
    let h_sizes = list(&args, "--h", "24,27");
    let msm_sizes = list(&args, "--msm", "20,22,24,26,27");
    let batch_sizes = list(&args, "--batch", "24,27");
    let field = args.iter().any(|a| a == "--field");
    let strategies: Vec<MsmStrategy> = args
        .iter()
        .position(|a| a == "--msm-strategy")
        .and_then(|i| args.get(i + 1))
        .map_or("auto", String::as_str)
        .split(',')
        .map(|name| {
            MsmStrategy::parse(name)
                .unwrap_or_else(|| panic!("--msm-strategy: `{name}` is not auto or slices"))
        })
        .collect();
    let variants: Vec<&str> = args
        .iter()
        .position(|a| a == "--ntt-variants")
        .and_then(|i| args.get(i + 1))
        .map_or("fwd_nn", String::as_str)
        .split(',')
        .collect();
    for v in &variants {
        assert!(
            NTT_VARIANTS.contains(v),
            "--ntt-variants: `{v}` is not one of {NTT_VARIANTS:?}"
        );
    }
    println!(
        "gpu_bench: {} CPU threads, medians of {runs} runs",
        rayon::current_num_threads()
    );
    if field {
        field_section(runs);
    }

    // Window widths to time the MSM with (0: chosen from the size).
    let windows = list(&args, "--msm-window", "0");
    // Precomputed copies: `--msm-copies 22:12,24:11` (window:copies pairs).
    let copies: Vec<(u32, u32)> = args
        .iter()
        .position(|a| a == "--msm-copies")
        .and_then(|i| args.get(i + 1))
        .map_or("", String::as_str)
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let parsed = p
                .split_once(':')
                .and_then(|(w, m)| Some((w.trim().parse().ok()?, m.trim().parse().ok()?)));
            parsed.unwrap_or_else(|| panic!("--msm-copies: `{p}` is not WINDOW:COPIES"))
        })
        .collect();
    // Chunk lengths of the accumulated MSM (a streamed H MSM): `--msm-chunks 23,24`.
    let chunks: Vec<u32> = list(&args, "--msm-chunks", "");
    msm_section(
        &msm_sizes,
        runs,
        cpu,
        &strategies,
        &windows,
        &copies,
        &chunks,
    );
    batch_section(&batch_sizes, runs, cpu);
    if ntt_sizes.is_empty() && h_sizes.is_empty() {
        return;
    }
    let stream = Stream::new().unwrap();
    // Each size with its own table, as a prover builds it (for the size it proves, at least
    // 2^16), and its top pass's own table, as proofs run where VRAM allows
    // (GROTH16_C2_NTT_TOP_TABLE=0: without).
    let top_tables = h::top_table_policy() != h::TopTablePolicy::Never;
    println!(
        "NTT tables: per size; top-pass tables {}",
        if top_tables { "on" } else { "off" }
    );
    for &lg in &ntt_sizes {
        let mut table = NttTable::new(lg.max(16), &stream).unwrap();
        if top_tables {
            table.build_top(lg, &stream).unwrap();
        }
        stream.synchronize().unwrap();
        let n = 1usize << lg;
        let x = random(n, lg as u64);
        let mut d = DeviceBuffer::<Scalar>::new(n).unwrap();
        d.upload_async(&x, &stream).unwrap();
        stream.synchronize().unwrap();
        for &variant in variants.iter().filter(|v| **v != "fwd_nn") {
            let ms = ntt_variant(variant, &mut d, lg, &table, &stream, runs);
            println!("2^{lg:<6} {ms:>12.2}   ({variant})");
            result(&format!("ntt_{variant}"), &format!("2^{lg}"), ms, "ms");
        }
        let gpu = time(runs, || {
            ntt(&mut d, lg, false, false, false, &table, &stream).unwrap();
            stream.synchronize().unwrap();
        });
        let cpu_ms = if cpu {
            let dom = Domain::new(n);
            let mut v = x.clone();
            time(runs.min(3), || fft(&mut v, dom.omega(), lg))
        } else {
            f64::NAN
        };
        println!(
            "2^{lg:<6} {gpu:>12.2} {cpu_ms:>12.1} {:>10.1}",
            cpu_ms / gpu
        );
        result("ntt_fwd_nn", &format!("2^{lg}"), gpu, "ms");
    }

    println!(
        "\n{:<8} {:>14} {:>14} {:>12} {:>10} {:>12}",
        "H", "gpu+upload ms", "gpu only ms", "cpu ms", "cpu/gpu", "upload GB/s"
    );
    for &lg in &h_sizes {
        let n = 1usize << lg;
        let (a, b, c) = (random(n, 1), random(n, 2), random(n, 3));
        let mut guard = lock_device(0).unwrap();
        let state = guard.as_mut().unwrap();
        // Pinned once, as a prover keeps its buffers pinned: measures the pipeline, not mlock.
        let pins = [
            PinnedRegion::new(&a).unwrap(),
            PinnedRegion::new(&b).unwrap(),
            PinnedRegion::new(&c).unwrap(),
        ];
        let with_upload = time(runs, || {
            h::h_polynomial(state, &a, &b, &c, n).unwrap();
        });
        // Uploads alone, for the bandwidth reached.
        let upload = time(runs, || {
            for (buf, src) in state.abc.iter_mut().zip([&a, &b, &c]) {
                buf.upload_async(src, &state.copy).unwrap();
            }
            state.copy.synchronize().unwrap();
        });
        let gpu_only = time(runs, || {
            h::transform(state, [n, n, n], n, None, h::Order::BitReversed).unwrap();
            state.compute.synchronize().unwrap();
        });
        drop(pins);
        let cpu_ms = if cpu {
            time(runs.min(2), || drop(h_polynomial(&a, &b, &c, n)))
        } else {
            f64::NAN
        };
        let gbps = 3.0 * n as f64 * 32.0 / 1e9 / (upload / 1e3);
        println!(
            "2^{lg:<6} {with_upload:>14.1} {gpu_only:>14.1} {cpu_ms:>12.1} {:>10.1} {gbps:>12.1}",
            cpu_ms / with_upload
        );
        result("h_gpu_only", &format!("2^{lg}"), gpu_only, "ms");
    }
}

/// `n` distinct G1 points, fast: each chunk starts at a random multiple of the generator and
/// walks by a fixed step, then normalises in one batch.
fn random_points(n: usize) -> Vec<G1Affine> {
    let step = G1Projective::generator() * Scalar::from(0x9e37_79b9_u64);
    let mut out = vec![G1Affine::identity(); n];
    out.par_chunks_mut(1 << 12)
        .enumerate()
        .for_each(|(k, chunk)| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(k as u64);
            let mut p = G1Projective::generator() * Scalar::random(&mut rng);
            let proj: Vec<G1Projective> = (0..chunk.len())
                .map(|_| {
                    p += step;
                    p
                })
                .collect();
            G1Projective::batch_normalize(&proj, chunk);
        });
    out
}

/// The G1 MSM under each bucket strategy and window width; rows `msm_g1` (auto) and
/// `msm_g1_<strategy>`, with `_w<bits>` for a forced width.
fn msm_section(
    sizes: &[u32],
    runs: usize,
    cpu: bool,
    strategies: &[MsmStrategy],
    windows: &[u32],
    copies: &[(u32, u32)],
    chunks: &[u32],
) {
    let Some(&largest) = sizes.iter().max() else {
        return;
    };
    let t = Instant::now();
    let points = random_points(1 << largest);
    let montgomery = random(1 << largest, 99);
    let scalars: Vec<blst_scalar> = montgomery
        .par_iter()
        .map(|s| blst_scalar { b: s.to_bytes_le() })
        .collect();
    println!(
        "\nMSM G1, random points and scalars (inputs made in {:.1} s)",
        t.elapsed().as_secs_f64()
    );
    println!(
        "{:<8} {:<10} {:>12} {:>12} {:>10} {:>8}",
        "points", "strategy", "gpu ms", "cpu ms", "cpu/gpu", "same"
    );
    for &lg in sizes {
        let n = 1usize << lg;
        // One CPU result per size; each strategy's result must equal it (or the first
        // strategy's, above the CPU's sizes).
        let mut reference: Option<(f64, G1Projective)> = None;
        for (&window, &strategy) in windows
            .iter()
            .flat_map(|w| strategies.iter().map(move |s| (w, s)))
        {
            kernels::set_msm_window(window).unwrap();
            let (times, gpu_result) =
                msm::time_msm_g1(0, &points[..n], &scalars[..n], runs, strategy).unwrap();
            let gpu = median(times);
            if reference.is_none() && cpu && lg <= 22 {
                let t = Instant::now();
                let expect = groth16_c2::testing::cpu::msm::msm::<blst::blst_p1>(
                    groth16_c2::testing::curve::g1_affine_as_blst(&points[..n]),
                    None,
                    &scalars[..n],
                );
                let ms = t.elapsed().as_secs_f64() * 1e3;
                reference = Some((ms, groth16_c2::testing::curve::g1_from_blst(expect)));
            }
            let (cpu_ms, same) = match reference {
                Some((ms, expect)) => (ms, if expect == gpu_result { "yes" } else { "NO" }),
                None => {
                    reference = Some((f64::NAN, gpu_result));
                    (f64::NAN, "-")
                }
            };
            let name = match strategy {
                MsmStrategy::Auto => "auto",
                MsmStrategy::Slices => "slices",
                MsmStrategy::SlicesTestBinned => "slices_binned",
            };
            let label = if window == 0 {
                name.to_string()
            } else {
                format!("{name}/w{window}")
            };
            println!(
                "2^{lg:<6} {label:<10} {gpu:>12.1} {cpu_ms:>12.1} {:>10.1} {same:>8}",
                cpu_ms / gpu
            );
            let mut row = if strategy == MsmStrategy::Auto {
                "msm_g1".to_string()
            } else {
                format!("msm_g1_{name}")
            };
            if window != 0 {
                row += &format!("_w{window}");
            }
            result(&row, &format!("2^{lg}"), gpu, "ms");
            assert_ne!(same, "NO", "GPU MSMs differ ({label}) at 2^{lg}");
        }
        // Over precomputed copies of the points (the slices): rows `msm_g1_w<c>_m<copies>`,
        // each checked against the rows above; the copies' making is timed apart.
        for &(window, m) in copies {
            let label = format!("w{window}/m{m}");
            match msm::time_msm_g1_copies(
                0,
                &points[..n],
                &scalars[..n],
                runs,
                MsmStrategy::Slices,
                window,
                m,
            ) {
                Ok((times, gpu_result, made_ms)) => {
                    let gpu = median(times);
                    let same = agrees(reference, gpu_result);
                    println!(
                        "2^{lg:<6} {label:<10} {gpu:>12.1} {:>12} {:>10} {same:>8}   (copies made \
                         in {made_ms:.1} ms, {:.1} GB)",
                        "-",
                        "-",
                        (n * m as usize * 96) as f64 / 1e9
                    );
                    result(
                        &format!("msm_g1_w{window}_m{m}"),
                        &format!("2^{lg}"),
                        gpu,
                        "ms",
                    );
                    assert_ne!(same, "NO", "GPU MSMs differ ({label}) at 2^{lg}");
                }
                Err(e) => println!("2^{lg:<6} {label:<10} skipped: {e}"),
            }
        }
        // Accumulated over chunks of 2^c points with the whole MSM's window (or each forced
        // one), reduced once (a streamed H MSM without its uploads): rows `msm_g1_acc<c>`,
        // `msm_g1_acc<c>_w<bits>`.
        let accumulated = chunks
            .iter()
            .filter(|&&c| c < lg)
            .flat_map(|&c| windows.iter().map(move |&w| (c, w)));
        for (c, window) in accumulated {
            let label = match window {
                0 => format!("acc/2^{c}"),
                w => format!("acc/2^{c}/w{w}"),
            };
            let timed = msm::time_msm_g1_accumulated(
                0,
                &points[..n],
                &montgomery[..n],
                1 << c,
                window,
                runs,
            );
            match timed {
                Ok((times, gpu_result)) => {
                    let gpu = median(times);
                    let same = agrees(reference, gpu_result);
                    println!(
                        "2^{lg:<6} {label:<10} {gpu:>12.1} {:>12} {:>10} {same:>8}",
                        "-", "-"
                    );
                    let row = match window {
                        0 => format!("msm_g1_acc{c}"),
                        w => format!("msm_g1_acc{c}_w{w}"),
                    };
                    result(&row, &format!("2^{lg}"), gpu, "ms");
                    assert_ne!(same, "NO", "GPU MSMs differ ({label}) at 2^{lg}");
                }
                Err(e) => println!("2^{lg:<6} {label:<10} skipped: {e}"),
            }
        }
    }
    kernels::set_msm_window(0).unwrap();
}

/// "yes" / "NO" as `got` equals the reference MSM result, "-" without one.
fn agrees(reference: Option<(f64, G1Projective)>, got: G1Projective) -> &'static str {
    match reference {
        Some((_, expect)) if expect == got => "yes",
        Some(_) => "NO",
        None => "-",
    }
}

/// Share of a PoRep partition's points whose scalar is 1 (92% of aux values are 0 or 1, half
/// each): what the bitmap batch additions sum.
const ONES_SHARE: f64 = 0.46;

/// G1 bitmap batch addition (`--batch`): random points, a random bitmap with `ONES_SHARE` of
/// the bits set, data on the device, GPU time by CUDA events; checked against the CPU's sum up
/// to 2^22 points, and against the first run above.
fn batch_section(sizes: &[u32], runs: usize, cpu: bool) {
    use groth16_c2::testing::split::OnesBitmap;
    let Some(&largest) = sizes.iter().max() else {
        return;
    };
    let points = random_points(1 << largest);
    println!(
        "
G1 batch addition, {:.0}% of random points set",
        ONES_SHARE * 100.0
    );
    println!(
        "{:<8} {:>12} {:>12} {:>14} {:>8}",
        "points", "set", "gpu ms", "G adds/s", "same"
    );
    for &lg in sizes {
        let n = 1usize << lg;
        let mut ones = OnesBitmap::zeros(n);
        ones.words
            .par_chunks_mut(1 << 10)
            .enumerate()
            .for_each(|(k, chunk)| {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xba7c ^ (k as u64) << 20);
                for w in chunk {
                    *w = (0..64).fold(0u64, |acc, b| {
                        acc | (u64::from(rand::Rng::gen_bool(&mut rng, ONES_SHARE)) << b)
                    });
                }
            });
        ones.count = ones.words.iter().map(|w| w.count_ones() as usize).sum();
        let (times, got) = msm::time_batch_add_g1(0, &points[..n], &ones, runs).unwrap();
        let ms = median(times);
        let same = if cpu && lg <= 22 {
            let want: G1Projective = ones
                .iter_ones()
                .collect::<Vec<u32>>()
                .par_iter()
                .map(|&p| G1Projective::from(points[p as usize]))
                .reduce(G1Projective::identity, |a, b| a + b);
            if want == got {
                "yes"
            } else {
                "NO"
            }
        } else {
            "-"
        };
        println!(
            "2^{lg:<6} {:>12} {ms:>12.2} {:>14.2} {same:>8}",
            ones.count,
            ones.count as f64 / (ms / 1e3) / 1e9
        );
        assert_ne!(
            same, "NO",
            "GPU batch addition differs from the CPU at 2^{lg}"
        );
        result("batch_add_g1", &format!("2^{lg}"), ms, "ms");
    }
}

/// The NTT rows of `sppark_bench ntt`, under the same names: forward natural to natural,
/// forward natural to bit-reversed, inverse natural to natural, forward on the coset `g H`,
/// one polynomial's H step (inverse NTT, coset scaling, forward NTT; the scaling folded into
/// the coset transform where the size allows, as in H), and the whole H of three polynomials
/// (the device part of `h::transform`).
const NTT_VARIANTS: [&str; 6] = ["fwd_nn", "fwd_nr", "inv_nn", "coset_nn", "lde", "h"];

/// GPU ms of one NTT variant on `d` (2^lg elements), median of `runs`.
fn ntt_variant(
    variant: &str,
    d: &mut DeviceBuffer<Scalar>,
    lg: u32,
    table: &NttTable,
    stream: &Stream,
    runs: usize,
) -> f64 {
    use groth16_c2::testing::cuda::kernels::{ntt_lde, scale_powers, CosetTable};
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let n = 1usize << lg;
    let n_inv = Scalar::from(n as u64).invert().unwrap();
    // The H step's coset tables (None for sizes that cannot fold the scaling).
    let coset = CosetTable::new(lg, stream).unwrap();
    if variant == "h" {
        let mut abc: Vec<DeviceBuffer<Scalar>> = (0..3)
            .map(|i| {
                let mut b = DeviceBuffer::<Scalar>::new(n).unwrap();
                b.upload_async(&random(n, 100 + i), stream).unwrap();
                b
            })
            .collect();
        stream.synchronize().unwrap();
        return time(runs, || {
            let order = h::Order::BitReversed;
            h::transform_on(
                stream,
                table,
                coset.as_ref(),
                &mut abc,
                [n; 3],
                n,
                None,
                order,
            )
            .unwrap();
            stream.synchronize().unwrap();
        });
    }
    time(runs, || {
        match variant {
            "fwd_nr" => ntt(d, lg, false, false, true, table, stream).unwrap(),
            "inv_nn" => ntt(d, lg, true, false, false, table, stream).unwrap(),
            "coset_nn" => {
                scale_powers(d, lg, Scalar::ONE, g, false, stream).unwrap();
                ntt(d, lg, false, false, false, table, stream).unwrap();
            }
            "lde" => {
                match &coset {
                    // The H step's sequence (one kernel fewer from 2^20 up).
                    Some(coset) => ntt_lde(d, table, coset, stream).unwrap(),
                    None => {
                        ntt(d, lg, true, false, true, table, stream).unwrap();
                        scale_powers(d, lg, n_inv, g, true, stream).unwrap();
                        ntt(d, lg, false, true, false, table, stream).unwrap();
                    }
                }
            }
            _ => ntt(d, lg, false, false, false, table, stream).unwrap(),
        }
        stream.synchronize().unwrap();
    })
}

/// Measured 32-bit IMAD rate of the H200 machine (low halves; IMAD.HI issues at half of it).
#[cfg(feature = "gpu-test-kernels")]
const IMAD_PER_S: f64 = 16.7e12;
/// Multiplication throughput per field (`--field`): chains of dependent Montgomery products
/// (`FieldOp::MulChain`) over many elements, against the IMAD ceiling of one product (2N^2
/// low and 2N^2 high multiply-adds for N 32-bit limbs, the high ones at half rate); the first
/// results are checked against blstrs.
#[cfg(feature = "gpu-test-kernels")]
fn field_section(runs: usize) {
    println!(
        "\n{:<8} {:>10} {:>14} {:>16} {:>10}",
        "field", "elements", "G mul/s", "ceiling G mul/s", "of ceiling"
    );
    use groth16_c2::testing::cuda::kernels::FieldOp;
    let imad_ceiling = |limbs: usize| IMAD_PER_S / (6.0 * (limbs * limbs) as f64) / 1e9;
    field_row::<Scalar>(
        "Fr",
        false,
        FieldOp::MulChain,
        imad_ceiling(8),
        1 << 24,
        runs,
    );
    field_row::<blstrs::Fp>(
        "Fp",
        true,
        FieldOp::MulChain,
        imad_ceiling(12),
        1 << 23,
        runs,
    );
    // Two integer chains per thread, paired by mont_t::mul2 (the curve additions' form).
    field_row::<Scalar>(
        "Fr_pair",
        false,
        FieldOp::MulChainPaired,
        imad_ceiling(8),
        1 << 24,
        runs,
    );
    field_row::<blstrs::Fp>(
        "Fp_pair",
        true,
        FieldOp::MulChainPaired,
        imad_ceiling(12),
        1 << 23,
        runs,
    );
}

#[cfg(not(feature = "gpu-test-kernels"))]
fn field_section(_runs: usize) {
    println!(
        "\n--field needs a build with the feature gpu-test-kernels (scripts/gpu-pack.sh has it)"
    );
}

#[cfg(feature = "gpu-test-kernels")]
fn field_row<F: Field>(
    name: &str,
    fp: bool,
    op: groth16_c2::testing::cuda::kernels::FieldOp,
    ceiling: f64,
    n: usize,
    runs: usize,
) {
    use groth16_c2::testing::cuda::kernels::{field_op, FieldOp, MUL_CHAIN_LEN};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(if fp { 12 } else { 8 });
    let check = 64;
    // Random operands where the results are checked, a constant elsewhere (fast to make).
    let mut operands = || -> Vec<F> {
        (0..n)
            .map(|i| {
                if i < check {
                    F::random(&mut rng)
                } else {
                    F::ONE.double()
                }
            })
            .collect()
    };
    let (a, b) = (operands(), operands());
    let stream = Stream::new().unwrap();
    let mut da = DeviceBuffer::<F>::new(n).unwrap();
    let mut db = DeviceBuffer::<F>::new(n).unwrap();
    let mut out = DeviceBuffer::<F>::new(n).unwrap();
    da.upload_async(&a, &stream).unwrap();
    db.upload_async(&b, &stream).unwrap();
    stream.synchronize().unwrap();
    let ms = time(runs.max(3), || {
        field_op(fp, op, &da, &db, &mut out, &stream).unwrap();
        stream.synchronize().unwrap();
    });
    let mut got = vec![F::ZERO; n];
    out.download_async(&mut got, &stream).unwrap();
    stream.synchronize().unwrap();
    for i in 0..check {
        let mut want = a[i] * b[i].pow_vartime([MUL_CHAIN_LEN]);
        if op == FieldOp::MulChainPaired {
            want += b[i].pow_vartime([MUL_CHAIN_LEN + 1]);
        }
        assert!(got[i] == want, "{name}: element {i} differs from blstrs");
    }
    // The paired chains do two products per step: twice as many per element.
    let chains = if op == FieldOp::MulChainPaired {
        2.0
    } else {
        1.0
    };
    let rate = chains * n as f64 * MUL_CHAIN_LEN as f64 / (ms / 1e3) / 1e9;
    println!(
        "{name:<8} {n:>10} {rate:>14.2} {ceiling:>16.2} {:>9.0}%",
        100.0 * rate / ceiling
    );
    result(&format!("mul_{}", name.to_lowercase()), "-", rate, "Gmul/s");
}
