//! Generates the C header with cbindgen, compiles the host hooks in `csrc/`, and compiles the
//! CUDA kernels in `cuda/` with nvcc (through the `cc` crate) whenever a CUDA toolkit is found.
//!
//! The header in `include/` is committed: a test fails when it differs from the one generated
//! here; `GROTH16_C2_UPDATE_HEADER=1 cargo build` (or a build where it is missing) rewrites it.
//!
//! Whether the kernels are built (a cargo warning says which way it went):
//! - feature `cuda`: required; no nvcc is a build error naming `scripts/install-cuda.sh`;
//! - feature `cpu-only` or `GROTH16_C2_NO_CUDA=1`: never;
//! - otherwise: when nvcc is found (`NVCC`, else `CUDA_PATH` / `CUDA_HOME` + `/bin/nvcc`, else
//!   `nvcc` on `PATH`, else `/usr/local/cuda/bin/nvcc`). Rust code sees `cfg(groth16_c2_cuda)`.
//!
//! CUDA settings (environment):
//! - `GROTH16_C2_CUDA_ARCHS`: compute capabilities to build machine code for, e.g. `80;90`, or
//!   `native` (the GPUs of the build machine). Default: every architecture from Volta/Turing up
//!   that the toolkit supports among 70, 75, 80, 86, 89, 90, 100, 120 (CUDA 13: 75 up). The PTX
//!   of the lowest one is embedded too, so GPUs newer than the list JIT it.
//! - `GROTH16_C2_CCBIN`: the host compiler nvcc uses (`-ccbin`), for GCC versions nvcc rejects.
//! - `GROTH16_C2_NVCC_FLAGS`: extra nvcc flags, space-separated (e.g. the tuning knobs of
//!   `cuda/config.cuh`: `-DG16_NTT_MIN_BLOCKS=2`).
//! - `GROTH16_C2_CUDA_CACHE_DIR`: where compiled kernel archives are kept, keyed by a hash of
//!   the sources, the toolkit and the flags, so other profiles, feature sets and target
//!   directories reuse them (default `~/.cache/groth16-c2/cuda-kernels`, the newest 16 kept;
//!   `off` disables it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Architectures a default build targets, where the toolkit supports them.
const DEFAULT_ARCHS: [u32; 8] = [70, 75, 80, 86, 89, 90, 100, 120];

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    for watched in ["src", "csrc", "cbindgen.toml"] {
        println!("cargo:rerun-if-changed={watched}");
    }
    for var in [
        "GROTH16_C2_UPDATE_HEADER",
        "GROTH16_C2_NO_CUDA",
        "NVCC",
        "CUDA_PATH",
        "CUDA_HOME",
        "PATH",
        "GROTH16_C2_CUDA_ARCHS",
        "GROTH16_C2_CCBIN",
        "GROTH16_C2_NVCC_FLAGS",
        "GROTH16_C2_CUDA_CACHE_DIR",
        "XDG_CACHE_HOME",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rustc-check-cfg=cfg(groth16_c2_cuda)");

    generate_header(&crate_dir, &out_dir);

    let cuda = match cuda_choice() {
        CudaChoice::Off(why) => {
            println!("cargo:warning=groth16-c2: CPU-only build ({why})");
            None
        }
        CudaChoice::Required => Some(find_nvcc().unwrap_or_else(|| {
            panic!(
                "the `cuda` feature needs nvcc, and none was found (NVCC, CUDA_PATH/CUDA_HOME, \
                 PATH, /usr/local/cuda). Install the pinned toolkit with \
                 `bash scripts/install-cuda.sh` and `source .cuda-venv/cuda.env`, or point NVCC \
                 at your own nvcc."
            )
        })),
        CudaChoice::Auto => {
            let nvcc = find_nvcc();
            if nvcc.is_none() {
                println!(
                    "cargo:warning=groth16-c2: CPU-only build (no nvcc found: set NVCC or \
                     CUDA_PATH, or run scripts/install-cuda.sh, to build the GPU backend)"
                );
            }
            nvcc
        }
    };
    let archs = match &cuda {
        Some(nvcc) => {
            let built = build_cuda(&crate_dir, &out_dir, nvcc);
            println!("cargo:rustc-cfg=groth16_c2_cuda");
            println!(
                "cargo:warning=groth16-c2: CUDA build ({}) with {}",
                built.describe(),
                nvcc.display()
            );
            built.describe()
        }
        None => String::new(),
    };
    println!("cargo:rustc-env=GROTH16_C2_BUILD_CUDA_ARCHS={archs}");
    build_host_hooks(&crate_dir, cuda.is_some());
}

