//! Typed calls to the kernel launchers of `cuda/launcher.h`.

use std::ffi::c_void;

use blstrs::Scalar;
use ff::{Field, PrimeField};

use super::ffi;
use super::runtime::{check, injected, DeviceBuffer, DeviceSpan, Stream, INJECTED_LAUNCH};
use crate::backend::kernel_sizes;
use crate::error::{Error, Result};
use crate::fault::Site;

fn launched(name: &'static str, code: i32) -> Result<()> {
    injected(Site::KernelLaunch, name, INJECTED_LAUNCH)?;
    check(name, code)
}

fn host<T>(x: &T) -> *const c_void {
    (x as *const T).cast()
}

/// The NTT twiddle table for every domain up to `2^lg_max`, on one device, with optionally
/// the top pass's own table for one size (see [`NttTable::build_top`]).
pub struct NttTable {
    table: DeviceBuffer<u8>,
    pub lg_max: u32,
    top: Option<TopTable>,
}

/// The twiddles of one size's top pass, one entry per element (`cuda/ntt_tables.cuh`, `top_table`).
struct TopTable {
    table: DeviceBuffer<u8>,
    lg_n: u32,
}

impl NttTable {
    /// Computes the table on the device (the roots as bellperson derives them).
    pub fn new(lg_max: u32, stream: &Stream) -> Result<NttTable> {
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in lg_max..Scalar::S {
            omega = omega.square();
        }
        let omega_inv = omega.invert().unwrap();
        let bytes = kernel_sizes::ntt_table(lg_max);
        let mut table = DeviceBuffer::<u8>::new(bytes)?;
        // SAFETY: the table has the size the launcher asked for; the roots are host values
        // read before the call returns.
        launched("g16_ntt_table_init", unsafe {
            ffi::g16_ntt_table_init(
                table.as_mut_ptr(),
                lg_max,
                host(&omega),
                host(&omega_inv),
                stream.raw(),
            )
        })?;
        Ok(NttTable {
            table,
            lg_max,
            top: None,
        })
    }

    /// Device bytes of the top table for `2^lg_n` (0: that size has none): 64 bytes per
    /// element, 8 GiB at 2^27.
    pub fn top_bytes(lg_n: u32) -> usize {
        kernel_sizes::ntt_top_table(lg_n)
    }

    /// Builds the top table for `2^lg_n` (`lg_n <= lg_max`), replacing one for another size:
    /// that size's top pass then reads each element's twiddle instead of multiplying two
    /// (one product per element fewer, ~6% of a transform). Returns whether it has one now.
    pub fn build_top(&mut self, lg_n: u32, stream: &Stream) -> Result<bool> {
        if self.top_lg() == Some(lg_n) {
            return Ok(true);
        }
        let bytes = Self::top_bytes(lg_n);
        if bytes == 0 || lg_n > self.lg_max {
            return Ok(false);
        }
        self.top = None; // free the old one first
        let mut table = DeviceBuffer::<u8>::new(bytes)?;
        // SAFETY: the table has the size the launcher asked for; the plain table serves lg_n
        // and was initialised on this stream (or earlier).
        launched("g16_ntt_top_table_init", unsafe {
            ffi::g16_ntt_top_table_init(
                table.as_mut_ptr(),
                lg_n,
                self.table.as_ptr(),
                self.lg_max,
                stream.raw(),
            )
        })?;
        self.top = Some(TopTable { table, lg_n });
        Ok(true)
    }

    /// Frees the top table (the transforms go back to two products per twiddle).
    pub fn drop_top(&mut self) {
        self.top = None;
    }

    /// The size whose top table is built, if any.
    pub fn top_lg(&self) -> Option<u32> {
        self.top.as_ref().map(|t| t.lg_n)
    }

    /// The top table as the launchers take it (null when none).
    fn top_arg(&self) -> (*const c_void, u32) {
        match &self.top {
            Some(t) => (t.table.as_ptr(), t.lg_n),
            None => (std::ptr::null(), 0),
        }
    }
}

