//! nvcc found exactly as build.rs finds it, so tests can say which build to expect.

use std::path::{Path, PathBuf};

pub fn find_nvcc() -> Option<PathBuf> {
    if let Some(nvcc) = std::env::var_os("NVCC") {
        return Some(PathBuf::from(nvcc));
    }
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(root) = std::env::var_os(var) {
            let nvcc = Path::new(&root).join("bin/nvcc");
            if nvcc.is_file() {
                return Some(nvcc);
            }
        }
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("nvcc"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let nvcc = PathBuf::from("/usr/local/cuda/bin/nvcc");
        nvcc.is_file().then_some(nvcc)
    })
}

/// Whether a build in this environment builds the CUDA backend (without the `cuda` or
/// `cpu-only` features).
pub fn expect_cuda_build() -> bool {
    let no_cuda = matches!(
        std::env::var("GROTH16_C2_NO_CUDA").as_deref(),
        Ok("1" | "true" | "yes")
    );
    !no_cuda && find_nvcc().is_some()
}
