// G1 instances of the MSM and batch-addition templates (msm.cuh); one file per curve so the
// two heavy instantiations compile in parallel. Also the curve-free index rebase of the streamed
// tail MSMs.
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

cudaError_t g1_msm_accumulate(const g1_affine_t* points, size_t n_points, const uint32_t* index,
                              const fr_t* scalars, bool montgomery, size_t n, size_t n_cap,
                              int strategy, void* ws, size_t ws_bytes, bool first, cudaStream_t s) {
  return msm_accumulate<fp_t>(points, n_points, index, scalars, montgomery, n, n_cap, strategy, ws,
                              ws_bytes, first, s);
}

cudaError_t g1_msm_accumulated(size_t n_cap, int strategy, void* ws, size_t ws_bytes,
                               g1_xyzz_t* result, cudaStream_t s) {
  return msm_accumulated<fp_t>(n_cap, strategy, ws, ws_bytes, result, s);
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

}  // namespace g16
