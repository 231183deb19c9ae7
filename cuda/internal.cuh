// Shared by the kernel files and the launcher (not part of the C ABI): element load/store
// helpers, bit tricks, and the C++ entry points each kernel file exports to launcher.cu.
#ifndef GROTH16_C2_INTERNAL_CUH
#define GROTH16_C2_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include "bls12_381.cuh"
#include "curve.cuh"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
// Host-only builds (the index-logic emulation) get the one CUDA vector type the kernels use.
struct uint4 {
  uint32_t x, y, z, w;
};
#endif

namespace g16 {

// Reverse the low `bits` bits of x (bits may be 0).
G16_HD uint32_t bitrev(uint32_t x, uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return bits ? __brev(x) >> (32 - bits) : 0;
#else
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
#endif
}
G16_HD uint64_t bitrev64(uint64_t x, uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return bits ? __brevll(x) >> (64 - bits) : 0;
#else
  uint64_t r = 0;
  for (uint32_t i = 0; i < bits; i++) r |= ((x >> i) & 1ull) << (bits - 1 - i);
  return r;
#endif
}

// Sorted-bucket lookups of the MSM (msm.cuh's slices):
// The key whose bucket holds entry e: the largest k with offsets[k] <= e (empty buckets share
// their successor's offset, and taking the largest skips them). Needs e < offsets[keys].
G16_HD uint32_t key_of_entry(const uint32_t* offsets, uint32_t keys, uint32_t e) {
  uint32_t lo = 0, hi = keys;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Element access as two 16-byte vectors. Device pointers must be 16-byte aligned (cudaMalloc
// gives 256). `ldg` is for data no kernel writes while it runs (twiddle tables).
G16_HD fr_t ld_fr(const fr_t* p) {
#if defined(__CUDA_ARCH__)
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 a = q[0], b = q[1];
  fr_t r;
  r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
  r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
  return r;
#else
  return *p;
#endif
}
G16_HD fr_t ldg_fr(const fr_t* p) {
#if defined(__CUDA_ARCH__)
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 a = __ldg(q), b = __ldg(q + 1);
  fr_t r;
  r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
  r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
  return r;
#else
  return *p;
#endif
}
G16_HD void st_fr(fr_t* p, const fr_t& x) {
#if defined(__CUDA_ARCH__)
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
  q[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
#else
  *p = x;
#endif
}

// 16-byte halves of an element, for shared-memory tiles kept as two planes of uint4.
G16_HD void split_fr(const fr_t& x, uint4& lo, uint4& hi) {
  lo.x = x.v[0]; lo.y = x.v[1]; lo.z = x.v[2]; lo.w = x.v[3];
  hi.x = x.v[4]; hi.y = x.v[5]; hi.z = x.v[6]; hi.w = x.v[7];
}
G16_HD fr_t join_fr(const uint4& lo, const uint4& hi) {
  fr_t r;
  r.v[0] = lo.x; r.v[1] = lo.y; r.v[2] = lo.z; r.v[3] = lo.w;
  r.v[4] = hi.x; r.v[5] = hi.y; r.v[6] = hi.z; r.v[7] = hi.w;
  return r;
}

// Kernel parameter copy of one Fr value (host -> kernel by value).
struct fr_arg {
  uint32_t v[8];
};
G16_HD fr_t from_arg(const fr_arg& a) {
  fr_t r;
G16_UNROLL
  for (int i = 0; i < 8; i++) r.v[i] = a.v[i];
  return r;
}

#if defined(__CUDACC__)
// ---- C++ entry points of the kernel files (launcher.cu is their only caller) ----------------
// ntt.cu
size_t ntt_table_size(uint32_t lg_max);
cudaError_t ntt_table_init(fr_t* table, uint32_t lg_max, const fr_t& omega, const fr_t& omega_inv,
                           cudaStream_t s);
cudaError_t ntt(fr_t* data, uint32_t lg_n, bool inverse, bool bitrev_in, bool bitrev_out,
                const fr_t* table, uint32_t lg_max, const fr_t* top, uint32_t top_lg,
                cudaStream_t s);
size_t ntt_top_table_size(uint32_t lg_n);
cudaError_t ntt_top_table_init(fr_t* top, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                               cudaStream_t s);
size_t ntt_coset_table_size(uint32_t lg_n);
cudaError_t ntt_coset_table_init(fr_t* table, uint32_t lg_n, const fr_t (&omega)[2],
                                 const fr_t (&beta)[2], const fr_t (&kappa)[2], cudaStream_t s);
cudaError_t ntt_coset(fr_t* data, uint32_t lg_n, bool inverse, const fr_t* table, uint32_t lg_max,
                      const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s);
cudaError_t ntt_lde(fr_t* data, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                    const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s);
cudaError_t ntt_lde_quotient(fr_t* a, const fr_t* b, fr_t* c, uint32_t lg_n, const fr_t* table,
                             uint32_t lg_max, const fr_t* coset, const fr_t* top, uint32_t top_lg,
                             cudaStream_t s);
// h_poly.cu
cudaError_t scale_powers(fr_t* data, uint32_t lg_n, const fr_t& first, const fr_t& ratio,
                         bool index_bitrev, cudaStream_t s);
cudaError_t h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, size_t n, const fr_t& factor,
                        cudaStream_t s);
cudaError_t bit_reverse(fr_t* data, uint32_t lg_n, cudaStream_t s);
// Attributes of one production kernel on the current device (loads its module).
cudaError_t kernel_attributes(cudaFuncAttributes* out);
// msm_g1.cu, msm_g2.cu (templates in msm.cuh)
size_t g1_msm_workspace_size(size_t n, int strategy);
size_t g2_msm_workspace_size(size_t n, int strategy);
cudaError_t g1_msm(const g1_affine_t* points, size_t n_points, const uint32_t* index,
                   const fr_t* scalars, bool montgomery, size_t n, int strategy, void* ws,
                   size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s);
cudaError_t g2_msm(const g2_affine_t* points, size_t n_points, const uint32_t* index,
                   const fr_t* scalars, bool montgomery, size_t n, int strategy, void* ws,
                   size_t ws_bytes, g2_xyzz_t* result, cudaStream_t s);
cudaError_t g1_msm_precompute(g1_affine_t* points, size_t n_points, uint32_t c, uint32_t copies,
                              cudaStream_t s);
size_t g1_batch_add_workspace_size(size_t n_points);
size_t g2_batch_add_workspace_size(size_t n_points);
cudaError_t g1_batch_add(const g1_affine_t* points, size_t n_points, const uint64_t* bitmap,
                         void* ws, size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s);
cudaError_t g2_batch_add(const g2_affine_t* points, size_t n_points, const uint64_t* bitmap,
                         void* ws, size_t ws_bytes, g2_xyzz_t* result, cudaStream_t s);
cudaError_t msm_index_rebase(uint32_t* index, size_t n, uint32_t base, cudaStream_t s);
cudaError_t msm_gather_tail(const void* points, size_t point_bytes, size_t n_points,
                            const uint32_t* index, uint32_t base, const void* scalars, size_t n,
                            void* out_points, void* out_scalars, cudaStream_t s);
size_t g1_msm_accumulate_workspace_size(size_t n_cap, int strategy);
size_t g1_msm_accumulate_buckets_size(size_t n_cap, int strategy);
uint32_t g1_msm_window_bits(size_t n, int strategy);
cudaError_t g1_msm_accumulate(const g1_affine_t* points, size_t n_points, const uint32_t* index,
                              const fr_t* scalars, bool montgomery, size_t n, size_t n_cap,
                              int strategy, void* buckets, size_t buckets_bytes, void* ws,
                              size_t ws_bytes, bool first, cudaStream_t s);
cudaError_t g1_msm_accumulated(size_t n_cap, int strategy, void* buckets, size_t buckets_bytes,
                               void* ws, size_t ws_bytes, g1_xyzz_t* result, cudaStream_t s);
#endif

}  // namespace g16

#endif
