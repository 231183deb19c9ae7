//! A streamed device section as a list of operations on three streams, with the events that
//! order them: the copy stream (SRS points, `a, b, c`), the side stream (each circuit's ones
//! bitmap and tail slices, small and in step with the kernels) and the compute stream.
//!
//! A [`Builder`] turns a [`StreamPlan`] and a group of circuits into [`Op`]s: per circuit the H
//! step (its `a, b, c` uploaded into the arena's polynomials, transformed, and the H MSM over the
//! resident query or over chunks of it streamed into slots), then, for the whole group, every
//! other query chunk by chunk, each chunk of points serving every circuit of the group before
//! the next one comes (its batch addition over the circuit's ones bitmap and its tail MSM over
//! the tail entries that fall in the chunk). Uploads into a slot wait for the last kernel that
//! read that memory; kernels wait for the uploads they read. A GPU executor runs the ops in
//! order on its two streams; the host emulation in the tests runs them with either stream racing
//! ahead, so that a missing wait shows up as a wrong proof on any machine.

#[cfg(test)]
mod emulate;
#[cfg(test)]
mod tests;

use std::ops::Range;

use blstrs::{G1Projective, G2Projective};
use group::Group;

use super::kernel_sizes::Curve;
use super::memory_plan::{
    chunk_for, interleave, ArenaLayout, MemoryPlan, PlanKind, ProofShape, Query, QuerySet,
};
use crate::split::QuerySplit;

/// The streams of a device section. Points stream on their own so that they run ahead of the
/// kernels by whole chunks while the per-circuit slices keep pace with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamId {
    Copy,
    Side,
    Compute,
}

#[cfg(test)]
impl StreamId {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// An event, by number (the executor creates them on first use).
pub type EventId = usize;

/// Where device memory lies: the proof's arena, or a resident query's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Arena,
    Resident(Query),
}

/// A range of device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    pub space: Space,
    pub offset: usize,
    pub bytes: usize,
}

impl Mem {
    fn arena(range: Range<usize>) -> Mem {
        Mem {
            space: Space::Arena,
            offset: range.start,
            bytes: range.len(),
        }
    }

    /// `bytes` from `offset` within this range.
    fn sub(self, offset: usize, bytes: usize) -> Mem {
        debug_assert!(offset + bytes <= self.bytes);
        Mem {
            space: self.space,
            offset: self.offset + offset,
            bytes,
        }
    }
}

/// Which split of a circuit (L, A, B; B's serves B_G1 and B_G2).
pub fn split_of(q: Query) -> usize {
    match q {
        Query::L => 0,
        Query::A => 1,
        Query::BG1 | Query::BG2 => 2,
        Query::H => unreachable!("the H query has no split"),
    }
}

/// Host memory an upload reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostSrc {
    /// `count` points of an SRS query from `first`.
    Points {
        query: Query,
        first: usize,
        count: usize,
    },
    /// A circuit's `a` (0), `b` (1) or `c` (2), all `len` elements.
    Abc {
        circuit: usize,
        which: usize,
        len: usize,
    },
    /// Words of a circuit's ones bitmap of split `split` (see [`split_of`]).
    Bitmap {
        circuit: usize,
        split: usize,
        first: usize,
        count: usize,
    },
    /// Entries of a circuit's tail point indices.
    TailIndex {
        circuit: usize,
        split: usize,
        first: usize,
        count: usize,
    },
    /// Entries of a circuit's tail scalars (canonical).
    TailScalars {
        circuit: usize,
        split: usize,
        first: usize,
        count: usize,
    },
}

impl HostSrc {
    pub fn bytes(&self) -> usize {
        match *self {
            HostSrc::Points { query, count, .. } => count * query.curve().affine_bytes(),
            HostSrc::Abc { len, .. } => len * 32,
            HostSrc::Bitmap { count, .. } => count * 8,
            HostSrc::TailIndex { count, .. } => count * 4,
            HostSrc::TailScalars { count, .. } => count * 32,
        }
    }
}

/// Where an MSM or batch addition leaves its point: one of the G1 or G2 result slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub curve: Curve,
    pub index: usize,
}

/// Which stage a kernel belongs to, for the timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The H step (transform and MSM).
    H,
    BatchAdd,
    TailMsm,
    /// The G2 tail MSM.
    G2Tail,
}

