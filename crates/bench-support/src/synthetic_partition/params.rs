//! Writes an SRS as a bellperson params file (`Parameters::write`, docs/design.md, "The params
//! file"), so that a synthetic SRS can be benched through the file loader too.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use blstrs::{G1Affine, G2Affine};
use groth16_c2::srs::SrsData;
use rayon::prelude::*;

/// Bytes of an uncompressed G1 and G2 point in a params file.
const G1_BYTES: usize = 96;
const G2_BYTES: usize = 192;

/// Points encoded per write: bounds the buffer (24 MiB of G1) while every core encodes.
const POINTS_PER_WRITE: usize = 1 << 18;

/// Writes `srs` to `path` in bellperson's format: the verifying key, then `ic`, `h`, `l`, `a`,
/// `b_g1` (each a big-endian u32 count and uncompressed G1 points), then `b_g2` (G2). The
/// file loads back with [`Srs::load`](groth16_c2::Srs::load). It writes `path` in place:
/// callers that cache files should write to a temporary name and rename.
pub fn write_params(srs: &SrsData, path: &Path) -> std::io::Result<()> {
    let with_path =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut f = BufWriter::with_capacity(1 << 22, File::create(path).map_err(with_path)?);
    write_all(srs, &mut f).map_err(with_path)?;
    f.into_inner()
        .map_err(|e| with_path(e.into_error()))?
        .sync_all()
        .map_err(with_path)
}

fn write_all(srs: &SrsData, f: &mut impl Write) -> std::io::Result<()> {
    let vk = &srs.vk;
    for p in [&vk.alpha_g1, &vk.beta_g1] {
        f.write_all(&p.to_uncompressed())?;
    }
    for p in [&vk.beta_g2, &vk.gamma_g2] {
        f.write_all(&p.to_uncompressed())?;
    }
    f.write_all(&vk.delta_g1.to_uncompressed())?;
    f.write_all(&vk.delta_g2.to_uncompressed())?;
    for (name, query) in [
        ("ic", &vk.ic),
        ("h", &srs.h),
        ("l", &srs.l),
        ("a", &srs.a),
        ("b_g1", &srs.b_g1),
    ] {
        write_section(f, name, query)?;
    }
    write_section(f, "b_g2", &srs.b_g2)
}

/// A point with the 96- or 192-byte uncompressed encoding bellperson writes.
trait Uncompressed: Sync {
    const BYTES: usize;
    fn encode_into(&self, out: &mut [u8]);
}

impl Uncompressed for G1Affine {
    const BYTES: usize = G1_BYTES;
    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_uncompressed());
    }
}

impl Uncompressed for G2Affine {
    const BYTES: usize = G2_BYTES;
    fn encode_into(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_uncompressed());
    }
}

/// A u32 count, then the points, encoded in parallel a batch at a time.
fn write_section<P: Uncompressed>(
    f: &mut impl Write,
    name: &str,
    points: &[P],
) -> std::io::Result<()> {
    let count = u32::try_from(points.len()).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "section `{name}` has {} points, more than a params file can count (u32)",
                points.len()
            ),
        )
    })?;
    f.write_all(&count.to_be_bytes())?;
    let mut buf = Vec::new();
    for batch in points.chunks(POINTS_PER_WRITE) {
        buf.resize(batch.len() * P::BYTES, 0);
        buf.par_chunks_mut(P::BYTES)
            .zip(batch.par_iter())
            .with_min_len(1 << 10)
            .for_each(|(out, p)| p.encode_into(out));
        f.write_all(&buf)?;
    }
    Ok(())
}
