// G2 instances of the MSM and batch-addition templates (msm.cuh); one file per curve so the
// two heavy instantiations compile in parallel.
#include "msm.cuh"

namespace g16 {

size_t g2_msm_workspace_size(size_t n, int strategy) {
  return msm_workspace_size<fp2_t>(n, strategy);
}

cudaError_t g2_msm(const g2_affine_t* points, size_t n_points, const uint32_t* index,
                   const fr_t* scalars, bool montgomery, size_t n, int strategy, void* ws,
                   size_t ws_bytes, g2_xyzz_t* result, cudaStream_t s) {
  return msm<fp2_t>(points, n_points, index, scalars, montgomery, n, strategy, ws, ws_bytes, result,
                 s);
}

size_t g2_batch_add_workspace_size(size_t n_points) {
  return batch_add_workspace_size<fp2_t>(n_points);
}

cudaError_t g2_batch_add(const g2_affine_t* points, size_t n_points, const uint64_t* bitmap,
                         void* ws, size_t ws_bytes, g2_xyzz_t* result, cudaStream_t s) {
  return batch_add<fp2_t>(points, n_points, bitmap, ws, ws_bytes, result, s);
}

}  // namespace g16
