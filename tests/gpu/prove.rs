//! Whole proofs on the CUDA backend are byte-identical to the CPU backend's and to bellperson
//! 0.26's CPU `create_proof` for the same circuit, params, `r` and `s`, and verify.
//!
//! PoRep-shaped circuits of 2^10, 2^12, 2^16 and 2^20 constraints (params generated once and
//! cached in `params-cache/` as the examples do; `GROTH16_C2_PARAMS_DIR` moves the cache and
//! `GROTH16_C2_GPU_PROVE_MAX_LOG_N` drops the bigger sizes), batches of 1, 2 and 3 with
//! `gpu_index` 0 and -1; small odd circuits (a domain of 16 with 12 constraints, many public
//! inputs, SHA-256); a proof right after a failed device allocation; and, with two GPUs or
//! more, a batch of 4 spread over the GPUs (`gpu_index` -1) giving the same bytes as on GPU 0
//! while both GPUs' circuit counters move.
//!
//! With the SRS streamed (the memory plans of `groth16_c2::testing::memory_plan`): every query
//! streamed in small uneven chunks at 2^10 to 2^20, batches of 1 to 3 and two workers sharing a
//! lock; a device-memory limit under which some queries stay resident and the others stream;
//! a synthetic 2^24 partition under a 4 GiB limit, byte for byte as with the whole SRS
//! resident; and a limit below the smallest plan, refused before any work.
//!
//! Every GPU section holds the device exclusively ([`gpu_turn`]): the settings these tests
//! change (the device-memory limit, the streaming variables, the G2 tail) are process-wide, and
//! the device-memory peaks and circuit counters they check count the whole process. The guards
//! that change settings restore them when dropped, also on a panic.
//!
//! Needs a GPU; prints a SKIP line without one (the two-GPU test also without a second GPU).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::common::gpu::*;
use crate::common::{
    params_file, proof_bytes, random_scalars, record, rng, to_bellperson, ManyInputs, MimcChain,
    Sha256Circuit,
};
use bellpepper_core::Circuit;
use bellperson::groth16::{create_proof, Parameters};
use bench_support::common as example_common;
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::{Bls12, Scalar};
use ff::Field;
use groth16_c2::backend::Backend;
use groth16_c2::backend::CpuBackend;
use groth16_c2::backend::CudaBackend;
use groth16_c2::testing::cuda::device::circuits_proved;
use groth16_c2::testing::cuda::runtime::{device_count, DeviceBuffer};
use groth16_c2::witness::RecordedWitness;
use groth16_c2::{Proof, ProveOptions, Srs};

