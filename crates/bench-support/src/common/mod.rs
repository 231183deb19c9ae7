//! Code the examples share: a tiny flag parser, the on-disk params cache for the synthetic
//! PoRep-shaped circuit, and safe wrappers around the C ABI calls they make.

use std::ffi::{CStr, CString};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blstrs::Bls12;
use groth16_c2::ffi::{CError, SrsHandle};
use groth16_c2::{Assignment, Proof};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::synthetic::PorepShapedCircuit;

pub mod setup;

// ---------------------------------------------------------------------------------------------
// Flags

/// `--name value` flags; anything not taken by the example is reported as unknown.
pub struct Flags(Vec<String>);

impl Flags {
    pub fn from_env() -> Flags {
        Flags(std::env::args().skip(1).collect())
    }

    /// Removes `--name value` and returns the value.
    pub fn value(&mut self, name: &str) -> Option<String> {
        let i = self.0.iter().position(|a| a == name)?;
        if i + 1 >= self.0.len() {
            fail(&format!("{name} needs a value"));
        }
        let v = self.0.remove(i + 1);
        self.0.remove(i);
        Some(v)
    }

    /// Removes the flag `--name` (no value) and says whether it was there.
    pub fn switch(&mut self, name: &str) -> bool {
        let i = self.0.iter().position(|a| a == name);
        if let Some(i) = i {
            self.0.remove(i);
        }
        i.is_some()
    }

    /// Removes `--name value` and parses it, or returns `default`.
    pub fn parse<T: std::str::FromStr>(&mut self, name: &str, default: T) -> T {
        match self.value(name) {
            None => default,
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| fail(&format!("{name}: cannot parse {v:?}"))),
        }
    }

    /// Removes and returns the positional arguments (those not starting with `--`); call it
    /// after every flag with a value is taken.
    pub fn positional(&mut self) -> Vec<String> {
        let (pos, flags): (Vec<String>, Vec<String>) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|a| !a.starts_with("--"));
        self.0 = flags;
        pos
    }

    /// Exits with a usage message if any argument was not understood.
    pub fn finish(self, usage: &str) {
        if !self.0.is_empty() {
            eprintln!("unknown arguments: {}\nusage: {usage}", self.0.join(" "));
            std::process::exit(2);
        }
    }
}

/// Prints `msg` and exits with status 1.
pub fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

// ---------------------------------------------------------------------------------------------
// Params

/// Bump when `PorepShapedCircuit`'s constraints or the params seed change: cached files with an
/// older tag are then ignored instead of producing proofs that do not verify.
pub const PARAMS_VERSION: u32 = 2;

pub const DEFAULT_PARAMS_DIR: &str = "params-cache";

/// Where the cached params for `2^log_n` live.
pub fn params_path(dir: &Path, log_n: u32) -> PathBuf {
    dir.join(format!("porep-shaped-k{log_n}-v{PARAMS_VERSION}.params"))
}

/// The cached params file for `2^log_n`, generated first if it is not there yet.
pub fn ensure_params(dir: &Path, log_n: u32) -> PathBuf {
    let path = params_path(dir, log_n);
    if !path.exists() {
        std::fs::create_dir_all(dir)
            .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", dir.display())));
        write_params(log_n, &path);
    }
    path
}

/// Generates params for the blank `PorepShapedCircuit` of `2^log_n` with a fixed seed and
/// writes them to `path`. Returns them for callers that prove with bellperson right away.
pub fn write_params(log_n: u32, path: &Path) -> bellperson::groth16::Parameters<Bls12> {
    let params = {
        let _p = Progress::start(format!("generating params for 2^{log_n}"));
        let mut rng = ChaCha8Rng::seed_from_u64(0xC2_0000 + log_n as u64);
        // bellperson's parameters, byte for byte, made about ten times faster (tests/setup.rs).
        setup::generate_random_parameters(PorepShapedCircuit::new(log_n, None), &mut rng)
            .unwrap_or_else(|e| fail(&format!("parameter generation failed: {e}")))
    };
    // A temp name in the same directory, then rename: a killed run never leaves a truncated
    // file under the real name, and the rename is atomic on one filesystem. The name is unique
    // per call, not only per process: two threads of one test binary that miss the cache at
    // once each write their own file (one rename wins, with the same bytes).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp.{}.{call}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = BufWriter::new(std::fs::File::create(&tmp)?);
        params.write(&mut f)?;
        f.into_inner()?.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        fail(&format!("cannot write {}: {e}", path.display()));
    }
    eprintln!("wrote {}", path.display());
    params
}

/// Reads the verifying key at the head of a params file.
pub fn read_vk(path: &Path) -> bellperson::groth16::VerifyingKey<Bls12> {
    let f = std::fs::File::open(path)
        .unwrap_or_else(|e| fail(&format!("cannot open {}: {e}", path.display())));
    bellperson::groth16::VerifyingKey::read(std::io::BufReader::new(f))
        .unwrap_or_else(|e| fail(&format!("cannot read the verifying key: {e}")))
}

/// Reads a whole params file with bellperson (unchecked: we wrote it ourselves).
pub fn read_params(path: &Path) -> bellperson::groth16::Parameters<Bls12> {
    let f = std::fs::File::open(path)
        .unwrap_or_else(|e| fail(&format!("cannot open {}: {e}", path.display())));
    bellperson::groth16::Parameters::read(std::io::BufReader::new(f), false)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())))
}

