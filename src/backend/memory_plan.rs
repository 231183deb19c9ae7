//! How a proof uses one GPU's memory: which SRS queries stay on the device between proofs,
//! which stream from page-locked host memory in chunks, and where the proof's own buffers go.
//!
//! A 2^27 partition's SRS is 44 GiB of points and its `a, b, c` 12 GiB, while most cards have
//! 10-24 GiB. The plan keeps the working set first (the H step's polynomials, one MSM workspace,
//! the chunk buffers), then as many queries resident as fit (those read in every circuit of a
//! call first: H), and streams the rest. When the whole SRS fits beside one proof's working set
//! with room to spare, the plan is [`PlanKind::AllResident`]: the SRS stays on the device and a
//! proof uploads only its own inputs.
//!
//! The plan is pure arithmetic over the kernels' own size functions, so it is the same (and
//! tested) on a machine without a GPU; `bench --plan` prints it for any size and card.

use std::fmt;
use std::ops::Range;

use super::kernel_sizes::{self, Curve};

/// The SRS's point vectors, as the prover uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    H,
    L,
    A,
    BG1,
    BG2,
}

impl Query {
    pub const ALL: [Query; 5] = [Query::H, Query::L, Query::A, Query::BG1, Query::BG2];

    /// The name the params file and the logs use.
    pub fn name(self) -> &'static str {
        match self {
            Query::H => "h",
            Query::L => "l",
            Query::A => "a",
            Query::BG1 => "b_g1",
            Query::BG2 => "b_g2",
        }
    }

    pub fn curve(self) -> Curve {
        match self {
            Query::BG2 => Curve::G2,
            _ => Curve::G1,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// A set of queries.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct QuerySet(u8);

impl QuerySet {
    pub const NONE: QuerySet = QuerySet(0);
    pub const EVERY: QuerySet = QuerySet(0b11111);

    pub fn contains(self, q: Query) -> bool {
        self.0 & (1 << q.index()) != 0
    }

    pub fn with(self, q: Query) -> QuerySet {
        QuerySet(self.0 | (1 << q.index()))
    }

    /// The queries not in this set.
    pub fn complement(self) -> QuerySet {
        QuerySet(!self.0 & Self::EVERY.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Query> {
        Query::ALL.into_iter().filter(move |&q| self.contains(q))
    }

    /// Every subset of the five queries.
    fn all_subsets() -> impl Iterator<Item = QuerySet> {
        (0..32u8).map(QuerySet)
    }
}

impl fmt::Debug for QuerySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for QuerySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Query::name).collect();
        f.write_str(&names.join(", "))
    }
}

/// The sizes that decide a proof's memory: its H domain and the SRS's query lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProofShape {
    /// log2 of the H domain (the `h` query has `2^lg_n - 1` points).
    pub lg_n: u32,
    /// Points per query, in [`Query::ALL`] order.
    pub points: [usize; 5],
}

impl ProofShape {
    /// The shape of proofs over `srs`.
    pub fn of(srs: &crate::srs::Srs) -> ProofShape {
        ProofShape {
            lg_n: (srs.h.len() + 1).next_power_of_two().trailing_zeros(),
            points: [
                srs.h.len(),
                srs.l.len(),
                srs.a.len(),
                srs.b_g1.len(),
                srs.b_g2.len(),
            ],
        }
    }

    /// A PoRep-shaped SRS for `2^lg_n` (what `bench --plan` shows without a params file): aux
    /// variables filling 97% of the domain, A over all of them, B over a quarter.
    pub fn porep_like(lg_n: u32) -> ProofShape {
        let n = 1usize << lg_n;
        let aux = n / 100 * 97;
        ProofShape {
            lg_n,
            points: [n - 1, aux, aux + 328, aux / 4, aux / 4],
        }
    }

    pub fn points(&self, q: Query) -> usize {
        self.points[q.index()]
    }

    /// Device bytes of one query's points.
    pub fn query_bytes(&self, q: Query) -> usize {
        self.points(q) * q.curve().affine_bytes()
    }

    /// Device bytes of a set of queries.
    pub fn set_bytes(&self, set: QuerySet) -> usize {
        set.iter().map(|q| self.query_bytes(q)).sum()
    }

    /// Bytes of one of the H step's polynomials (`a`, `b`, `c`, `h`): 2^lg_n scalars.
    pub fn poly_bytes(&self) -> usize {
        32usize << self.lg_n
    }
}

/// Whether the SRS stays on the device (`GROTH16_C2_SRS_RESIDENT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    /// As much as fits beside the working set (default).
    Auto,
    /// All of it, or the proof fails (`1`, `always`).
    Always,
    /// None of it: every query streams (`0`, `never`).
    Never,
}

impl Residency {
    pub fn from_env() -> Residency {
        match std::env::var("GROTH16_C2_SRS_RESIDENT").as_deref() {
            Ok("1") | Ok("always") => Residency::Always,
            Ok("0") | Ok("never") => Residency::Never,
            _ => Residency::Auto,
        }
    }
}

