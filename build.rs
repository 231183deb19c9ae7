//! Generates the C header with cbindgen and, with the `cuda` feature, compiles `cuda/*.cu` with
//! nvcc through the `cc` crate.
//!
//! The header in `include/` is committed: a test fails when it differs from the one generated
//! here; `GROTH16_C2_UPDATE_HEADER=1 cargo build` (or a build where it is missing) rewrites it.
//!
//! CUDA settings (environment):
//! - `NVCC`, else `CUDA_PATH` / `CUDA_HOME` + `/bin/nvcc`, else `nvcc` on `PATH`;
//!   `scripts/install-cuda.sh` installs a pinned toolkit and writes an env file setting them.
//! - `GROTH16_C2_CUDA_ARCHS`: compute capabilities to build machine code for, e.g. `80;90`
//!   (default `90`); PTX for the highest is embedded too, so newer cards JIT it.
//! - `GROTH16_C2_CCBIN`: the host compiler nvcc uses (`-ccbin`), for GCC versions nvcc rejects.
//! - `GROTH16_C2_NVCC_FLAGS`: extra nvcc flags, space-separated (tuning experiments).

use std::path::{Path, PathBuf};

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    for watched in ["src", "cbindgen.toml"] {
        println!("cargo:rerun-if-changed={watched}");
    }
    println!("cargo:rerun-if-env-changed=GROTH16_C2_UPDATE_HEADER");

    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let generated = out_dir.join("groth16_c2.h");
    match cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
    {
        Ok(bindings) => {
            bindings.write_to_file(&generated);
        }
        Err(e) => panic!("cbindgen failed to generate the C header: {e}"),
    }
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        build_cuda(&crate_dir);
    }

    let committed = crate_dir.join("include").join("groth16_c2.h");
    if !committed.exists() || std::env::var("GROTH16_C2_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::create_dir_all(committed.parent().unwrap()).expect("include/ can be created");
        std::fs::copy(&generated, &committed).expect("include/groth16_c2.h can be written");
    }
}

/// Finds nvcc as documented above, or stops the build with a message naming the install script.
fn find_nvcc() -> PathBuf {
    if let Some(nvcc) = std::env::var_os("NVCC") {
        return PathBuf::from(nvcc);
    }
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(root) = std::env::var_os(var) {
            let nvcc = Path::new(&root).join("bin").join("nvcc");
            if nvcc.is_file() {
                return nvcc;
            }
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let nvcc = dir.join("nvcc");
            if nvcc.is_file() {
                return nvcc;
            }
        }
    }
    panic!(
        "the `cuda` feature needs nvcc, and none was found (NVCC, CUDA_PATH/CUDA_HOME, PATH). \
         Install the pinned toolkit with `bash scripts/install-cuda.sh` and \
         `source .cuda-venv/cuda.env`, or point NVCC at your own nvcc."
    );
}

fn build_cuda(crate_dir: &Path) {
    for var in [
        "NVCC",
        "CUDA_PATH",
        "CUDA_HOME",
        "GROTH16_C2_CUDA_ARCHS",
        "GROTH16_C2_CCBIN",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=cuda");
    let nvcc = find_nvcc();
    let cuda_root = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc lives in <root>/bin")
        .to_path_buf();

    let archs = std::env::var("GROTH16_C2_CUDA_ARCHS").unwrap_or_else(|_| "90".into());
    let archs: Vec<&str> = archs
        .split([';', ',', ' '])
        .filter(|a| !a.is_empty())
        .collect();
    // cc finds nvcc through NVCC (set for this build script's process only).
    std::env::set_var("NVCC", &nvcc);
    let mut build = cc::Build::new();
    build
        .cuda(true)
        .cudart("static")
        .opt_level(3)
        .debug(false)
        .flag("-std=c++17")
        // Device-only `#pragma unroll` is noise to the host compiler's pass over the headers.
        .flag("-Xcompiler=-Wno-unknown-pragmas")
        .include(crate_dir.join("cuda"));
    for arch in &archs {
        build.flag(format!("-gencode=arch=compute_{arch},code=sm_{arch}"));
    }
    if let Some(top) = archs.iter().max_by_key(|a| {
        a.trim_end_matches(char::is_alphabetic)
            .parse::<u32>()
            .unwrap_or(0)
    }) {
        build.flag(format!("-gencode=arch=compute_{top},code=compute_{top}"));
    }
    if let Ok(ccbin) = std::env::var("GROTH16_C2_CCBIN") {
        build.ccbin(false).flag("-ccbin").flag(&ccbin);
    }
    if let Ok(extra) = std::env::var("GROTH16_C2_NVCC_FLAGS") {
        for f in extra.split_whitespace() {
            build.flag(f);
        }
    }
    let mut sources: Vec<PathBuf> = std::fs::read_dir(crate_dir.join("cuda"))
        .expect("cuda/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    sources.sort();
    assert!(!sources.is_empty(), "cuda/ holds no .cu files");
    build.files(&sources).compile("groth16_c2_cuda");

    // The static CUDA runtime and what it needs from the system.
    for lib in ["lib64", "lib", "targets/x86_64-linux/lib"] {
        let dir = cuda_root.join(lib);
        if dir.join("libcudart_static.a").is_file() {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
    }
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["rt", "dl", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}