/// Shows that a slow step is alive: on a terminal, "`what`: N s" on stderr once a second
/// (rewritten in place with `\r`); otherwise one line at the start and one at the end.
pub struct Progress {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    pub fn start(what: String) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        // SAFETY: isatty has no preconditions.
        let tty = unsafe { libc::isatty(2) } == 1;
        let thread = std::thread::spawn(move || {
            let t = Instant::now();
            if !tty {
                eprintln!("{what} ...");
            }
            let mut shown = None;
            while !flag.load(Ordering::Relaxed) {
                let secs = t.elapsed().as_secs();
                if tty && shown != Some(secs) {
                    eprint!("\r{what}: {secs} s");
                    shown = Some(secs);
                }
                // Short sleeps so that dropping the guard does not wait a whole second.
                std::thread::sleep(Duration::from_millis(100));
            }
            let end = if tty { "\r" } else { "" };
            eprintln!("{end}{what}: done in {:.1} s", t.elapsed().as_secs_f64());
        });
        Progress {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The C ABI

/// Turns a C error into `Err("message (code N)")`, freeing the message as hosts must.
pub fn take_error(e: CError) -> Result<(), String> {
    if e.code == 0 {
        return Ok(());
    }
    let msg = if e.message.is_null() {
        "(no message)".to_string()
    } else {
        // SAFETY: the library returns a NUL-terminated string from malloc; we free it once.
        let m = unsafe { CStr::from_ptr(e.message) }
            .to_string_lossy()
            .into_owned();
        unsafe { libc::free(e.message.cast()) };
        m
    };
    Err(format!("{msg} (code {})", e.code))
}

/// An SRS handle from `create_SRS`, released with `drop_SRS`.
pub struct CSrs(pub SrsHandle);

impl CSrs {
    pub fn load(path: &Path) -> Result<CSrs, String> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| "params path contains a NUL byte".to_string())?;
        let mut h = SrsHandle {
            ptr: std::ptr::null(),
        };
        take_error(unsafe { groth16_c2::ffi::create_SRS(&mut h, c.as_ptr(), false) })?;
        Ok(CSrs(h))
    }
}

impl Drop for CSrs {
    fn drop(&mut self) {
        unsafe { groth16_c2::ffi::drop_SRS(&mut self.0) };
    }
}

/// `generate_groth16_proofs_c` in whichever form this build exports (the `cuzk-abi` feature
/// adds Curio's `gpu_lock, gpu_index`; NULL and -1 mean the library's lock, any GPU: see
/// `groth16_c2::testing::generate_groth16_proofs_c`).
pub fn generate_c(
    srs: &CSrs,
    assignments: &[Assignment],
    r: &[blstrs::Scalar],
    s: &[blstrs::Scalar],
) -> Result<Vec<Proof>, String> {
    assert!(r.len() == assignments.len() && s.len() == assignments.len());
    // SAFETY: all-zero bytes are valid (identity) points; the call overwrites them.
    let mut proofs: Vec<Proof> = vec![unsafe { std::mem::zeroed() }; assignments.len()];
    let (p, n) = (assignments.as_ptr(), assignments.len());
    // SAFETY: every array holds n elements and the assignments point into live witnesses.
    let e = unsafe {
        groth16_c2::testing::generate_groth16_proofs_c(
            p,
            n,
            r.as_ptr(),
            s.as_ptr(),
            proofs.as_mut_ptr(),
            &srs.0,
        )
    };
    take_error(e)?;
    Ok(proofs)
}

/// The stage timings of the last prove call on this thread, through the C ABI.
pub fn last_timings_c() -> Option<groth16_c2::ProofTimings> {
    let mut t = groth16_c2::ProofTimings::default();
    // SAFETY: `t` is writable.
    unsafe { groth16_c2::ffi::groth16_c2_last_timings(&mut t) }.then_some(t)
}

/// The backend name from `groth16_c2_backend()`.
pub fn backend_c() -> String {
    let p = groth16_c2::ffi::groth16_c2_backend();
    if p.is_null() {
        return "(unknown)".into();
    }
    // SAFETY: a static NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// Proofs and reports

/// Our proof as bellperson's type.
pub fn to_bellperson(p: &Proof) -> bellperson::groth16::Proof<Bls12> {
    bellperson::groth16::Proof {
        a: p.a,
        b: p.b,
        c: p.c,
    }
}

/// The 384 bytes of a proof in the `groth16_proof` layout (Montgomery limbs).
pub fn proof_layout_bytes(p: &Proof) -> Vec<u8> {
    const _: () = assert!(std::mem::size_of::<Proof>() == 384);
    // SAFETY: `Proof` is repr(C) plain data of 384 bytes without padding.
    unsafe { std::slice::from_raw_parts((p as *const Proof).cast::<u8>(), 384) }.to_vec()
}

/// Prints the stage timings as a two-column table with each stage's share of the total.
pub fn print_stages(t: &groth16_c2::ProofTimings) {
    println!("  {:<18} {:>10} {:>7}", "stage", "ms", "share");
    for (name, v) in t.stages() {
        let share = if t.total_ms > 0.0 {
            format!("{:.0}%", 100.0 * v / t.total_ms)
        } else {
            "-".into()
        };
        println!("  {name:<18} {v:>10.1} {share:>7}");
    }
}

pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// A field of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`, ...), 0 where /proc is not there.
pub fn proc_status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
