//! Writes the fixture of the C host test (tests/c/run.sh): a bellperson params file and a
//! binary file with witnesses, r and s, public inputs, and bellperson's proofs to expect.
//!
//! `cargo run --release --features bellpepper --example c_fixture -- OUT_DIR [--log-n 10]
//! [--batch 2]` writes `OUT_DIR/circuit.params` (bellperson's `Parameters::write`) and
//! `OUT_DIR/fixture.bin`, laid out as follows. Integers are little-endian u64; an `fr` is 32
//! bytes, the memory of `blstrs::Scalar` (4 little-endian u64 Montgomery limbs; docs/design.md,
//! "Data layouts"); a proof is 384 bytes, the memory of `groth16_proof`.
//!
//! ```text
//! "G16C2FX1"                                   8-byte magic
//! u64 num_circuits
//! per circuit:
//!   u64 abc_size, inp_size, aux_size           (inputs include the constant ONE)
//!   u64 a_aux_bits, b_inp_bits, b_aux_bits     density lengths in bits
//!   u64 num_public                             public inputs, without ONE
//!   u64 a_aux_density[ceil(a_aux_bits / 64)]   LSB-first words
//!   u64 b_inp_density[ceil(b_inp_bits / 64)]
//!   u64 b_aux_density[ceil(b_aux_bits / 64)]
//!   fr  a[abc_size], b[abc_size], c[abc_size]
//!   fr  inp[inp_size], aux[aux_size]
//!   fr  r, s
//!   fr  public_inputs[num_public]
//!   u8  expected_proof[384]                    bellperson's create_proof(circuit, params, r, s)
//! ```

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use bench_support::common::*;
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::{Bls12, Scalar};
use ff::Field;
use groth16_c2::witness::{DensityBits, WitnessRecorder};
use groth16_c2::Proof;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const USAGE: &str = "c_fixture OUT_DIR [--log-n 10] [--batch 2]";

/// The memory of plain-data values (Scalar, u64, Proof) as bytes, as a C host sees them.
fn raw<T: Copy>(xs: &[T]) -> &[u8] {
    // SAFETY: only used with padding-free plain-data types; any byte pattern may be read.
    unsafe { std::slice::from_raw_parts(xs.as_ptr().cast::<u8>(), std::mem::size_of_val(xs)) }
}

fn main() {
    let mut flags = Flags::from_env();
    let log_n: u32 = flags.parse("--log-n", 10);
    let batch: usize = flags.parse("--batch", 2);
    let out = match flags.positional().as_slice() {
        [dir] => PathBuf::from(dir),
        _ => fail(&format!("one output directory expected\nusage: {USAGE}")),
    };
    flags.finish(USAGE);
    std::fs::create_dir_all(&out)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", out.display())));

    let params = write_params(log_n, &out.join("circuit.params"));
    let mut rng = ChaCha8Rng::seed_from_u64(0xc0c0);
    let mut bytes: Vec<u8> = b"G16C2FX1".to_vec();
    bytes.extend_from_slice(raw(&[batch as u64]));
    for i in 0..batch {
        let circuit = PorepShapedCircuit::new(log_n, Some(100 + i as u64));
        let w = WitnessRecorder::record(circuit.clone())
            .unwrap_or_else(|e| fail(&format!("synthesis failed: {e}")));
        let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let expected =
            bellperson::groth16::create_proof::<Bls12, _, _>(circuit.clone(), &params, r, s)
                .unwrap_or_else(|e| fail(&format!("bellperson failed: {e}")));
        let expected = Proof {
            a: expected.a,
            b: expected.b,
            c: expected.c,
        };
        let publics = circuit.public_values();
        let densities: [&DensityBits; 3] = [&w.a_aux_density, &w.b_inp_density, &w.b_aux_density];

        let sizes = [w.a.len(), w.inputs.len(), w.aux.len()]
            .into_iter()
            .chain(densities.iter().map(|d| d.len()))
            .chain([publics.len()])
            .map(|n| n as u64)
            .collect::<Vec<u64>>();
        bytes.extend_from_slice(raw(&sizes));
        for d in densities {
            assert_eq!(d.words().len(), d.len().div_ceil(64), "density words");
            bytes.extend_from_slice(raw(d.words()));
        }
        for v in [&w.a, &w.b, &w.c, &w.inputs, &w.aux] {
            bytes.extend_from_slice(raw(v));
        }
        bytes.extend_from_slice(raw(&[r, s]));
        bytes.extend_from_slice(raw(&publics));
        bytes.extend_from_slice(raw(&[expected]));
    }
    let path = out.join("fixture.bin");
    let write = || -> std::io::Result<()> {
        let mut f = BufWriter::new(std::fs::File::create(&path)?);
        f.write_all(&bytes)?;
        f.flush()
    };
    write().unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display())));
    println!(
        "c_fixture: {batch} circuit(s) at 2^{log_n}, {} bytes in {}",
        bytes.len(),
        path.display()
    );
}
