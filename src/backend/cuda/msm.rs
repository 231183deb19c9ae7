//! Single curve operations on the GPU over host data: an MSM, a bitmap batch addition, the curve
//! formula tests. Each call uploads its inputs to temporary device buffers, so these serve tests,
//! benchmarks and one-off use; a proof runs its stages on resident data instead (`section`).

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;

use super::device::lock_device;
use super::kernels::{self, MsmArgs, MsmStrategy};
use super::points::{scalar_bytes, GpuCurve, G1, G2};
use super::runtime::{fill_raw, DeviceBuffer, Event, Stream};
use crate::error::{Error, Result};
use crate::split::OnesBitmap;

/// `sum(scalars[k] * points[indices[k]])` (or `points[k]` without indices), canonical scalars.
pub fn msm_g1(
    device: usize,
    points: &[G1Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
) -> Result<G1Projective> {
    msm_g1_with(device, points, indices, scalars, MsmStrategy::Auto)
}

/// As [`msm_g1`], summing the buckets as `strategy` says.
pub fn msm_g1_with(
    device: usize,
    points: &[G1Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
    strategy: MsmStrategy,
) -> Result<G1Projective> {
    msm::<G1, _>(device, points, indices, scalars, false, strategy, 0, 0, 0)
}

/// As [`msm_g1_with`], with `window`-bit windows (4..=24; 0: chosen from the size).
pub fn msm_g1_window(
    device: usize,
    points: &[G1Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
    strategy: MsmStrategy,
    window: u32,
) -> Result<G1Projective> {
    msm::<G1, _>(
        device, points, indices, scalars, false, strategy, window, 0, 0,
    )
}

/// As [`msm_g1`], over G2.
pub fn msm_g2(
    device: usize,
    points: &[G2Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
) -> Result<G2Projective> {
    msm_g2_with(device, points, indices, scalars, MsmStrategy::Auto)
}

/// As [`msm_g2`], with `strategy`.
pub fn msm_g2_with(
    device: usize,
    points: &[G2Affine],
    indices: Option<&[u32]>,
    scalars: &[blst_scalar],
    strategy: MsmStrategy,
) -> Result<G2Projective> {
    msm::<G2, _>(device, points, indices, scalars, false, strategy, 0, 0, 0)
}

/// `sum(scalars[k] * points[k])` with the scalars in Montgomery form, as the H stage reads them.
pub fn msm_g1_montgomery(
    device: usize,
    points: &[G1Affine],
    scalars: &[Scalar],
    strategy: MsmStrategy,
) -> Result<G1Projective> {
    msm::<G1, _>(device, points, None, scalars, true, strategy, 0, 0, 0)
}

/// `sum(scalars[k] * points[bitrev(k)])` over `bits`-bit reversal (`scalars.len() <= 2^bits`),
/// Montgomery-form scalars: the H MSM's view of `h` as its transform leaves it. Positions whose
/// reversed index is beyond `points` count as the identity.
pub fn msm_g1_bit_reversed(
    device: usize,
    points: &[G1Affine],
    scalars: &[Scalar],
    bits: u32,
    strategy: MsmStrategy,
) -> Result<G1Projective> {
    if bits == 0 || bits > 31 || scalars.len() > 1usize << bits {
        return Err(Error::invalid(format!(
            "{} scalars in bit-reversed order over {bits} bits",
            scalars.len()
        )));
    }
    msm::<G1, _>(device, points, None, scalars, true, strategy, 0, bits, 0)
}

/// An MSM over `copies` precomputed multiples of the points for `window`-bit windows (see
/// [`kernels::MsmArgs`]'s `copies`): the points are uploaded once, their copies made on the
/// device, then the MSM runs with the slices. Scalars as in [`msm_g1`] (canonical) or, with
/// `montgomery`, in Montgomery form; `bit_reversed` as in [`msm_g1_bit_reversed`] (0: natural
/// order).
#[allow(clippy::too_many_arguments)]
pub fn msm_g1_precomputed<S>(
    device: usize,
    points: &[G1Affine],
    indices: Option<&[u32]>,
    scalars: &[S],
    montgomery: bool,
    bit_reversed: u32,
    window: u32,
    copies: u32,
) -> Result<G1Projective> {
    msm_g1_precomputed_with(
        device,
        points,
        indices,
        scalars,
        montgomery,
        bit_reversed,
        window,
        copies,
        MsmStrategy::Slices,
    )
}

/// As [`msm_g1_precomputed`], with `strategy` (the slices or, for tests, `SlicesTestBinned`).
#[allow(clippy::too_many_arguments)]
pub fn msm_g1_precomputed_with<S>(
    device: usize,
    points: &[G1Affine],
    indices: Option<&[u32]>,
    scalars: &[S],
    montgomery: bool,
    bit_reversed: u32,
    window: u32,
    copies: u32,
    strategy: MsmStrategy,
) -> Result<G1Projective> {
    msm::<G1, S>(
        device,
        points,
        indices,
        scalars,
        montgomery,
        strategy,
        window,
        bit_reversed,
        copies,
    )
}

/// `sum(scalars[k] * points[k])` with Montgomery-form scalars, as a streamed H MSM runs it:
/// accumulated over chunks of `chunk` points (the last one shorter) with `window`-bit windows
/// (0: the width the streamed H MSM takes, that of one chunk), then reduced once. The scratch
/// workspace is overwritten with junk between the calls, as the streamed proof's other kernels
/// do. Errs where the kernels cannot accumulate that shape.
pub fn msm_g1_accumulated(
    device: usize,
    points: &[G1Affine],
    scalars: &[Scalar],
    chunk: usize,
    window: u32,
) -> Result<G1Projective> {
    accumulated(device, points, scalars, chunk, window, 1, true).map(|(_, sum)| sum)
}

/// [`msm_g1_accumulated`] run `runs` times with the data on the device (the scratch left as
/// the kernels leave it): the milliseconds of each run (every chunk's accumulation and the one
/// reduction, between CUDA events) and the sum.
pub fn time_msm_g1_accumulated(
    device: usize,
    points: &[G1Affine],
    scalars: &[Scalar],
    chunk: usize,
    window: u32,
    runs: usize,
) -> Result<(Vec<f64>, G1Projective)> {
    accumulated(device, points, scalars, chunk, window, runs, false)
}

fn accumulated(
    device: usize,
    points: &[G1Affine],
    scalars: &[Scalar],
    chunk: usize,
    window: u32,
    runs: usize,
    scribble: bool,
) -> Result<(Vec<f64>, G1Projective)> {
    let n = scalars.len();
    assert!(points.len() >= n && chunk > 0);
    if n == 0 {
        return Ok((Vec::new(), G1Projective::identity()));
    }
    let base = kernels::configured_msm_code() & !(0xff << 8);
    let n_cap = chunk.min(n);
    let window = match window {
        0 => crate::backend::memory_plan::accumulation_window(n_cap, base),
        w => w,
    };
    let code = base | (window as i32) << 8;
    let sizes = crate::backend::kernel_sizes::msm_accumulate_sizes(kernels::Curve::G1, n_cap, code);
    let Some((ws_bytes, buckets_bytes)) = sizes else {
        return Err(Error::invalid(format!(
            "the kernels cannot accumulate an MSM of {n} scalars in chunks of {chunk}"
        )));
    };
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let d_points = upload(&points[..n], stream)?;
    let d_scalars = upload(scalars, stream)?;
    let mut ws = DeviceBuffer::<u8>::new(ws_bytes)?;
    let mut buckets = DeviceBuffer::<u8>::new(buckets_bytes)?;
    let mem = kernels::AccumulationMemory {
        buckets: buckets.as_mut_ptr(),
        buckets_bytes,
        workspace: ws.as_mut_ptr(),
        workspace_bytes: ws_bytes,
    };
    let mut result = DeviceBuffer::<<G1 as GpuCurve>::Xyzz>::new(1)?;
    let times = event_times(stream, runs.max(1), || {
        for (j, start) in (0..n).step_by(n_cap).enumerate() {
            let m = n_cap.min(n - start);
            if scribble {
                // SAFETY: the scratch workspace is ws_bytes of device memory.
                unsafe { fill_raw(mem.workspace, 0xa5, ws_bytes, stream)? };
            }
            // SAFETY: the chunk's points and scalars lie in the uploaded buffers; the workspace
            // is sized for n_cap and code.
            unsafe {
                kernels::msm_accumulate(
                    d_points.as_ptr().cast::<G1Affine>().add(start).cast(),
                    m,
                    d_scalars.as_ptr().cast::<Scalar>().add(start).cast(),
                    true,
                    m,
                    n_cap,
                    code,
                    mem,
                    j == 0,
                    stream,
                )?
            };
        }
        if scribble {
            // SAFETY: as above.
            unsafe { fill_raw(mem.workspace, 0x5a, ws_bytes, stream)? };
        }
        // SAFETY: as above.
        unsafe { kernels::msm_accumulated(n_cap, code, mem, result.as_mut_ptr(), stream) }
    })?;
    Ok((times, download_one::<G1>(&result, stream)?))
}

/// What the streamed tails' gather kernel makes of one chunk's tail piece of G1 points: for each
/// `k`, `points[index[k] - base]` (the identity where that is past the points) and `scalars[k]`.
pub fn gather_tail_g1(
    device: usize,
    points: &[G1Affine],
    index: &[u32],
    base: u32,
    scalars: &[blst_scalar],
) -> Result<(Vec<G1Affine>, Vec<blst_scalar>)> {
    gather_tail::<G1>(device, points, index, base, scalars)
}

/// [`gather_tail_g1`] on G2.
pub fn gather_tail_g2(
    device: usize,
    points: &[G2Affine],
    index: &[u32],
    base: u32,
    scalars: &[blst_scalar],
) -> Result<(Vec<G2Affine>, Vec<blst_scalar>)> {
    gather_tail::<G2>(device, points, index, base, scalars)
}

fn gather_tail<C: GpuCurve>(
    device: usize,
    points: &[C::Affine],
    index: &[u32],
    base: u32,
    scalars: &[blst_scalar],
) -> Result<(Vec<C::Affine>, Vec<blst_scalar>)>
where
    C::Affine: Default,
{
    let n = index.len();
    assert_eq!(scalars.len(), n);
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let d_points = upload(points, stream)?;
    let d_index = upload(index, stream)?;
    let d_scalars = upload(scalar_bytes(scalars), stream)?;
    let mut out_points = DeviceBuffer::<C::Affine>::new(n.max(1))?;
    let mut out_scalars = DeviceBuffer::<[u8; 32]>::new(n.max(1))?;
    // SAFETY: every buffer holds what the kernel reads and writes (n entries, the points).
    unsafe {
        kernels::gather_tail(
            C::CURVE,
            d_points.as_ptr(),
            points.len(),
            d_index.as_ptr(),
            base,
            d_scalars.as_ptr(),
            n,
            out_points.as_mut_ptr(),
            out_scalars.as_mut_ptr(),
            stream,
        )?
    };
    let mut got_points = vec![C::Affine::default(); n.max(1)];
    let mut got_scalars = vec![[0u8; 32]; n.max(1)];
    out_points.download_async(&mut got_points, stream)?;
    out_scalars.download_async(&mut got_scalars, stream)?;
    stream.synchronize()?;
    got_points.truncate(n);
    let scalars = got_scalars[..n]
        .iter()
        .map(|b| blst_scalar { b: *b })
        .collect();
    Ok((got_points, scalars))
}

/// The precomputed copies of `points` for `window`-bit windows, as the MSM reads them: copy `j`
/// (elements `j n .. (j + 1) n`) is `2^(window j)` times the points.
pub fn precompute_g1(
    device: usize,
    points: &[G1Affine],
    window: u32,
    copies: u32,
) -> Result<Vec<G1Affine>> {
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let d_points = upload_copies::<G1>(points, window, copies, stream)?;
    let mut host = vec![<G1Affine as group::prime::PrimeCurveAffine>::identity(); d_points.len()];
    d_points.download_async(&mut host, stream)?;
    stream.synchronize()?;
    Ok(host)
}

/// `points` on the device followed by room for `copies - 1` more copies, filled for
/// `window`-bit windows when `copies > 1` (G1 only: the launcher refuses G2).
fn upload_copies<C: GpuCurve>(
    points: &[C::Affine],
    window: u32,
    copies: u32,
    stream: &Stream,
) -> Result<DeviceBuffer<C::Affine>> {
    if copies <= 1 {
        return upload(points, stream);
    }
    let total = points
        .len()
        .checked_mul(copies as usize)
        .filter(|&t| t < 1 << 31)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{copies} copies of {} points exceed the MSM's 2^31 point indices",
                points.len()
            ))
        })?;
    if !matches!(C::CURVE, kernels::Curve::G1) {
        return Err(Error::invalid("precomputed copies are built for G1 only"));
    }
    let mut buf = DeviceBuffer::<C::Affine>::new(total.max(1))?;
    buf.upload_async(points, stream)?;
    // SAFETY: buf holds copies * points.len() points, the first points.len() uploaded above.
    unsafe { kernels::msm_precompute(buf.as_mut_ptr(), points.len(), window, copies, stream)? };
    Ok(buf)
}

