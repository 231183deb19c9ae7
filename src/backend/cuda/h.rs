//! The H polynomial on the GPU: the same transform as the CPU path (`cpu::fft::h_polynomial`),
//! bit for bit, with `a, b, c` uploaded from pinned memory on a copy stream while the compute
//! stream transforms what has already arrived.
//!
//! Order of work per vector: iNTT (natural in, bit-reversed out) → scale by `g^i / n` (indexed
//! in bit-reversed order) → NTT (bit-reversed in, natural out) puts it on the coset. Then
//! `a = (a·b − c) / Z(g) / n`, an iNTT in natural order, and a scale by `g^-i`. For domains of
//! 2^11..2^28 the scalings and the constant factors are folded into the coset transforms'
//! passes ([`ntt_coset`](super::kernels::ntt_coset)), so no pass of its own touches the vectors
//! for them. [`ntt_lde`] (for `a` and `b`) and [`ntt_lde_quotient`] (for `c`, the point-wise
//! step and the inverse) run the two passes of each polynomial's LDE that work on the same tiles
//! as one kernel from 2^20 up (one round trip of the vector through global memory fewer).

use std::mem::MaybeUninit;

use blstrs::Scalar;
use ff::{Field, PrimeField};

use super::device::DeviceState;
use super::kernels::{
    bit_reverse, h_pointwise, ntt, ntt_lde, ntt_lde_quotient, scale_powers, CosetTable, NttTable,
};
use super::runtime::{DeviceBuffer, Event, PinnedRegion, Stream};
use crate::error::{Error, Result};

/// Smallest twiddle table built, so small proofs do not rebuild it for every size.
use crate::backend::memory_plan::MIN_TABLE_LG;

/// `h` for evaluations `a, b, c` (each at most `n` long, zero-padded) over the domain of size
/// `n`; returns its `n − 1` coefficients, as the CPU path does.
pub fn h_polynomial(
    state: &mut DeviceState,
    a: &[Scalar],
    b: &[Scalar],
    c: &[Scalar],
    n: usize,
) -> Result<Vec<Scalar>> {
    assert!(n.is_power_of_two() && a.len() <= n && b.len() <= n && c.len() <= n);
    if n == 1 {
        return Ok(Vec::new());
    }
    prepare(state, n, 0)?;
    let pins = [
        PinnedRegion::new(a)?,
        PinnedRegion::new(b)?,
        PinnedRegion::new(c)?,
    ];
    let arrived = [Event::new()?, Event::new()?, Event::new()?];
    for ((buf, src), ev) in state.abc.iter_mut().zip([a, b, c]).zip(&arrived) {
        buf.upload_async(src, &state.copy)?;
        ev.record(&state.copy)?;
    }
    transform(
        state,
        [a.len(), b.len(), c.len()],
        n,
        Some(&arrived),
        Order::Natural,
    )?;

    let mut h: Vec<MaybeUninit<Scalar>> = Vec::with_capacity(n - 1);
    h.resize(n - 1, MaybeUninit::uninit());
    let h_pin = PinnedRegion::new(&h)?;
    state.abc[0].download_uninit_async(&mut h, &state.compute)?;
    state.compute.synchronize()?;
    drop((pins, h_pin));
    // SAFETY: the synchronised download wrote all n - 1 elements.
    let h = unsafe {
        let mut h = std::mem::ManuallyDrop::new(h);
        Vec::from_raw_parts(h.as_mut_ptr().cast::<Scalar>(), h.len(), h.capacity())
    };
    Ok(h)
}

/// Builds the twiddle tables and the working buffers for a domain of `n` if needed.
/// `working`: device bytes of the caller's whole working set (0: the H step's alone); what
/// of it the device state does not hold yet is kept free when deciding on the top table.
pub fn prepare(state: &mut DeviceState, n: usize, working: usize) -> Result<()> {
    let lg_n = n.trailing_zeros();
    prepare_tables(state, lg_n)?;
    state.ensure_abc(n)?;
    let still_needed = working.saturating_sub(state.buffer_bytes());
    prepare_top(state, lg_n, still_needed)
}

/// Builds the twiddle table and the coset tables for a domain of `2^lg_n` if needed.
pub fn prepare_tables(state: &mut DeviceState, lg_n: u32) -> Result<()> {
    if state.table.as_ref().is_none_or(|t| t.lg_max < lg_n) {
        state.table = None; // free the old table before building a larger one
        state.table = Some(NttTable::new(lg_n.max(MIN_TABLE_LG), &state.compute)?);
    }
    // Kept per size (a few MiB each): a host alternating sizes frees nothing inside the lock.
    if !state.coset.iter().any(|c| c.lg_n == lg_n) {
        if let Some(c) = CosetTable::new(lg_n, &state.compute)? {
            state.coset.push(c);
        }
    }
    Ok(())
}

/// Whether the NTT's top table is built (`GROTH16_C2_NTT_TOP_TABLE`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TopTablePolicy {
    /// When it fits in free VRAM beside what the proof still needs, with 2 GiB to spare.
    Auto,
    Always,
    Never,
}

