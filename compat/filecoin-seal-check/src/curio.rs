//! Curio's proving engine (cuzk) as the host: the inputs its client (`cuzk-bench single`) sends
//! for each proof type, in the forms Curio's Go side writes them, and the check of the proofs it
//! returns with filecoin-proofs' verifiers. `scripts/curio-check.sh` runs the engine between the
//! two.
//!
//! Written to the inputs folder:
//! - `c1.json`: Commit-1's output in Curio's Commit2In form (`Phase1Out` is base64 of the JSON of
//!   filecoin-proofs-api's `SealCommitPhase1Output`, as Go's `encoding/json` writes `[]byte`);
//! - `snap.json`, `window-<k>.json`, `winning.json`: the vanilla proofs, a JSON array of base64
//!   strings of their bincode form (Go's `json.Marshal([][]byte)`);
//! - `args.sh`: the numbers and hex strings the client's flags take, one `NAME=value` a line;
//! - `case.json`: what the proofs are verified against.
//!
//! The script writes each returned proof as hex to `<kind>.proof` (`porep`, `snap`, `window-<k>`,
//! `winning`) in the same folder; `--curio-verify` then checks them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use filecoin_proofs::{
    generate_fallback_sector_challenges, generate_partition_proofs, generate_single_vanilla_proof,
    generate_winning_post_sector_challenge, verify_empty_sector_update_proof, verify_seal,
    verify_window_post, verify_winning_post, ChallengeSeed, Commitment, PoStConfig,
    PrivateReplicaInfo, ProverId, PublicReplicaInfo, SectorUpdateConfig, Ticket,
};
use filecoin_proofs_api::seal::{SealCommitPhase1Output, VanillaSealProof};
use serde::{Deserialize, Serialize};
use storage_proofs_core::sector::SectorId;

use crate::configs;
use crate::sector::Sector;
use crate::Tree;

/// The numbers `cuzk-bench single --registered-proof` takes (Go's `abi` enums): the engine maps
/// Window PoSt's 10 (`StackedDrgWindow2KiBV1_1`) to filecoin-proofs-api's `V1_2`.
const WINNING_POST_2KIB: u64 = 0;
const WINDOW_POST_2KIB_V1_1: u64 = 10;
const UPDATE_2KIB: u64 = 0;

/// What the engine's proofs are checked against.
#[derive(Serialize, Deserialize)]
pub struct Case {
    pub miner_id: u64,
    pub porep: PorepCase,
    pub snap: SnapCase,
    pub window: PostCase,
    pub winning: PostCase,
}

#[derive(Serialize, Deserialize)]
pub struct PorepCase {
    pub sector: u64,
    pub comm_r: Commitment,
    pub comm_d: Commitment,
    pub ticket: Ticket,
    pub seed: Ticket,
}

#[derive(Serialize, Deserialize)]
pub struct SnapCase {
    pub comm_r_old: Commitment,
    pub comm_r_new: Commitment,
    pub comm_d_new: Commitment,
}

/// A PoSt's randomness and the sectors (id, comm_r) it is verified over, in partition order.
#[derive(Serialize, Deserialize)]
pub struct PostCase {
    pub randomness: ChallengeSeed,
    pub sectors: Vec<(u64, Commitment)>,
    pub partitions: usize,
}

/// The SnapDeals update the engine is asked to prove: the sector key (the CC sector) and the new
/// replica with their caches and commitments.
pub struct SnapInputs<'a> {
    pub sector_key: &'a Sector,
    pub replica: &'a Path,
    pub cache: &'a Path,
    pub comm_r_new: Commitment,
    pub comm_d_new: Commitment,
}

/// Lotus's and Curio's prover id for a miner: the payload of its ID address (the actor id as an
/// unsigned LEB128 varint), left-aligned in 32 bytes.
pub fn prover_id(miner_id: u64) -> ProverId {
    let mut id = [0u8; 32];
    let mut rest = miner_id;
    for byte in id.iter_mut() {
        *byte = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            break;
        }
        *byte |= 0x80;
    }
    id
}

