//! The params-file reader under conditions the C-ABI tests do not reach: a file truncated by
//! another writer while it is being loaded (an error or the old contents, never a signal),
//! points spread over many parallel chunks (every one decoded, the first bad one in file order
//! reported), and the optional subgroup check.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use blst::{blst_bendian_from_fp, blst_fp, blst_fp_from_uint64, blst_fp_sqr, blst_fp_sqrt};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use groth16_c2::error::Error;
use groth16_c2::srs::{LoadOptions, Srs};
use group::{Curve, Group};

const NO_SUBGROUP: LoadOptions = LoadOptions {
    subgroup_check: false,
};

/// Distinct points cycled through the sections (the reader cannot tell).
struct Pool {
    g1: Vec<[u8; 96]>,
    g2: Vec<[u8; 192]>,
}

fn pool(n: u64) -> Pool {
    Pool {
        g1: (1..=n)
            .map(|i| {
                (G1Projective::generator() * Scalar::from(i * 1_000_003))
                    .to_affine()
                    .to_uncompressed()
            })
            .collect(),
        g2: (1..=n)
            .map(|i| {
                (G2Projective::generator() * Scalar::from(i * 1_000_003))
                    .to_affine()
                    .to_uncompressed()
            })
            .collect(),
    }
}

/// Section counts: ic, h, l, a, b_g1, b_g2 (= b_g1).
type Counts = [usize; 5];

/// Writes a params file; the point at index `i` of each section is pool point `i % len`.
fn write_params(path: &Path, pool: &Pool, [ic, h, l, a, b]: Counts) {
    let mut f = BufWriter::new(File::create(path).unwrap());
    let (g1, g2) = (&pool.g1, &pool.g2);
    for p in [&g1[0], &g1[1]] {
        f.write_all(p).unwrap();
    }
    for p in [&g2[0], &g2[1]] {
        f.write_all(p).unwrap();
    }
    f.write_all(&g1[2]).unwrap();
    f.write_all(&g2[2]).unwrap();
    for count in [ic, h, l, a, b] {
        f.write_all(&(count as u32).to_be_bytes()).unwrap();
        for i in 0..count {
            f.write_all(&g1[i % g1.len()]).unwrap();
        }
    }
    f.write_all(&(b as u32).to_be_bytes()).unwrap();
    for i in 0..b {
        f.write_all(&g2[i % g2.len()]).unwrap();
    }
    f.flush().unwrap();
}

/// Byte offset of point `index` of section `s` (0 = ic .. 5 = b_g2).
fn point_offset(counts: Counts, s: usize, index: usize) -> usize {
    let [ic, h, l, a, b] = counts;
    let mut at = 3 * 96 + 3 * 192;
    for (i, (count, size)) in [(ic, 96), (h, 96), (l, 96), (a, 96), (b, 96), (b, 192)]
        .into_iter()
        .enumerate()
    {
        at += 4;
        if i == s {
            return at + index * size;
        }
        at += count * size;
    }
    unreachable!()
}

#[test]
fn every_point_of_every_chunk_is_decoded() {
    let pool = pool(97);
    // Counts that are not multiples of a task's points, so every section ends mid-task.
    let counts = [3, 70_001, 65_537, 70_003, 17_001];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.params");
    write_params(&path, &pool, counts);
    let srs = Srs::load(&path, NO_SUBGROUP).unwrap();
    let g1s: Vec<G1Affine> = pool
        .g1
        .iter()
        .map(|b| G1Affine::from_uncompressed(b).unwrap())
        .collect();
    let g2s: Vec<G2Affine> = pool
        .g2
        .iter()
        .map(|b| G2Affine::from_uncompressed(b).unwrap())
        .collect();
    let g1 = |i: usize| g1s[i % g1s.len()];
    let g2 = |i: usize| g2s[i % g2s.len()];
    assert_eq!(srs.vk.alpha_g1, g1(0));
    assert_eq!(srs.vk.beta_g2, g2(0));
    assert_eq!(srs.vk.delta_g2, g2(2));
    for (name, points, count) in [
        ("ic", &srs.vk.ic, counts[0]),
        ("h", &srs.h, counts[1]),
        ("l", &srs.l, counts[2]),
        ("a", &srs.a, counts[3]),
        ("b_g1", &srs.b_g1, counts[4]),
    ] {
        assert_eq!(points.len(), count, "{name}");
        for (i, p) in points.iter().enumerate() {
            assert_eq!(*p, g1(i), "{name}[{i}]");
        }
    }
    assert_eq!(srs.b_g2.len(), counts[4]);
    for (i, p) in srs.b_g2.iter().enumerate() {
        assert_eq!(*p, g2(i), "b_g2[{i}]");
    }
    assert_eq!(
        srs.file_bytes as u64,
        std::fs::metadata(&path).unwrap().len()
    );
}

