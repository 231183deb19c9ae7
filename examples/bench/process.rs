//! What the benches share: re-running this binary as a child process and collecting its
//! report, the process's peak RSS, `--log-n` lists, and witness vectors moved to page-locked
//! memory (`--pinned-inputs`).

use std::process::Command;

use bench_support::synthetic_partition::SyntheticPartition;
use blstrs::Scalar;

use crate::common::fail;

pub fn parse_sizes(list: &str) -> Vec<u32> {
    list.split(',')
        .map(|k| {
            k.trim()
                .parse()
                .unwrap_or_else(|_| fail(&format!("--log-n: cannot parse {k:?}")))
        })
        .collect()
}

/// This binary, to be re-executed as a child.
pub fn self_command() -> Command {
    Command::new(std::env::current_exe().unwrap_or_else(|e| fail(&format!("current_exe: {e}"))))
}

/// Runs a child (its stderr shows through) and returns its stdout; exits if it fails.
pub fn run_self(mut child: Command, what: &str) -> String {
    let out = child
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot start {what}: {e}")));
    if !out.status.success() {
        fail(&format!("{what} failed: {}", out.status));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// This process's peak resident set size (VmHWM) in KiB, 0 where /proc is not available.
pub fn peak_rss_kb() -> u64 {
    crate::common::proc_status_kib("VmHWM")
}

/// A copy of scalars in memory from the library's allocator (page-locked on a GPU).
pub struct PinnedScalars {
    ptr: *mut u8,
    len: usize,
}

impl PinnedScalars {
    pub fn copy_of(v: &[Scalar]) -> PinnedScalars {
        let bytes = std::mem::size_of_val(v).max(1);
        let ptr = groth16_c2::pinned::alloc(bytes)
            .unwrap_or_else(|e| fail(&format!("pinned allocation of {bytes} bytes: {e}")));
        // SAFETY: `ptr` holds `bytes` >= the source's size; the regions are distinct.
        unsafe {
            std::ptr::copy_nonoverlapping(
                v.as_ptr().cast::<u8>(),
                ptr,
                bytes.min(std::mem::size_of_val(v)),
            )
        };
        PinnedScalars { ptr, len: v.len() }
    }

    pub fn as_slice(&self) -> &[Scalar] {
        // SAFETY: `len` scalars were copied in; the allocation is page-aligned.
        unsafe { std::slice::from_raw_parts(self.ptr.cast(), self.len) }
    }
}

impl Drop for PinnedScalars {
    fn drop(&mut self) {
        // SAFETY: allocated by `copy_of`; no proof is running.
        let _ = unsafe { groth16_c2::pinned::free(self.ptr) };
    }
}

/// Bytes of the partitions' witnesses (a, b, c, inputs, aux).
pub fn witness_bytes(partitions: &[SyntheticPartition]) -> usize {
    partitions
        .iter()
        .map(|p| (3 * p.a.len() + p.inputs.len() + p.aux.len()) * 32)
        .sum()
}

/// With `pinned`, moves each partition's a, b, c to page-locked memory (empty otherwise); the
/// witnesses then point there.
pub fn pin_inputs(partitions: &mut [SyntheticPartition], pinned: bool) -> Vec<[PinnedScalars; 3]> {
    if !pinned {
        return Vec::new();
    }
    partitions
        .iter_mut()
        .map(|p| [&mut p.a, &mut p.b, &mut p.c].map(|v| PinnedScalars::copy_of(&std::mem::take(v))))
        .collect()
}