/// What a plan is asked for.
#[derive(Clone, Copy, Debug)]
pub struct PlanRequest {
    pub shape: ProofShape,
    /// Device bytes the library may hold on the GPU for proofs of this shape.
    pub budget: usize,
    pub residency: Residency,
    /// Whether the G2 tail MSM runs on the GPU (its workspace then counts).
    pub g2_tail_on_gpu: bool,
    /// Forces the streamed chunk length in G1 points (rounded up to a multiple of 64): tests
    /// stream small circuits in many chunks with it.
    pub chunk_points: Option<usize>,
    /// Forces the number of chunk slots (measurements).
    pub slots: Option<usize>,
    /// Forces the number of side buffers (measurements; else one more than the slots).
    pub sides: Option<usize>,
    /// Device bytes the all-resident path needs for one proof beside the SRS and the tables
    /// (its `a, b, c`, workspace and inputs): [`resident_working_bytes`].
    pub resident_working: usize,
    /// The MSM launcher's strategy code proofs run with (0: the default strategy and window),
    /// which sizes the MSM workspace.
    pub msm_code: i32,
    /// Whether streamed tails may be gathered (`GROTH16_C2_STREAM_GATHER=0`: each chunk's tail
    /// summed on its own, for comparison).
    pub gather_tails: bool,
    /// Host-to-device bytes per second the cost model assumes (the device's, measured; else
    /// [`DEFAULT_BUS_BYTES_PER_S`]).
    pub bus_bytes_per_s: f64,
    /// Forces the window of an accumulated H MSM (measurements; else the plan weighs one
    /// chunk's window against the whole MSM's).
    pub h_window: Option<u32>,
}

/// Where a streamed proof's buffers lie in its one device allocation (the arena). The H step's
/// polynomials come first; after the first of them (which holds `h` for the H MSM) lie the MSM
/// workspace, the chunk slots and the per-circuit side buffers, over the space the other
/// polynomials used during the transform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaLayout {
    /// Bytes of one polynomial.
    pub poly_bytes: usize,
    /// Polynomials the H transform holds at once: 3, or 2 (`c` waits for `b`'s buffer).
    pub polys: u32,
    /// The workspace of every MSM and batch addition of the proof (one at a time).
    pub workspace: Range<usize>,
    /// A streamed H MSM accumulated over its chunks (None: each chunk reduced on its own).
    pub h_accumulate: Option<HAccumulation>,
    /// Chunks of streamed points, in turn.
    pub slots: Vec<Range<usize>>,
    /// One circuit's ones bitmap and a piece of its tail for one chunk, in turn.
    pub sides: Vec<Range<usize>>,
    /// Tail entries one side buffer holds: a chunk's longer tail goes up in pieces.
    pub side_tail: usize,
    /// Where the group's circuits gather their tails' points and scalars from the chunks as they
    /// pass, so that one MSM sums many chunks' tails (empty: each chunk's tail is summed on its
    /// own): over the first polynomial when H is resident, else after the side buffers. Split
    /// evenly among the circuits of a group.
    pub gather: Range<usize>,
    /// Bytes of the whole arena.
    pub bytes: usize,
}

/// How a streamed H MSM accumulates over its chunks: one set of buckets for the whole MSM, in
/// a region of its own that the query chunks interleaved with it leave alone (each chunk's
/// sort uses the shared workspace, as their kernels do), reduced once at the end, with the
/// window one chunk would take or the whole MSM's (see `h_accumulation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HAccumulation {
    /// Scalars per chunk at most (the buckets' and the scratch's layout).
    pub n_cap: usize,
    /// The launcher's strategy code, its window forced.
    pub code: i32,
    pub buckets: Range<usize>,
}

impl HAccumulation {
    /// The window width forced in the launcher's code.
    pub fn window(&self) -> u32 {
        (self.code as u32 >> 8) & 0xff
    }
}

impl ArenaLayout {
    /// Polynomial `i`'s bytes (0: `a` and then `h`, 1: `b`, 2: `c`, or `c` in 1 with two).
    pub fn poly(&self, i: u32) -> Range<usize> {
        let start = i as usize * self.poly_bytes;
        start..start + self.poly_bytes
    }

    /// Bytes of one side buffer for chunks of `chunk` points and tail pieces of `tail` entries:
    /// the bitmap words, then the piece's point indices, then its scalars.
    pub fn side_bytes(chunk: usize, tail: usize) -> usize {
        align(chunk.div_ceil(64) * 8) + align(tail * 4) + align(tail * 32)
    }

