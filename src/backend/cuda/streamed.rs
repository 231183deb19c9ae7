//! The device section under a streamed memory plan: a group of circuits on one GPU, the SRS
//! queries the plan keeps resident on the device and the others streamed in chunks from the
//! page-locked host copy through the arena, as the ops of `crate::backend::streaming` say.
//!
//! [`StreamedGroup::add`] queues one circuit's H step and returns once its `a, b, c` are on the
//! device (the caller's buffers and their staging may go); [`StreamedGroup::finish`] queues every
//! other query for the whole group, each chunk of points serving every circuit before the next
//! chunk comes, then waits for the streams and sums each circuit's results on the host.

use std::ffi::c_void;
use std::mem::size_of;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::Instant;

use blstrs::Scalar;
use ff::{Field, PrimeField};
use parking_lot::MutexGuard;

use super::device::DeviceState;
use super::h;
use super::kernels::{self, Curve, MsmArgs, MsmStrategy};
use super::points::{G1Xyzz, G2Xyzz};
use super::resident::{pin_host_or_warn, ResidentQueries};
use super::runtime::{upload_raw, zero_raw, DeviceBuffer, DeviceView, Event, Stream};
use super::staging::Staged;
use crate::assignment::Witness;
use crate::backend::memory_plan::{result_slots, MemoryPlan, Query};
use crate::backend::streaming::{
    points_bytes, tail_stage, Builder, CircuitQueries, EventId, HostSrc, Mem, Op, Space, Stage,
    StreamId, StreamPlan,
};
use crate::backend::{CircuitPrep, DeviceGroup, DeviceResults};
use crate::error::{Error, Result};
use crate::split::CircuitSplit;
use crate::srs::Srs;
use crate::telemetry::{ms, ProofTimings};

/// A group of circuits under a streamed plan; holds the device's state from its opening to its
/// end, so no other section runs on the device meanwhile.
pub struct StreamedGroup<'a> {
    guard: MutexGuard<'static, Option<DeviceState>>,
    srs: &'a Srs,
    capacity: usize,
    builder: Builder,
    exec: Executor,
    members: Vec<Member>,
    /// Timing events around each circuit's H step.
    h_marks: Vec<(Event, Event)>,
    /// Where the G2 result slots start in the results buffer.
    g2_results_at: usize,
    done: bool,
    /// Host time inside the section, for the timings log: when the group was opened, and how
    /// long until its first op was queued.
    opened: Instant,
    to_first_op_ms: Option<f64>,
}

struct Member {
    index: usize,
    split: CircuitSplit,
    prep: Option<CircuitPrep>,
}

