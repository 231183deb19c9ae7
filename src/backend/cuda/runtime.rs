//! Safe wrappers over the CUDA runtime: device selection, streams, events, device buffers and
//! pinned host regions, each freed by `Drop`, every failure mapped to [`Error::Cuda`] with
//! CUDA's own message.

use std::ffi::{c_int, c_void, CStr};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::ffi::{self, CudaError};
use crate::error::{Error, Result};
use crate::fault::{self, Site};

/// Turns a CUDA status into our error, naming the call that failed.
pub fn check(call: &'static str, code: CudaError) -> Result<()> {
    if code == ffi::SUCCESS {
        return Ok(());
    }
    // Clear the error so the next call starts clean (an allocation failure is not sticky; a
    // failed kernel leaves the context unusable whatever we do).
    // SAFETY: no preconditions.
    unsafe { ffi::cudaGetLastError() };
    // SAFETY: cudaGetErrorString returns a static NUL-terminated string for any code.
    let message = unsafe { CStr::from_ptr(ffi::cudaGetErrorString(code)) }
        .to_string_lossy()
        .into_owned();
    Err(Error::Cuda {
        call,
        code,
        message,
    })
}

/// `cudaErrorInvalidValue`, `cudaErrorMemoryAllocation`, `cudaErrorLaunchOutOfResources`: what
/// injected faults report (none of them leaves the context unusable).
const INJECTED_COPY: CudaError = 1;
const INJECTED_ALLOC: CudaError = 2;
pub(super) const INJECTED_LAUNCH: CudaError = 701;

/// Fails `call` with `code` when the test-only fault at `site` strikes ([`crate::fault`]).
pub(super) fn injected(site: Site, call: &'static str, code: CudaError) -> Result<()> {
    if fault::strikes(site) {
        return Err(Error::Cuda {
            call,
            code,
            message: "injected fault".into(),
        });
    }
    Ok(())
}

/// CUDA devices visible to this process; 0 when there is no driver or no GPU.
pub fn device_count() -> usize {
    let mut n = 0;
    // SAFETY: writes one int.
    let code = unsafe { ffi::cudaGetDeviceCount(&mut n) };
    if code != ffi::SUCCESS {
        // Clear the sticky "no device" / "no driver" error so later calls do not see it.
        // SAFETY: no preconditions.
        unsafe { ffi::cudaGetLastError() };
        return 0;
    }
    n.max(0) as usize
}

/// Makes `device` current for this thread's CUDA calls.
pub fn set_device(device: usize) -> Result<()> {
    // SAFETY: plain call.
    check("cudaSetDevice", unsafe {
        ffi::cudaSetDevice(device as i32)
    })
}

/// The current device of this thread.
pub fn current_device() -> Result<usize> {
    let mut d = 0;
    // SAFETY: writes one int.
    check("cudaGetDevice", unsafe { ffi::cudaGetDevice(&mut d) })?;
    Ok(d.max(0) as usize)
}

/// Free and total memory of the current device, in bytes.
pub fn memory_info() -> Result<(usize, usize)> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: writes two usizes.
    check("cudaMemGetInfo", unsafe {
        ffi::cudaMemGetInfo(&mut free, &mut total)
    })?;
    Ok((free, total))
}

/// A non-blocking stream on the current device.
pub struct Stream(ffi::Stream);

// SAFETY: CUDA streams may be used from any thread.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl Stream {
    pub fn new() -> Result<Stream> {
        let mut s = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cudaStreamCreateWithFlags", unsafe {
            ffi::cudaStreamCreateWithFlags(&mut s, ffi::STREAM_NON_BLOCKING)
        })?;
        Ok(Stream(s))
    }

    pub fn raw(&self) -> ffi::Stream {
        self.0
    }

    /// Waits for this stream's work only (never the whole device).
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: a live stream.
        check("cudaStreamSynchronize", unsafe {
            ffi::cudaStreamSynchronize(self.0)
        })
    }

    /// Makes later work on this stream wait for `event`.
    pub fn wait(&self, event: &Event) -> Result<()> {
        // SAFETY: live stream and event.
        check("cudaStreamWaitEvent", unsafe {
            ffi::cudaStreamWaitEvent(self.0, event.0, 0)
        })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: destroying a stream we created; pending work still completes.
        unsafe { ffi::cudaStreamDestroy(self.0) };
    }
}

