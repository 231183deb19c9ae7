//! Runs `compat/bellperson-check`: bellperson 0.26's and 0.27's own `cuda-supraseal` paths,
//! patched to our `supraseal-c2` compat crate, proving and verifying real bellperson circuits,
//! and checking that the library they linked is a CUDA build exactly when nvcc is found. It is
//! a separate cargo workspace (its bellperson feature must not leak into our oracle), so this
//! test drives it with a nested `cargo test` into its own target directory.

use bench_support::nvcc;

use std::path::Path;
use std::process::Command;

fn run_check(bellperson: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expect_cuda = nvcc::expect_cuda_build();
    let status = Command::new(env!("CARGO"))
        .args(["test", "--no-default-features", "--features", bellperson])
        .arg("--manifest-path")
        .arg(root.join("compat/bellperson-check/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/bellperson-check"))
        .env(
            "GROTH16_C2_EXPECT_CUDA",
            if expect_cuda { "1" } else { "0" },
        )
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "compat/bellperson-check ({bellperson}, CUDA build expected: {expect_cuda}) failed: {status}"
    );
}

#[test]
fn bellperson_026_cuda_supraseal_path_runs_on_groth16_c2() {
    run_check("v026");
}

#[test]
fn bellperson_027_cuda_supraseal_path_runs_on_groth16_c2() {
    run_check("v027");
}
