//! Bad input through the C ABI (NULL pointers, sizes that disagree with the SRS or each other,
//! missing, truncated or corrupt params files, a pending proof finalized twice) returns a
//! non-zero code and a message that names the problem, and the process stays healthy.

mod common;

use std::ffi::{c_void, CString};
use std::path::Path;

use blstrs::Scalar;
use common::*;
use ff::Field;
use groth16_c2::ffi::{self, SrsHandle};
use groth16_c2::testing::count_ones;
use groth16_c2::witness::RecordedWitness;
use groth16_c2::{Assignment, Proof, ProofTimings};

const ROUNDS: usize = 20;

/// A small circuit's params, its SRS through the C ABI and one valid witness.
struct Fixture {
    params: ParamsFile,
    srs: CSrs,
    witness: RecordedWitness,
    public: Vec<Scalar>,
}

fn mimc(seed: u64) -> MimcChain {
    MimcChain {
        start: Some(Scalar::from(seed + 2)),
        rounds: ROUNDS,
    }
}

fn fixture(seed: u64) -> Fixture {
    let params = params_file(
        MimcChain {
            start: None,
            rounds: ROUNDS,
        },
        seed,
    );
    let srs = CSrs::load(&params.path, false).unwrap();
    let c = mimc(seed);
    let public = vec![c.output()];
    Fixture {
        params,
        srs,
        witness: record(c),
        public,
    }
}

impl Fixture {
    fn assignment(&self) -> Assignment {
        self.witness.assignment()
    }

    fn prove(&self, a: Assignment) -> Result<Vec<Proof>, (i32, String)> {
        prove_raw(&self.srs, &[a], &[Scalar::ONE], &[Scalar::ONE])
    }

    /// Proving through both entry points fails with `needle` in the message.
    #[track_caller]
    fn expect_both(&self, a: Assignment, what: &str, needle: &str) -> i32 {
        let code = expect_err(self.prove(a), what, needle);
        let code2 = expect_err(
            start_raw(
                &self.srs,
                &[a],
                &[Scalar::ONE],
                &[Scalar::ONE],
                std::ptr::null_mut(),
                -1,
            ),
            &format!("{what} (start)"),
            needle,
        );
        assert_eq!(code, code2, "{what}: both entry points give one code");
        code
    }

    /// A fresh proof through the C ABI still succeeds and verifies (bellperson and ours).
    fn assert_healthy(&self) {
        let r = random_scalars(1, 77);
        let s = random_scalars(1, 78);
        let proofs = prove_c(&self.srs, &[&self.witness], &r, &s).expect("a valid proof fails");
        assert_verifies(&self.params, &proofs[0], &self.public);
        verify_c(&self.srs, &proofs[0], &self.public).unwrap();
        let pending = start_c(&self.srs, &[&self.witness], &r, &s, std::ptr::null_mut()).unwrap();
        assert_eq!(pending.finalize().unwrap(), proofs);
    }
}

fn null<T>() -> *const T {
    std::ptr::null()
}

fn c_path(p: &Path) -> CString {
    CString::new(p.as_os_str().as_encoded_bytes()).unwrap()
}

// ---------------------------------------------------------------------------------------------
// NULL pointer arguments