/// One operation of a streamed device section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// `src` into `dst` (`dst.bytes == src.bytes()`) on a copy stream.
    Upload {
        stream: StreamId,
        dst: Mem,
        src: HostSrc,
    },
    /// `stream` records `event`.
    Record { stream: StreamId, event: EventId },
    /// `stream` waits for the last record of `event` queued before this op (none: no wait).
    Wait { stream: StreamId, event: EventId },
    /// Compute stream from here on: elements `from..` of the polynomial at `poly` become 0.
    ZeroFrom { poly: Mem, from: usize },
    /// Evaluations over the domain (natural order) to evaluations over its coset `g H`.
    Lde { poly: Mem },
    /// `a = a b - c` point-wise (`b` absent: 1, `c` absent: 0). `last`: the step that completes
    /// the quotient (an executor may fold the H step's constant factor into it).
    Pointwise {
        a: Mem,
        b: Option<Mem>,
        c: Option<Mem>,
        last: bool,
    },
    /// Coset evaluations of `a b - c` to the coefficients of `h = (a b - c) / Z`, in
    /// bit-reversed order.
    InverseCoset { poly: Mem },
    /// Bit-reversed order to natural order.
    BitReverse { poly: Mem },
    /// `sum s_k points[idx(k)]` over `n` scalars: `idx(k)` is `index[k]` when given, else
    /// `bitrev(k)` over `bit_reversed` bits when that is not 0, else `k`; points at or past
    /// `n_points` count as the identity. Scalars are Montgomery-form (`montgomery`) or canonical.
    Msm {
        curve: Curve,
        points: Mem,
        n_points: usize,
        index: Option<Mem>,
        scalars: Mem,
        montgomery: bool,
        n: usize,
        bit_reversed: u32,
        result: Slot,
        stage: Stage,
    },
    /// Adds `sum s_k points[k]` over `n` Montgomery-form scalars to the H MSM accumulated in
    /// `buckets` (`first`: from the identity), sorting in the shared workspace; see the plan's
    /// `HAccumulation`.
    MsmAccumulate {
        points: Mem,
        n_points: usize,
        scalars: Mem,
        n: usize,
        first: bool,
        buckets: Mem,
    },
    /// The accumulated H MSM's sum (reduced in the shared workspace).
    MsmAccumulated { buckets: Mem, result: Slot },
    /// The sum of `points[i]` for every `i < n_points` whose bit is set in `bitmap`.
    BatchAdd {
        curve: Curve,
        points: Mem,
        n_points: usize,
        bitmap: Mem,
        result: Slot,
    },
    /// `index[k] -= base` for `k < n` (a tail's indices made relative to a chunk).
    Rebase { index: Mem, n: usize, base: u32 },
    /// For `k < n`: `out_points[k] = points[index[k] - base]` (the identity where that is not
    /// below `n_points`) and `out_scalars[k] = scalars[k]`: a chunk's tail piece appended to a
    /// circuit's gathered tail.
    Gather {
        curve: Curve,
        points: Mem,
        n_points: usize,
        index: Mem,
        base: u32,
        scalars: Mem,
        n: usize,
        out_points: Mem,
        out_scalars: Mem,
    },
}

#[cfg(test)]
impl Op {
    /// The stream that runs it.
    pub fn stream(&self) -> StreamId {
        match self {
            Op::Upload { stream, .. } | Op::Record { stream, .. } | Op::Wait { stream, .. } => {
                *stream
            }
            _ => StreamId::Compute,
        }
    }
}

/// The part of a [`MemoryPlan`] a streamed section follows.
#[derive(Clone, Debug)]
pub struct StreamPlan {
    pub shape: ProofShape,
    pub resident: QuerySet,
    pub chunk_points: usize,
    pub layout: ArenaLayout,
    pub g2_tail_on_gpu: bool,
}

impl StreamPlan {
    /// The streamed part of `plan` (None for an all-resident plan).
    pub fn of(plan: &MemoryPlan, g2_tail_on_gpu: bool) -> Option<StreamPlan> {
        match &plan.kind {
            PlanKind::AllResident => None,
            PlanKind::Streamed {
                resident,
                chunk_points,
                layout,
                ..
            } => Some(StreamPlan {
                shape: plan.shape,
                resident: *resident,
                chunk_points: *chunk_points,
                layout: layout.clone(),
                g2_tail_on_gpu,
            }),
        }
    }
}