/// In-place NTT of the first `2^lg_n` elements of `data`; inverse without the `1/n` factor.
pub fn ntt(
    data: &mut impl DeviceSpan,
    lg_n: u32,
    inverse: bool,
    bitrev_in: bool,
    bitrev_out: bool,
    table: &NttTable,
    stream: &Stream,
) -> Result<()> {
    assert!(lg_n <= table.lg_max && data.span_bytes() >= 32 << lg_n);
    let (top, top_lg) = table.top_arg();
    // SAFETY: the buffer holds 2^lg_n elements and the tables serve lg_n.
    launched("g16_ntt", unsafe {
        ffi::g16_ntt(
            data.device_ptr(),
            lg_n,
            inverse as i32,
            bitrev_in as i32,
            bitrev_out as i32,
            table.table.as_ptr(),
            table.lg_max,
            top,
            top_lg,
            stream.raw(),
        )
    })
}

/// The tables of the H step's coset transforms for one domain of `2^lg_n` (see
/// `cuda/ntt_coset.cuh`): the coset scaling and the constant factors folded into their passes.
pub struct CosetTable {
    table: DeviceBuffer<u8>,
    pub lg_n: u32,
}

impl CosetTable {
    /// The tables for moving onto the coset `g H` with `1/n` (forward) and back with
    /// `g^-i / (n Z(g))` (inverse); `None` when `2^lg_n` cannot fold them (one pass, or more
    /// than three).
    pub fn new(lg_n: u32, stream: &Stream) -> Result<Option<CosetTable>> {
        let bytes = kernel_sizes::ntt_coset_table(lg_n);
        if bytes == 0 {
            return Ok(None);
        }
        let n = 1u64 << lg_n;
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in lg_n..Scalar::S {
            omega = omega.square();
        }
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let n_inv = Scalar::from(n).invert().unwrap();
        let z_inv = (g.pow_vartime([n]) - Scalar::ONE).invert().unwrap();
        let omega2 = [omega, omega.invert().unwrap()];
        let beta2 = [g, g.invert().unwrap()];
        let kappa2 = [n_inv, z_inv * n_inv];
        let mut table = DeviceBuffer::<u8>::new(bytes)?;
        // SAFETY: the table has the size the launcher asked for; each argument is two host
        // scalars read before the call returns.
        launched("g16_ntt_coset_table_init", unsafe {
            ffi::g16_ntt_coset_table_init(
                table.as_mut_ptr(),
                lg_n,
                host(&omega2),
                host(&beta2),
                host(&kappa2),
                stream.raw(),
            )
        })?;
        Ok(Some(CosetTable { table, lg_n }))
    }
}

/// The H step's coset transforms of `2^lg_n` elements in place. Forward: bit-reversed
/// coefficients in, evaluations on `g H` (natural order) out, the coefficients scaled by
/// `g^i / n` first. Inverse: evaluations on `g H` in, coefficients in bit-reversed order out,
/// each scaled by `g^-i / (n Z(g))`.
pub fn ntt_coset(
    data: &mut impl DeviceSpan,
    inverse: bool,
    table: &NttTable,
    coset: &CosetTable,
    stream: &Stream,
) -> Result<()> {
    let lg_n = coset.lg_n;
    assert!(lg_n <= table.lg_max && data.span_bytes() >= 32 << lg_n);
    let (top, top_lg) = table.top_arg();
    // SAFETY: the buffer holds 2^lg_n elements; the tables serve lg_n.
    launched("g16_ntt_coset", unsafe {
        ffi::g16_ntt_coset(
            data.device_ptr(),
            lg_n,
            inverse as i32,
            table.table.as_ptr(),
            table.lg_max,
            coset.table.as_ptr(),
            top,
            top_lg,
            stream.raw(),
        )
    })
}

/// One polynomial's move from evaluations on `H` (natural order) to evaluations on `g H`
/// (natural order): the inverse NTT, then [`ntt_coset`] forward. From 2^20 up the two passes
/// that share their tiles run as one kernel.
pub fn ntt_lde(
    data: &mut impl DeviceSpan,
    table: &NttTable,
    coset: &CosetTable,
    stream: &Stream,
) -> Result<()> {
    let lg_n = coset.lg_n;
    assert!(lg_n <= table.lg_max && data.span_bytes() >= 32 << lg_n);
    let (top, top_lg) = table.top_arg();
    // SAFETY: the buffer holds 2^lg_n elements; the tables serve lg_n.
    launched("g16_ntt_lde", unsafe {
        ffi::g16_ntt_lde(
            data.device_ptr(),
            lg_n,
            table.table.as_ptr(),
            table.lg_max,
            coset.table.as_ptr(),
            top,
            top_lg,
            stream.raw(),
        )
    })
}

