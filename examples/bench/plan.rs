//! `--plan`: what a proof keeps on the GPU and what it streams, for PoRep-shaped SRSs of the
//! given sizes on cards with the given free memory. Pure arithmetic over the kernels' own size
//! functions: it needs no GPU, and prints what the library decides at its first proof.

use groth16_c2::testing::memory_plan::{
    plan, resident_working_bytes, PlanRequest, ProofShape, Query, Residency,
};

use crate::common::{fail, Flags};
use crate::process::parse_sizes;

const USAGE: &str = "bench --plan [--log-n 24,26,27] [--free 10G,11G,16G,24G,48G,80G] [--chunk LG] [--slots N] [--bus GBPS] [--layout]";

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
    // The settings GROTH16_C2_STREAM_CHUNK and GROTH16_C2_STREAM_SLOTS force.
    let chunk: Option<u32> = flags.value("--chunk").map(|v| {
        v.parse()
            .unwrap_or_else(|_| fail(&format!("--chunk: {v}\nusage: {USAGE}")))
    });
    let slots: Option<usize> = flags.value("--slots").map(|v| {
        v.parse()
            .unwrap_or_else(|_| fail(&format!("--slots: {v}\nusage: {USAGE}")))
    });
    let layout = flags.switch("--layout");
    // The host-to-device bandwidth the plans assume (the library measures its device's).
    let bus: f64 = flags.value("--bus").map_or(25.0, |v| {
        v.parse()
            .unwrap_or_else(|_| fail(&format!("--bus: {v}\nusage: {USAGE}")))
    }) * 1e9;
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
                chunk_points: chunk.map(|lg| 1usize << lg),
                slots,
                sides: None,
                resident_working: resident_working_bytes(&shape, tails, true, 0),
                msm_code: 0,
                gather_tails: true,
                bus_bytes_per_s: bus,
                h_window: None,
            };
            let free_gib = f as f64 / (1u64 << 30) as f64;
            match plan(&req) {
                Ok(p) => {
                    println!(
                        "  {free_gib:5.1} GiB free: {p}; {:.1} GB streamed per circuit",
                        p.streamed_bytes() as f64 / 1e9
                    );
                    if layout {
                        print_layout(&p);
                    }
                }
                Err(e) => println!("  {free_gib:5.1} GiB free: {e}"),
            }
        }
    }
}

/// The arena's regions of a streamed plan, in GiB.
fn print_layout(p: &groth16_c2::testing::memory_plan::MemoryPlan) {
    use groth16_c2::testing::memory_plan::PlanKind;
    let PlanKind::Streamed { layout: l, .. } = &p.kind else {
        return;
    };
    let gib = |r: &std::ops::Range<usize>| r.len() as f64 / (1u64 << 30) as f64;
    let each = |rs: &[std::ops::Range<usize>]| rs.first().map_or(0.0, gib);
    println!(
        "      arena {:.2} GiB: {} polys of {:.2}, workspace {:.2}, H buckets {:.2}, \
         {} slots of {:.2}, {} sides of {:.3}, gather {:.2}; fixed {:.2}, resident {:.2}",
        l.bytes as f64 / (1u64 << 30) as f64,
        l.polys,
        l.poly_bytes as f64 / (1u64 << 30) as f64,
        gib(&l.workspace),
        l.h_accumulate.as_ref().map_or(0.0, |a| gib(&a.buckets)),
        l.slots.len(),
        each(&l.slots),
        l.sides.len(),
        each(&l.sides),
        gib(&l.gather),
        p.fixed_bytes as f64 / (1u64 << 30) as f64,
        p.resident_bytes as f64 / (1u64 << 30) as f64,
    );
}