    /// Where circuit `k` of a group of `circuits` gathers its tail of `curve`: the points, the
    /// scalars, and how many entries they hold (0: the region is too small to gather).
    pub fn gather_part(
        &self,
        k: usize,
        circuits: usize,
        curve: Curve,
        g1_chunk: usize,
    ) -> (Range<usize>, Range<usize>, usize) {
        let per = (self.gather.len() / circuits.max(1)) / 256 * 256;
        let start = self.gather.start + k * per;
        let pb = curve.affine_bytes();
        // A gathered tail is summed with the shared workspace, sized for one chunk's MSM.
        let cap = (per.saturating_sub(256) / (pb + 32) / 64 * 64).min(chunk_for(curve, g1_chunk));
        let points = start..start + cap * pb;
        let at = align(points.end);
        (points, at..at + cap * 32, cap)
    }
}

/// Tail entries a side buffer holds for chunks of `chunk` points: a quarter of the chunk (a
/// PoRep tail is about 8% of the points), so that the sides leave room for the gathered tails.
pub fn side_tail_for(chunk: usize) -> usize {
    chunk.div_ceil(4).next_multiple_of(64).min(chunk.max(1))
}

/// How the proof runs on the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanKind {
    /// The whole SRS resident, the working buffers sized per proof.
    AllResident,
    /// Some queries (or all) streamed in chunks through the arena.
    Streamed {
        resident: QuerySet,
        streamed: QuerySet,
        /// Chunk length in G1 points (G2 chunks hold half as many).
        chunk_points: usize,
        layout: ArenaLayout,
    },
}

/// A proof's use of one GPU's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    pub shape: ProofShape,
    pub budget: usize,
    pub kind: PlanKind,
    /// Device bytes of the NTT tables and the results (of a group of [`MAX_GROUP`] circuits
    /// when streamed).
    pub fixed_bytes: usize,
    /// Device bytes of the resident queries.
    pub resident_bytes: usize,
    /// Device bytes of the working buffers (the arena, or the all-resident path's own).
    pub working_bytes: usize,
}

impl MemoryPlan {
    /// Everything the plan holds on the device.
    pub fn total_bytes(&self) -> usize {
        self.fixed_bytes + self.resident_bytes + self.working_bytes
    }

    /// The queries that stay on the device.
    pub fn resident(&self) -> QuerySet {
        match &self.kind {
            PlanKind::AllResident => QuerySet::EVERY,
            PlanKind::Streamed { resident, .. } => *resident,
        }
    }

    /// The queries that stream from host memory.
    pub fn streamed(&self) -> QuerySet {
        self.resident().complement()
    }

    /// Host-to-device bytes of SRS points one circuit streams (0 when all resident).
    pub fn streamed_bytes(&self) -> usize {
        self.shape.set_bytes(self.streamed())
    }

    /// G1 points per streamed chunk (0 when nothing streams).
    pub fn chunk_points(&self) -> usize {
        match &self.kind {
            PlanKind::AllResident => 0,
            PlanKind::Streamed { chunk_points, .. } => *chunk_points,
        }
    }
}

impl fmt::Display for MemoryPlan {
    /// One line: `2^27 on 24.0 GiB: resident b_g2, b_g1; streamed h, l, a in chunks of 2^22
    /// points (2 slots); 21.3 GiB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "2^{} on {:.1} GiB: {}",
            self.shape.lg_n,
            gib(self.budget),
            self.layout()
        )
    }
}

impl MemoryPlan {
    /// What the plan keeps and streams, without the memory it was made on (which moves a
    /// little between plans of the same SRS as other processes allocate).
    pub fn layout(&self) -> PlanLayout<'_> {
        PlanLayout(self)
    }
}

/// [`MemoryPlan::layout`]: `resident b_g1; streamed h, l, a, b_g2 in chunks of 2^24 points (3
/// slots); 15.2 GiB`.
pub struct PlanLayout<'a>(&'a MemoryPlan);

impl fmt::Display for PlanLayout<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.0;
        match &plan.kind {
            PlanKind::AllResident => write!(f, "the whole SRS resident")?,
            PlanKind::Streamed {
                resident,
                streamed,
                chunk_points,
                layout,
            } => {
                if !resident.is_empty() {
                    write!(f, "resident {resident}; ")?;
                }
                write!(
                    f,
                    "streamed {streamed} in chunks of {} points ({} slots",
                    points_label(*chunk_points),
                    layout.slots.len()
                )?;
                if layout.polys == 2 {
                    write!(f, ", H in two buffers")?;
                }
                if let Some(acc) = &layout.h_accumulate {
                    write!(f, ", H MSM accumulated in {}-bit windows", acc.window())?;
                }
                if !layout.gather.is_empty() {
                    write!(f, ", tails gathered")?;
                }
                write!(f, ")")?;
            }
        }
        write!(f, "; {:.1} GiB", gib(plan.total_bytes()))
    }
}

/// Why no plan fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoFit {
    pub lg_n: u32,
    /// The least device memory any plan for the shape needs.
    pub need: usize,
    pub budget: usize,
}

impl fmt::Display for NoFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a 2^{} proof needs at least {:.2} GiB of device memory with the SRS streamed; {:.2} \
             GiB are available",
            self.lg_n,
            gib(self.need),
            gib(self.budget)
        )
    }
}

