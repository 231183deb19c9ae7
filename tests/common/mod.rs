//! Shared test support: reference circuits, bellperson params written to temp files, and
//! safe wrappers around the C ABI so tests exercise exactly what hosts call.
#![allow(dead_code)]

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

use bellpepper_core::Circuit;
use bellperson::groth16::{self, Parameters};
use blstrs::{Bls12, Scalar};
use ff::Field;
use groth16_c2::ffi::{CError, SrsHandle};
use groth16_c2::witness::{RecordedWitness, WitnessRecorder};
use groth16_c2::{Assignment, Proof};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

mod circuits;
/// GPU tests' support: visible skips, turns on the device, round trips (CUDA builds only).
#[cfg(groth16_c2_cuda)]
pub mod gpu;
#[allow(unused_imports)]
pub use bench_support::synthetic_params::*;
#[allow(unused_imports)]
pub use circuits::*;

// ---------------------------------------------------------------------------------------------
// Params

/// A bellperson params file in a temp dir that lives as long as this value.
pub struct ParamsFile {
    pub params: Parameters<Bls12>,
    pub path: PathBuf,
    _dir: tempfile::TempDir,
}

/// Generates params for `blank` with bellperson and writes them with `Parameters::write`.
pub fn params_file<C: Circuit<Scalar>>(blank: C, seed: u64) -> ParamsFile {
    let params = groth16::generate_random_parameters::<Bls12, _, _>(blank, &mut rng(seed)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("circuit.params");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    params.write(&mut f).unwrap();
    drop(f);
    ParamsFile {
        params,
        path,
        _dir: dir,
    }
}

// ---------------------------------------------------------------------------------------------
// The C ABI, wrapped

/// Turns a C error into `Ok` or `(code, message)`, freeing the message as hosts do.
pub fn take_error(e: CError) -> Result<(), (i32, String)> {
    if e.code == 0 {
        assert!(e.message.is_null());
        return Ok(());
    }
    assert!(!e.message.is_null(), "errors carry a message");
    // SAFETY: the library returns a NUL-terminated malloc'ed string.
    let msg = unsafe { CStr::from_ptr(e.message) }
        .to_string_lossy()
        .into_owned();
    unsafe { libc::free(e.message.cast()) };
    Err((e.code, msg))
}

/// An SRS handle dropped with `drop_SRS`.
pub struct CSrs(pub SrsHandle);

impl CSrs {
    pub fn load(path: &Path, cache: bool) -> Result<CSrs, (i32, String)> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let mut h = SrsHandle {
            ptr: std::ptr::null(),
        };
        take_error(unsafe { groth16_c2::ffi::create_SRS(&mut h, c.as_ptr(), cache) })?;
        assert!(!h.ptr.is_null());
        Ok(CSrs(h))
    }

    pub fn clone_handle(&self) -> CSrs {
        CSrs(unsafe { groth16_c2::ffi::clone_SRS(&self.0) })
    }
}

impl Drop for CSrs {
    fn drop(&mut self) {
        unsafe { groth16_c2::ffi::drop_SRS(&mut self.0) };
    }
}

/// `generate_groth16_proofs_c` over recorded witnesses.
pub fn prove_c(
    srs: &CSrs,
    witnesses: &[&RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
) -> Result<Vec<Proof>, (i32, String)> {
    let assignments: Vec<Assignment> = witnesses.iter().map(|w| w.assignment()).collect();
    prove_raw(srs, &assignments, r, s)
}

/// `generate_groth16_proofs_c` over raw assignments (for bad-input tests).
pub fn prove_raw(
    srs: &CSrs,
    assignments: &[Assignment],
    r: &[Scalar],
    s: &[Scalar],
) -> Result<Vec<Proof>, (i32, String)> {
    let mut proofs = vec![zero_proof(); assignments.len()];
    take_error(unsafe {
        call_generate(
            assignments.as_ptr(),
            assignments.len(),
            r.as_ptr(),
            s.as_ptr(),
            proofs.as_mut_ptr(),
            &srs.0,
        )
    })?;
    Ok(proofs)
}

/// Calls whichever form of `generate_groth16_proofs_c` this build exports.
///
/// # Safety
/// As the C function.
pub unsafe fn call_generate(
    provers: *const Assignment,
    n: usize,
    r: *const Scalar,
    s: *const Scalar,
    proofs: *mut Proof,
    srs: *const SrsHandle,
) -> CError {
    #[cfg(not(feature = "cuzk-abi"))]
    return groth16_c2::ffi::generate_groth16_proofs_c(provers, n, r, s, proofs, srs);
    #[cfg(feature = "cuzk-abi")]
    return groth16_c2::ffi::generate_groth16_proofs_c(
        provers,
        n,
        r,
        s,
        proofs,
        srs,
        std::ptr::null_mut(),
        -1,
    );
}

pub fn zero_proof() -> Proof {
    // SAFETY: all-zero bytes are the identity points of each coordinate type.
    unsafe { std::mem::zeroed() }
}

/// Our proof as bellperson's type.
pub fn to_bellperson(p: &Proof) -> groth16::Proof<Bls12> {
    groth16::Proof {
        a: p.a,
        b: p.b,
        c: p.c,
    }
}

/// bellperson's serialized proof bytes.
pub fn proof_bytes(p: &groth16::Proof<Bls12>) -> Vec<u8> {
    let mut v = Vec::new();
    p.write(&mut v).unwrap();
    v
}

/// Records a circuit's witness as bellperson does.
pub fn record<C: Circuit<Scalar>>(c: C) -> RecordedWitness {
    WitnessRecorder::record(c).unwrap()
}

pub fn random_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    let mut r = rng(seed);
    (0..n).map(|_| Scalar::random(&mut r)).collect()
}