/// An event for ordering work between streams.
pub struct Event(ffi::Event);

// SAFETY: CUDA events may be used from any thread.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl Event {
    pub fn new() -> Result<Event> {
        let mut e = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cudaEventCreateWithFlags", unsafe {
            ffi::cudaEventCreateWithFlags(&mut e, ffi::EVENT_DISABLE_TIMING)
        })?;
        Ok(Event(e))
    }

    /// An event that records a timestamp, for [`Event::elapsed_ms`].
    pub fn timing() -> Result<Event> {
        let mut e = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cudaEventCreateWithFlags", unsafe {
            ffi::cudaEventCreateWithFlags(&mut e, 0)
        })?;
        Ok(Event(e))
    }

    /// Waits until the work before this event has run.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live event.
        check("cudaEventSynchronize", unsafe {
            ffi::cudaEventSynchronize(self.0)
        })
    }

    /// Milliseconds of GPU time between `start` and this event (both timing events, recorded
    /// and completed).
    pub fn elapsed_ms(&self, start: &Event) -> Result<f64> {
        let mut ms = 0f32;
        // SAFETY: live events; writes one float.
        check("cudaEventElapsedTime", unsafe {
            ffi::cudaEventElapsedTime(&mut ms, start.0, self.0)
        })?;
        Ok(ms as f64)
    }

    /// Marks the current end of `stream`'s work.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: live event and stream.
        check("cudaEventRecord", unsafe {
            ffi::cudaEventRecord(self.0, stream.0)
        })
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: destroying an event we created.
        unsafe { ffi::cudaEventDestroy(self.0) };
    }
}

/// Device memory a kernel reads or writes: a whole buffer, or a view of part of one.
pub trait DeviceSpan {
    /// Its device address.
    fn device_ptr(&self) -> *mut c_void;
    /// Bytes it covers.
    fn span_bytes(&self) -> usize;
}

impl<T> DeviceSpan for DeviceBuffer<T> {
    fn device_ptr(&self) -> *mut c_void {
        self.ptr
    }

    fn span_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

/// `bytes` bytes of device memory inside some allocation (the streamed section's arena).
#[derive(Clone, Copy, Debug)]
pub struct DeviceView {
    ptr: *mut c_void,
    bytes: usize,
}

impl DeviceView {
    /// # Safety
    /// `ptr` points into a live device allocation with `bytes` bytes from it, which outlives
    /// every use of the view.
    pub unsafe fn new(ptr: *mut c_void, bytes: usize) -> DeviceView {
        DeviceView { ptr, bytes }
    }
}

impl DeviceSpan for DeviceView {
    fn device_ptr(&self) -> *mut c_void {
        self.ptr
    }