impl<'a> StreamedGroup<'a> {
    /// Opens a group of up to `capacity` circuits under `plan` (streamed) on the device whose
    /// state `guard` holds: the tables, the resident queries and the arena are made or kept.
    pub fn open(
        mut guard: MutexGuard<'static, Option<DeviceState>>,
        srs: &'a Srs,
        plan: &MemoryPlan,
        capacity: usize,
    ) -> Result<StreamedGroup<'a>> {
        let opened = Instant::now();
        let state = guard.as_mut().expect("lock_device creates the state");
        // Where the G2 tail runs was decided with the plan (for this SRS's circuits' shape).
        let g2_tail_on_gpu = state
            .plan
            .as_ref()
            .map_or_else(crate::settings::g2_tail_on_gpu, |p| p.key.g2_tail_on_gpu);
        let sp = StreamPlan::of(plan, g2_tail_on_gpu).expect("a streamed plan has a stream layout");
        h::prepare_tables(state, sp.shape.lg_n)?;
        // Uploads from the host copy run at PCIe speed only from page-locked memory.
        pin_host_or_warn(srs);
        if !state
            .partial
            .as_ref()
            .is_some_and(|p| p.is(srs, sp.resident))
        {
            state.partial = None;
            if !sp.resident.is_empty() {
                state.partial = Some(ResidentQueries::upload(srs, sp.resident, &state.copy)?);
            }
        }
        if state
            .arena
            .as_ref()
            .is_none_or(|a| a.len() < sp.layout.bytes)
        {
            state.arena = None;
            state.arena = Some(DeviceBuffer::new(sp.layout.bytes)?);
        }
        let (g1, g2) = result_slots(&sp.shape, sp.resident, sp.chunk_points, sp.layout.side_tail);
        let g2_results_at = capacity * g1 * size_of::<G1Xyzz>();
        // Exactly what the group needs: the plan counted no more.
        let results = g2_results_at + capacity * g2 * size_of::<G2Xyzz>();
        if state
            .scratch
            .results
            .as_ref()
            .is_none_or(|r| r.len() < results)
        {
            state.scratch.results = None;
            state.scratch.results = Some(DeviceBuffer::new(results)?);
        }
        Ok(StreamedGroup {
            guard,
            srs,
            capacity,
            builder: Builder::new(sp),
            exec: Executor::default(),
            members: Vec::new(),
            h_marks: Vec::new(),
            g2_results_at,
            done: false,
            opened,
            to_first_op_ms: None,
        })
    }

    fn state(&mut self) -> &mut DeviceState {
        self.guard.as_mut().expect("lock_device creates the state")
    }

    /// Drains the streams after a failure: queued copies may still read staging buffers that
    /// go back to their pool as soon as the group is dropped.
    fn abandon(&mut self) {
        self.done = true;
        let state = self.state();
        for s in [&state.copy, &state.side, &state.compute] {
            let _ = s.synchronize();
        }
    }

    /// Runs `f`, abandoning the group when it fails or panics.
    fn guarded<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        match catch_unwind(AssertUnwindSafe(|| f(self))) {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => {
                self.abandon();
                Err(e)
            }
            Err(panic) => {
                self.abandon();
                resume_unwind(panic)
            }
        }
    }

    fn add_h(&mut self, k: usize, w: &Witness, prep: &mut Option<CircuitPrep>) -> Result<()> {
        // The group's last circuit leaves its H MSM to the pass over the queries, which runs
        // it among the query chunks (their uploads then overlap its kernels).
        let last = k + 1 == self.capacity;
        self.builder
            .h_step(k, [w.a.len(), w.b.len(), w.c.len()], last);
        let ops = self.builder.take_ops();
        let srs = self.srs;
        let ctx = self.context();
        let state = self.guard.as_mut().expect("lock_device creates the state");
        let marks = (Event::timing()?, Event::timing()?);
        marks.0.record(&state.compute)?;
        let opened = self.opened;
        self.to_first_op_ms
            .get_or_insert_with(|| ms(opened.elapsed()));
        {
            let staged = prep.as_ref().and_then(|p| p.downcast_ref::<Staged>());
            let staged_abc = staged.map(Staged::abc).unwrap_or([None, None, None]);
            let own = [w.a, w.b, w.c];
            let abc: [&[Scalar]; 3] = [0, 1, 2].map(|i| staged_abc[i].unwrap_or(own[i]));
            let host = |src: HostSrc| -> &[u8] {
                match src {
                    HostSrc::Abc { which, .. } => bytes_of(abc[which]),
                    HostSrc::Points {
                        query,
                        first,
                        count,
                    } => points_bytes(srs, query, first, count),
                    _ => unreachable!("the H step uploads a, b, c and points only"),
                }
            };
            self.exec.run(&ops, state, &ctx, &host, false)?;
        }
        marks.1.record(&state.compute)?;
        self.h_marks.push(marks);
        // Tests only: a panic with uploads and the H step in flight.
        crate::fault::panic_point();
        // The caller's a, b, c and their staging may go once their uploads have run.
        if let Some(event) = last_abc_upload(&ops) {
            self.exec.event(event)?.synchronize()?;
        }
        if let Some(staged) = prep.as_mut().and_then(|p| p.downcast_mut::<Staged>()) {
            staged.release_abc();
        }
        Ok(())
    }

    fn finish_queries(&mut self, timings: &mut ProofTimings) -> Result<Vec<DeviceResults>> {
        let circuits: Vec<CircuitQueries> = self
            .members
            .iter()
            .enumerate()
            .map(|(k, m)| CircuitQueries {
                circuit: k,
                splits: [&m.split.l, &m.split.a, &m.split.b],
            })
            .collect();
        let queued = Instant::now();
        self.builder.queries(&circuits);
        drop(circuits);
        let ops = self.builder.take_ops();
        let ctx = self.context();
        let srs = self.srs;
        let StreamedGroup {
            guard,
            exec,
            members,
            h_marks,
            builder,
            opened,
            to_first_op_ms,
            ..
        } = self;
        let state = guard.as_mut().expect("lock_device creates the state");
        let host = |src: HostSrc| -> &[u8] {
            match src {
                HostSrc::Points {
                    query,
                    first,
                    count,
                } => points_bytes(srs, query, first, count),
                HostSrc::Bitmap {
                    circuit,
                    split,
                    first,
                    count,
                } => bytes_of(&query_parts(&members[circuit], split).0[first..first + count]),
                HostSrc::TailIndex {
                    circuit,
                    split,
                    first,
                    count,
                } => bytes_of(&query_parts(&members[circuit], split).1[first..first + count]),
                HostSrc::TailScalars {
                    circuit,
                    split,
                    first,
                    count,
                } => bytes_of(&query_parts(&members[circuit], split).2[first..first + count]),
                HostSrc::Abc { .. } => unreachable!("the queries upload no a, b, c"),
            }
        };
        exec.run(&ops, state, &ctx, &host, true)?;
        let queue_ms = ms(queued.elapsed());
        for s in [&state.copy, &state.side, &state.compute] {
            s.synchronize()?;
        }
        let drained = Instant::now();

        let results = state.scratch.results.as_ref().expect("grown in open");
        let mut bytes = vec![0u8; results.len()];
        results.download_async(&mut bytes, &state.compute)?;
        state.compute.synchronize()?;
        let g2_tail = builder.plan().g2_tail_on_gpu;
        let point = |at: usize| -> &[u8] { &bytes[at..] };
        let sums = builder.results().sums(
            members.len(),
            |slot| {
                let at = slot * size_of::<G1Xyzz>();
                // SAFETY: the slot lies inside the downloaded buffer (sized for the group).
                let p: G1Xyzz = unsafe { std::ptr::read_unaligned(point(at).as_ptr().cast()) };
                p.to_projective()
            },
            |slot| {
                let at = ctx.g2_results_at + slot * size_of::<G2Xyzz>();
                // SAFETY: as above.
                let p: G2Xyzz = unsafe { std::ptr::read_unaligned(point(at).as_ptr().cast()) };
                p.to_projective()
            },
        );
        let out: Vec<DeviceResults> = sums
            .into_iter()
            .map(|s| DeviceResults {
                h: s.h,
                l: s.l,
                a: s.a,
                b_g1: s.b_g1,
                b_g2: s.b_g2,
                b_g2_tail_done: g2_tail,
            })
            .collect();

        for (start, end) in h_marks.iter() {
            timings.ntt_msm_h_ms += end.elapsed_ms(start)?;
        }
        exec.add_times(timings)?;
        if crate::telemetry::log_stream_ops() {
            eprintln!(
                "groth16-c2: streamed section, {} circuit(s), chunks of {} points: {} \
                 host_to_first_op_ms={:.1} host_queue_ms={queue_ms:.1} host_collect_ms={:.1} \
                 host_span_ms={:.1}",
                members.len(),
                builder.plan().chunk_points,
                exec.breakdown(h_marks)?,
                to_first_op_ms.unwrap_or(0.0),
                ms(drained.elapsed()),
                ms(opened.elapsed()),
            );
        }
        if crate::telemetry::log_stream_trace() {
            eprint!("{}", exec.trace(h_marks)?);
        }
        timings.h2d_bytes += builder.upload_bytes() as u64;
        timings.stream_chunk_points = builder.plan().chunk_points as u64;
        Ok(out)
    }

    /// The device addresses the ops refer to.
    fn context(&mut self) -> Context {
        let g2_results_at = self.g2_results_at;
        let plan = self.builder.plan().clone();
        let state = self.state();
        let arena = state.arena.as_ref().expect("allocated in open");
        let mut resident = [std::ptr::null(); 5];
        if let Some(p) = &state.partial {
            for q in Query::ALL {
                resident[q.index()] = p.ptr(q);
            }
        }
        Context {
            arena: arena.as_ptr() as *mut c_void,
            arena_bytes: arena.len(),
            resident,
            results: state
                .scratch
                .results
                .as_ref()
                .expect("grown in open")
                .as_ptr() as *mut c_void,
            results_bytes: state.scratch.results.as_ref().map_or(0, |r| r.len()),
            g2_results_at,
            plan,
        }
    }
}