/// Free device memory the all-resident plan leaves beyond its estimate (allocator slack, the
/// H query's precomputed copies when they fit, another process's proof).
pub const RESIDENT_MARGIN_BYTES: usize = 2 << 30;

/// Device bytes for the results of the all-resident path (nine points per circuit).
pub const RESULTS_BYTES: usize = 1 << 20;

/// The most circuits of a call one streamed group takes (filecoin-proofs calls with ten): each
/// member's bitmaps and tails stay staged until the group's pass over the queries.
pub const MAX_GROUP: usize = 10;

/// Bytes of a G1 and a G2 result point on the device (XYZZ coordinates).
pub const G1_RESULT_BYTES: usize = 192;
pub const G2_RESULT_BYTES: usize = 384;

/// Result slots one circuit of a streamed group may fill: G1 (the H chunks, or one H MSM over
/// the resident query; per chunk of L, A and B_G1 a batch addition and one MSM per tail piece of
/// `side_tail` entries, its own or its gathered tail's; one more gathered MSM per query) and G2
/// (the same for B_G2).
pub fn result_slots(
    shape: &ProofShape,
    resident: QuerySet,
    g1_chunk: usize,
    side_tail: usize,
) -> (usize, usize) {
    let per_query = |q: Query| {
        let chunk = chunk_for(q.curve(), g1_chunk);
        let pieces = shape.points(q).min(chunk).div_ceil(side_tail.max(1));
        shape.points(q).div_ceil(chunk) * (1 + pieces) + 1
    };
    let h = if resident.contains(Query::H) {
        1
    } else {
        shape.points(Query::H).div_ceil(g1_chunk)
    };
    let g1 = h + per_query(Query::L) + per_query(Query::A) + per_query(Query::BG1);
    (g1, per_query(Query::BG2))
}

/// Device bytes of a streamed group's results for `circuits` circuits.
pub fn results_bytes(
    shape: &ProofShape,
    resident: QuerySet,
    g1_chunk: usize,
    side_tail: usize,
    circuits: usize,
) -> usize {
    let (g1, g2) = result_slots(shape, resident, g1_chunk, side_tail);
    circuits * (g1 * G1_RESULT_BYTES + g2 * G2_RESULT_BYTES)
}

/// Smallest domain the NTT table is built for (it serves every smaller one).
pub const MIN_TABLE_LG: u32 = 16;

/// Candidate chunk lengths, in G1 points: 2^16 to 2^24 (a 2^24-point chunk is 1.5 GiB of G1
/// points; larger ones only add memory).
const CHUNK_LGS: Range<u32> = 16..25;

/// Host-to-device bandwidth the plan's cost model assumes where none was measured (PCIe 4 x16
/// from page-locked memory).
pub const DEFAULT_BUS_BYTES_PER_S: f64 = 25e9;
/// Model cost of one query chunk's launches and tail pieces when its tails are gathered: a
/// 2^24-point G1 chunk's batch addition took 4.0 ms and its gather 0.2 (H100, 2^27 under
/// 16 GiB).
const MODEL_CHUNK_S: f64 = 0.5e-3;
/// Model cost of a chunk's own tail MSM when tails are not gathered: 40 chunks' tail MSMs took
/// 313 ms, their tails gathered into three 189 (H100, 2^27 under 16 GiB).
const MODEL_CHUNK_TAIL_S: f64 = 7.5e-3;
/// Model batch-addition time per point of a chunk: 4.0 ms per 2^24 G1 points, 8.0 per 2^23 G2
/// points (H100).
const MODEL_BATCH_S_PER_POINT: [f64; 2] = [0.24e-9, 0.95e-9];
/// Model cost of one chunk of a streamed H MSM beyond its additions (its sort's passes): 16
/// chunks of 2^23 took 71 ms more than 8 of 2^24 (H100, accumulated).
const MODEL_H_CHUNK_S: f64 = 9e-3;
/// Curve additions per second the model assumes for the H MSM (a 2^27 MSM's ~1.8e9 in ~0.8 s).
const MODEL_ADDITIONS_PER_S: f64 = 2.2e9;

/// The NTT tables' bytes for domains of `2^lg_n`.
pub fn table_bytes(lg_n: u32) -> usize {
    kernel_sizes::ntt_table(lg_n.max(MIN_TABLE_LG)) + kernel_sizes::ntt_coset_table(lg_n)
}

