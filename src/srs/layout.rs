//! Where each section of a bellperson Groth16 params file lies, computed from the header
//! and checked against the file size before a single point is decoded.
//!
//! The file is `Parameters::write`: the verifying key (`alpha_g1, beta_g1, beta_g2, gamma_g2,
//! delta_g1, delta_g2`, then a u32 count and the `ic` points), then for each of `h, l, a, b_g1`
//! a u32 count and that many uncompressed G1 points, then a u32 count and the `b_g2` points.
//! Everything is big-endian with no padding.

use std::ops::Range;
use std::path::Path;

use crate::error::{Error, Result};

/// Bytes of an uncompressed G1 point.
pub const G1_BYTES: usize = 96;
/// Bytes of an uncompressed G2 point.
pub const G2_BYTES: usize = 192;
/// The fixed part of the verifying key before the `ic` count.
pub const VK_FIXED_BYTES: usize = 3 * G1_BYTES + 3 * G2_BYTES;

/// One counted section of the file: its name, point count and byte range of the points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    pub count: usize,
    pub bytes: Range<usize>,
}

/// The byte ranges of every part of a params file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub ic: Section,
    pub h: Section,
    pub l: Section,
    pub a: Section,
    pub b_g1: Section,
    pub b_g2: Section,
}

impl Layout {
    /// Reads the counts from `file` and checks that every section fits in it exactly.
    pub fn parse(path: &Path, file: &[u8]) -> Result<Layout> {
        let malformed = |reason: String| Error::MalformedParams {
            path: path.to_path_buf(),
            reason,
        };
        if file.is_empty() {
            return Err(malformed("the file is empty".into()));
        }
        if file.len() < VK_FIXED_BYTES {
            return Err(malformed(format!(
                "truncated in the verifying key: it needs {VK_FIXED_BYTES} bytes, the file has {}",
                file.len()
            )));
        }
        let mut offset = VK_FIXED_BYTES;
        let mut section = |name: &'static str, point_bytes: usize| -> Result<Section> {
            let count_end = offset + 4;
            if file.len() < count_end {
                return Err(malformed(format!(
                    "truncated before the point count of section `{name}` (offset {offset}, file size {})",
                    file.len()
                )));
            }
            let count =
                u32::from_be_bytes(file[offset..count_end].try_into().expect("4 bytes")) as usize;
            let available = (file.len() - count_end) / point_bytes;
            let end = count
                .checked_mul(point_bytes)
                .and_then(|n| n.checked_add(count_end))
                .filter(|&end| end <= file.len())
                .ok_or_else(|| {
                    malformed(format!(
                        "truncated in section `{name}`: expected {count} points, the file ends after {available}"
                    ))
                })?;
            offset = end;
            Ok(Section {
                name,
                count,
                bytes: count_end..end,
            })
        };
        let layout = Layout {
            ic: section("ic", G1_BYTES)?,
            h: section("h", G1_BYTES)?,
            l: section("l", G1_BYTES)?,
            a: section("a", G1_BYTES)?,
            b_g1: section("b_g1", G1_BYTES)?,
            b_g2: section("b_g2", G2_BYTES)?,
        };
        let end = layout.b_g2.bytes.end;
        if end != file.len() {
            return Err(malformed(format!(
                "{} unexpected bytes after the last section `b_g2` (which ends at offset {end})",
                file.len() - end
            )));
        }
        if layout.b_g1.count != layout.b_g2.count {
            return Err(malformed(format!(
                "section `b_g1` has {} points but `b_g2` has {}; they must match",
                layout.b_g1.count, layout.b_g2.count
            )));
        }
        if layout.ic.count == 0 {
            return Err(malformed(
                "section `ic` is empty; it needs at least the point for the constant input ONE"
                    .into(),
            ));
        }
        Ok(layout)
    }

    /// Total size of the file this layout describes.
    pub fn file_len(&self) -> usize {
        self.b_g2.bytes.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with_counts(counts: [u32; 6]) -> Vec<u8> {
        let mut f = vec![0u8; VK_FIXED_BYTES];
        for (i, &c) in counts.iter().enumerate() {
            f.extend_from_slice(&c.to_be_bytes());
            let size = if i == 5 { G2_BYTES } else { G1_BYTES };
            f.resize(f.len() + c as usize * size, 0);
        }
        f
    }

    #[test]
    fn sections_follow_each_other() {
        let f = file_with_counts([2, 3, 4, 5, 6, 6]);
        let l = Layout::parse(Path::new("x"), &f).unwrap();
        assert_eq!(l.ic.bytes.start, VK_FIXED_BYTES + 4);
        assert_eq!(l.h.count, 3);
        assert_eq!(l.h.bytes.start, l.ic.bytes.end + 4);
        assert_eq!(l.b_g2.bytes.len(), 6 * G2_BYTES);
        assert_eq!(l.file_len(), f.len());
    }

    #[test]
    fn truncation_names_the_section() {
        let f = file_with_counts([2, 3, 4, 5, 6, 6]);
        let l = Layout::parse(Path::new("x"), &f).unwrap();
        let cut = &f[..l.a.bytes.start + 2 * G1_BYTES + 7];
        let err = Layout::parse(Path::new("x"), cut).unwrap_err().to_string();
        assert!(err.contains("section `a`"), "{err}");
        assert!(err.contains("expected 5 points"), "{err}");
        assert!(err.contains("after 2"), "{err}");
    }

    #[test]
    fn huge_count_does_not_overflow() {
        let mut f = file_with_counts([1, 0, 0, 0, 0, 0]);
        let at = VK_FIXED_BYTES + 4 + G1_BYTES;
        f[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
        let err = Layout::parse(Path::new("x"), &f).unwrap_err().to_string();
        assert!(err.contains("section `h`"), "{err}");
    }

    #[test]
    fn trailing_bytes_are_rejected() {
        let mut f = file_with_counts([1, 0, 0, 0, 0, 0]);
        f.push(0);
        let err = Layout::parse(Path::new("x"), &f).unwrap_err().to_string();
        assert!(err.contains("unexpected bytes"), "{err}");
    }
}
