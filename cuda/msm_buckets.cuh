// The MSM's bucket sums: slices of the sorted entries, one thread each (XYZZ mixed additions,
// flushed at each bucket boundary), tree rounds over the head slots of buckets that span
// slices, and the finishing step that adds them to their buckets.
#ifndef GROTH16_C2_MSM_BUCKETS_CUH
#define GROTH16_C2_MSM_BUCKETS_CUH

#include "msm_reduce.cuh"
#include <type_traits>

namespace g16 {

// The accumulation's index logic, shared by the kernels and the host check
// (host_check/emu_msm.cpp). A pass's entries, sorted by key, are cut into slices of S; thread t
// sums slice t, flushing its sum at each bucket boundary. A bucket that began before the slice
// is flushed to the slice's head slot; any other to the bucket itself, which is then complete
// or is continued by the head slots of the slices after its first (its "run"). A tree over each
// run leaves the run's sum in its first slot, which the finishing step adds to the bucket.

// Sums the entries [begin, end) (end <= offsets[keys]): add(acc, entry) for each, and
// flush(key, acc, head) at each bucket boundary and at the end, head telling whether the
// bucket began before `begin`.
template <class Acc, class Add, class Flush>
G16_HD void sum_slice(const uint32_t* offsets, uint32_t keys, const uint32_t* entries,
                      uint32_t begin, uint32_t end, Add add, Flush flush) {
  uint32_t key = key_of_entry(offsets, keys, begin);
  bool head = offsets[key] < begin;
  uint32_t bound = offsets[key + 1];
  Acc acc = Acc::inf();
  for (uint32_t e = begin; e < end; e++) {
    if (e == bound) {
      flush(key, acc, head);
      // Usually the next key; a binary search past empty buckets. key + 1 < keys here, as
      // offsets[key + 1] = e < offsets[keys].
      key++;
      bound = offsets[key + 1];
      if (bound <= e) {
        key = key_of_entry(offsets, keys, e);
        bound = offsets[key + 1];
      }
      head = false;
      acc = Acc::inf();
    }
    add(acc, entries[e]);
  }
  flush(key, acc, head);
}

// How many head slots after slot t its tree round with this stride adds into it (0: none).
// Slot t holds a piece of the bucket holding entry t * S when that bucket began before
// slice t; the bucket's run is the slots [first, last].
G16_HD uint32_t head_round_span(const uint32_t* offsets, uint32_t keys, uint32_t slice, uint32_t t,
                                uint32_t stride) {
  const uint32_t begin = t * slice;
  const uint32_t key = key_of_entry(offsets, keys, begin);
  const uint32_t lo = offsets[key];
  if (lo == begin) return 0;
  const uint32_t first = lo / slice + 1, last = (offsets[key + 1] - 1) / slice;
  if ((t - first) % (8 * stride) != 0) return 0;
  const uint32_t more = (last - t) / stride;
  return more < 7 ? more : 7;
}

// How bucket k is finished: 0 empty (the identity), 1 complete as flushed, 2 add head slot
// *slot (its run's sum after the tree rounds).
G16_HD uint32_t bucket_finish(const uint32_t* offsets, uint32_t k, uint32_t slice,
                              uint32_t* slot) {
  const uint32_t lo = offsets[k], hi = offsets[k + 1];
  if (lo == hi) return 0;
  const uint32_t first = lo / slice;
  if (first == (hi - 1) / slice) return 1;
  *slot = first + 1;
  return 2;
}


// Tree rounds needed over head runs of an n-scalar pass: a bucket holds at most n entries, so
// its run has at most ceil(n / S) slots; strides 1, 8, 64, ... below that.
inline uint32_t head_rounds(size_t n, uint32_t slice) {
  const uint64_t most = (n + slice - 1) / slice;
  uint32_t r = 0;
  for (uint64_t stride = 1; stride < most; stride *= 8) r++;
  return r;
}

#if defined(__CUDACC__)

namespace msm_detail {

constexpr uint32_t kSignBit = kEntrySign;

// Thread t sums slice t of the sorted entries (see sum_slice), writing each flushed sum to the
// slice's head slot or to its bucket. Three blocks per SM (config.cuh): left alone, ptxas takes
// 180 registers (two blocks); at 168 it spills a few bytes, off the additions. G2's additions
// hold twice the field elements: at 168 registers its slice kernel spills 1,540 bytes per
// thread (sm_90), at 255 (2 blocks) 184, which measured no faster (H200, 2^27 partition: G2
// tail 83.6 ms against 82.6).
template <class F>
constexpr int slice_min_blocks() {
  return std::is_same<F, fp_t>::value ? G16_SLICE_MIN_BLOCKS : G16_G2_SLICE_MIN_BLOCKS;
}
template <class F>
__global__ void __launch_bounds__(128, slice_min_blocks<F>())
    slice_kernel(const affine_t<F>* points, size_t n_points, const uint32_t* entries,
                 const uint32_t* offsets, uint32_t keys, uint32_t slice, xyzz_t<F>* heads,
                 size_t max_slices, xyzz_t<F>* buckets) {
  const uint32_t total = offsets[keys];
  const size_t slices = (size_t(total) + slice - 1) / slice;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < slices && t < max_slices;
       t += stride) {
    const uint32_t begin = (uint32_t)t * slice;
    const uint32_t end = min(begin + slice, total);
    sum_slice<xyzz_t<F>>(
        offsets, keys, entries, begin, end,
        [&](xyzz_t<F>& acc, uint32_t entry) {
          const uint32_t idx = entry & ~kSignBit;
          if (idx < n_points)  // never read outside the points
            acc.add_affine(ldg_vec(points + idx), (entry & kSignBit) != 0);
        },
        [&](uint32_t key, const xyzz_t<F>& acc, bool head) {
          st_vec(head ? heads + t : buckets + key, acc);
        });
  }
}

// One round of the tree sum over each bucket's run of head slots (see head_round_span): after
// enough rounds a run's sum sits in its first slot, however skewed the scalars (e.g. all equal)
// made that bucket; one thread summing a whole run would be serial.
template <class F>
__global__ void __launch_bounds__(128) head_round_kernel(xyzz_t<F>* heads, const uint32_t* offsets,
                                                         uint32_t keys, uint32_t slice,
                                                         uint32_t stride, size_t max_slices) {
  const uint32_t total = offsets[keys];
  const size_t slices = (size_t(total) + slice - 1) / slice;
  const size_t grid = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < slices && t < max_slices;
       t += grid) {
    const uint32_t span = head_round_span(offsets, keys, slice, (uint32_t)t, stride);
    if (span == 0) continue;
    xyzz_t<F> acc = ld_vec(heads + t);
    for (uint32_t j = 1; j <= span; j++) add_cold(acc, ld_vec(heads + t + j * stride));
    st_vec(heads + t, acc);
  }
}