#[test]
fn null_pointer_arguments() {
    let f = fixture(1);
    let a = [f.assignment()];
    let (r, s) = ([Scalar::ONE], [Scalar::ONE]);
    let mut proofs = [zero_proof()];
    let path = c_path(&f.params.path);

    // create_SRS
    let e = unsafe { ffi::create_SRS(std::ptr::null_mut(), path.as_ptr(), false) };
    expect_err(take_error(e), "create_SRS(ret = NULL)", "`ret`");
    let mut h = SrsHandle {
        ptr: 0x10 as *const c_void,
    };
    let e = unsafe { ffi::create_SRS(&mut h, null(), false) };
    expect_err(take_error(e), "create_SRS(path = NULL)", "`path`");
    assert!(
        h.ptr.is_null(),
        "a failed create_SRS leaves an empty handle"
    );
    let e = unsafe { ffi::create_SRS(&mut h, null(), true) };
    expect_err(take_error(e), "create_SRS(path = NULL, cache)", "`path`");

    // generate_groth16_proofs_c
    let gen = |provers: *const Assignment,
               r: *const Scalar,
               s: *const Scalar,
               proofs: *mut Proof,
               srs: *const SrsHandle| {
        take_error(unsafe { call_generate(provers, 1, r, s, proofs, srs) })
    };
    let srs = &f.srs.0 as *const SrsHandle;
    let out = proofs.as_mut_ptr();
    expect_err(
        gen(null(), r.as_ptr(), s.as_ptr(), out, srs),
        "generate(provers = NULL)",
        "null pointer passed as `provers`",
    );
    expect_err(
        gen(a.as_ptr(), null(), s.as_ptr(), out, srs),
        "generate(r_s = NULL)",
        "null pointer passed as `r_s`",
    );
    expect_err(
        gen(a.as_ptr(), r.as_ptr(), null(), out, srs),
        "generate(s_s = NULL)",
        "null pointer passed as `s_s`",
    );
    expect_err(
        gen(
            a.as_ptr(),
            r.as_ptr(),
            s.as_ptr(),
            std::ptr::null_mut(),
            srs,
        ),
        "generate(proofs = NULL)",
        "null pointer passed as `proofs`",
    );
    expect_err(
        gen(a.as_ptr(), r.as_ptr(), s.as_ptr(), out, null()),
        "generate(srs = NULL)",
        "null pointer passed as `srs`",
    );

    // generate_groth16_proofs_start_c
    let lock = CLock::new();
    let start = |provers: *const Assignment,
                 r: *const Scalar,
                 s: *const Scalar,
                 srs: *const SrsHandle,
                 out: *mut *mut c_void| {
        take_error(unsafe {
            ffi::generate_groth16_proofs_start_c(provers, 1, r, s, srs, lock.0, 0, out)
        })
    };
    for (what, needle, provers, r_p, s_p, srs_p) in [
        ("provers", "`provers`", null(), r.as_ptr(), s.as_ptr(), srs),
        ("r_s", "`r_s`", a.as_ptr(), null(), s.as_ptr(), srs),
        ("s_s", "`s_s`", a.as_ptr(), r.as_ptr(), null(), srs),
        ("srs", "`srs`", a.as_ptr(), r.as_ptr(), s.as_ptr(), null()),
    ] {
        // A stale value in *pending_out must be overwritten with NULL on failure.
        let mut pending = 0x10 as *mut c_void;
        expect_err(
            start(provers, r_p, s_p, srs_p, &mut pending),
            &format!("start({what} = NULL)"),
            needle,
        );
        assert!(
            pending.is_null(),
            "start({what} = NULL) left *pending_out set"
        );
    }
    expect_err(
        start(
            a.as_ptr(),
            r.as_ptr(),
            s.as_ptr(),
            srs,
            std::ptr::null_mut(),
        ),
        "start(pending_out = NULL)",
        "`pending_out`",
    );
    // gpu_lock = NULL is not an error: it means the library's own lock.
    let pending = start_raw(&f.srs, &a, &r, &s, std::ptr::null_mut(), 0).unwrap();

    // finalize_groth16_proof_c
    let e = unsafe { ffi::finalize_groth16_proof_c(std::ptr::null_mut(), out) };
    expect_err(take_error(e), "finalize(pending = NULL)", "`pending`");
    let e = unsafe { ffi::finalize_groth16_proof_c(pending.ptr, std::ptr::null_mut()) };
    expect_err(take_error(e), "finalize(proofs = NULL)", "`proofs`");
    // The failed call did not consume the batch.
    let done = pending
        .finalize()
        .expect("finalize after a NULL-proofs call");
    assert_verifies(&f.params, &done[0], &f.public);

    // groth16_pending_timings
    let mut t = ProofTimings::default();
    let e = unsafe { ffi::groth16_pending_timings(null(), &mut t) };
    expect_err(
        take_error(e),
        "pending_timings(pending = NULL)",
        "`pending`",
    );
    let e = unsafe { ffi::groth16_pending_timings(pending.ptr, std::ptr::null_mut()) };
    expect_err(take_error(e), "pending_timings(out = NULL)", "`out`");
    assert!(!unsafe { ffi::groth16_c2_last_timings(std::ptr::null_mut()) });
    drop(pending);

    // verify_groth16_proof_c
    let p = &done[0] as *const Proof;
    let x = f.public.as_ptr();
    let verify = |srs: *const SrsHandle, p: *const Proof, x: *const Scalar, n: usize| {
        take_error(unsafe { ffi::verify_groth16_proof_c(srs, p, x, n) })
    };
    verify(srs, p, x, 1).unwrap();
    expect_err(verify(null(), p, x, 1), "verify(srs = NULL)", "`srs`");
    expect_err(verify(srs, null(), x, 1), "verify(proof = NULL)", "`proof`");
    expect_err(
        verify(srs, p, null(), 1),
        "verify(public_inputs = NULL)",
        "`public_inputs`",
    );
    expect_err(
        verify(srs, p, null(), 0),
        "verify(0 public inputs)",
        "0 public inputs given, the verifying key expects 1",
    );
    let wrong = [Scalar::from(5u64)];
    let code = expect_err(
        verify(srs, p, wrong.as_ptr(), 1),
        "verify(wrong public input)",
        "does not verify",
    );
    assert_eq!(code, 10);

    // The void functions take NULL (and empty handles) without crashing.
    unsafe {
        ffi::drop_SRS(std::ptr::null_mut());
        ffi::evict_SRS(null());
        ffi::destroy_pending_proof(std::ptr::null_mut());
        ffi::destroy_gpu_mutex(std::ptr::null_mut());
        let empty = ffi::clone_SRS(null());
        assert!(empty.ptr.is_null(), "clone_SRS(NULL) gives an empty handle");
        let mut empty = SrsHandle { ptr: null() };
        ffi::evict_SRS(&empty);
        ffi::drop_SRS(&mut empty);
        assert!(ffi::clone_SRS(&empty).ptr.is_null());
    }

    // A dropped handle is empty, and using it is an error, not a use-after-free.
    let mut dropped = f.srs.clone_handle();
    unsafe { ffi::drop_SRS(&mut dropped.0) };
    assert!(dropped.0.ptr.is_null(), "drop_SRS empties the handle");
    let code = expect_err(
        prove_raw(&dropped, &a, &r, &s),
        "prove with a dropped handle",
        "SRS handle is empty",
    );
    assert_eq!(code, 8);
    drop(dropped); // drop_SRS again on the emptied handle: a no-op

    f.assert_healthy();
}

