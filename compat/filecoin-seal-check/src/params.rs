//! The Groth16 parameters of every circuit this check proves (PoRep, SnapDeals' empty sector
//! update, Window and Winning PoSt) in filecoin-proofs' parameter cache
//! (`FIL_PROOFS_PARAMETER_CACHE`).
//!
//! With `cuda-supraseal`, filecoin-proofs never generates parameters: a proof fails when the
//! `.params` file is missing and its verification fails when the `.vk` file is missing. So this
//! module generates both, once per circuit, under the names the cache looks up
//! (`v28-<id>.params`, `v28-<id>.vk`). Files are written under a temporary name and renamed, so a
//! file under its final name is complete; a truncated or mismatched one (written by another tool,
//! or a full disk) is detected by its section sizes and regenerated.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bellperson::groth16::{self, Parameters, VerifyingKey};
use blstrs::Bls12;
use filecoin_proofs::{
    parameters::{public_params, window_post_public_params, winning_post_public_params},
    DefaultPieceHasher, PoRepConfig, PoStConfig, PoStType,
};
use rand::rngs::OsRng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::parameter_cache::{
    parameter_cache_params_path, parameter_cache_verifying_key_path, CacheableParameters,
};
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound,
    PublicParams as UpdatePublicParams,
};

use crate::Tree;

type Compound = StackedCompound<Tree, DefaultPieceHasher>;

/// One circuit's files in the cache, and how to make its parameters.
pub struct ParamFiles {
    /// What the circuit proves ("PoRep", "SnapDeals", ...), for messages.
    pub what: &'static str,
    pub params: PathBuf,
    pub vk: PathBuf,
    generate: Box<dyn Fn() -> Result<Parameters<Bls12>>>,
}

impl ParamFiles {
    fn new(
        what: &'static str,
        id: &str,
        generate: impl Fn() -> Result<Parameters<Bls12>> + 'static,
    ) -> ParamFiles {
        ParamFiles {
            what,
            params: parameter_cache_params_path(id),
            vk: parameter_cache_verifying_key_path(id),
            generate: Box::new(generate),
        }
    }
}

/// The PoRep (Commit-2) circuit's files.
pub fn porep(config: &PoRepConfig) -> Result<ParamFiles> {
    let pp = public_params::<Tree>(config)?;
    let id = <Compound as CacheableParameters<
        StackedCircuit<Tree, DefaultPieceHasher>,
        stacked::PublicParams<Tree>,
    >>::cache_identifier(&pp);
    Ok(ParamFiles::new("PoRep", &id, move || {
        let circuit =
            <Compound as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::blank_circuit(
                &pp,
            );
        random_parameters(circuit)
    }))
}

/// The empty sector update (SnapDeals) circuit's files, for sectors of `config`.
pub fn update(config: &PoRepConfig) -> Result<ParamFiles> {
    let pp = UpdatePublicParams::from_sector_size(u64::from(config.sector_size));
    let id = <EmptySectorUpdateCompound<Tree> as CacheableParameters<
        EmptySectorUpdateCircuit<Tree>,
        UpdatePublicParams,
    >>::cache_identifier(&pp);
    Ok(ParamFiles::new("SnapDeals", &id, move || {
        let circuit = <EmptySectorUpdateCompound<Tree> as CompoundProof<
            EmptySectorUpdate<Tree>,
            EmptySectorUpdateCircuit<Tree>,
        >>::blank_circuit(&pp);
        random_parameters(circuit)
    }))
}

/// A PoSt circuit's files (Window or Winning, as `config` says).
pub fn post(config: &PoStConfig) -> Result<ParamFiles> {
    let (what, pp) = match config.typ {
        PoStType::Window => ("Window PoSt", window_post_public_params::<Tree>(config)?),
        PoStType::Winning => ("Winning PoSt", winning_post_public_params::<Tree>(config)?),
    };
    let id = config.get_cache_identifier::<Tree>()?;
    Ok(ParamFiles::new(what, &id, move || {
        let circuit = <FallbackPoStCompound<Tree> as CompoundProof<
            FallbackPoSt<'_, Tree>,
            FallbackPoStCircuit<Tree>,
        >>::blank_circuit(&pp);
        random_parameters(circuit)
    }))
}