fn generate_header(crate_dir: &Path, out_dir: &Path) {
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let generated = out_dir.join("groth16_c2.h");
    match cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
    {
        Ok(bindings) => {
            bindings.write_to_file(&generated);
        }
        Err(e) => panic!("cbindgen failed to generate the C header: {e}"),
    }
    let committed = crate_dir.join("include").join("groth16_c2.h");
    if !committed.exists() || std::env::var("GROTH16_C2_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::create_dir_all(committed.parent().unwrap()).expect("include/ can be created");
        std::fs::copy(&generated, &committed).expect("include/groth16_c2.h can be written");
    }
}

/// C hooks into the host process: the optional `set_membw_throttle` (a weak reference) and, in
/// a CPU-only build, weak `cudaHostAlloc` / `cudaFreeHost` for hosts that declare them.
fn build_host_hooks(crate_dir: &Path, cuda: bool) {
    let mut build = cc::Build::new();
    build.file(crate_dir.join("csrc/host_hooks.c"));
    if !cuda {
        build.file(crate_dir.join("csrc/cuda_host_alloc_fallback.c"));
    }
    build.warnings(true).compile("groth16_c2_host_hooks");
    if !cuda {
        // The kernels' size functions, which a CUDA build takes from its launcher: host-only
        // C++ that calls nothing in the C++ runtime, so hosts link no libstdc++ for it.
        println!("cargo:rerun-if-changed=cuda");
        cc::Build::new()
            .cpp(true)
            .cpp_link_stdlib(None)
            .std("c++17")
            .flag_if_supported("-fno-exceptions")
            .flag_if_supported("-fno-rtti")
            .file(crate_dir.join("csrc/device_sizes.cpp"))
            .compile("groth16_c2_device_sizes");
    }
}

enum CudaChoice {
    Required,
    Auto,
    Off(&'static str),
}

fn cuda_choice() -> CudaChoice {
    let feature = |f: &str| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_some();
    let no_cuda_env = matches!(
        std::env::var("GROTH16_C2_NO_CUDA").as_deref(),
        Ok("1" | "true" | "yes")
    );
    let off = if feature("CPU_ONLY") {
        Some("feature `cpu-only`")
    } else if no_cuda_env {
        Some("GROTH16_C2_NO_CUDA is set")
    } else {
        None
    };
    match (feature("CUDA"), off) {
        (true, Some(why)) => panic!(
            "the `cuda` feature asks for the GPU backend, and {why} forbids it: drop one of them"
        ),
        (true, None) => CudaChoice::Required,
        (false, Some(why)) => CudaChoice::Off(why),
        (false, None) => CudaChoice::Auto,
    }
}

/// Finds nvcc as documented above.
fn find_nvcc() -> Option<PathBuf> {
    if let Some(nvcc) = std::env::var_os("NVCC") {
        return Some(PathBuf::from(nvcc));
    }
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(root) = std::env::var_os(var) {
            let nvcc = Path::new(&root).join("bin").join("nvcc");
            if nvcc.is_file() {
                return Some(nvcc);
            }
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let nvcc = dir.join("nvcc");
            if nvcc.is_file() {
                return Some(nvcc);
            }
        }
    }
    let nvcc = PathBuf::from("/usr/local/cuda/bin/nvcc");
    nvcc.is_file().then_some(nvcc)
}

/// What nvcc was asked to produce.
struct Targets {
    /// Real architectures with machine code (`sm_XX`), or empty for `native`.
    sass: Vec<String>,
    /// The virtual architecture whose PTX is the common source of every SASS and is embedded.
    ptx: Option<u32>,
    native: bool,
}

impl Targets {
    fn describe(&self) -> String {
        if self.native {
            return "native".into();
        }
        let mut s = self.sass.join(",");
        if let Some(p) = self.ptx {
            s.push_str(&format!("+compute_{p}"));
        }
        s
    }

