//! Every Groth16 proof a storage provider's GPU makes, through filecoin-proofs 19.1 as Lotus and
//! Curio call it, on 2 KiB sectors, with groth16-c2 as the prover behind bellperson's
//! `cuda-supraseal` path and the supraseal-c2 compat crate:
//!
//! - PoRep Commit-2: one sector sealed end to end (pre-commit 1 and 2, commit 1, commit 2);
//! - SnapDeals: new data encoded into a committed-capacity sector, the empty sector update proof;
//! - Window PoSt over four sealed sectors (two partitions: one call of two circuits);
//! - Winning PoSt over the sector the randomness picks.
//!
//! Each proof is checked by filecoin-proofs' own verifier (`verify_seal`,
//! `verify_empty_sector_update_proof`, `verify_window_post`, `verify_winning_post`), which must
//! also reject tampered variants, and groth16-c2's counters must show that the proof went through
//! it. Exits non-zero, saying what failed, on any failure.
//!
//! Usage:
//! - `filecoin-seal-check`: all of the above;
//! - `filecoin-seal-check --curio-inputs DIR`: the same, then the inputs Curio's proving engine
//!   takes for each proof type written to DIR (see `curio.rs`; `scripts/curio-check.sh`);
//! - `filecoin-seal-check --curio-verify DIR`: checks the engine's proofs saved in DIR.
//!
//! Environment (all optional):
//! - `FIL_PROOFS_PARAMETER_CACHE`: the parameter cache; default `GROTH16_C2_FIL_PARAMS`, else
//!   `$HOME/.cache/groth16-c2/filecoin-params`. The 2 KiB parameters of each circuit (~1.06 GB
//!   for PoRep, less for the others) are generated there when absent or broken, and reused after.
//! - `GROTH16_C2_SEAL_EXPECT_BACKEND=cuda|cpu`: fail unless groth16-c2 proved on that backend.
//! - groth16-c2's own variables (`GROTH16_C2_BACKEND`, `CUZK_GPU_THREADS`, ...) and
//!   filecoin-proofs' `FIL_PROOFS_*` settings apply as usual.

mod configs;
mod curio;
mod groth16_c2;
mod params;
mod proofs;
mod sector;

use std::env;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use filecoin_proofs::{
    seal_commit_phase1, seal_commit_phase2, verify_seal, ChallengeSeed, Commitment, PoRepConfig,
    ProverId, SectorShape2KiB, Ticket,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::sector::SectorId;

/// The 2 KiB sector's Merkle tree shape (what Lotus uses for 2 KiB sectors).
pub type Tree = SectorShape2KiB;

/// The miner whose prover id every proof carries (f01000, Lotus's first miner on a devnet).
const MINER_ID: u64 = 1000;
/// Fixed, so every run seals the same data with the same ticket and seed.
const SEED: [u8; 32] = *b"groth16-c2 filecoin-seal-check 1";
/// A Groth16 proof, compressed: A (G1), B (G2), C (G1).
const PROOF_LEN: usize = 48 + 96 + 48;

/// What the command line asks for.
enum Mode {
    /// Every proof; with a folder, Curio's engine inputs are written there too.
    Prove {
        curio_inputs: Option<PathBuf>,
    },
    CurioVerify(PathBuf),
}

fn parse_args() -> Result<Mode> {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(Mode::Prove { curio_inputs: None }),
        [flag, dir] if flag == "--curio-inputs" => Ok(Mode::Prove {
            curio_inputs: Some(dir.into()),
        }),
        [flag, dir] if flag == "--curio-verify" => Ok(Mode::CurioVerify(dir.into())),
        _ => anyhow::bail!("usage: filecoin-seal-check [--curio-inputs DIR | --curio-verify DIR]"),
    }
}