// ---------------------------------------------------------------------------------------------
// Assignments: NULL data, sizes that disagree with the SRS or with each other

/// A copy of `words` with bit `i` flipped, and the new popcount of its first `bits` bits.
fn flip_bit(words: &[u64], i: usize, bits: usize) -> (Vec<u64>, usize) {
    let mut w = words.to_vec();
    w[i / 64] ^= 1 << (i % 64);
    let n = count_ones(&w, bits);
    (w, n)
}

#[test]
fn null_data_inside_an_assignment() {
    let f = fixture(2);
    type Setter = fn(&mut Assignment);
    let cases: [(&str, Setter); 8] = [
        ("a", |a| a.a = null()),
        ("b", |a| a.b = null()),
        ("c", |a| a.c = null()),
        ("inp_assignment_data", |a| a.inp_assignment_data = null()),
        ("aux_assignment_data", |a| a.aux_assignment_data = null()),
        ("a_aux_density", |a| a.a_aux_density = null()),
        ("b_inp_density", |a| a.b_inp_density = null()),
        ("b_aux_density", |a| a.b_aux_density = null()),
    ];
    for (name, set_null) in cases {
        let mut a = f.assignment();
        set_null(&mut a);
        let code = f.expect_both(
            a,
            &format!("{name} = NULL"),
            &format!("circuit 0: `{name}` is NULL but its size is"),
        );
        assert_eq!(code, 3);
    }
    // A misaligned pointer is refused rather than read.
    let mut a = f.assignment();
    a.aux_assignment_data = (a.aux_assignment_data as *const u8).wrapping_add(1) as *const Scalar;
    f.expect_both(a, "misaligned aux", "`aux_assignment_data` is not aligned");

    // num_circuits = 0, through both entry points.
    let a = [f.assignment()];
    let mut proofs = [zero_proof()];
    let e = unsafe {
        call_generate(
            a.as_ptr(),
            0,
            [Scalar::ONE].as_ptr(),
            [Scalar::ONE].as_ptr(),
            proofs.as_mut_ptr(),
            &f.srs.0,
        )
    };
    expect_err(
        take_error(e),
        "generate(num_circuits = 0)",
        "num_circuits is 0",
    );
    expect_err(
        start_raw(&f.srs, &[], &[], &[], std::ptr::null_mut(), -1),
        "start(num_circuits = 0)",
        "num_circuits is 0",
    );
    // Every negative gpu_index means "any GPU", as in Curio's fork: same proof as -1.
    let any = start_raw(
        &f.srs,
        &a,
        &[Scalar::ONE],
        &[Scalar::ONE],
        std::ptr::null_mut(),
        -1,
    )
    .unwrap()
    .finalize()
    .unwrap();
    for gpu_index in [-2, i32::MIN] {
        let proofs = start_raw(
            &f.srs,
            &a,
            &[Scalar::ONE],
            &[Scalar::ONE],
            std::ptr::null_mut(),
            gpu_index,
        )
        .unwrap_or_else(|e| panic!("start(gpu_index = {gpu_index}) failed: {e:?}"))
        .finalize()
        .unwrap();
        assert_eq!(
            proofs, any,
            "gpu_index {gpu_index} proves differently from -1"
        );
    }
    f.assert_healthy();
}