    fn span_bytes(&self) -> usize {
        self.bytes
    }
}

/// `len` elements of `T` in device memory.
pub struct DeviceBuffer<T> {
    ptr: *mut c_void,
    len: usize,
    bytes: usize,
    device: usize,
    _t: PhantomData<T>,
}

// SAFETY: device memory is not tied to a host thread.
unsafe impl<T> Send for DeviceBuffer<T> {}
unsafe impl<T> Sync for DeviceBuffer<T> {}

impl<T: Copy> DeviceBuffer<T> {
    /// Allocates on the current device (uninitialised).
    pub fn new(len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::invalid(format!("a device buffer of {len} elements overflows"))
        })?;
        injected(Site::DeviceAlloc, "cudaMalloc", INJECTED_ALLOC)?;
        let device = current_device()?;
        let bytes = bytes.max(1);
        // The host's cap on what the library holds per device (GROTH16_C2_VRAM_LIMIT): an
        // allocation past it fails as one past the card's memory would.
        let limit = crate::settings::vram_limit() as usize;
        let held = vram_held(device);
        if limit > 0 && held + bytes > limit {
            return Err(Error::Cuda {
                call: "cudaMalloc",
                code: ffi::ERROR_MEMORY_ALLOCATION,
                message: format!(
                    "{bytes} more bytes would take this process past the device-memory limit of \
                     {limit} bytes on GPU {device} ({held} held; GROTH16_C2_VRAM_LIMIT)"
                ),
            });
        }
        let mut ptr = std::ptr::null_mut();
        // SAFETY: writes one pointer.
        check("cudaMalloc", unsafe { ffi::cudaMalloc(&mut ptr, bytes) })?;
        VRAM.add(bytes);
        if let Some(t) = VRAM_BY_DEVICE.get(device) {
            t.add(bytes);
        }
        Ok(DeviceBuffer {
            ptr,
            len,
            bytes,
            device,
            _t: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Device bytes it holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const c_void {
        self.ptr
    }

    pub fn as_mut_ptr(&mut self) -> *mut c_void {
        self.ptr
    }

    /// Queues a copy of `src` into elements `0..src.len()`. `src` must stay alive and unchanged
    /// until `stream` has run the copy (pin it for speed: pageable memory copies at ~7 GB/s).
    pub fn upload_async(&mut self, src: &[T], stream: &Stream) -> Result<()> {
        assert!(src.len() <= self.len);
        injected(Site::Copy, "cudaMemcpyAsync(host to device)", INJECTED_COPY)?;
        // SAFETY: both ranges are valid for src.len() elements.
        check("cudaMemcpyAsync(host to device)", unsafe {
            ffi::cudaMemcpyAsync(
                self.ptr,
                src.as_ptr().cast(),
                std::mem::size_of_val(src),
                ffi::MEMCPY_HOST_TO_DEVICE,
                stream.raw(),
            )
        })
    }

    /// Queues a copy of elements `0..dst.len()` into uninitialised host memory; `dst` is
    /// initialised once `stream` has run the copy.
    pub fn download_uninit_async(
        &self,
        dst: &mut [std::mem::MaybeUninit<T>],
        stream: &Stream,
    ) -> Result<()> {
        assert!(dst.len() <= self.len);
        injected(Site::Copy, "cudaMemcpyAsync(device to host)", INJECTED_COPY)?;
        // SAFETY: both ranges are valid for dst.len() elements; MaybeUninit<T> has T's layout.
        check("cudaMemcpyAsync(device to host)", unsafe {
            ffi::cudaMemcpyAsync(
                dst.as_mut_ptr().cast(),
                self.ptr,
                std::mem::size_of_val(dst),
                ffi::MEMCPY_DEVICE_TO_HOST,
                stream.raw(),
            )
        })
    }

    /// Queues a copy of elements `0..dst.len()` into `dst`.
    pub fn download_async(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
        // SAFETY: MaybeUninit<T> has T's layout, and the copy only writes initialised values.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(
                dst.as_mut_ptr().cast::<std::mem::MaybeUninit<T>>(),
                dst.len(),
            )
        };
        self.download_uninit_async(dst, stream)
    }

    /// Queues a copy of `src` into elements `0..src.len()`, on the device.
    pub fn copy_from_async(&mut self, src: &DeviceBuffer<T>, stream: &Stream) -> Result<()> {
        assert!(src.len <= self.len);
        // SAFETY: both device ranges are valid for src.len elements.
        check("cudaMemcpyAsync(device to device)", unsafe {
            ffi::cudaMemcpyAsync(
                self.ptr,
                src.ptr,
                src.len * std::mem::size_of::<T>(),
                ffi::MEMCPY_DEVICE_TO_DEVICE,
                stream.raw(),
            )
        })
    }

    /// Queues zeroing of elements `from..to`.
    pub fn zero_range_async(&mut self, from: usize, to: usize, stream: &Stream) -> Result<()> {
        assert!(to <= self.len);
        if from >= to {
            return Ok(());
        }
        injected(Site::Copy, "cudaMemsetAsync", INJECTED_COPY)?;
        let size = std::mem::size_of::<T>();
        // SAFETY: the range lies inside the allocation.
        check("cudaMemsetAsync", unsafe {
            ffi::cudaMemsetAsync(
                self.ptr.cast::<u8>().add(from * size).cast(),
                0,
                (to - from) * size,
                stream.raw(),
            )
        })
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: freeing our own allocation (cudaFree waits for work that uses it).
        unsafe { ffi::cudaFree(self.ptr) };
        VRAM.sub(self.bytes);
        if let Some(t) = VRAM_BY_DEVICE.get(self.device) {
            t.sub(self.bytes);
        }
    }
}

