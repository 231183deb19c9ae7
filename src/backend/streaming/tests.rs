//! Streamed sections on the host: every plan shape (resident sets, chunk lengths that do and do
//! not divide the queries, two or three H buffers, two or three slots, groups of circuits) gives
//! each circuit the CPU backend's sums, with the streams run in program order and with either
//! side racing ahead; and a schedule missing one wait gives wrong sums.

use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Group;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::emulate::{self, HostData, Order};
use super::*;
use crate::assignment::{Density, Witness};
use crate::backend::cpu::CpuBackend;
use crate::backend::memory_plan::{arena_layout, PlanRequest, Residency};
use crate::backend::Backend;
use crate::split::{split_circuit, CircuitSplit};
use crate::srs::{HostPins, Srs, SrsData, VerifyingKey};
use crate::telemetry::ProofTimings;
use std::ops::Range;

/// `n` distinct points, cheaply: `base + i * step`.
fn points<G: Group + group::Curve>(rng: &mut ChaCha8Rng, n: usize) -> Vec<G::AffineRepr>
where
    G::AffineRepr: Default + Clone,
{
    let (mut p, step) = (G::random(&mut *rng), G::random(&mut *rng));
    let proj: Vec<G> = (0..n)
        .map(|_| {
            p += step;
            p
        })
        .collect();
    let mut out = vec![G::AffineRepr::default(); n];
    G::batch_normalize(&proj, &mut out);
    out
}

/// One circuit's values: `a, b, c`, inputs (ONE first), aux and densities.
struct Values {
    abc: [Vec<Scalar>; 3],
    inputs: Vec<Scalar>,
    aux: Vec<Scalar>,
    a_aux: Vec<u64>,
    b_inp: Vec<u64>,
    b_aux: Vec<u64>,
}

impl Values {
    fn witness(&self) -> Witness<'_> {
        Witness {
            a: &self.abc[0],
            b: &self.abc[1],
            c: &self.abc[2],
            inputs: &self.inputs,
            aux: &self.aux,
            a_aux_density: Density::new(&self.a_aux, self.aux.len()),
            b_inp_density: Density::new(&self.b_inp, self.inputs.len()),
            b_aux_density: Density::new(&self.b_aux, self.aux.len()),
        }
    }
}

fn bits(rng: &mut ChaCha8Rng, n: usize, p: f64) -> Vec<u64> {
    let mut w = vec![0u64; n.div_ceil(64)];
    for i in 0..n {
        if rng.gen_bool(p) {
            w[i / 64] |= 1 << (i % 64);
        }
    }
    w
}

