// The MSM's digit sort, per pass: count (a histogram of the bucket keys), scan (bucket
// offsets and fill cursors), scatter (each digit's entry into its bucket's slice; for large
// passes the binned scatter's bin and place steps).
#ifndef GROTH16_C2_MSM_SORT_CUH
#define GROTH16_C2_MSM_SORT_CUH

#include "msm_plan.cuh"

namespace g16 {

// Entries of the keys [lo, hi), over `subs` histograms `stride` apart.
G16_HD uint32_t sum_counts(const uint32_t* counts, uint32_t lo, uint32_t hi, uint32_t subs,
                           uint32_t stride) {
  uint32_t e = 0;
  for (uint32_t sub = 0; sub < subs; sub++)
    for (uint32_t k = lo; k < hi; k++) e += counts[size_t(sub) * stride + k];
  return e;
}

// Offsets of the keys [lo, hi) from the prefix e before lo, which it advances past hi; their
// counts become the scatter's fill cursors, each starting at its key's offset, so that the
// scatter's atomic returns an entry's slot without a read of the offsets. With sub-chunks
// (the binned scatter) a key's entries are ordered by sub-chunk, each with a cursor of its own.
G16_HD void write_offsets(uint32_t* counts, uint32_t lo, uint32_t hi, uint32_t& e,
                          uint32_t* offsets, uint32_t subs, uint32_t stride) {
  for (uint32_t k = lo; k < hi; k++) {
    offsets[k] = e;
    for (uint32_t sub = 0; sub < subs; sub++) {
      uint32_t& c = counts[size_t(sub) * stride + k];
      const uint32_t here = c;
      c = e;
      e += here;
    }
  }
}

#if defined(__CUDACC__)

namespace msm_detail {

__device__ __forceinline__ void load_scalar(const fr_t* scalars, size_t i, bool montgomery,
                                            uint32_t s[8]) {
  fr_t x = ldg_fr(scalars + i);
  if (montgomery) x = x.from_mont();
#pragma unroll
  for (int k = 0; k < 8; k++) s[k] = x.v[k];
}

// Histogram of the keys, one per sub-chunk of p.sub_scalars scalars (`count_stride` apart).
static __global__ void count_kernel(const fr_t* scalars, bool montgomery, size_t n, msm_plan p, uint32_t w0,
                             uint32_t w1, uint32_t* counts, uint32_t count_stride) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t s[8];
    load_scalar(scalars, i, montgomery, s);
    uint32_t* sub_counts = counts + size_t(i / p.sub_scalars) * count_stride;
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool) {
      atomicAdd(&sub_counts[digit_key(p, w, b)], 1u);
    });
  }
}

constexpr int kScanThreads = 1024;

// Exclusive scan, across one block of kScanThreads threads, of one per-thread sum: on return
// it holds the sum over the threads before this one; total gets the block's sum.
__device__ __forceinline__ void block_exclusive_scan(uint32_t& e, uint32_t* sums,
                                                     uint32_t& total) {
  sums[threadIdx.x] = e;
  __syncthreads();
  // Hillis-Steele inclusive scan of the per-thread sums.
  for (int d = 1; d < kScanThreads; d <<= 1) {
    const uint32_t add = (int)threadIdx.x >= d ? sums[threadIdx.x - d] : 0;
    __syncthreads();
    sums[threadIdx.x] += add;
    __syncthreads();
  }
  e = threadIdx.x ? sums[threadIdx.x - 1] : 0;
  total = sums[kScanThreads - 1];
}