fn main() -> ExitCode {
    let outcome = parse_args().and_then(|mode| match mode {
        Mode::Prove { curio_inputs } => run(curio_inputs.as_deref()),
        Mode::CurioVerify(dir) => {
            set_default_env(&dir);
            println!(
                "filecoin-seal-check: Curio's engine's proofs in {}",
                dir.display()
            );
            curio::verify_outputs(&dir)
        }
    });
    match outcome {
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

/// One proof through groth16-c2: its time and what groth16-c2's counters saw.
pub struct Counted {
    pub time: Duration,
    pub calls: u64,
    pub circuits: u64,
    pub checked: u64,
}

/// One proof type's run: parameter generation, its own stages, the proof, the verification and
/// the rejected tamperings.
pub struct Proved {
    pub what: &'static str,
    pub params_time: Option<Duration>,
    pub stages: Vec<(&'static str, Duration)>,
    pub prove: Counted,
    pub verify: Duration,
    pub rejections: Vec<(&'static str, String)>,
}

/// Runs `prove` and checks that it went through groth16-c2: at least one call of at least
/// `circuits` circuits (one per partition), no proof failing groth16-c2's own check, and the
/// backend `GROTH16_C2_SEAL_EXPECT_BACKEND` names.
pub fn through_groth16_c2<T>(
    what: &str,
    circuits: usize,
    prove: impl FnOnce() -> Result<T>,
) -> Result<(T, Counted)> {
    let before = groth16_c2::counters().map_err(anyhow::Error::msg)?;
    let (out, time) = timed(prove)?;
    let after = groth16_c2::counters().map_err(anyhow::Error::msg)?;
    let counted = Counted {
        time,
        calls: after.calls - before.calls,
        circuits: after.circuits - before.circuits,
        checked: after.verified - before.verified,
    };
    ensure!(
        counted.calls >= 1 && counted.circuits >= circuits as u64,
        "{what} did not run through groth16-c2: {} call(s), {} circuit(s) (expected >= 1 and \
         >= {circuits})",
        counted.calls,
        counted.circuits
    );
    ensure!(
        after.verify_failures == before.verify_failures,
        "groth16-c2 reported a {what} proof that failed its own check"
    );
    let backend = groth16_c2::backend();
    if let Ok(expected) = env::var("GROTH16_C2_SEAL_EXPECT_BACKEND") {
        ensure!(
            backend == expected,
            "groth16-c2 proved {what} on {backend}, GROTH16_C2_SEAL_EXPECT_BACKEND={expected}"
        );
    }
    Ok((out, counted))
}

fn run(curio_inputs: Option<&Path>) -> Result<()> {
    let work = tempfile::Builder::new()
        .prefix("filecoin-seal-check-")
        .tempdir()
        .context("creating the work folder")?;
    let dir = work.path();
    // Before filecoin-proofs reads its settings (on first use), and before any thread starts.
    set_default_env(dir);

    let config = configs::seal();
    let partitions = usize::from(config.partitions);

    let files = params::porep(&config)?;
    println!(
        "filecoin-seal-check: {:?} (api {}), {partitions} PoRep partition(s), miner f0{MINER_ID}",
        configs::SEAL,
        config.api_version
    );
    println!("  work folder: {}", dir.display());
    println!("  params:      {}", files.params.display());
    let param_gen = params::ensure(&files)?;

    let mut rng = ChaCha8Rng::from_seed(SEED);
    let prover_id: ProverId = curio::prover_id(MINER_ID);
    let sector_id: u64 = rng.gen();
    let ticket: Ticket = rng.gen();
    let seed: Ticket = rng.gen();
    let sector_data = |rng: &mut ChaCha8Rng| -> Vec<u8> {
        (0..u64::from(sector::capacity()))
            .map(|_| rng.gen())
            .collect()
    };

    // PoRep: a sector with a deal, sealed end to end.
    let data = sector_data(&mut rng);
    let (a, pre_commit, [pc1, pc2]) =
        sector::seal(&config, dir, "a", prover_id, sector_id, ticket, &data)?;
    let (c1_out, c1) = timed(|| {
        seal_commit_phase1::<_, Tree>(
            &config, &a.cache, &a.replica, prover_id, a.id, ticket, seed, pre_commit, &a.pieces,
        )
        .context("seal_commit_phase1")
    })?;
    // Curio's engine gets the same Commit-1 output.
    let commit_for_curio = curio_inputs
        .map(|_| curio::commit2_in(&c1_out, a.id))
        .transpose()?;
    let (c2_out, c2) = through_groth16_c2("Commit-2", partitions, || {
        seal_commit_phase2::<Tree>(&config, c1_out, prover_id, a.id).context("seal_commit_phase2")
    })?;
    ensure!(
        c2_out.proof.len() == PROOF_LEN * partitions,
        "the proof is {} bytes, expected {}",
        c2_out.proof.len(),
        PROOF_LEN * partitions
    );
    let real = Sealed {
        comm_r: a.comm_r,
        comm_d: a.comm_d,
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
    let porep = Proved {
        what: "PoRep Commit-2",
        params_time: param_gen,
        stages: vec![
            ("pre-commit 1 (PC1)", pc1),
            ("pre-commit 2 (PC2)", pc2),
            ("commit 1 (C1)", c1),
        ],
        prove: c2,
        verify,
        rejections,
    };

    // A committed-capacity sector (zeros) for SnapDeals, and two more with deals, so that Window
    // PoSt has two partitions' worth (two 2 KiB sectors per partition).
    let zeros = vec![0u8; u64::from(sector::capacity()) as usize];
    let (cc, _, _) = sector::seal(&config, dir, "cc", prover_id, rng.gen(), rng.gen(), &zeros)?;
    let data_c = sector_data(&mut rng);
    let (c, _, _) = sector::seal(&config, dir, "c", prover_id, rng.gen(), rng.gen(), &data_c)?;
    let data_d = sector_data(&mut rng);
    let (d, _, _) = sector::seal(&config, dir, "d", prover_id, rng.gen(), rng.gen(), &data_d)?;

    let new_data = sector_data(&mut rng);
    let (snap, updated) = proofs::snap_deals(&configs::update(), dir, &cc, &new_data)?;
    let sectors = [&a, &cc, &c, &d];
    // Field elements: PoSt reads its randomness as one.
    let window_randomness = field_element(&mut rng);
    let winning_randomness = field_element(&mut rng);
    let window = proofs::window_post(&sectors, prover_id, window_randomness)?;
    let winning = proofs::winning_post(&sectors, prover_id, winning_randomness)?;

    println!();
    println!(
        "filecoin-seal-check: every proof made by groth16-c2 on the {} backend ({} CPU threads) \
         and verified by filecoin-proofs",
        groth16_c2::backend(),
        groth16_c2::threads()
    );
    for p in [&porep, &snap, &window, &winning] {
        report(p);
    }
    println!(
        "  (commit 2 and each proof include loading the params and filecoin-proofs' own check \
         of the proof)"
    );

    if let (Some(out), Some(commit)) = (curio_inputs, commit_for_curio) {
        curio::write_inputs(
            out,
            curio::Inputs {
                miner_id: MINER_ID,
                commit,
                snap: curio::SnapInputs {
                    sector_key: &cc,
                    replica: &updated.replica,
                    cache: &updated.cache,
                    comm_r_new: updated.comm_r_new,
                    comm_d_new: updated.comm_d_new,
                },
                post_sectors: &sectors,
                window_randomness,
                winning_randomness,
            },
        )?;
        println!(
            "filecoin-seal-check: the inputs for Curio's engine are in {}",
            out.display()
        );
    }
    Ok(())
}

/// Prints one proof type's stages, times and rejected tamperings.
fn report(p: &Proved) {
    println!("  {}:", p.what);
    match p.params_time {
        Some(t) => println!("    params generation   {:>10.1} s  (this run)", secs(t)),
        None => println!("    params generation            -  (reused from the cache)"),
    }
    for (stage, t) in &p.stages {
        println!("    {stage:<19} {:>10.3} s", secs(*t));
    }
    println!(
        "    proof               {:>10.3} s  (groth16-c2: {} call(s), {} circuit(s), {} checked)",
        secs(p.prove.time),
        p.prove.calls,
        p.prove.circuits,
        p.prove.checked
    );
    println!("    verify              {:>10.3} s", secs(p.verify));
    println!("    rejected tampered proofs:");
    for (what, outcome) in &p.rejections {
        println!("      {what:<28} {outcome}");
    }
}

/// 32 random bytes that read as a BLS12-381 scalar (below 2^254, so below its modulus).
fn field_element(rng: &mut ChaCha8Rng) -> ChallengeSeed {
    let mut v: [u8; 32] = rng.gen();
    v[31] &= 0x3f;
    v
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

/// Defaults for filecoin-proofs' settings (a persistent parameter cache, and the parent cache in
/// the work folder, not /var/tmp), and groth16-c2's shape lines on.
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
    // Each circuit's shape (sizes, densities, 0/1 shares) as groth16-c2 sees it.
    if env::var_os("GROTH16_C2_LOG_SHAPES").is_none() {
        env::set_var("GROTH16_C2_LOG_SHAPES", "1");
    }
}

pub fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let start = Instant::now();
    let out = f()?;
    Ok((out, start.elapsed()))
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
