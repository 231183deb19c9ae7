use std::collections::HashSet;

use blstrs::{G1Affine, G2Affine, Scalar};
use ff::Field;
use groth16_c2::srs::{LoadOptions, Srs};
use groth16_c2::testing::{check_assignment_sizes, check_witness};

use super::*;

fn partition(log_n: u32) -> SyntheticPartition {
    SyntheticPartition::generate(&PartitionShape::porep(log_n))
}

fn share(count: usize, of: usize) -> f64 {
    count as f64 / of as f64
}

fn zero_or_one_share(p: &SyntheticPartition) -> f64 {
    1.0 - p.tail_share()
}

#[test]
fn porep_shape_counts_and_densities() {
    let p = partition(12);
    let n = 1 << 12;
    assert_eq!(p.inputs.len(), 328);
    assert_eq!(p.inputs[0], Scalar::ONE);
    assert_eq!(p.aux.len(), (n as f64 * 0.97).round() as usize);
    // aux + inputs exceed the domain at this size: the constraints fill it.
    assert_eq!(p.a.len(), n);
    assert_eq!((p.b.len(), p.c.len()), (n, n));
    assert_eq!(p.witness().domain_size(), n);

    let aux = p.aux.len();
    let a = share(p.a_aux_density.popcount, aux);
    let b = share(p.b_aux_density.popcount, aux);
    assert!((a - 0.997).abs() < 0.005, "a_aux density {a}");
    assert!((b - 0.254).abs() < 0.03, "b_aux density {b}");
    assert_eq!(p.b_inp_density.popcount, 1);
    assert!(p.b_inp_density.view().get(0), "ONE is in B");
    assert_eq!(p.b_inp_density.bit_len, 328);
    for d in [&p.a_aux_density, &p.b_aux_density] {
        assert_eq!(d.bit_len, aux);
        assert_eq!(d.words.len(), aux.div_ceil(64));
        assert_eq!(
            d.words.last().unwrap() >> (aux % 64),
            0,
            "bits past bit_len are clear"
        );
    }

    let ones = zero_or_one_share(&p);
    assert!((ones - 0.92).abs() < 0.02, "0/1 share {ones}");
    let zeros = share(p.aux.iter().filter(|v| **v == Scalar::ZERO).count(), aux);
    assert!((zeros - 0.46).abs() < 0.03, "zeros {zeros}");
}

#[test]
fn window_post_shape_puts_nearly_every_point_in_a_tail() {
    let p = SyntheticPartition::generate(&PartitionShape::window_post(16));
    let n = 1 << 16;
    assert_eq!(p.inputs.len(), 1 + 2349 * 11);
    assert_eq!(p.witness().domain_size(), n);
    let aux = p.aux.len();
    let a = share(p.a_aux_density.popcount, aux);
    let b = share(p.b_aux_density.popcount, aux);
    assert!((a - 0.758).abs() < 0.01, "a_aux density {a}");
    assert!((b - 0.724).abs() < 0.01, "b_aux density {b}");
    let tail = p.tail_share();
    assert!((tail - 0.99).abs() < 0.005, "tail share {tail}");
    assert!(
        PartitionShape::window_post(15).check().is_err(),
        "25840 inputs need 2^16"
    );
}

#[test]
fn constraints_stay_inside_the_domain_at_larger_sizes() {
    let shape = PartitionShape::porep(20);
    let n = 1 << 20;
    assert_eq!(shape.constraints(), shape.aux_count() + 328);
    assert!(shape.constraints() <= n && shape.constraints() > n / 2);
}

#[test]
fn ones_share_is_settable() {
    for target in [0.0, 0.7, 1.0] {
        let p = SyntheticPartition::generate(&PartitionShape {
            ones_share: target,
            ..PartitionShape::porep(11)
        });
        let got = zero_or_one_share(&p);
        assert!((got - target).abs() < 0.03, "asked {target}, got {got}");
    }
}

#[test]
fn bad_shapes_are_reported() {
    let bad = [
        PartitionShape {
            ones_share: 1.5,
            ..PartitionShape::porep(12)
        },
        PartitionShape::porep(8), // 328 inputs do not fit 2^8
        PartitionShape {
            b_inp_count: 329,
            ..PartitionShape::porep(12)
        },
    ];
    for shape in bad {
        assert!(shape.check().is_err(), "{shape:?}");
    }
    assert!(PartitionShape::porep(10).check().is_ok());
}

#[test]
fn generation_is_deterministic_and_independent_of_threads() {
    let shape = PartitionShape::porep(11);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let p = SyntheticPartition::generate(&shape);
    assert_eq!(
        p,
        one_thread.install(|| SyntheticPartition::generate(&shape))
    );

    // Another seed: other values, the same structure (so the same SRS fits).
    let q = SyntheticPartition::generate(&PartitionShape { seed: 2, ..shape });
    assert_ne!(p.aux, q.aux);
    assert_ne!(p.a, q.a);
    assert_ne!(p.inputs[1..], q.inputs[1..]);
    assert_eq!(p.a_aux_density, q.a_aux_density);
    assert_eq!(p.b_aux_density, q.b_aux_density);
}

