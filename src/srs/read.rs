//! Loading a params file: parallel `pread`s of the whole file, all sections in one pass, each
//! chunk read straight into the vector the prover keeps and decoded there in place while it is
//! still in cache (an encoded point and a decoded one are the same size).
//!
//! No mapping of the file: a host that truncated the file during the load made a mapping
//! fault with SIGBUS, where a short read is an error naming the file; and none of the file's
//! pages count in our resident set, so it tracks the decoded copy alone.
//!
//! Where the CPU time goes (2-core VM, warm page cache, per G1 point of 96 bytes): ~185 ns
//! decoding, of which ~150 ns are blst's five Montgomery multiplications (two conversions, the
//! curve equation: the floor with blst), and ~50 ns in the kernel: its copy from the page cache
//! and the zeroed pages of the decoded vectors (populated a task at a time, see [`populate`]).
//! With `GROTH16_C2_SRS_HUGE_PAGES=1` those vectors ask for transparent huge pages before their
//! first touch (off by default, see [`huge_pages_wanted`]).

use std::fs::File;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use blst::{blst_p1_affine, blst_p2_affine};
use rayon::prelude::*;

use super::decode::{decode_in_place, decode_one, Encoded, PointChecks};
use super::layout::{Layout, Section, G1_BYTES, G2_BYTES, VK_FIXED_BYTES};
use super::{HostPins, LoadOptions, SrsData, VerifyingKey};
use crate::curve::{g1_affine_from_blst, g1_vec_from_blst, g2_affine_from_blst, g2_vec_from_blst};
use crate::error::{Error, Result};

/// Bytes read and decoded per task: a few hundred KiB stay in a core's L2 cache between the
/// read and the decode, and give every core of a large machine thousands of tasks to balance.
const TASK_BYTES: usize = 384 << 10;

/// How many tasks ahead each task asks the kernel to read (see [`fill`]).
const READ_AHEAD: usize = 8;

/// Decodes a chunk somewhere other than on the CPU (the CUDA backend's GPU decoder).
pub trait ChunkDecoder: Sync {
    /// Reads a chunk of `out.len()` bytes with `read` (into a buffer of the decoder's choosing)
    /// and decodes its points into `out` (`g2`: 192-byte G2 points, else 96-byte G1 points).
    /// Returns false when it did not decode them: `out` then holds the chunk's raw bytes, for
    /// the CPU decoder's verdict.
    fn decode(
        &self,
        g2: bool,
        out: &mut [u8],
        read: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<bool>;
}

/// Offers a decoder for chunks of `chunk_bytes` read by `threads` threads, or none (the CPU
/// decodes): the backend's choice, passed in by the loader above it.
pub type ChunkDecoders = fn(chunk_bytes: usize, threads: usize) -> Option<Box<dyn ChunkDecoder>>;

/// Where the time of one load went (see [`super::Srs::load_profiled`]).
#[derive(Clone, Debug, Default)]
pub struct LoadProfile {
    /// Opening the file and reading its counts and verifying key.
    pub header: Duration,
    /// Reserving the decoded vectors.
    pub reserve: Duration,
    /// The parallel pass over the points (wall clock).
    pub pass: Duration,
    /// Summed over the pass's tasks, CPU time: in the kernel before the decode, which is the
    /// fresh pages of the decoded vectors and the `pread`'s copy from the page cache (or the
    /// disk read).
    pub read_cpu: Duration,
    /// Summed over the pass's tasks, CPU time: decoding and checking the G1 points, the G2 points.
    pub decode_g1_cpu: Duration,
    pub decode_g2_cpu: Duration,
    pub tasks: usize,
    pub threads: usize,
    pub g1_points: usize,
    pub g2_points: usize,
    /// Whether the decoded vectors were advised to use huge pages and the kernel accepted.
    pub huge_pages: bool,
    /// Chunks the GPU decoded (0 without a GPU decoder), of `tasks`.
    pub gpu_chunks: usize,
}

/// The file being loaded, and its size when it was opened.
struct Source<'a> {
    file: &'a File,
    path: &'a Path,
    len: u64,
}