/// `start` + `finalize` on `backend`.
fn prove_on(
    backend: &'static dyn Backend,
    srs: &Srs,
    witnesses: &[RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
    gpu_index: i32,
) -> Vec<Proof> {
    let w: Vec<_> = witnesses.iter().map(|w| w.witness()).collect();
    let options = ProveOptions {
        lock: None,
        gpu_index,
        backend: Some(backend),
        ..Default::default()
    };
    groth16_c2::start(srs, &w, r, s, options)
        .and_then(|p| p.finalize())
        .unwrap_or_else(|e| {
            panic!(
                "{} proof of {} circuits (gpu_index {gpu_index}) failed: {e}",
                backend.name(),
                witnesses.len()
            )
        })
}

/// A GPU proof in its own turn on the device ([`gpu_turn`]: no other proof and no kernel test
/// of this binary runs meanwhile; the CPU oracles of other tests still run side by side).
fn prove_gpu(
    srs: &Srs,
    witnesses: &[RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
    gpu_index: i32,
) -> Vec<Proof> {
    let _turn = gpu_turn();
    prove_on(&CudaBackend, srs, witnesses, r, s, gpu_index)
}

/// The reference proofs of a set of circuits for one `r`, `s` each: bellperson's bytes, and the
/// CPU backend's proofs (checked equal to bellperson's first).
struct Oracle {
    bellperson: Vec<Vec<u8>>,
    cpu: Vec<Proof>,
}

fn oracle<C: Circuit<Scalar> + Clone + Send>(
    params: &Parameters<Bls12>,
    srs: &Srs,
    circuits: &[C],
    witnesses: &[RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
) -> Oracle {
    let bellperson: Vec<Vec<u8>> = circuits
        .iter()
        .zip(r.iter().zip(s))
        .map(|(c, (&r, &s))| {
            proof_bytes(&create_proof::<Bls12, _, _>(c.clone(), params, r, s).unwrap())
        })
        .collect();
    let cpu = prove_on(&CpuBackend, srs, witnesses, r, s, 0);
    for (i, p) in cpu.iter().enumerate() {
        assert_eq!(
            proof_bytes(&to_bellperson(p)),
            bellperson[i],
            "circuit {i}: the CPU backend differs from bellperson (not a GPU problem)"
        );
    }
    Oracle { bellperson, cpu }
}

/// Checks GPU proofs of the first `gpu.len()` circuits against the oracle, and verifies them.
#[track_caller]
fn check(what: &str, srs: &Srs, gpu: &[Proof], want: &Oracle, witnesses: &[RecordedWitness]) {
    for (i, p) in gpu.iter().enumerate() {
        assert!(
            *p == want.cpu[i],
            "{what}, circuit {i}: the GPU proof differs from the CPU backend's"
        );
        assert_eq!(
            proof_bytes(&to_bellperson(p)),
            want.bellperson[i],
            "{what}, circuit {i}: the GPU proof's bytes differ from bellperson's"
        );
        assert!(
            groth16_c2::verify::verify(&srs.vk, p, witnesses[i].public_inputs()).unwrap(),
            "{what}, circuit {i}: the GPU proof does not verify"
        );
    }
}

/// Proves every prefix (batch of 1, 2, ...) of `witnesses` on the GPU with `gpu_index` 0 and
/// -1, for random `r`, `s` and, with `zero_rs`, for `r = s = 0`.
fn check_batches<C: Circuit<Scalar> + Clone + Send>(
    label: &str,
    params: &Parameters<Bls12>,
    srs: &Srs,
    circuits: &[C],
    zero_rs: bool,
    seed: u64,
) {
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let n = circuits.len();
    let mut rs = vec![(
        "random r, s",
        random_scalars(n, seed),
        random_scalars(n, seed + 1),
    )];
    if zero_rs {
        rs.push(("r = s = 0", vec![Scalar::ZERO; n], vec![Scalar::ZERO; n]));
    }
    for (rs_label, r, s) in rs {
        // Proofs are per circuit: one oracle run covers every batch made of these circuits.
        let want = oracle(params, srs, circuits, &witnesses, &r, &s);
        for batch in 1..=n {
            for gpu_index in [0, -1] {
                let got = prove_gpu(
                    srs,
                    &witnesses[..batch],
                    &r[..batch],
                    &s[..batch],
                    gpu_index,
                );
                assert_eq!(got.len(), batch);
                let what = format!("{label}, {rs_label}, batch of {batch}, gpu_index {gpu_index}");
                check(&what, srs, &got, &want, &witnesses);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PoRep-shaped circuits, params cached as the examples cache them

fn params_dir() -> PathBuf {
    std::env::var_os("GROTH16_C2_PARAMS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(example_common::DEFAULT_PARAMS_DIR))
}

fn max_log_n() -> u32 {
    std::env::var("GROTH16_C2_GPU_PROVE_MAX_LOG_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// bellperson's params and our SRS for the PoRep-shaped circuit of `2^log_n`, generated on the
/// first run and read from the cache after.
fn porep_params(log_n: u32) -> (Parameters<Bls12>, Srs) {
    // Tests run on several threads: one generates a missing file while the others wait for it
    // (on a fresh machine two tests once generated the 2^12 params at the same time).
    static GENERATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let dir = params_dir();
    let path = example_common::params_path(&dir, log_n);
    let mut generated = None;
    if !path.exists() {
        let _one_at_a_time = GENERATING.lock().unwrap_or_else(|e| e.into_inner());
        if !path.exists() {
            std::fs::create_dir_all(&dir).unwrap();
            say(&format!(
                "prove: generating params for 2^{log_n} into {} (cached for later runs)",
                dir.display()
            ));
            generated = Some(example_common::write_params(log_n, &path));
        }
    }
    let params = generated.unwrap_or_else(|| example_common::read_params(&path));
    let srs = Srs::new(&path, false).unwrap();
    (params, srs)
}

/// Whether `test` runs here: a GPU, and `log_n` within `GROTH16_C2_GPU_PROVE_MAX_LOG_N` (a
/// SKIP line otherwise).
fn runs_here(test: &str, log_n: u32) -> bool {
    if !gpu_or_skip(test) {
        return false;
    }
    if log_n > max_log_n() {
        say(&format!(
            "SKIP {test}: GROTH16_C2_GPU_PROVE_MAX_LOG_N is {}",
            max_log_n()
        ));
        return false;
    }
    true
}

fn porep_size(test: &str, log_n: u32) {
    if !runs_here(test, log_n) {
        return;
    }
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..3)
        .map(|i| PorepShapedCircuit::new(log_n, Some(1000 * log_n as u64 + i)))
        .collect();
    check_batches(
        &format!("PoRep-shaped 2^{log_n}"),
        &params,
        &srs,
        &circuits,
        log_n <= 12,
        log_n as u64,
    );
}

#[test]
fn gpu_proofs_porep_shaped_2_10() {
    porep_size("gpu_proofs_porep_shaped_2_10", 10);
}

#[test]
fn gpu_proofs_porep_shaped_2_12() {
    porep_size("gpu_proofs_porep_shaped_2_12", 12);
}

#[test]
fn gpu_proofs_porep_shaped_2_16() {
    porep_size("gpu_proofs_porep_shaped_2_16", 16);
}

#[test]
fn gpu_proofs_porep_shaped_2_20() {
    porep_size("gpu_proofs_porep_shaped_2_20", 20);
}

/// The H MSM over precomputed copies of the resident H query (`GROTH16_C2_MSM_COPIES=5`
/// forces them at this size; by default they start at 2^23 points): the first proof makes them,
/// the next ones reuse them, all byte-identical to the CPU backend and bellperson. The variable
/// is set only inside a turn on the device (and restored, even on a panic), so no other test's
/// proof sees it.
#[test]
fn gpu_proofs_h_msm_over_precomputed_copies() {
    if !gpu_or_skip("gpu_proofs_h_msm_over_precomputed_copies") {
        return;
    }
    let log_n = 12;
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..2)
        .map(|i| PorepShapedCircuit::new(log_n, Some(7000 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (random_scalars(2, 71), random_scalars(2, 72));
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);
    let proofs: Vec<Vec<Proof>> = {
        let _turn = gpu_turn();
        let _copies = EnvVar::set("GROTH16_C2_MSM_COPIES", Some("5"));
        (1..=2)
            .map(|batch| {
                prove_on(
                    &CudaBackend,
                    &srs,
                    &witnesses[..batch],
                    &r[..batch],
                    &s[..batch],
                    0,
                )
            })
            .collect()
    };
    for (i, got) in proofs.iter().enumerate() {
        check(
            &format!("H MSM over 5 copies, proof run {}", i + 1),
            &srs,
            got,
            &want,
            &witnesses,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Small circuits of other shapes

#[test]
fn gpu_proofs_small_odd_circuits() {
    if !gpu_or_skip("gpu_proofs_small_odd_circuits") {
        return;
    }
    // 5 rounds: 12 constraints in a domain of 16, one public input.
    let blank = MimcChain {
        start: None,
        rounds: 5,
    };
    let params = params_file(blank, 5);
    let srs = Srs::new(&params.path, false).unwrap();
    let circuits: Vec<MimcChain> = (0..2)
        .map(|i| MimcChain {
            start: Some(Scalar::random(rng(50 + i))),
            rounds: 5,
        })
        .collect();
    check_batches("MiMC, 5 rounds", &params.params, &srs, &circuits, true, 51);

    // 70 public inputs.
    let params = params_file(
        ManyInputs {
            xs: None,
            count: 70,
        },
        4,
    );
    let srs = Srs::new(&params.path, false).unwrap();
    let circuits: Vec<ManyInputs> = (0..2)
        .map(|i| ManyInputs {
            xs: Some(random_scalars(70, 60 + i)),
            count: 70,
        })
        .collect();
    check_batches(
        "70 public inputs",
        &params.params,
        &srs,
        &circuits,
        true,
        61,
    );

    // bellperson's SHA-256 gadget: boolean-heavy, many 0/1 values.
    let params = params_file(
        Sha256Circuit {
            message: None,
            len: 8,
        },
        2,
    );
    let srs = Srs::new(&params.path, false).unwrap();
    let circuits: Vec<Sha256Circuit> = (0..2u64)
        .map(|i| Sha256Circuit {
            message: Some((70 + i).to_le_bytes().to_vec()),
            len: 8,
        })
        .collect();
    check_batches(
        "SHA-256, 8 bytes",
        &params.params,
        &srs,
        &circuits,
        false,
        71,
    );
}

// ---------------------------------------------------------------------------------------------
// Failures and several GPUs

#[test]
fn proof_after_failed_device_allocation() {
    if !gpu_or_skip("proof_after_failed_device_allocation") {
        return;
    }
    let log_n = 12.min(max_log_n());
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..2)
        .map(|i| PorepShapedCircuit::new(log_n, Some(77 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (random_scalars(2, 78), random_scalars(2, 79));
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);

    // Once with the device state already built, once on a device as a failure leaves it.
    let got = prove_gpu(&srs, &witnesses, &r, &s, 0);
    check(
        "before the failed allocation",
        &srs,
        &got,
        &want,
        &witnesses,
    );
    for attempt in 0..2 {
        let _turn = gpu_turn();
        let failed = DeviceBuffer::<u8>::new(1 << 50);
        match &failed {
            Ok(_) => panic!("allocating 2^50 bytes on the GPU succeeded"),
            Err(e) => say(&format!(
                "prove: allocating 2^50 bytes fails as it must: {e}"
            )),
        }
        drop(failed);
        let got = prove_on(&CudaBackend, &srs, &witnesses, &r, &s, 0);
        let what = format!("right after a failed allocation ({attempt})");
        check(&what, &srs, &got, &want, &witnesses);
    }
}

#[test]
fn batch_spread_over_two_gpus() {
    if !gpus_or_skip("batch_spread_over_two_gpus", 2) {
        return;
    }
    let gpus = device_count();
    let log_n = 16.min(max_log_n());
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..4)
        .map(|i| PorepShapedCircuit::new(log_n, Some(90 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (random_scalars(4, 91), random_scalars(4, 92));
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);

    let _turn = gpu_turn();
    let on_0 = prove_on(&CudaBackend, &srs, &witnesses, &r, &s, 0);
    check("batch of 4 on GPU 0", &srs, &on_0, &want, &witnesses);
    let on_1 = prove_on(&CudaBackend, &srs, &witnesses, &r, &s, 1);
    check("batch of 4 on GPU 1", &srs, &on_1, &want, &witnesses);

    let before: Vec<u64> = (0..gpus).map(circuits_proved).collect();
    let spread = prove_on(&CudaBackend, &srs, &witnesses, &r, &s, -1);
    let after: Vec<u64> = (0..gpus).map(circuits_proved).collect();
    say(&format!(
        "prove: circuits proved per GPU before / after the spread batch of 4: {before:?} / {after:?}"
    ));
    for (i, (a, b)) in spread.iter().zip(&on_0).enumerate() {
        assert_eq!(
            proof_bytes(&to_bellperson(a)),
            proof_bytes(&to_bellperson(b)),
            "circuit {i}: gpu_index -1 and gpu_index 0 give different proofs"
        );
    }
    check(
        "batch of 4 spread (gpu_index -1)",
        &srs,
        &spread,
        &want,
        &witnesses,
    );
    let delta: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert!(
        delta[0] > 0 && delta[1] > 0,
        "gpu_index -1 with {gpus} GPUs did not use both GPU 0 and GPU 1 (circuits per GPU: {delta:?})"
    );
    assert_eq!(
        delta.iter().sum::<u64>(),
        4,
        "the device sections of a batch of 4 (circuits per GPU: {delta:?})"
    );
}

// ---------------------------------------------------------------------------------------------
// The SRS streamed from host memory

/// An environment variable set (or removed) for the life of the guard, then restored to what it
/// was. Taken inside a turn on the device, so no other test's proof sees it.
struct EnvVar {
    name: &'static str,
    was: Option<OsString>,
}

impl EnvVar {
    fn set(name: &'static str, value: Option<&str>) -> EnvVar {
        let was = std::env::var_os(name);
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
        EnvVar { name, was }
    }
}

impl Drop for EnvVar {
    fn drop(&mut self) {
        match &self.was {
            Some(v) => std::env::set_var(self.name, v),
            None => std::env::remove_var(self.name),
        }
    }
}

/// The device-memory settings of one streamed test, restored when dropped (also on a panic):
/// the limit, the forced chunk length and whether any query may stay resident. Taken inside a
/// turn on the device, so no other test's proof sees them.
struct StreamSettings {
    limit: u64,
    _chunk: EnvVar,
    _resident: EnvVar,
}

impl StreamSettings {
    fn set(limit: u64, chunk: Option<usize>, never_resident: bool) -> StreamSettings {
        let was = groth16_c2::settings::vram_limit();
        groth16_c2::settings::set_vram_limit(limit);
        let chunk = chunk.map(|c| c.to_string());
        StreamSettings {
            limit: was,
            _chunk: EnvVar::set("GROTH16_C2_STREAM_CHUNK", chunk.as_deref()),
            _resident: EnvVar::set("GROTH16_C2_SRS_RESIDENT", never_resident.then_some("never")),
        }
    }
}

impl Drop for StreamSettings {
    fn drop(&mut self) {
        groth16_c2::settings::set_vram_limit(self.limit);
    }
}

/// Where the G2 tail MSM runs (`settings::set_g2_tail_on_gpu`) for the life of the guard, then
/// what it was (also on a panic). Taken inside a turn on the device.
struct G2Tail(bool);

impl G2Tail {
    fn set(on_gpu: bool) -> G2Tail {
        let was = groth16_c2::settings::g2_tail_on_gpu();
        groth16_c2::settings::set_g2_tail_on_gpu(on_gpu);
        G2Tail(was)
    }
}

impl Drop for G2Tail {
    fn drop(&mut self) {
        groth16_c2::settings::set_g2_tail_on_gpu(self.0);
    }
}

/// `start` + `finalize_timed` on the GPU with verification on; the proofs and the timings.
fn prove_timed(
    srs: &Srs,
    witnesses: &[RecordedWitness],
    r: &[Scalar],
    s: &[Scalar],
    gpu_index: i32,
    lock: Option<&groth16_c2::GpuLock>,
) -> groth16_c2::Result<(Vec<Proof>, groth16_c2::ProofTimings)> {
    let w: Vec<_> = witnesses.iter().map(|w| w.witness()).collect();
    let options = ProveOptions {
        lock,
        gpu_index,
        backend: Some(&CudaBackend),
        ..Default::default()
    };
    groth16_c2::start(srs, &w, r, s, options).and_then(|p| p.finalize_timed())
}

/// A chunk length that divides none of the queries: a power of two past an eighth of the
/// domain, plus 65 (rounded up to 128 points more by the plan).
fn uneven_chunk(log_n: u32) -> usize {
    (1usize << (log_n - 3).max(6)) + 65
}

fn streamed_size(test: &str, log_n: u32) {
    if !runs_here(test, log_n) {
        return;
    }
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..3)
        .map(|i| PorepShapedCircuit::new(log_n, Some(3000 * log_n as u64 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (
        random_scalars(3, 300 + log_n as u64),
        random_scalars(3, 400),
    );
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);
    let chunk = uneven_chunk(log_n);
    let _turn = gpu_turn();
    let _settings = StreamSettings::set(0, Some(chunk), true);
    // Tails gathered across chunks (the plan's choice with room to spare), and each chunk's
    // tail summed on its own.
    for (g2_on_gpu, gather) in [(true, true), (false, true), (true, false)] {
        let _g2 = G2Tail::set(g2_on_gpu);
        let _gather = EnvVar::set("GROTH16_C2_STREAM_GATHER", (!gather).then_some("0"));
        for batch in 1..=3 {
            for gpu_index in [0, -1] {
                let (got, t) = prove_timed(
                    &srs,
                    &witnesses[..batch],
                    &r[..batch],
                    &s[..batch],
                    gpu_index,
                    None,
                )
                .unwrap_or_else(|e| panic!("streamed 2^{log_n}, batch of {batch}: {e}"));
                let what = format!(
                    "2^{log_n} streamed in chunks of {chunk} points, G2 tail on the {}, tails \
                     gathered {gather}, batch of {batch}, gpu_index {gpu_index}",
                    if g2_on_gpu { "GPU" } else { "CPU" }
                );
                check(&what, &srs, &got, &want, &witnesses);
                assert_eq!(
                    t.stream_chunk_points as usize,
                    chunk.next_multiple_of(64),
                    "{what}: the timings name the chunk"
                );
                // Every point of the SRS crossed at least once (H once per circuit).
                let srs_bytes = (srs.h.len() * batch + srs.l.len() + srs.a.len() + srs.b_g1.len())
                    * 96
                    + srs.b_g2.len() * 192;
                assert!(
                    t.h2d_bytes as usize >= srs_bytes * 9 / 10,
                    "{what}: {} bytes up, the SRS alone is {srs_bytes}",
                    t.h2d_bytes
                );
                assert!(t.h2d_busy_ms > 0.0, "{what}: no copy time");
            }
        }
    }
}

#[test]
fn streamed_proofs_2_10() {
    streamed_size("streamed_proofs_2_10", 10);
}

#[test]
fn streamed_proofs_2_12() {
    streamed_size("streamed_proofs_2_12", 12);
}

#[test]
fn streamed_proofs_2_16() {
    streamed_size("streamed_proofs_2_16", 16);
}

#[test]
fn streamed_proofs_2_20() {
    streamed_size("streamed_proofs_2_20", 20);
}

/// Under a limit that keeps some queries resident and streams the others, the proofs are the
/// same and the timings say what streamed.
#[test]
fn streamed_proofs_under_a_limit_keep_what_fits() {
    use groth16_c2::testing::memory_plan::{self, PlanRequest, ProofShape, Residency};
    if !gpu_or_skip("streamed_proofs_under_a_limit_keep_what_fits") {
        return;
    }
    let log_n = 16.min(max_log_n());
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..2)
        .map(|i| PorepShapedCircuit::new(log_n, Some(5000 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (random_scalars(2, 501), random_scalars(2, 502));
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);
    // The smallest budget whose plan keeps a query resident and streams another.
    let shape = ProofShape::of(&srs);
    let request = |budget: usize| PlanRequest {
        shape,
        budget,
        residency: Residency::Auto,
        g2_tail_on_gpu: true,
        chunk_points: None,
        slots: None,
        sides: None,
        resident_working: usize::MAX / 4,
        msm_code: 0,
        gather_tails: true,
        bus_bytes_per_s: memory_plan::DEFAULT_BUS_BYTES_PER_S,
        h_window: None,
    };
    let lo = memory_plan::minimum_bytes(&request(0));
    let plan = (0..4096)
        .map(|k| lo + k * (1 << 20))
        .filter_map(|b| memory_plan::plan(&request(b)).ok())
        .find(|p| !p.resident().is_empty() && !p.streamed().is_empty())
        .expect("a budget with both resident and streamed queries");
    say(&format!("prove: limit {} bytes: {plan}", plan.budget));
    let _turn = gpu_turn();
    groth16_c2::testing::cuda::device::release_all();
    groth16_c2::testing::cuda::runtime::VRAM_BY_DEVICE[0].reset_peak();
    let _settings = StreamSettings::set(plan.budget as u64, None, false);
    for batch in 1..=2 {
        let (got, t) = prove_timed(&srs, &witnesses[..batch], &r[..batch], &s[..batch], 0, None)
            .unwrap_or_else(|e| panic!("under the limit, batch of {batch}: {e}"));
        check(
            &format!("{plan}, batch of {batch}"),
            &srs,
            &got,
            &want,
            &witnesses,
        );
        assert_eq!(t.stream_chunk_points as usize, plan.chunk_points());
        assert!(t.h2d_bytes as usize >= plan.streamed_bytes());
    }
    let peak = groth16_c2::testing::cuda::runtime::VRAM_BY_DEVICE[0].peak();
    say(&format!(
        "prove: device peak {peak} bytes under a limit of {}",
        plan.budget
    ));
    assert!(
        peak <= plan.budget,
        "held {peak} bytes under a limit of {}",
        plan.budget
    );
}

/// Two workers sharing one lock, each proving one partition per call as Curio's engine does,
/// with every query streamed.
#[test]
fn streamed_proofs_two_workers() {
    if !gpu_or_skip("streamed_proofs_two_workers") {
        return;
    }
    let log_n = 12.min(max_log_n());
    let (params, srs) = porep_params(log_n);
    let circuits: Vec<PorepShapedCircuit> = (0..4)
        .map(|i| PorepShapedCircuit::new(log_n, Some(6000 + i)))
        .collect();
    let witnesses: Vec<RecordedWitness> = circuits.iter().cloned().map(record).collect();
    let (r, s) = (random_scalars(4, 601), random_scalars(4, 602));
    let want = oracle(&params, &srs, &circuits, &witnesses, &r, &s);
    let _turn = gpu_turn();
    let _settings = StreamSettings::set(0, Some(uneven_chunk(log_n)), true);
    let lock = groth16_c2::GpuLock::new();
    let got: Vec<(usize, Proof)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let (srs, witnesses, r, s, lock) = (&srs, &witnesses, &r, &s, &lock);
                scope.spawn(move || {
                    (0..2)
                        .map(|k| {
                            let i = 2 * w + k;
                            let (p, _) = prove_timed(
                                srs,
                                &witnesses[i..=i],
                                &r[i..=i],
                                &s[i..=i],
                                0,
                                Some(lock),
                            )
                            .unwrap_or_else(|e| panic!("worker {w}, circuit {i}: {e}"));
                            (i, p[0])
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (i, p) in got {
        assert!(
            p == want.cpu[i],
            "worker proof of circuit {i} differs from the CPU's"
        );
        assert_eq!(proof_bytes(&to_bellperson(&p)), want.bellperson[i]);
    }
}

/// A synthetic 2^24 partition proved under a 4 GiB limit gives the bytes the whole SRS resident
/// gives (the synthetic SRS is no real setup: the proofs are compared, not verified).
#[test]
fn streamed_2_24_under_4_gib() {
    use bench_support::synthetic_partition::{synthetic_srs, PartitionShape, SyntheticPartition};
    if !gpu_or_skip("streamed_2_24_under_4_gib") {
        return;
    }
    if max_log_n() < 24 && std::env::var("GROTH16_C2_GPU_PROVE_MAX_LOG_N").is_ok() {
        say("SKIP streamed_2_24_under_4_gib: GROTH16_C2_GPU_PROVE_MAX_LOG_N is below 24");
        return;
    }
    let partition = SyntheticPartition::generate(&PartitionShape::porep(24));
    let srs = synthetic_srs(&partition);
    let w = [partition.witness()];
    let (r, s) = (random_scalars(1, 2401), random_scalars(1, 2402));
    let options = ProveOptions {
        backend: Some(&CudaBackend),
        verify: Some(false),
        ..Default::default()
    };
    let prove = || {
        groth16_c2::start(&srs, &w, &r, &s, options)
            .and_then(|p| p.finalize_timed())
            .unwrap_or_else(|e| panic!("2^24: {e}"))
    };
    let _turn = gpu_turn();
    let (resident, _) = prove();
    // What the resident proof kept goes, so the peak below is the streamed proof's alone.
    groth16_c2::testing::cuda::device::release_all();
    let _settings = StreamSettings::set(4 << 30, None, false);
    groth16_c2::testing::cuda::runtime::VRAM_BY_DEVICE[0].reset_peak();
    let (streamed, t) = prove();
    let peak = groth16_c2::testing::cuda::runtime::VRAM_BY_DEVICE[0].peak();
    say(&format!(
        "prove: 2^24 under 4 GiB: gpu_total {:.0} ms, {:.2} GB up, device peak {:.2} GiB",
        t.gpu_total_ms,
        t.h2d_bytes as f64 / 1e9,
        peak as f64 / (1u64 << 30) as f64
    ));
    assert_eq!(
        streamed, resident,
        "2^24: streamed under 4 GiB differs from resident"
    );
    assert!(t.stream_chunk_points > 0, "2^24 under 4 GiB did not stream");
    assert!(peak <= 4 << 30, "2^24 under 4 GiB held {peak} bytes");
}

/// A Window PoSt-shaped partition (99% of B's points in the tail) keeps its G2 tail MSM on the
/// GPU when the host asks for it on the CPU, resident and streamed, with the CPU backend's bytes
/// (the synthetic SRS is no real setup: the proofs are compared, not verified).
#[test]
fn window_post_shape_keeps_its_g2_tail_on_the_gpu() {
    use bench_support::synthetic_partition::{synthetic_srs, PartitionShape, SyntheticPartition};
    if !runs_here("window_post_shape_keeps_its_g2_tail_on_the_gpu", 16) {
        return;
    }
    let partition = SyntheticPartition::generate(&PartitionShape::window_post(16));
    let srs = synthetic_srs(&partition);
    let w = [partition.witness()];
    let (r, s) = (random_scalars(1, 1601), random_scalars(1, 1602));
    let prove = |backend: &'static dyn Backend| {
        let options = ProveOptions {
            backend: Some(backend),
            verify: Some(false),
            ..Default::default()
        };
        groth16_c2::start(&srs, &w, &r, &s, options)
            .and_then(|p| p.finalize())
            .unwrap_or_else(|e| panic!("Window PoSt shape on {}: {e}", backend.name()))
    };
    let want = prove(&CpuBackend);
    let (resident, streamed) = {
        let _turn = gpu_turn();
        let _g2 = G2Tail::set(false);
        let resident = prove(&CudaBackend);
        let _settings = StreamSettings::set(0, Some(uneven_chunk(16)), true);
        (resident, prove(&CudaBackend))
    };
    assert!(
        resident == want,
        "resident: the GPU proof differs from the CPU backend's"
    );
    assert!(
        streamed == want,
        "streamed: the GPU proof differs from the CPU backend's"
    );
}

/// A limit below the smallest plan fails the call at once, naming the minimum, before any
/// device section runs.
#[test]
fn a_limit_below_the_smallest_plan_is_refused() {
    if !gpu_or_skip("a_limit_below_the_smallest_plan_is_refused") {
        return;
    }
    let log_n = 16.min(max_log_n());
    let (_, srs) = porep_params(log_n);
    let circuit = PorepShapedCircuit::new(log_n, Some(7));
    let witnesses = [record(circuit)];
    let (r, s) = (random_scalars(1, 8), random_scalars(1, 9));
    let _turn = gpu_turn();
    let _settings = StreamSettings::set(1 << 20, None, false);
    let before = circuits_proved(0);
    let t = std::time::Instant::now();
    let e = prove_timed(&srs, &witnesses, &r, &s, 0, None).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("needs at least") && msg.contains("GROTH16_C2_VRAM_LIMIT"),
        "{msg}"
    );
    assert_eq!(circuits_proved(0), before, "a device section ran");
    assert!(
        t.elapsed().as_secs() < 5,
        "refused only after {:?}",
        t.elapsed()
    );
}