/// Queues a host-to-device copy of `bytes` bytes on `stream`.
///
/// # Safety
/// `dst` is device memory and `src` host memory, each valid for `bytes` bytes until the copy has
/// run (page-locked `src` copies at PCIe speed; pageable memory is staged by the driver).
pub unsafe fn upload_raw(
    dst: *mut c_void,
    src: *const u8,
    bytes: usize,
    stream: &Stream,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    injected(Site::Copy, "cudaMemcpyAsync(host to device)", INJECTED_COPY)?;
    check(
        "cudaMemcpyAsync(host to device)",
        ffi::cudaMemcpyAsync(
            dst,
            src.cast(),
            bytes,
            ffi::MEMCPY_HOST_TO_DEVICE,
            stream.raw(),
        ),
    )
}

/// Queues zeroing of `bytes` bytes of device memory at `dst` on `stream`.
///
/// # Safety
/// `dst` is device memory valid for `bytes` bytes.
pub unsafe fn zero_raw(dst: *mut c_void, bytes: usize, stream: &Stream) -> Result<()> {
    fill_raw(dst, 0, bytes, stream)
}

/// Queues setting every one of `bytes` bytes of device memory at `dst` to `value` on `stream`.
///
/// # Safety
/// `dst` is device memory valid for `bytes` bytes.
pub unsafe fn fill_raw(dst: *mut c_void, value: u8, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    injected(Site::Copy, "cudaMemsetAsync", INJECTED_COPY)?;
    check(
        "cudaMemsetAsync",
        ffi::cudaMemsetAsync(dst, value as c_int, bytes, stream.raw()),
    )
}

/// Whether the whole of `data` is page-locked host memory (from `cudaHostAlloc` or
/// `cudaHostRegister`, by this library or the host), so copies from it need no staging. Asks
/// the driver about the first and the last byte: one array cannot span two allocations.
pub fn is_page_locked<T>(data: &[T]) -> bool {
    let bytes = std::mem::size_of_val(data);
    if bytes == 0 {
        return false;
    }
    let first = data.as_ptr().cast::<u8>();
    // SAFETY: the last byte of `data` lies inside it.
    let last = unsafe { first.add(bytes - 1) };
    [first, last].iter().all(|&p| {
        // SAFETY: an all-zero value is a valid `cudaPointerAttributes` for the call to fill.
        let mut attributes: ffi::PointerAttributes = unsafe { std::mem::zeroed() };
        // SAFETY: the driver only inspects the address.
        let code = unsafe { ffi::cudaPointerGetAttributes(&mut attributes, p.cast()) };
        if code != ffi::SUCCESS {
            // Older runtimes fail on memory they do not know; that clears it.
            // SAFETY: reads and clears the thread's last error.
            unsafe { ffi::cudaGetLastError() };
            return false;
        }
        attributes.memory_type == ffi::MEMORY_TYPE_HOST
    })
}

/// Page-locked host memory from `cudaHostAlloc` (portable: pinned for every device's context),
/// freed on drop.
pub struct HostBuffer {
    ptr: *mut u8,
    bytes: usize,
}

// SAFETY: plain host memory; its owner coordinates access (and keeps it until the copies that
// use it were synchronised).
unsafe impl Send for HostBuffer {}
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    pub fn new(bytes: usize) -> Result<HostBuffer> {
        injected(Site::HostAlloc, "cudaHostAlloc", INJECTED_ALLOC)?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes one pointer.
        check("cudaHostAlloc", unsafe {
            ffi::cudaHostAlloc(&mut ptr, bytes.max(1), ffi::HOST_ALLOC_PORTABLE)
        })?;
        PAGE_LOCKED.add(bytes.max(1));
        Ok(HostBuffer {
            ptr: ptr.cast(),
            bytes: bytes.max(1),
        })
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The first `n` bytes.
    pub fn slice_mut(&mut self, n: usize) -> &mut [u8] {
        assert!(n <= self.bytes);
        // SAFETY: `n` bytes of our allocation, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, n) }
    }

    /// Hands the allocation over to a caller that frees it with [`host_free`].
    pub fn into_raw(self) -> *mut u8 {
        PAGE_LOCKED.sub(self.bytes); // the host's now
        let ptr = self.ptr;
        std::mem::forget(self);
        ptr
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        // SAFETY: our own allocation; its owner keeps it until no copy from it is pending.
        unsafe { ffi::cudaFreeHost(self.ptr.cast()) };
        PAGE_LOCKED.sub(self.bytes);
    }
}