    /// nvcc flags for the production kernels.
    fn gencode(&self) -> Vec<String> {
        if self.native {
            return vec!["-arch=native".into()];
        }
        let mut flags = Vec::new();
        // Numeric architectures share one PTX (cicc, the slow half of nvcc, runs once per
        // file); arch-specific ones (90a, 100f) need their own virtual architecture.
        let (plain, special): (Vec<&String>, Vec<&String>) = self
            .sass
            .iter()
            .partition(|a| a.trim_start_matches("sm_").parse::<u32>().is_ok());
        if let Some(p) = self.ptx {
            let mut codes: Vec<String> = plain.iter().map(|a| a.to_string()).collect();
            codes.push(format!("compute_{p}"));
            flags.push(format!(
                "-gencode=arch=compute_{p},code=[{}]",
                codes.join(",")
            ));
        }
        for a in special {
            let v = a.trim_start_matches("sm_");
            flags.push(format!("-gencode=arch=compute_{v},code=sm_{v}"));
        }
        flags
    }

    /// nvcc flags for the test-only kernels (`*_test.cu`, feature `gpu-test-kernels`): PTX only
    /// in a default build (the driver compiles it on first use), the production flags when
    /// archs were chosen.
    fn test_gencode(&self, explicit: bool) -> Vec<String> {
        match (explicit, self.ptx) {
            (false, Some(p)) => vec![format!("-gencode=arch=compute_{p},code=compute_{p}")],
            _ => self.gencode(),
        }
    }
}

/// The toolkit's version as (major, minor), from `nvcc --version`.
fn nvcc_version(nvcc: &Path) -> (String, (u32, u32)) {
    let out = Command::new(nvcc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{} --version failed to run: {e}. Fix the toolkit, point NVCC elsewhere, or \
                 build without CUDA (GROTH16_C2_NO_CUDA=1)",
                nvcc.display()
            )
        });
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let version = text
        .split("release ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|v| {
            let mut it = v.trim().split('.');
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .unwrap_or_else(|| {
            panic!(
                "cannot read the CUDA version from `{} --version`: {text}",
                nvcc.display()
            )
        });
    (text, version)
}

/// Real architectures this nvcc can build machine code for.
fn supported_archs(nvcc: &Path, version: (u32, u32)) -> Vec<u32> {
    if let Ok(out) = Command::new(nvcc).arg("--list-gpu-code").output() {
        let listed: Vec<u32> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|c| c.strip_prefix("sm_")?.parse().ok())
            .collect();
        if out.status.success() && !listed.is_empty() {
            return listed;
        }
    }
    // Older toolkits: what each release is documented to support.
    let mut v = vec![70, 75, 80, 86];
    if version >= (11, 8) {
        v.extend([89, 90]);
    }
    if version >= (12, 8) {
        v.extend([100, 120]);
    }
    if version.0 >= 13 {
        v.retain(|&a| a >= 75);
    }
    v
}

fn targets(nvcc: &Path, version: (u32, u32)) -> (Targets, bool) {
    let requested = std::env::var("GROTH16_C2_CUDA_ARCHS").unwrap_or_default();
    let requested: Vec<String> = requested
        .split([';', ',', ' '])
        .filter(|a| !a.is_empty())
        .map(|a| a.trim_start_matches("sm_").to_string())
        .collect();
    if requested.iter().any(|a| a == "native") {
        let t = Targets {
            sass: Vec::new(),
            ptx: None,
            native: true,
        };
        return (t, true);
    }
    let explicit = !requested.is_empty();
    let numeric: Vec<u32> = if explicit {
        requested.iter().filter_map(|a| a.parse().ok()).collect()
    } else {
        let supported = supported_archs(nvcc, version);
        let v: Vec<u32> = DEFAULT_ARCHS
            .into_iter()
            .filter(|a| supported.contains(a))
            .collect();
        assert!(
            !v.is_empty(),
            "{} supports none of the architectures {DEFAULT_ARCHS:?}; set GROTH16_C2_CUDA_ARCHS",
            nvcc.display()
        );
        v
    };
    let mut sass: Vec<String> = if explicit {
        requested.iter().map(|a| format!("sm_{a}")).collect()
    } else {
        numeric.iter().map(|a| format!("sm_{a}")).collect()
    };
    sass.dedup();
    let t = Targets {
        sass,
        ptx: numeric.iter().copied().min(),
        native: false,
    };
    (t, explicit)
}

/// 64-bit FNV-1a: a stable hash for the kernel cache key (std's hasher may change).
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