fn count(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// An SRS of random points for `2^lg_n` and `circuits` random assignments over it (the same
/// densities, as circuits of one SRS have). Aux values are 0, 1 or random.
fn instance(lg_n: u32, circuits: usize, seed: u64) -> (Srs, Vec<Values>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = 1usize << lg_n;
    let (inputs, aux) = (5, n - n / 8);
    let a_aux = bits(&mut rng, aux, 0.9);
    let b_inp = bits(&mut rng, inputs, 0.6);
    let b_aux = bits(&mut rng, aux, 0.3);
    let b_len = count(&b_inp) + count(&b_aux);
    let g1 = points::<G1Projective>(&mut rng, 4);
    let g2 = points::<G2Projective>(&mut rng, 3);
    let data = SrsData {
        host_pins: HostPins::default(),
        vk: VerifyingKey {
            alpha_g1: g1[0],
            beta_g1: g1[1],
            beta_g2: g2[0],
            gamma_g2: g2[1],
            delta_g1: g1[2],
            delta_g2: g2[2],
            ic: points::<G1Projective>(&mut rng, inputs),
        },
        h: points::<G1Projective>(&mut rng, n - 1),
        l: points::<G1Projective>(&mut rng, aux),
        a: points::<G1Projective>(&mut rng, inputs + count(&a_aux)),
        b_g1: points::<G1Projective>(&mut rng, b_len),
        b_g2: points::<G2Projective>(&mut rng, b_len),
        path: "random".into(),
        file_bytes: 0,
        load_time: Default::default(),
    };
    let srs = Srs::from_data(data).expect("a consistent SRS");
    let values = (0..circuits)
        .map(|_| {
            let value = |rng: &mut ChaCha8Rng| match rng.gen_range(0..10) {
                0..=3 => Scalar::ZERO,
                4..=7 => Scalar::ONE,
                _ => Scalar::random(&mut *rng),
            };
            let abc_len = n - 3;
            Values {
                abc: std::array::from_fn(|_| {
                    (0..abc_len).map(|_| Scalar::random(&mut rng)).collect()
                }),
                inputs: std::iter::once(Scalar::ONE)
                    .chain((1..inputs).map(|_| value(&mut rng)))
                    .collect(),
                aux: (0..aux).map(|_| value(&mut rng)).collect(),
                a_aux: a_aux.clone(),
                b_inp: b_inp.clone(),
                b_aux: b_aux.clone(),
            }
        })
        .collect();
    (srs, values)
}

/// What the CPU backend computes for one circuit (the G2 tail included when the GPU would run
/// it).
fn expected(srs: &Srs, w: &Witness, split: &CircuitSplit, g2_tail: bool) -> Sums {
    let r = CpuBackend
        .compose_section(srs, w, split, &mut ProofTimings::default())
        .unwrap();
    let b_g2 = if g2_tail {
        r.b_g2
            + CpuBackend
                .g2_msm(&srs.b_g2, &split.b.tail_points, &split.b.tail_scalars)
                .unwrap()
    } else {
        r.b_g2
    };
    Sums {
        h: r.h,
        l: r.l,
        a: r.a,
        b_g1: r.b_g1,
        b_g2,
    }
}

struct Case {
    lg_n: u32,
    circuits: usize,
    resident: QuerySet,
    polys: u32,
    chunk: usize,
    slots: usize,
    g2_tail: bool,
    /// Slots and side buffers over `b` and `c` (see [`compact`]).
    compact: bool,
    /// A streamed H MSM accumulated over its chunks.
    accumulate: bool,
    /// G2 entries each circuit gathers its tails in (0: none; G1 tails get about 1.75 times
    /// as many).
    gather: usize,
    /// Tail entries per side buffer (0: the plan's).
    side_tail: usize,
}

impl Case {
    /// A case with no gathered tails and the plan's side buffers.
    #[allow(clippy::too_many_arguments)]
    fn plain(
        lg_n: u32,
        circuits: usize,
        resident: QuerySet,
        polys: u32,
        chunk: usize,
        slots: usize,
        g2_tail: bool,
        accumulate: bool,
    ) -> Case {
        Case {
            lg_n,
            circuits,
            resident,
            polys,
            chunk,
            slots,
            g2_tail,
            compact: true,
            accumulate,
            gather: 0,
            side_tail: 0,
        }
    }

    fn gather_bytes(&self) -> usize {
        if self.gather == 0 {
            0
        } else {
            self.circuits * (self.gather * (192 + 32) + 512)
        }
    }
}

/// The arena packed as tightly as the ops allow (a token workspace, which the emulation only
/// scribbles on), so that slots and side buffers lie over the polynomials `b` and `c` as they do
/// at real sizes, where the kernels' workspaces are small beside them.
fn compact(mut layout: ArenaLayout) -> ArenaLayout {
    let mut at = layout.poly_bytes;
    let mut place = |r: &mut Range<usize>| {
        let len = r.len().min(if *r == layout.workspace {
            1024
        } else {
            usize::MAX
        });
        *r = at..at + len;
        at = (r.end).next_multiple_of(256);
    };
    let mut ws = layout.workspace.clone();
    place(&mut ws);
    let mut h_acc = layout.h_accumulate.clone();
    if let Some(a) = &mut h_acc {
        let mut r = a.buckets.start..a.buckets.start + 1024;
        place(&mut r);
        a.buckets = r;
    }
    let mut slots = layout.slots.clone();
    slots.iter_mut().for_each(&mut place);
    let mut sides = layout.sides.clone();
    sides.iter_mut().for_each(&mut place);
    let mut gather = layout.gather.clone();
    if gather.start >= layout.poly_bytes {
        place(&mut gather);
    }
    layout.gather = gather;
    layout.bytes = at.max(layout.polys as usize * layout.poly_bytes);
    layout.workspace = ws;
    layout.h_accumulate = h_acc;
    layout.slots = slots;
    layout.sides = sides;
    layout
}

fn stream_plan(srs: &Srs, c: &Case) -> StreamPlan {
    let shape = ProofShape::of(srs);
    let req = PlanRequest {
        shape,
        budget: usize::MAX,
        residency: Residency::Never,
        g2_tail_on_gpu: c.g2_tail,
        chunk_points: Some(c.chunk),
        slots: None,
        sides: None,
        resident_working: 0,
        msm_code: 0,
        gather_tails: true,
        bus_bytes_per_s: crate::backend::memory_plan::DEFAULT_BUS_BYTES_PER_S,
        h_window: None,
    };
    let mut layout = arena_layout(
        &req,
        c.resident,
        c.polys,
        c.chunk,
        c.slots,
        if c.accumulate {
            crate::backend::memory_plan::accumulation_window(c.chunk, 0)
        } else {
            0
        },
        c.gather_bytes(),
    );
    if c.side_tail != 0 {
        assert!(
            c.side_tail <= layout.side_tail,
            "the side buffers hold the pieces"
        );
        layout.side_tail = c.side_tail;
    }
    if c.resident.contains(Query::H) && c.gather > 0 && c.gather_bytes() <= layout.poly_bytes {
        // As the plan places it with H resident: over the first polynomial.
        layout.gather = 0..c.gather_bytes();
    }
    StreamPlan {
        shape,
        resident: c.resident,
        chunk_points: c.chunk,
        layout: if c.compact { compact(layout) } else { layout },
        g2_tail_on_gpu: c.g2_tail,
    }
}

/// Builds the group's ops as a device section would: each circuit's H step (the last one's H
/// MSM left to the queries' pass when `defer`), then the queries.
fn build(
    plan: StreamPlan,
    values: &[Values],
    splits: &[CircuitSplit],
    defer: bool,
) -> (Vec<Op>, ResultMap) {
    let mut b = Builder::new(plan);
    let mut ops = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let last = i + 1 == values.len();
        b.h_step(
            i,
            [v.abc[0].len(), v.abc[1].len(), v.abc[2].len()],
            defer && last,
        );
        ops.extend(b.take_ops());
    }
    let circuits: Vec<CircuitQueries> = splits
        .iter()
        .enumerate()
        .map(|(i, s)| CircuitQueries {
            circuit: i,
            splits: [&s.l, &s.a, &s.b],
        })
        .collect();
    b.queries(&circuits);
    ops.extend(b.take_ops());
    (ops, b.results().clone())
}