/// The rest of the H step once `a` and `b` went through [`ntt_lde`]: [`ntt_lde`] on `c`, then
/// `a = a b - c`, then the inverse [`ntt_coset`] of `a` (coefficients of `h` in bit-reversed
/// order, in `a`). `c` is left undefined.
pub fn ntt_lde_quotient(
    a: &mut impl DeviceSpan,
    b: &impl DeviceSpan,
    c: &mut impl DeviceSpan,
    table: &NttTable,
    coset: &CosetTable,
    stream: &Stream,
) -> Result<()> {
    let lg_n = coset.lg_n;
    let n = 1usize << lg_n;
    assert!(
        lg_n <= table.lg_max
            && a.span_bytes() >= 32 * n
            && b.span_bytes() >= 32 * n
            && c.span_bytes() >= 32 * n
    );
    let (top, top_lg) = table.top_arg();
    // SAFETY: the three buffers hold 2^lg_n elements each; the tables serve lg_n.
    launched("g16_ntt_lde_quotient", unsafe {
        ffi::g16_ntt_lde_quotient(
            a.device_ptr(),
            b.device_ptr(),
            c.device_ptr(),
            lg_n,
            table.table.as_ptr(),
            table.lg_max,
            coset.table.as_ptr(),
            top,
            top_lg,
            stream.raw(),
        )
    })
}

/// `data[i] *= first * ratio^k(i)`, `k(i) = i` or its bit reversal.
pub fn scale_powers(
    data: &mut impl DeviceSpan,
    lg_n: u32,
    first: Scalar,
    ratio: Scalar,
    index_bitrev: bool,
    stream: &Stream,
) -> Result<()> {
    assert!(data.span_bytes() >= 32 << lg_n);
    // SAFETY: the buffer holds 2^lg_n elements; scalars are read before the call returns.
    launched("g16_scale_powers", unsafe {
        ffi::g16_scale_powers(
            data.device_ptr(),
            lg_n,
            host(&first),
            host(&ratio),
            index_bitrev as i32,
            stream.raw(),
        )
    })
}

/// `a[i] = (a[i] * b[i] - c[i]) * factor`; `b` absent reads as 1, `c` absent as 0 (not both).
pub fn h_pointwise(
    a: &mut impl DeviceSpan,
    b: Option<&dyn DeviceSpan>,
    c: Option<&dyn DeviceSpan>,
    n: usize,
    factor: Scalar,
    stream: &Stream,
) -> Result<()> {
    assert!(b.is_some() || c.is_some(), "a point-wise step reads b or c");
    assert!(a.span_bytes() >= 32 * n);
    assert!(b.is_none_or(|b| b.span_bytes() >= 32 * n));
    assert!(c.is_none_or(|c| c.span_bytes() >= 32 * n));
    let ptr =
        |x: Option<&dyn DeviceSpan>| x.map_or(std::ptr::null(), |x| x.device_ptr().cast_const());
    // SAFETY: each given buffer holds n elements; factor is read before the call returns.
    launched("g16_h_pointwise", unsafe {
        ffi::g16_h_pointwise(
            a.device_ptr(),
            ptr(b),
            ptr(c),
            n,
            host(&factor),
            stream.raw(),
        )
    })
}

/// Natural order to bit-reversed order or back.
pub fn bit_reverse(data: &mut impl DeviceSpan, lg_n: u32, stream: &Stream) -> Result<()> {
    assert!(data.span_bytes() >= 32 << lg_n);
    // SAFETY: the buffer holds 2^lg_n elements.
    launched("g16_bit_reverse", unsafe {
        ffi::g16_bit_reverse(data.device_ptr(), lg_n, stream.raw())
    })
}

/// Field operations the tests compare with blstrs (feature `gpu-test-kernels`).
#[cfg(feature = "gpu-test-kernels")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Sqr = 3,
    Neg = 4,
    ToMontgomery = 5,
    FromMontgomery = 6,
    Inverse = 7,
    /// `a * b^MUL_CHAIN_LEN / R^MUL_CHAIN_LEN`: that many dependent products per element (the
    /// multiplication benchmark).
    MulChain = 8,
    /// The inverse by the binary extended Euclidean algorithm (the MSM's batch inversions).
    InverseVartime = 9,
    /// Two independent integer chains per thread through `mont_t::mul2`: `a * b^L + b^(L+1)`
    /// (Montgomery products, `L = MUL_CHAIN_LEN`).
    MulChainPaired = 10,
}

