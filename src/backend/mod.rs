//! The seam between the prover's stages and the hardware that runs the heavy ones.
//!
//! Everything that differs between the CPU and a GPU sits behind [`Backend`]: the H polynomial
//! with its MSM, batch additions of the "ones", and the tail MSMs. Splitting, locking, the
//! epilogue and the C ABI are shared.

pub(crate) mod cpu;
/// cbindgen:ignore
#[cfg(groth16_c2_cuda)]
pub(crate) mod cuda;
/// cbindgen:ignore
#[cfg_attr(not(groth16_c2_cuda), allow(dead_code))] // the CPU build plans without the NTT's
pub(crate) mod kernel_sizes;
/// cbindgen:ignore
pub(crate) mod memory_plan;
/// cbindgen:ignore
#[cfg_attr(not(groth16_c2_cuda), allow(dead_code))]
pub(crate) mod streaming;

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use std::time::Instant;

pub use cpu::CpuBackend;
#[cfg(groth16_c2_cuda)]
pub use cuda::CudaBackend;

use crate::assignment::Witness;
use crate::error::Result;
use crate::page_locked::PageLocker;
use crate::split::{CircuitSplit, OnesBitmap};
use crate::srs::Srs;
use crate::telemetry::{ms, ProofTimings};

/// Results of one circuit's device section.
#[derive(Clone, Copy, Debug)]
pub struct DeviceResults {
    pub h: G1Projective,
    pub l: G1Projective,
    pub a: G1Projective,
    pub b_g1: G1Projective,
    /// The B_G2 MSM: complete when `b_g2_tail_done`, else only the sum of the points whose
    /// scalar is 1 (the tail MSM then runs in `finalize`, after the lock).
    pub b_g2: G2Projective,
    pub b_g2_tail_done: bool,
}

/// One circuit's host preparation, made before its device section (see
/// [`Backend::prepare_circuit`]).
pub type CircuitPrep = Box<dyn std::any::Any + Send + Sync>;

/// Circuits of one call whose device work runs as a unit on one device: a GPU backend that
/// streams the SRS queues each circuit's H step as it comes and then passes over every other
/// query once for all of them, so that each chunk of points crosses PCIe once per group.
pub trait DeviceGroup {
    /// Circuits the group takes before [`finish`](Self::finish) (at least 1).
    fn capacity(&self) -> usize;

    /// Adds circuit `index`. Its device work is queued, or done; the caller's `a, b, c` are not
    /// read after this returns. `prep` is dropped as soon as the group no longer needs it.
    fn add(
        &mut self,
        index: usize,
        w: &Witness,
        split: CircuitSplit,
        prep: Option<CircuitPrep>,
        timings: &mut ProofTimings,
    ) -> Result<()>;

    /// Completes every added circuit's device work: their results in the order added, each with
    /// its index and split.
    fn finish(
        self: Box<Self>,
        timings: &mut ProofTimings,
    ) -> Result<Vec<(usize, DeviceResults, CircuitSplit)>>;
}

/// The group of a backend that runs each circuit's device section on its own.
pub struct OneByOne<'a, B: Backend + ?Sized> {
    backend: &'a B,
    device: usize,
    srs: &'a Srs,
    done: Option<(usize, DeviceResults, CircuitSplit)>,
}

impl<'a, B: Backend + ?Sized> OneByOne<'a, B> {
    pub fn new(backend: &'a B, device: usize, srs: &'a Srs) -> Self {
        OneByOne {
            backend,
            device,
            srs,
            done: None,
        }
    }
}

impl<B: Backend + ?Sized> DeviceGroup for OneByOne<'_, B> {
    fn capacity(&self) -> usize {
        1
    }

    fn add(
        &mut self,
        index: usize,
        w: &Witness,
        split: CircuitSplit,
        prep: Option<CircuitPrep>,
        timings: &mut ProofTimings,
    ) -> Result<()> {
        let results =
            self.backend
                .device_section(self.device, self.srs, w, &split, prep.as_ref(), timings);
        // The staging goes back to its pool now: the next circuit's preparation takes it.
        drop(prep);
        self.done = Some((index, results?, split));
        Ok(())
    }

    fn finish(
        self: Box<Self>,
        _timings: &mut ProofTimings,
    ) -> Result<Vec<(usize, DeviceResults, CircuitSplit)>> {
        Ok(self.done.into_iter().collect())
    }
}

/// The heavy operations of one proof.
pub trait Backend: Send + Sync {
    /// Short name for logs and reports ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// What this backend proves on, for the report of a process's first call.
    fn describe(&self) -> String {
        format!("backend {}", self.name())
    }