// ---------------------------------------------------------------------------------------------
// More of the C ABI, wrapped: the split form, caller-owned locks, verification

// SAFETY: an SRS handle is a reference-counted pointer to immutable data; the library's
// functions take it by `const` pointer from any thread (hosts share one handle between workers).
unsafe impl Send for CSrs {}
unsafe impl Sync for CSrs {}

/// Asserts that `r` failed with a non-zero code and a message containing `needle`; returns the
/// code.
#[track_caller]
pub fn expect_err<T>(r: Result<T, (i32, String)>, what: &str, needle: &str) -> i32 {
    match r {
        Ok(_) => panic!("{what}: expected an error mentioning {needle:?}, but the call succeeded"),
        Err((code, msg)) => {
            assert_ne!(code, 0, "{what}: an error with code 0 ({msg})");
            assert!(
                msg.contains(needle),
                "{what}: the message {msg:?} does not mention {needle:?}"
            );
            code
        }
    }
}

/// A lock from `create_gpu_mutex`, destroyed on drop.
pub struct CLock(pub *mut std::ffi::c_void);

// SAFETY: the lock is a mutex meant to be shared by the workers of one GPU.
unsafe impl Send for CLock {}
unsafe impl Sync for CLock {}

impl CLock {
    pub fn new() -> CLock {
        let p = groth16_c2::ffi::create_gpu_mutex();
        assert!(!p.is_null());
        CLock(p)
    }
}

impl Default for CLock {
    fn default() -> Self {
        CLock::new()
    }
}

impl Drop for CLock {
    fn drop(&mut self) {
        unsafe { groth16_c2::ffi::destroy_gpu_mutex(self.0) };
    }
}

/// A pending batch from `generate_groth16_proofs_start_c`, destroyed on drop.
pub struct CPending {
    pub ptr: *mut std::ffi::c_void,
    pub circuits: usize,
}

// SAFETY: a pending handle owns its data and guards it with a mutex; a host may finalize it on
// another thread than the one that started it.
unsafe impl Send for CPending {}

impl CPending {
    /// `finalize_groth16_proof_c` into a fresh proof array.
    pub fn finalize(&self) -> Result<Vec<Proof>, (i32, String)> {
        let mut proofs = vec![zero_proof(); self.circuits];
        take_error(unsafe {
            groth16_c2::ffi::finalize_groth16_proof_c(self.ptr, proofs.as_mut_ptr())
        })?;
        Ok(proofs)
    }

    /// `groth16_pending_timings`.
    pub fn timings(&self) -> Result<groth16_c2::ProofTimings, (i32, String)> {
        let mut t = groth16_c2::ProofTimings::default();
        take_error(unsafe { groth16_c2::ffi::groth16_pending_timings(self.ptr, &mut t) })?;
        Ok(t)
    }

    /// Gives the raw handle up without destroying it.
    pub fn into_raw(self) -> *mut std::ffi::c_void {
        let p = self.ptr;
        std::mem::forget(self);
        p
    }
}

impl Drop for CPending {
    fn drop(&mut self) {
        groth16_c2::ffi::destroy_pending_proof(self.ptr);
    }
}

/// `generate_groth16_proofs_start_c` over raw assignments; `lock` may be NULL (the library's).
pub fn start_raw(
    srs: &CSrs,
    assignments: &[Assignment],
    r: &[Scalar],
    s: &[Scalar],
    lock: *mut std::ffi::c_void,
    gpu_index: i32,
) -> Result<CPending, (i32, String)> {
    let mut pending = std::ptr::null_mut();
    take_error(unsafe {
        groth16_c2::ffi::generate_groth16_proofs_start_c(
            assignments.as_ptr(),
            assignments.len(),
            r.as_ptr(),
            s.as_ptr(),
            &srs.0,
            lock,
            gpu_index,
            &mut pending,
        )
    })?;
    assert!(
        !pending.is_null(),
        "start succeeded without a pending handle"
    );
    Ok(CPending {
        ptr: pending,
        circuits: assignments.len(),
    })
}

/// `generate_groth16_proofs_start_c` over recorded witnesses.
pub fn start_c(
    srs: &CSrs,
    witnesses: &[&RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
    lock: *mut std::ffi::c_void,
) -> Result<CPending, (i32, String)> {
    let assignments: Vec<Assignment> = witnesses.iter().map(|w| w.assignment()).collect();
    start_raw(srs, &assignments, r, s, lock, -1)
}

/// `verify_groth16_proof_c`.
pub fn verify_c(srs: &CSrs, proof: &Proof, public_inputs: &[Scalar]) -> Result<(), (i32, String)> {
    take_error(unsafe {
        groth16_c2::ffi::verify_groth16_proof_c(
            &srs.0,
            proof,
            public_inputs.as_ptr(),
            public_inputs.len(),
        )
    })
}

/// Checks `proof` with bellperson's own verifier.
#[track_caller]
pub fn assert_verifies(params: &ParamsFile, proof: &Proof, public_inputs: &[Scalar]) {
    let pvk = groth16::prepare_verifying_key(&params.params.vk);
    assert!(
        groth16::verify_proof(&pvk, &to_bellperson(proof), public_inputs).unwrap(),
        "bellperson rejects the proof"
    );
}
