//! `--plan`: what a proof keeps on the GPU and what it streams, for PoRep-shaped SRSs of the
//! given sizes on cards with the given free memory. Pure arithmetic over the kernels' own size
//! functions: it needs no GPU, and prints what the library decides at its first proof.

use groth16_c2::testing::memory_plan::{
    plan, resident_working_bytes, PlanRequest, ProofShape, Query, Residency,
};

use crate::common::{fail, Flags};
use crate::process::parse_sizes;

const USAGE: &str = "bench --plan [--log-n 24,26,27] [--free 10G,11G,16G,24G,48G,80G]";

/// Free memory the library leaves to the allocator and the driver (as a proof does).
const HEADROOM: u64 = 512 << 20;

pub fn main(mut flags: Flags) {
    let sizes = parse_sizes(&flags.value("--log-n").unwrap_or_else(|| "24,26,27".into()));
    let free: Vec<u64> = flags
        .value("--free")
        .unwrap_or_else(|| "10G,11G,16G,24G,48G,80G".into())
        .split(',')
        .map(|v| {
            groth16_c2::host_memory::parse_bytes(v)
                .unwrap_or_else(|e| fail(&format!("--free: {e}\nusage: {USAGE}")))
        })
        .collect();
    flags.finish(USAGE);
    println!(
        "memory plans for PoRep-shaped SRSs (8% of aux values neither 0 nor 1), G2 tail on the GPU"
    );
    for &lg in &sizes {
        let shape = ProofShape::porep_like(lg);
        let tails = [Query::L, Query::A, Query::BG1].map(|q| shape.points(q) / 12);
        let srs_gib = shape.set_bytes(groth16_c2::testing::memory_plan::QuerySet::EVERY) as f64
            / (1u64 << 30) as f64;
        println!("2^{lg} (SRS {srs_gib:.1} GiB of points):");
        for &f in &free {
            let req = PlanRequest {
                shape,
                budget: f.saturating_sub(HEADROOM) as usize,
                residency: Residency::Auto,
                g2_tail_on_gpu: true,
                chunk_points: None,
                slots: None,
                sides: None,
                resident_working: resident_working_bytes(&shape, tails, true, 0),
                msm_code: 0,
                gather_tails: true,
            };
            let free_gib = f as f64 / (1u64 << 30) as f64;
            match plan(&req) {
                Ok(p) => println!(
                    "  {free_gib:5.1} GiB free: {p}; {:.1} GB streamed per circuit",
                    p.streamed_bytes() as f64 / 1e9
                ),
                Err(e) => println!("  {free_gib:5.1} GiB free: {e}"),
            }
        }
    }
}
