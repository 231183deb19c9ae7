//! Proves a batch of synthetic PoRep-shaped circuits through the C ABI, as a host would, and
//! verifies every proof with bellperson.
//!
//! `cargo run --release --features bellpepper --example prove -- [--log-n K] [--batch B]
//! [--params-dir DIR] [--require-gpu]` (defaults: K = 16, B = 2, DIR = params-cache/). Params
//! are generated once per K (bellperson's parameters, made by `common::setup`) and cached in
//! DIR. `--require-gpu` fails unless the proofs run on the CUDA backend (scripts/prove-gpu.sh
//! passes it).

use std::path::PathBuf;
use std::time::Instant;

use bench_support::common::*;
use bench_support::synthetic::PorepShapedCircuit;
use blstrs::Scalar;
use ff::Field;
use groth16_c2::witness::WitnessRecorder;

const USAGE: &str = "prove [--log-n K] [--batch B] [--params-dir DIR] [--require-gpu]";

fn main() {
    let mut flags = Flags::from_env();
    let log_n: u32 = flags.parse("--log-n", 16);
    let batch: usize = flags.parse("--batch", 2);
    let dir = PathBuf::from(flags.parse("--params-dir", DEFAULT_PARAMS_DIR.to_string()));
    let require_gpu = flags.switch("--require-gpu");
    flags.finish(USAGE);
    if !(1..=30).contains(&log_n) || batch == 0 {
        fail(&format!(
            "need 1 <= --log-n <= 30 and --batch >= 1\nusage: {USAGE}"
        ));
    }

    println!(
        "groth16-c2 prove: domain 2^{log_n}, batch of {batch}, backend {}",
        backend_c()
    );
    println!("backend  {}", groth16_c2::backend_description());
    if require_gpu && backend_c() != "cuda" {
        fail("--require-gpu: the proofs would run on the CPU (see the backend line above)");
    }
    let path = ensure_params(&dir, log_n);

    let t = Instant::now();
    // A damaged or stale cache file is the likely cause of a load or size error; say so.
    let hint = format!(
        "(if {} is damaged or stale, delete it to regenerate it)",
        path.display()
    );
    let srs =
        CSrs::load(&path).unwrap_or_else(|e| fail(&format!("create_SRS failed: {e}\n{hint}")));
    let load_s = t.elapsed().as_secs_f64();
    let mb = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    println!(
        "params   {}: {mb:.1} MB loaded by create_SRS in {load_s:.3} s ({:.0} MB/s)",
        path.display(),
        mb / load_s
    );

    let t = Instant::now();
    let circuits: Vec<PorepShapedCircuit> = (0..batch)
        .map(|i| PorepShapedCircuit::new(log_n, Some(i as u64 + 1)))
        .collect();
    let witnesses: Vec<_> = circuits
        .iter()
        .map(|c| {
            WitnessRecorder::record(c.clone())
                .unwrap_or_else(|e| fail(&format!("synthesis failed: {e}")))
        })
        .collect();
    let w0 = &witnesses[0];
    println!(
        "witness  {batch} x ({} constraints, {} aux, {} inputs) recorded in {:.2} s",
        w0.a.len(),
        w0.aux.len(),
        w0.inputs.len(),
        t.elapsed().as_secs_f64()
    );

    let mut rng = rand::thread_rng();
    let r: Vec<Scalar> = (0..batch).map(|_| Scalar::random(&mut rng)).collect();
    let s: Vec<Scalar> = (0..batch).map(|_| Scalar::random(&mut rng)).collect();
    let assignments: Vec<_> = witnesses.iter().map(|w| w.assignment()).collect();
    let t = Instant::now();
    let proofs = generate_c(&srs, &assignments, &r, &s)
        .unwrap_or_else(|e| fail(&format!("generate_groth16_proofs_c failed: {e}\n{hint}")));
    let prove_s = t.elapsed().as_secs_f64();
    println!(
        "proved   {batch} proofs in one call in {prove_s:.2} s: {:.3} proofs/s",
        batch as f64 / prove_s
    );

    match last_timings_c() {
        Some(t) => {
            println!("stages   (groth16_c2_last_timings, the whole batch)");
            print_stages(&t);
        }
        None => println!("stages   groth16_c2_last_timings reported none"),
    }

    let pvk = bellperson::groth16::prepare_verifying_key(&read_vk(&path));
    let mut failed = 0;
    for (i, (p, c)) in proofs.iter().zip(&circuits).enumerate() {
        let ok = bellperson::groth16::verify_proof(&pvk, &to_bellperson(p), &c.public_values())
            .unwrap_or(false);
        if !ok {
            eprintln!("proof {i} does NOT verify");
            failed += 1;
        }
    }
    if failed > 0 {
        fail(&format!("{failed} of {batch} proofs failed verification"));
    }
    println!("verify   all {batch} proofs verified (bellperson verify_proof)");
}
