//! Seals one 2 KiB sector end to end with filecoin-proofs 19.1 (pre-commit 1 and 2, commit 1,
//! commit 2), Commit-2 proved by groth16-c2 through bellperson's `cuda-supraseal` path and the
//! supraseal-c2 compat crate, then checks that `verify_seal` accepts the proof and rejects
//! tampered ones. Exits non-zero, saying what failed, on any failure.
//!
//! Environment (all optional):
//! - `FIL_PROOFS_PARAMETER_CACHE`: the parameter cache; default `GROTH16_C2_FIL_PARAMS`, else
//!   `$HOME/.cache/groth16-c2/filecoin-params`. The 2 KiB parameters (~1.06 GB) are generated
//!   there when absent or broken, and reused after.
//! - `GROTH16_C2_SEAL_EXPECT_BACKEND=cuda|cpu`: fail unless groth16-c2 proved on that backend.
//! - groth16-c2's own variables (`GROTH16_C2_BACKEND`, `CUZK_GPU_THREADS`, ...) and
//!   filecoin-proofs' `FIL_PROOFS_*` settings apply as usual.

mod groth16_c2;
mod params;

use std::env;
use std::fs::{self, File};
use std::io::{Seek, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use filecoin_proofs::{
    add_piece, compute_comm_d, generate_piece_commitment, seal_commit_phase1, seal_commit_phase2,
    seal_pre_commit_phase1, seal_pre_commit_phase2, validate_cache_for_commit, verify_seal,
    Commitment, PaddedBytesAmount, PoRepConfig, ProverId, SectorShape2KiB, Ticket,
    UnpaddedBytesAmount, SECTOR_SIZE_2_KIB,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::sector::SectorId;

/// The 2 KiB sector's Merkle tree shape (what Lotus uses for 2 KiB sectors).
pub type Tree = SectorShape2KiB;

/// `RegisteredSealProof::StackedDrg2KiBV1_1`, the id filecoin-ffi turns into the porep id.
const REGISTERED_SEAL_PROOF: u64 = 5;
/// Fixed, so every run seals the same data with the same ticket and seed.
const SEED: [u8; 32] = *b"groth16-c2 filecoin-seal-check 1";
/// A Groth16 proof, compressed: A (G1), B (G2), C (G1).
const PROOF_LEN: usize = 48 + 96 + 48;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("filecoin-seal-check: FAILED: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What `verify_seal` checks a proof against.
#[derive(Clone)]
struct Sealed {
    comm_r: Commitment,
    comm_d: Commitment,
    prover_id: ProverId,
    sector_id: u64,
    ticket: Ticket,
    seed: Ticket,
    proof: Vec<u8>,
}

impl Sealed {
    fn verify(&self, config: &PoRepConfig) -> Result<bool> {
        verify_seal::<Tree>(
            config,
            self.comm_r,
            self.comm_d,
            self.prover_id,
            SectorId::from(self.sector_id),
            self.ticket,
            self.seed,
            &self.proof,
        )
    }
}

fn run() -> Result<()> {
    let work = tempfile::Builder::new()
        .prefix("filecoin-seal-check-")
        .tempdir()
        .context("creating the work folder")?;
    // Before filecoin-proofs reads its settings (on first use), and before any thread starts.
    set_default_env(work.path());

    let mut porep_id = [0u8; 32];
    porep_id[..8].copy_from_slice(&REGISTERED_SEAL_PROOF.to_le_bytes());
    let config = PoRepConfig::new_groth16(SECTOR_SIZE_2_KIB, porep_id, ApiVersion::V1_2_0);
    let partitions = usize::from(config.partitions);

    let files = params::files(&config)?;
    println!(
        "filecoin-seal-check: 2 KiB sector, porep id {REGISTERED_SEAL_PROOF} (V1_1), api 1.2.0, \
         {partitions} partition(s)"
    );
    println!("  work folder: {}", work.path().display());
    println!("  params:      {}", files.params.display());
    let param_gen = params::ensure(&config, &files)?;

    let mut rng = ChaCha8Rng::from_seed(SEED);
    let prover_id: ProverId = rng.gen();
    let sector_id: u64 = rng.gen();
    let ticket: Ticket = rng.gen();
    let seed: Ticket = rng.gen();

    // The piece: the sector's whole unpadded capacity (2032 bytes) of seeded random data.
    let piece_size = UnpaddedBytesAmount::from(PaddedBytesAmount(SECTOR_SIZE_2_KIB));
    let piece: Vec<u8> = (0..u64::from(piece_size)).map(|_| rng.gen()).collect();
    let piece_path = work.path().join("piece");
    fs::write(&piece_path, &piece)?;
    let piece_info = generate_piece_commitment(File::open(&piece_path)?, piece_size)?;

    let staged = work.path().join("staged");
    let sealed = work.path().join("sealed");
    let cache = work.path().join("cache");
    fs::create_dir_all(&cache)?;
    File::create(&sealed)?;
    let mut staged_file = File::create(&staged)?;
    let (added, written) = add_piece(File::open(&piece_path)?, &mut staged_file, piece_size, &[])?;
    staged_file.flush()?;
    staged_file.rewind()?;
    ensure!(
        added.commitment == piece_info.commitment && written == piece_size,
        "add_piece disagrees with generate_piece_commitment"
    );
    let piece_infos = [piece_info];
    let comm_d = compute_comm_d(config.sector_size, &piece_infos)?;

    let (pc1_out, pc1) = timed(|| {
        seal_pre_commit_phase1::<_, _, _, Tree>(
            &config,
            &cache,
            &staged,
            &sealed,
            prover_id,
            SectorId::from(sector_id),
            ticket,
            &piece_infos,
        )
        .context("seal_pre_commit_phase1")
    })?;
    let (pre_commit, pc2) = timed(|| {
        seal_pre_commit_phase2::<_, _, Tree>(&config, pc1_out, &cache, &sealed)
            .context("seal_pre_commit_phase2")
    })?;
    ensure!(
        pre_commit.comm_d == comm_d,
        "pre-commit's comm_d differs from compute_comm_d's"
    );
    let comm_r = pre_commit.comm_r;

    validate_cache_for_commit::<_, _, Tree>(&cache, &sealed)
        .context("the sealed sector's cache")?;
    let (c1_out, c1) = timed(|| {
        seal_commit_phase1::<_, Tree>(
            &config,
            &cache,
            &sealed,
            prover_id,
            SectorId::from(sector_id),
            ticket,
            seed,
            pre_commit,
            &piece_infos,
        )
        .context("seal_commit_phase1")
    })?;

    let before = groth16_c2::counters().map_err(anyhow::Error::msg)?;
    let (c2_out, c2) = timed(|| {
        seal_commit_phase2::<Tree>(&config, c1_out, prover_id, SectorId::from(sector_id))
            .context("seal_commit_phase2")
    })?;
    let after = groth16_c2::counters().map_err(anyhow::Error::msg)?;
    let backend = groth16_c2::backend();

    // Commit-2 went through groth16-c2: its counters moved, by at least one circuit per partition.
    let calls = after.calls - before.calls;
    let circuits = after.circuits - before.circuits;
    ensure!(
        calls >= 1 && circuits >= partitions as u64,
        "Commit-2 did not run through groth16-c2: {calls} call(s), {circuits} circuit(s) \
         (expected >= 1 and >= {partitions})"
    );
    ensure!(
        after.verify_failures == before.verify_failures,
        "groth16-c2 reported a proof that failed its own check"
    );
    if let Ok(expected) = env::var("GROTH16_C2_SEAL_EXPECT_BACKEND") {
        ensure!(
            backend == expected,
            "groth16-c2 proved on {backend}, GROTH16_C2_SEAL_EXPECT_BACKEND={expected}"
        );
    }
    ensure!(
        c2_out.proof.len() == PROOF_LEN * partitions,
        "the proof is {} bytes, expected {}",
        c2_out.proof.len(),
        PROOF_LEN * partitions
    );

    let real = Sealed {
        comm_r,
        comm_d,
        prover_id,
        sector_id,
        ticket,
        seed,
        proof: c2_out.proof,
    };
    let (valid, verify) = timed(|| {
        real.verify(&config)
            .context("verify_seal of the real proof")
    })?;
    ensure!(valid, "verify_seal rejected the real proof");

    let mut rejections = Vec::new();
    for (what, tampered) in tamperings(&real) {
        let outcome = match tampered.verify(&config) {
            Ok(true) => anyhow::bail!("verify_seal accepted the proof with {what}"),
            Ok(false) => "Ok(false)".to_string(),
            Err(e) => format!("Err: {}", first_line(&format!("{e:#}"))),
        };
        rejections.push((what, outcome));
    }

    println!();
    println!(
        "filecoin-seal-check: sealed and verified; Commit-2 by groth16-c2 on the {backend} \
         backend ({} CPU threads)",
        groth16_c2::threads()
    );
    println!(
        "  groth16-c2 during C2: {calls} call(s), {circuits} circuit(s), {} proof(s) checked",
        after.verified - before.verified
    );
    println!("  stage                  seconds");
    match param_gen {
        Some(t) => println!("  params generation   {:>10.1}  (this run)", secs(t)),
        None => println!("  params generation           -  (reused from the cache)"),
    }
    for (stage, t) in [
        ("pre-commit 1 (PC1)", pc1),
        ("pre-commit 2 (PC2)", pc2),
        ("commit 1 (C1)", c1),
        ("commit 2 (C2)", c2),
        ("verify_seal", verify),
    ] {
        println!("  {stage:<19} {:>10.3}", secs(t));
    }
    println!("  C2 includes loading the params and filecoin-proofs' own verify_seal of the proof.");
    println!("  rejected tampered proofs:");
    for (what, outcome) in &rejections {
        println!("    {what:<28} {outcome}");
    }
    Ok(())
}

/// The real inputs with one thing changed each; `verify_seal` must reject every one.
fn tamperings(real: &Sealed) -> Vec<(&'static str, Sealed)> {
    let with = |change: &dyn Fn(&mut Sealed)| {
        let mut s = real.clone();
        change(&mut s);
        s
    };
    vec![
        // Lands in B: most flips leave no valid point, so this is usually a decoding error.
        ("a flipped proof byte", with(&|s| s.proof[100] ^= 0x01)),
        // A and C swapped: both decode, so only the pairing check can catch it.
        (
            "A and C swapped",
            with(&|s| {
                let (a, rest) = s.proof.split_at_mut(48);
                a.swap_with_slice(&mut rest[96..144]);
            }),
        ),
        // The low byte (little-endian) keeps the commitments valid field elements.
        ("a wrong comm_r", with(&|s| s.comm_r[0] ^= 0x01)),
        ("a wrong comm_d", with(&|s| s.comm_d[0] ^= 0x01)),
        ("a wrong prover id", with(&|s| s.prover_id[0] ^= 0x01)),
        ("a wrong sector id", with(&|s| s.sector_id ^= 1)),
        ("a wrong ticket", with(&|s| s.ticket[0] ^= 0x01)),
        ("a wrong seed", with(&|s| s.seed[0] ^= 0x01)),
    ]
}

/// Defaults for filecoin-proofs' settings: a persistent parameter cache, and the parent cache in
/// the work folder (not /var/tmp).
fn set_default_env(work: &Path) {
    if env::var_os("FIL_PROOFS_PARAMETER_CACHE").is_none() {
        let dir = env::var_os("GROTH16_C2_FIL_PARAMS")
            .map(Into::into)
            .or_else(|| {
                env::var_os("HOME")
                    .map(|home| Path::new(&home).join(".cache/groth16-c2/filecoin-params"))
            });
        if let Some(dir) = dir {
            env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir);
        }
    }
    if env::var_os("FIL_PROOFS_PARENT_CACHE").is_none() {
        env::set_var("FIL_PROOFS_PARENT_CACHE", work.join("parents"));
    }
}

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let start = Instant::now();
    let out = f()?;
    Ok((out, start.elapsed()))
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
