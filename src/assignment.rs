//! One circuit's witness as the prover sees it: the host's `Assignment` struct (supraseal-c2's
//! exact layout) and the checked, borrowed view the prover works on.

use blstrs::Scalar;

use crate::error::{Error, Result};

/// The point counts of an SRS that a witness must match: its verifying key's `ic` and its
/// `h`, `l`, `a` and `b` queries (`b_g1` and `b_g2` have one count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryCounts {
    pub ic: usize,
    pub h: usize,
    pub l: usize,
    pub a: usize,
    pub b: usize,
}

/// A host's circuit witness, laid out exactly as supraseal-c2 0.1.2's `Assignment<Scalar>`
/// (17 machine words). Densities are LSB-first u64 words, as `bitvec`'s raw slice gives them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Assignment {
    pub a_aux_density: *const u64,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,
    pub b_inp_density: *const u64,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,
    pub b_aux_density: *const u64,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,
    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

// SAFETY: an Assignment only carries read-only views of host memory; the host guarantees (as
// with supraseal-c2) that the memory stays valid and unchanged for the duration of the call.
unsafe impl Send for Assignment {}
unsafe impl Sync for Assignment {}

/// A density bitvector: bit `i` says whether variable `i` appears in a query.
#[derive(Clone, Copy, Debug)]
pub struct Density<'a> {
    pub words: &'a [u64],
    pub bit_len: usize,
    pub popcount: usize,
}

impl<'a> Density<'a> {
    /// Wraps `words`, which must hold at least `bit_len` bits; `popcount` is checked.
    pub fn new(words: &'a [u64], bit_len: usize) -> Density<'a> {
        let popcount = count_ones(words, bit_len);
        Density {
            words,
            bit_len,
            popcount,
        }
    }

    pub fn get(&self, i: usize) -> bool {
        i < self.bit_len && (self.words[i / 64] >> (i % 64)) & 1 == 1
    }
}

/// Set bits among the first `bit_len` bits of `words`.
pub fn count_ones(words: &[u64], bit_len: usize) -> usize {
    let full = bit_len / 64;
    let mut n: usize = words[..full].iter().map(|w| w.count_ones() as usize).sum();
    if bit_len % 64 != 0 {
        n += (words[full] & ((1u64 << (bit_len % 64)) - 1)).count_ones() as usize;
    }
    n
}

/// A checked, borrowed view of one circuit's witness.
#[derive(Clone, Copy, Debug)]
pub struct Witness<'a> {
    /// Evaluations of the A, B, C polynomials over the domain (`abc_size` each, before padding).
    pub a: &'a [Scalar],
    pub b: &'a [Scalar],
    pub c: &'a [Scalar],
    /// Public inputs, the constant ONE first.
    pub inputs: &'a [Scalar],
    /// Private (auxiliary) variables.
    pub aux: &'a [Scalar],
    pub a_aux_density: Density<'a>,
    pub b_inp_density: Density<'a>,
    pub b_aux_density: Density<'a>,
}

fn words_for(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// Whether `len` elements of `T` can be one array in memory (at most `isize::MAX` bytes), as
/// `slice::from_raw_parts` requires. A larger size can only be a host bug.
pub(crate) fn fits_in_memory<T>(len: usize) -> bool {
    len.checked_mul(std::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= isize::MAX as usize)
}

/// Makes a slice from a host pointer, refusing NULL unless the slice is empty.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable, initialised `T`s that outlive `'a`.
unsafe fn host_slice<'a, T>(
    ptr: *const T,
    len: usize,
    what: &str,
    index: usize,
) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::circuit(
            index,
            format!("`{what}` is NULL but its size is {len}"),
        ));
    }
    if !fits_in_memory::<T>(len) {
        return Err(Error::circuit(
            index,
            format!("`{what}` has a size of {len}, more than fits in memory"),
        ));
    }
    if (ptr as usize) % std::mem::align_of::<T>() != 0 {
        return Err(Error::circuit(
            index,
            format!(
                "`{what}` is not aligned to {} bytes",
                std::mem::align_of::<T>()
            ),
        ));
    }
    Ok(std::slice::from_raw_parts(ptr, len))
}

impl Assignment {
    /// Checks the variable counts against the SRS from the size fields alone, before any host
    /// memory is read: a count that disagrees with the SRS is reported, not read past the
    /// host's buffers (the density bits are read to check their popcounts).
    pub(crate) fn check_sizes(&self, srs: &QueryCounts, index: usize) -> Result<()> {
        let (inp, aux) = (self.inp_assignment_size, self.aux_assignment_size);
        if srs.ic != inp {
            return Err(Error::circuit(index, format!(
                "inp_assignment_size is {inp} but the SRS verifying key has {} public inputs (ic points)",
                srs.ic
            )));
        }
        if srs.l != aux {
            return Err(Error::circuit(
                index,
                format!(
                    "aux_assignment_size is {aux} but the SRS's l query has {} points",
                    srs.l
                ),
            ));
        }
        Ok(())
    }