impl DeviceGroup for StreamedGroup<'_> {
    fn capacity(&self) -> usize {
        self.capacity
    }

    fn add(
        &mut self,
        index: usize,
        w: &Witness,
        split: CircuitSplit,
        prep: Option<CircuitPrep>,
        _timings: &mut ProofTimings,
    ) -> Result<()> {
        let k = self.members.len();
        assert!(k < self.capacity, "a full group takes no more circuits");
        let mut prep = prep;
        self.guarded(|g| g.add_h(k, w, &mut prep))?;
        self.members.push(Member { index, split, prep });
        Ok(())
    }

    fn finish(
        mut self: Box<Self>,
        timings: &mut ProofTimings,
    ) -> Result<Vec<(usize, DeviceResults, CircuitSplit)>> {
        let results = self.guarded(|g| g.finish_queries(timings))?;
        self.done = true;
        for _ in &results {
            super::device::count_circuit(self.guard.as_ref().map_or(0, |s| s.index));
        }
        let members = std::mem::take(&mut self.members);
        Ok(members
            .into_iter()
            .zip(results)
            .map(|(m, r)| (m.index, r, m.split))
            .collect())
    }
}

impl Drop for StreamedGroup<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.abandon();
        }
    }
}

/// The bitmap words, tail indices and tail scalars of split `split` (L, A, B) of a member, from
/// its staging when it has one.
fn query_parts(m: &Member, split: usize) -> (&[u64], &[u32], &[blst::blst_scalar]) {
    if let Some(staged) = m.prep.as_ref().and_then(|p| p.downcast_ref::<Staged>()) {
        return staged.query(split);
    }
    let q = [&m.split.l, &m.split.a, &m.split.b][split];
    (&q.ones.words[..], &q.tail_points[..], &q.tail_scalars[..])
}