/// Where compiled kernel archives are kept between builds: shared by every target directory
/// of the user (nested and side-by-side builds, other profiles), like ccache. `None`: off.
fn cache_dir(out_dir: &Path) -> Option<PathBuf> {
    match std::env::var_os("GROTH16_C2_CUDA_CACHE_DIR") {
        Some(dir) if dir == "off" || dir == "0" => return None,
        Some(dir) => return Some(PathBuf::from(dir)),
        None => {}
    }
    let user_cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")));
    Some(match user_cache {
        Some(dir) => dir.join("groth16-c2").join("cuda-kernels"),
        // No home: inside the target directory (OUT_DIR is <target>/.../build/<pkg>/out).
        None => out_dir
            .ancestors()
            .find(|p| p.file_name().is_some_and(|n| n == "build"))
            .and_then(|build| build.parent()?.parent())
            .unwrap_or(out_dir)
            .join("groth16-c2-cuda-cache"),
    })
}

/// Keeps the newest `keep` archives of the cache (each source change adds one).
fn prune_cache(cache: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    let mut archives: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "a"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    archives.sort();
    let excess = archives.len().saturating_sub(keep);
    for (_, path) in archives.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// Compiles `sources` into `lib<name>.a` in `out_dir`, or copies it from the cache when the
/// same sources were compiled with the same toolkit and flags before.
fn compile_cached(build: &cc::Build, sources: &[PathBuf], name: &str, key: u64, out_dir: &Path) {
    let lib = format!("lib{name}.a");
    let cache = cache_dir(out_dir);
    let cached = cache
        .as_ref()
        .map(|c| c.join(format!("{name}-{key:016x}.a")));
    if let Some(cached) = cached
        .as_ref()
        .filter(|c| c.is_file() && std::fs::copy(c, out_dir.join(&lib)).is_ok())
    {
        println!(
            "cargo:warning=groth16-c2: kernels `{name}` from the cache ({})",
            cached.display()
        );
    } else {
        let started = std::time::Instant::now();
        archive(build, &compile_each(build, sources), &out_dir.join(&lib));
        let secs = started.elapsed().as_secs();
        println!("cargo:warning=groth16-c2: compiled kernels `{name}` in {secs} s");
        if let (Some(cache), Some(cached)) = (&cache, &cached) {
            // Write then rename, so a concurrent build never sees half an archive.
            if std::fs::create_dir_all(cache).is_ok() {
                let tmp = cache.join(format!("{name}-{key:016x}.{}.tmp", std::process::id()));
                if std::fs::copy(out_dir.join(&lib), &tmp).is_ok() {
                    let _ = std::fs::rename(&tmp, cached);
                }
                prune_cache(cache, 16);
            }
        }
    }
    println!("cargo:rustc-link-lib=static={name}");
}

/// Compiles every file on its own, `NUM_JOBS` at a time, the slowest first. One file per cc build:
/// given several CUDA files, cc compiles them as relocatable device code (`--device-c`) and
/// adds an `nvcc --device-link` object, which this code (no device calls across files) does
/// not need, and two such device-linked archives in one binary (kernels and test kernels)
/// broke the test kernels' launches ("invalid resource handle").
fn compile_each(build: &cc::Build, sources: &[PathBuf]) -> Vec<PathBuf> {
    let jobs = num_jobs().clamp(1, sources.len().max(1));
    let mut queue: Vec<&PathBuf> = sources.iter().collect();
    // Measured nvcc times, slowest last (popped first); other files go first in the queue.
    const SLOWEST: [&str; 5] = ["field_test", "msm_g2", "curve_test", "ntt", "msm_g1"];
    queue.sort_by_key(|p| {
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        SLOWEST.iter().position(|s| *s == stem).map_or(0, |i| i + 1)
    });
    let queue = std::sync::Mutex::new(queue);
    let objects = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let Some(src) = queue.lock().unwrap().pop() else {
                    break;
                };
                let objs = build.clone().file(src).compile_intermediates();
                objects.lock().unwrap().extend(objs);
            });
        }
    });
    let mut objects = objects.into_inner().unwrap();
    objects.sort();
    objects
}

/// The parallel jobs cargo allows this build script.
fn num_jobs() -> usize {
    std::env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(1)
}

/// Packs the objects into a static library.
fn archive(build: &cc::Build, objects: &[PathBuf], lib: &Path) {
    let _ = std::fs::remove_file(lib);
    let mut ar = build.get_archiver();
    ar.arg("crs").arg(lib).args(objects);
    let status = ar
        .status()
        .unwrap_or_else(|e| panic!("cannot run the archiver: {e}"));
    assert!(status.success(), "the archiver failed on {}", lib.display());
}