/// A named part of the arena whose last reader (or writer) on the compute stream an upload
/// into overlapping memory must wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Poly(u32),
    Workspace,
    /// The accumulated H MSM's buckets.
    HBuckets,
    Slot(usize),
    Side(usize),
    /// The gathered tails.
    Gather,
}

/// One circuit's part in the query phase: its index in the group and its L, A, B splits.
pub struct CircuitQueries<'a> {
    pub circuit: usize,
    pub splits: [&'a QuerySplit; 3],
}

/// What each result slot holds: (circuit, query).
#[derive(Clone, Debug, Default)]
pub struct ResultMap {
    pub g1: Vec<(usize, Query)>,
    pub g2: Vec<(usize, Query)>,
}

/// One circuit's query sums from its result slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sums {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
    pub b_g2: G2Projective,
}

impl Default for Sums {
    fn default() -> Sums {
        Sums {
            h: G1Projective::identity(),
            l: G1Projective::identity(),
            a: G1Projective::identity(),
            b_g1: G1Projective::identity(),
            b_g2: G2Projective::identity(),
        }
    }
}

impl ResultMap {
    /// Each of `circuits` circuits' sums, from the points in its slots.
    pub fn sums(
        &self,
        circuits: usize,
        g1: impl Fn(usize) -> G1Projective,
        g2: impl Fn(usize) -> G2Projective,
    ) -> Vec<Sums> {
        let mut out = vec![Sums::default(); circuits];
        for (slot, &(c, q)) in self.g1.iter().enumerate() {
            let p = g1(slot);
            let s = &mut out[c];
            match q {
                Query::H => s.h += p,
                Query::L => s.l += p,
                Query::A => s.a += p,
                Query::BG1 => s.b_g1 += p,
                Query::BG2 => unreachable!("B_G2 results are G2"),
            }
        }
        for (slot, &(c, _)) in self.g2.iter().enumerate() {
            out[c].b_g2 += g2(slot);
        }
        out
    }
}

/// Builds the ops of a group's streamed section, stage by stage (see the module docs).
pub struct Builder {
    plan: StreamPlan,
    ops: Vec<Op>,
    events: usize,
    /// The last compute-stream event after each region's use.
    last_use: Vec<(Region, EventId)>,
    next_slot: usize,
    next_side: usize,
    results: ResultMap,
    upload_bytes: usize,
    /// The circuit whose chunked H MSM waits for [`Builder::queries`].
    pending_h: Option<usize>,
    /// Per circuit of the query pass: entries gathered of the current query's tail.
    gathered: Vec<usize>,
    /// Circuits sharing the gather region in the query pass.
    gather_circuits: usize,
}

impl Builder {
    pub fn new(plan: StreamPlan) -> Builder {
        Builder {
            plan,
            ops: Vec::new(),
            events: 0,
            last_use: Vec::new(),
            next_slot: 0,
            next_side: 0,
            results: ResultMap::default(),
            upload_bytes: 0,
            pending_h: None,
            gathered: Vec::new(),
            gather_circuits: 1,
        }
    }

    pub fn plan(&self) -> &StreamPlan {
        &self.plan
    }

    /// The ops built since the last call.
    pub fn take_ops(&mut self) -> Vec<Op> {
        std::mem::take(&mut self.ops)
    }

    pub fn results(&self) -> &ResultMap {
        &self.results
    }

    /// Host-to-device bytes of every upload built so far.
    pub fn upload_bytes(&self) -> usize {
        self.upload_bytes
    }

    fn range(&self, r: Region) -> Range<usize> {
        let l = &self.plan.layout;
        match r {
            Region::Poly(i) => l.poly(i),
            Region::Workspace => l.workspace.clone(),
            Region::HBuckets => l.h_accumulate.as_ref().map_or(0..0, |a| a.buckets.clone()),
            Region::Slot(k) => l.slots[k].clone(),
            Region::Side(k) => l.sides[k].clone(),
            Region::Gather => l.gather.clone(),
        }
    }

    fn new_event(&mut self) -> EventId {
        self.events += 1;
        self.events - 1
    }

    fn record(&mut self, stream: StreamId) -> EventId {
        let event = self.new_event();
        self.ops.push(Op::Record { stream, event });
        event
    }

    fn wait(&mut self, stream: StreamId, event: EventId) {
        self.ops.push(Op::Wait { stream, event });
    }