/// The event recorded after the last upload of `a`, `b` or `c` in `ops`.
fn last_abc_upload(ops: &[Op]) -> Option<EventId> {
    let last = ops.iter().rposition(|op| {
        matches!(
            op,
            Op::Upload {
                src: HostSrc::Abc { .. },
                ..
            }
        )
    })?;
    ops[last..].iter().find_map(|op| match *op {
        Op::Record {
            stream: StreamId::Copy,
            event,
        } => Some(event),
        _ => None,
    })
}

fn bytes_of<T>(v: &[T]) -> &[u8] {
    // SAFETY: plain-data values viewed as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), size_of_val(v)) }
}

/// Device addresses of one group's memory.
struct Context {
    arena: *mut c_void,
    arena_bytes: usize,
    /// Resident queries by [`Query::ALL`] order (null when streamed).
    resident: [*const c_void; 5],
    results: *mut c_void,
    results_bytes: usize,
    g2_results_at: usize,
    plan: StreamPlan,
}

impl Context {
    fn ptr(&self, mem: Mem) -> *mut c_void {
        match mem.space {
            Space::Arena => {
                assert!(
                    mem.offset + mem.bytes <= self.arena_bytes,
                    "{mem:?} past the arena"
                );
                // SAFETY: inside the arena (checked above).
                unsafe { self.arena.cast::<u8>().add(mem.offset).cast() }
            }
            Space::Resident(q) => {
                let base = self.resident[q.index()];
                assert!(!base.is_null(), "{q:?} is not resident");
                // SAFETY: the op's range lies inside the resident query.
                unsafe { base.cast::<u8>().add(mem.offset).cast_mut().cast() }
            }
        }
    }

    fn view(&self, mem: Mem) -> DeviceView {
        // SAFETY: the range lies inside a live allocation of the group.
        unsafe { DeviceView::new(self.ptr(mem), mem.bytes) }
    }