/// Products per element of [`FieldOp::MulChain`] (`MUL_CHAIN_LEN` in `cuda/field_test.cu`).
#[cfg(feature = "gpu-test-kernels")]
pub const MUL_CHAIN_LEN: u64 = 64;

#[cfg(feature = "gpu-test-kernels")]
/// Runs `op` element-wise over device arrays of Fr (`fp = false`) or Fp (`fp = true`) values.
pub fn field_op<T: Copy>(
    fp: bool,
    op: FieldOp,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
    stream: &Stream,
) -> Result<()> {
    let n = a.len();
    assert!(b.len() >= n && out.len() >= n);
    // SAFETY: all three hold n elements of the field's size.
    let code = unsafe {
        if fp {
            ffi::g16_fp_test_op(
                op as i32,
                a.as_ptr(),
                b.as_ptr(),
                out.as_mut_ptr(),
                n,
                stream.raw(),
            )
        } else {
            ffi::g16_fr_test_op(
                op as i32,
                a.as_ptr(),
                b.as_ptr(),
                out.as_mut_ptr(),
                n,
                stream.raw(),
            )
        }
    };
    launched(
        if fp {
            "g16_fp_test_op"
        } else {
            "g16_fr_test_op"
        },
        code,
    )
}

pub use crate::backend::kernel_sizes::Curve;

/// How an MSM sums its buckets (`g16_msm`'s `strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsmStrategy {
    /// What proofs use: the slices (the kernels take 0 and 1 alike).
    Auto = 0,
    /// Slices of XYZZ mixed additions, one per thread.
    Slices = 1,
    /// For tests: the slices with the binned scatter at any size, over small sub-chunks of the
    /// scalars, as passes of 2^24+ entries run it.
    SlicesTestBinned = 2,
}

impl MsmStrategy {
    /// `auto` or `slices` (the benchmarks' `--msm-strategy`).
    pub fn parse(name: &str) -> Option<MsmStrategy> {
        match name.trim() {
            "auto" => Some(MsmStrategy::Auto),
            "slices" => Some(MsmStrategy::Slices),
            _ => None,
        }
    }
}

/// The Pippenger window width every MSM uses (a tuning knob for benchmarks; 0: chosen from the
/// size). Starts from `GROTH16_C2_MSM_WINDOW`.
static MSM_WINDOW: once_cell::sync::Lazy<std::sync::atomic::AtomicU32> =
    once_cell::sync::Lazy::new(|| {
        let bits = std::env::var("GROTH16_C2_MSM_WINDOW")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|b| (4..=24).contains(b))
            .unwrap_or(0);
        std::sync::atomic::AtomicU32::new(bits)
    });

