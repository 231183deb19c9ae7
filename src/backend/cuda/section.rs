//! One circuit's whole device section on one GPU: `a, b, c`, the ones bitmaps and the tail
//! scalars go up on the copy stream while the compute stream runs H (NTTs + MSM over the
//! resident `h` query); then the batch additions, the G1 tail MSMs and the G2 tail MSM, all on
//! device data; one small download of the nine result points and one stream synchronisation.

use std::ffi::c_void;
use std::mem::size_of;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use blst::blst_scalar;
use blstrs::{G1Projective, G2Projective, Scalar};

use super::device::{grow, DeviceState, Scratch};
use super::h;
use super::kernels::{self, CosetTable, Curve, MsmArgs, MsmStrategy, NttTable};
use super::points::{scalar_bytes, G1Xyzz, G2Xyzz};
use super::resident::{self, DeviceSrs};
use super::runtime::{DeviceBuffer, Event, Stream};
use super::staging::Staged;
use crate::assignment::Witness;
use crate::backend::DeviceResults;
use crate::error::Result;
use crate::split::{CircuitSplit, QuerySplit};
use crate::srs::Srs;
use crate::telemetry::ProofTimings;

/// Result slots: G1 points first, then G2 (as bytes in one buffer, one download).
const G1_SLOTS: usize = 7; // h, l/a/b ones, l/a/b tails
const G2_SLOTS: usize = 2; // b ones, b tail
const RESULT_BYTES: usize = G1_SLOTS * size_of::<G1Xyzz>() + G2_SLOTS * size_of::<G2Xyzz>();

/// Runs the device section of one circuit on `state`'s device.
pub fn prove_circuit(
    state: &mut DeviceState,
    srs: &Srs,
    w: &Witness,
    split: &CircuitSplit,
    staged: Option<&Staged>,
    timings: &mut ProofTimings,
) -> Result<DeviceResults> {
    let inputs = Inputs::new(w, split, staged);
    let result = catch_unwind(AssertUnwindSafe(|| {
        run(state, srs, split, &inputs, timings)
    }));
    match result {
        Ok(Ok(results)) => {
            super::device::count_circuit(state.index);
            Ok(results)
        }
        Ok(Err(e)) => {
            abandon(state);
            Err(e)
        }
        Err(panic) => {
            abandon(state);
            resume_unwind(panic)
        }
    }
}

/// Cleans up after a section that ended early (an error or a panic). Copies still queued read
/// the staging buffer, which goes back to its pool (and to the next circuit's preparation) as
/// soon as this returns, so both streams are drained first; an allocation failure leaves
/// half-grown buffers, so the next proof starts from freed ones.
fn abandon(state: &mut DeviceState) {
    // Their own errors change nothing: the section's error is what the caller gets.
    let _ = state.copy.synchronize();
    let _ = state.compute.synchronize();
    state.release_buffers();
}

