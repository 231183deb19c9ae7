//! Generates the C header with cbindgen. The header in `include/` is committed: a test fails
//! when it differs from the one generated here; `GROTH16_C2_UPDATE_HEADER=1 cargo build`
//! (or a build where it is missing) rewrites it.

use std::path::PathBuf;

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
    let committed = crate_dir.join("include").join("groth16_c2.h");
    if !committed.exists() || std::env::var("GROTH16_C2_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::create_dir_all(committed.parent().unwrap()).expect("include/ can be created");
        std::fs::copy(&generated, &committed).expect("include/groth16_c2.h can be written");
    }
}