#[test]
fn the_first_bad_point_in_file_order_is_reported() {
    let pool = pool(31);
    let counts = [2, 60_000, 60_000, 60_000, 9_000];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.params");
    write_params(&path, &pool, counts);
    let clean = std::fs::read(&path).unwrap();
    let off_curve = |bytes: &mut Vec<u8>, s: usize, index: usize, size: usize| {
        bytes[point_offset(counts, s, index) + size - 1] ^= 1;
    };
    // Bad points in several chunks and sections: the earliest in the file wins, whichever
    // chunk finishes first.
    for (bad, expect) in [
        (
            vec![(3, 59_999, 96), (1, 41_000, 96), (1, 40_999, 96)],
            "point 40999 of section `h`",
        ),
        (
            vec![(5, 8_999, 192), (2, 0, 96), (4, 5, 96)],
            "point 0 of section `l`",
        ),
        (vec![(5, 4_444, 192)], "point 4444 of section `b_g2`"),
    ] {
        let mut bytes = clean.clone();
        for &(s, i, size) in &bad {
            off_curve(&mut bytes, s, i, size);
        }
        std::fs::write(&path, &bytes).unwrap();
        for _ in 0..3 {
            let err = Srs::load(&path, NO_SUBGROUP).unwrap_err().to_string();
            assert!(
                err.contains(expect) && err.contains("is not on the curve"),
                "{err}"
            );
        }
    }
}

/// A G1 point on the curve but outside the prime-order subgroup (the cofactor is large, so
/// almost every curve point is one).
fn g1_outside_subgroup() -> [u8; 96] {
    for x in 1u64.. {
        let mut fx = blst_fp::default();
        let [mut x2, mut x3, mut rhs, mut y] = [blst_fp::default(); 4];
        let mut four = blst_fp::default();
        // SAFETY: blst field arithmetic on initialised values.
        unsafe {
            blst_fp_from_uint64(&mut fx, [x, 0, 0, 0, 0, 0].as_ptr());
            blst_fp_from_uint64(&mut four, [4, 0, 0, 0, 0, 0].as_ptr());
            blst_fp_sqr(&mut x2, &fx);
            blst::blst_fp_mul(&mut x3, &x2, &fx);
            blst::blst_fp_add(&mut rhs, &x3, &four);
            if !blst_fp_sqrt(&mut y, &rhs) {
                continue;
            }
        }
        let mut out = [0u8; 96];
        // SAFETY: each call writes 48 bytes.
        unsafe {
            blst_bendian_from_fp(out.as_mut_ptr(), &fx);
            blst_bendian_from_fp(out[48..].as_mut_ptr(), &y);
        }
        let p = Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(&out))
            .expect("on the curve by construction");
        if !bool::from(p.is_torsion_free()) {
            return out;
        }
    }
    unreachable!()
}