/// Commit-1's output as Curio stores it (its Commit2In JSON), and what the proof is checked
/// against.
pub struct CommitInput {
    json: Vec<u8>,
    case: PorepCase,
}

/// Made before Commit-2 takes the output (it is not `Clone`): the vanilla proofs are copied
/// through their serialized form into filecoin-proofs-api's type.
pub fn commit2_in(
    c1: &filecoin_proofs::SealCommitPhase1Output<Tree>,
    sector: SectorId,
) -> Result<CommitInput> {
    let vanilla = serde_json::from_value(serde_json::to_value(&c1.vanilla_proofs)?)?;
    let api_output = SealCommitPhase1Output {
        registered_proof: configs::SEAL,
        vanilla_proofs: VanillaSealProof::StackedDrg2KiBV1(vanilla),
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        replica_id: c1.replica_id,
        seed: c1.seed,
        ticket: c1.ticket,
    };
    let phase1 = serde_json::to_vec(&api_output).context("serializing the C1 output")?;
    let case = PorepCase {
        sector: u64::from(sector),
        comm_r: c1.comm_r,
        comm_d: c1.comm_d,
        ticket: c1.ticket,
        seed: c1.seed,
    };
    let json = serde_json::to_vec(&serde_json::json!({
        "SectorNum": case.sector,
        "Phase1Out": BASE64.encode(phase1),
        "SectorSize": u64::from(configs::seal().sector_size),
    }))?;
    Ok(CommitInput { json, case })
}

/// Everything in one place to write the inputs folder.
pub struct Inputs<'a> {
    pub miner_id: u64,
    pub commit: CommitInput,
    pub snap: SnapInputs<'a>,
    pub post_sectors: &'a [&'a Sector],
    pub window_randomness: ChallengeSeed,
    pub winning_randomness: ChallengeSeed,
}

