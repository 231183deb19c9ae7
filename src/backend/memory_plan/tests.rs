use super::*;

const GIB: usize = 1 << 30;

fn request(lg_n: u32, budget: usize) -> PlanRequest {
    let shape = ProofShape::porep_like(lg_n);
    // PoRep's tails: about 8% of each query's points.
    let tails = [Query::L, Query::A, Query::BG1].map(|q| shape.points(q) / 12);
    PlanRequest {
        shape,
        budget,
        residency: Residency::Auto,
        g2_tail_on_gpu: true,
        chunk_points: None,
        slots: None,
        sides: None,
        resident_working: resident_working_bytes(&shape, tails, true, 0),
        msm_code: 0,
        gather_tails: true,
        bus_bytes_per_s: DEFAULT_BUS_BYTES_PER_S,
        h_window: None,
    }
}

/// The regions of a streamed arena are disjoint, lie inside it, and leave the first
/// polynomial (which holds `h` during the H MSM) alone, but the gather region with H resident
/// (its MSM is done before the query pass).
fn check_layout(layout: &ArenaLayout, resident: QuerySet) {
    let mut regions = vec![layout.workspace.clone()];
    regions.extend(layout.h_accumulate.iter().map(|a| a.buckets.clone()));
    regions.extend(layout.slots.iter().cloned());
    regions.extend(layout.sides.iter().cloned());
    if resident.contains(Query::H) && !layout.gather.is_empty() {
        assert!(
            layout.gather.end <= layout.poly_bytes,
            "{:?}",
            layout.gather
        );
        assert!(layout.h_accumulate.is_none());
    }
    regions.push(layout.gather.clone());
    for r in &regions {
        let over_h = resident.contains(Query::H) && *r == layout.gather;
        assert!(over_h || r.start >= layout.poly_bytes, "{r:?} overlaps h");
        assert!(r.end <= layout.bytes, "{r:?} outside {}", layout.bytes);
        assert_eq!(r.start % 256, 0, "{r:?} unaligned");
    }
    regions.sort_by_key(|r| r.start);
    for w in regions.windows(2) {
        assert!(w[0].end <= w[1].start, "{:?} overlaps {:?}", w[0], w[1]);
    }
    assert!(layout.polys == 2 || layout.polys == 3);
    assert!(layout.poly(layout.polys - 1).end <= layout.bytes);
}

/// The shared workspace serves the MSM of every chunk the plan runs at its exact length (the
/// last chunk of a query is shorter, and a smaller count can need more workspace), the tails a
/// chunk can have just below and at a chunk's length, and every chunk's batch addition.
fn check_chunk_msms(req: &PlanRequest, resident: QuerySet, layout: &ArenaLayout, chunk: usize) {
    let ws = layout.workspace.len();
    let fits = |curve: Curve, n: usize| {
        let need = kernel_sizes::msm_workspace(curve, n, req.msm_code);
        assert!(
            need <= ws,
            "2^{}: an MSM of {n} scalars needs {need} bytes, the workspace has {ws}",
            req.shape.lg_n
        );
    };
    let h = req.shape.points(Query::H);
    if !resident.contains(Query::H) && layout.h_accumulate.is_none() {
        chunk_ranges_len(h, chunk).for_each(|m| fits(Curve::G1, m));
    }
    // An accumulated H MSM sorts each chunk in the shared workspace; its buckets lie apart.
    if let Some(acc) = &layout.h_accumulate {
        let (scratch, buckets) = kernel_sizes::msm_accumulate_sizes(Curve::G1, acc.n_cap, acc.code)
            .expect("a shape the kernels accumulate");
        assert!(
            scratch <= ws,
            "the H accumulation's scratch needs {scratch} of {ws}"
        );
        assert!(buckets <= acc.buckets.len(), "its buckets need {buckets}");
    }
    for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
        if q == Query::BG2 && !req.g2_tail_on_gpu {
            continue;
        }
        let m = req.shape.points(q).min(chunk_for(q.curve(), chunk));
        for n in [m, m.saturating_sub(1), m.saturating_sub(8), m * 17 / 18] {
            fits(q.curve(), n);
        }
    }
    // Batch additions at each chunk's exact length (their threads per word change with it).
    for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
        for m in chunk_ranges_len(req.shape.points(q), chunk_for(q.curve(), chunk)) {
            let need = kernel_sizes::batch_add_workspace(q.curve(), m);
            assert!(
                need <= ws,
                "a batch addition of {m} points needs {need} bytes of {ws}"
            );
        }
    }
}