impl Source<'_> {
    /// Reads `n` bytes at `offset` into `dst`; the file ending early is an error.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `n` bytes.
    unsafe fn read_raw(&self, dst: *mut u8, n: usize, offset: u64) -> Result<()> {
        let mut done = 0;
        while done < n {
            let at = offset + done as u64;
            let got = libc::pread(
                self.file.as_raw_fd(),
                dst.add(done).cast(),
                n - done,
                at as libc::off_t,
            );
            match got {
                0 => return Err(self.shrank(at)),
                g if g > 0 => done += g as usize,
                _ => {
                    let err = std::io::Error::last_os_error();
                    if err.kind() != std::io::ErrorKind::Interrupted {
                        return Err(Error::Io {
                            path: self.path.to_path_buf(),
                            source: err,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn read(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        // SAFETY: `buf` is valid for writes of its length.
        unsafe { self.read_raw(buf.as_mut_ptr(), buf.len(), offset) }
    }

    fn shrank(&self, at: u64) -> Error {
        let now = match self.file.metadata() {
            Ok(m) => format!("it has {} now", m.len()),
            Err(e) => format!("its size cannot be read now: {e}"),
        };
        Error::MalformedParams {
            path: self.path.to_path_buf(),
            reason: format!(
                "the file ended at byte {at} while it was being loaded, but it had {} bytes when \
                 it was opened ({now}): another process truncated or rewrote it during the load",
                self.len
            ),
        }
    }

    /// The sections, from the counts read one by one, and the verifying key's fixed bytes.
    ///
    /// [`Layout::parse`] checks a whole file image; it gets one of the file's length that holds
    /// just the bytes it reads (the verifying key and the counts) and zeros elsewhere, in a
    /// lazily allocated mapping that costs a few pages whatever the file's size.
    fn layout(&self) -> Result<(Layout, Vec<u8>)> {
        let len = usize::try_from(self.len).map_err(|_| Error::MalformedParams {
            path: self.path.to_path_buf(),
            reason: format!("{} bytes is larger than this machine can address", self.len),
        })?;
        let mut image = SparseImage::new(len).map_err(|source| Error::Io {
            path: self.path.to_path_buf(),
            source,
        })?;
        self.read(&mut image[..len.min(VK_FIXED_BYTES)], 0)?;
        let mut at = VK_FIXED_BYTES;
        for point_bytes in [G1_BYTES, G1_BYTES, G1_BYTES, G1_BYTES, G1_BYTES, G2_BYTES] {
            if at + 4 > len {
                break;
            }
            self.read(&mut image[at..at + 4], at as u64)?;
            let count = u32::from_be_bytes(image[at..at + 4].try_into().expect("4 bytes"));
            match (count as usize)
                .checked_mul(point_bytes)
                .and_then(|b| b.checked_add(at + 4))
            {
                Some(end) if end <= len => at = end,
                _ => break,
            }
        }
        let layout = Layout::parse(self.path, &image)?;
        Ok((layout, image[..VK_FIXED_BYTES].to_vec()))
    }
}

/// A zero-filled, writable, lazily allocated anonymous mapping.
struct SparseImage {
    ptr: *mut u8,
    len: usize,
}

impl SparseImage {
    fn new(len: usize) -> std::io::Result<SparseImage> {
        // SAFETY: a fresh private anonymous mapping; no existing memory is affected.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(SparseImage {
            ptr: ptr.cast(),
            len,
        })
    }
}

impl Deref for SparseImage {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the mapping is `len` readable bytes, alive as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for SparseImage {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and writable, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for SparseImage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe { libc::munmap(self.ptr.cast(), self.len.max(1)) };
    }
}

/// Whether to ask for huge pages: only with `GROTH16_C2_SRS_HUGE_PAGES=1`. Where guest memory
/// is handed back to the hypervisor (a virtio balloon with free-page reporting), the first
/// touch of a fresh 2 MiB page costs several times what 512 small pages cost, and a process's
/// first load (the one that counts) gets fresh pages: on a 2-core VM of that kind, huge pages
/// made the first 3 GB load 6 s of CPU slower and later ones no faster (pages are populated a
/// task at a time either way). Kept as an opt-in to measure on machines of other kinds.
fn huge_pages_wanted() -> bool {
    std::env::var("GROTH16_C2_SRS_HUGE_PAGES").as_deref() == Ok("1")
}

/// A vector of `count` uninitialised points, backed by huge pages if `huge` and the kernel
/// allows. Returns whether huge pages were asked for and accepted (or not needed: too small).
fn reserve<P>(count: usize, huge: bool) -> (Vec<P>, bool) {
    const HUGE: usize = 2 << 20;
    let mut v: Vec<P> = Vec::with_capacity(count);
    let spare = v.spare_capacity_mut();
    let start = spare.as_mut_ptr() as usize;
    let first = start.div_ceil(HUGE) * HUGE;
    let last = (start + std::mem::size_of_val(spare)) / HUGE * HUGE;
    if huge && last > first {
        // SAFETY: [first, last) lies inside an allocation we own and have not touched yet;
        // the advice changes how its pages are backed, not what they hold.
        let advised = unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            )
        };
        return (v, advised == 0);
    }
    (v, huge)
}

/// Backs the whole pages of `slots` with memory in one call (`MADV_POPULATE_WRITE`, Linux
/// 5.14+) rather than one page fault at a time inside the `pread`: a sixth less kernel time
/// on the 2-core VM. Older kernels refuse the advice and the faults happen as before.
fn populate<P>(slots: &mut [MaybeUninit<P>]) {
    static PAGE: once_cell::sync::Lazy<usize> =
        // SAFETY: sysconf has no preconditions.
        once_cell::sync::Lazy::new(|| unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize);
    let page = *PAGE;
    let start = slots.as_mut_ptr() as usize;
    let first = start.div_ceil(page) * page;
    let last = (start + std::mem::size_of_val(slots)) / page * page;
    if last > first {
        // SAFETY: [first, last) lies inside slots we own; populating writes nothing they hold
        // (fresh pages come zeroed, pages already there are left alone).
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_POPULATE_WRITE,
            )
        };
    }
}