/// Writes the engine's inputs and the case file into `dir`.
pub fn write_inputs(dir: &Path, inputs: Inputs) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let prover = prover_id(inputs.miner_id);
    let mut args = String::new();
    let mut arg = |name: &str, value: String| writeln!(args, "{name}={value}").expect("a String");
    arg("MINER_ID", inputs.miner_id.to_string());

    // PoRep: the C1 output as Curio stores it.
    let porep = inputs.commit.case;
    write(dir, "c1.json", &inputs.commit.json)?;
    arg("POREP_SECTOR", porep.sector.to_string());

    // SnapDeals: one vanilla proof per update partition.
    let snap = inputs.snap;
    let update = SectorUpdateConfig::from_porep_config(&configs::update());
    let partition_proofs = generate_partition_proofs::<Tree>(
        update,
        snap.sector_key.comm_r,
        snap.comm_r_new,
        snap.comm_d_new,
        &snap.sector_key.replica,
        &snap.sector_key.cache,
        snap.replica,
        snap.cache,
    )
    .context("the SnapDeals vanilla proofs")?;
    let encoded = partition_proofs
        .iter()
        .map(bincode::serialize)
        .collect::<Result<Vec<_>, _>>()?;
    write_vanilla(dir, "snap.json", &encoded)?;
    let snap_case = SnapCase {
        comm_r_old: snap.sector_key.comm_r,
        comm_r_new: snap.comm_r_new,
        comm_d_new: snap.comm_d_new,
    };
    arg("SNAP_REGISTERED_PROOF", UPDATE_2KIB.to_string());
    arg("SNAP_COMM_R_OLD", hex(&snap_case.comm_r_old));
    arg("SNAP_COMM_R_NEW", hex(&snap_case.comm_r_new));
    arg("SNAP_COMM_D_NEW", hex(&snap_case.comm_d_new));

    // Window PoSt: the sectors in id order, split into partitions as the verifier splits them.
    let config = configs::window_post();
    let mut sorted: Vec<&Sector> = inputs.post_sectors.to_vec();
    sorted.sort_by_key(|s| u64::from(s.id));
    let randomness = inputs.window_randomness;
    let ids: Vec<SectorId> = sorted.iter().map(|s| s.id).collect();
    let challenges =
        generate_fallback_sector_challenges::<Tree>(&config, &randomness, &ids, prover)
            .context("the Window PoSt challenges")?;
    let partitions = sorted.chunks(config.sector_count).len();
    for (k, part) in sorted.chunks(config.sector_count).enumerate() {
        let proofs = vanilla_post_proofs(&config, part, &challenges)?;
        write_vanilla(dir, &format!("window-{k}.json"), &proofs)?;
    }
    let window = PostCase {
        randomness,
        sectors: sorted.iter().map(|s| (u64::from(s.id), s.comm_r)).collect(),
        partitions,
    };
    arg("WINDOW_REGISTERED_PROOF", WINDOW_POST_2KIB_V1_1.to_string());
    arg("WINDOW_RANDOMNESS", hex(&randomness));
    arg("WINDOW_PARTITIONS", partitions.to_string());

    // Winning PoSt: the sector the randomness picks.
    let config = configs::winning_post();
    let randomness = inputs.winning_randomness;
    let sectors = inputs.post_sectors;
    let picked = generate_winning_post_sector_challenge::<Tree>(
        &config,
        &randomness,
        sectors.len() as u64,
        prover,
    )
    .context("the Winning PoSt sector challenge")?;
    let chosen: Vec<&Sector> = picked.iter().map(|&i| sectors[i as usize]).collect();
    let ids: Vec<SectorId> = chosen.iter().map(|s| s.id).collect();
    let challenges =
        generate_fallback_sector_challenges::<Tree>(&config, &randomness, &ids, prover)
            .context("the Winning PoSt challenges")?;
    let proofs = vanilla_post_proofs(&config, &chosen, &challenges)?;
    write_vanilla(dir, "winning.json", &proofs)?;
    let winning = PostCase {
        randomness,
        sectors: chosen.iter().map(|s| (u64::from(s.id), s.comm_r)).collect(),
        partitions: 1,
    };
    arg("WINNING_REGISTERED_PROOF", WINNING_POST_2KIB.to_string());
    arg("WINNING_RANDOMNESS", hex(&randomness));

    let case = Case {
        miner_id: inputs.miner_id,
        porep,
        snap: snap_case,
        window,
        winning,
    };
    write(dir, "case.json", &serde_json::to_vec_pretty(&case)?)?;
    write(dir, "args.sh", args.as_bytes())?;
    Ok(())
}

/// One proof type's verification, given the proof's bytes.
type Verifier = Box<dyn Fn(&[u8]) -> Result<bool>>;

/// Checks the engine's proofs in `dir` against `case.json`: each must verify, and the same proof
/// with one flipped bit must not. Prints one line per proof.
pub fn verify_outputs(dir: &Path) -> Result<()> {
    let case: Case = serde_json::from_slice(&read(dir, "case.json")?)
        .context("reading case.json (written by --curio-inputs)")?;
    let prover = prover_id(case.miner_id);
    let mut checks: Vec<(String, Verifier)> = Vec::new();

    let porep = case.porep;
    checks.push((
        "porep".into(),
        Box::new(move |proof| {
            verify_seal::<Tree>(
                &configs::seal(),
                porep.comm_r,
                porep.comm_d,
                prover,
                SectorId::from(porep.sector),
                porep.ticket,
                porep.seed,
                proof,
            )
        }),
    ));
    let snap = case.snap;
    checks.push((
        "snap".into(),
        Box::new(move |proof| {
            verify_empty_sector_update_proof::<Tree>(
                &configs::update(),
                proof,
                snap.comm_r_old,
                snap.comm_r_new,
                snap.comm_d_new,
            )
        }),
    ));
    let window = case.window;
    let window_public = public_replicas(&window.sectors)?;
    let partitions = window.partitions;
    checks.push((
        "window".into(),
        Box::new(move |proof| {
            verify_window_post::<Tree>(
                &configs::window_post(),
                &window.randomness,
                &window_public,
                prover,
                proof,
            )
        }),
    ));
    let winning = case.winning;
    let winning_public: Vec<_> = public_replicas(&winning.sectors)?.into_iter().collect();
    checks.push((
        "winning".into(),
        Box::new(move |proof| {
            verify_winning_post::<Tree>(
                &configs::winning_post(),
                &winning.randomness,
                &winning_public,
                prover,
                proof,
            )
        }),
    ));

    let mut failures = Vec::new();
    for (kind, check) in &checks {
        // Window PoSt arrives one partition a call; the verifier takes them concatenated in
        // partition order, as Lotus merges them.
        let proof = if kind == "window" {
            let mut whole = Vec::new();
            for k in 0..partitions {
                whole.extend(read_proof(dir, &format!("window-{k}"))?);
            }
            whole
        } else {
            read_proof(dir, kind)?
        };
        let valid = check(&proof).with_context(|| format!("verifying the {kind} proof"))?;
        let mut flipped = proof.clone();
        flipped[100] ^= 0x01;
        let tampered = !matches!(check(&flipped), Ok(false) | Err(_));
        println!(
            "  {kind:<8} {} bytes: {}; with a flipped bit: {}",
            proof.len(),
            if valid { "verified" } else { "REJECTED" },
            if tampered { "ACCEPTED" } else { "rejected" },
        );
        if !valid || tampered {
            failures.push(kind.clone());
        }
    }
    ensure!(
        failures.is_empty(),
        "the engine's proofs failed filecoin-proofs' verification: {}",
        failures.join(", ")
    );
    Ok(())
}