// One thread per bucket: the identity if empty, plus its run's sum if it spans slices.
template <class F>
__global__ void __launch_bounds__(128) bucket_finish_kernel(const xyzz_t<F>* heads,
                                                            const uint32_t* offsets, uint32_t keys,
                                                            uint32_t slice, xyzz_t<F>* buckets) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= keys) return;
  uint32_t slot = 0;
  switch (bucket_finish(offsets, k, slice, &slot)) {
    case 0:
      st_vec(buckets + k, xyzz_t<F>::inf());
      break;
    case 2: {
      xyzz_t<F> acc = ld_vec(buckets + k);
      add_cold(acc, ld_vec(heads + slot));
      st_vec(buckets + k, acc);
      break;
    }
    default:
      break;
  }
}

// Sums the sorted entries into the pass's buckets with the slices. `rounds`: head_rounds of
// the chunk's scalars.
template <class F>
void slice_chunk(const msm_plan& p, const msm_ws<F>& w, const affine_t<F>* points,
                 size_t all_points, uint32_t keys, uint32_t rounds, cudaStream_t s) {
  const unsigned slice_blocks = blocks_for(p.max_slices, 128);
  slice_kernel<F><<<slice_blocks, 128, 0, s>>>(points, all_points, w.entries, w.offsets, keys,
                                                    p.slice, w.heads, p.max_slices, w.buckets);
  uint32_t stride = 1;
  for (uint32_t r = 0; r < rounds; r++, stride *= 8)
    head_round_kernel<F><<<slice_blocks, 128, 0, s>>>(w.heads, w.offsets, keys, p.slice, stride,
                                                      p.max_slices);
  bucket_finish_kernel<F><<<blocks_for(keys, 128), 128, 0, s>>>(w.heads, w.offsets, keys,
                                                                     p.slice, w.buckets);
}

// An accumulation's step: kept[k] += buckets[k] for every key (first: kept[k] = buckets[k]).
// Apart from the slices, so that it runs as one wide, even kernel: adding each bucket's first
// piece onto the kept sum at its flush, inside the slices, made every flush a divergent
// addition (3.4x the slices' time at 20-bit windows, 1.08x at 16).
template <class F>
__global__ void __launch_bounds__(128) keep_buckets_kernel(xyzz_t<F>* kept,
                                                           const xyzz_t<F>* buckets, uint32_t keys,
                                                           bool first) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= keys) return;
  xyzz_t<F> sum = ld_vec(buckets + k);
  if (!first) {
    xyzz_t<F> before = ld_vec(kept + k);
    add_cold(before, sum);
    sum = before;
  }
  st_vec(kept + k, sum);
}

}  // namespace msm_detail

#endif  // __CUDACC__

}  // namespace g16

#endif