#[test]
fn plans_never_exceed_the_budget_and_stream_only_what_they_must() {
    for lg_n in 10..=27 {
        let mut last_cost = f64::INFINITY;
        let mut fitted = false;
        for budget_gib in 1..=140 {
            let req = request(lg_n, budget_gib * GIB);
            let srs = req.shape.set_bytes(QuerySet::EVERY);
            match plan(&req) {
                Ok(p) => {
                    fitted = true;
                    assert!(
                        p.total_bytes() <= req.budget,
                        "2^{lg_n} at {budget_gib} GiB: {p} holds {} bytes",
                        p.total_bytes()
                    );
                    let all_fits =
                        p.fixed_bytes + srs + req.resident_working + RESIDENT_MARGIN_BYTES
                            <= req.budget;
                    match &p.kind {
                        PlanKind::AllResident => assert!(all_fits, "{p}"),
                        PlanKind::Streamed {
                            resident,
                            streamed,
                            layout,
                            chunk_points,
                        } => {
                            assert!(!all_fits, "2^{lg_n} at {budget_gib} GiB streams: {p}");
                            assert!(!streamed.is_empty());
                            assert_eq!(*resident, streamed.complement());
                            assert_eq!(chunk_points % 64, 0);
                            check_layout(layout, *resident);
                            check_chunk_msms(&req, *resident, layout, *chunk_points);
                        }
                    }
                    // More memory never makes a plan of higher modelled cost.
                    let cost = modelled_cost(&p, req.bus_bytes_per_s);
                    assert!(cost <= last_cost, "2^{lg_n} at {budget_gib} GiB: {p}");
                    last_cost = cost;
                }
                Err(e) => {
                    assert!(
                        !fitted,
                        "2^{lg_n}: fits at less than {budget_gib} GiB but not there"
                    );
                    assert!(e.need > req.budget, "{e}");
                    assert_eq!(e.need, minimum_bytes(&req));
                }
            }
        }
        assert!(fitted, "2^{lg_n} fits nowhere up to 140 GiB");
    }
}

#[test]
fn a_real_partition_streams_on_the_cards_users_own() {
    // 2^27: 44 GiB of points. Lotus' minimum for C2 is 11 GiB.
    for gib in [11, 16, 24, 48] {
        let p = plan(&request(27, gib * GIB)).unwrap_or_else(|e| panic!("{gib} GiB: {e}"));
        assert!(
            matches!(p.kind, PlanKind::Streamed { .. }),
            "{gib} GiB: {p}"
        );
        assert!(!p.streamed().is_empty());
        println!("{p}");
    }
    // The H query is the first to stay (it streams again for every circuit of a call).
    let p = plan(&request(27, 48 * GIB)).unwrap();
    assert!(p.resident().contains(Query::H), "{p}");
    // With 80 GiB and more the whole SRS stays, as before streaming existed.
    let p = plan(&request(27, 100 * GIB)).unwrap();
    assert_eq!(p.kind, PlanKind::AllResident, "{p}");
    // Below the working set nothing fits, and the error names the minimum.
    let e = plan(&request(27, 4 * GIB)).unwrap_err();
    assert!(e.need > 4 * GIB && e.need < 10 * GIB, "{e}");
    assert!(e.to_string().contains("2^27"), "{e}");
}