/// The all-resident path's device bytes for one proof beside the SRS and the tables: `a, b, c`,
/// the largest workspace of its MSMs and batch additions, and its uploaded ones bitmaps and
/// tails, for tails of `tail_points` entries per query (L, A, B).
pub fn resident_working_bytes(
    shape: &ProofShape,
    tail_points: [usize; 3],
    g2_tail_on_gpu: bool,
    msm_strategy: i32,
) -> usize {
    let n = 1usize << shape.lg_n;
    let h = shape.points(Query::H);
    let mut ws = kernel_sizes::msm_workspace(Curve::G1, h, msm_strategy);
    let queries = [Query::L, Query::A, Query::BG1];
    for (q, &tail) in queries.iter().zip(&tail_points) {
        ws = ws
            .max(kernel_sizes::msm_workspace_up_to(
                Curve::G1,
                tail,
                msm_strategy,
            ))
            .max(kernel_sizes::batch_add_workspace(
                Curve::G1,
                shape.points(*q),
            ));
    }
    if g2_tail_on_gpu {
        ws = ws.max(kernel_sizes::msm_workspace_up_to(
            Curve::G2,
            tail_points[2],
            msm_strategy,
        ));
    }
    ws = ws.max(kernel_sizes::batch_add_workspace(
        Curve::G2,
        shape.points(Query::BG2),
    ));
    let staged: usize = queries
        .iter()
        .zip(&tail_points)
        .map(|(q, &tail)| shape.points(*q).div_ceil(64) * 8 + tail * 36)
        .sum();
    3 * 32 * n + ws + staged
}

/// The plan for `req`: the whole SRS resident when it fits with [`RESIDENT_MARGIN_BYTES`] to
/// spare (or is asked for), else the streamed layout of least modelled cost within the budget.
pub fn plan(req: &PlanRequest) -> Result<MemoryPlan, NoFit> {
    let shape = req.shape;
    let fixed = table_bytes(shape.lg_n) + RESULTS_BYTES;
    let all = MemoryPlan {
        shape,
        budget: req.budget,
        kind: PlanKind::AllResident,
        fixed_bytes: fixed,
        resident_bytes: shape.set_bytes(QuerySet::EVERY),
        working_bytes: req.resident_working,
    };
    match req.residency {
        Residency::Always => {
            return if all.total_bytes() <= req.budget {
                Ok(all)
            } else {
                Err(NoFit {
                    lg_n: shape.lg_n,
                    need: all.total_bytes(),
                    budget: req.budget,
                })
            };
        }
        Residency::Auto if all.total_bytes() + RESIDENT_MARGIN_BYTES <= req.budget => {
            return Ok(all)
        }
        _ => {}
    }

    let subsets: Vec<QuerySet> = match req.residency {
        Residency::Never => vec![QuerySet::NONE],
        _ => QuerySet::all_subsets()
            .filter(|&s| s != QuerySet::EVERY)
            .collect(),
    };
    let chunks: Vec<usize> = match req.chunk_points {
        Some(c) => vec![c.max(64).next_multiple_of(64)],
        None => CHUNK_LGS.map(|lg| 1usize << lg).collect(),
    };
    let mut best: Option<(f64, MemoryPlan)> = None;
    for &resident in &subsets {
        let resident_bytes = shape.set_bytes(resident);
        if fixed + resident_bytes > req.budget {
            continue;
        }
        for polys in [3, 2] {
            for &chunk in &chunks {
                let slot_counts = match req.slots {
                    Some(s) => vec![s],
                    None => vec![2, 3, 4],
                };
                let h_windows = if resident.contains(Query::H) {
                    vec![0]
                } else {
                    h_window_candidates(req, chunk)
                };
                for (slots, h_window) in slot_counts
                    .iter()
                    .flat_map(|&s| h_windows.iter().map(move |&w| (s, w)))
                {
                    let layout = arena_layout(req, resident, polys, chunk, slots, h_window, 0);
                    if h_window != 0 && layout.h_accumulate.is_none() {
                        continue;
                    }
                    let results =
                        results_bytes(&shape, resident, chunk, layout.side_tail, MAX_GROUP);
                    let mut p = MemoryPlan {
                        shape,
                        budget: req.budget,
                        fixed_bytes: table_bytes(shape.lg_n) + results,
                        resident_bytes,
                        working_bytes: layout.bytes,
                        kind: PlanKind::Streamed {
                            resident,
                            streamed: resident.complement(),
                            chunk_points: chunk,
                            layout,
                        },
                    };
                    if p.total_bytes() > req.budget {
                        continue;
                    }
                    add_gather(req, &mut p);
                    let cost = modelled_cost(&p, req.bus_bytes_per_s.max(1e9));
                    if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                        best = Some((cost, p));
                    }
                }
            }
        }
    }
    best.map(|(_, p)| p).ok_or(NoFit {
        lg_n: shape.lg_n,
        need: minimum_bytes(req),
        budget: req.budget,
    })
}

