// Precomputed copies of the MSM's points (copy j = 2^(c j) P, affine), for plans whose groups
// of windows share buckets: doublings in XYZZ, then back to affine with one inversion per warp.
#ifndef GROTH16_C2_MSM_PRECOMPUTE_CUH
#define GROTH16_C2_MSM_PRECOMPUTE_CUH

#include "msm_reduce.cuh"

namespace g16 {

#if defined(__CUDACC__)

namespace msm_detail {

template <class F>
__device__ __forceinline__ F shfl_up(const F& x, uint32_t d) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_up_sync(0xffffffffu, s[i], d);
  return r;
}
template <class F>
__device__ __forceinline__ F shfl_down(const F& x, uint32_t d) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_down_sync(0xffffffffu, s[i], d);
  return r;
}
template <class F>
__device__ __forceinline__ F shfl_idx(const F& x, uint32_t lane) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_sync(0xffffffffu, s[i], lane);
  return r;
}

// Out of line: one inversion per warp. The binary extended Euclidean algorithm, about a tenth
// of Fermat's cost: every lane of the warp runs it on the same value, so its branches never
// diverge.
template <class F>
__device__ __noinline__ F invert_cold(F x) {
  return x.inverse_vartime();
}

// Each lane's v^-1 (every v nonzero; all 32 lanes call it): prefix and suffix products across
// the lanes by shuffles, one inversion of the whole product, v^-1 = P_(l-1) S_(l+1) / total.
template <class F>
__device__ F warp_batch_inverse(const F& v) {
  const uint32_t lane = threadIdx.x & 31;
  F pre = v, suf = v;
#pragma unroll 1
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const F up = shfl_up(pre, d);
    const F dn = shfl_down(suf, d);
    if (lane >= d) pre = pre * up;
    if (lane + d < 32) suf = suf * dn;
  }
  const F inv = invert_cold(shfl_idx(pre, 31));
  F left = shfl_up(pre, 1), right = shfl_down(suf, 1);
  if (lane == 0) left = F::one();
  if (lane == 31) right = F::one();
  return inv * left * right;
}

// Copies 1..m-1 of the points (copy j = 2^(c j) P, affine, after copy 0 = P): c doublings per
// copy in XYZZ, then back to affine with one inversion per warp and copy (warp_batch_inverse:
// 32 lanes share it). Every lane of a warp runs the same number of rounds,
// as the shared inversion needs all 32; lanes past n carry the identity and store nothing.
template <class F>
__global__ void __launch_bounds__(128) precompute_kernel(affine_t<F>* points, size_t n, uint32_t c,
                                                         uint32_t copies) {
  const size_t grid = size_t(gridDim.x) * blockDim.x;
  const size_t rounds = (n + grid - 1) / grid;
  for (size_t r = 0; r < rounds; r++) {
    const size_t i = r * grid + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool live = i < n;
    xyzz_t<F> acc = live ? xyzz_t<F>::from_affine(ldg_vec(points + i)) : xyzz_t<F>::inf();
    for (uint32_t j = 1; j < copies; j++) {
      for (uint32_t k = 0; k < c; k++) dbl_cold(acc);
      const bool inf = acc.is_inf();
      // 1/ZZ = ZZZ / (ZZ ZZZ) and 1/ZZZ = ZZ / (ZZ ZZZ); the identity inverts a stand-in 1.
      const F inv = warp_batch_inverse(inf ? F::one() : acc.ZZ * acc.ZZZ);
      affine_t<F> q{F::zero(), F::zero()};
      if (!inf) {
        q.x = acc.X * (inv * acc.ZZZ);
        q.y = acc.Y * (inv * acc.ZZ);
      }
      if (live) st_vec(points + j * n + i, q);
    }
  }
}

}  // namespace msm_detail

// Fills copies 1..copies-1 of `points` (copies * n_points affine points, copy 0 filled) with
// 2^(c j) times copy 0, for MSMs with `copies` and window c in their strategy code (see
// make_msm_plan). Built for G1 (msm_g1.cu).
template <class F>
cudaError_t msm_precompute(affine_t<F>* points, size_t n_points, uint32_t c, uint32_t copies,
                           cudaStream_t s) {
  using namespace msm_detail;
  if (points == nullptr || c < 4 || c > 24 || copies < 2 || copies > 31 ||
      copies > (256 + c - 1) / c || n_points >= (size_t(1) << 31) / copies)
    return cudaErrorInvalidValue;
  if (n_points == 0) return cudaSuccess;
  precompute_kernel<F><<<blocks_for(n_points, 128), 128, 0, s>>>(points, n_points, c, copies);
  return cudaGetLastError();
}

#endif  // __CUDACC__

}  // namespace g16

#endif