#[test]
fn sizes_that_disagree_with_the_srs() {
    let f = fixture(3);
    let w = &f.witness;
    let base = f.assignment();
    let (inp, aux) = (w.inputs.len(), w.aux.len());
    assert_eq!(inp, 2);

    // aux size vs the l query (densities shortened with it, so only l disagrees).
    let mut a = base;
    a.aux_assignment_size = aux - 1;
    a.a_aux_bit_len = aux - 1;
    a.a_aux_popcount = count_ones(w.a_aux_density.words(), aux - 1);
    a.b_aux_bit_len = aux - 1;
    a.b_aux_popcount = count_ones(w.b_aux_density.words(), aux - 1);
    f.expect_both(
        a,
        "aux size vs l",
        &format!(
            "circuit 0: aux_assignment_size is {} but the SRS's l query has {aux} points",
            aux - 1
        ),
    );

    // inp size vs ic.
    let mut a = base;
    a.inp_assignment_size = 1;
    a.b_inp_bit_len = 1;
    a.b_inp_popcount = count_ones(w.b_inp_density.words(), 1);
    f.expect_both(
        a,
        "inp size vs ic",
        "inp_assignment_size is 1 but the SRS verifying key has 2 public inputs (ic points)",
    );

    // a_aux popcount vs the a query: one more (or one fewer) aux variable in A.
    let set = (0..aux)
        .find(|&i| w.a_aux_density.words()[i / 64] >> (i % 64) & 1 == 1)
        .unwrap();
    let (words, pop) = flip_bit(w.a_aux_density.words(), set, aux);
    let mut a = base;
    a.a_aux_density = words.as_ptr();
    a.a_aux_popcount = pop;
    f.expect_both(
        a,
        "a_aux popcount vs a",
        &format!(
            "inputs ({inp}) + a_aux_popcount ({pop}) = {}, but the SRS's a query has {} points",
            inp + pop,
            inp + pop + 1
        ),
    );

    // b_inp and b_aux popcounts vs the b queries.
    let b_points = w.b_inp_density.popcount() + w.b_aux_density.popcount();
    let (words, pop) = flip_bit(w.b_inp_density.words(), 1, inp);
    let mut a = base;
    a.b_inp_density = words.as_ptr();
    a.b_inp_popcount = pop;
    f.expect_both(
        a,
        "b_inp popcount vs b",
        &format!("but the SRS's b_g1/b_g2 queries have {b_points} points"),
    );
    let (words, pop) = flip_bit(w.b_aux_density.words(), 0, aux);
    let mut a = base;
    a.b_aux_density = words.as_ptr();
    a.b_aux_popcount = pop;
    f.expect_both(
        a,
        "b_aux popcount vs b",
        &format!("b_aux_popcount ({pop}) = "),
    );

    // abc_size vs the h query: too small, too large (with real, zero-padded buffers), zero.
    let h = (w.a.len().next_power_of_two()) - 1;
    assert_eq!(h, 63);
    let mut a = base;
    a.abc_size = 32;
    f.expect_both(
        a,
        "abc_size too small",
        &format!(
            "abc_size 32 needs a domain of 32, so an h query of 31 points, but the SRS has {h}"
        ),
    );
    let padded: Vec<Scalar> =
        w.a.iter()
            .copied()
            .chain(std::iter::repeat(Scalar::ZERO))
            .take(65)
            .collect();
    let mut a = base;
    (a.a, a.b, a.c, a.abc_size) = (padded.as_ptr(), padded.as_ptr(), padded.as_ptr(), 65);
    f.expect_both(
        a,
        "abc_size too large",
        "abc_size 65 needs a domain of 128, so an h query of 127 points",
    );
    let mut a = base;
    a.abc_size = 0;
    f.expect_both(a, "abc_size 0", "abc_size is 0");
    let mut a = base;
    a.inp_assignment_size = 0;
    f.expect_both(a, "no inputs", "inp_assignment_size is 0");

    // Density bit lengths that disagree with the variable counts.
    let mut a = base;
    a.a_aux_bit_len = aux - 1;
    a.a_aux_popcount = count_ones(w.a_aux_density.words(), aux - 1);
    f.expect_both(
        a,
        "a_aux_bit_len",
        &format!(
            "aux density lengths ({} for a, {aux} for b) differ from aux_assignment_size {aux}",
            aux - 1
        ),
    );
    let mut a = base;
    a.b_aux_bit_len = aux - 1;
    a.b_aux_popcount = count_ones(w.b_aux_density.words(), aux - 1);
    f.expect_both(
        a,
        "b_aux_bit_len",
        &format!("aux density lengths ({aux} for a, {} for b)", aux - 1),
    );
    let mut a = base;
    a.b_inp_bit_len = 1;
    a.b_inp_popcount = count_ones(w.b_inp_density.words(), 1);
    f.expect_both(
        a,
        "b_inp_bit_len",
        "b_inp_bit_len 1 differs from inp_assignment_size 2",
    );
    // A bit length no buffer could hold is refused from the sizes alone, never read.
    let mut a = base;
    a.a_aux_bit_len = usize::MAX / 2;
    f.expect_both(a, "huge a_aux_bit_len", "aux density lengths");
    let mut a = base;
    a.b_inp_bit_len = usize::MAX;
    f.expect_both(a, "huge b_inp_bit_len", "b_inp_bit_len");
    // Sizes beyond what the host's buffers hold are refused before anything is read.
    let mut a = base;
    a.aux_assignment_size = usize::MAX;
    a.a_aux_bit_len = usize::MAX;
    a.b_aux_bit_len = usize::MAX;
    f.expect_both(
        a,
        "huge aux size",
        &format!(
            "aux_assignment_size is {} but the SRS's l query has {aux} points",
            usize::MAX
        ),
    );
    let mut a = base;
    a.abc_size = usize::MAX;
    f.expect_both(a, "huge abc_size", "`a` has a size of 18446744073709551615");

    // Popcount fields that do not match their bits.
    for (name, bump) in [
        (
            "a_aux_density",
            (|a: &mut Assignment| a.a_aux_popcount += 1) as fn(&mut Assignment),
        ),
        ("b_inp_density", |a| a.b_inp_popcount += 1),
        ("b_aux_density", |a| a.b_aux_popcount -= 1),
    ] {
        let mut a = base;
        bump(&mut a);
        f.expect_both(a, &format!("{name} popcount"), &format!("`{name}` has "));
        let msg = f.prove(a).unwrap_err().1;
        assert!(msg.contains("but its popcount field says"), "{msg}");
    }

    f.assert_healthy();
}

