//! The kernels' device code paths on the host: `cuda/field.cuh` (PTX carry chains, modelled with
//! `G16_EMULATE_PTX`), the NTT passes (`cuda/ntt*`), the MSM's index logic (`cuda/msm*.cuh`)
//! and the H kernels of `cuda/h_poly.cu` (their index logic run thread by thread), compiled
//! with the host C++ compiler from `cuda/host_check/`. The field operations are checked against
//! blstrs (the device path and the host's portable one), the NTT against a radix-2 reference
//! and the H kernels against direct formulas, also with the tuning knobs of `cuda/config.cuh`
//! that change their index logic. Runs without a GPU (CI), so a change to the carry chains or
//! a pass plan is checked before it reaches one; the GPU tests (`tests/gpu/`: `field`, `ntt`,
//! `h`) check the compiled kernels themselves.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blstrs::{Fp, Scalar};
use ff::{Field, PrimeField};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The two code paths of `field.cuh` (compiler flags): the host's portable one, and the
/// device's carry chains.
const VARIANTS: [(&str, &str); 2] = [
    ("portable 64-bit products", ""),
    ("carry chains", "-DG16_EMULATE_PTX"),
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
fn field_operations_match_blstrs_on_edge_and_random_operands() {
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

/// Runs a self-checking emulation program with `args` on the device's carry chains, and with
/// each of `more` (extra variants: name, flags).
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
/// the default tiles and register window, and with the other sizes of each (`G16_NTT_WINDOW`:
/// 2^W elements per thread; `G16_NTT_TILE_LOG`).
#[test]
fn ntt_passes_match_a_radix_2_reference() {
    run_self_check(
        "emu_ntt.cpp",
        &["14"],
        &[
            ("window 1", "-DG16_EMULATE_PTX -DG16_NTT_WINDOW=1"),
            ("window 3", "-DG16_EMULATE_PTX -DG16_NTT_WINDOW=3"),
            ("window 4", "-DG16_EMULATE_PTX -DG16_NTT_WINDOW=4"),
            ("tiles of 2^11", "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11"),
        ],
    );
}

/// The NTT passes' shared-memory swizzle: no quarter warp of any register round (every pass
/// width from 5 bits, column count and lane layout, tiles of 2^10 and 2^11, both directions,
/// the remapped high rounds) falls in fewer than 8 bank groups.
#[test]
fn ntt_swizzle_is_free_of_bank_conflicts() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("tiles of 2^10", "-DG16_EMULATE_PTX", &["banks"]),
            (
                "tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["banks"],
            ),
        ],
    );
}

/// The NTT rounds that the kernels join by `__syncwarp` alone (`pass_tile::warp_local`, the top
/// two rounds mapping a thread's index to slots their own way): for every pass width, column
/// count, lane layout and direction, each warp reads and writes the same tile slots in both
/// rounds of such a pair, and some pairs are such. (With the low rounds' bound one bit higher
/// the check fails at 2^10 tiles.)
#[test]
fn ntt_warp_local_rounds_keep_each_warps_slots() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("tiles of 2^10", "-DG16_EMULATE_PTX", &["warps"]),
            (
                "tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["warps"],
            ),
        ],
    );
}

/// The H step's coset transforms, the scaling folded into the passes, against the plain
/// transforms with the scaling apart: two-pass plans (2^11, 2^12, 2^16, tables for the size and
/// for 2^27) and a three-pass one (2^20, its own table); two-pass plans with tiles of 2^11.
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
        ],
    );
}

/// The H step's fused sequence (`ntt_lde`: the joined inverse and coset passes) against the
/// separate passes, bit for bit, on a three-pass plan (2^20, with the top table), and for every
/// size which plans fuse (three passes, 2^20 and up) and with kernels of the widths the device
/// code compiles; with tiles of 2^11 the plans only (their smallest fused size, 2^21, takes
/// minutes to emulate).
#[test]
fn fused_h_passes_match_the_separate_ones() {
    run_variants(
        "emu_ntt.cpp",
        &[
            ("default", "-DG16_EMULATE_PTX", &["fused", "20"]),
            (
                "tiles of 2^11",
                "-DG16_EMULATE_PTX -DG16_NTT_TILE_LOG=11",
                &["fused"],
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

/// Bit reversal, power scaling and the point-wise H step.
#[test]
fn h_kernels_match_direct_formulas() {
    run_self_check("emu_hpoly.cpp", &[], &[]);
}