/// Gives a streamed plan a region to gather tails in, from the budget it leaves (up to one
/// chunk of G1 entries, and none smaller than one side buffer's piece): each chunk's tail MSM
/// reduces thousands of buckets however few its entries, so summing many chunks' tails at once
/// saves most of those reductions.
fn add_gather(req: &PlanRequest, p: &mut MemoryPlan) {
    let PlanKind::Streamed {
        resident,
        chunk_points,
        layout,
        ..
    } = &mut p.kind
    else {
        return;
    };
    if !req.gather_tails {
        return;
    }
    // With H resident the first polynomial is dead once the group's H steps are done (their
    // MSMs read `h` there before the query pass): the circuits gather over it, which costs the
    // budget nothing and gives each circuit of a group of ten a part larger than a chunk's tail.
    if resident.contains(Query::H) {
        layout.gather = 0..layout.poly_bytes / 256 * 256;
        return;
    }
    let (chunk, resident) = (*chunk_points, *resident);
    let entry = Curve::G1.affine_bytes() + 32;
    let least = layout.side_tail / 2 * entry + 512;
    let mut want = chunk * entry + 512;
    let h_window = layout
        .h_accumulate
        .as_ref()
        .map_or(0, HAccumulation::window);
    while want >= least {
        let l = arena_layout(
            req,
            resident,
            layout.polys,
            chunk,
            layout.slots.len(),
            h_window,
            want,
        );
        let total = p.fixed_bytes + p.resident_bytes + l.bytes;
        if total <= req.budget {
            p.working_bytes = l.bytes;
            *layout = l;
            return;
        }
        want = want.saturating_sub((total - req.budget).max(1 << 20));
    }
}

/// The least device memory any streamed plan for `req`'s shape needs.
pub fn minimum_bytes(req: &PlanRequest) -> usize {
    let chunks: Vec<usize> = match req.chunk_points {
        Some(c) => vec![c.max(64).next_multiple_of(64)],
        None => CHUNK_LGS.map(|lg| 1usize << lg).collect(),
    };
    let tables = table_bytes(req.shape.lg_n);
    chunks
        .iter()
        .map(|&chunk| {
            tables
                + results_bytes(
                    &req.shape,
                    QuerySet::NONE,
                    chunk,
                    side_tail_for(chunk),
                    MAX_GROUP,
                )
                + arena_layout(req, QuerySet::NONE, 2, chunk, 2, 0, 0).bytes
        })
        .min()
        .unwrap_or(usize::MAX)
}

/// The arena of a streamed plan: see [`ArenaLayout`]. `h_window`: the window of a streamed H
/// MSM accumulated over its chunks (0: each chunk reduced on its own).
pub(crate) fn arena_layout(
    req: &PlanRequest,
    resident: QuerySet,
    polys: u32,
    chunk: usize,
    slots: usize,
    h_window: u32,
    gather: usize,
) -> ArenaLayout {
    let shape = &req.shape;
    let poly = shape.poly_bytes();
    let h = shape.points(Query::H);
    // The H MSM: over the resident query at once, else chunk by chunk in the shared workspace,
    // reduced per chunk or accumulated into buckets of its own that the query chunks between
    // its chunks leave alone.
    let h_accumulate = (h_window != 0 && !resident.contains(Query::H))
        .then(|| h_accumulation(req, chunk, h_window))
        .flatten();
    let h_ws = if resident.contains(Query::H) {
        kernel_sizes::msm_workspace(Curve::G1, h, req.msm_code)
    } else if let Some((_, _, scratch, _)) = h_accumulate {
        scratch
    } else {
        // The last chunk is shorter.
        kernel_sizes::msm_workspace_up_to(Curve::G1, h.min(chunk), req.msm_code)
    };
    // The other queries go chunk by chunk, resident or not: a chunk's batch addition and its
    // tail MSM (at most one scalar per point).
    let mut ws = h_ws;
    for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
        let curve = q.curve();
        let m = shape.points(q).min(chunk_for(curve, chunk));
        ws = ws.max(kernel_sizes::batch_add_workspace(curve, m));
        if curve == Curve::G1 || req.g2_tail_on_gpu {
            // A chunk's tail has any count up to the chunk's points.
            ws = ws.max(kernel_sizes::msm_workspace_up_to(curve, m, req.msm_code));
        }
    }
    // A slot holds one chunk of the longest streamed query, a side buffer one circuit's slices
    // for one chunk of any query but H.
    let streamed = resident.complement();
    let slot_bytes = streamed
        .iter()
        .map(|q| shape.points(q).min(chunk_for(q.curve(), chunk)) * q.curve().affine_bytes())
        .max()
        .map_or(0, align);
    let side_tail = side_tail_for(chunk);
    let side = [Query::L, Query::A, Query::BG1, Query::BG2]
        .iter()
        .map(|&q| {
            let m = shape.points(q).min(chunk_for(q.curve(), chunk));
            ArenaLayout::side_bytes(m, side_tail.min(m))
        })
        .max()
        .map_or(0, align);
    let streams = slot_bytes > 0;
    let mut at = align(poly);
    let workspace = at..at + ws.max(1);
    at = align(workspace.end);
    let h_accumulate = h_accumulate.map(|(n_cap, code, _, bytes)| {
        let buckets = at..at + bytes;
        at = align(buckets.end);
        HAccumulation {
            n_cap,
            code,
            buckets,
        }
    });
    let slot_ranges: Vec<Range<usize>> = (0..if streams { slots } else { 0 })
        .map(|_| {
            let r = at..at + slot_bytes;
            at = align(r.end);
            r
        })
        .collect();
    // The side stream runs ahead of the kernels as far as the copy stream does: one buffer more
    // than the slots (at least two).
    let sides: Vec<Range<usize>> = (0..req.sides.unwrap_or(slots + 1).max(2))
        .map(|_| {
            let r = at..at + side;
            at = align(r.end);
            r
        })
        .collect();
    let gather = at..at + gather;
    at = align(gather.end);
    ArenaLayout {
        poly_bytes: poly,
        polys,
        workspace,
        h_accumulate,
        slots: slot_ranges,
        sides,
        side_tail,
        gather,
        bytes: at.max(polys as usize * poly),
    }
}