    /// Queues uploads of `(offset, src)` into `region` on `stream`, after the last use of
    /// everything that overlaps it; returns the event recorded once they are done.
    fn upload(&mut self, stream: StreamId, region: Region, parts: &[(usize, HostSrc)]) -> EventId {
        let target = self.range(region);
        let mut waits: Vec<EventId> = self
            .last_use
            .iter()
            .filter(|(r, _)| {
                let other = self.range(*r);
                other.start < target.end && target.start < other.end
            })
            .map(|&(_, e)| e)
            .collect();
        waits.sort_unstable();
        waits.dedup();
        for e in waits {
            self.wait(stream, e);
        }
        for &(offset, src) in parts {
            let bytes = src.bytes();
            assert!(
                offset + bytes <= target.len(),
                "{src:?} overflows {region:?}"
            );
            self.upload_bytes += bytes;
            self.ops.push(Op::Upload {
                stream,
                dst: Mem::arena(target.start + offset..target.start + offset + bytes),
                src,
            });
        }
        self.record(stream)
    }

    /// Marks the end of the compute stream's use of `regions` (so far).
    fn used(&mut self, regions: &[Region]) {
        let event = self.record(StreamId::Compute);
        for &r in regions {
            match self.last_use.iter_mut().find(|(x, _)| *x == r) {
                Some(slot) => slot.1 = event,
                None => self.last_use.push((r, event)),
            }
        }
    }

    fn result(&mut self, curve: Curve, circuit: usize, query: Query) -> Slot {
        let list = match curve {
            Curve::G1 => &mut self.results.g1,
            Curve::G2 => &mut self.results.g2,
        };
        list.push((circuit, query));
        Slot {
            curve,
            index: list.len() - 1,
        }
    }

    fn poly(&self, i: u32) -> Mem {
        Mem::arena(self.range(Region::Poly(i)))
    }

    /// The H step of circuit `circuit`, whose `a, b, c` hold `abc_lens` values. With
    /// `defer_msm` (the group's last circuit), an H MSM over streamed chunks is left to
    /// [`Builder::queries`], which interleaves it with the query chunks; `h` then stays in the
    /// first polynomial until then.
    pub fn h_step(&mut self, circuit: usize, abc_lens: [usize; 3], defer_msm: bool) {
        assert!(self.pending_h.is_none(), "an H MSM is still pending");
        let shape = self.plan.shape;
        let h_points = shape.points(Query::H);
        if shape.lg_n == 0 || h_points == 0 {
            return;
        }
        let (p0, p1) = (self.poly(0), self.poly(1));
        // Uploads vector `which` into polynomial `poly` and queues its LDE once it is there.
        let lde = |b: &mut Builder, which: usize, poly: u32| {
            let src = HostSrc::Abc {
                circuit,
                which,
                len: abc_lens[which],
            };
            let loaded = b.upload(StreamId::Copy, Region::Poly(poly), &[(0, src)]);
            let mem = b.poly(poly);
            b.wait(StreamId::Compute, loaded);
            b.ops.push(Op::ZeroFrom {
                poly: mem,
                from: abc_lens[which],
            });
            b.ops.push(Op::Lde { poly: mem });
        };
        if self.plan.layout.polys >= 3 {
            for i in 0..3 {
                lde(self, i, i as u32);
            }
            self.ops.push(Op::Pointwise {
                a: p0,
                b: Some(p1),
                c: Some(self.poly(2)),
                last: true,
            });
            // b and c are read no more: the slots over them fill while h is transformed.
            self.used(&[Region::Poly(1), Region::Poly(2)]);
            self.ops.push(Op::InverseCoset { poly: p0 });
        } else {
            // Two buffers: a b first, then c into b's place.
            lde(self, 0, 0);
            lde(self, 1, 1);
            self.ops.push(Op::Pointwise {
                a: p0,
                b: Some(p1),
                c: None,
                last: false,
            });
            self.used(&[Region::Poly(1)]);
            lde(self, 2, 1);
            self.ops.push(Op::Pointwise {
                a: p0,
                b: None,
                c: Some(p1),
                last: true,
            });
            self.used(&[Region::Poly(1)]);
            self.ops.push(Op::InverseCoset { poly: p0 });
        }

        if self.plan.resident.contains(Query::H) {
            // Over the resident query, reading h as the transform leaves it.
            let result = self.result(Curve::G1, circuit, Query::H);
            self.ops.push(Op::Msm {
                curve: Curve::G1,
                points: resident(Query::H, 0, h_points),
                n_points: h_points,
                index: None,
                scalars: p0,
                montgomery: true,
                n: h_points,
                bit_reversed: shape.lg_n,
                result,
                stage: Stage::H,
            });
            self.used(&[Region::Poly(0), Region::Workspace]);
            return;
        }
        // Chunk by chunk, each chunk's scalars a run of h in natural order.
        self.ops.push(Op::BitReverse { poly: p0 });
        if defer_msm {
            self.pending_h = Some(circuit);
            return;
        }
        let chunks: Vec<Chunk> = chunk_ranges(h_points, self.plan.chunk_points)
            .into_iter()
            .map(|r| Chunk::H(circuit, r))
            .collect();
        self.run_chunks(&chunks);
    }