/// The slots one task reads and decodes.
enum Slots<'a> {
    G1(&'a mut [MaybeUninit<blst_p1_affine>]),
    G2(&'a mut [MaybeUninit<blst_p2_affine>]),
}

/// Where a task's points are.
struct Chunk {
    section: &'static str,
    /// Index in its section of the first point.
    first: usize,
    /// Byte offset in the file of the first point.
    offset: u64,
    checks: PointChecks,
}

struct Task<'a> {
    chunk: Chunk,
    slots: Slots<'a>,
}

/// Cuts a section's vector into tasks.
fn tasks_of<'a, P: Encoded>(
    section: &Section,
    out: &'a mut Vec<P>,
    checks: PointChecks,
    slots: fn(&'a mut [MaybeUninit<P>]) -> Slots<'a>,
    tasks: &mut Vec<Task<'a>>,
) {
    let per_task = (TASK_BYTES / P::BYTES).max(1);
    let spare = &mut out.spare_capacity_mut()[..section.count];
    for (i, part) in spare.chunks_mut(per_task).enumerate() {
        let chunk = Chunk {
            section: section.name,
            first: i * per_task,
            offset: (section.bytes.start + i * per_task * P::BYTES) as u64,
            checks,
        };
        tasks.push(Task {
            chunk,
            slots: slots(part),
        });
    }
}

/// This thread's CPU time: what the pass's breakdown sums, so that it stays meaningful on a
/// machine where other work competes for the cores.
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// CPU time spent in the pass's tasks, in nanoseconds.
#[derive(Default)]
struct Clocks {
    read: AtomicU64,
    decode_g1: AtomicU64,
    decode_g2: AtomicU64,
    gpu_chunks: AtomicU64,
}

impl Task<'_> {
    fn run(self, source: &Source, clocks: &Clocks, gpu: Option<&dyn ChunkDecoder>) -> Result<()> {
        match self.slots {
            Slots::G1(s) => fill(source, &self.chunk, s, clocks, &clocks.decode_g1, gpu),
            Slots::G2(s) => fill(source, &self.chunk, s, clocks, &clocks.decode_g2, gpu),
        }
    }
}

