// G1 instances of the MSM and batch-addition templates (msm.cuh); one file per curve so the
// two heavy instantiations compile in parallel. Also the curve-free index rebase and tail gather
// of the streamed tail MSMs.
#include "msm.cuh"

namespace g16 {

size_t g1_msm_workspace_size(size_t n, int strategy) {
  return msm_workspace_size<fp_t>(n, strategy);
}

cudaError_t g1_msm(const g1_affine_t* points, size_t n_points, const uint32_t* index,
                   const fr_t* scalars, bool montgomery, size_t n, int strategy, void* ws,
                   size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s) {
  return msm<fp_t>(points, n_points, index, scalars, montgomery, n, strategy, ws, ws_bytes, result,
                 s);
}

cudaError_t g1_msm_precompute(g1_affine_t* points, size_t n_points, uint32_t c, uint32_t copies,
                              cudaStream_t s) {
  return msm_precompute<fp_t>(points, n_points, c, copies, s);
}

uint32_t g1_msm_window_bits(size_t n, int strategy) {
  msm_plan p;
  return make_msm_plan(n, sizeof(g1_xyzz_t), strategy, &p) ? p.c : 0;
}

size_t g1_msm_accumulate_workspace_size(size_t n_cap, int strategy) {
  return msm_accumulate_workspace_size<fp_t>(n_cap, strategy);
}

size_t g1_msm_accumulate_buckets_size(size_t n_cap, int strategy) {
  return msm_accumulate_buckets_size<fp_t>(n_cap, strategy);
}

cudaError_t g1_msm_accumulate(const g1_affine_t* points, size_t n_points, const uint32_t* index,
                              const fr_t* scalars, bool montgomery, size_t n, size_t n_cap,
                              int strategy, void* buckets, size_t buckets_bytes, void* ws,
                              size_t ws_bytes, bool first, cudaStream_t s) {
  return msm_accumulate<fp_t>(points, n_points, index, scalars, montgomery, n, n_cap, strategy,
                              buckets, buckets_bytes, ws, ws_bytes, first, s);
}

cudaError_t g1_msm_accumulated(size_t n_cap, int strategy, void* buckets, size_t buckets_bytes,
                               void* ws, size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s) {
  return msm_accumulated<fp_t>(n_cap, strategy, buckets, buckets_bytes, ws, ws_bytes, result, s);
}

size_t g1_batch_add_workspace_size(size_t n_points) {
  return batch_add_workspace_size<fp_t>(n_points);
}

cudaError_t g1_batch_add(const g1_affine_t* points, size_t n_points, const uint64_t* bitmap,
                         void* ws, size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s) {
  return batch_add<fp_t>(points, n_points, bitmap, ws, ws_bytes, result, s);
}

// index[k] -= base: a tail's point indices made relative to the chunk of points on the device.
static __global__ void __launch_bounds__(256) index_rebase_kernel(uint32_t* index, size_t n,
                                                                  uint32_t base) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    index[k] -= base;
}

cudaError_t msm_index_rebase(uint32_t* index, size_t n, uint32_t base, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (index == nullptr) return cudaErrorInvalidValue;
  index_rebase_kernel<<<msm_detail::blocks_for(n, 256), 256, 0, s>>>(index, n, base);
  return cudaGetLastError();
}

// One 16-byte word per thread: words 0..pw of entry k are its point's (index[k] - base, or the
// identity where that is not below n_points), the last two its scalar.
static __global__ void __launch_bounds__(256)
    gather_tail_kernel(const uint4* points, uint32_t pw, size_t n_points, const uint32_t* index,
                       uint32_t base, const uint4* scalars, size_t n, uint4* out_points,
                       uint4* out_scalars) {
  const size_t words = size_t(pw) + 2, total = n * words;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const size_t k = t / words;
    const uint32_t j = uint32_t(t - k * words);
    if (j < pw) {
      const uint32_t i = index[k] - base;
      out_points[k * pw + j] = i < n_points ? points[size_t(i) * pw + j] : make_uint4(0, 0, 0, 0);
    } else {
      out_scalars[k * 2 + (j - pw)] = scalars[k * 2 + (j - pw)];
    }
  }
}

cudaError_t msm_gather_tail(const void* points, size_t point_bytes, size_t n_points,
                            const uint32_t* index, uint32_t base, const void* scalars, size_t n,
                            void* out_points, void* out_scalars, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (points == nullptr || index == nullptr || scalars == nullptr || out_points == nullptr ||
      out_scalars == nullptr || point_bytes == 0 || point_bytes % 16 != 0 ||
      n_points >= (size_t(1) << 32))
    return cudaErrorInvalidValue;
  const uint32_t pw = uint32_t(point_bytes / 16);
  gather_tail_kernel<<<msm_detail::blocks_for(n * (pw + 2), 256), 256, 0, s>>>(
      static_cast<const uint4*>(points), pw, n_points, index, base,
      static_cast<const uint4*>(scalars), n, static_cast<uint4*>(out_points),
      static_cast<uint4*>(out_scalars));
  return cudaGetLastError();
}

}  // namespace g16