    /// Runs `chunks` in order, their points uploaded ahead into the slots.
    fn run_chunks(&mut self, chunks: &[Chunk]) {
        let uploads: Vec<(Query, Range<usize>)> = chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::H(_, r) => Some((Query::H, r.clone())),
                Chunk::Query(q) => {
                    (!self.plan.resident.contains(q.query)).then(|| (q.query, q.range.clone()))
                }
            })
            .collect();
        let mut loads = Prefetch::new(self.plan.layout.slots.len());
        let mut uploaded = 0;
        let h_chunks = chunks.iter().filter(|c| matches!(c, Chunk::H(..))).count();
        let mut h_done = 0;
        let accumulate = self.plan.layout.h_accumulate.is_some();
        let h_buckets = Mem::arena(self.range(Region::HBuckets));
        // The query whose tails are being gathered: summed when the next query's chunks begin.
        let mut gathering: Option<Query> = None;
        for c in chunks {
            match c {
                Chunk::H(circuit, range) => {
                    loads.ahead(self, &uploads[uploaded..]);
                    uploaded += 1;
                    let (slot, loaded) = loads.take();
                    self.wait(StreamId::Compute, loaded);
                    let m = range.len();
                    let points = Mem::arena(self.range(Region::Slot(slot))).sub(0, m * 96);
                    let scalars = self.poly(0).sub(range.start * 32, m * 32);
                    if accumulate {
                        self.ops.push(Op::MsmAccumulate {
                            points,
                            n_points: m,
                            scalars,
                            n: m,
                            first: h_done == 0,
                            buckets: h_buckets,
                        });
                        if h_done + 1 == h_chunks {
                            let result = self.result(Curve::G1, *circuit, Query::H);
                            self.ops.push(Op::MsmAccumulated {
                                buckets: h_buckets,
                                result,
                            });
                        }
                        self.used(&[Region::Slot(slot), Region::HBuckets, Region::Workspace]);
                    } else {
                        let result = self.result(Curve::G1, *circuit, Query::H);
                        self.ops.push(Op::Msm {
                            curve: Curve::G1,
                            points,
                            n_points: m,
                            index: None,
                            scalars,
                            montgomery: true,
                            n: m,
                            bit_reversed: 0,
                            result,
                            stage: Stage::H,
                        });
                        self.used(&[Region::Slot(slot), Region::Workspace]);
                    }
                    h_done += 1;
                }
                Chunk::Query(q) => {
                    if gathering.is_some_and(|g| g != q.query) {
                        self.sum_gathered(gathering.take().expect("checked"));
                    }
                    gathering = Some(q.query);
                    if self.plan.resident.contains(q.query) {
                        self.query_chunk(q, None);
                    } else {
                        loads.ahead(self, &uploads[uploaded..]);
                        uploaded += 1;
                        let (slot, loaded) = loads.take();
                        self.query_chunk(q, Some((slot, loaded)));
                    }
                }
            }
        }
        if let Some(q) = gathering {
            self.sum_gathered(q);
        }
        if h_done > 0 {
            // h (in the first polynomial) is read no more.
            self.used(&[Region::Poly(0)]);
        }
    }

    /// Where circuit `circuit` gathers its tail of `curve` (points, scalars, capacity; 0: it
    /// does not).
    fn gather_part(&self, circuit: usize, curve: Curve) -> (Mem, Mem, usize) {
        let (p, s, cap) = self.plan.layout.gather_part(
            circuit,
            self.gather_circuits,
            curve,
            self.plan.chunk_points,
        );
        (Mem::arena(p), Mem::arena(s), cap)
    }

    /// Sums circuit `circuit`'s gathered tail of `q`, if it has one, into a result slot.
    fn sum_gathered_of(&mut self, circuit: usize, q: Query) {
        let n = std::mem::take(&mut self.gathered[circuit]);
        if n == 0 {
            return;
        }
        let curve = q.curve();
        let (points, scalars, _) = self.gather_part(circuit, curve);
        let result = self.result(curve, circuit, q);
        self.ops.push(Op::Msm {
            curve,
            points: points.sub(0, n * curve.affine_bytes()),
            n_points: n,
            index: None,
            scalars: scalars.sub(0, n * 32),
            montgomery: false,
            n,
            bit_reversed: 0,
            result,
            stage: tail_stage(curve),
        });
        self.used(&[Region::Gather, Region::Workspace]);
    }

    /// Sums every circuit's gathered tail of `q`.
    fn sum_gathered(&mut self, q: Query) {
        for k in 0..self.gathered.len() {
            self.sum_gathered_of(k, q);
        }
    }

    /// Appends a tail piece to its circuit's gathered tail (summing what was gathered first
    /// when it would not fit), or sums it on its own where the circuit's part of the gather
    /// region cannot hold it. True when gathered.
    fn tail_piece(&mut self, t: TailPiece) -> bool {
        let curve = t.query.curve();
        let (out_points, out_scalars, cap) = self.gather_part(t.circuit, curve);
        if t.n > cap {
            self.ops.push(Op::Rebase {
                index: t.index,
                n: t.n,
                base: t.base,
            });
            let result = self.result(curve, t.circuit, t.query);
            self.ops.push(Op::Msm {
                curve,
                points: t.points,
                n_points: t.n_points,
                index: Some(t.index),
                scalars: t.scalars,
                montgomery: false,
                n: t.n,
                bit_reversed: 0,
                result,
                stage: tail_stage(curve),
            });
            return false;
        }
        if self.gathered[t.circuit] + t.n > cap {
            self.sum_gathered_of(t.circuit, t.query);
        }
        let at = self.gathered[t.circuit];
        let pb = curve.affine_bytes();
        self.ops.push(Op::Gather {
            curve,
            points: t.points,
            n_points: t.n_points,
            index: t.index,
            base: t.base,
            scalars: t.scalars,
            n: t.n,
            out_points: out_points.sub(at * pb, t.n * pb),
            out_scalars: out_scalars.sub(at * 32, t.n * 32),
        });
        self.gathered[t.circuit] += t.n;
        true
    }

    /// The L, A and B queries of every circuit of the group, one pass over each query's points.
    pub fn queries(&mut self, circuits: &[CircuitQueries]) {
        let group = circuits.iter().map(|c| c.circuit + 1).max().unwrap_or(0);
        self.gathered = vec![0; group];
        self.gather_circuits = group.max(1);
        // Every chunk some circuit has work in, all queries in turn, so that uploads run ahead
        // across the queries' boundaries too.
        let mut chunks: Vec<QueryChunk> = Vec::new();
        for q in [Query::L, Query::A, Query::BG1, Query::BG2] {
            let len = self.plan.shape.points(q);
            let chunk = chunk_for(q.curve(), self.plan.chunk_points);
            for range in chunk_ranges(len, chunk) {
                let work: Vec<CircuitWork> = circuits
                    .iter()
                    .filter_map(|c| {
                        let s = c.splits[split_of(q)];
                        let ones = ones_in(s, range.clone(), len);
                        let tail = if q.curve() == Curve::G1 || self.plan.g2_tail_on_gpu {
                            tail_in(s, range.clone())
                        } else {
                            0..0
                        };
                        (ones > 0 || !tail.is_empty()).then_some(CircuitWork {
                            circuit: c.circuit,
                            ones,
                            tail,
                        })
                    })
                    .collect();
                if !work.is_empty() {
                    chunks.push(QueryChunk {
                        query: q,
                        range,
                        side: SideLayout::for_chunk(
                            len.min(chunk),
                            self.plan.layout.side_tail.min(len.min(chunk)),
                        ),
                        work,
                    });
                }
            }
        }
        // A circuit's H MSM left for this pass runs among the query chunks: its chunks are
        // compute-heavy and light on PCIe, the queries' the other way round, so interleaved the
        // copies run under the H MSM's kernels.
        let h: Vec<Chunk> = match self.pending_h.take() {
            Some(circuit) => chunk_ranges(self.plan.shape.points(Query::H), self.plan.chunk_points)
                .into_iter()
                .map(|r| Chunk::H(circuit, r))
                .collect(),
            None => Vec::new(),
        };
        let queries: Vec<Chunk> = chunks.into_iter().map(Chunk::Query).collect();
        self.run_chunks(&interleave(h, queries));
    }

    /// One chunk of a query for every circuit with work in it: its points resident, or in a
    /// slot with the event of their upload.
    fn query_chunk(&mut self, chunk: &QueryChunk, loaded: Option<(usize, EventId)>) {
        let (q, range) = (chunk.query, chunk.range.clone());
        let curve = q.curve();
        let split = split_of(q);
        let m = range.len();
        let (points, slot) = match loaded {
            None => (resident(q, range.start, m), None),
            Some((slot, event)) => {
                self.wait(StreamId::Compute, event);
                let mem =
                    Mem::arena(self.range(Region::Slot(slot))).sub(0, m * curve.affine_bytes());
                (mem, Some(slot))
            }
        };
        for w in &chunk.work {
            let words = w.ones.div_ceil(64);
            // The tail goes up in pieces a side buffer holds; the bitmap with the first.
            let piece = chunk.side.tail.max(1);
            let mut pieces: Vec<Range<usize>> = (w.tail.start..w.tail.end)
                .step_by(piece)
                .map(|s| s..(s + piece).min(w.tail.end))
                .collect();
            if pieces.is_empty() {
                pieces.push(w.tail.start..w.tail.start);
            }
            for (j, tail) in pieces.into_iter().enumerate() {
                let k = self.next_side;
                self.next_side = (k + 1) % self.plan.layout.sides.len();
                let ones = if j == 0 { w.ones } else { 0 };
                let mut parts = Vec::with_capacity(3);
                if ones > 0 {
                    parts.push((
                        0,
                        HostSrc::Bitmap {
                            circuit: w.circuit,
                            split,
                            first: range.start / 64,
                            count: words,
                        },
                    ));
                }
                if !tail.is_empty() {
                    parts.push((
                        chunk.side.index,
                        HostSrc::TailIndex {
                            circuit: w.circuit,
                            split,
                            first: tail.start,
                            count: tail.len(),
                        },
                    ));
                    parts.push((
                        chunk.side.scalars,
                        HostSrc::TailScalars {
                            circuit: w.circuit,
                            split,
                            first: tail.start,
                            count: tail.len(),
                        },
                    ));
                }
                let loaded = self.upload(StreamId::Side, Region::Side(k), &parts);
                self.wait(StreamId::Compute, loaded);
                let side = Mem::arena(self.range(Region::Side(k)));
                if ones > 0 {
                    let result = self.result(curve, w.circuit, q);
                    self.ops.push(Op::BatchAdd {
                        curve,
                        points,
                        n_points: ones,
                        bitmap: side.sub(0, words * 8),
                        result,
                    });
                }
                let mut regions = vec![Region::Side(k), Region::Workspace];
                if !tail.is_empty() {
                    let piece = TailPiece {
                        circuit: w.circuit,
                        query: q,
                        points,
                        n_points: m,
                        index: side.sub(chunk.side.index, tail.len() * 4),
                        scalars: side.sub(chunk.side.scalars, tail.len() * 32),
                        n: tail.len(),
                        base: range.start as u32,
                    };
                    if self.tail_piece(piece) {
                        regions.push(Region::Gather);
                    }
                }
                self.used(&regions);
            }
        }
        if let Some(slot) = slot {
            self.used(&[Region::Slot(slot)]);
        }
    }
}