fn vanilla_post_proofs(
    config: &PoStConfig,
    sectors: &[&Sector],
    challenges: &BTreeMap<SectorId, Vec<u64>>,
) -> Result<Vec<Vec<u8>>> {
    sectors
        .iter()
        .map(|s| {
            let replica =
                PrivateReplicaInfo::<Tree>::new(s.replica.clone(), s.comm_r, s.cache.clone())?;
            let challenged = challenges
                .get(&s.id)
                .context("a sector without challenges")?;
            let proof = generate_single_vanilla_proof::<Tree>(config, s.id, &replica, challenged)
                .context("a PoSt vanilla proof")?;
            Ok(bincode::serialize(&proof)?)
        })
        .collect()
}

fn public_replicas(sectors: &[(u64, Commitment)]) -> Result<BTreeMap<SectorId, PublicReplicaInfo>> {
    sectors
        .iter()
        .map(|&(id, comm_r)| Ok((SectorId::from(id), PublicReplicaInfo::new(comm_r)?)))
        .collect()
}

fn write_vanilla(dir: &Path, name: &str, proofs: &[Vec<u8>]) -> Result<()> {
    let encoded: Vec<String> = proofs.iter().map(|p| BASE64.encode(p)).collect();
    write(dir, name, &serde_json::to_vec(&encoded)?)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>> {
    let path = dir.join(name);
    fs::read(&path).with_context(|| format!("reading {}", path.display()))
}

/// A proof the script saved from the client's output: hex, 192 bytes a partition.
fn read_proof(dir: &Path, kind: &str) -> Result<Vec<u8>> {
    let text = String::from_utf8(read(dir, &format!("{kind}.proof"))?)?;
    let text = text.trim();
    ensure!(
        !text.is_empty() && text.len() % 2 == 0,
        "{kind}.proof is not a hex proof"
    );
    let bytes = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .with_context(|| format!("{kind}.proof is not hex"))?;
    if bytes.len() % crate::PROOF_LEN != 0 {
        bail!(
            "{kind}.proof has {} bytes, not a whole number of {}-byte proofs",
            bytes.len(),
            crate::PROOF_LEN
        );
    }
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prover_ids_are_id_address_payloads() {
        // f01000's payload is the varint e8 07; f0100's fits one byte.
        assert_eq!(prover_id(1000)[..3], [0xe8, 0x07, 0x00]);
        assert_eq!(prover_id(100)[..2], [100, 0]);
        assert_eq!(prover_id(0), [0u8; 32]);
        let max = prover_id(u64::MAX);
        assert_eq!(
            max[..10],
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
    }
}
