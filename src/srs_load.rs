//! Loading an SRS from a params file: `srs`'s parser with the chunk decoder the process's
//! backend offers (the GPU's under CUDA). The loaders are here, above the backends, so that
//! `srs` itself names no backend.

use std::path::Path;

use crate::backend::srs_chunk_decoder;
use crate::error::Result;
use crate::srs::{self, LoadOptions, LoadProfile, Srs};

impl Srs {
    /// Loads a params file. With `cache`, one load per path is shared (see
    /// [`evict`](srs::evict)).
    pub fn new(path: impl AsRef<Path>, cache: bool) -> Result<Srs> {
        if cache {
            srs::load_shared(path.as_ref(), |path| {
                Srs::load(path, LoadOptions::default())
            })
        } else {
            Srs::load(path.as_ref(), LoadOptions::default())
        }
    }

    /// Loads a params file without the cache.
    pub fn load(path: &Path, options: LoadOptions) -> Result<Srs> {
        Srs::load_profiled(path, options).map(|(srs, _)| srs)
    }

    /// As [`Srs::load`], and says where the time went.
    pub fn load_profiled(path: &Path, options: LoadOptions) -> Result<(Srs, LoadProfile)> {
        Srs::load_with(path, options, srs_chunk_decoder)
    }
}
