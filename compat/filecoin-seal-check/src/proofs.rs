//! The proofs besides Commit-2 that a storage provider's GPU makes, each through
//! filecoin-proofs' own API (as Lotus and Curio call it) and so through groth16-c2: a SnapDeals
//! update of a committed-capacity sector, Window PoSt over several sectors (two partitions) and
//! Winning PoSt. Each is checked by filecoin-proofs' verifier, which must also reject tampered
//! variants.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use filecoin_proofs::{
    encode_into, generate_empty_sector_update_proof, generate_window_post, generate_winning_post,
    generate_winning_post_sector_challenge, get_num_partition_for_fallback_post,
    verify_empty_sector_update_proof, verify_window_post, verify_winning_post, ChallengeSeed,
    Commitment, PoRepConfig, PrivateReplicaInfo, ProverId, PublicReplicaInfo, SectorUpdateConfig,
};

use crate::sector::{self, Sector};
use crate::{configs, params, through_groth16_c2, timed, Proved, Tree};

/// A SnapDeals update: the new replica and cache, and its new commitments.
pub struct Updated {
    pub replica: PathBuf,
    pub cache: PathBuf,
    pub comm_r_new: Commitment,
    pub comm_d_new: Commitment,
}

/// What a tampered variant's verification gave: it must not be `Ok(true)`.
fn rejected(what: &'static str, outcome: Result<bool>) -> Result<(&'static str, String)> {
    match outcome {
        Ok(true) => anyhow::bail!("the verifier accepted the proof with {what}"),
        Ok(false) => Ok((what, "Ok(false)".to_string())),
        Err(e) => Ok((
            what,
            format!("Err: {}", crate::first_line(&format!("{e:#}"))),
        )),
    }
}

/// SnapDeals: new data encoded into the committed-capacity sector `cc` (its replica is the
/// sector key), the empty sector update proof, and filecoin-proofs' verification of it.
pub fn snap_deals(
    config: &PoRepConfig,
    dir: &Path,
    cc: &Sector,
    new_data: &[u8],
) -> Result<(Proved, Updated)> {
    let files = params::update(config)?;
    let params_time = params::ensure(&files)?;
    let update_config = SectorUpdateConfig::from_porep_config(config);
    let (staged, piece) = sector::stage(dir, "snap-data", new_data)?;
    let replica = dir.join("snap.replica");
    let cache = dir.join("snap.cache");
    fs::create_dir_all(&cache)?;
    // The new replica is written in place: it must have the sealed sector's length.
    OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&replica)?
        .set_len(fs::metadata(&cc.replica)?.len())?;
    let (encoded, encode_time) = timed(|| {
        encode_into::<Tree>(
            &update_config,
            &replica,
            &cache,
            &cc.replica,
            &cc.cache,
            &staged,
            &[piece],
        )
        .context("encode_into")
    })?;
    let partitions = usize::from(update_config.update_partitions);
    let (proof, prove) = through_groth16_c2("SnapDeals", partitions, || {
        generate_empty_sector_update_proof::<Tree>(
            config,
            cc.comm_r,
            encoded.comm_r_new,
            encoded.comm_d_new,
            &cc.replica,
            &cc.cache,
            &replica,
            &cache,
        )
        .context("generate_empty_sector_update_proof")
    })?;
    let verify = |proof: &[u8], old: Commitment, new: Commitment, d: Commitment| {
        verify_empty_sector_update_proof::<Tree>(config, proof, old, new, d)
    };
    let (comm_r_old, comm_r_new, comm_d_new) = (cc.comm_r, encoded.comm_r_new, encoded.comm_d_new);
    let (valid, verify_time) = timed(|| {
        verify(&proof.0, comm_r_old, comm_r_new, comm_d_new)
            .context("verify_empty_sector_update_proof")
    })?;
    ensure!(valid, "verify_empty_sector_update_proof rejected the proof");
    let flipped = flip(&proof.0);
    let rejections = vec![
        rejected(
            "a flipped proof byte",
            verify(&flipped, comm_r_old, comm_r_new, comm_d_new),
        )?,
        rejected(
            "a wrong comm_r_old",
            verify(&proof.0, tweak(comm_r_old), comm_r_new, comm_d_new),
        )?,
        rejected(
            "a wrong comm_r_new",
            verify(&proof.0, comm_r_old, tweak(comm_r_new), comm_d_new),
        )?,
        rejected(
            "a wrong comm_d_new",
            verify(&proof.0, comm_r_old, comm_r_new, tweak(comm_d_new)),
        )?,
    ];
    let proved = Proved {
        what: "SnapDeals (empty sector update)",
        params_time,
        stages: vec![("encode_into", encode_time)],
        prove,
        verify: verify_time,
        rejections,
    };
    let updated = Updated {
        replica,
        cache,
        comm_r_new,
        comm_d_new,
    };
    Ok((proved, updated))
}

