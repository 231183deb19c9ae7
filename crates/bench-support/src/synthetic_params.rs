//! Params files written point by point (no setup: the reader cannot tell), for tests that need
//! a large file, a file whose bad point sits at a chosen offset, or one that another writer
//! truncates while it is being loaded.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use blstrs::{G1Projective, G2Projective, Scalar};
use group::{Curve, Group};

/// Distinct points cycled through the sections.
pub struct Pool {
    pub g1: Vec<[u8; 96]>,
    pub g2: Vec<[u8; 192]>,
}

pub fn pool(n: u64) -> Pool {
    Pool {
        g1: (1..=n)
            .map(|i| {
                (G1Projective::generator() * Scalar::from(i * 1_000_003))
                    .to_affine()
                    .to_uncompressed()
            })
            .collect(),
        g2: (1..=n)
            .map(|i| {
                (G2Projective::generator() * Scalar::from(i * 1_000_003))
                    .to_affine()
                    .to_uncompressed()
            })
            .collect(),
    }
}

/// Section counts: ic, h, l, a, b_g1, b_g2 (= b_g1).
pub type Counts = [usize; 5];

/// Writes a params file; the point at index `i` of each section is pool point `i % len`.
pub fn write_params(path: &Path, pool: &Pool, [ic, h, l, a, b]: Counts) {
    let mut f = BufWriter::new(File::create(path).unwrap());
    let (g1, g2) = (&pool.g1, &pool.g2);
    for p in [&g1[0], &g1[1]] {
        f.write_all(p).unwrap();
    }
    for p in [&g2[0], &g2[1]] {
        f.write_all(p).unwrap();
    }
    f.write_all(&g1[2]).unwrap();
    f.write_all(&g2[2]).unwrap();
    for count in [ic, h, l, a, b] {
        f.write_all(&(count as u32).to_be_bytes()).unwrap();
        for i in 0..count {
            f.write_all(&g1[i % g1.len()]).unwrap();
        }
    }
    f.write_all(&(b as u32).to_be_bytes()).unwrap();
    for i in 0..b {
        f.write_all(&g2[i % g2.len()]).unwrap();
    }
    f.flush().unwrap();
}

/// Byte offset of point `index` of section `s` (0 = ic .. 5 = b_g2).
pub fn point_offset(counts: Counts, s: usize, index: usize) -> usize {
    let [ic, h, l, a, b] = counts;
    let mut at = 3 * 96 + 3 * 192;
    for (i, (count, size)) in [(ic, 96), (h, 96), (l, 96), (a, 96), (b, 96), (b, 192)]
        .into_iter()
        .enumerate()
    {
        at += 4;
        if i == s {
            return at + index * size;
        }
        at += count * size;
    }
    unreachable!()
}

/// About 40 MB: tens of milliseconds to load even on a fast machine.
pub const LARGE_COUNTS: Counts = [2, 120_000, 120_000, 120_000, 30_000];

/// What one load ended in, when another writer truncates the file around it.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The truncation came after the reader was done (the old contents loaded).
    Loaded,
    /// It came first: the file was already short when it was opened.
    ShortAtOpen,
    /// It came during the load.
    ShortDuringLoad,
}

/// Loads fresh copies of `master` (its full size `full`) in `dir`, a new path each time so that
/// a path-keyed cache cannot answer, while another writer truncates each copy, adapting the
/// delay until the truncation lands inside a load a few times: shorter after a load that
/// finished first, longer after one that found the file already short. `load` classifies each
/// result (and asserts what the error says). Returns every outcome; fails the test if no
/// truncation landed inside a load.
pub fn race_truncation(
    master: &Path,
    dir: &Path,
    mut load: impl FnMut(&Path, u64) -> Outcome,
) -> Vec<Outcome> {
    let full = std::fs::metadata(master).unwrap().len();
    let copy = |attempt: &dyn std::fmt::Display| {
        let path = dir.join(format!("copy-{attempt}.params"));
        std::fs::copy(master, &path).unwrap();
        path
    };
    let intact = copy(&"intact");
    let t = Instant::now();
    assert_eq!(
        load(&intact, full),
        Outcome::Loaded,
        "the intact file loads"
    );
    let load_time = t.elapsed();

    let mut delay = load_time / 2;
    let mut seen = Vec::new();
    for attempt in 0..40 {
        let path = copy(&attempt);
        let cut_to = full / 3 + attempt * 4_099;
        let truncator = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                // Another writer: its own handle on the file, as another process would have.
                let f = OpenOptions::new().write(true).open(&path).unwrap();
                f.set_len(cut_to).unwrap();
            })
        };
        let outcome = load(&path, full);
        truncator.join().unwrap();
        std::fs::remove_file(&path).unwrap();
        match outcome {
            Outcome::Loaded => delay = delay * 2 / 3,
            Outcome::ShortAtOpen => delay = delay * 3 / 2 + Duration::from_micros(200),
            Outcome::ShortDuringLoad => {}
        }
        seen.push(outcome);
        if seen
            .iter()
            .filter(|o| **o == Outcome::ShortDuringLoad)
            .count()
            >= 3
        {
            break;
        }
    }
    assert!(
        seen.contains(&Outcome::ShortDuringLoad),
        "no truncation landed inside a load ({load_time:?} each): {seen:?}"
    );
    seen
}

/// Classifies the error of a load raced by a truncation, asserting what it says: the file, and
/// either the size it had when it was opened or the section it was short in.
#[track_caller]
pub fn classify_truncation(msg: &str, path: &Path, full: u64) -> Outcome {
    assert!(
        msg.contains(&*path.to_string_lossy()),
        "names the file: {msg}"
    );
    if msg.contains("while it was being loaded") {
        assert!(msg.contains(&format!("it had {full} bytes")), "{msg}");
        Outcome::ShortDuringLoad
    } else {
        assert!(msg.contains("truncated in section"), "{msg}");
        Outcome::ShortAtOpen
    }
}