/// One circuit's tail entries from one chunk of a query, in a side buffer on the device.
struct TailPiece {
    circuit: usize,
    query: Query,
    /// The chunk's points, and how many.
    points: Mem,
    n_points: usize,
    /// The entries' point indices (into the query; `base` is the chunk's first) and scalars.
    index: Mem,
    scalars: Mem,
    n: usize,
    base: u32,
}

/// The stage a tail MSM (or gather) of `curve` counts in.
pub fn tail_stage(curve: Curve) -> Stage {
    match curve {
        Curve::G1 => Stage::TailMsm,
        Curve::G2 => Stage::G2Tail,
    }
}

/// A chunk of work over one chunk of points.
enum Chunk {
    /// Part of circuit `.0`'s H MSM.
    H(usize, Range<usize>),
    Query(QueryChunk),
}

/// One chunk of a query that some circuit of the group has work in.
struct QueryChunk {
    query: Query,
    range: Range<usize>,
    side: SideLayout,
    work: Vec<CircuitWork>,
}

/// A circuit's work in one chunk: a batch addition over its first `ones` points (some set) and
/// a tail MSM over its tail entries `tail`.
struct CircuitWork {
    circuit: usize,
    ones: usize,
    tail: Range<usize>,
}

/// Uploads of chunks of points queued ahead into the slots, each slot reused once the kernels of
/// the chunk before it in that slot are done.
struct Prefetch {
    slots: usize,
    /// (slot, loaded event) of the chunks queued and not yet taken, in order.
    queued: std::collections::VecDeque<(usize, EventId)>,
}