fn build_cuda(crate_dir: &Path, out_dir: &Path, nvcc: &Path) -> Targets {
    println!("cargo:rerun-if-changed=cuda");
    let (version_text, version) = nvcc_version(nvcc);
    let (targets, explicit) = targets(nvcc, version);
    let cuda_root = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc lives in <root>/bin")
        .to_path_buf();

    // cc finds nvcc through NVCC (set for this build script's process only).
    std::env::set_var("NVCC", nvcc);
    let jobs = num_jobs();
    let mut base = cc::Build::new();
    base.cuda(true)
        .cudart("static")
        .opt_level(3)
        .debug(false)
        .cargo_metadata(false)
        .flag("-std=c++17")
        // ptxas for several architectures of one file in parallel.
        .flag(format!("--threads={}", jobs.clamp(1, 8)))
        // Device-only `#pragma unroll` is noise to the host compiler's pass over the headers.
        .flag("-Xcompiler=-Wno-unknown-pragmas")
        .include(crate_dir.join("cuda"));
    let mut flags: Vec<String> = Vec::new();
    // Every binary carries the GPU code of every architecture: compress all of it (nvcc's
    // default leaves most of it raw; measured 4x smaller), decompressed once at module load.
    let compress = if version >= (12, 8) {
        "--compress-mode=size"
    } else {
        "-Xfatbin=-compress-all"
    };
    base.flag(compress);
    flags.push(compress.to_string());
    if let Ok(ccbin) = std::env::var("GROTH16_C2_CCBIN") {
        base.ccbin(false).flag("-ccbin").flag(&ccbin);
        flags.push(format!("ccbin={ccbin}"));
    }
    if let Ok(extra) = std::env::var("GROTH16_C2_NVCC_FLAGS") {
        for f in extra.split_whitespace() {
            base.flag(f);
        }
        flags.push(format!("extra={extra}"));
    }

    let mut sources: Vec<PathBuf> = std::fs::read_dir(crate_dir.join("cuda"))
        .expect("cuda/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    sources.sort();
    assert!(!sources.is_empty(), "cuda/ holds no .cu files");
    let (tests, kernels): (Vec<PathBuf>, Vec<PathBuf>) = sources.into_iter().partition(|p| {
        p.file_stem()
            .is_some_and(|s| s.to_string_lossy().ends_with("_test"))
    });

    // The cache key: how archives are made, every source and header under cuda/ (not its
    // README: a doc edit recompiles nothing), the toolkit, the target, the flags.
    let mut key = 0xcbf2_9ce4_8422_2325u64;
    fnv1a(&mut key, b"one object per file, no relocatable device code");
    let mut files: Vec<PathBuf> = std::fs::read_dir(crate_dir.join("cuda"))
        .expect("cuda/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "cu" || e == "cuh" || e == "h")
        })
        .collect();
    files.sort();
    for f in &files {
        fnv1a(&mut key, f.file_name().unwrap().as_encoded_bytes());
        fnv1a(
            &mut key,
            &std::fs::read(f).expect("cuda/ files are readable"),
        );
    }
    fnv1a(&mut key, version_text.as_bytes());
    fnv1a(&mut key, nvcc.as_os_str().as_encoded_bytes());
    fnv1a(
        &mut key,
        std::env::var("TARGET").unwrap_or_default().as_bytes(),
    );
    fnv1a(&mut key, flags.join(" ").as_bytes());

    let mut kernel_build = base.clone();
    let gencode = targets.gencode();
    for f in &gencode {
        kernel_build.flag(f);
    }
    let mut kernel_key = key;
    fnv1a(&mut kernel_key, gencode.join(" ").as_bytes());
    compile_cached(
        &kernel_build,
        &kernels,
        "groth16_c2_cuda",
        kernel_key,
        out_dir,
    );

    if !tests.is_empty() && std::env::var_os("CARGO_FEATURE_GPU_TEST_KERNELS").is_some() {
        let mut test_build = base.clone();
        let gencode = targets.test_gencode(explicit);
        for f in &gencode {
            test_build.flag(f);
        }
        let mut test_key = key;
        fnv1a(&mut test_key, gencode.join(" ").as_bytes());
        compile_cached(
            &test_build,
            &tests,
            "groth16_c2_cuda_test",
            test_key,
            out_dir,
        );
    }
    println!("cargo:rustc-link-search=native={}", out_dir.display());

    // The static CUDA runtime and what it needs from the system.
    for lib in ["lib64", "lib", "targets/x86_64-linux/lib"] {
        let dir = cuda_root.join(lib);
        if dir.join("libcudart_static.a").is_file() {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
    }
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["stdc++", "rt", "dl", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    targets
}