#[test]
fn the_subgroup_check_is_optional() {
    let pool = pool(11);
    let counts = [2, 5_000, 5_000, 5_000, 1_000];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("subgroup.params");
    write_params(&path, &pool, counts);
    let with = LoadOptions {
        subgroup_check: true,
    };
    Srs::load(&path, with).expect("valid points pass the subgroup check");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = point_offset(counts, 3, 4_321);
    bytes[at..at + 96].copy_from_slice(&g1_outside_subgroup());
    std::fs::write(&path, &bytes).unwrap();
    Srs::load(&path, NO_SUBGROUP).expect("on the curve is all that is checked by default");
    let err = Srs::load(&path, with).unwrap_err().to_string();
    assert!(
        err.contains("point 4321 of section `a` is not in the prime-order subgroup"),
        "{err}"
    );
}

/// What one load ended in, when another writer truncates the file in the middle of it.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The truncation came after the reader was done (the old contents loaded).
    Loaded,
    /// It came first: the file was already short when it was opened.
    ShortAtOpen,
    /// It came during the load.
    ShortDuringLoad,
}

#[test]
fn a_file_truncated_during_the_load_is_an_error_not_a_crash() {
    let pool = pool(64);
    // About 40 MB: tens of milliseconds to load even on a fast machine.
    let counts = [2, 120_000, 120_000, 120_000, 30_000];
    let dir = tempfile::tempdir().unwrap();
    let master = dir.path().join("master.params");
    write_params(&master, &pool, counts);
    let full = std::fs::metadata(&master).unwrap().len();
    let path = dir.path().join("truncated.params");

    std::fs::copy(&master, &path).unwrap();
    let t = Instant::now();
    Srs::load(&path, NO_SUBGROUP).unwrap();
    let load_time = t.elapsed();

    // Adapt the delay before the truncation until it lands inside a load a few times: shorter
    // after a load that finished first, longer after one that found the file already short.
    let mut delay = load_time / 2;
    let mut seen = Vec::new();
    for attempt in 0..24 {
        std::fs::copy(&master, &path).unwrap();
        let cut_to = full / 3 + attempt * 4_099;
        let truncator = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                // Another writer: its own handle on the file, as another process would have.
                let f = OpenOptions::new().write(true).open(&path).unwrap();
                f.set_len(cut_to).unwrap();
            })
        };
        let result = Srs::load(&path, NO_SUBGROUP);
        truncator.join().unwrap();
        let outcome = match result {
            Ok(srs) => {
                assert_eq!(srs.file_bytes as u64, full);
                assert_eq!(srs.h.len(), counts[1]);
                Outcome::Loaded
            }
            Err(e @ Error::MalformedParams { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(&*path.to_string_lossy()),
                    "names the file: {msg}"
                );
                if msg.contains("while it was being loaded") {
                    assert!(msg.contains(&format!("it had {full} bytes")), "{msg}");
                    Outcome::ShortDuringLoad
                } else {
                    assert!(msg.contains("truncated in section"), "{msg}");
                    Outcome::ShortAtOpen
                }
            }
            Err(e) => panic!("attempt {attempt}: unexpected error {e}"),
        };
        match outcome {
            Outcome::Loaded => delay = delay * 2 / 3,
            Outcome::ShortAtOpen => delay = delay * 3 / 2 + Duration::from_micros(200),
            Outcome::ShortDuringLoad => {}
        }
        seen.push(outcome);
        if seen
            .iter()
            .filter(|o| **o == Outcome::ShortDuringLoad)
            .count()
            >= 3
        {
            break;
        }
    }
    assert!(
        seen.contains(&Outcome::ShortDuringLoad),
        "no truncation landed inside a load ({load_time:?} each): {seen:?}"
    );
}

/// Loads `path` with the GPU decoder allowed or not (`GROTH16_C2_SRS_GPU_DECODE`).
fn load_with_gpu_decode(path: &Path, allowed: bool) -> groth16_c2::Result<(Srs, usize)> {
    // One test changes the variable, so no other load races it.
    std::env::set_var("GROTH16_C2_SRS_GPU_DECODE", if allowed { "1" } else { "0" });
    let r = Srs::load_profiled(path, NO_SUBGROUP).map(|(srs, p)| (srs, p.gpu_chunks));
    std::env::remove_var("GROTH16_C2_SRS_GPU_DECODE");
    r
}

