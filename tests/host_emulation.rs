//! The kernels' device code paths on the host: `cuda/field.cuh` (PTX carry chains, modelled with
//! `G16_EMULATE_PTX`), the NTT passes of `cuda/ntt.cu` and the H kernels of `cuda/h_poly.cu`
//! (their index logic run thread by thread), compiled with the host C++ compiler from
//! `cuda/host_check/`. The field operations are checked against blstrs, the NTT against a
//! radix-2 reference and the H kernels against direct formulas, for every variant of the
//! multiplication the kernels can be built with. Runs without a GPU (CI), so a change to the
//! carry chains or a pass plan is checked before it reaches one; the GPU tests (`gpu_field`,
//! `gpu_ntt`, `gpu_h`) check the compiled kernels themselves.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blstrs::{Fp, Scalar};
use ff::{Field, PrimeField};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The multiplication variants of `field.cuh` (compiler flags).
const VARIANTS: [(&str, &str); 8] = [
    ("portable 64-bit products", ""),
    ("CIOS carry chains", "-DG16_EMULATE_PTX -DG16_MUL_CIOS"),
    (
        "even/odd carry chains",
        "-DG16_EMULATE_PTX -DG16_MUL_EVEN_ODD",
    ),
    (
        "CIOS, dedicated squaring",
        "-DG16_EMULATE_PTX -DG16_MUL_CIOS -DG16_SQR_DEDICATED",
    ),
    (
        "even/odd, dedicated squaring",
        "-DG16_EMULATE_PTX -DG16_MUL_EVEN_ODD -DG16_SQR_DEDICATED",
    ),
    (
        "even/odd, Fr's generic reduction",
        "-DG16_EMULATE_PTX -DG16_FR_GENERIC_REDUCTION",
    ),
    (
        "even/odd, 32x32->64 products",
        "-DG16_EMULATE_PTX -DG16_MUL_WIDE",
    ),
    (
        "even/odd, one Karatsuba level",
        "-DG16_EMULATE_PTX -DG16_KARATSUBA_LIMBS=8",
    ),
];

const RANDOM_PAIRS: usize = 4000;

fn cxx() -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let ok = Command::new(&cxx)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(cxx)
}

/// Builds `cuda/host_check/<source>` with `flags` into `dir`.
fn build(cxx: &str, source: &str, flags: &str, dir: &Path, name: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cuda/host_check")
        .join(source);
    let out = dir.join(name);
    let status = Command::new(cxx)
        .args(["-x", "c++", "-O2", "-std=c++17", "-include", "cstring"])
        .args(flags.split_whitespace())
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run the C++ compiler");
    assert!(status.success(), "{cxx} {flags} {} failed", src.display());
    out
}

/// A field as the check program sees it (selector, limb count) and as blstrs computes in it.
/// Values cross as canonical integers in big-endian hex; the program's limbs are a Montgomery
/// form, so its `a * b` is `a * b / R` with `R = 2^(32 * LIMBS)`.
trait TestField: Field {
    const WHICH: u32;
    const LIMBS: usize;
    fn le_bytes(&self) -> Vec<u8>;
    fn from_le(bytes: &[u8]) -> Self;

