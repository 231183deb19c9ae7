//! supraseal-c2 0.1.2's Rust API, item for item, on top of groth16-c2. A host switches with one
//! line: `[patch.crates-io] supraseal-c2 = { path = ".../compat/supraseal-c2" }`. Curio's fork
//! (a GPU lock and index, the split start/finish API) is `compat/supraseal-c2-cuzk`.
//!
//! Like the crate it replaces, it builds the GPU backend whenever a CUDA toolkit is found and
//! proves on the CPU otherwise (groth16-c2's build.rs says which, as a cargo warning).

use std::ffi::c_void;

pub use groth16_c2::supraseal::{cuda, Assignment, Error, SRS};
use groth16_c2::supraseal::{prove, Batch};

/// Proves a batch of circuits that share densities and sizes (0.1.2's 19 parameters).
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    assert_eq!(proofs.len(), num_circuits);
    let provers = Batch {
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
    }
    .assignments();
    prove(&provers, r_s, s_s, proofs, srs, no_lock(), -1);
}

/// Proves a batch of circuits given as `Assignment`s.
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    let num_circuits = provers.len();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    prove(provers, r_s, s_s, proofs, srs, no_lock(), -1);
}

/// The library's own per-device lock.
fn no_lock() -> *mut c_void {
    std::ptr::null_mut()
}
