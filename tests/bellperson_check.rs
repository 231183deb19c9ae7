//! Runs `compat/bellperson-check`: bellperson 0.26's own `cuda-supraseal` path, patched to our
//! `supraseal-c2` compat crate, proving and verifying real bellperson circuits. It is a separate
//! cargo workspace (its bellperson feature must not leak into our oracle), so this test drives
//! it with a nested `cargo test` into its own target directory.

use std::path::Path;
use std::process::Command;

#[test]
fn bellperson_cuda_supraseal_path_runs_on_groth16_c2() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(env!("CARGO"))
        .args(["test", "--manifest-path"])
        .arg(root.join("compat/bellperson-check/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/bellperson-check"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "compat/bellperson-check failed: {status}");
}