/// The sum of the points whose bit is set.
pub fn sum_g1(device: usize, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective> {
    sum::<G1>(device, points, ones)
}

/// As [`sum_g1`], over G2.
pub fn sum_g2(device: usize, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective> {
    sum::<G2>(device, points, ones)
}

#[cfg(feature = "gpu-test-kernels")]
/// `op(a[i], b[i])` through the curve formula paths of `g16_curve_test_op` (feature
/// `gpu-test-kernels`).
pub fn curve_op_g1(
    device: usize,
    op: i32,
    a: &[G1Affine],
    b: &[G1Affine],
) -> Result<Vec<G1Projective>> {
    curve_op::<G1>(device, op, a, b)
}

#[cfg(feature = "gpu-test-kernels")]
/// As [`curve_op_g1`], over G2.
pub fn curve_op_g2(
    device: usize,
    op: i32,
    a: &[G2Affine],
    b: &[G2Affine],
) -> Result<Vec<G2Projective>> {
    curve_op::<G2>(device, op, a, b)
}

/// GPU milliseconds of `runs` G1 MSMs over `points[k]` with canonical `scalars`, everything
/// resident on the device (uploads are not timed), and the result of the last run.
pub fn time_msm_g1(
    device: usize,
    points: &[G1Affine],
    scalars: &[blst_scalar],
    runs: usize,
    strategy: MsmStrategy,
) -> Result<(Vec<f64>, G1Projective)> {
    let (times, result, _) = time_msm_g1_copies(device, points, scalars, runs, strategy, 0, 0)?;
    Ok((times, result))
}

/// As [`time_msm_g1`], with `window`-bit windows (0: the width in force) over `copies`
/// precomputed multiples of the points (0 or 1: none); also the milliseconds their
/// precomputation took on the GPU (not in the MSMs' times).
pub fn time_msm_g1_copies(
    device: usize,
    points: &[G1Affine],
    scalars: &[blst_scalar],
    runs: usize,
    strategy: MsmStrategy,
    window: u32,
    copies: u32,
) -> Result<(Vec<f64>, G1Projective, f64)> {
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let n = scalars.len();
    let stream = &state.compute;
    let (start, end) = (Event::timing()?, Event::timing()?);
    start.record(stream)?;
    let d_points = upload_copies::<G1>(&points[..n.min(points.len())], window, copies, stream)?;
    end.record(stream)?;
    end.synchronize()?;
    let upload_ms = end.elapsed_ms(&start)?;
    let d_scalars = upload(scalar_bytes(scalars), stream)?;
    let mut ws = DeviceBuffer::<u8>::new(workspace_for::<G1>(n, strategy, window, copies)?)?;
    let mut result = DeviceBuffer::<<G1 as GpuCurve>::Xyzz>::new(1)?;
    let times = event_times(stream, runs, || {
        let args = msm_args::<G1>(
            &d_points,
            None,
            d_scalars.as_ptr(),
            false,
            n,
            strategy,
            window,
            copies,
            &mut ws,
            &mut result,
        );
        // SAFETY: every buffer is live and sized as the launcher requires.
        unsafe { kernels::msm(&args, stream) }
    })?;
    Ok((times, download_one::<G1>(&result, stream)?, upload_ms))
}

/// Milliseconds of `runs` runs of `launch` on `stream`, each between two CUDA events.
fn event_times(
    stream: &Stream,
    runs: usize,
    mut launch: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    let (start, end) = (Event::timing()?, Event::timing()?);
    (0..runs)
        .map(|_| {
            start.record(stream)?;
            launch()?;
            end.record(stream)?;
            end.synchronize()?;
            end.elapsed_ms(&start)
        })
        .collect()
}

fn workspace_for<C: GpuCurve>(
    n: usize,
    strategy: MsmStrategy,
    window: u32,
    copies: u32,
) -> Result<usize> {
    match kernels::msm_workspace_size(C::CURVE, n, strategy, window, copies) {
        0 if n > 0 => Err(Error::invalid(format!(
            "an MSM of {n} points (window {window}, {copies} copies) is beyond the GPU kernels' \
             limits (fewer than 2^31 points, windows of 4..=24 bits, copies with a window set, \
             at most one per window)"
        ))),
        bytes => Ok(bytes.max(1)),
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn msm_args<C: GpuCurve>(
    points: &DeviceBuffer<C::Affine>,
    index: Option<&DeviceBuffer<u32>>,
    scalars: *const std::ffi::c_void,
    montgomery: bool,
    n: usize,
    strategy: MsmStrategy,
    window: u32,
    copies: u32,
    ws: &mut DeviceBuffer<u8>,
    result: &mut DeviceBuffer<C::Xyzz>,
) -> MsmArgs {
    MsmArgs {
        curve: C::CURVE,
        points: points.as_ptr(),
        // `points` holds `copies` copies of the points (see `upload_copies`).
        n_points: points.len() / copies.max(1) as usize,
        index: index.map_or(std::ptr::null(), |i| i.as_ptr().cast()),
        scalars,
        montgomery,
        n,
        strategy,
        window,
        bit_reversed: 0,
        copies,
        workspace: ws.as_mut_ptr(),
        workspace_bytes: ws.len(),
        result: result.as_mut_ptr(),
    }
}

fn upload<T: Copy>(data: &[T], stream: &Stream) -> Result<DeviceBuffer<T>> {
    let mut buf = DeviceBuffer::new(data.len())?;
    buf.upload_async(data, stream)?;
    Ok(buf)
}

fn download_one<C: GpuCurve>(
    result: &DeviceBuffer<C::Xyzz>,
    stream: &Stream,
) -> Result<C::Projective> {
    let mut host = [C::Xyzz::default()];
    result.download_async(&mut host, stream)?;
    stream.synchronize()?;
    Ok(C::to_projective(&host[0]))
}

/// `bit_reversed`: the scalars' order (see [`MsmArgs`]); 0 for natural order.
#[allow(clippy::too_many_arguments)]
fn msm<C: GpuCurve, S>(
    device: usize,
    points: &[C::Affine],
    indices: Option<&[u32]>,
    scalars: &[S],
    montgomery: bool,
    strategy: MsmStrategy,
    window: u32,
    bit_reversed: u32,
    copies: u32,
) -> Result<C::Projective> {
    let n = scalars.len();
    match indices {
        Some(idx) => assert_eq!(idx.len(), n, "one index per scalar"),
        None if bit_reversed == 0 => assert!(points.len() >= n, "one point per scalar"),
        None => {}
    }
    if n == 0 {
        return Ok(C::Projective::identity());
    }
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let points = if indices.is_some() || bit_reversed != 0 {
        points
    } else {
        &points[..n]
    };
    let d_points = upload_copies::<C>(points, window, copies, stream)?;
    let d_index = indices.map(|i| upload(i, stream)).transpose()?;
    let d_scalars = upload(scalar_bytes(scalars), stream)?;
    let mut ws = DeviceBuffer::<u8>::new(workspace_for::<C>(n, strategy, window, copies)?)?;
    let mut result = DeviceBuffer::<C::Xyzz>::new(1)?;
    let mut args = msm_args::<C>(
        &d_points,
        d_index.as_ref(),
        d_scalars.as_ptr(),
        montgomery,
        n,
        strategy,
        window,
        copies,
        &mut ws,
        &mut result,
    );
    args.bit_reversed = bit_reversed;
    // SAFETY: every buffer is live and sized as the launcher requires.
    unsafe { kernels::msm(&args, stream)? };
    download_one::<C>(&result, stream)
}

/// Times a G1 batch addition over data already on the device: the kernels' milliseconds of
/// `runs` runs (CUDA events), and the sum.
pub fn time_batch_add_g1(
    device: usize,
    points: &[G1Affine],
    ones: &OnesBitmap,
    runs: usize,
) -> Result<(Vec<f64>, G1Projective)> {
    sum_timed::<G1>(device, points, ones, runs.max(1))
}

fn sum<C: GpuCurve>(
    device: usize,
    points: &[C::Affine],
    ones: &OnesBitmap,
) -> Result<C::Projective> {
    Ok(sum_timed::<C>(device, points, ones, 1)?.1)
}

fn sum_timed<C: GpuCurve>(
    device: usize,
    points: &[C::Affine],
    ones: &OnesBitmap,
    runs: usize,
) -> Result<(Vec<f64>, C::Projective)> {
    assert!(
        ones.len <= points.len(),
        "the bitmap covers more points than there are"
    );
    if ones.len == 0 {
        return Ok((vec![0.0; runs], C::Projective::identity()));
    }
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let d_points = upload(&points[..ones.len], stream)?;
    let d_bits = upload(&ones.words, stream)?;
    let ws_bytes = kernels::batch_add_workspace_size(C::CURVE, ones.len).max(1);
    let mut ws = DeviceBuffer::<u8>::new(ws_bytes)?;
    let mut result = DeviceBuffer::<C::Xyzz>::new(1)?;
    let times = event_times(stream, runs, || {
        // SAFETY: every buffer is live and sized as the launcher requires.
        unsafe {
            kernels::batch_add(
                C::CURVE,
                d_points.as_ptr(),
                ones.len,
                d_bits.as_ptr().cast(),
                ws.as_mut_ptr(),
                ws.len(),
                result.as_mut_ptr(),
                stream,
            )
        }
    })?;
    Ok((times, download_one::<C>(&result, stream)?))
}

#[cfg(feature = "gpu-test-kernels")]
fn curve_op<C: GpuCurve>(
    device: usize,
    op: i32,
    a: &[C::Affine],
    b: &[C::Affine],
) -> Result<Vec<C::Projective>> {
    assert_eq!(a.len(), b.len());
    if a.is_empty() {
        return Ok(Vec::new());
    }
    let mut guard = lock_device(device)?;
    let state = guard.as_mut().expect("lock_device creates the state");
    let stream = &state.compute;
    let (d_a, d_b) = (upload(a, stream)?, upload(b, stream)?);
    let mut out = DeviceBuffer::<C::Xyzz>::new(a.len())?;
    // SAFETY: a, b hold a.len() points and out room for as many results.
    unsafe {
        kernels::curve_test_op(
            C::CURVE,
            op,
            d_a.as_ptr(),
            d_b.as_ptr(),
            out.as_mut_ptr(),
            a.len(),
            stream,
        )?
    };
    let mut host = vec![C::Xyzz::default(); a.len()];
    out.download_async(&mut host, stream)?;
    stream.synchronize()?;
    Ok(host.iter().map(C::to_projective).collect())
}