// One block: exclusive scan of counts into offsets, with the total at [keys]; counts become
// the scatter's fill cursors (see write_offsets).
static __global__ void __launch_bounds__(kScanThreads) scan_kernel(uint32_t* counts, uint32_t keys,
                                                                   uint32_t* offsets, uint32_t subs,
                                                                   uint32_t stride) {
  __shared__ uint32_t sums[kScanThreads];
  const uint32_t per = (keys + kScanThreads - 1) / kScanThreads;
  const uint32_t lo = min(threadIdx.x * per, keys);
  const uint32_t hi = min(lo + per, keys);
  uint32_t e = sum_counts(counts, lo, hi, subs, stride);
  uint32_t total;
  block_exclusive_scan(e, sums, total);
  write_offsets(counts, lo, hi, e, offsets, subs, stride);
  if (threadIdx.x == kScanThreads - 1) offsets[keys] = total;
}

// The same scan over more keys, in three steps. 1: thread i sums chunk i of the counts.
static __global__ void chunk_sums_kernel(const uint32_t* counts, uint32_t keys, uint32_t chunks,
                                         uint32_t* chunk_e, uint32_t subs, uint32_t stride) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= chunks) return;
  const uint32_t lo = i * kScanChunk, hi = min(lo + kScanChunk, keys);
  chunk_e[i] = sum_counts(counts, lo, hi, subs, stride);
}

// 2: one block turns the chunk sums into exclusive prefix sums, in place.
static __global__ void __launch_bounds__(kScanThreads) chunk_scan_kernel(uint32_t chunks,
                                                                         uint32_t* chunk_e) {
  __shared__ uint32_t sums[kScanThreads];
  const uint32_t per = (chunks + kScanThreads - 1) / kScanThreads;
  const uint32_t lo = threadIdx.x * per;
  const uint32_t hi = min(lo + per, chunks);
  uint32_t e = 0;
  for (uint32_t k = lo; k < hi; k++) e += chunk_e[k];
  uint32_t total;
  block_exclusive_scan(e, sums, total);
  for (uint32_t k = lo; k < hi; k++) {
    const uint32_t ce = chunk_e[k];
    chunk_e[k] = e;
    e += ce;
  }
}

// 3: thread i writes the offsets of chunk i from its prefix, and its fill cursors.
static __global__ void chunk_apply_kernel(uint32_t* counts, uint32_t keys, uint32_t chunks,
                                          const uint32_t* chunk_e, uint32_t* offsets,
                                          uint32_t subs, uint32_t stride) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= chunks) return;
  const uint32_t lo = i * kScanChunk, hi = min(lo + kScanChunk, keys);
  uint32_t e = chunk_e[i];
  write_offsets(counts, lo, hi, e, offsets, subs, stride);
  if (i == chunks - 1) offsets[keys] = e;
}

// Bucket offsets of `keys` counts, by whichever scan suits their number.
inline void scan_counts(uint32_t* counts, uint32_t keys, uint32_t* offsets, uint32_t* chunk_e,
                        uint32_t subs, uint32_t stride, cudaStream_t s) {
  if (keys <= kSingleBlockScanKeys) {
    scan_kernel<<<1, kScanThreads, 0, s>>>(counts, keys, offsets, subs, stride);
    return;
  }
  const uint32_t chunks = (keys + kScanChunk - 1) / kScanChunk;
  const unsigned blocks = (chunks + 255) / 256;
  chunk_sums_kernel<<<blocks, 256, 0, s>>>(counts, keys, chunks, chunk_e, subs, stride);
  chunk_scan_kernel<<<1, kScanThreads, 0, s>>>(chunks, chunk_e);
  chunk_apply_kernel<<<blocks, 256, 0, s>>>(counts, keys, chunks, chunk_e, offsets, subs, stride);
}

// Scalar i's point is index[i], or without an index position k = base + i (base: the chunk's
// first scalar), or bitrev(k) when the scalars are in bit-reversed order; in the copy of the
// digit's window (see digit_entry).
static __global__ void scatter_kernel(const fr_t* scalars, bool montgomery, const uint32_t* index,
                                      size_t n_points, uint32_t base, size_t n, msm_plan p,
                                      uint32_t w0, uint32_t w1, uint32_t* fill,
                                      uint32_t* entries) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t s[8];
    load_scalar(scalars, i, montgomery, s);
    const uint32_t k = base + (uint32_t)i;
    const uint32_t point = index ? __ldg(index + i)
                           : p.bitrev_lg ? __brev(k) >> (32 - p.bitrev_lg)
                                         : k;
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
      const uint32_t at = atomicAdd(&fill[digit_key(p, w, b)], 1u);
      entries[at] = digit_entry(point, digit_copy(p, w), n_points, neg);
    });
  }
}