impl Prefetch {
    fn new(slots: usize) -> Prefetch {
        Prefetch {
            slots,
            queued: Default::default(),
        }
    }

    /// Queues the uploads of `rest` (the next chunk to take and those after it) until every
    /// slot holds one.
    fn ahead(&mut self, b: &mut Builder, rest: &[(Query, Range<usize>)]) {
        let mut next = self.queued.len();
        while self.queued.len() < self.slots && next < rest.len() {
            let (query, range) = (rest[next].0, rest[next].1.clone());
            let slot = b.next_slot;
            b.next_slot = (slot + 1) % self.slots;
            let loaded = b.upload(
                StreamId::Copy,
                Region::Slot(slot),
                &[(
                    0,
                    HostSrc::Points {
                        query,
                        first: range.start,
                        count: range.len(),
                    },
                )],
            );
            self.queued.push_back((slot, loaded));
            next += 1;
        }
    }

    /// The slot and load event of the next chunk.
    fn take(&mut self) -> (usize, EventId) {
        self.queued.pop_front().expect("queued by ahead")
    }
}

/// Where a side buffer holds its parts for chunks of at most `chunk` points and tail pieces of
/// at most `tail` entries.
#[derive(Clone, Copy, Debug)]
struct SideLayout {
    index: usize,
    scalars: usize,
    tail: usize,
}