    /// ` key=value` fields naming `device` for the timings log line.
    fn device_label(&self, device: usize) -> String {
        let _ = device;
        format!("backend={}", self.name())
    }

    /// Devices a call may spread its circuits over (the CPU is one).
    fn device_count(&self) -> usize {
        1
    }

    /// Host memory [`prepare_circuit`](Self::prepare_circuit) will hold for this circuit until
    /// its device section ends (for the host-memory budget).
    fn prep_bytes(&self, w: &Witness, split: &CircuitSplit) -> usize {
        let _ = (w, split);
        0
    }

    /// Host-side preparation of one circuit for its device section on `device` (a GPU backend
    /// stages the inputs it will upload in page-locked memory). Runs before the lock for a
    /// call's first circuit on a device, and beside the device section of the one before it for
    /// the others; dropped as soon as its own device section ends.
    fn prepare_circuit(
        &self,
        w: &Witness,
        split: &CircuitSplit,
        device: usize,
    ) -> Result<Option<CircuitPrep>> {
        let _ = (w, split, device);
        Ok(None)
    }

    /// Fails, before any work, when proofs over `srs` can never fit `device` (a GPU backend:
    /// too little device memory even with the SRS streamed).
    fn check_fits(&self, device: usize, srs: &Srs) -> Result<()> {
        let _ = (device, srs);
        Ok(())
    }

    /// Opens a group for up to `circuits` circuits of a call on `device` (see [`DeviceGroup`]),
    /// once the first of them is split (`first`). The default runs each circuit's
    /// [`device_section`](Self::device_section) on its own.
    fn open_group<'a>(
        &'a self,
        device: usize,
        srs: &'a Srs,
        circuits: usize,
        first: &CircuitSplit,
    ) -> Result<Box<dyn DeviceGroup + 'a>> {
        let _ = (circuits, first);
        Ok(Box::new(OneByOne::new(self, device, srs)))
    }

    /// Everything one circuit needs from the device, on `device`; adds its stage times to
    /// `timings`. The default composes the operations below and leaves the G2 tail MSM to
    /// `finalize`; a GPU backend overrides it to keep every input on the device.
    #[allow(clippy::too_many_arguments)]
    fn device_section(
        &self,
        device: usize,
        srs: &Srs,
        w: &Witness,
        split: &CircuitSplit,
        prep: Option<&CircuitPrep>,
        timings: &mut ProofTimings,
    ) -> Result<DeviceResults> {
        let _ = (device, prep);
        // The CPU's "device" is the prover's thread pool.
        crate::settings::pool().install(|| self.compose_section(srs, w, split, timings))
    }

    /// The device section composed from the operations below.
    fn compose_section(
        &self,
        srs: &Srs,
        w: &Witness,
        split: &CircuitSplit,
        timings: &mut ProofTimings,
    ) -> Result<DeviceResults> {
        let t = Instant::now();
        let h = self.h_msm(&srs.h, w.a, w.b, w.c)?;
        timings.ntt_msm_h_ms += ms(t.elapsed());
        crate::fault::panic_point(); // tests only

        let t = Instant::now();
        let l_ones = self.g1_sum(&srs.l, &split.l.ones)?;
        let a_ones = self.g1_sum(&srs.a, &split.a.ones)?;
        let b_g1_ones = self.g1_sum(&srs.b_g1, &split.b.ones)?;
        let b_g2_ones = self.g2_sum(&srs.b_g2, &split.b.ones)?;
        timings.batch_add_ms += ms(t.elapsed());

        let t = Instant::now();
        let l_tail = self.g1_msm(&srs.l, &split.l.tail_points, &split.l.tail_scalars)?;
        let a_tail = self.g1_msm(&srs.a, &split.a.tail_points, &split.a.tail_scalars)?;
        let b_g1_tail = self.g1_msm(&srs.b_g1, &split.b.tail_points, &split.b.tail_scalars)?;
        timings.tail_msm_ms += ms(t.elapsed());

        Ok(DeviceResults {
            h,
            l: l_ones + l_tail,
            a: a_ones + a_tail,
            b_g1: b_g1_ones + b_g1_tail,
            b_g2: b_g2_ones,
            b_g2_tail_done: false,
        })
    }

    /// `MSM(h_query, h)` where `h` is the quotient polynomial of `a·b − c` over the domain of
    /// size `h_query.len() + 1` (`a, b, c` are zero-padded to it).
    fn h_msm(
        &self,
        h_query: &[G1Affine],
        a: &[Scalar],
        b: &[Scalar],
        c: &[Scalar],
    ) -> Result<G1Projective>;

    /// `sum(points[p] for every p set in ones)`; `ones.len <= points.len()`.
    fn g1_sum(&self, points: &[G1Affine], ones: &OnesBitmap) -> Result<G1Projective>;
    /// `sum(scalars[k] * points[indices[k]])`, scalars canonical.
    fn g1_msm(
        &self,
        points: &[G1Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G1Projective>;
    /// As `g1_sum`, over G2.
    fn g2_sum(&self, points: &[G2Affine], ones: &OnesBitmap) -> Result<G2Projective>;
    /// As `g1_msm`, over G2.
    fn g2_msm(
        &self,
        points: &[G2Affine],
        indices: &[u32],
        scalars: &[blst_scalar],
    ) -> Result<G2Projective>;
}

/// The backend this process uses: CUDA when the library was built with it and a GPU is visible
/// (unless `GROTH16_C2_BACKEND=cpu`), else the CPU. Decided once per process.
pub fn default_backend() -> &'static dyn Backend {
    static CHOICE: once_cell::sync::Lazy<&'static dyn Backend> = once_cell::sync::Lazy::new(|| {
        #[cfg(groth16_c2_cuda)]
        if !forced_cpu() && cuda::available() {
            return &cuda::CudaBackend;
        }
        &cpu::CpuBackend
    });
    *CHOICE
}