    fn result(&self, slot: crate::backend::streaming::Slot) -> *mut c_void {
        let (at, bytes) = match slot.curve {
            Curve::G1 => (slot.index * size_of::<G1Xyzz>(), size_of::<G1Xyzz>()),
            Curve::G2 => (
                self.g2_results_at + slot.index * size_of::<G2Xyzz>(),
                size_of::<G2Xyzz>(),
            ),
        };
        let end = if slot.curve == Curve::G1 {
            self.g2_results_at
        } else {
            self.results_bytes
        };
        assert!(at + bytes <= end, "result slot {slot:?} past the results");
        // SAFETY: inside the results buffer (checked above).
        unsafe { self.results.cast::<u8>().add(at).cast() }
    }

    /// The accumulated H MSM's buckets, and the shared workspace as its scratch.
    fn accumulation(&self, buckets: Mem) -> kernels::AccumulationMemory {
        let (workspace, workspace_bytes) = self.workspace();
        kernels::AccumulationMemory {
            buckets: self.ptr(buckets),
            buckets_bytes: buckets.bytes,
            workspace,
            workspace_bytes,
        }
    }

    fn workspace(&self) -> (*mut c_void, usize) {
        let ws = &self.plan.layout.workspace;
        (
            self.ptr(Mem {
                space: Space::Arena,
                offset: ws.start,
                bytes: ws.len(),
            }),
            ws.len(),
        )
    }
}

/// What an op's pair of timing events measured.
#[derive(Clone, Copy)]
enum Timed {
    Upload,
    Kernel(Stage),
}

/// Runs ops on the device's streams: the events by number, and timing pairs around uploads and
/// kernels.
#[derive(Default)]
struct Executor {
    events: Vec<Option<Event>>,
    timed: Vec<(Timed, Event, Event)>,
    /// The op each entry of `timed` ran, kept only for the trace (`GROTH16_C2_LOG_TIMINGS=3`).
    timed_ops: Vec<Op>,
    /// The op being queued.
    current: Option<Op>,
}

impl Executor {
    fn event(&mut self, id: EventId) -> Result<&Event> {
        if self.events.len() <= id {
            self.events.resize_with(id + 1, || None);
        }
        if self.events[id].is_none() {
            self.events[id] = Some(Event::new()?);
        }
        Ok(self.events[id].as_ref().expect("made above"))
    }

    /// Runs `f` between two timing events on `stream`.
    fn timed(
        &mut self,
        what: Timed,
        stream: &Stream,
        f: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let (start, end) = (Event::timing()?, Event::timing()?);
        start.record(stream)?;
        f()?;
        end.record(stream)?;
        self.timed.push((what, start, end));
        if crate::telemetry::log_stream_trace() {
            self.timed_ops.push(self.current.expect("set by run"));
        }
        Ok(())
    }

    /// One line on where the device's time went (`GROTH16_C2_LOG_TIMINGS=2`): per kind of op,
    /// how many ran and their milliseconds (total and longest); the compute stream's span from
    /// its first timed kernel to its last and the part of it no kernel ran (waiting for
    /// uploads); and the H steps queued before the query pass. The streams must have run them.
    fn breakdown(&self, h_marks: &[(Event, Event)]) -> Result<String> {
        let names = ["upload", "h_msm", "batch_add", "tail_msm", "g2"];
        let mut kinds = [(0usize, 0.0f64, 0.0f64); 5];
        let mut span: Option<(f64, f64)> = None;
        let mut kernel_ms = 0.0;
        let origin = self.timed.first().map(|(_, start, _)| start);
        for (what, start, end) in &self.timed {
            let ms = end.elapsed_ms(start)?;
            let k = match what {
                Timed::Upload => 0,
                Timed::Kernel(Stage::H) => 1,
                Timed::Kernel(Stage::BatchAdd) => 2,
                Timed::Kernel(Stage::TailMsm) => 3,
                Timed::Kernel(Stage::G2Tail) => 4,
            };
            kinds[k] = (kinds[k].0 + 1, kinds[k].1 + ms, kinds[k].2.max(ms));
            if k != 0 {
                let origin = origin.expect("a timed op");
                let (from, to) = (start.elapsed_ms(origin)?, end.elapsed_ms(origin)?);
                span = Some(span.map_or((from, to), |(a, b)| (a.min(from), b.max(to))));
                kernel_ms += ms;
            }
        }
        let mut line = String::new();
        for (name, (n, ms, max)) in names.iter().zip(kinds) {
            line += &format!("{name} n={n} ms={ms:.1} max={max:.2} ");
        }
        let (from, to) = span.unwrap_or((0.0, 0.0));
        line += &format!(
            "compute_span_ms={:.1} compute_idle_ms={:.1}",
            to - from,
            (to - from - kernel_ms).max(0.0)
        );
        let mut h_steps = 0.0;
        for (start, end) in h_marks {
            h_steps += end.elapsed_ms(start)?;
        }
        line += &format!(" h_steps={} h_steps_ms={h_steps:.1}", h_marks.len());
        Ok(line)
    }