impl SideLayout {
    fn for_chunk(chunk: usize, tail: usize) -> SideLayout {
        let index = (chunk.div_ceil(64) * 8).next_multiple_of(256);
        let scalars = index + (tail * 4).next_multiple_of(256);
        debug_assert!(scalars + tail * 32 <= ArenaLayout::side_bytes(chunk, tail));
        SideLayout {
            index,
            scalars,
            tail,
        }
    }
}

/// `len` points in chunks of `chunk`.
fn chunk_ranges(len: usize, chunk: usize) -> Vec<Range<usize>> {
    (0..len)
        .step_by(chunk.max(1))
        .map(|s| s..(s + chunk).min(len))
        .collect()
}

/// Points `first..first + count` of `srs`'s query `q`, as the bytes an upload copies.
pub fn points_bytes(srs: &crate::srs::Srs, q: Query, first: usize, count: usize) -> &[u8] {
    fn bytes<T>(v: &[T]) -> &[u8] {
        // SAFETY: plain-data points viewed as bytes.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
    }
    let range = first..first + count;
    match q {
        Query::H => bytes(&srs.h[range]),
        Query::L => bytes(&srs.l[range]),
        Query::A => bytes(&srs.a[range]),
        Query::BG1 => bytes(&srs.b_g1[range]),
        Query::BG2 => bytes(&srs.b_g2[range]),
    }
}

/// `count` points of a resident query from `first`.
fn resident(q: Query, first: usize, count: usize) -> Mem {
    let pb = q.curve().affine_bytes();
    Mem {
        space: Space::Resident(q),
        offset: first * pb,
        bytes: count * pb,
    }
}

/// How many of the chunk's points the split's bitmap covers (0 when none of them is set).
fn ones_in(s: &QuerySplit, range: Range<usize>, len: usize) -> usize {
    let end = range.end.min(s.ones.len).min(len);
    if end <= range.start {
        return 0;
    }
    let words = &s.ones.words[range.start / 64..end.div_ceil(64)];
    if words.iter().all(|&w| w == 0) {
        return 0;
    }
    end - range.start
}

/// The tail entries whose points fall in `range` (tail points ascend).
fn tail_in(s: &QuerySplit, range: Range<usize>) -> Range<usize> {
    let lo = s
        .tail_points
        .partition_point(|&p| (p as usize) < range.start);
    let hi = s.tail_points.partition_point(|&p| (p as usize) < range.end);
    lo..hi
}