#[test]
fn witness_and_assignment_fit_the_srs() {
    let p = partition(10);
    let srs = synthetic_srs(&p);
    check_witness(&p.witness(), &srs, 0).unwrap();
    let assignment = p.assignment();
    check_assignment_sizes(&assignment, &srs, 0).unwrap();
    // SAFETY: the assignment points into `p`, which is alive.
    let view = unsafe { assignment.view(0) }.unwrap();
    check_witness(&view, &srs, 0).unwrap();
    assert_eq!(srs.h.len(), (1 << 10) - 1);
    assert_eq!(srs.vk.ic.len(), 328);
}

fn distinct<T, K: std::hash::Hash + Eq>(points: &[T], key: impl Fn(&T) -> K) -> bool {
    points.iter().map(key).collect::<HashSet<_>>().len() == points.len()
}

#[test]
fn srs_points_are_valid_and_distinct_within_each_query() {
    let srs = synthetic_srs(&partition(11));
    let g1_ok = |p: &G1Affine| bool::from(p.is_on_curve() & p.is_torsion_free());
    let g2_ok = |p: &G2Affine| bool::from(p.is_on_curve() & p.is_torsion_free());
    let vk = &srs.vk;
    for (name, query) in [
        ("ic", &vk.ic),
        ("h", &srs.h),
        ("l", &srs.l),
        ("a", &srs.a),
        ("b_g1", &srs.b_g1),
    ] {
        assert!(query.iter().all(g1_ok), "{name}: a point off the curve");
        assert!(
            distinct(query, |p| p.to_compressed()),
            "{name}: repeated points"
        );
    }
    assert!(srs.b_g2.iter().all(g2_ok), "b_g2: a point off the curve");
    assert!(distinct(&srs.b_g2, |p| p.to_compressed()), "b_g2: repeated");
    assert!([vk.alpha_g1, vk.beta_g1, vk.delta_g1].iter().all(g1_ok));
    assert!([vk.beta_g2, vk.gamma_g2, vk.delta_g2].iter().all(g2_ok));
    // The same shape gives the same SRS.
    let again = synthetic_srs(&partition(11));
    assert_eq!((&srs.h, &srs.b_g2), (&again.h, &again.b_g2));
}

#[test]
fn params_file_round_trip() {
    let p = partition(10);
    let srs = synthetic_srs(&p);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synthetic.params");
    write_params(&srs, &path).unwrap();
    let loaded = Srs::load(
        &path,
        LoadOptions {
            subgroup_check: true,
        },
    )
    .unwrap();
    let (a, b) = (&srs.vk, &loaded.vk);
    assert_eq!(
        (a.alpha_g1, a.beta_g1, a.delta_g1, &a.ic),
        (b.alpha_g1, b.beta_g1, b.delta_g1, &b.ic)
    );
    assert_eq!(
        (a.beta_g2, a.gamma_g2, a.delta_g2),
        (b.beta_g2, b.gamma_g2, b.delta_g2)
    );
    assert_eq!(srs.h, loaded.h);
    assert_eq!(srs.l, loaded.l);
    assert_eq!(srs.a, loaded.a);
    assert_eq!(srs.b_g1, loaded.b_g1);
    assert_eq!(srs.b_g2, loaded.b_g2);
    check_witness(&p.witness(), &loaded, 0).unwrap();
}

#[test]
fn a_batch_of_partitions_proves_on_one_srs() {
    let shape = PartitionShape::porep(10);
    let parts: Vec<_> = (1..=2)
        .map(|seed| {
            SyntheticPartition::generate(&PartitionShape {
                seed,
                ..shape.clone()
            })
        })
        .collect();
    let srs = synthetic_srs(&parts[0]);
    let witnesses: Vec<_> = parts.iter().map(|p| p.witness()).collect();
    let (r, s) = ([Scalar::from(3u64); 2], [Scalar::from(5u64); 2]);
    // A synthetic SRS is no trusted setup: its proofs cannot verify, so the check is off.
    let unchecked = groth16_c2::ProveOptions {
        verify: Some(false),
        ..Default::default()
    };
    let prove = |w: &[groth16_c2::Witness], r: &[Scalar], s: &[Scalar]| {
        groth16_c2::start(&srs, w, r, s, unchecked).and_then(|p| p.finalize())
    };
    let proofs = prove(&witnesses, &r, &s).unwrap();
    assert_eq!(proofs.len(), 2);
    assert_ne!(proofs[0], proofs[1]);
    // Deterministic: the same inputs give the same bytes.
    let again = prove(&witnesses[..1], &r[..1], &s[..1]).unwrap();
    assert_eq!(again[0], proofs[0]);
}

#[test]
fn from_data_rejects_mismatched_b_queries() {
    let srs = synthetic_srs(&partition(10));
    let data = groth16_c2::srs::SrsData {
        host_pins: Default::default(),
        vk: srs.vk.clone(),
        h: srs.h.clone(),
        l: srs.l.clone(),
        a: srs.a.clone(),
        b_g1: srs.b_g1.clone(),
        b_g2: srs.b_g2[1..].to_vec(),
        path: "<test>".into(),
        file_bytes: 0,
        load_time: Default::default(),
    };
    let err = Srs::from_data(data).unwrap_err().to_string();
    assert!(err.contains("b_g2"), "{err}");
}