    /// Every timed op as `trace STREAM START_MS END_MS OP` lines from the section's first timed
    /// op (`GROTH16_C2_LOG_TIMINGS=3`), the H steps as `trace compute ... h_step`: where the
    /// compute stream waits, and for which upload. The streams must have run them.
    fn trace(&self, h_marks: &[(Event, Event)]) -> Result<String> {
        let Some((_, origin, _)) = self.timed.first() else {
            return Ok(String::new());
        };
        let mut rows: Vec<(f64, String)> = Vec::with_capacity(self.timed.len() + h_marks.len());
        for ((what, start, end), op) in self.timed.iter().zip(&self.timed_ops) {
            let (from, to) = (start.elapsed_ms(origin)?, end.elapsed_ms(origin)?);
            let (stream, name) = match (what, op) {
                (Timed::Upload, Op::Upload { stream, src, .. }) => {
                    (format!("{stream:?}").to_lowercase(), format!("{src:?}"))
                }
                (_, op) => ("compute".to_string(), op_name(op)),
            };
            rows.push((from, format!("trace {stream} {from:.3} {to:.3} {name}")));
        }
        for (start, end) in h_marks {
            let (from, to) = (start.elapsed_ms(origin)?, end.elapsed_ms(origin)?);
            rows.push((from, format!("trace compute {from:.3} {to:.3} h_step")));
        }
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(rows.into_iter().map(|(_, r)| r + "\n").collect())
    }

    /// Adds the measured times to `timings` (the streams must have run them).
    fn add_times(&self, timings: &mut ProofTimings) -> Result<()> {
        for (what, start, end) in &self.timed {
            let ms = end.elapsed_ms(start)?;
            match what {
                Timed::Upload => timings.h2d_busy_ms += ms,
                Timed::Kernel(Stage::BatchAdd) => timings.batch_add_ms += ms,
                Timed::Kernel(Stage::TailMsm) => timings.tail_msm_ms += ms,
                Timed::Kernel(Stage::G2Tail) => timings.b_g2_msm_ms += ms,
                Timed::Kernel(Stage::H) => timings.ntt_msm_h_ms += ms,
            }
        }
        Ok(())
    }