/// The accumulated H MSM over chunks of `chunk` points with `window`-bit windows (forced for
/// every chunk): its chunk length, its launcher code, its scratch and bucket bytes; None where
/// the kernels cannot accumulate that shape.
fn h_accumulation(
    req: &PlanRequest,
    chunk: usize,
    window: u32,
) -> Option<(usize, i32, usize, usize)> {
    let h = req.shape.points(Query::H);
    let n_cap = h.min(chunk);
    if h == 0 || window == 0 {
        return None;
    }
    let code = (req.msm_code & !(0xff << 8)) | (window as i32) << 8;
    let (scratch, buckets) = kernel_sizes::msm_accumulate_sizes(Curve::G1, n_cap, code)?;
    Some((n_cap, code, scratch, buckets))
}

/// The H MSM's options over chunks of `chunk` points: reduced chunk by chunk (0), or
/// accumulated in the window one chunk would take or in the whole MSM's. The whole MSM's is
/// fewer windows of more buckets: a 2^27 MSM over chunks of 2^24 took 877 ms in 20-bit windows
/// against 978 in 16-bit ones (H100), but its kept buckets and scratch take 4.4 GiB against
/// 1.4.
fn h_window_candidates(req: &PlanRequest, chunk: usize) -> Vec<u32> {
    let h = req.shape.points(Query::H);
    if h == 0 {
        return vec![0];
    }
    let mut windows = match req.h_window {
        Some(w) => vec![0, w],
        None => vec![
            0,
            accumulation_window(h.min(chunk), req.msm_code),
            accumulation_window(h, req.msm_code),
        ],
    };
    windows.dedup();
    windows
}

/// The window an MSM of `n` scalars takes (0: none fits), or the width forced in `msm_code`:
/// that of an H MSM accumulated over chunks of `n` points, unless the plan chose the whole
/// MSM's.
pub fn accumulation_window(n: usize, msm_code: i32) -> u32 {
    kernel_sizes::msm_window_bits(n, msm_code)
}

/// Points of one chunk of `curve`'s queries for a plan's G1 chunk length (G2 points are twice
/// the size, so a slot holds half as many).
pub fn chunk_for(curve: Curve, g1_chunk: usize) -> usize {
    match curve {
        Curve::G1 => g1_chunk,
        Curve::G2 => (g1_chunk / 2).max(64).next_multiple_of(64),
    }
}

/// A plan's modelled device-section time in seconds, for comparing plans only: the pass over
/// the queries as the section runs it (each chunk uploaded into the next slot once the chunk
/// before it there is done, its kernels run once it is up), the serialised upload of `c` when
/// the H step has two buffers, and H streamed again for the other circuits of a call. The
/// pass decides how many slots pay: while a chunk of a streamed H MSM keeps the kernels busy
/// (~110 ms at 2^24 points), the copy stream can fill only the free slots, and the light query
/// chunks after it wait for the rest (2^27 under 16 GiB, H100: 17 ms of waiting with four
/// slots, 200 with three, 360 with two).
fn modelled_cost(p: &MemoryPlan, bus: f64) -> f64 {
    let PlanKind::Streamed {
        resident,
        chunk_points,
        layout,
        ..
    } = &p.kind
    else {
        return 0.0;
    };
    let shape = &p.shape;
    // H streams again for every circuit of a call but the last (whose H MSM runs in the pass),
    // the other queries once per call: count H once more, so that it is the first to stay
    // resident.
    let h_again_s = if resident.contains(Query::H) {
        0.0
    } else {
        shape.query_bytes(Query::H) as f64 / bus
    };
    let polys_s = if layout.polys == 2 {
        shape.poly_bytes() as f64 / bus
    } else {
        0.0
    };
    let upload_s = |q: Query, m: usize| {
        if resident.contains(q) {
            0.0
        } else {
            (m * q.curve().affine_bytes()) as f64 / bus
        }
    };
    let gathered = !layout.gather.is_empty();
    let mut queries = Vec::new();
    for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
        let per_point = MODEL_BATCH_S_PER_POINT[(q.curve() == Curve::G2) as usize];
        let own_tail = if gathered { 0.0 } else { MODEL_CHUNK_TAIL_S };
        for m in chunk_ranges_len(shape.points(q), chunk_for(q.curve(), *chunk_points)) {
            queries.push((
                upload_s(q, m),
                m as f64 * per_point + MODEL_CHUNK_S + own_tail,
            ));
        }
    }
    let (h_chunks, h_apart_s) = h_msm_chunks(p);
    let h: Vec<(f64, f64)> = h_chunks
        .into_iter()
        .map(|(m, additions)| {
            (
                upload_s(Query::H, m),
                additions / MODEL_ADDITIONS_PER_S + MODEL_H_CHUNK_S,
            )
        })
        .collect();
    // A resident H's MSM runs whole before the pass (the copy stream fills the slots meanwhile),
    // an accumulated one's reduction after it.
    let (before, after) = if resident.contains(Query::H) {
        (h_apart_s, 0.0)
    } else {
        (0.0, h_apart_s)
    };
    let pass = interleave(h, queries);
    pipeline_s(&pass, layout.slots.len(), before) + after + polys_s + h_again_s
}

