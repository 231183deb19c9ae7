// The kernels' tuning knobs: numbers that trade one resource against another, each set to the
// value that measured fastest on the H200 (`-DNAME=value` in GROTH16_C2_NVCC_FLAGS overrides
// one). Everything else in the kernels has a single form.
#ifndef GROTH16_C2_CONFIG_CUH
#define GROTH16_C2_CONFIG_CUH

// NTT: log2 of the elements one block holds (10 or 11): blocks per SM against columns per block.
#ifndef G16_NTT_TILE_LOG
#define G16_NTT_TILE_LOG 10
#endif

// NTT: log2 of the elements per thread in a register round: registers against shared-memory rounds.
#ifndef G16_NTT_WINDOW
#define G16_NTT_WINDOW 2
#endif

// NTT: blocks per SM the pass kernels' registers are bounded for: occupancy against spills
// (3 of 256 threads with 2^10 tiles; Turing's 64 KiB of shared memory holds only 2).
#ifndef G16_NTT_MIN_BLOCKS
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define G16_NTT_MIN_BLOCKS 2
#else
#define G16_NTT_MIN_BLOCKS (G16_NTT_TILE_LOG == 10 ? 3 : 2)
#endif
#endif

// MSM: the widest window chosen from the size (log2(n) - 3 up to this): additions per point
// against buckets per window.
#ifndef G16_MSM_MAX_WINDOW
#define G16_MSM_MAX_WINDOW 16
#endif

// MSM: the window from 2^G16_MSM_WIDE_FROM points up (0: never): fewer windows against more
// buckets to reduce.
#ifndef G16_MSM_WIDE_WINDOW
#define G16_MSM_WIDE_WINDOW 20
#endif
#ifndef G16_MSM_WIDE_FROM
#define G16_MSM_WIDE_FROM 25
#endif

static_assert(G16_MSM_MAX_WINDOW >= 4 && G16_MSM_MAX_WINDOW <= 24, "window bits out of range");
static_assert(G16_MSM_WIDE_WINDOW == 0 ||
                  (G16_MSM_WIDE_WINDOW >= 4 && G16_MSM_WIDE_WINDOW <= 24),
              "window bits out of range");

// MSM: blocks of 128 threads per SM the G1 slice kernel's registers are bounded for: occupancy
// against spills.
#ifndef G16_SLICE_MIN_BLOCKS
#define G16_SLICE_MIN_BLOCKS 3
#endif

// MSM: the same for G2's slice kernel (whose additions hold twice the field elements).
#ifndef G16_G2_SLICE_MIN_BLOCKS
#define G16_G2_SLICE_MIN_BLOCKS G16_SLICE_MIN_BLOCKS
#endif

// Batch addition: bitmap words (64 points each) per thread: partial sums to reduce against
// threads in flight.
#ifndef G16_BATCH_WORDS_PER_THREAD
#define G16_BATCH_WORDS_PER_THREAD 8
#endif

// Batch addition: the fewest threads a batch runs (fewer words each below 2^24 points, down to
// one): filling the GPU against partial sums to reduce. A streamed SRS adds chunks of 2^21-2^24.
#ifndef G16_BATCH_MIN_THREADS
#define G16_BATCH_MIN_THREADS 32768
#endif

#endif