/// One case's instance: the SRS, the circuits' values and splits, what the CPU backend gives,
/// and the streamed plan.
struct Fixture {
    srs: Srs,
    values: Vec<Values>,
    splits: Vec<CircuitSplit>,
    want: Vec<Sums>,
    plan: StreamPlan,
}

impl Fixture {
    fn new(c: &Case, seed: u64) -> Fixture {
        let (srs, values) = instance(c.lg_n, c.circuits, seed);
        let witnesses: Vec<Witness> = values.iter().map(Values::witness).collect();
        let splits: Vec<CircuitSplit> = witnesses.iter().map(split_circuit).collect();
        let want: Vec<Sums> = witnesses
            .iter()
            .zip(&splits)
            .map(|(w, s)| expected(&srs, w, s, c.g2_tail))
            .collect();
        drop(witnesses);
        let plan = stream_plan(&srs, c);
        Fixture {
            srs,
            values,
            splits,
            want,
            plan,
        }
    }

    fn host(&self) -> HostData<'_> {
        HostData {
            srs: &self.srs,
            abc: self
                .values
                .iter()
                .map(|v| [&v.abc[0][..], &v.abc[1][..], &v.abc[2][..]])
                .collect(),
            splits: self.splits.iter().collect(),
        }
    }

    fn build(&self, defer: bool) -> (Vec<Op>, ResultMap) {
        build(self.plan.clone(), &self.values, &self.splits, defer)
    }
}

