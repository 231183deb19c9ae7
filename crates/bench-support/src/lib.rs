//! What groth16-c2's tests, examples and benchmarks share, kept out of the library: the
//! PoRep-shaped synthetic circuit and partitions (benchmark inputs), the examples' helpers
//! (flags, params files, the C ABI from Rust, the fast setup), params files written point by
//! point, and nvcc found as build.rs finds it. A dev-dependency of groth16-c2; not published.

pub mod common;
pub mod nvcc;
pub mod synthetic;
pub mod synthetic_params;
pub mod synthetic_partition;