/// Window PoSt over `sectors` (two partitions' worth at 2 KiB: two sectors per partition).
pub fn window_post(
    sectors: &[&Sector],
    prover_id: ProverId,
    randomness: ChallengeSeed,
) -> Result<Proved> {
    let config = configs::window_post();
    let files = params::post(&config)?;
    let params_time = params::ensure(&files)?;
    let partitions = get_num_partition_for_fallback_post(&config, sectors.len());
    let private: BTreeMap<_, _> = sectors
        .iter()
        .map(|s| Ok((s.id, private_replica(s)?)))
        .collect::<Result<_>>()?;
    let public = public_replicas(sectors)?;
    let (proof, prove) = through_groth16_c2("Window PoSt", partitions, || {
        generate_window_post::<Tree>(&config, &randomness, &private, prover_id)
            .context("generate_window_post")
    })?;
    // No wrong-prover-id variant for PoSt: its circuits and challenges do not read the prover
    // id (a PoSt is bound to its miner on chain), so the verifier rightly accepts one.
    let verify =
        |randomness: &ChallengeSeed, public: &BTreeMap<_, PublicReplicaInfo>, proof: &[u8]| {
            verify_window_post::<Tree>(&config, randomness, public, prover_id, proof)
        };
    let (valid, verify_time) =
        timed(|| verify(&randomness, &public, &proof).context("verify_window_post"))?;
    ensure!(valid, "verify_window_post rejected the proof");
    let mut wrong_sector = public.clone();
    wrong_sector.insert(
        sectors[0].id,
        PublicReplicaInfo::new(tweak(sectors[0].comm_r))?,
    );
    let rejections = vec![
        rejected(
            "a flipped proof byte",
            verify(&randomness, &public, &flip(&proof)),
        )?,
        rejected(
            "other randomness",
            verify(&tweak(randomness), &public, &proof),
        )?,
        rejected(
            "a sector's wrong comm_r",
            verify(&randomness, &wrong_sector, &proof),
        )?,
    ];
    Ok(Proved {
        what: "Window PoSt",
        params_time,
        stages: vec![],
        prove,
        verify: verify_time,
        rejections,
    })
}

/// Winning PoSt: the sector the chain's randomness picks among `sectors`.
pub fn winning_post(
    sectors: &[&Sector],
    prover_id: ProverId,
    randomness: ChallengeSeed,
) -> Result<Proved> {
    let config = configs::winning_post();
    let files = params::post(&config)?;
    let params_time = params::ensure(&files)?;
    let picked = generate_winning_post_sector_challenge::<Tree>(
        &config,
        &randomness,
        sectors.len() as u64,
        prover_id,
    )
    .context("generate_winning_post_sector_challenge")?;
    let chosen: Vec<&Sector> = picked.iter().map(|&i| sectors[i as usize]).collect();
    let private: Vec<_> = chosen
        .iter()
        .map(|s| Ok((s.id, private_replica(s)?)))
        .collect::<Result<_>>()?;
    let public: Vec<_> = chosen
        .iter()
        .map(|s| Ok((s.id, PublicReplicaInfo::new(s.comm_r)?)))
        .collect::<Result<_>>()?;
    let (proof, prove) = through_groth16_c2("Winning PoSt", 1, || {
        generate_winning_post::<Tree>(&config, &randomness, &private, prover_id)
            .context("generate_winning_post")
    })?;
    let verify = |randomness: &ChallengeSeed, public: &[_], proof: &[u8]| {
        verify_winning_post::<Tree>(&config, randomness, public, prover_id, proof)
    };
    let (valid, verify_time) =
        timed(|| verify(&randomness, &public, &proof).context("verify_winning_post"))?;
    ensure!(valid, "verify_winning_post rejected the proof");
    let wrong_sector: Vec<_> = chosen
        .iter()
        .map(|s| Ok((s.id, PublicReplicaInfo::new(tweak(s.comm_r))?)))
        .collect::<Result<_>>()?;
    let rejections = vec![
        rejected(
            "a flipped proof byte",
            verify(&randomness, &public, &flip(&proof)),
        )?,
        rejected(
            "other randomness",
            verify(&tweak(randomness), &public, &proof),
        )?,
        rejected(
            "the sector's wrong comm_r",
            verify(&randomness, &wrong_sector, &proof),
        )?,
    ];
    Ok(Proved {
        what: "Winning PoSt",
        params_time,
        stages: vec![],
        prove,
        verify: verify_time,
        rejections,
    })
}

fn private_replica(s: &Sector) -> Result<PrivateReplicaInfo<Tree>> {
    PrivateReplicaInfo::new(s.replica.clone(), s.comm_r, s.cache.clone())
}

fn public_replicas(
    sectors: &[&Sector],
) -> Result<BTreeMap<storage_proofs_core::sector::SectorId, PublicReplicaInfo>> {
    sectors
        .iter()
        .map(|s| Ok((s.id, PublicReplicaInfo::new(s.comm_r)?)))
        .collect()
}

/// The proof with one bit of its second point flipped (usually no valid point any more).
fn flip(proof: &[u8]) -> Vec<u8> {
    let mut p = proof.to_vec();
    p[100] ^= 0x01;
    p
}

/// A 32-byte value with its low byte changed: still a valid field element (little-endian).
fn tweak(mut v: [u8; 32]) -> [u8; 32] {
    v[0] ^= 0x01;
    v
}