#[test]
fn circuits_of_one_batch_that_disagree() {
    let f = fixture(4);
    let good = f.assignment();
    let other = record(MimcChain {
        start: Some(Scalar::from(3u64)),
        rounds: ROUNDS + 5,
    });
    let (r, s) = (random_scalars(3, 1), random_scalars(3, 2));

    // Circuit 1 comes from a larger circuit: its sizes disagree with circuit 0's and the SRS's.
    expect_err(
        prove_raw(&f.srs, &[good, other.assignment()], &r[..2], &s[..2]),
        "batch [good, larger]",
        "circuit 1: ",
    );
    // Circuit 2 has one aux variable fewer than the others.
    let mut short = good;
    short.aux_assignment_size -= 1;
    short.a_aux_bit_len -= 1;
    short.b_aux_bit_len -= 1;
    short.a_aux_popcount = count_ones(f.witness.a_aux_density.words(), short.a_aux_bit_len);
    short.b_aux_popcount = count_ones(f.witness.b_aux_density.words(), short.b_aux_bit_len);
    let code = expect_err(
        prove_raw(&f.srs, &[good, good, short], &r, &s),
        "batch [good, good, short]",
        "circuit 2: aux_assignment_size",
    );
    assert_eq!(code, 3);
    expect_err(
        start_raw(
            &f.srs,
            &[good, short, good],
            &r,
            &s,
            std::ptr::null_mut(),
            -1,
        ),
        "start [good, short, good]",
        "circuit 1: aux_assignment_size",
    );
    // Circuit 1 with a NULL pointer.
    let mut nul = good;
    nul.c = null();
    expect_err(
        prove_raw(&f.srs, &[good, nul], &r[..2], &s[..2]),
        "batch [good, NULL c]",
        "circuit 1: `c` is NULL",
    );
    // The good batch still proves.
    let proofs = prove_raw(&f.srs, &[good, good, good], &r, &s).unwrap();
    for p in &proofs {
        assert_verifies(&f.params, p, &f.public);
    }
    f.assert_healthy();
}

#[test]
fn absurd_num_circuits() {
    let f = fixture(5);
    let a = [f.assignment()];
    let mut proofs = [zero_proof()];
    // SIZE_MAX, and 2^40 with a one-element array: refused before any Assignment past the
    // first is read.
    for (count, what) in [(usize::MAX, "SIZE_MAX"), (1 << 40, "2^40")] {
        let e = unsafe {
            call_generate(
                a.as_ptr(),
                count,
                [Scalar::ONE].as_ptr(),
                [Scalar::ONE].as_ptr(),
                proofs.as_mut_ptr(),
                &f.srs.0,
            )
        };
        expect_err(
            take_error(e),
            &format!("num_circuits = {what}"),
            "at most 4096 circuits",
        );
    }
    f.assert_healthy();
}

// ---------------------------------------------------------------------------------------------
// Params files: missing, empty, truncated, corrupt

/// Byte offsets in a params file: where each counted section's count field starts.
struct Offsets {
    sections: Vec<(&'static str, usize, usize, usize)>, // (name, count offset, count, point size)
    len: usize,
}

const VK_FIXED: usize = 3 * 96 + 3 * 192;

fn offsets(bytes: &[u8]) -> Offsets {
    let mut at = VK_FIXED;
    let mut sections = Vec::new();
    for (name, size) in [
        ("ic", 96),
        ("h", 96),
        ("l", 96),
        ("a", 96),
        ("b_g1", 96),
        ("b_g2", 192),
    ] {
        let count = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        sections.push((name, at, count, size));
        at += 4 + count * size;
    }
    assert_eq!(at, bytes.len(), "the reference file parses");
    Offsets {
        sections,
        len: bytes.len(),
    }
}

impl Offsets {
    fn section(&self, name: &str) -> (usize, usize, usize) {
        let &(_, at, count, size) = self.sections.iter().find(|s| s.0 == name).unwrap();
        (at, count, size)
    }

