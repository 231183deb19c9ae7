//! The structured reference string (proving key) loaded from a bellperson params file, shared
//! between proofs and threads through a reference-counted handle.

mod cache;
mod decode;
mod layout;
mod read;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use blstrs::{G1Affine, G2Affine};

use crate::assignment::QueryCounts;
use crate::error::{Error, Result};
pub use read::LoadProfile;
pub(crate) use read::{ChunkDecoder, ChunkDecoders};

pub(crate) use cache::load_shared;
pub use cache::{cached_paths, evict};

/// The verifying key part of the params file.
#[derive(Clone, Debug)]
pub struct VerifyingKey {
    pub alpha_g1: G1Affine,
    pub beta_g1: G1Affine,
    pub beta_g2: G2Affine,
    pub gamma_g2: G2Affine,
    pub delta_g1: G1Affine,
    pub delta_g2: G2Affine,
    /// One point per public input, the constant ONE first.
    pub ic: Vec<G1Affine>,
}

/// The proving key: the verifying key and the five queries of the Groth16 paper.
#[derive(Debug)]
pub struct SrsData {
    /// Keep-alive handles a device backend attaches (e.g. the page-locking of the queries for
    /// fast uploads). Declared first so they are dropped before the points they refer to.
    pub host_pins: HostPins,
    pub vk: VerifyingKey,
    /// `h_query`: `2^K - 1` points for a domain of size `2^K`.
    pub h: Vec<G1Affine>,
    /// `l_query`: one point per aux variable.
    pub l: Vec<G1Affine>,
    /// `a_query`: all inputs, then the aux variables that appear in A.
    pub a: Vec<G1Affine>,
    /// `b_g1_query`: inputs, then aux variables, that appear in B.
    pub b_g1: Vec<G1Affine>,
    /// `b_g2_query`: as `b_g1`, over G2.
    pub b_g2: Vec<G2Affine>,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// File size and load time, for throughput reports.
    pub file_bytes: usize,
    pub load_time: Duration,
}

impl SrsData {
    /// The point counts a witness is checked against.
    pub(crate) fn query_counts(&self) -> QueryCounts {
        QueryCounts {
            ic: self.vk.ic.len(),
            h: self.h.len(),
            l: self.l.len(),
            a: self.a.len(),
            b: self.b_g1.len(),
        }
    }
}

/// Opaque keep-alive values tied to one SRS's lifetime.
#[derive(Default)]
pub struct HostPins(pub parking_lot::Mutex<Vec<Box<dyn std::any::Any + Send + Sync>>>);

impl std::fmt::Debug for HostPins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostPins({})", self.0.lock().len())
    }
}

/// A loaded SRS. Cloning adds a reference; the points are freed when the last one drops.
#[derive(Clone, Debug)]
pub struct Srs(Arc<SrsData>);

/// How to load a params file.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Also check that every point is in the prime-order subgroup. On-curve is always checked.
    /// Default: the env var `GROTH16_C2_SRS_SUBGROUP_CHECK` is `1`.
    pub subgroup_check: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            subgroup_check: std::env::var("GROTH16_C2_SRS_SUBGROUP_CHECK").as_deref() == Ok("1"),
        }
    }
}

impl Srs {
    /// Loads a params file, with `decoders` offering a decoder of chunks off the CPU. The public
    /// loaders (`Srs::new`, `Srs::load`, `Srs::load_profiled`) pass the backend's.
    pub(crate) fn load_with(
        path: &Path,
        options: LoadOptions,
        decoders: ChunkDecoders,
    ) -> Result<(Srs, LoadProfile)> {
        let start = Instant::now();
        let (data, profile) = read::load(path, options, decoders)?;
        let srs = Srs(Arc::new(SrsData {
            load_time: start.elapsed(),
            ..data
        }));
        Ok((srs, profile))
    }

    /// Wraps points built in memory (synthetic benchmarks, tests) instead of loaded from a file.
    /// `data.path` names the source in messages. Checks what the file loader checks about the
    /// section counts: `b_g1` and `b_g2` match and `ic` holds at least the point for ONE.
    pub fn from_data(data: SrsData) -> Result<Srs> {
        let malformed = |reason: String| Error::MalformedParams {
            path: data.path.clone(),
            reason,
        };
        if data.b_g1.len() != data.b_g2.len() {
            return Err(malformed(format!(
                "section `b_g1` has {} points but `b_g2` has {}; they must match",
                data.b_g1.len(),
                data.b_g2.len()
            )));
        }
        if data.vk.ic.is_empty() {
            return Err(malformed(
                "section `ic` is empty; it needs at least the point for the constant input ONE"
                    .into(),
            ));
        }
        Ok(Srs(Arc::new(data)))
    }

    /// The number of handles (clones) alive, the cache's own included.
    pub fn handle_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// A reference that observes this SRS without keeping it loaded.
    pub fn downgrade(&self) -> WeakSrs {
        WeakSrs(Arc::downgrade(&self.0))
    }

    /// Whether two handles share one load.
    pub fn ptr_eq(&self, other: &Srs) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub(crate) fn into_raw(self) -> *const SrsData {
        Arc::into_raw(self.0)
    }

    /// # Safety
    /// `ptr` must come from [`Srs::into_raw`] and own one reference.
    pub(crate) unsafe fn from_raw(ptr: *const SrsData) -> Srs {
        Srs(Arc::from_raw(ptr))
    }

    /// # Safety
    /// `ptr` must come from [`Srs::into_raw`] and its reference must still be alive.
    pub(crate) unsafe fn clone_raw(ptr: *const SrsData) -> Srs {
        Arc::increment_strong_count(ptr);
        Srs(Arc::from_raw(ptr))
    }

    /// Load throughput in MB/s (10^6 bytes).
    pub fn load_mb_per_s(&self) -> f64 {
        self.file_bytes as f64 / 1e6 / self.load_time.as_secs_f64().max(1e-9)
    }
}

/// A non-owning reference to an SRS (see [`Srs::downgrade`]): says whether it is still loaded.
#[derive(Clone, Debug)]
pub struct WeakSrs(Weak<SrsData>);

impl WeakSrs {
    /// A new handle if any handle (or the cache) still holds the SRS.
    pub fn upgrade(&self) -> Option<Srs> {
        self.0.upgrade().map(Srs)
    }

    /// Whether the SRS is still loaded (not yet freed).
    pub fn is_loaded(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl std::ops::Deref for Srs {
    type Target = SrsData;
    fn deref(&self) -> &SrsData {
        &self.0
    }
}