/// Reads a chunk into its slots and decodes it there (or has `gpu` decode it).
fn fill<P: Encoded>(
    source: &Source,
    chunk: &Chunk,
    slots: &mut [MaybeUninit<P>],
    clocks: &Clocks,
    decode_ns: &AtomicU64,
    gpu: Option<&dyn ChunkDecoder>,
) -> Result<()> {
    let read_ns = &clocks.read;
    let start = thread_cpu_ns();
    let bytes = std::mem::size_of_val(slots);
    // Ask for the chunk READ_AHEAD tasks further on, which this thread or a neighbour reads
    // soon: on a cold page cache the disk works ahead of the decode (a few microseconds of
    // page-cache lookups on a warm one). Failure only loses the hint.
    let ahead = chunk.offset + (READ_AHEAD * bytes) as u64;
    // SAFETY: advice on an open descriptor; no memory is involved.
    unsafe {
        libc::posix_fadvise(
            source.file.as_raw_fd(),
            ahead as libc::off_t,
            bytes as libc::off_t,
            libc::POSIX_FADV_WILLNEED,
        )
    };
    populate(slots);
    let on_gpu = match gpu {
        // The GPU decodes the plain encoding; the optional subgroup check stays on the CPU.
        Some(gpu) if !chunk.checks.subgroup => {
            // SAFETY: the slots are `bytes` writable bytes; every byte is written below (by
            // the decoder or, failing that, with the raw chunk) before it is read.
            let out = unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), bytes) };
            gpu.decode(P::BYTES == G2_BYTES, out, &mut |raw| {
                source.read(raw, chunk.offset)
            })?
        }
        _ => {
            // SAFETY: the slots are `bytes` writable bytes.
            unsafe { source.read_raw(slots.as_mut_ptr().cast(), bytes, chunk.offset)? };
            false
        }
    };
    let read = thread_cpu_ns();
    let bad = if on_gpu {
        clocks.gpu_chunks.fetch_add(1, Ordering::Relaxed);
        None
    } else {
        // SAFETY: the read above initialised every slot's bytes.
        unsafe { decode_in_place(slots, chunk.checks) }
    };
    let decoded = thread_cpu_ns();
    read_ns.fetch_add(read - start, Ordering::Relaxed);
    decode_ns.fetch_add(decoded - read, Ordering::Relaxed);
    match bad {
        Some((i, problem)) => Err(Error::BadPoint {
            path: source.path.to_path_buf(),
            section: chunk.section,
            index: chunk.first + i,
            problem,
        }),
        None => Ok(()),
    }
}