/// Where the uploads read from: the staging buffer, or the host's own memory without one.
struct Inputs<'a> {
    abc: [&'a [Scalar]; 3],
    /// Per query (L, A, B): ones bitmap words, tail indices, canonical tail scalars.
    queries: [(&'a [u64], &'a [u32], &'a [blst_scalar]); 3],
}

impl<'a> Inputs<'a> {
    fn new(w: &'a Witness, split: &'a CircuitSplit, staged: Option<&'a Staged>) -> Inputs<'a> {
        match staged {
            Some(s) => {
                // A vector the host keeps page-locked uploads from its own memory.
                let (staged, own) = (s.abc(), [w.a, w.b, w.c]);
                Inputs {
                    abc: [0, 1, 2].map(|i| staged[i].unwrap_or(own[i])),
                    queries: [0, 1, 2].map(|i| s.query(i)),
                }
            }
            None => Inputs {
                abc: [w.a, w.b, w.c],
                queries: [&split.l, &split.a, &split.b]
                    .map(|q| (&q.ones.words[..], &q.tail_points[..], &q.tail_scalars[..])),
            },
        }
    }
}

/// The section's stages, in order: place the SRS on the device, prepare H, upload the
/// circuit's inputs (copy stream); then on the compute stream, with a timing mark after each:
/// the batch additions, H, the G1 tail MSMs, the G2 tail MSM; last, download and assemble the
/// results.
fn run(
    state: &mut DeviceState,
    srs: &Srs,
    split: &CircuitSplit,
    inputs: &Inputs,
    timings: &mut ProofTimings,
) -> Result<DeviceResults> {
    let n = srs.h.len() + 1;
    // The G2 tail MSM runs here unless the host moved it to the CPU (after the lock) and the
    // tail is small.
    let g2_tail_here =
        crate::settings::g2_tail_on_gpu_for(split.b.tail_points.len(), split.b.len());
    let ws_bytes = workspace_bytes(n, split, srs, g2_tail_here);
    let working = 3 * n * 32 + ws_bytes + staging_bytes(split) + RESULT_BYTES;

    let Placed {
        this_proof_only,
        ready: srs_ready,
        uploads,
        h2d_bytes: srs_h2d_bytes,
    } = place_srs(state, srs, working)?;
    let ws_bytes = if n > 1 {
        prepare_h(state, srs, n, ws_bytes, working)?
    } else {
        ws_bytes
    };
    let DeviceState {
        compute,
        copy,
        table,
        coset,
        abc,
        scratch,
        srs: resident_srs,
        ..
    } = state;
    let dsrs: &DeviceSrs = match &this_proof_only {
        Some(d) => d,
        None => resident_srs.as_ref().expect("made resident above"),
    };
    let arrived = upload_inputs(copy, abc, scratch, inputs, n, &uploads.1)?;
    let out = Outputs::new(scratch, ws_bytes)?;

    let marks = [
        Event::timing()?,
        Event::timing()?,
        Event::timing()?,
        Event::timing()?,
        Event::timing()?,
    ];
    compute.wait(&srs_ready)?;
    marks[0].record(compute)?;
    batch_additions(compute, scratch, dsrs, split, out, &arrived.bitmaps)?;
    marks[1].record(compute)?;
    let h_args = h_msm(
        compute,
        table,
        coset,
        abc,
        inputs,
        n,
        &arrived.abc,
        dsrs,
        out,
    )?;
    marks[2].record(compute)?;
    // Tests only: a panic with the uploads and the H stage in flight.
    crate::fault::panic_point();
    let last_args = g1_tail_msms(compute, scratch, dsrs, split, h_args, out, &arrived.all)?;
    marks[3].record(compute)?;
    if g2_tail_here {
        g2_tail_msm(compute, scratch, dsrs, split, &last_args, out)?;
    }
    marks[4].record(compute)?;

    let host = download_results(compute, scratch)?;
    drop(this_proof_only);

    timings.h2d_busy_ms += uploads.1.elapsed_ms(&uploads.0)?;
    timings.h2d_bytes += (srs_h2d_bytes + arrived.h2d_bytes) as u64;
    timings.batch_add_ms += marks[1].elapsed_ms(&marks[0])?;
    timings.ntt_msm_h_ms += marks[2].elapsed_ms(&marks[1])?;
    timings.tail_msm_ms += marks[3].elapsed_ms(&marks[2])?;
    if g2_tail_here {
        timings.b_g2_msm_ms += marks[4].elapsed_ms(&marks[3])?;
    }
    Ok(assemble(&host, g2_tail_here))
}

/// The SRS on the device for one proof (see [`place_srs`]).
struct Placed {
    /// A copy for this proof only, when the SRS does not stay resident.
    this_proof_only: Option<DeviceSrs>,
    /// Recorded on the copy stream once the SRS is on the device.
    ready: Event,
    /// Every upload of the section runs back to back on the copy stream, between these two
    /// (the second is recorded by [`upload_inputs`]).
    uploads: (Event, Event),
    /// Bytes of the SRS uploaded.
    h2d_bytes: usize,
}

/// The SRS on the device: the resident copy, a new resident copy, or one for this proof only,
/// once the device can take what this proof adds to what it holds.
fn place_srs(state: &mut DeviceState, srs: &Srs, working: usize) -> Result<Placed> {
    if state.srs.as_ref().is_some_and(|d| d.is_orphaned()) {
        state.srs = None;
    }
    let srs_ready = Event::new()?;
    let mut this_proof_only = None;
    let srs_here = state.srs.as_ref().is_some_and(|d| d.is_for(srs));
    if !srs_here {
        // Another SRS's resident copy goes first: two would rarely fit side by side. So does
        // the NTT's top table, an optimisation rebuilt below if it still fits.
        state.srs = None;
        if let Some(table) = &mut state.table {
            table.drop_top();
        }
    }
    // The VRAM budget: wait until the device can take what this proof adds to what it holds.
    let adds = if srs_here {
        0
    } else {
        resident::srs_bytes(srs)
    } + working;
    super::device::wait_for_memory(adds.saturating_sub(state.buffer_bytes()))?;
    // Every upload of the section runs back to back on the copy stream, between these two.
    let uploads = (Event::timing()?, Event::timing()?);
    uploads.0.record(&state.copy)?;
    let mut h2d_bytes = 0usize;
    if !srs_here {
        h2d_bytes += resident::srs_bytes(srs);
        // Out of page-locked memory, the upload reads the pageable points (the same proof).
        let _ = resident::pin_host(srs);
        if resident::should_keep(srs, working)? {
            state.srs = Some(DeviceSrs::upload(srs, &state.copy, &srs_ready)?);
        } else {
            this_proof_only = Some(DeviceSrs::upload(srs, &state.copy, &srs_ready)?);
        }
    } else {
        srs_ready.record(&state.copy)?;
    }
    Ok(Placed {
        this_proof_only,
        ready: srs_ready,
        uploads,
        h2d_bytes,
    })
}

/// Prepares H over a domain of `n > 1`: the H query's copies where they fit (widening the
/// workspace for their MSM), then the NTT tables. Returns the workspace bytes.
fn prepare_h(
    state: &mut DeviceState,
    srs: &Srs,
    n: usize,
    mut ws_bytes: usize,
    working: usize,
) -> Result<usize> {
    make_h_copies(state, srs, n, ws_bytes, working)?;
    if let Some(d) = state
        .srs
        .as_ref()
        .filter(|d| d.is_for(srs) && d.h_copies > 1)
    {
        ws_bytes = ws_bytes.max(kernels::msm_workspace_size(
            Curve::G1,
            n - 1,
            MsmStrategy::Slices,
            d.h_window,
            d.h_copies,
        ));
    }
    h::prepare(state, n, working)?;
    Ok(ws_bytes)
}

/// The copy-stream events the compute stream waits on (see [`upload_inputs`]).
struct Arrived {
    /// The ones bitmaps.
    bitmaps: Event,
    /// `a`, `b`, `c`, one each.
    abc: [Event; 3],
    /// Every input, the tails last.
    all: Event,
    /// Bytes of the inputs uploaded.
    h2d_bytes: usize,
}

/// Uploads, in the order the compute stream needs them: the bitmaps (a few MB) first, so the
/// batch additions run while a, b, c arrive (at 2^27 a alone takes ~80 ms at PCIe speed, which
/// the H step used to wait for with the SMs idle), then a, b, c, then the tails' indices and
/// scalars. Records `uploads_done` after the last.
fn upload_inputs(
    copy: &Stream,
    abc: &mut [DeviceBuffer<Scalar>],
    scratch: &mut Scratch,
    inputs: &Inputs,
    n: usize,
    uploads_done: &Event,
) -> Result<Arrived> {
    for (i, &(words, _, _)) in inputs.queries.iter().enumerate() {
        grow(&mut scratch.bitmaps[i], words.len())?.upload_async(words, copy)?;
    }
    let bits_ready = Event::new()?;
    bits_ready.record(copy)?;
    let arrived = [Event::new()?, Event::new()?, Event::new()?];
    if n > 1 {
        for ((buf, src), ev) in abc.iter_mut().zip(inputs.abc).zip(&arrived) {
            buf.upload_async(src, copy)?;
            ev.record(copy)?;
        }
    }
    for (i, &(_, tail_points, tail_scalars)) in inputs.queries.iter().enumerate() {
        grow(&mut scratch.tail_index[i], tail_points.len())?.upload_async(tail_points, copy)?;
        grow(&mut scratch.tail_scalars[i], tail_scalars.len())?
            .upload_async(scalar_bytes(tail_scalars), copy)?;
    }
    uploads_done.record(copy)?;
    let staged = Event::new()?;
    staged.record(copy)?;
    let mut h2d_bytes = inputs
        .queries
        .iter()
        .map(|(w, i, s)| size_of_val(*w) + size_of_val(*i) + size_of_val(*s))
        .sum::<usize>();
    if n > 1 {
        h2d_bytes += inputs.abc.iter().map(|v| size_of_val(*v)).sum::<usize>();
    }
    Ok(Arrived {
        bitmaps: bits_ready,
        abc: arrived,
        all: staged,
        h2d_bytes,
    })
}

/// Where the section's kernels write: one workspace for every MSM and batch addition (they
/// run one after another) and the result slots.
#[derive(Clone, Copy)]
struct Outputs {
    ws_ptr: *mut c_void,
    ws_len: usize,
    results_ptr: *mut c_void,
}

impl Outputs {
    fn new(scratch: &mut Scratch, ws_bytes: usize) -> Result<Outputs> {
        let ws = grow(&mut scratch.workspace, ws_bytes)?;
        let (ws_ptr, ws_len) = (ws.as_mut_ptr(), ws.len());
        let results_ptr = grow(&mut scratch.results, RESULT_BYTES)?.as_mut_ptr();
        Ok(Outputs {
            ws_ptr,
            ws_len,
            results_ptr,
        })
    }

    /// Result slot `i`: G1 points first, then G2.
    fn slot(&self, i: usize) -> *mut c_void {
        let offset = if i < G1_SLOTS {
            i * size_of::<G1Xyzz>()
        } else {
            G1_SLOTS * size_of::<G1Xyzz>() + (i - G1_SLOTS) * size_of::<G2Xyzz>()
        };
        // SAFETY: every slot lies inside the RESULT_BYTES buffer.
        unsafe { self.results_ptr.cast::<u8>().add(offset).cast() }
    }
}

/// Batch additions of the ones (L, A, B over G1, B over G2), while a, b, c upload.
fn batch_additions(
    compute: &Stream,
    scratch: &Scratch,
    dsrs: &DeviceSrs,
    split: &CircuitSplit,
    out: Outputs,
    bitmaps_arrived: &Event,
) -> Result<()> {
    let queries: [&QuerySplit; 3] = [&split.l, &split.a, &split.b];
    let g1_points = [&dsrs.l, &dsrs.a, &dsrs.b_g1];
    compute.wait(bitmaps_arrived)?;
    for (i, q) in queries.iter().enumerate() {
        let bits = scratch.bitmaps[i].as_ref().expect("grown above");
        // SAFETY: device buffers sized as the launchers require (the workspace for the largest
        // MSM or batch addition); the bitmap holds ceil(len / 64) words.
        unsafe {
            kernels::batch_add(
                Curve::G1,
                g1_points[i].as_ptr(),
                q.ones.len.min(g1_points[i].len()),
                bits.as_ptr().cast(),
                out.ws_ptr,
                out.ws_len,
                out.slot(1 + i),
                compute,
            )?
        };
    }
    let b_bits = scratch.bitmaps[2].as_ref().expect("grown above");
    // SAFETY: as above.
    unsafe {
        kernels::batch_add(
            Curve::G2,
            dsrs.b_g2.as_ptr(),
            split.b.ones.len.min(dsrs.b_g2.len()),
            b_bits.as_ptr().cast(),
            out.ws_ptr,
            out.ws_len,
            out.slot(G1_SLOTS),
            compute,
        )?
    };
    Ok(())
}

/// H: the transform leaves h (Montgomery form, bit-reversed order) in abc[0] as a, b, c
/// arrive; its MSM reads it in place. Returns the MSM's arguments (the tails' base).
#[allow(clippy::too_many_arguments)]
fn h_msm(
    compute: &Stream,
    table: &Option<NttTable>,
    coset: &[CosetTable],
    abc: &mut [DeviceBuffer<Scalar>],
    inputs: &Inputs,
    n: usize,
    abc_arrived: &[Event; 3],
    dsrs: &DeviceSrs,
    out: Outputs,
) -> Result<MsmArgs> {
    let h_scalars = if n > 1 {
        h::transform_on(
            compute,
            table.as_ref().expect("prepare builds it"),
            coset.iter().find(|c| c.lg_n == n.trailing_zeros()),
            abc,
            inputs.abc.map(<[Scalar]>::len),
            n,
            Some(abc_arrived),
            h::Order::BitReversed,
        )?;
        abc[0].as_ptr()
    } else {
        std::ptr::null()
    };
    // Over the H query's precomputed copies where the resident SRS has them (the slices).
    let with_copies = dsrs.h_copies > 1;
    let args = MsmArgs {
        curve: Curve::G1,
        points: dsrs.h.as_ptr(),
        n_points: dsrs.h_len,
        index: std::ptr::null(),
        scalars: h_scalars,
        montgomery: true,
        n: n - 1,
        strategy: MsmStrategy::Slices,
        window: if with_copies { dsrs.h_window } else { 0 },
        // h as the transform leaves it: position k holds coefficient bitrev(k), and position
        // n - 1 (coefficient n - 1, outside the query) is the one the n - 1 scalars leave out.
        bit_reversed: n.trailing_zeros(),
        copies: dsrs.h_copies,
        workspace: out.ws_ptr,
        workspace_bytes: out.ws_len,
        result: out.slot(0),
    };
    // SAFETY: as in `batch_additions`.
    unsafe { kernels::msm(&args, compute)? };
    Ok(args)
}

/// The G1 tail MSMs of L, A, B, once their indices and scalars are on the device. Returns the
/// last one's arguments (the G2 tail's base).
fn g1_tail_msms(
    compute: &Stream,
    scratch: &Scratch,
    dsrs: &DeviceSrs,
    split: &CircuitSplit,
    h_args: MsmArgs,
    out: Outputs,
    staged: &Event,
) -> Result<MsmArgs> {
    let queries: [&QuerySplit; 3] = [&split.l, &split.a, &split.b];
    let g1_points = [&dsrs.l, &dsrs.a, &dsrs.b_g1];
    compute.wait(staged)?;
    let mut args = h_args;
    for (i, q) in queries.iter().enumerate() {
        args = tail_args(
            Curve::G1,
            g1_points[i].as_ptr(),
            g1_points[i].len(),
            scratch,
            i,
            q,
            &args,
            out.slot(4 + i),
        );
        // SAFETY: as in `batch_additions`.
        unsafe { kernels::msm(&args, compute)? };
    }
    Ok(args)
}

/// The G2 tail MSM of B.
fn g2_tail_msm(
    compute: &Stream,
    scratch: &Scratch,
    dsrs: &DeviceSrs,
    split: &CircuitSplit,
    base: &MsmArgs,
    out: Outputs,
) -> Result<()> {
    let args = tail_args(
        Curve::G2,
        dsrs.b_g2.as_ptr(),
        dsrs.b_g2.len(),
        scratch,
        2,
        &split.b,
        base,
        out.slot(G1_SLOTS + 1),
    );
    // SAFETY: as in `batch_additions`.
    unsafe { kernels::msm(&args, compute)? };
    Ok(())
}

/// Downloads the result slots and waits for the section to end.
fn download_results(compute: &Stream, scratch: &Scratch) -> Result<Vec<u8>> {
    let mut host = vec![0u8; RESULT_BYTES];
    scratch
        .results
        .as_ref()
        .expect("grown above")
        .download_async(&mut host[..], compute)?;
    compute.synchronize()?;
    Ok(host)
}

/// The section's results from the downloaded slots: each query's ones plus its tail.
fn assemble(host: &[u8], g2_tail_here: bool) -> DeviceResults {
    let g1 = |i: usize| -> G1Projective {
        // SAFETY: the buffer holds RESULT_BYTES written by the kernels; read unaligned.
        let p: G1Xyzz = unsafe { std::ptr::read_unaligned(host.as_ptr().cast::<G1Xyzz>().add(i)) };
        p.to_projective()
    };
    let g2 = |i: usize| -> G2Projective {
        let at = G1_SLOTS * size_of::<G1Xyzz>() + i * size_of::<G2Xyzz>();
        // SAFETY: as above.
        let p: G2Xyzz = unsafe { std::ptr::read_unaligned(host.as_ptr().add(at).cast::<G2Xyzz>()) };
        p.to_projective()
    };
    DeviceResults {
        h: g1(0),
        l: g1(1) + g1(4),
        a: g1(2) + g1(5),
        b_g1: g1(3) + g1(6),
        b_g2: if g2_tail_here { g2(0) + g2(1) } else { g2(0) },
        b_g2_tail_done: g2_tail_here,
    }
}

/// The MSM arguments of query `i`'s tail, reusing `base`'s workspace.
#[allow(clippy::too_many_arguments)]
fn tail_args(
    curve: Curve,
    points: *const c_void,
    n_points: usize,
    scratch: &Scratch,
    i: usize,
    q: &QuerySplit,
    base: &MsmArgs,
    result: *mut c_void,
) -> MsmArgs {
    MsmArgs {
        curve,
        points,
        n_points,
        index: scratch.tail_index[i]
            .as_ref()
            .expect("grown")
            .as_ptr()
            .cast(),
        scalars: scratch.tail_scalars[i].as_ref().expect("grown").as_ptr(),
        montgomery: false,
        n: q.tail_points.len(),
        strategy: base.strategy,
        window: 0,
        bit_reversed: 0,
        copies: 0,
        workspace: base.workspace,
        workspace_bytes: base.workspace_bytes,
        result,
    }
}

/// Precomputed copies of the resident H query for its MSM (`resident::copies_policy`), made
/// once per resident SRS, by the first proof whose device section finds room for them: the
/// copies themselves and their MSM's larger workspace, beside what this proof still needs, 2
/// GiB and, under the auto policy, another process's SRS and working set where they would fit. An
/// optimisation only: the proof is the same without them, so an allocation failure here
/// leaves the plain query in place.
fn make_h_copies(
    state: &mut DeviceState,
    srs: &Srs,
    n: usize,
    ws_bytes: usize,
    working: usize,
) -> Result<()> {
    let policy = resident::copies_policy();
    let held = state.buffer_bytes();
    let DeviceState {
        srs: resident_srs,
        copy,
        ..
    } = state;
    let Some(d) = resident_srs
        .as_mut()
        .filter(|d| d.is_for(srs) && d.h_copies == 1)
    else {
        return Ok(());
    };
    let Some((window, most)) = resident::h_copies_shape(d.h_len, policy) else {
        return Ok(());
    };
    let free = super::device::available_bytes(state.index)?;
    let still_needed = working.saturating_sub(held) + COPIES_MARGIN_BYTES;
    // Workers of this process share this device state (one device section at a time), but
    // another prover process on this GPU needs its own SRS and working set: under the auto
    // policy the copies leave that room whenever it is there now, so they never take the
    // place of a second process that would have fit.
    let other_process = resident::srs_bytes(srs) + working;
    let reserve = still_needed
        + match policy {
            resident::CopiesPolicy::Auto if free >= still_needed + other_process => other_process,
            _ => 0,
        };
    let h_bytes = d.h_len * size_of::<blstrs::G1Affine>();
    let fits = |m: u32| {
        let ws = kernels::msm_workspace_size(Curve::G1, n - 1, MsmStrategy::Slices, window, m);
        // While they are made, the old query and all copies are held.
        ws > 0 && m as usize * h_bytes + ws.saturating_sub(ws_bytes) + reserve <= free
    };
    let Some(m) = (2..=most).rev().find(|&m| fits(m)) else {
        return Ok(());
    };
    let started = std::time::Instant::now();
    match d.make_h_copies(window, m, copy) {
        Err(crate::error::Error::Cuda { code, .. })
            if code == super::ffi::ERROR_MEMORY_ALLOCATION =>
        {
            Ok(())
        }
        Ok(()) => {
            // Once per resident SRS: seconds inside one proof's device section, so say so.
            if !crate::telemetry::quiet() {
                eprintln!(
                    "groth16-c2: made {m} copies of the H query ({:.1} GB of VRAM) for its MSM's \
                     {window}-bit windows in {:.1} s (GROTH16_C2_MSM_COPIES=0 turns them off)",
                    (m as usize * h_bytes) as f64 / 1e9,
                    started.elapsed().as_secs_f64()
                );
            }
            Ok(())
        }
        other => other,
    }
}

/// Free VRAM the H query's copies leave beside the rest.
const COPIES_MARGIN_BYTES: usize = 2 << 30;

/// One workspace serves every MSM and batch addition of the proof (they run one after another).
fn workspace_bytes(n: usize, split: &CircuitSplit, srs: &Srs, g2_tail: bool) -> usize {
    let strategy = MsmStrategy::Auto;
    let mut bytes = kernels::msm_workspace_size(Curve::G1, n - 1, strategy, 0, 0);
    for q in [&split.l, &split.a, &split.b] {
        bytes = bytes
            .max(kernels::msm_workspace_size(
                Curve::G1,
                q.tail_points.len(),
                strategy,
                0,
                0,
            ))
            .max(kernels::batch_add_workspace_size(Curve::G1, q.ones.len));
    }
    bytes
        .max(if g2_tail {
            kernels::msm_workspace_size(Curve::G2, split.b.tail_points.len(), strategy, 0, 0)
        } else {
            0
        })
        .max(kernels::batch_add_workspace_size(
            Curve::G2,
            split.b.ones.len.min(srs.b_g2.len()),
        ))
        .max(1)
}

fn staging_bytes(split: &CircuitSplit) -> usize {
    [&split.l, &split.a, &split.b]
        .iter()
        .map(|q| q.ones.words.len() * 8 + q.tail_points.len() * 36)
        .sum()
}