/// A decoder of params-file chunks off the CPU for the SRS loader: the GPU's when proofs run on
/// CUDA (unless `GROTH16_C2_SRS_GPU_DECODE=0`), else none (the CPU decodes).
pub(crate) fn srs_chunk_decoder(
    chunk_bytes: usize,
    threads: usize,
) -> Option<Box<dyn crate::srs::ChunkDecoder>> {
    if std::env::var("GROTH16_C2_SRS_GPU_DECODE").as_deref() == Ok("0") {
        return None;
    }
    #[cfg(groth16_c2_cuda)]
    if default_backend().name() == "cuda" {
        return Some(Box::new(cuda::srs_decode::GpuDecoder::new(
            0,
            chunk_bytes,
            threads,
        )));
    }
    let _ = (chunk_bytes, threads);
    None
}

/// The page-locking of host memory for [`crate::pinned`]: the GPU's when proofs run on CUDA,
/// else none (hosts get ordinary memory).
pub(crate) fn page_locker() -> Option<&'static dyn PageLocker> {
    #[cfg(groth16_c2_cuda)]
    if default_backend().name() == "cuda" {
        return Some(&cuda::staging::CudaPageLocker);
    }
    None
}

fn forced_cpu() -> bool {
    std::env::var("GROTH16_C2_BACKEND").as_deref() == Ok("cpu")
}

/// Whether this library was built with the CUDA backend.
pub const fn built_with_cuda() -> bool {
    cfg!(groth16_c2_cuda)
}

/// The GPU architectures this library was built for (`sm_75,...,sm_120+compute_75`), empty
/// without CUDA.
pub const BUILT_CUDA_ARCHS: &str = env!("GROTH16_C2_BUILD_CUDA_ARCHS");

/// Why the default backend is the CPU (empty when it is not).
pub(crate) fn cpu_reason() -> String {
    if default_backend().name() != "cpu" {
        String::new()
    } else if !built_with_cuda() {
        "this library was built without CUDA (no nvcc at build time, or GROTH16_C2_NO_CUDA / \
         feature cpu-only)"
            .into()
    } else if forced_cpu() {
        "GROTH16_C2_BACKEND=cpu".into()
    } else {
        format!("built with CUDA ({BUILT_CUDA_ARCHS}), but no CUDA device is visible")
    }
}

/// Says once per process and backend, on stderr, what the proofs run on (unless
/// `GROTH16_C2_QUIET=1`): the backend, its GPUs with their architecture, or why it is the CPU.
pub(crate) fn announce(backend: &dyn Backend) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static CPU: AtomicBool = AtomicBool::new(false);
    static GPU: AtomicBool = AtomicBool::new(false);
    let said = if backend.name() == "cpu" { &CPU } else { &GPU };
    if said.swap(true, Ordering::Relaxed) {
        return;
    }
    if crate::telemetry::quiet() {
        return;
    }
    eprintln!(
        "groth16-c2 {}: {}",
        env!("CARGO_PKG_VERSION"),
        backend.describe()
    );
}