// The binned scatter (see kScatterBins), per sub-chunk `sub` of the scalars. `bins` holds per
// sub-chunk 2 (p.bins + 1) words: each bin's pair count, then each bin's cursor into the
// sub-chunk's pairs and, at [p.bins], their total.

// 1: bin b's pair count in sub-chunk blockIdx.y (block b sums its keys' counts).
static __global__ void bin_counts_kernel(const uint32_t* counts, uint32_t count_stride,
                                         uint32_t keys, msm_plan p, uint32_t* bins) {
  __shared__ uint32_t part[256];
  const uint32_t b = blockIdx.x, sub = blockIdx.y;
  const uint32_t lo = b << p.bin_shift, hi = min(lo + (1u << p.bin_shift), keys);
  const uint32_t* c = counts + size_t(sub) * count_stride;
  uint32_t e = 0;
  for (uint32_t k = lo + threadIdx.x; k < hi; k += blockDim.x) e += c[k];
  part[threadIdx.x] = e;
  __syncthreads();
  for (uint32_t d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) part[threadIdx.x] += part[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) bins[size_t(sub) * 2 * (p.bins + 1) + b] = part[0];
}

// 2: one block per sub-chunk: each bin's cursor (exclusive prefix of the counts), the total.
static __global__ void __launch_bounds__(kScatterBins) bin_scan_kernel(msm_plan p, uint32_t* bins) {
  __shared__ uint32_t sums[kScatterBins];
  uint32_t* counts = bins + size_t(blockIdx.x) * 2 * (p.bins + 1);
  uint32_t* cursors = counts + p.bins + 1;
  const uint32_t b = threadIdx.x;
  sums[b] = b < p.bins ? counts[b] : 0;
  __syncthreads();
  for (uint32_t d = 1; d < kScatterBins; d <<= 1) {
    const uint32_t add = b >= d ? sums[b - d] : 0;
    __syncthreads();
    sums[b] += add;
    __syncthreads();
  }
  if (b < p.bins) cursors[b] = b ? sums[b - 1] : 0;
  if (b == 0) cursors[p.bins] = sums[kScatterBins - 1];
}

// 3, the bin step: one thread per scalar of the sub-chunk [lo, hi), blocks of kScatterBins.
// A block ranks its digits per bin in shared memory, reserves one run per bin with one atomic,
// and writes its (key, entry) pairs there.
static __global__ void __launch_bounds__(kScatterBins)
    bin_kernel(const fr_t* scalars, bool montgomery, const uint32_t* index, size_t n_points,
               uint32_t base, size_t lo, size_t hi, msm_plan p, uint32_t w0, uint32_t w1,
               uint32_t* cursors, uint2* pairs) {
  __shared__ uint32_t hist[kScatterBins];
  __shared__ uint32_t run[kScatterBins];
  __shared__ uint16_t rank[kBinnedMaxWindows][kScatterBins];
  const uint32_t tid = threadIdx.x;
  hist[tid] = 0;
  __syncthreads();
  const size_t i = lo + size_t(blockIdx.x) * kScatterBins + tid;
  const bool live = i < hi;
  uint32_t s[8];
  if (live) {
    load_scalar(scalars, i, montgomery, s);
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool) {
      rank[w][tid] = (uint16_t)atomicAdd(&hist[digit_key(p, w, b) >> p.bin_shift], 1u);
    });
  }
  __syncthreads();
  if (hist[tid] != 0) run[tid] = atomicAdd(&cursors[tid], hist[tid]);
  __syncthreads();
  if (!live) return;
  const uint32_t k = base + (uint32_t)i;
  const uint32_t point = index ? __ldg(index + i)
                         : p.bitrev_lg ? __brev(k) >> (32 - p.bitrev_lg)
                                       : k;
  for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
    const uint32_t key = digit_key(p, w, b);
    pairs[run[key >> p.bin_shift] + rank[w][tid]] =
        make_uint2(key, digit_entry(point, digit_copy(p, w), n_points, neg));
  });
}