/// The time of `chunks` (upload seconds, 0 for resident points, and kernel seconds each), run
/// in order after `busy` seconds of other kernels: each upload waits for the copy stream and
/// for its slot (free once the chunk `slots` before it is done), each chunk's kernels for the
/// kernels before them and its upload.
fn pipeline_s(chunks: &[(f64, f64)], slots: usize, busy: f64) -> f64 {
    let mut slot_free = vec![0.0f64; slots.max(1)];
    let (mut copy, mut compute) = (0.0f64, busy);
    let mut next = 0;
    for &(upload, kernels) in chunks {
        if upload > 0.0 {
            let slot = next;
            next = (next + 1) % slot_free.len();
            copy = copy.max(slot_free[slot]) + upload;
            compute = compute.max(copy) + kernels;
            slot_free[slot] = compute;
        } else {
            compute += kernels;
        }
    }
    compute
}

/// The H chunks spread evenly among the query chunks, each H chunk followed by its share of
/// them (the order a streamed section runs them in).
pub(crate) fn interleave<T>(h: Vec<T>, queries: Vec<T>) -> Vec<T> {
    if h.is_empty() {
        return queries;
    }
    let (nh, nq) = (h.len(), queries.len());
    let mut out = Vec::with_capacity(nh + nq);
    let mut queries = queries.into_iter();
    for (j, c) in h.into_iter().enumerate() {
        out.push(c);
        let until = (j + 1) * nq / nh;
        let taken = out.len() - (j + 1);
        out.extend(queries.by_ref().take(until - taken));
    }
    out.extend(queries);
    out
}

/// A plan's H MSM as the model counts it: the points and curve additions of each streamed
/// chunk (one per point and window, and for an accumulation the adding of the chunk's buckets
/// to the kept ones), and the seconds of what runs apart from the chunks (the accumulation's
/// one reduction, about nine additions per bucket; with H resident, the whole MSM, which runs
/// before the pass).
fn h_msm_chunks(p: &MemoryPlan) -> (Vec<(usize, f64)>, f64) {
    let PlanKind::Streamed {
        resident,
        chunk_points,
        layout,
        ..
    } = &p.kind
    else {
        return (Vec::new(), 0.0);
    };
    let h = p.shape.points(Query::H);
    let windows = |window: u32| 256u32.div_ceil(window.max(1)) as f64;
    let buckets = |window: u32| windows(window) * (1u64 << window.saturating_sub(1)) as f64;
    let msm = |n: usize, window: u32| -> f64 {
        if n == 0 || window == 0 {
            return 0.0;
        }
        n as f64 * windows(window) + 9.0 * buckets(window)
    };
    if resident.contains(Query::H) {
        let whole = msm(h, kernel_sizes::msm_window_bits(h, 0));
        return (Vec::new(), whole / MODEL_ADDITIONS_PER_S);
    }
    if let Some(acc) = &layout.h_accumulate {
        let window = acc.window();
        let chunks = chunk_ranges_len(h, acc.n_cap)
            .map(|m| (m, m as f64 * windows(window) + buckets(window)))
            .collect();
        return (chunks, 9.0 * buckets(window) / MODEL_ADDITIONS_PER_S);
    }
    let chunks = chunk_ranges_len(h, *chunk_points)
        .map(|m| (m, msm(m, kernel_sizes::msm_window_bits(m, 0))))
        .collect();
    (chunks, 0.0)
}

/// The lengths of `len` points in chunks of `chunk`.
fn chunk_ranges_len(len: usize, chunk: usize) -> impl Iterator<Item = usize> {
    (0..len.div_ceil(chunk.max(1))).map(move |j| chunk.min(len - j * chunk))
}

fn align(bytes: usize) -> usize {
    bytes.next_multiple_of(256)
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// `2^22` for powers of two, else the number.
fn points_label(points: usize) -> String {
    if points.is_power_of_two() {
        format!("2^{}", points.trailing_zeros())
    } else {
        points.to_string()
    }
}

#[cfg(test)]
mod tests;