    fn hex(&self) -> String {
        self.le_bytes()
            .iter()
            .rev()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
    fn from_hex(h: &str) -> Self {
        let mut bytes: Vec<u8> = (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect();
        bytes.reverse();
        bytes.resize(4 * Self::LIMBS, 0);
        Self::from_le(&bytes)
    }
    /// 2^k.
    fn pow2(k: u64) -> Self {
        Self::ONE.double().pow_vartime([k])
    }
    /// R mod p.
    fn r() -> Self {
        Self::pow2(32 * Self::LIMBS as u64)
    }
}

impl TestField for Scalar {
    const WHICH: u32 = 0;
    const LIMBS: usize = 8;
    fn le_bytes(&self) -> Vec<u8> {
        self.to_repr().to_vec()
    }
    fn from_le(bytes: &[u8]) -> Self {
        Scalar::from_repr(bytes.try_into().unwrap()).expect("canonical")
    }
}

impl TestField for Fp {
    const WHICH: u32 = 1;
    const LIMBS: usize = 12;
    fn le_bytes(&self) -> Vec<u8> {
        self.to_bytes_le().to_vec()
    }
    fn from_le(bytes: &[u8]) -> Self {
        Fp::from_bytes_le(bytes.try_into().unwrap()).expect("canonical")
    }
}

/// What the check program prints per pair: `a + b, a - b, a*b/R, a*a/R, -a, a*R, a/R,
/// (a/R)^-1 * R, (a/R)^12345 * R` (the last three read `a` as a Montgomery form).
const OPS: [&str; 14] = [
    "a+b",
    "a-b",
    "a*b",
    "a.sqr()",
    "-a",
    "to_mont",
    "from_mont",
    "inverse",
    "pow",
    "inverse_vartime",
    "mul2: a*b",
    "mul2: b*(a+b)",
    "mul_add2: a*b + (a+b)*b",
    "mul_add2: a*a - b*b",
];

fn expected<F: TestField>(a: F, b: F) -> [F; 14] {
    let r = F::r();
    let r_inv = r.invert().unwrap();
    let am = a * r_inv; // the element whose Montgomery form is a
    [
        a + b,
        a - b,
        a * b * r_inv,
        a.square() * r_inv,
        -a,
        a * r,
        am,
        am.invert().unwrap_or(F::ZERO) * r,
        am.pow_vartime([12345]) * r,
        am.invert().unwrap_or(F::ZERO) * r,
        a * b * r_inv,
        b * (a + b) * r_inv,
        (a * b + (a + b) * b) * r_inv,
        (a * a - b * b) * r_inv,
    ]
}

/// Edge operands: 0, 1, 2, p-1, p-2, (p-1)/2, R and -R mod p (the Montgomery forms of 1 and
/// -1), 2^k and its neighbours, and every limb set to one pattern (reduced mod p).
fn edges<F: TestField>() -> Vec<F> {
    let half = -F::ONE * F::ONE.double().invert().unwrap();
    let mut v = vec![
        F::ZERO,
        F::ONE,
        F::ONE.double(),
        -F::ONE,
        -F::ONE.double(),
        half,
        F::r(),
        -F::r(),
    ];
    for k in [
        31, 32, 33, 63, 64, 127, 128, 200, 250, 254, 255, 300, 380, 381,
    ] {
        let x = F::pow2(k);
        v.extend([x - F::ONE, x, x + F::ONE]);
    }
    let all_ones = F::pow2(32) - F::ONE;
    let fives = all_ones * F::from_hex("03").invert().unwrap(); // 0x55555555
    for pattern in [all_ones, F::pow2(31), fives] {
        let limb = F::pow2(32);
        let mut x = F::ZERO;
        for _ in 0..F::LIMBS {
            x = x * limb + pattern;
        }
        v.push(x);
    }
    v
}

fn pairs<F: TestField>(seed: u64) -> Vec<(F, F)> {
    let e = edges::<F>();
    let mut out: Vec<(F, F)> = e
        .iter()
        .flat_map(|&a| e.iter().map(move |&b| (a, b)))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..RANDOM_PAIRS {
        let a = F::random(&mut rng);
        // Every tenth pair has equal operands.
        let b = if i % 10 == 0 { a } else { F::random(&mut rng) };
        out.push((a, b));
    }
    out
}

/// Feeds `cases` to a check program (`FIELD COUNT`, then one hex pair per line) and returns
/// the hex words it prints.
fn run_pairs<F: TestField>(program: &Path, cases: &[(F, F)], what: &str) -> Vec<String> {
    let mut input = format!("{} {}\n", F::WHICH, cases.len());
    for (a, b) in cases {
        input += &format!("{} {}\n", a.hex(), b.hex());
    }
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Write from another thread: the program answers as it reads, and a full output pipe
    // would otherwise stop it reading.
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{what}: the check program failed");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().map(str::to_owned).collect()
}

fn check<F: TestField>(program: &Path, variant: &str) {
    let cases = pairs::<F>(0xF1E1D + F::WHICH as u64);
    let got = run_pairs(program, &cases, variant);
    assert_eq!(
        got.len(),
        cases.len() * OPS.len(),
        "{variant}: output count"
    );
    let mut bad = Vec::new();
    for (k, (a, b)) in cases.iter().enumerate() {
        for (o, e) in expected(*a, *b).into_iter().enumerate() {
            if F::from_hex(&got[k * OPS.len() + o]) != e {
                bad.push(format!("{}({}, {})", OPS[o], a.hex(), b.hex()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{variant}, field {}: {} wrong results, first: {:?}",
        F::WHICH,
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn every_multiplication_variant_matches_blstrs_on_edge_and_random_operands() {
    let Some(cxx) = cxx() else {
        eprintln!("SKIP host_emulation: no C++ compiler (set CXX)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (i, (variant, flags)) in VARIANTS.iter().enumerate() {
        let program = build(
            &cxx,
            "field_check.cpp",
            flags,
            dir.path(),
            &format!("field_check_{i}"),
        );
        check::<Scalar>(&program, variant);
        check::<Fp>(&program, variant);
    }
}

/// Builds `source` once per variant (name, flags, program arguments) and runs it: a
/// self-checking emulation program must print `ALL OK` last and exit 0.
fn run_variants(source: &str, variants: &[(&str, &str, &[&str])]) {
    let Some(cxx) = cxx() else {
        eprintln!("SKIP host_emulation: no C++ compiler (set CXX)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (i, (variant, flags, args)) in variants.iter().enumerate() {
        let program = build(&cxx, source, flags, dir.path(), &format!("check_{i}"));
        let out = Command::new(&program).args(*args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.trim_end().ends_with("ALL OK"),
            "{source}, {variant}: {}",
            text.lines()
                .filter(|l| !l.ends_with("errs 0"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Runs a self-checking emulation program with `args` for every variant that uses the carry
/// chains, and with each of `more` (extra variants: name, flags).
fn run_self_check(source: &str, args: &[&str], more: &[(&str, &str)]) {
    let variants: Vec<(&str, &str, &[&str])> = VARIANTS
        .iter()
        .skip(1)
        .chain(more)
        .map(|&(name, flags)| (name, flags, args))
        .collect();
    run_variants(source, &variants);
}

/// Every pass plan of 2^1..2^14 (tables up to 2^27), forward and inverse, DIF and DIT, with
/// each register window the kernels can be built with (`G16_NTT_WINDOW`: 2^W elements per
/// thread).
#[test]
fn ntt_passes_match_a_radix_2_reference() {
    run_self_check(
        "emu_ntt.cpp",
        &["14"],
        &[
            ("window 3", "-DG16_EMULATE_PTX -DG16_NTT_WINDOW=3"),
            ("window 1", "-DG16_EMULATE_PTX -DG16_NTT_WINDOW=1"),
            ("tiles of 2^11", "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11"),
            (
                "Fr's generic reduction",
                "-DG16_EMULATE_PTX -DG16_FR_GENERIC_REDUCTION",
            ),
            ("window 2, CIOS", "-DG16_EMULATE_PTX -DG16_MUL_CIOS"),
            (
                "window 4, even/odd",
                "-DG16_EMULATE_PTX -DG16_MUL_EVEN_ODD -DG16_NTT_WINDOW=4",
            ),
            ("twiddle tree", "-DG16_EMULATE_PTX -DG16_NTT_TWIDDLE_TREE"),
            ("twiddle chain", "-DG16_EMULATE_PTX -DG16_NTT_TWIDDLE_CHAIN"),
            (
                "tiles through shared memory (staged IO)",
                "-DG16_EMULATE_PTX -DG16_NTT_STAGED_IO",
            ),
            (
                "direct IO on bit-0 passes only",
                "-DG16_EMULATE_PTX -DG16_NTT_DIRECT_IO_BOTTOM_ONLY",
            ),
            (
                "lanes over a line's slots (old swizzle)",
                "-DG16_EMULATE_PTX -DG16_NTT_LANE_ROWS",
            ),
            ("no pass table", "-DG16_EMULATE_PTX -DG16_NTT_NO_PASS_TABLE"),
            (
                "layer products on the FP64 pipe",
                "-DG16_EMULATE_PTX -DG16_NTT_F64",
            ),
            (
                "between-pass twiddles on the FP64 pipe",
                "-DG16_EMULATE_PTX -DG16_NTT_TWIDDLE_F64",
            ),
            (
                "twiddle tree, window 3",
                "-DG16_EMULATE_PTX -DG16_NTT_TWIDDLE_TREE -DG16_NTT_WINDOW=3",
            ),
            (
                "rounds in order, a block barrier after each",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0",
            ),
        ],
    );
}

/// The NTT passes' shared-memory swizzle (lanes over columns, the default): no quarter warp of
/// any register round (every pass width from 5 bits, column count and lane layout, tiles of
/// 2^10 and 2^11, both directions, the default's remapped high rounds and the rounds in order
/// of `-DG16_NTT_WARP_SYNC=0`) falls in fewer than 8 bank groups. (Built with
/// `G16_NTT_LANE_ROWS`, `emu_ntt banks` prints the old swizzle's conflicts: 2-way in the round
/// at L0 = 2 and, at 2+ lines per block, elsewhere.)
#[test]
fn ntt_swizzle_is_free_of_bank_conflicts() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("lanes over columns", "-DG16_EMULATE_PTX", &["banks"]),
            (
                "lanes over columns, tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["banks"],
            ),
            (
                "rounds in order",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0",
                &["banks"],
            ),
            (
                "rounds in order, tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0 -DG16_NTT_TILE_LOG=11",
                &["banks"],
            ),
        ],
    );
}

/// The NTT rounds that the kernels join by `__syncwarp` alone (`pass_tile::warp_local`; the
/// default `G16_NTT_WARP_SYNC=2`, whose top two rounds map a thread's index to slots their own
/// way): for every pass width, column count, lane layout and direction, each warp reads and
/// writes the same tile slots in both rounds of such a pair, and some pairs are such; also with
/// the rounds in order (`-DG16_NTT_WARP_SYNC=0`, where the rule is that of `=1`). (With the low
/// rounds' bound one bit higher the check fails at 2^10 tiles.)
#[test]
fn ntt_warp_local_rounds_keep_each_warps_slots() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("lanes over columns", "-DG16_EMULATE_PTX", &["warps"]),
            (
                "lanes over columns, tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["warps"],
            ),
            (
                "lane rows",
                "-DG16_EMULATE_PTX -DG16_NTT_LANE_ROWS",
                &["warps"],
            ),
            (
                "rounds in order",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0",
                &["warps"],
            ),
            (
                "rounds in order, tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0 -DG16_NTT_TILE_LOG=11",
                &["warps"],
            ),
        ],
    );
}

/// The H step's coset transforms, the scaling folded into the passes, against the plain
/// transforms with the scaling apart: two-pass plans (2^11, 2^12, 2^16, tables for the size and
/// for 2^27) and a three-pass one (2^20, its own table), with the default kernels; two-pass
/// plans with tiles of 2^11 and with the between-pass twiddles on the FP64 pipe.
#[test]
fn coset_passes_fold_the_scaling() {
    run_variants(
        "emu_ntt.cpp",
        &[
            (
                "default",
                "-DG16_EMULATE_PTX",
                &["coset", "11", "12", "16", "20"],
            ),
            (
                "tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["coset", "12", "16"],
            ),
            (
                "between-pass twiddles on the FP64 pipe",
                "-DG16_EMULATE_PTX -DG16_NTT_TWIDDLE_F64",
                &["coset", "12"],
            ),
            (
                "rounds in order",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0",
                &["coset", "12", "20"],
            ),
        ],
    );
}

/// The H step's fused sequences (`ntt_lde`, `ntt_lde_quotient`: the joined inverse and coset
/// passes, the quotient kernel) against the separate passes and the point-wise step, bit for
/// bit, on a three-pass plan (2^20: H's coset factors, with the top table; a wrong `b` must
/// change the result), and for every size which plans fuse (three passes, 2^20 and up) and with
/// kernels of the widths the device code compiles; with tiles of 2^11 the plans only (their
/// smallest fused size, 2^21, takes minutes to emulate).
#[test]
fn fused_h_passes_match_the_separate_ones() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("default", "-DG16_EMULATE_PTX", &["fused", "20q"]),
            (
                "tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["fused"],
            ),
            (
                "rounds in order",
                "-DG16_EMULATE_PTX -DG16_NTT_WARP_SYNC=0",
                &["fused", "20q"],
            ),
        ],
    );
}

/// The MSM accumulation's index logic (slices of the sorted entries, their flushes, the tree
/// rounds over head slots, the finishing step, the plan's slot count) with a toy group, on
/// bucket sizes around the slice length, one bucket holding every entry, runs of empty buckets,
/// one entry and none; with the default and the widest windows. And the whole MSM over
/// precomputed copies in the group Z_(2^61 - 1): digits, keys, entries, groups of windows
/// sharing buckets, passes of whole groups, the combination; random, r - 1 and small scalars,
/// identity points.
#[test]
fn msm_slices_sum_every_bucket() {
    run_variants(
        "emu_msm.cpp",
        &[
            ("default", "", &[]),
            ("22-bit windows", "-DG16_MSM_MAX_WINDOW=22", &[]),
        ],
    );
}

/// The lazy Fp forms (below 2p; `G16_MSM_LAZY_FP`'s slice kernel): the unreduced products and
/// the 2p additions against the reduced ones on edge and random operands, and G1 mixed additions
/// in the lazy form against the reduced ones after every step (doublings and identities among
/// them), through the device's carry chains.
#[test]
fn lazy_fp_additions_match_the_reduced_ones() {
    run_variants(
        "lazy_add_check.cpp",
        &[(
            "even/odd carry chains",
            "-DG16_EMULATE_PTX -DG16_MUL_EVEN_ODD",
            &[],
        )],
    );
}

/// The batch-affine accumulation's index logic (round layouts, the positions each warp and lane
/// visits forward and back, what each round reads and writes, final buckets, chunks adding into
/// the buckets, the plan's buffer sizes) with a toy group, on sparse, small, large and skewed
/// buckets, one bucket holding every entry, runs of empty buckets, one entry and none; with the
/// default and the widest windows.
#[test]
fn msm_affine_rounds_sum_every_bucket() {
    run_variants(
        "emu_msm_affine.cpp",
        &[
            ("default", "", &[]),
            ("22-bit windows", "-DG16_MSM_MAX_WINDOW=22", &[]),
        ],
    );
}

/// Bit reversal, power scaling and the point-wise H step.
#[test]
fn h_kernels_match_direct_formulas() {
    run_self_check("emu_hpoly.cpp", &[], &[]);
}

/// The FP64-limb products of `cuda/mont52.cuh` (limb products split by fused multiply-adds,
/// Fr with R = 2^260, Fp with R = 2^416, multipliers prepared by `prepare52` or shifted by
/// `to_m52_scaled`) against blstrs:
/// the round trip through the limbs, one product, three products fed back unreduced, and an
/// input between p and 2p, on the edge and random operands of the other field checks.
#[test]
fn fp64_limb_products_match_blstrs() {
    let Some(cxx) = cxx() else {
        eprintln!("SKIP host_emulation: no C++ compiler (set CXX)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let program = build(&cxx, "mont52_check.cpp", "", dir.path(), "mont52_check");
    check_limb_products::<Scalar>(&program, "mont52_check");
    check_limb_products::<Fp>(&program, "mont52_check");
    // The multiplier as b's words shifted (`to_m52_scaled`, what `mul_f64` uses).
    let scaled = build(
        &cxx,
        "mont52_check.cpp",
        "-DMONT52_SCALED",
        dir.path(),
        "mont52_check_scaled",
    );
    check_limb_products::<Scalar>(&scaled, "mont52_check_scaled");
    check_limb_products::<Fp>(&scaled, "mont52_check_scaled");
}

/// The carry-free 29-bit-limb Fp products of `cuda/mont29.cuh` (64-bit column sums, R' =
/// 2^406 with the right operand shifted by 22 bits so that blst's Montgomery forms stay): the
/// same four outputs as the FP64-limb check, Fp only.
#[test]
fn radix_29_products_match_blstrs() {
    let Some(cxx) = cxx() else {
        eprintln!("SKIP host_emulation: no C++ compiler (set CXX)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let program = build(&cxx, "mont29_check.cpp", "", dir.path(), "mont29_check");
    check_limb_products::<Fp>(&program, "mont29_check");
}

/// The four outputs of a limb-form check program (`mont52_check`, `mont29_check`) against
/// blstrs: a's round trip, a * b, a * b^3 and (a + p) * b.
fn check_limb_products<F: TestField>(program: &Path, what: &str) {
    let cases = pairs::<F>(0xF52 + F::WHICH as u64);
    let got = run_pairs(program, &cases, what);
    assert_eq!(got.len(), cases.len() * 4, "output count");
    let r_inv = F::r().invert().unwrap();
    let mut bad = Vec::new();
    for (k, (a, b)) in cases.iter().enumerate() {
        let ab = *a * b * r_inv;
        let want = [*a, ab, ab * (*b * r_inv).square(), ab];
        for (o, w) in want.iter().enumerate() {
            if F::from_hex(&got[k * 4 + o]) != *w {
                bad.push(format!("output {o} of ({}, {})", a.hex(), b.hex()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{what}, field {}: {} wrong results, first: {:?}",
        F::WHICH,
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}