/// Frees what [`HostBuffer::into_raw`] handed over.
///
/// # Safety
/// `ptr` came from `into_raw`, is freed once, and no copy from or to it is pending.
pub unsafe fn host_free(ptr: *mut u8) {
    ffi::cudaFreeHost(ptr.cast());
}

/// Host memory page-locked for the lifetime of this value, so copies run at full PCIe speed.
/// Memory the host already pinned is used as is.
pub struct PinnedRegion {
    ptr: *mut c_void,
    /// Bytes this region registered (0: none, the memory was empty or already page-locked).
    registered: usize,
}

// SAFETY: the region is an address range; unregistering it is valid from any thread.
unsafe impl Send for PinnedRegion {}
unsafe impl Sync for PinnedRegion {}

impl PinnedRegion {
    /// Pins `data`; it must outlive the region and every copy queued from it.
    pub fn new<T>(data: &[T]) -> Result<PinnedRegion> {
        let ptr = data.as_ptr() as *mut c_void;
        if data.is_empty() {
            return Ok(PinnedRegion { ptr, registered: 0 });
        }
        injected(Site::HostAlloc, "cudaHostRegister", INJECTED_ALLOC)?;
        let bytes = std::mem::size_of_val(data);
        // SAFETY: registering a valid host range; we unregister it on drop.
        let code = unsafe { ffi::cudaHostRegister(ptr, bytes, ffi::HOST_REGISTER_PORTABLE) };
        if code == ffi::ERROR_HOST_MEMORY_ALREADY_REGISTERED {
            // SAFETY: clears the error we just handled.
            unsafe { ffi::cudaGetLastError() };
            return Ok(PinnedRegion { ptr, registered: 0 });
        }
        check("cudaHostRegister", code)?;
        PAGE_LOCKED.add(bytes);
        Ok(PinnedRegion {
            ptr,
            registered: bytes,
        })
    }
}

impl Drop for PinnedRegion {
    fn drop(&mut self) {
        if self.registered > 0 {
            // SAFETY: unregistering what `new` registered.
            unsafe { ffi::cudaHostUnregister(self.ptr) };
            PAGE_LOCKED.sub(self.registered);
        }
    }
}

/// Bytes held now, and the most held at once since the last [`Tally::reset_peak`].
pub struct Tally {
    now: AtomicUsize,
    peak: AtomicUsize,
}

impl Tally {
    const fn new() -> Tally {
        Tally {
            now: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    fn add(&self, bytes: usize) {
        let now = self.now.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn sub(&self, bytes: usize) {
        self.now.fetch_sub(bytes, Ordering::Relaxed);
    }

    pub fn current(&self) -> usize {
        self.now.load(Ordering::Relaxed)
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Restarts the peak from what is held now.
    pub fn reset_peak(&self) {
        self.peak.store(self.current(), Ordering::Relaxed);
    }
}

/// Device memory this process holds through [`DeviceBuffer`]s, all devices together.
pub static VRAM: Tally = Tally::new();

/// The same per device (the first 64).
pub static VRAM_BY_DEVICE: [Tally; 64] = [const { Tally::new() }; 64];

/// Device memory this process holds on `device` now.
pub fn vram_held(device: usize) -> usize {
    VRAM_BY_DEVICE.get(device).map_or(0, Tally::current)
}

/// Host memory this library holds page-locked: [`HostBuffer`]s (but not those handed to a host
/// through [`HostBuffer::into_raw`]) and [`PinnedRegion`]s it registered.
pub static PAGE_LOCKED: Tally = Tally::new();