/// Where proofs run on a GPU, the loader decodes on it: the same points as the CPU decoder, and
/// for every kind of bad point (off the curve, a coordinate not below p, G1's (0, 2), infinity
/// in a counted section, in G1 and G2) the same error. Elsewhere the CPU decodes every chunk.
#[test]
fn gpu_decoding_matches_the_cpu() {
    let pool = pool(61);
    let counts = [2, 30_001, 20_000, 20_003, 9_001];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.params");
    write_params(&path, &pool, counts);
    let (cpu, cpu_chunks) = load_with_gpu_decode(&path, false).unwrap();
    let (ours, gpu_chunks) = load_with_gpu_decode(&path, true).unwrap();
    assert_eq!(cpu_chunks, 0);
    let on_gpu = groth16_c2::backend_name() == "cuda";
    if on_gpu {
        assert!(gpu_chunks > 0, "the GPU decoded no chunk");
    } else {
        eprintln!("SKIP gpu_decoding_matches_the_cpu (GPU part): proofs run on the CPU here");
        assert_eq!(gpu_chunks, 0);
    }
    assert_eq!(ours.h, cpu.h);
    assert_eq!(ours.l, cpu.l);
    assert_eq!(ours.a, cpu.a);
    assert_eq!(ours.b_g1, cpu.b_g1);
    assert_eq!(ours.b_g2, cpu.b_g2);
    assert_eq!(ours.vk.ic, cpu.vk.ic);

    let clean = std::fs::read(&path).unwrap();
    let p_be: [u8; 48] = {
        let mut p = [0u8; 48];
        // p = 0x1a0111ea...aaab, big-endian.
        let hex = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
        for (i, b) in p.iter_mut().enumerate() {
            *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        }
        p
    };
    // (what, section, point, corruption): G1 points in `l` (section 2), G2 in `b_g2` (5).
    type Corrupt = Box<dyn Fn(&mut [u8])>;
    let corruptions: Vec<(&str, usize, usize, Corrupt)> = vec![
        ("off the curve (G1)", 2, 12_345, Box::new(|p| p[95] ^= 1)),
        (
            "x = p (G1)",
            2,
            12_345,
            Box::new(move |p| p[..48].copy_from_slice(&p_be)),
        ),
        (
            "(0, 2) (G1)",
            2,
            12_345,
            Box::new(|p| {
                p.fill(0);
                p[95] = 2;
            }),
        ),
        (
            "infinity (G1)",
            2,
            12_345,
            Box::new(|p| {
                p.fill(0);
                p[0] = 0x40;
            }),
        ),
        (
            "compressed flag (G1)",
            2,
            12_345,
            Box::new(|p| p[0] |= 0x80),
        ),
        ("off the curve (G2)", 5, 7_000, Box::new(|p| p[191] ^= 1)),
        (
            "y.c0 = p (G2)",
            5,
            7_000,
            Box::new(move |p| p[144..].copy_from_slice(&p_be)),
        ),
    ];
    for (what, section, index, corrupt) in &corruptions {
        let (size, name) = if *section == 5 {
            (192, "b_g2")
        } else {
            (96, "l")
        };
        let mut bytes = clean.clone();
        let at = point_offset(counts, *section, *index);
        corrupt(&mut bytes[at..at + size]);
        std::fs::write(&path, &bytes).unwrap();
        let want = load_with_gpu_decode(&path, false).unwrap_err().to_string();
        let got = load_with_gpu_decode(&path, true).unwrap_err().to_string();
        assert_eq!(got, want, "{what}");
        let expect = format!("point {index} of section `{name}`");
        assert!(want.contains(&expect), "{what}: {want}");
    }
}