/// Every MSM of `ops` fits the plan's workspace, as the launcher checks before it runs one.
fn assert_workspaces_fit(ops: &[Op], plan: &StreamPlan) {
    for op in ops {
        if let Op::Msm {
            curve,
            n,
            bit_reversed,
            ..
        } = *op
        {
            // The default strategy and window, the scalars' order in bits 16-20.
            let code = (bit_reversed as i32) << 16;
            let need = crate::backend::kernel_sizes::msm_workspace(curve, n, code);
            assert!(
                need <= plan.layout.workspace.len(),
                "an MSM of {n} scalars needs {need} workspace bytes, the plan has {}",
                plan.layout.workspace.len()
            );
        }
    }
}

fn check(c: &Case, f: &Fixture) {
    let (plan, want, host) = (&f.plan, &f.want, f.host());
    for defer in [false, true] {
        let (ops, results) = f.build(defer);
        if !c.compact {
            assert_workspaces_fit(&ops, plan);
        }
        let gathers = ops
            .iter()
            .filter(|op| matches!(op, Op::Gather { .. }))
            .count();
        assert_eq!(
            gathers > 0,
            c.gather > 0,
            "tails gathered where a region is given"
        );
        for order in [Order::Program, Order::CopiesFirst, Order::ComputeFirst] {
            let got = emulate::run(&ops, plan, &host, &results, order);
            assert_eq!(
                &got,
                want,
                "2^{} x{} resident [{}] polys {} chunk {} slots {} g2 tail {}, gather {}, side \
                 tail {}, last H MSM {} ({order:?})",
                c.lg_n,
                c.circuits,
                c.resident,
                c.polys,
                c.chunk,
                c.slots,
                c.g2_tail,
                c.gather,
                c.side_tail,
                if defer { "among the queries" } else { "first" }
            );
        }
    }
}

#[test]
fn the_last_h_msm_is_spread_over_the_query_chunks() {
    let h = |k| Chunk::H(0, k..k + 1);
    let q = |k: usize| {
        Chunk::Query(QueryChunk {
            query: Query::L,
            range: k..k + 1,
            side: SideLayout::for_chunk(64, 64),
            work: Vec::new(),
        })
    };
    let order: Vec<String> = interleave((0..3).map(h).collect(), (0..7).map(q).collect())
        .iter()
        .map(|c| match c {
            Chunk::H(_, r) => format!("h{}", r.start),
            Chunk::Query(c) => format!("q{}", c.range.start),
        })
        .collect();
    assert_eq!(
        order,
        ["h0", "q0", "q1", "h1", "q2", "q3", "h2", "q4", "q5", "q6"]
    );
    assert_eq!(interleave(Vec::new(), (0..2).map(q).collect()).len(), 2);
    assert_eq!(interleave((0..2).map(h).collect(), Vec::new()).len(), 2);
}