    /// Turns the host's raw struct into a view, checking pointers, bit lengths and popcounts.
    ///
    /// # Safety
    /// Every non-NULL pointer must point to as many elements as its size field says.
    pub unsafe fn view<'a>(&self, index: usize) -> Result<Witness<'a>> {
        // Bit lengths first, from the size fields: the bits are read (to count them) only
        // once they are known to cover exactly the variables the host says it has.
        let (inp, aux) = (self.inp_assignment_size, self.aux_assignment_size);
        if self.a_aux_bit_len != aux || self.b_aux_bit_len != aux {
            return Err(Error::circuit(
                index,
                format!(
                    "aux density lengths ({} for a, {} for b) differ from aux_assignment_size {aux}",
                    self.a_aux_bit_len, self.b_aux_bit_len
                ),
            ));
        }
        if self.b_inp_bit_len != inp {
            return Err(Error::circuit(
                index,
                format!(
                    "b_inp_bit_len {} differs from inp_assignment_size {inp}",
                    self.b_inp_bit_len
                ),
            ));
        }
        let density = |ptr: *const u64,
                       bit_len: usize,
                       popcount: usize,
                       what: &str|
         -> Result<Density<'a>> {
            let words = host_slice(ptr, words_for(bit_len), what, index)?;
            let d = Density::new(words, bit_len);
            if d.popcount != popcount {
                return Err(Error::circuit(
                    index,
                    format!("`{what}` has {} bits set among its {bit_len}, but its popcount field says {popcount}", d.popcount),
                ));
            }
            Ok(d)
        };
        let w = Witness {
            a: host_slice(self.a, self.abc_size, "a", index)?,
            b: host_slice(self.b, self.abc_size, "b", index)?,
            c: host_slice(self.c, self.abc_size, "c", index)?,
            inputs: host_slice(
                self.inp_assignment_data,
                self.inp_assignment_size,
                "inp_assignment_data",
                index,
            )?,
            aux: host_slice(
                self.aux_assignment_data,
                self.aux_assignment_size,
                "aux_assignment_data",
                index,
            )?,
            a_aux_density: density(
                self.a_aux_density,
                self.a_aux_bit_len,
                self.a_aux_popcount,
                "a_aux_density",
            )?,
            b_inp_density: density(
                self.b_inp_density,
                self.b_inp_bit_len,
                self.b_inp_popcount,
                "b_inp_density",
            )?,
            b_aux_density: density(
                self.b_aux_density,
                self.b_aux_bit_len,
                self.b_aux_popcount,
                "b_aux_density",
            )?,
        };
        Ok(w)
    }
}

impl Witness<'_> {
    /// The evaluation domain size: the smallest power of two holding `abc_size` values.
    pub fn domain_size(&self) -> usize {
        self.a.len().next_power_of_two()
    }

    /// Checks that this witness fits the SRS (docs/design.md, "The params file") and is
    /// internally consistent.
    pub(crate) fn check_against(&self, srs: &QueryCounts, index: usize) -> Result<()> {
        let fail = |reason: String| Err(Error::circuit(index, reason));
        let (inp, aux) = (self.inputs.len(), self.aux.len());
        if self.a.is_empty() {
            return fail(
                "abc_size is 0; a circuit has at least the input constraint of ONE".into(),
            );
        }
        if inp == 0 {
            return fail("inp_assignment_size is 0; the constant input ONE comes first".into());
        }
        if self.a_aux_density.bit_len != aux || self.b_aux_density.bit_len != aux {
            return fail(format!(
                "aux density lengths ({} for a, {} for b) differ from aux_assignment_size {aux}",
                self.a_aux_density.bit_len, self.b_aux_density.bit_len
            ));
        }
        if self.b_inp_density.bit_len != inp {
            return fail(format!(
                "b_inp_bit_len {} differs from inp_assignment_size {inp}",
                self.b_inp_density.bit_len
            ));
        }
        if srs.ic != inp {
            return fail(format!(
                "inp_assignment_size is {inp} but the SRS verifying key has {} public inputs (ic points)",
                srs.ic
            ));
        }
        if srs.l != aux {
            return fail(format!(
                "aux_assignment_size is {aux} but the SRS's l query has {} points",
                srs.l
            ));
        }
        let a_needed = inp + self.a_aux_density.popcount;
        if srs.a != a_needed {
            return fail(format!(
                "inputs ({inp}) + a_aux_popcount ({}) = {a_needed}, but the SRS's a query has {} points",
                self.a_aux_density.popcount,
                srs.a
            ));
        }
        let b_needed = self.b_inp_density.popcount + self.b_aux_density.popcount;
        if srs.b != b_needed {
            return fail(format!(
                "b_inp_popcount ({}) + b_aux_popcount ({}) = {b_needed}, but the SRS's b_g1/b_g2 queries have {} points",
                self.b_inp_density.popcount,
                self.b_aux_density.popcount,
                srs.b
            ));
        }
        let domain = self.domain_size();
        if srs.h + 1 != domain {
            return fail(format!(
                "abc_size {} needs a domain of {domain}, so an h query of {} points, but the SRS has {}",
                self.a.len(),
                domain - 1,
                srs.h
            ));
        }
        Ok(())
    }
}
