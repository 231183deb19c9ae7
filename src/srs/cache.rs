//! The process-wide SRS cache behind `create_SRS(path, cache = true)`: one load per path, shared
//! by every caller, at most [`CAPACITY`] paths, least recently used dropped first.
//!
//! A 32 GiB PoRep params file is ~47 GiB; loading it twice would not fit next to the prover.
//! Concurrent callers of one path wait for a single load instead of starting their own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use once_cell::sync::{Lazy, OnceCell};
use parking_lot::Mutex;

use super::Srs;
use crate::error::{Error, Result};

/// How many distinct params files the cache keeps loaded.
pub const CAPACITY: usize = 4;

type Slot = Arc<OnceCell<Srs>>;

/// Most recently used last.
static CACHE: Lazy<Mutex<Vec<(PathBuf, Slot)>>> = Lazy::new(|| Mutex::new(Vec::new()));

fn key(path: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Returns the cached SRS for `path`, loading it once with `load` if needed.
pub fn load_shared(path: &Path, load: impl FnOnce(&Path) -> Result<Srs>) -> Result<Srs> {
    let key = key(path)?;
    let slot = {
        let mut cache = CACHE.lock();
        let slot = match cache.iter().position(|(p, _)| *p == key) {
            Some(i) => cache.remove(i).1,
            None => Arc::new(OnceCell::new()),
        };
        cache.push((key.clone(), slot.clone()));
        if cache.len() > CAPACITY {
            cache.remove(0);
        }
        slot
    };
    // Outside the cache lock: other paths load in parallel, callers of this path wait here.
    let result = slot.get_or_try_init(|| load(&key)).cloned();
    if result.is_err() {
        // Do not keep a failed slot: the next call retries the file.
        CACHE
            .lock()
            .retain(|(p, s)| !(*p == key && Arc::ptr_eq(s, &slot)));
    }
    result
}

/// Removes `path` from the cache. Handles already given out stay valid.
pub fn evict(path: &Path) {
    let key = key(path).unwrap_or_else(|_| path.to_path_buf());
    CACHE.lock().retain(|(p, _)| *p != key && p != path);
}

/// The paths currently cached, least recently used first.
pub fn cached_paths() -> Vec<PathBuf> {
    CACHE.lock().iter().map(|(p, _)| p.clone()).collect()
}