/// Forces the window width of the MSMs that start afterwards (4..=24 bits; 0: chosen from the
/// size, the default). A tuning knob: proofs stay the same, only their speed changes. Change it
/// only while no proof runs (the workspace is sized with the width of the moment).
pub fn set_msm_window(bits: u32) -> Result<()> {
    if bits != 0 && !(4..=24).contains(&bits) {
        return Err(Error::invalid(format!(
            "an MSM window of {bits} bits is outside 4..=24"
        )));
    }
    MSM_WINDOW.store(bits, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// `g16_msm`'s strategy argument: the strategy, the window width (`window` when it is not 0,
/// else the width in force), the scalars' order (`bit_reversed`, see [`MsmArgs`]) and the
/// points' precomputed copies (`copies`, see [`MsmArgs`]).
pub fn msm_code(strategy: MsmStrategy, window: u32, bit_reversed: u32, copies: u32) -> i32 {
    let window = if window != 0 {
        window
    } else {
        MSM_WINDOW.load(std::sync::atomic::Ordering::Relaxed)
    };
    // An order out of range makes the launcher refuse the call rather than wrap around.
    let order = if bit_reversed < 32 {
        bit_reversed
    } else {
        0x7f
    };
    // Likewise a count of copies out of range (bits 21-25; bit 26 set is refused).
    let copies = if copies < 32 { copies } else { 0x3f };
    strategy as i32 | (window.min(255) as i32) << 8 | (order as i32) << 16 | (copies as i32) << 21
}

/// Device workspace bytes for an MSM of `n` scalars (0: `n` or the shape is out of range) with
/// `window`-bit windows (0: the width in force) over `copies` precomputed copies of the points
/// (0 or 1: none).
pub fn msm_workspace_size(
    curve: Curve,
    n: usize,
    strategy: MsmStrategy,
    window: u32,
    copies: u32,
) -> usize {
    kernel_sizes::msm_workspace(curve, n, msm_code(strategy, window, 0, copies))
}

/// Queues the precomputed copies of G1 points for MSMs with `copies` (see [`MsmArgs`]):
/// `points` holds `copies * n_points` points with the first `n_points` filled; copy `j` becomes
/// `2^(window j)` times them.
///
/// # Safety
/// `points` must be a live device allocation of `copies * n_points` G1 affine points.
pub unsafe fn msm_precompute(
    points: *mut c_void,
    n_points: usize,
    window: u32,
    copies: u32,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_msm_precompute",
        ffi::g16_msm_precompute(
            Curve::G1 as i32,
            points,
            n_points,
            window,
            copies,
            stream.raw(),
        ),
    )
}

/// Device workspace bytes for a batch addition over `n_points` points.
pub fn batch_add_workspace_size(curve: Curve, n_points: usize) -> usize {
    kernel_sizes::batch_add_workspace(curve, n_points)
}

/// Device pointers of one MSM; see `g16_msm` in cuda/launcher.h.
pub struct MsmArgs {
    pub curve: Curve,
    pub points: *const c_void,
    pub n_points: usize,
    /// NULL: scalar k goes with point k.
    pub index: *const u32,
    pub scalars: *const c_void,
    pub montgomery: bool,
    pub n: usize,
    pub strategy: MsmStrategy,
    /// Window bits (0: the width in force, normally chosen from `n`).
    pub window: u32,
    /// 0: scalar k goes with point k (or `index[k]`). Otherwise the scalars are in bit-reversed
    /// order over this many bits: scalar k goes with point `bitrev(k)`, as the H step leaves
    /// `h` (`n` at most 2^bits; `index` must be null).
    pub bit_reversed: u32,
    /// 0 or 1: `points` holds `n_points` points. Otherwise (G1, slices, `window` set) it holds
    /// this many copies of them, copy `j` being `2^(window j)` times copy 0 (see
    /// [`msm_precompute`]), so that each group of windows shares one set of buckets.
    pub copies: u32,
    pub workspace: *mut c_void,
    pub workspace_bytes: usize,
    pub result: *mut c_void,
}

/// Queues an MSM.
///
/// # Safety
/// Every pointer must be a live device allocation of the size `g16_msm` documents.
pub unsafe fn msm(args: &MsmArgs, stream: &Stream) -> Result<()> {
    let code = msm_code(args.strategy, args.window, args.bit_reversed, args.copies);
    // The launcher refuses a short workspace with a bare "invalid argument": name the sizes.
    let need = kernel_sizes::msm_workspace(args.curve, args.n, code);
    if args.n > 0 && (need == 0 || need > args.workspace_bytes) {
        return Err(Error::Panic(format!(
            "an MSM of {} scalars over {} points (code {code:#x}) needs {need} workspace bytes; \
             it was given {}",
            args.n, args.n_points, args.workspace_bytes
        )));
    }
    launched(
        "g16_msm",
        ffi::g16_msm(
            args.curve as i32,
            args.points,
            args.n_points,
            args.index,
            args.scalars,
            args.montgomery as i32,
            args.n,
            code,
            args.workspace,
            args.workspace_bytes,
            args.result,
            stream.raw(),
        ),
    )
}

/// Queues `index[k] -= base` for `k < n` on the device (a tail's point indices made relative
/// to the chunk of points on the device).
///
/// # Safety
/// `index` must be a live device allocation of at least `n` `u32`s.
pub unsafe fn index_rebase(index: *mut c_void, n: usize, base: u32, stream: &Stream) -> Result<()> {
    launched(
        "g16_msm_index_rebase",
        ffi::g16_msm_index_rebase(index.cast(), n, base, stream.raw()),
    )
}

/// Queues the gather of one chunk's tail entries into a gathered tail: for `k < n`,
/// `out_points[k] = points[index[k] - base]` (the identity where that is not below `n_points`)
/// and `out_scalars[k] = scalars[k]`.
///
/// # Safety
/// `points` must hold `n_points` affine points of `curve`, `index` and `scalars` `n` entries
/// (`u32`, 32 bytes), `out_points` and `out_scalars` room for `n` of each, all live device
/// memory, the outputs apart from the inputs.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gather_tail(
    curve: Curve,
    points: *const c_void,
    n_points: usize,
    index: *const c_void,
    base: u32,
    scalars: *const c_void,
    n: usize,
    out_points: *mut c_void,
    out_scalars: *mut c_void,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_msm_gather_tail",
        ffi::g16_msm_gather_tail(
            curve as i32,
            points,
            n_points,
            index.cast(),
            base,
            scalars,
            n,
            out_points,
            out_scalars,
            stream.raw(),
        ),
    )
}