fn random_parameters<C: bellperson::Circuit<blstrs::Scalar>>(
    circuit: C,
) -> Result<Parameters<Bls12>> {
    groth16::generate_random_parameters::<Bls12, _, _>(circuit, &mut OsRng)
        .context("generating Groth16 parameters")
}

/// Makes sure both files are in the cache; returns the generation time when it had to generate.
pub fn ensure(files: &ParamFiles) -> Result<Option<Duration>> {
    let dir = files
        .params
        .parent()
        .context("parameter path has no folder")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;

    // Processes sharing the cache take turns, so only the first generates.
    let lock_path = files.params.with_extension("lock");
    let lock = File::create(&lock_path).with_context(|| format!("{}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", lock_path.display()))?;

    if files.params.exists() {
        match vk_len_if_complete(&files.params) {
            Ok(vk_len) => {
                ensure_vk(files, vk_len)?;
                return Ok(None);
            }
            Err(why) => {
                eprintln!(
                    "filecoin-seal-check: {} is unusable ({why:#}); regenerating it",
                    files.params.display()
                );
                fs::remove_file(&files.params)?;
                let _ = fs::remove_file(&files.vk);
            }
        }
    }

    eprintln!(
        "filecoin-seal-check: generating the 2 KiB {} parameters into {} (once per cache; the \
         PoRep ones take 10-18 min on 2 cores, 2 min on 16)",
        files.what,
        dir.display()
    );
    let start = Instant::now();
    let params = (files.generate)()?;
    let took = start.elapsed();
    write_atomically(&files.params, |w| params.write(w))?;
    write_atomically(&files.vk, |w| params.vk.write(w))?;
    Ok(Some(took))
}

/// Checks that the file is exactly as long as its section counts say (bellperson's
/// `Parameters::write` layout: the verifying key, then the h, l, a, b_g1 and b_g2 sections, each
/// a big-endian u32 count and uncompressed points) and returns the verifying key's length.
fn vk_len_if_complete(path: &Path) -> Result<u64> {
    const G1: u64 = 96;
    const G2: u64 = 192;
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    // alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, then the ic section.
    let mut offset = 3 * G1 + 3 * G2;
    let mut vk_len = 0;
    for (i, point) in [G1, G1, G1, G1, G1, G2].into_iter().enumerate() {
        if offset + 4 > len {
            bail!("the file ends at byte {len}, inside section {i}");
        }
        file.seek(SeekFrom::Start(offset))?;
        let mut count = [0u8; 4];
        file.read_exact(&mut count)?;
        offset += 4 + u64::from(u32::from_be_bytes(count)) * point;
        if i == 0 {
            vk_len = offset;
        }
    }
    if offset != len {
        bail!("its sections need {offset} bytes but it has {len}");
    }
    Ok(vk_len)
}

/// Writes the `.vk` file from the params file's first `vk_len` bytes unless it already matches.
fn ensure_vk(files: &ParamFiles, vk_len: u64) -> Result<()> {
    let mut prefix = Vec::new();
    File::open(&files.params)?
        .take(vk_len)
        .read_to_end(&mut prefix)?;
    if fs::read(&files.vk).ok().as_deref() == Some(&prefix[..]) {
        return Ok(());
    }
    // Parse it first: a params file whose key does not decode must not pass as good.
    VerifyingKey::<Bls12>::read(&prefix[..])
        .with_context(|| format!("the verifying key in {}", files.params.display()))?;
    write_atomically(&files.vk, |w| w.write_all(&prefix))
}

fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let result = (|| -> io::Result<()> {
        let mut w = BufWriter::new(File::create(&tmp)?);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}