    /// Byte offset of point `i` of section `name`.
    fn point(&self, name: &str, i: usize) -> usize {
        let (at, count, size) = self.section(name);
        assert!(i < count);
        at + 4 + i * size
    }
}

/// Writes `bytes` as a params file in `dir` and loads it, cached and not, through the C ABI.
/// Both loads must fail with `needle`; returns the error code.
#[track_caller]
fn expect_load_error(dir: &Path, name: &str, bytes: &[u8], needle: &str) -> i32 {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let code = expect_err(CSrs::load(&path, false), name, needle);
    let cached = expect_err(CSrs::load(&path, true), &format!("{name} (cached)"), needle);
    assert_eq!(code, cached);
    assert!(
        !groth16_c2::srs::cached_paths().contains(&std::fs::canonicalize(&path).unwrap()),
        "{name}: a failed load stays in the cache"
    );
    let msg = CSrs::load(&path, false).err().unwrap().1;
    assert!(
        msg.contains(&*path.to_string_lossy()),
        "{name}: the message names the file: {msg}"
    );
    code
}

#[test]
fn missing_empty_and_unreadable_files() {
    let f = fixture(6);
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("does-not-exist.params");
    for cache in [false, true] {
        let code = expect_err(
            CSrs::load(&missing, cache),
            "missing file",
            &format!("cannot read params file {}", missing.display()),
        );
        assert_eq!(code, 4);
        expect_err(
            CSrs::load(dir.path(), cache),
            "a directory",
            "cannot read params file",
        );
    }
    let code = expect_load_error(dir.path(), "empty.params", &[], "the file is empty");
    assert_eq!(code, 5);
    let mut h = SrsHandle { ptr: null() };
    let p = c_path(&missing);
    let e = unsafe { ffi::create_SRS(&mut h, p.as_ptr(), true) };
    expect_err(take_error(e), "create_SRS(missing)", "No such file");
    assert!(h.ptr.is_null());
    f.assert_healthy();
}

#[test]
fn truncated_files() {
    let f = fixture(7);
    let bytes = std::fs::read(&f.params.path).unwrap();
    let o = offsets(&bytes);
    let dir = tempfile::tempdir().unwrap();

    expect_load_error(
        dir.path(),
        "vk.params",
        &bytes[..VK_FIXED / 2],
        "truncated in the verifying key",
    );
    for &(name, at, count, size) in &o.sections {
        assert!(count > 0, "section {name} is empty in the reference file");
        // Inside the count field.
        expect_load_error(
            dir.path(),
            &format!("{name}-count.params"),
            &bytes[..at + 2],
            &format!("truncated before the point count of section `{name}`"),
        );
        // Inside the points: half of them and a few bytes more.
        let half = count / 2;
        let cut = at + 4 + half * size + size / 3;
        expect_load_error(
            dir.path(),
            &format!("{name}-points.params"),
            &bytes[..cut],
            &format!("truncated in section `{name}`: expected {count} points, the file ends after {half}"),
        );
    }
    // Cut by one byte at the very end (inside b_g2's last point).
    let (_, count, _) = o.section("b_g2");
    expect_load_error(
        dir.path(),
        "last-byte.params",
        &bytes[..o.len - 1],
        &format!(
            "truncated in section `b_g2`: expected {count} points, the file ends after {}",
            count - 1
        ),
    );
    // And the reverse: bytes after the last section.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 5]);
    expect_load_error(
        dir.path(),
        "trailing.params",
        &longer,
        "5 unexpected bytes after the last section",
    );
    f.assert_healthy();
}

#[test]
fn corrupt_points_and_counts() {
    let f = fixture(8);
    let bytes = std::fs::read(&f.params.path).unwrap();
    let o = offsets(&bytes);
    let dir = tempfile::tempdir().unwrap();
    let edit = |at: usize, patch: &dyn Fn(&mut [u8])| {
        let mut b = bytes.clone();
        patch(&mut b[at..]);
        b
    };
    // Flipping the last byte of y moves a point off the curve (x, y stay below the modulus).
    let off_curve = |p: &mut [u8], size: usize| p[size - 1] ^= 0x01;

    for (section, index, size) in [
        ("l", 3, 96),
        ("h", 0, 96),
        ("a", 1, 96),
        ("ic", 1, 96),
        ("b_g2", 2, 192),
    ] {
        let at = o.point(section, index);
        let code = expect_load_error(
            dir.path(),
            &format!("{section}-off-curve.params"),
            &edit(at, &|p| off_curve(p, size)),
            &format!("point {index} of section `{section}` is not on the curve"),
        );
        assert_eq!(code, 6);
    }
    // The verifying key's fixed points: alpha_g1 at 0, beta_g2 at 192.
    expect_load_error(
        dir.path(),
        "alpha-off-curve.params",
        &edit(0, &|p| off_curve(p, 96)),
        "section `alpha_g1` is not on the curve",
    );
    expect_load_error(
        dir.path(),
        "beta-g2-off-curve.params",
        &edit(2 * 96, &|p| off_curve(p, 192)),
        "section `beta_g2` is not on the curve",
    );
    // The compression flag, on a G1 and a G2 point.
    expect_load_error(
        dir.path(),
        "b_g1-compressed.params",
        &edit(o.point("b_g1", 0), &|p| p[0] |= 0x80),
        "point 0 of section `b_g1` has the compression flag set",
    );
    expect_load_error(
        dir.path(),
        "b_g2-compressed.params",
        &edit(o.point("b_g2", 1), &|p| p[0] |= 0x80),
        "point 1 of section `b_g2` has the compression flag set",
    );
    // The point at infinity in h (bellperson's reader refuses it too).
    expect_load_error(
        dir.path(),
        "h-infinity.params",
        &edit(o.point("h", 5), &|p| {
            p[..96].fill(0);
            p[0] = 0x40;
        }),
        "point 5 of section `h` is the point at infinity",
    );
    // A coordinate not below the field modulus.
    expect_load_error(
        dir.path(),
        "a-bad-encoding.params",
        &edit(o.point("a", 0), &|p| p[..48].fill(0x1f)),
        "point 0 of section `a` has a bad encoding",
    );
    // Counts that overflow the file.
    for name in ["ic", "h", "b_g2"] {
        let (at, _, _) = o.section(name);
        expect_load_error(
            dir.path(),
            &format!("{name}-count-overflow.params"),
            &edit(at, &|p| p[..4].copy_from_slice(&u32::MAX.to_be_bytes())),
            &format!("truncated in section `{name}`: expected 4294967295 points"),
        );
    }
    // delta = infinity loads (verifying-key points may be infinity) but cannot prove.
    let delta_g1 = 2 * 96 + 2 * 192;
    let path = dir.path().join("delta-infinity.params");
    std::fs::write(
        &path,
        edit(delta_g1, &|p| {
            p[..96].fill(0);
            p[0] = 0x40;
        }),
    )
    .unwrap();
    let bad = CSrs::load(&path, false).unwrap();
    let code = expect_err(
        prove_c(&bad, &[&f.witness], &[Scalar::ONE], &[Scalar::ONE]),
        "delta_g1 = infinity",
        "delta is the identity",
    );
    assert_eq!(code, 7);

    // A failed cached load is not remembered: fixing the file makes the next load succeed.
    let path = dir.path().join("fixed-later.params");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    expect_err(
        CSrs::load(&path, true),
        "half a file (cached)",
        "truncated in section",
    );
    std::fs::write(&path, &bytes).unwrap();
    let fixed = CSrs::load(&path, true).expect("the repaired file loads");
    let proofs = prove_c(&fixed, &[&f.witness], &[Scalar::ONE], &[Scalar::ONE]).unwrap();
    assert_verifies(&f.params, &proofs[0], &f.public);
    unsafe { ffi::evict_SRS(&fixed.0) };

    f.assert_healthy();
}

// ---------------------------------------------------------------------------------------------
// Handles used twice

#[test]
fn made_up_and_destroyed_handles() {
    let f = fixture(10);
    let mut proofs = vec![zero_proof(); 1];
    let bogus = 0xdead_beef_usize as *mut std::ffi::c_void;
    let e = unsafe { ffi::finalize_groth16_proof_c(bogus, proofs.as_mut_ptr()) };
    expect_err(take_error(e), "finalize(made-up handle)", "not live");
    ffi::destroy_pending_proof(bogus);
    let pending = start_c(
        &f.srs,
        &[&f.witness],
        &[Scalar::ONE],
        &[Scalar::ONE],
        std::ptr::null_mut(),
    )
    .unwrap();
    ffi::destroy_pending_proof(pending.ptr);
    expect_err(pending.finalize(), "finalize after destroy", "not live");
    drop(pending);
    f.assert_healthy();
}

#[test]
fn finalize_twice() {
    let f = fixture(9);
    let pending = start_c(
        &f.srs,
        &[&f.witness],
        &[Scalar::ONE],
        &[Scalar::ONE],
        std::ptr::null_mut(),
    )
    .unwrap();
    let first = pending.finalize().unwrap();
    assert_verifies(&f.params, &first[0], &f.public);
    let code = expect_err(pending.finalize(), "second finalize", "not live");
    assert_eq!(code, 8);
    // The handle is consumed: its timings are gone with it, the thread's last timings are not.
    expect_err(pending.timings(), "timings after finalize", "not live");
    let mut t = groth16_c2::ProofTimings::default();
    assert!(unsafe { groth16_c2::ffi::groth16_c2_last_timings(&mut t) });
    assert_eq!(t.num_circuits, 1);
    assert!(t.total_ms > 0.0);
    // Destroying a finalized handle (Curio's hosts do not, others do) is harmless.
    drop(pending);
    f.assert_healthy();
}

#[test]
fn timed_finalize_and_abi_form() {
    let expected = if cfg!(feature = "cuzk-abi") { 8 } else { 6 };
    assert_eq!(ffi::groth16_c2_abi_arguments(), expected);
    let f = fixture(12);
    let pending = start_c(
        &f.srs,
        &[&f.witness],
        &[Scalar::ONE],
        &[Scalar::ONE],
        std::ptr::null_mut(),
    )
    .unwrap();
    let mut proofs = vec![zero_proof(); 1];
    let mut t = ProofTimings::default();
    let e =
        unsafe { ffi::finalize_groth16_proof_timed_c(pending.ptr, proofs.as_mut_ptr(), &mut t) };
    take_error(e).unwrap();
    assert_eq!(t.num_circuits, 1);
    assert!(
        t.total_ms >= t.gpu_total_ms && t.gpu_total_ms > 0.0,
        "{t:?}"
    );
    assert_verifies(&f.params, &proofs[0], &f.public);
    assert_eq!(
        ffi::GROTH16_C2_ERR_INVALID_HANDLE,
        expect_err(
            pending.finalize(),
            "finalize after timed finalize",
            "not live"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Found by a new user's first tries

/// `x · x = y`, both private: no public input besides ONE.
struct NoPublicInputs {
    x: Option<Scalar>,
}

impl bellpepper_core::Circuit<Scalar> for NoPublicInputs {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        use bellpepper_core::SynthesisError::AssignmentMissing;
        let x = cs.alloc(|| "x", || self.x.ok_or(AssignmentMissing))?;
        let y = cs.alloc(
            || "y",
            || self.x.map(|x| x.square()).ok_or(AssignmentMissing),
        )?;
        cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        Ok(())
    }
}

/// A circuit with no public input besides ONE proves with the default check on, its proof
/// verifies through `verify_groth16_proof_c(srs, proof, NULL, 0)`, and bellperson agrees.
#[test]
fn circuits_without_public_inputs_prove_and_verify() {
    let params = params_file(NoPublicInputs { x: None }, 21);
    let srs = CSrs::load(&params.path, false).unwrap();
    let w = record(NoPublicInputs {
        x: Some(Scalar::from(7u64)),
    });
    let proofs = prove_c(&srs, &[&w], &[Scalar::from(3u64)], &[Scalar::from(5u64)])
        .expect("proved and checked by the library");
    let verdict =
        take_error(unsafe { ffi::verify_groth16_proof_c(&srs.0, &proofs[0], std::ptr::null(), 0) });
    assert_eq!(verdict, Ok(()));
    assert_verifies(&params, &proofs[0], &[]);
}

/// `create_SRS` on a FIFO with no writer returns an error at once instead of waiting forever;
/// so do other files that are not regular files.
#[test]
fn a_fifo_or_device_is_not_a_params_file() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("srs.fifo");
    let c = c_path(&fifo);
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(CSrs::load(&fifo, false).err());
    });
    let outcome = receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("create_SRS on a FIFO returned within 20 s");
    let (code, msg) = outcome.expect("a FIFO is refused");
    assert_eq!(code, ffi::GROTH16_C2_ERR_MALFORMED_PARAMS, "{msg}");
    assert!(msg.contains("not a regular file"), "{msg}");
    let (_, msg) = CSrs::load(Path::new("/dev/null"), true).err().unwrap();
    assert!(msg.contains("not a regular file"), "{msg}");
}

