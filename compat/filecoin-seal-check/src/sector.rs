//! Sealing 2 KiB sectors as a storage provider does (add piece, pre-commit 1 and 2), the start of
//! every proof this check makes.

use std::fs::{self, File};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use filecoin_proofs::{
    add_piece, compute_comm_d, generate_piece_commitment, seal_pre_commit_phase1,
    seal_pre_commit_phase2, validate_cache_for_commit, Commitment, PaddedBytesAmount, PieceInfo,
    PoRepConfig, ProverId, SealPreCommitOutput, Ticket, UnpaddedBytesAmount, SECTOR_SIZE_2_KIB,
};
use storage_proofs_core::sector::SectorId;

use crate::{timed, Tree};

/// A sealed sector: its replica, its cache (p_aux, t_aux, tree_r_last: what PoSt and SnapDeals
/// read) and commitments.
pub struct Sector {
    pub id: SectorId,
    pub replica: PathBuf,
    pub cache: PathBuf,
    pub comm_r: Commitment,
    pub comm_d: Commitment,
    pub pieces: Vec<PieceInfo>,
}

/// The unpadded capacity of a 2 KiB sector (2032 bytes).
pub fn capacity() -> UnpaddedBytesAmount {
    UnpaddedBytesAmount::from(PaddedBytesAmount(SECTOR_SIZE_2_KIB))
}

/// Writes `data` (one piece filling the sector) as a staged sector in `dir`; returns its path and
/// the piece.
pub fn stage(dir: &Path, name: &str, data: &[u8]) -> Result<(PathBuf, PieceInfo)> {
    let size = capacity();
    ensure!(
        data.len() as u64 == u64::from(size),
        "a piece fills the sector"
    );
    let piece_path = dir.join(format!("{name}.piece"));
    fs::write(&piece_path, data)?;
    let piece = generate_piece_commitment(File::open(&piece_path)?, size)?;
    let staged = dir.join(format!("{name}.staged"));
    let mut staged_file = File::create(&staged)?;
    let (added, written) = add_piece(File::open(&piece_path)?, &mut staged_file, size, &[])?;
    staged_file.flush()?;
    staged_file.rewind()?;
    ensure!(
        added.commitment == piece.commitment && written == size,
        "add_piece disagrees with generate_piece_commitment"
    );
    Ok((staged, piece))
}

/// Seals `data` (a whole sector's worth: random for a sector with deals, zeros for a committed
/// capacity one) into sector `id` under `dir/name`: pre-commit 1 and 2, and the cache checked as
/// Commit-1 and PoSt need it. Returns the sector, pre-commit 2's output and the two phases'
/// times.
pub fn seal(
    config: &PoRepConfig,
    dir: &Path,
    name: &str,
    prover_id: ProverId,
    id: u64,
    ticket: Ticket,
    data: &[u8],
) -> Result<(Sector, SealPreCommitOutput, [Duration; 2])> {
    let (staged, piece) = stage(dir, name, data)?;
    let replica = dir.join(format!("{name}.sealed"));
    let cache = dir.join(format!("{name}.cache"));
    fs::create_dir_all(&cache)?;
    File::create(&replica)?;
    let pieces = vec![piece];
    let comm_d = compute_comm_d(config.sector_size, &pieces)?;
    let (pc1_out, pc1) = timed(|| {
        seal_pre_commit_phase1::<_, _, _, Tree>(
            config,
            &cache,
            &staged,
            &replica,
            prover_id,
            SectorId::from(id),
            ticket,
            &pieces,
        )
        .context("seal_pre_commit_phase1")
    })?;
    let (pre_commit, pc2) = timed(|| {
        seal_pre_commit_phase2::<_, _, Tree>(config, pc1_out, &cache, &replica)
            .context("seal_pre_commit_phase2")
    })?;
    ensure!(
        pre_commit.comm_d == comm_d,
        "pre-commit's comm_d differs from compute_comm_d's"
    );
    validate_cache_for_commit::<_, _, Tree>(&cache, &replica)
        .with_context(|| format!("the cache of sector {name}"))?;
    Ok((
        Sector {
            id: SectorId::from(id),
            replica,
            cache,
            comm_r: pre_commit.comm_r,
            comm_d,
            pieces,
        },
        pre_commit,
        [pc1, pc2],
    ))
}
