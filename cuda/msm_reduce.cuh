// The MSM's bucket reduction: segment sums (sum (j + 1) bucket_j over runs of buckets), a tree
// of sums down to one point per window, Horner over the windows; and the general additions
// out of line that these kernels and the bucket finishing share.
#ifndef GROTH16_C2_MSM_REDUCE_CUH
#define GROTH16_C2_MSM_REDUCE_CUH

#include "msm_plan.cuh"

namespace g16 {

#if defined(__CUDACC__)

namespace msm_detail {

// The kernels below the accumulation (tree rounds, segment sums, window reductions, Horner) do
// about a thousandth of the additions; they call one out-of-line copy of the general addition
// and doubling instead of inlining a fresh copy at every call site, which keeps nvcc's time per
// architecture and the fatbin size down at no measurable cost.
template <class F>
__device__ __noinline__ void add_cold(xyzz_t<F>& acc, const xyzz_t<F>& q) {
  acc.add(q);
}

template <class F>
__device__ __noinline__ void dbl_cold(xyzz_t<F>& acc) {
  acc.dbl();
}

// acc = k * acc (double-and-add, most significant bit first), out of line as above.
template <class F>
__device__ __noinline__ void mul_small_cold(xyzz_t<F>& acc, uint32_t k) {
  const xyzz_t<F> base = acc;
  acc = xyzz_t<F>::inf();
  for (int i = 31; i >= 0; i--) {
    dbl_cold(acc);
    if ((k >> i) & 1) add_cold(acc, base);
  }
}

// Segment s of window w covers buckets [lo, lo + seg): sum over them of (j + 1) * bucket_j.
template <class F>
__global__ void __launch_bounds__(128) segment_kernel(const xyzz_t<F>* buckets, uint32_t n_segs,
                                                      uint32_t segs_per_window, uint32_t bucket_count,
                                                      uint32_t seg, xyzz_t<F>* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_segs) return;
  const uint32_t w = i / segs_per_window;
  const uint32_t lo = (i % segs_per_window) * seg;
  const xyzz_t<F>* b = buckets + size_t(w) * bucket_count;
  xyzz_t<F> running = xyzz_t<F>::inf(), acc = xyzz_t<F>::inf();
  for (uint32_t j = lo + seg; j-- > lo;) {
    add_cold(running, ld_vec(b + j));
    add_cold(acc, running);
  }
  // acc holds sum (j - lo + 1) * bucket_j; add lo * sum bucket_j.
  mul_small_cold(running, lo);
  add_cold(acc, running);
  st_vec(out + i, acc);
}

// out[i] = sum of in[i * g .. min((i + 1) * g, m)).
template <class F>
__global__ void __launch_bounds__(128) reduce_kernel(const xyzz_t<F>* in, size_t m, uint32_t g,
                                                     xyzz_t<F>* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t groups = (m + g - 1) / g;
  if (i >= groups) return;
  xyzz_t<F> acc = ld_vec(in + i * g);
  for (size_t j = i * g + 1; j < m && j < (i + 1) * g; j++) add_cold(acc, ld_vec(in + j));
  st_vec(out + i, acc);
}

// Horner over the window sums: result = sum 2^(c w) * window_w.
template <class F>
__global__ void combine_kernel(const xyzz_t<F>* windows, uint32_t count, uint32_t c,
                               xyzz_t<F>* result) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  xyzz_t<F> acc = ld_vec(windows + count - 1);
  for (uint32_t w = count - 1; w-- > 0;) {
    for (uint32_t k = 0; k < c; k++) dbl_cold(acc);
    add_cold(acc, ld_vec(windows + w));
  }
  st_vec(result, acc);
}

// Sums m points at `a` down to one, ping-ponging between a and b; returns where it ended.
template <class F>
cudaError_t reduce_all(xyzz_t<F>* a, xyzz_t<F>* b, size_t m, size_t stop, cudaStream_t s,
                       xyzz_t<F>** out) {
  // Groups of 8 while more than `stop` remain (stop = one per window keeps windows apart:
  // segs per window is a power of two, so groups never straddle two windows).
  while (m > stop) {
    // With several windows, m / stop (segments per window) is a power of two; with one, a
    // ragged last group is fine.
    uint32_t g = 8;
    if (stop > 1)
      while ((m / stop) % g != 0) g >>= 1;
    const size_t groups = (m + g - 1) / g;
    reduce_kernel<F><<<blocks_for(groups, 128), 128, 0, s>>>(a, m, g, b);
    xyzz_t<F>* t = a; a = b; b = t;
    m = groups;
  }
  *out = a;
  return cudaGetLastError();
}

// The pass's buckets to one sum per group of windows, into windows[g0 ..].
template <class F>
cudaError_t reduce_pass(const msm_plan& p, const msm_ws<F>& w, uint32_t groups, uint32_t g0,
                        cudaStream_t s) {
  typedef xyzz_t<F> P;
  const uint32_t segs_per_window = p.buckets / p.seg;
  const uint32_t n_segs = groups * segs_per_window;
  segment_kernel<F><<<blocks_for(n_segs, 128), 128, 0, s>>>(w.buckets, n_segs, segs_per_window,
                                                            p.buckets, p.seg, w.segs);
  P* sums;
  cudaError_t err;
  if ((err = reduce_all<F>(w.segs, w.segs + n_segs, n_segs, groups, s, &sums))) return err;
  return cudaMemcpyAsync(w.windows + g0, sums, groups * sizeof(P), cudaMemcpyDeviceToDevice, s);
}

}  // namespace msm_detail

#endif  // __CUDACC__

}  // namespace g16

#endif