/// Device memory of an accumulated MSM: its buckets, kept from one call to the next, and its
/// scratch workspace, which other kernels may use between the calls.
#[derive(Clone, Copy, Debug)]
pub struct AccumulationMemory {
    pub buckets: *mut c_void,
    pub buckets_bytes: usize,
    pub workspace: *mut c_void,
    pub workspace_bytes: usize,
}

/// Queues the addition of one chunk's G1 MSM (`n` Montgomery-form or canonical scalars with
/// point k, `n <= n_cap`) to the MSM accumulated in `mem`'s buckets (`first`: from the
/// identity); `code` forces the window (see `g16_msm_accumulate`).
///
/// # Safety
/// Every pointer must be a live device allocation of the size `g16_msm_accumulate` documents,
/// and nothing else may write the buckets until [`msm_accumulated`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn msm_accumulate(
    points: *const c_void,
    n_points: usize,
    scalars: *const c_void,
    montgomery: bool,
    n: usize,
    n_cap: usize,
    code: i32,
    mem: AccumulationMemory,
    first: bool,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_msm_accumulate",
        ffi::g16_msm_accumulate(
            Curve::G1 as i32,
            points,
            n_points,
            std::ptr::null(),
            scalars,
            montgomery as i32,
            n,
            n_cap,
            code,
            mem.buckets,
            mem.buckets_bytes,
            mem.workspace,
            mem.workspace_bytes,
            first as i32,
            stream.raw(),
        ),
    )
}

/// Queues the reduction of an accumulated G1 MSM into `result` (one XYZZ point).
///
/// # Safety
/// As [`msm_accumulate`], with the same `n_cap` and `code`.
pub unsafe fn msm_accumulated(
    n_cap: usize,
    code: i32,
    mem: AccumulationMemory,
    result: *mut c_void,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_msm_accumulated",
        ffi::g16_msm_accumulated(
            Curve::G1 as i32,
            n_cap,
            code,
            mem.buckets,
            mem.buckets_bytes,
            mem.workspace,
            mem.workspace_bytes,
            result,
            stream.raw(),
        ),
    )
}

/// The launcher code of the strategy and window proofs use.
pub fn configured_msm_code() -> i32 {
    msm_code(MsmStrategy::Auto, 0, 0, 0)
}

/// Queues a batch addition of the points whose bit is set.
///
/// # Safety
/// Every pointer must be a live device allocation of the size `g16_batch_add` documents.
#[allow(clippy::too_many_arguments)]
pub unsafe fn batch_add(
    curve: Curve,
    points: *const c_void,
    n_points: usize,
    bitmap: *const u64,
    workspace: *mut c_void,
    workspace_bytes: usize,
    result: *mut c_void,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_batch_add",
        ffi::g16_batch_add(
            curve as i32,
            points,
            n_points,
            bitmap,
            workspace,
            workspace_bytes,
            result,
            stream.raw(),
        ),
    )
}

#[cfg(feature = "gpu-test-kernels")]
/// Queues `out[i] = op(a[i], b[i])` for the curve formula tests (ops of `g16_curve_test_op`).
///
/// # Safety
/// `a`, `b` hold `n` affine points and `out` room for `n` XYZZ points of `curve`, on the device.
pub unsafe fn curve_test_op(
    curve: Curve,
    op: i32,
    a: *const c_void,
    b: *const c_void,
    out: *mut c_void,
    n: usize,
    stream: &Stream,
) -> Result<()> {
    launched(
        "g16_curve_test_op",
        ffi::g16_curve_test_op(curve as i32, op, a, b, out, n, stream.raw()),
    )
}