#[test]
fn residency_settings_are_obeyed() {
    let mut req = request(20, 80 * GIB);
    req.residency = Residency::Never;
    let p = plan(&req).unwrap();
    assert_eq!(p.resident(), QuerySet::NONE, "{p}");
    req.residency = Residency::Always;
    assert_eq!(plan(&req).unwrap().kind, PlanKind::AllResident);
    let mut req = request(27, 16 * GIB);
    req.residency = Residency::Always;
    let e = plan(&req).unwrap_err();
    assert!(e.need > 16 * GIB, "{e}");
}

#[test]
fn a_forced_chunk_is_a_multiple_of_64_points() {
    let mut req = request(12, 80 * GIB);
    req.residency = Residency::Never;
    req.chunk_points = Some(1000);
    let p = plan(&req).unwrap();
    assert_eq!(p.chunk_points(), 1024);
    assert_eq!(chunk_for(Curve::G2, 1024), 512);
    assert_eq!(chunk_for(Curve::G2, 64), 64);
    assert_eq!(chunk_for(Curve::G2, 192), 128);
    let line = p.to_string();
    assert!(
        line.starts_with("2^12 on 80.0 GiB: streamed h, l, a, b_g1, b_g2 in chunks of 2^10 points"),
        "{line}"
    );
}

#[test]
fn query_sets_print_and_complement() {
    let s = QuerySet::NONE.with(Query::BG2).with(Query::BG1);
    assert_eq!(s.to_string(), "b_g1, b_g2");
    assert_eq!(s.complement().to_string(), "h, l, a");
    assert!(QuerySet::EVERY.complement().is_empty());
}

#[test]
fn an_accumulated_h_msm_takes_the_whole_msms_window_where_memory_allows() {
    // 2^27 under 16 GiB (PCIe 5): every query streamed in chunks of 2^24, the H MSM accumulated
    // in the whole MSM's 20-bit windows in four slots, which measured fastest (H100: 1.73 s of
    // GPU against 1.82 with B_G1 resident and 16-bit windows, 2.05 with 20-bit windows and
    // two slots).
    let mut req = request(27, 16 * GIB);
    req.bus_bytes_per_s = 55e9;
    let p = plan(&req).unwrap();
    let PlanKind::Streamed {
        layout,
        chunk_points,
        resident,
        ..
    } = &p.kind
    else {
        panic!("{p}");
    };
    assert_eq!(*chunk_points, 1 << 24, "{p}");
    assert!(resident.is_empty(), "{p}");
    assert_eq!(layout.slots.len(), 4, "{p}");
    let acc = layout.h_accumulate.as_ref().expect("an accumulated H MSM");
    assert_eq!(
        acc.window(),
        kernel_sizes::msm_window_bits(1 << 27, 0),
        "{p}"
    );
    assert!(acc.window() > accumulation_window(acc.n_cap, 0));
    // Under 11 GiB its buckets and scratch do not fit beside the slots: a chunk's window.
    let p = plan(&request(27, 11 * GIB)).unwrap();
    let PlanKind::Streamed { layout, .. } = &p.kind else {
        panic!("{p}");
    };
    let acc = layout.h_accumulate.as_ref().expect("an accumulated H MSM");
    assert_eq!(acc.window(), accumulation_window(acc.n_cap, 0), "{p}");
    // A forced window is the only one tried.
    let mut req = request(27, 16 * GIB);
    req.bus_bytes_per_s = 55e9;
    req.h_window = Some(16);
    let p = plan(&req).unwrap();
    let PlanKind::Streamed { layout, .. } = &p.kind else {
        panic!("{p}");
    };
    assert_eq!(
        layout.h_accumulate.as_ref().map(HAccumulation::window),
        Some(16),
        "{p}"
    );
}

#[test]
fn the_modelled_pass_waits_for_slots_behind_a_long_chunk() {
    // A chunk of 100 ms of kernels, then three light ones, each 30 ms to upload: with two slots
    // the copy stream fills one slot during the long chunk and the last two wait for theirs.
    let chunks = [(0.03, 0.1), (0.03, 0.01), (0.03, 0.01), (0.03, 0.01)];
    let two = pipeline_s(&chunks, 2, 0.0);
    let four = pipeline_s(&chunks, 4, 0.0);
    assert!((two - 0.20).abs() < 1e-9, "{two}");
    assert!((four - 0.16).abs() < 1e-9, "{four}");
    // Resident points upload nothing; kernels queued before the pass delay only the kernels.
    assert!((pipeline_s(&[(0.0, 0.05), (0.03, 0.01)], 2, 0.1) - 0.16).abs() < 1e-9);
    assert!((pipeline_s(&chunks, 4, 0.2) - 0.33).abs() < 1e-9);
}

