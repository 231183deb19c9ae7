//! The CUDA backend: a circuit's whole device section (H, batch additions, G1 and G2 tail MSMs)
//! runs on one GPU over device-resident data (`section`); every result is bit-identical to the
//! CPU backend. The single operations of the [`Backend`] trait run on GPU 0 with uploads per
//! call (`msm`), for tests and one-off use.
//!
//! All `unsafe` CUDA calls live in this module: `ffi` declares them, `runtime` wraps the CUDA
//! runtime, `kernels` the launchers of `cuda/launcher.h`.

pub mod bus;
pub mod device;
/// cbindgen:ignore
mod ffi;
pub mod h;
pub mod kernels;
pub mod msm;
pub mod planning;
pub mod points;
pub mod probe;
pub mod resident;
pub mod runtime;
pub mod section;
pub mod srs_decode;
pub mod staging;
pub mod streamed;

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use super::memory_plan::PlanKind;
use super::{Backend, CircuitPrep, DeviceGroup, DeviceResults, OneByOne};
use crate::assignment::Witness;
use crate::error::Result;
use crate::split::{CircuitSplit, OnesBitmap};
use crate::srs::Srs;
use crate::telemetry::ProofTimings;
use staging::Staged;

/// Everything on the GPU but the 0/1 split and the epilogue.
pub struct CudaBackend;

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn describe(&self) -> String {
        let mut s = format!(
            "proving on CUDA (built for {}), {} GPU(s)",
            probe::BUILT_ARCHS,
            probe::gpus().len()
        );
        for gpu in probe::gpus() {
            s += &format!("\n  {}", gpu.describe());
            if let Err(why) = probe::check_device(gpu.index) {
                s += &format!("\n  {why}");
            }
        }
        s
    }

    fn device_label(&self, device: usize) -> String {
        match probe::gpus().get(device) {
            // Curio's log parsers split on spaces: none inside a value.
            Some(gpu) => format!(
                "backend=cuda gpu_name={} gpu_arch={}",
                gpu.name.replace(' ', "_"),
                gpu.sm()
            ),
            None => "backend=cuda".into(),
        }
    }

    fn device_count(&self) -> usize {
        runtime::device_count()
    }

    fn prep_bytes(&self, w: &Witness, split: &CircuitSplit) -> usize {
        staging::bytes_needed(w, split)
    }

    fn prepare_circuit(
        &self,
        w: &Witness,
        split: &CircuitSplit,
        device: usize,
    ) -> Result<Option<CircuitPrep>> {
        let _ = device; // staging memory is pinned for every device
        match Staged::new(w, split) {
            Ok(staged) => Ok(Some(Box::new(staged))),
            // Out of page-locked memory: upload from the host's own (pageable) buffers.
            Err(_) => Ok(None),
        }
    }

    fn check_fits(&self, device: usize, srs: &Srs) -> Result<()> {
        // Without the device's state: another worker's section may hold it for a while, and
        // this needs only the card's size.
        runtime::set_device(device)?;
        planning::check_fits(device, srs)
    }

    fn open_group<'a>(
        &'a self,
        device: usize,
        srs: &'a Srs,
        circuits: usize,
        first: &CircuitSplit,
    ) -> Result<Box<dyn DeviceGroup + 'a>> {
        let mut guard = device::lock_device(device)?;
        let state = guard.as_mut().expect("lock_device creates the state");
        let plan = planning::plan_for(state, srs, first)?;
        if plan.kind == PlanKind::AllResident {
            drop(guard);
            return Ok(Box::new(OneByOne::new(self, device, srs)));
        }
        // One pass over the streamed queries serves the whole group. Under a host-memory budget
        // each circuit goes alone: a group holds every member's split until it finishes, which
        // the budget may not allow while it also waits on the next preparation.
        let capacity = if crate::host_memory::budget() > 0 {
            1
        } else {
            circuits.clamp(1, super::memory_plan::MAX_GROUP)
        };
        Ok(Box::new(streamed::StreamedGroup::open(
            guard, srs, &plan, capacity,
        )?))
    }

    fn device_section(
        &self,
        device: usize,
        srs: &Srs,
        w: &Witness,
        split: &CircuitSplit,
        prep: Option<&CircuitPrep>,
        timings: &mut ProofTimings,
    ) -> Result<DeviceResults> {
        let staged = prep.and_then(|p| p.downcast_ref::<Staged>());
        let mut guard = device::lock_device(device)?;
        let state = guard.as_mut().expect("lock_device creates the state");
        section::prove_circuit(state, srs, w, split, staged, timings)
    }

    fn h_msm(
        &self,
        h_query: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> Result<G1Projective> {
        let n = h_query.len() + 1;
        let h = {
            let mut guard = device::lock_device(0)?;
            let state = guard.as_mut().expect("lock_device creates the state");
            h::h_polynomial(state, a, b, c, n)?
        };
        msm::msm_g1_montgomery(0, h_query, &h, kernels::MsmStrategy::Auto)
    }

    fn g1_sum(&self, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective> {
        msm::sum_g1(0, points, ones)
    }

    fn g1_msm(
        &self,
        points: &[G1Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G1Projective> {
        msm::msm_g1(0, points, Some(indices), scalars)
    }

    fn g2_sum(&self, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective> {
        msm::sum_g2(0, points, ones)
    }

    fn g2_msm(
        &self,
        points: &[G2Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G2Projective> {
        msm::msm_g2(0, points, Some(indices), scalars)
    }
}

/// Whether a CUDA device is usable by this process.
pub fn available() -> bool {
    runtime::device_count() > 0
}