// 4, the place step: one thread per pair, in bin order; `fill` is the sub-chunk's cursors.
static __global__ void place_kernel(const uint2* pairs, const uint32_t* total, size_t most,
                                    uint32_t* fill, uint32_t* entries) {
  const size_t n = min(size_t(*total), most);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride) {
    const uint2 pr = pairs[j];
    entries[atomicAdd(&fill[pr.x], 1u)] = pr.y;
  }
}

// Sorts the digits of windows [w0, w1) of the m scalars from c0 into the pass's buckets:
// the entries in key order, each key's offsets (and, after the scatter, counts[k] holds its
// cursor's end, offsets[k + 1]).
template <class F>
cudaError_t sort_chunk(const msm_plan& p, const msm_ws<F>& w, const fr_t* scalars,
                       bool montgomery, const uint32_t* index, size_t n_points, size_t c0,
                       size_t m, uint32_t w0, uint32_t w1, uint32_t keys, cudaStream_t s) {
  const uint32_t keys_full = pass_groups(p, p.per_pass) * p.buckets;
  const uint32_t count_stride = keys_full + 1;
  const unsigned scalar_blocks = blocks_for(m, 256);
  // Sub-chunks of this chunk (1 unless the scatter is binned).
  const uint32_t subs = (uint32_t)((m + p.sub_scalars - 1) / p.sub_scalars);
  cudaError_t err;
  if ((err = cudaMemsetAsync(w.counts, 0, size_t(subs) * count_stride * sizeof(uint32_t), s)))
    return err;
  count_kernel<<<scalar_blocks, 256, 0, s>>>(scalars + c0, montgomery, m, p, w0, w1, w.counts,
                                             count_stride);
  if (p.max_pairs != 0) {
    bin_counts_kernel<<<dim3(p.bins, subs), 256, 0, s>>>(w.counts, count_stride, keys, p, w.bins);
    bin_scan_kernel<<<subs, kScatterBins, 0, s>>>(p, w.bins);
  }
  scan_counts(w.counts, keys, w.offsets, w.chunk_e, subs, count_stride, s);
  if (p.max_pairs == 0) {
    scatter_kernel<<<scalar_blocks, 256, 0, s>>>(scalars + c0, montgomery,
                                                 index ? index + c0 : nullptr, n_points,
                                                 (uint32_t)c0, m, p, w0, w1, w.counts, w.entries);
  }
  for (uint32_t sub = 0; p.max_pairs != 0 && sub < subs; sub++) {
    const size_t lo = size_t(sub) * p.sub_scalars;
    const size_t hi = lo + p.sub_scalars < m ? lo + p.sub_scalars : m;
    uint32_t* sub_bins = w.bins + size_t(sub) * 2 * (p.bins + 1) + p.bins + 1;
    bin_kernel<<<blocks_for(hi - lo, kScatterBins), kScatterBins, 0, s>>>(
        scalars + c0, montgomery, index ? index + c0 : nullptr, n_points, (uint32_t)c0, lo, hi, p,
        w0, w1, sub_bins, w.pairs);
    place_kernel<<<blocks_for(p.max_pairs, 256), 256, 0, s>>>(
        w.pairs, sub_bins + p.bins, p.max_pairs, w.counts + size_t(sub) * count_stride,
        w.entries);
  }
  return cudaSuccess;
}

}  // namespace msm_detail

#endif  // __CUDACC__

}  // namespace g16

#endif
