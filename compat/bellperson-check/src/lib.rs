//! Nothing to link: this package exists for its tests (`tests/drop_in.rs`), which run
//! bellperson 0.26's or 0.27's own `cuda-supraseal` prover path (features `v026`, `v027`)
//! against groth16-c2 through the `supraseal-c2` compat crate.