    fn run<'h>(
        &mut self,
        ops: &[Op],
        state: &DeviceState,
        ctx: &Context,
        host: &dyn Fn(HostSrc) -> &'h [u8],
        time_h: bool,
    ) -> Result<()> {
        let stream = |s: StreamId| match s {
            StreamId::Copy => &state.copy,
            StreamId::Side => &state.side,
            StreamId::Compute => &state.compute,
        };
        let compute = &state.compute;
        let lg = ctx.plan.shape.lg_n;
        let n = 1usize << lg;
        let table = state.table.as_ref();
        let coset = state.coset.iter().find(|c| c.lg_n == lg);
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        for op in ops {
            self.current = Some(*op);
            match *op {
                Op::Upload {
                    stream: s,
                    dst,
                    src,
                } => {
                    let bytes = host(src);
                    if bytes.len() != dst.bytes {
                        return Err(Error::Panic(format!(
                            "an upload of {} bytes into {} ({src:?})",
                            bytes.len(),
                            dst.bytes
                        )));
                    }
                    let to = ctx.ptr(dst);
                    self.timed(Timed::Upload, stream(s), || {
                        // SAFETY: the destination lies in the group's memory; the source
                        // outlives the copy (the group waits for its streams before its sources
                        // go).
                        unsafe { upload_raw(to, bytes.as_ptr(), bytes.len(), stream(s)) }
                    })?;
                }
                Op::Record { stream: s, event } => self.event(event)?.record(stream(s))?,
                Op::Wait { stream: s, event } => {
                    let e = self.event(event)?;
                    stream(s).wait(e)?;
                }
                Op::ZeroFrom { poly, from } => {
                    let at = poly.offset + from * 32;
                    let tail = Mem {
                        space: poly.space,
                        offset: at,
                        bytes: poly.bytes.saturating_sub(from * 32),
                    };
                    // SAFETY: inside the polynomial's range.
                    unsafe { zero_raw(ctx.ptr(tail), tail.bytes, compute)? };
                }
                Op::Lde { poly } => {
                    let table = table.expect("tables built in open");
                    let mut v = ctx.view(poly);
                    match coset {
                        Some(c) => kernels::ntt_lde(&mut v, table, c, compute)?,
                        None => {
                            let n_inv = Scalar::from(n as u64).invert().unwrap();
                            kernels::ntt(&mut v, lg, true, false, true, table, compute)?;
                            kernels::scale_powers(&mut v, lg, n_inv, g, true, compute)?;
                            kernels::ntt(&mut v, lg, false, true, false, table, compute)?;
                        }
                    }
                }
                Op::Pointwise { a, b, c, last } => {
                    // Folded into the inverse coset transform where the tables fold it.
                    let factor = if last && coset.is_none() {
                        let n_inv = Scalar::from(n as u64).invert().unwrap();
                        let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
                        z_inv * n_inv
                    } else {
                        Scalar::ONE
                    };
                    let (vb, vc) = (b.map(|m| ctx.view(m)), c.map(|m| ctx.view(m)));
                    kernels::h_pointwise(
                        &mut ctx.view(a),
                        vb.as_ref().map(|v| v as &dyn super::runtime::DeviceSpan),
                        vc.as_ref().map(|v| v as &dyn super::runtime::DeviceSpan),
                        n,
                        factor,
                        compute,
                    )?;
                }
                Op::InverseCoset { poly } => {
                    let table = table.expect("tables built in open");
                    let mut v = ctx.view(poly);
                    match coset {
                        Some(c) => kernels::ntt_coset(&mut v, true, table, c, compute)?,
                        None => {
                            kernels::ntt(&mut v, lg, true, false, true, table, compute)?;
                            let g_inv = g.invert().unwrap();
                            kernels::scale_powers(&mut v, lg, Scalar::ONE, g_inv, true, compute)?;
                        }
                    }
                }
                Op::BitReverse { poly } => kernels::bit_reverse(&mut ctx.view(poly), lg, compute)?,
                Op::Rebase { index, n, base } => {
                    let to = ctx.ptr(index);
                    self.timed(Timed::Kernel(Stage::TailMsm), compute, || {
                        // SAFETY: the side buffer holds n indices.
                        unsafe { kernels::index_rebase(to, n, base, compute) }
                    })?;
                }
                Op::Gather {
                    curve,
                    points,
                    n_points,
                    index,
                    base,
                    scalars,
                    n,
                    out_points,
                    out_scalars,
                } => {
                    let (p, i, sc) = (ctx.ptr(points), ctx.ptr(index), ctx.ptr(scalars));
                    let (op, os) = (ctx.ptr(out_points), ctx.ptr(out_scalars));
                    self.timed(Timed::Kernel(tail_stage(curve)), compute, || {
                        // SAFETY: every range lies in the group's memory (checked by ptr), the
                        // outputs in the gather region, apart from the chunk and side buffers.
                        unsafe {
                            kernels::gather_tail(
                                curve,
                                p.cast_const(),
                                n_points,
                                i.cast_const(),
                                base,
                                sc.cast_const(),
                                n,
                                op,
                                os,
                                compute,
                            )
                        }
                    })?;
                }
                Op::BatchAdd {
                    curve,
                    points,
                    n_points,
                    bitmap,
                    result,
                } => {
                    let (ws, ws_len) = ctx.workspace();
                    let (p, b, r) = (ctx.ptr(points), ctx.ptr(bitmap), ctx.result(result));
                    self.timed(Timed::Kernel(Stage::BatchAdd), compute, || {
                        // SAFETY: every range lies in the group's memory, sized by the plan.
                        unsafe {
                            kernels::batch_add(
                                curve,
                                p,
                                n_points,
                                b.cast_const().cast(),
                                ws,
                                ws_len,
                                r,
                                compute,
                            )
                        }
                    })?;
                }
                Op::MsmAccumulate {
                    points,
                    n_points,
                    scalars,
                    n,
                    first,
                    buckets,
                } => {
                    let acc = ctx.plan.layout.h_accumulate.as_ref();
                    let acc = acc.expect("an accumulating plan");
                    let (p, sc) = (ctx.ptr(points), ctx.ptr(scalars));
                    let mem = ctx.accumulation(buckets);
                    let run = || {
                        // SAFETY: the ranges lie in the arena; the buckets are the plan's
                        // accumulation region and the shared workspace its scratch, both sized
                        // for n_cap and code.
                        unsafe {
                            kernels::msm_accumulate(
                                p, n_points, sc, true, n, acc.n_cap, acc.code, mem, first, compute,
                            )
                        }
                    };
                    if time_h {
                        self.timed(Timed::Kernel(Stage::H), compute, run)?;
                    } else {
                        run()?;
                    }
                }
                Op::MsmAccumulated { buckets, result } => {
                    let acc = ctx.plan.layout.h_accumulate.as_ref();
                    let acc = acc.expect("an accumulating plan");
                    let (mem, r) = (ctx.accumulation(buckets), ctx.result(result));
                    let run = || {
                        // SAFETY: as above; the result slot lies in the results buffer.
                        unsafe { kernels::msm_accumulated(acc.n_cap, acc.code, mem, r, compute) }
                    };
                    if time_h {
                        self.timed(Timed::Kernel(Stage::H), compute, run)?;
                    } else {
                        run()?;
                    }
                }
                Op::Msm {
                    curve,
                    points,
                    n_points,
                    index,
                    scalars,
                    montgomery,
                    n,
                    bit_reversed,
                    result,
                    stage,
                } => {
                    let (ws, ws_len) = ctx.workspace();
                    let args = MsmArgs {
                        curve,
                        points: ctx.ptr(points),
                        n_points,
                        index: index.map_or(std::ptr::null(), |m| ctx.ptr(m).cast_const().cast()),
                        scalars: ctx.ptr(scalars),
                        montgomery,
                        n,
                        strategy: MsmStrategy::Auto,
                        window: 0,
                        bit_reversed,
                        copies: 0,
                        workspace: ws,
                        workspace_bytes: ws_len,
                        result: ctx.result(result),
                    };
                    let run = || {
                        // SAFETY: every range lies in the group's memory, sized by the plan.
                        unsafe { kernels::msm(&args, compute) }
                    };
                    // The H step's kernels queued by `add` are timed as a whole there.
                    if stage == Stage::H && !time_h {
                        run()?;
                    } else {
                        self.timed(Timed::Kernel(stage), compute, run)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A kernel op's kind and size, for the trace.
fn op_name(op: &Op) -> String {
    match *op {
        Op::Msm {
            curve, n, stage, ..
        } => format!("msm {curve:?} n={n} {stage:?}"),
        Op::MsmAccumulate { n, .. } => format!("msm_accumulate n={n}"),
        Op::MsmAccumulated { .. } => "msm_accumulated".to_string(),
        Op::BatchAdd {
            curve, n_points, ..
        } => format!("batch_add {curve:?} n={n_points}"),
        Op::Gather { curve, n, .. } => format!("gather {curve:?} n={n}"),
        Op::Rebase { n, .. } => format!("rebase n={n}"),
        other => format!("{other:?}"),
    }
}