/// A point at infinity in `ic` is refused, as bellperson's reader refuses it.
#[test]
fn infinity_in_ic_is_refused() {
    let f = fixture(22);
    let mut bytes = std::fs::read(&f.params.path).unwrap();
    let at = offsets(&bytes).point("ic", 1);
    bytes[at..at + 96].fill(0);
    bytes[at] = 0x40;
    let dir = tempfile::tempdir().unwrap();
    expect_load_error(
        dir.path(),
        "ic-infinity.params",
        &bytes,
        "is the point at infinity",
    );
    let msg = CSrs::load(&dir.path().join("ic-infinity.params"), false)
        .err()
        .unwrap()
        .1;
    assert!(msg.contains("point 1 of section `ic`"), "{msg}");
    f.assert_healthy();
}

/// A params file that another writer truncates while `create_SRS` reads it gives an error
/// through the C ABI (or, if the truncation lands after the read, a complete SRS), never a
/// signal, with and without the SRS cache; the library keeps proving afterwards.
#[test]
fn a_params_file_truncated_during_create_srs_is_an_error() {
    let f = fixture(23);
    let dir = tempfile::tempdir().unwrap();
    let master = dir.path().join("master.params");
    write_params(&master, &pool(64), LARGE_COUNTS);
    for cache in [false, true] {
        let copies = tempfile::tempdir().unwrap();
        race_truncation(&master, copies.path(), |path, full| {
            match CSrs::load(path, cache) {
                Ok(_) => Outcome::Loaded,
                Err((code, msg)) => {
                    assert_eq!(code, ffi::GROTH16_C2_ERR_MALFORMED_PARAMS, "{msg}");
                    classify_truncation(&msg, path, full)
                }
            }
        });
    }
    f.assert_healthy();
}