#[test]
fn streamed_sections_give_the_cpu_sums_in_any_stream_order() {
    let h = QuerySet::NONE.with(Query::H);
    let l_bg2 = QuerySet::NONE.with(Query::L).with(Query::BG2);
    let but_a = QuerySet::NONE.with(Query::A).complement();
    let cases = [
        // (lg_n, circuits, resident, polys, chunk, slots, g2 tail, H MSM accumulated,
        // gathered G2 entries per circuit, tail entries per side buffer): tails of about 20%
        // of the points, gathered in one region or many times over (each full region summed),
        // in pieces larger than the region (summed on their own), one piece or several per chunk;
        // with H resident, in a region after the side buffers or over the first polynomial
        (8, 1, QuerySet::NONE, 3, 64, 2, true, false, 0, 0),
        (8, 1, QuerySet::NONE, 2, 64, 3, true, true, 128, 0),
        (9, 2, QuerySet::NONE, 3, 192, 2, true, true, 64, 64),
        (9, 3, h, 2, 128, 2, true, false, 256, 0),
        (10, 1, l_bg2, 3, 320, 2, false, true, 64, 64),
        (10, 3, but_a, 2, 256, 3, true, false, 0, 64),
        (10, 2, QuerySet::NONE, 2, 1024, 2, false, false, 192, 128),
        (11, 2, h, 3, 448, 3, true, false, 1024, 0),
        (11, 2, h, 2, 448, 3, true, false, 96, 0),
        (11, 3, l_bg2, 2, 704, 2, true, true, 64, 128),
    ];
    for (
        i,
        &(lg_n, circuits, resident, polys, chunk, slots, g2_tail, accumulate, gather, side_tail),
    ) in cases.iter().enumerate()
    {
        for compact in [false, true] {
            let c = Case {
                lg_n,
                circuits,
                resident,
                polys,
                chunk,
                slots,
                g2_tail,
                compact,
                accumulate,
                gather,
                side_tail,
            };
            let f = Fixture::new(&c, 100 + i as u64);
            assert_eq!(
                f.plan.layout.h_accumulate.is_some(),
                accumulate,
                "case {i}: whether the kernels accumulate this shape"
            );
            check(&c, &f);
        }
    }
}

#[test]
fn a_missing_wait_is_caught() {
    let c = Case::plain(9, 2, QuerySet::NONE, 2, 64, 2, true, true);
    let f = Fixture::new(&c, 7);
    let (plan, want, host) = (&f.plan, &f.want, f.host());
    let (ops, results) = f.build(true);
    // Drop each kind of wait in turn: a kernel not waiting for its upload, an upload not
    // waiting for the kernels before it. Each must break some order.
    let first = |pred: &dyn Fn(&Op) -> bool| ops.iter().position(pred).unwrap();
    let kernel_wait = first(&|op| {
        matches!(
            op,
            Op::Wait {
                stream: StreamId::Compute,
                ..
            }
        )
    });
    let upload_wait = first(&|op| {
        matches!(
            op,
            Op::Wait {
                stream: StreamId::Copy,
                ..
            }
        )
    });
    for drop in [kernel_wait, upload_wait] {
        let mut broken = ops.clone();
        broken.remove(drop);
        let wrong = [Order::CopiesFirst, Order::ComputeFirst]
            .into_iter()
            .any(|order| emulate::run(&broken, plan, &host, &results, order) != *want);
        assert!(wrong, "dropping {:?} went unnoticed", ops[drop]);
    }
}

#[test]
fn uploads_count_every_byte_once_per_group() {
    let c = Case::plain(10, 3, QuerySet::NONE, 3, 256, 2, true, true);
    let f = Fixture::new(&c, 9);
    let (ops, _) = f.build(true);
    let mut points = [0usize; 5];
    for op in &ops {
        if let Op::Upload {
            src: HostSrc::Points { query, count, .. },
            ..
        } = op
        {
            points[query.index()] += count;
        }
    }
    let shape = f.plan.shape;
    // H once per circuit; every other query once for the group (chunks no circuit needs are
    // skipped, which random circuits never leave out entirely).
    assert_eq!(points[0], shape.points(Query::H) * c.circuits);
    for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
        assert!(points[q.index()] <= shape.points(q), "{q:?}");
        assert!(
            points[q.index()] * 10 >= shape.points(q) * 9,
            "{q:?}: {points:?}"
        );
    }
}
