//! Holds all of a GPU's free memory but `--leave` (e.g. `16G`), so that another program on the
//! same GPU sees what a smaller card would give it: the benchmarks run a prover that has no
//! limit setting of its own (supraseal-c2) next to this one to compare it with ours under the
//! same free memory.
//!
//! `hold_gpu_memory --leave 16G [--gpu 0] [--seconds 3600]`
//!
//! Prints `holding X GiB on GPU N; Y GiB free` once the memory is taken, then sleeps until
//! killed, until its standard input closes, or for `--seconds`. Needs a CUDA build.

#[cfg(groth16_c2_cuda)]
fn main() {
    use std::io::Read;
    use std::time::Duration;

    use groth16_c2::testing::cuda::runtime::{memory_info, set_device, DeviceBuffer};

    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let fail = |msg: String| -> ! {
        eprintln!("hold_gpu_memory: {msg}");
        eprintln!("usage: hold_gpu_memory --leave 16G [--gpu 0] [--seconds 3600]");
        std::process::exit(2)
    };
    let leave = value("--leave")
        .map(|v| groth16_c2::host_memory::parse_bytes(&v).unwrap_or_else(|e| fail(e.to_string())))
        .unwrap_or_else(|| fail("--leave is required".into())) as usize;
    let gpu: usize = value("--gpu").map_or(0, |v| v.parse().unwrap_or_else(|_| fail(v)));
    let seconds: Option<u64> = value("--seconds").map(|v| v.parse().unwrap_or_else(|_| fail(v)));
    // This program is the other process: the library's own cap does not apply to it.
    groth16_c2::settings::set_vram_limit(0);
    set_device(gpu).unwrap_or_else(|e| fail(e.to_string()));
    let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
    // Blocks of 1 GiB, then smaller, until only `leave` is free (allocations round up a little).
    let mut held: Vec<DeviceBuffer<u8>> = Vec::new();
    let mut block = 1usize << 30;
    loop {
        let (free, _) = memory_info().unwrap_or_else(|e| fail(e.to_string()));
        if free <= leave || block < (2 << 20) {
            break;
        }
        let want = (free - leave).min(block);
        match DeviceBuffer::<u8>::new(want) {
            Ok(b) => held.push(b),
            Err(_) => block /= 2,
        }
        if free - leave < block {
            block /= 2;
        }
    }
    let (free, total) = memory_info().unwrap_or_else(|e| fail(e.to_string()));
    println!(
        "holding {:.2} GiB on GPU {gpu}; {:.2} GiB of {:.2} GiB free",
        gib(held.iter().map(DeviceBuffer::len).sum()),
        gib(free),
        gib(total)
    );
    match seconds {
        Some(s) => std::thread::sleep(Duration::from_secs(s)),
        None => {
            // Until the parent closes our standard input (or kills us).
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
        }
    }
}

#[cfg(not(groth16_c2_cuda))]
fn main() {
    eprintln!("hold_gpu_memory: this build of groth16-c2 has no CUDA backend");
    std::process::exit(2);
}
