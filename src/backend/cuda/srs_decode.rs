//! The params loader's points decoded on the GPU: each of the loader's threads reads its chunk
//! into its own page-locked buffer, the GPU decodes it (byte order, Montgomery form, the
//! on-curve check) and the decoded points come back into the SRS's vector. On 16 cores the CPU
//! decode costs ~300 ns per G1 point (five Montgomery products); here the CPU only copies.
//!
//! The GPU decodes only the plain encoding and flags anything else; such a chunk, or one whose
//! CUDA calls fail, is handed back raw for the CPU decoder, which gives the exact verdict.

use std::mem::size_of;

use parking_lot::Mutex;

use super::ffi;
use super::runtime::{check, set_device, DeviceBuffer, HostBuffer, Stream};
use crate::error::Result;
use crate::srs::ChunkDecoder;

/// One loader thread's buffers and stream.
struct Lane {
    stream: Stream,
    raw: HostBuffer,
    decoded: HostBuffer,
    flag: HostBuffer,
    points: DeviceBuffer<u8>,
    needs_cpu: DeviceBuffer<u32>,
}

/// A decoder for one load: one lane per loader thread, made on first use by that thread.
pub struct GpuDecoder {
    device: usize,
    chunk_bytes: usize,
    lanes: Vec<Mutex<Option<Lane>>>,
}

impl GpuDecoder {
    /// A decoder on `device` for chunks of at most `chunk_bytes`, for `threads` loader threads.
    pub fn new(device: usize, chunk_bytes: usize, threads: usize) -> GpuDecoder {
        GpuDecoder {
            device,
            chunk_bytes,
            lanes: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn lane(&self) -> Result<Lane> {
        set_device(self.device)?;
        Ok(Lane {
            stream: Stream::new()?,
            raw: HostBuffer::new(self.chunk_bytes)?,
            decoded: HostBuffer::new(self.chunk_bytes)?,
            flag: HostBuffer::new(size_of::<u32>())?,
            points: DeviceBuffer::new(self.chunk_bytes)?,
            needs_cpu: DeviceBuffer::new(1)?,
        })
    }

    /// Decodes `raw` (already in the lane's page-locked buffer) on the GPU into `out`.
    fn run(lane: &mut Lane, g2: bool, out: &mut [u8]) -> Result<bool> {
        let n = out.len();
        let point_bytes = if g2 { 192 } else { 96 };
        lane.needs_cpu.zero_range_async(0, 1, &lane.stream)?;
        lane.points
            .upload_async(lane.raw.slice_mut(n), &lane.stream)?;
        // SAFETY: the device buffer holds the n bytes uploaded above, n / point_bytes points.
        check("g16_srs_decode", unsafe {
            ffi::g16_srs_decode(
                g2 as i32,
                lane.points.as_mut_ptr(),
                n / point_bytes,
                lane.needs_cpu.as_mut_ptr().cast(),
                lane.stream.raw(),
            )
        })?;
        let flag = lane.flag.slice_mut(4);
        // SAFETY: a u32 of page-locked memory; read only after the synchronisation below.
        let flag_u32 = unsafe { std::slice::from_raw_parts_mut(flag.as_mut_ptr().cast(), 1) };
        lane.needs_cpu.download_async(flag_u32, &lane.stream)?;
        lane.points
            .download_async(lane.decoded.slice_mut(n), &lane.stream)?;
        lane.stream.synchronize()?;
        if flag_u32[0] != 0 {
            return Ok(false);
        }
        out.copy_from_slice(lane.decoded.slice_mut(n));
        Ok(true)
    }
}

impl ChunkDecoder for GpuDecoder {
    fn decode(
        &self,
        g2: bool,
        out: &mut [u8],
        read: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<bool> {
        if out.len() > self.chunk_bytes {
            read(out)?;
            return Ok(false);
        }
        let index = rayon::current_thread_index().unwrap_or(0) % self.lanes.len();
        let mut slot = self.lanes[index].lock();
        if slot.is_none() {
            match self.lane() {
                Ok(lane) => *slot = Some(lane),
                // No lane for this thread (out of page-locked or device memory): the CPU.
                Err(_) => {
                    read(out)?;
                    return Ok(false);
                }
            }
        }
        let lane = slot.as_mut().expect("made above");
        read(lane.raw.slice_mut(out.len()))?;
        match GpuDecoder::run(lane, g2, out) {
            Ok(true) => Ok(true),
            // A point for the CPU's verdict, or a CUDA failure: the raw bytes go to the CPU.
            Ok(false) | Err(_) => {
                out.copy_from_slice(lane.raw.slice_mut(out.len()));
                Ok(false)
            }
        }
    }
}
