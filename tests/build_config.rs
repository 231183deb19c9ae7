//! The build chose its backend by the documented rule (build.rs): the `cuda` feature requires
//! CUDA, `cpu-only` or `GROTH16_C2_NO_CUDA=1` forbid it, otherwise it is built exactly when
//! nvcc is found. The test re-finds nvcc by the same rule in the environment `cargo test` ran
//! the build in, and checks what the library says it is through the C ABI.

use bench_support::nvcc;

use std::ffi::CStr;

use groth16_c2::ffi;
use nvcc::find_nvcc;

fn archs() -> String {
    // SAFETY: a static NUL-terminated string.
    unsafe { CStr::from_ptr(ffi::groth16_c2_cuda_archs()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_backend_was_built_by_the_documented_rule() {
    let no_cuda = matches!(
        std::env::var("GROTH16_C2_NO_CUDA").as_deref(),
        Ok("1" | "true" | "yes")
    ) || cfg!(feature = "cpu-only");
    let expected = cfg!(feature = "cuda") || (!no_cuda && find_nvcc().is_some());
    let built = ffi::groth16_c2_built_with_cuda();
    assert_eq!(
        built,
        expected,
        "built_with_cuda is {built}, expected {expected} (nvcc: {:?}, no-cuda: {no_cuda})",
        find_nvcc()
    );
    assert_eq!(built, groth16_c2::built_with_cuda());
    assert_eq!(archs().is_empty(), !built, "archs {:?}", archs());
    println!("built with CUDA: {built}; archs: {:?}", archs());
}

#[test]
fn a_default_cuda_build_covers_turing_to_blackwell() {
    if !ffi::groth16_c2_built_with_cuda() || std::env::var_os("GROTH16_C2_CUDA_ARCHS").is_some() {
        println!("not a default CUDA build; nothing to check");
        return;
    }
    let archs = archs();
    let (sass, ptx) = archs.split_once('+').expect("machine code + PTX");
    let sass: Vec<&str> = sass.split(',').collect();
    for arch in [
        "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
    ] {
        assert!(sass.contains(&arch), "{arch} missing from {archs}");
    }
    // The PTX is the lowest architecture's, so every newer GPU can compile it.
    let lowest = sass
        .iter()
        .map(|a| a.trim_start_matches("sm_").parse::<u32>().unwrap())
        .min()
        .unwrap();
    assert_eq!(ptx, format!("compute_{lowest}"));
}

#[test]
fn without_a_gpu_the_library_says_it_proves_on_the_cpu() {
    let backend = groth16_c2::backend_name();
    // SAFETY: a static NUL-terminated string.
    let c = unsafe { CStr::from_ptr(ffi::groth16_c2_backend()) };
    assert_eq!(c.to_str().unwrap(), backend);
    if !ffi::groth16_c2_built_with_cuda() {
        assert_eq!(backend, "cpu");
    }
    println!("backend: {backend}");
}

/// The GPU tests compile to nothing in a build without CUDA; say so where CI shows it
/// (straight to stderr, past the harness's capture), so they are never mistaken for passes.
#[test]
fn gpu_tests_say_when_they_cannot_run() {
    if ffi::groth16_c2_built_with_cuda() {
        return; // they run, and skip visibly themselves where no GPU is visible
    }
    let line = "SKIP the gpu test binary (field, curve, ntt, h, msm, prove) and the GPU parts of \
                interlock, pipeline and fault_injection: this build has no CUDA backend (no nvcc \
                at build time)\n";
    // SAFETY: writing a byte buffer to fd 2.
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
}