#[test]
fn a_plans_layout_leaves_out_the_memory_it_was_made_on() {
    // The same plan made on slightly different free memory (another process allocating) says
    // the same layout, so it is announced once; the full line still names the memory.
    let on_40 = plan(&request(20, 40 * GIB)).unwrap();
    let on_41 = plan(&request(20, 41 * GIB)).unwrap();
    assert_eq!(on_40.kind, PlanKind::AllResident);
    assert_eq!(on_40.layout().to_string(), on_41.layout().to_string());
    assert_ne!(on_40.to_string(), on_41.to_string());
    assert_eq!(
        on_40.to_string(),
        format!("2^20 on 40.0 GiB: {}", on_40.layout())
    );
    // A different layout reads differently.
    let streamed = plan(&request(27, 16 * GIB)).unwrap();
    assert!(
        streamed
            .layout()
            .to_string()
            .starts_with("resident b_g1; streamed"),
        "{streamed}"
    );
    assert_ne!(streamed.layout().to_string(), on_40.layout().to_string());
}

/// Where the budget leaves room a streamed plan gathers tails, never past the budget; each
/// circuit of a group gets its own part of the region, points and scalars apart, no more
/// entries than one chunk's MSM workspace serves; asked not to, a plan gathers none.
#[test]
fn gathered_tails_take_what_the_budget_leaves_and_split_it_among_circuits() {
    let mut gathered = 0;
    for lg in [20, 24, 26, 27] {
        for gib in [6, 10, 11, 16, 24, 48] {
            let req = request(lg, gib * GIB);
            let Ok(p) = plan(&req) else { continue };
            let PlanKind::Streamed {
                layout,
                chunk_points,
                resident,
                ..
            } = &p.kind
            else {
                continue;
            };
            assert!(p.total_bytes() <= req.budget, "2^{lg} on {gib} GiB: {p}");
            check_layout(layout, *resident);
            if resident.contains(Query::H) {
                // Over the first polynomial, whatever the budget leaves.
                assert_eq!(layout.gather, 0..layout.poly_bytes / 256 * 256, "{p}");
            }
            if layout.gather.is_empty() {
                continue;
            }
            gathered += 1;
            for circuits in 1..=MAX_GROUP {
                for curve in [Curve::G1, Curve::G2] {
                    let mut parts: Vec<Range<usize>> = Vec::new();
                    for k in 0..circuits {
                        let (points, scalars, cap) =
                            layout.gather_part(k, circuits, curve, *chunk_points);
                        assert!(cap <= chunk_for(curve, *chunk_points));
                        assert_eq!(points.len(), cap * curve.affine_bytes());
                        assert_eq!(scalars.len(), cap * 32);
                        assert!(points.end <= scalars.start || cap == 0);
                        for r in [points, scalars] {
                            assert!(r.is_empty() || layout.gather.contains(&r.start));
                            assert!(r.end <= layout.gather.end);
                            parts.push(r);
                        }
                    }
                    parts.retain(|r| !r.is_empty());
                    parts.sort_by_key(|r| r.start);
                    for w in parts.windows(2) {
                        assert!(w[0].end <= w[1].start, "{w:?} overlap");
                    }
                }
            }
            let off = plan(&PlanRequest {
                gather_tails: false,
                ..req
            })
            .unwrap();
            if let PlanKind::Streamed { layout, .. } = &off.kind {
                assert!(layout.gather.is_empty(), "asked not to gather: {off}");
            }
        }
    }
    assert!(gathered >= 4, "only {gathered} plans gather tails");
}