pub fn top_table_policy() -> TopTablePolicy {
    match std::env::var("GROTH16_C2_NTT_TOP_TABLE").as_deref() {
        Ok("1") | Ok("always") => TopTablePolicy::Always,
        Ok("0") | Ok("never") => TopTablePolicy::Never,
        _ => TopTablePolicy::Auto,
    }
}

/// Free VRAM the top table leaves beside a proof's working set.
const TOP_TABLE_MARGIN_BYTES: usize = 2 << 30;

/// Builds the top table for `2^lg_n` when the policy and free VRAM allow; otherwise drops
/// one built for another size. It is an optimisation only: without it the transforms are the
/// same, so running out of memory for it is not an error.
fn prepare_top(state: &mut DeviceState, lg_n: u32, still_needed: usize) -> Result<()> {
    let table = state.table.as_mut().expect("prepare builds the table");
    if table.top_lg() == Some(lg_n) {
        return Ok(());
    }
    let bytes = NttTable::top_bytes(lg_n);
    let build = bytes > 0
        && match top_table_policy() {
            TopTablePolicy::Never => false,
            TopTablePolicy::Always => true,
            TopTablePolicy::Auto => {
                let held = table.top_lg().map_or(0, NttTable::top_bytes);
                let free = super::device::available_bytes(state.index)?;
                bytes + still_needed + TOP_TABLE_MARGIN_BYTES <= free + held
            }
        };
    if !build {
        table.drop_top();
        return Ok(());
    }
    match table.build_top(lg_n, &state.compute) {
        Err(Error::Cuda { code, .. }) if code == super::ffi::ERROR_MEMORY_ALLOCATION => {
            table.drop_top();
            Ok(())
        }
        other => other.map(drop),
    }
}

/// The order [`transform`] leaves `h`'s coefficients in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    Natural,
    /// Position k holds coefficient `bitrev(k)` (over log2 n bits): what the last inverse
    /// transform produces, saving a permutation pass when the consumer (the H MSM) can read
    /// its scalars in that order.
    BitReversed,
}

/// The transform on the device: `abc[i]` holds `lens[i]` uploaded values (the rest is zeroed
/// here); when `arrived` is given, each vector waits for its upload event first. Leaves the `n`
/// coefficients of `h` (the last one zero for a satisfied circuit) in `abc[0]`, in `order`.
/// Queued on the compute stream; the caller synchronises.
pub fn transform(
    state: &mut DeviceState,
    lens: [usize; 3],
    n: usize,
    arrived: Option<&[Event; 3]>,
    order: Order,
) -> Result<()> {
    let DeviceState {
        compute,
        table,
        coset,
        abc,
        ..
    } = state;
    let table = table.as_ref().expect("prepare builds the table");
    let coset = coset.iter().find(|c| c.lg_n == n.trailing_zeros());
    transform_on(compute, table, coset, abc, lens, n, arrived, order)
}

/// [`transform`] over explicit parts of the device state.
/// `coset`, when given, holds the coset tables for `n` (the folded path).
#[allow(clippy::too_many_arguments)]
pub fn transform_on(
    compute: &Stream,
    table: &NttTable,
    coset: Option<&CosetTable>,
    abc: &mut [DeviceBuffer<Scalar>],
    lens: [usize; 3],
    n: usize,
    arrived: Option<&[Event; 3]>,
    order: Order,
) -> Result<()> {
    let lg_n = n.trailing_zeros();
    let reversed = order == Order::BitReversed;
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let n_inv = Scalar::from(n as u64).invert().unwrap();
    let coset = coset.filter(|c| c.lg_n == lg_n);
    for (i, (buf, len)) in abc.iter_mut().zip(lens).enumerate() {
        if let Some(events) = arrived {
            compute.wait(&events[i])?;
        }
        buf.zero_range_async(len, n, compute)?;
        match coset {
            // c's transforms run in the quotient below.
            Some(_) if i == 2 => {}
            Some(coset) => ntt_lde(buf, table, coset, compute)?,
            None => {
                ntt(buf, lg_n, true, false, true, table, compute)?;
                scale_powers(buf, lg_n, n_inv, g, true, compute)?;
                ntt(buf, lg_n, false, true, false, table, compute)?;
            }
        }
    }
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
    let [ha, hb, hc] = abc else {
        unreachable!("a, b and c")
    };
    if let Some(coset) = coset {
        // 1/(n Z(g)) and g^-i are in the inverse coset transform.
        // It leaves h bit-reversed.
        ntt_lde_quotient(ha, hb, hc, table, coset, compute)?;
        return if reversed {
            Ok(())
        } else {
            bit_reverse(ha, lg_n, compute)
        };
    }
    h_pointwise(ha, Some(&*hb), Some(&*hc), n, z_inv * n_inv, compute)?;
    ntt(ha, lg_n, true, false, reversed, table, compute)?;
    scale_powers(
        ha,
        lg_n,
        Scalar::ONE,
        g.invert().unwrap(),
        reversed,
        compute,
    )
}
