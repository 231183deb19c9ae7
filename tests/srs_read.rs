//! The params-file reader under conditions the C-ABI tests do not reach: a file truncated by
//! another writer while it is being loaded (an error or the old contents, never a signal),
//! points spread over many parallel chunks (every one decoded, the first bad one in file order
//! reported), and the optional subgroup check.

// Only the synthetic writer: this test needs no circuits.
use bench_support::synthetic_params::*;

use std::path::Path;

use blst::{blst_bendian_from_fp, blst_fp, blst_fp_from_uint64, blst_fp_sqr, blst_fp_sqrt};
use blstrs::{G1Affine, G2Affine};
use groth16_c2::srs::{LoadOptions, Srs};
use groth16_c2::Error;

const NO_SUBGROUP: LoadOptions = LoadOptions {
    subgroup_check: false,
};

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

#[test]
fn a_file_truncated_during_the_load_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let master = dir.path().join("master.params");
    write_params(&master, &pool(64), LARGE_COUNTS);
    race_truncation(&master, dir.path(), |path, full| {
        match Srs::load(path, NO_SUBGROUP) {
            Ok(srs) => {
                assert_eq!(srs.file_bytes as u64, full);
                assert_eq!(srs.h.len(), LARGE_COUNTS[1]);
                Outcome::Loaded
            }
            Err(e @ Error::MalformedParams { .. }) => {
                classify_truncation(&e.to_string(), path, full)
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    });
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
