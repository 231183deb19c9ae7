//! Typed calls to the kernel launchers of `cuda/launcher.h`.

use std::ffi::c_void;

use blstrs::Scalar;
use ff::{Field, PrimeField};

use super::ffi;
use super::runtime::{check, DeviceBuffer, Stream};
use crate::error::Result;

fn launched(name: &'static str, code: i32) -> Result<()> {
    check(name, code)
}

fn host<T>(x: &T) -> *const c_void {
    (x as *const T).cast()
}

/// The NTT twiddle table for every domain up to `2^lg_max`, on one device.
pub struct NttTable {
    table: DeviceBuffer<u8>,
    pub lg_max: u32,
}

impl NttTable {
    /// Computes the table on the device (the roots as bellperson derives them).
    pub fn new(lg_max: u32, stream: &Stream) -> Result<NttTable> {
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in lg_max..Scalar::S {
            omega = omega.square();
        }
        let omega_inv = omega.invert().unwrap();
        // SAFETY: a pure size computation.
        let bytes = unsafe { ffi::g16_ntt_table_size(lg_max) };
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
        Ok(NttTable { table, lg_max })
    }
}

/// In-place NTT of the first `2^lg_n` elements of `data`; inverse without the `1/n` factor.
pub fn ntt(
    data: &mut DeviceBuffer<Scalar>,
    lg_n: u32,
    inverse: bool,
    bitrev_in: bool,
    bitrev_out: bool,
    table: &NttTable,
    stream: &Stream,
) -> Result<()> {
    assert!(lg_n <= table.lg_max && data.len() >= 1 << lg_n);
    // SAFETY: the buffer holds 2^lg_n elements and the table serves lg_n.
    launched("g16_ntt", unsafe {
        ffi::g16_ntt(
            data.as_mut_ptr(),
            lg_n,
            inverse as i32,
            bitrev_in as i32,
            bitrev_out as i32,
            table.table.as_ptr(),
            table.lg_max,
            stream.raw(),
        )
    })
}

/// `data[i] *= first * ratio^k(i)`, `k(i) = i` or its bit reversal.
pub fn scale_powers(
    data: &mut DeviceBuffer<Scalar>,
    lg_n: u32,
    first: Scalar,
    ratio: Scalar,
    index_bitrev: bool,
    stream: &Stream,
) -> Result<()> {
    assert!(data.len() >= 1 << lg_n);
    // SAFETY: the buffer holds 2^lg_n elements; scalars are read before the call returns.
    launched("g16_scale_powers", unsafe {
        ffi::g16_scale_powers(
            data.as_mut_ptr(),
            lg_n,
            host(&first),
            host(&ratio),
            index_bitrev as i32,
            stream.raw(),
        )
    })
}

/// `a[i] = (a[i] * b[i] - c[i]) * factor`.
pub fn h_pointwise(
    a: &mut DeviceBuffer<Scalar>,
    b: &DeviceBuffer<Scalar>,
    c: &DeviceBuffer<Scalar>,
    n: usize,
    factor: Scalar,
    stream: &Stream,
) -> Result<()> {
    assert!(a.len() >= n && b.len() >= n && c.len() >= n);
    // SAFETY: all three hold n elements.
    launched("g16_h_pointwise", unsafe {
        ffi::g16_h_pointwise(
            a.as_mut_ptr(),
            b.as_ptr(),
            c.as_ptr(),
            n,
            host(&factor),
            stream.raw(),
        )
    })
}

/// Natural order to bit-reversed order or back.
pub fn bit_reverse(data: &mut DeviceBuffer<Scalar>, lg_n: u32, stream: &Stream) -> Result<()> {
    assert!(data.len() >= 1 << lg_n);
    // SAFETY: the buffer holds 2^lg_n elements.
    launched("g16_bit_reverse", unsafe {
        ffi::g16_bit_reverse(data.as_mut_ptr(), lg_n, stream.raw())
    })
}

/// Field operations the tests compare with blstrs.
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
}

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
