//! The committed C header equals the one cbindgen generates from the sources now.

#[test]
fn committed_header_is_fresh() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/groth16_c2.h"));
    let committed = include_str!("../include/groth16_c2.h");
    assert!(
        generated == committed,
        "include/groth16_c2.h is stale: regenerate it with `GROTH16_C2_UPDATE_HEADER=1 cargo build` and commit it"
    );
}