/// Loads and checks a whole params file.
pub(super) fn load(
    path: &Path,
    options: LoadOptions,
    decoders: ChunkDecoders,
) -> Result<(SrsData, LoadProfile)> {
    let start = Instant::now();
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // Non-blocking open: a FIFO with no writer would otherwise block here forever (regular
    // files ignore the flag); what is not a regular file is refused just below.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::from_raw_os_error(libc::EISDIR)));
    }
    if !meta.is_file() {
        return Err(Error::MalformedParams {
            path: path.to_path_buf(),
            reason: "it is not a regular file (a FIFO, socket or device); a params file must be"
                .into(),
        });
    }
    if meta.len() == 0 {
        return Err(Error::MalformedParams {
            path: path.to_path_buf(),
            reason: "the file is empty".into(),
        });
    }
    let source = Source {
        file: &file,
        path,
        len: meta.len(),
    };
    // A hint for a cold page cache: larger read-ahead. Failure only loses the hint.
    // SAFETY: advice on an open descriptor; no memory is involved.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };

    let (layout, vk_bytes) = source.layout()?;
    let checks = PointChecks {
        subgroup: options.subgroup_check,
        reject_infinity: true,
    };
    let vk_checks = PointChecks {
        reject_infinity: false,
        ..checks
    };
    let g1_at = |name, at: usize| -> Result<blst_p1_affine> {
        decode_one::<blst_p1_affine>(path, name, &vk_bytes[at..], vk_checks)
    };
    let g2_at = |name, at: usize| -> Result<blst_p2_affine> {
        decode_one::<blst_p2_affine>(path, name, &vk_bytes[at..], vk_checks)
    };
    let alpha_g1 = g1_at("alpha_g1", 0)?;
    let beta_g1 = g1_at("beta_g1", G1_BYTES)?;
    let beta_g2 = g2_at("beta_g2", 2 * G1_BYTES)?;
    let gamma_g2 = g2_at("gamma_g2", 2 * G1_BYTES + G2_BYTES)?;
    let delta_g1 = g1_at("delta_g1", 2 * G1_BYTES + 2 * G2_BYTES)?;
    let delta_g2 = g2_at("delta_g2", 3 * G1_BYTES + 2 * G2_BYTES)?;
    let header = start.elapsed();

    let start = Instant::now();
    let wanted = huge_pages_wanted();
    let mut huge = wanted;
    let mut g1 = |s: &Section| {
        let (v, h) = reserve::<blst_p1_affine>(s.count, wanted);
        huge &= h;
        v
    };
    let (mut ic, mut h, mut l, mut a, mut b_g1) = (
        g1(&layout.ic),
        g1(&layout.h),
        g1(&layout.l),
        g1(&layout.a),
        g1(&layout.b_g1),
    );
    let (mut b_g2, h2) = reserve::<blst_p2_affine>(layout.b_g2.count, wanted);
    huge &= h2;
    let reserve = start.elapsed();

    let start = Instant::now();
    let clocks = Clocks::default();
    let mut tasks = Vec::new();
    // `ic` is a counted section: bellperson's reader refuses infinity there too.
    tasks_of(&layout.ic, &mut ic, checks, Slots::G1, &mut tasks);
    for (section, out) in [
        (&layout.h, &mut h),
        (&layout.l, &mut l),
        (&layout.a, &mut a),
        (&layout.b_g1, &mut b_g1),
    ] {
        tasks_of(section, out, checks, Slots::G1, &mut tasks);
    }
    tasks_of(&layout.b_g2, &mut b_g2, checks, Slots::G2, &mut tasks);
    let task_count = tasks.len();
    // The earliest failure in file order is the one reported, so once a task fails, tasks
    // after it need not run; tasks before it still do, and may fail earlier.
    let earliest_failure = AtomicU64::new(u64::MAX);
    let gpu = decoders(TASK_BYTES, rayon::current_num_threads());
    let gpu = gpu.as_deref();
    let failure = tasks
        .into_par_iter()
        .filter_map(|task| {
            let offset = task.chunk.offset;
            if offset > earliest_failure.load(Ordering::Relaxed) {
                return None;
            }
            let result = task.run(&source, &clocks, gpu);
            result.err().map(|e| {
                earliest_failure.fetch_min(offset, Ordering::Relaxed);
                (offset, e)
            })
        })
        .min_by_key(|(offset, _)| *offset);
    if let Some((_, e)) = failure {
        return Err(e);
    }
    // SAFETY: every slot of every section was written by a task that succeeded (none failed).
    unsafe {
        ic.set_len(layout.ic.count);
        h.set_len(layout.h.count);
        l.set_len(layout.l.count);
        a.set_len(layout.a.count);
        b_g1.set_len(layout.b_g1.count);
        b_g2.set_len(layout.b_g2.count);
    }
    let profile = LoadProfile {
        header,
        reserve,
        pass: start.elapsed(),
        read_cpu: Duration::from_nanos(clocks.read.into_inner()),
        decode_g1_cpu: Duration::from_nanos(clocks.decode_g1.into_inner()),
        decode_g2_cpu: Duration::from_nanos(clocks.decode_g2.into_inner()),
        tasks: task_count,
        threads: rayon::current_num_threads(),
        g1_points: ic.len() + h.len() + l.len() + a.len() + b_g1.len(),
        g2_points: b_g2.len(),
        huge_pages: huge,
        gpu_chunks: clocks.gpu_chunks.load(Ordering::Relaxed) as usize,
    };
    let data = SrsData {
        host_pins: HostPins::default(),
        vk: VerifyingKey {
            alpha_g1: g1_affine_from_blst(alpha_g1),
            beta_g1: g1_affine_from_blst(beta_g1),
            beta_g2: g2_affine_from_blst(beta_g2),
            gamma_g2: g2_affine_from_blst(gamma_g2),
            delta_g1: g1_affine_from_blst(delta_g1),
            delta_g2: g2_affine_from_blst(delta_g2),
            ic: g1_vec_from_blst(ic),
        },
        h: g1_vec_from_blst(h),
        l: g1_vec_from_blst(l),
        a: g1_vec_from_blst(a),
        b_g1: g1_vec_from_blst(b_g1),
        b_g2: g2_vec_from_blst(b_g2),
        path: path.to_path_buf(),
        file_bytes: layout.file_len(),
        load_time: Duration::ZERO,
    };
    Ok((data, profile))
}
