// The H step's fused LDE: the inverse NTT's last pass and the coset NTT's first as one kernel
// (a join) on tiles that both passes share.
#ifndef GROTH16_C2_NTT_LDE_CUH
#define GROTH16_C2_NTT_LDE_CUH

#include "ntt_coset.cuh"

namespace g16 {
namespace ntt_detail {

// Per polynomial the H step runs an inverse NTT (DIF: natural in, bit-reversed out), then the
// coset NTT (DIT: bit-reversed in, natural out). The inverse's last pass and the coset
// transform's first both work on bits [0, k) of the index, on the same tiles, so one kernel (a
// join) runs both on a tile loaded once: one round trip of the vector through global memory
// (2^(L+6) bytes) fewer. Only plans of three passes fuse (2^20 and up; 2^21 with tiles of
// 2^11): smaller sizes gain little. Their bit-0 passes are kFusedMinK..kTileLog bits wide.
// Measured on the H200 (2^27): the joins take each polynomial's LDE from 76.4 to 75.2 ms.
constexpr uint32_t kFusedMinK = 7;
enum class step_kind : uint32_t { pass, join };
struct fused_step {
  step_kind kind;
  bool dit;     // pass: its order
  pass_plan p;  // the plan entry (the two halves of a join have the same)
  pass_args x;  // pass: its arguments; join: the inverse's last pass
  pass_args y;  // join: the coset transform's first pass
};
constexpr uint32_t kMaxFusedSteps = 16;

G16_HD fused_step make_step(step_kind kind, bool dit, const pass_plan& p, const pass_args& x,
                            const pass_args& y = pass_args()) {
  fused_step st;
  st.kind = kind;
  st.dit = dit;
  st.p = p;
  st.x = x;
  st.y = y;
  return st;
}

G16_HD bool same_tiles(const pass_plan& p, const pass_plan& q) {
  return p.k == q.k && p.lo == q.lo && p.c == q.c && p.threads == q.threads && p.blocks == q.blocks;
}

// Whether 2^L's H step runs the fused sequences (a plan of three passes that folds the scaling).
G16_HD bool h_fusable(uint32_t L) {
  if (L < 2 || L > 31 || !coset_layout(L).ok) return false;
  pass_plan plan[8];
  return make_plan(L, false, plan) == 3;
}

// The LDE of one polynomial (inverse NTT, then the coset NTT). Appends to out[n..]; returns the
// new count, or 0 if 2^L does not fuse.
G16_HD uint32_t lde_steps(fr_t* d, uint32_t L, const fr_t* table, const table_layout& lay,
                          const fr_t* coset, const coset_layout& cl, const top_table& top,
                          fused_step* out, uint32_t n) {
  pass_plan dif[8], dit[8];
  if (!h_fusable(L) || cl.L != L) return 0;
  const uint32_t np = make_plan(L, false, dif);
  if (make_plan(L, true, dit) != np || !same_tiles(dif[np - 1], dit[0]) || dit[0].lo != 0 ||
      dit[0].k < kFusedMinK || n + 2 * np > kMaxFusedSteps)
    return 0;
  for (uint32_t i = 0; i + 1 < np; i++)
    out[n++] = make_step(step_kind::pass, false, dif[i], make_pass_args(d, table, lay, true, dif[i], top));
  out[n++] = make_step(step_kind::join, false, dit[0], make_pass_args(d, table, lay, true, dif[np - 1], top),
                       make_coset_pass_args(d, table, lay, coset, cl, false, dit[0], top));
  for (uint32_t i = 1; i < np; i++)
    out[n++] = make_step(step_kind::pass, true, dit[i],
                         make_coset_pass_args(d, table, lay, coset, cl, false, dit[i], top));
  return n;
}

#if defined(__CUDACC__)

// A join (see fused_step): the inverse NTT's last pass and the coset NTT's first on one tile.
template <int K>
__global__ void __launch_bounds__(kMaxThreads, G16_NTT_MIN_BLOCKS)
    ntt_join_kernel(const pass_args inv, const pass_args fwd) {
  extern __shared__ uint4 smem[];
  const pass_tile<K, false, false> I{inv, blockIdx.x, threadIdx.x, blockDim.x, smem, smem + (1u << kTileLog)};
  const pass_tile<K, true, true> F{fwd, blockIdx.x, threadIdx.x, blockDim.x, smem, smem + (1u << kTileLog)};
  run_rounds<K, false, false, 0, true, false>(I);
  run_rounds<K, true, true, 0, false, true>(F);
}

// Shared memory of a pass's block, raising the kernel's limit when above the default 48 KiB.
template <typename Kernel>
cudaError_t pass_smem(Kernel kernel, uint32_t k, const pass_plan& p, size_t& smem) {
  smem = (size_t(16) << kTileLog) + (size_t(16) << (k + p.c));
  if (smem <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

template <int K>
cudaError_t launch_join(const fused_step& st, cudaStream_t s) {
  if constexpr (K > (int)kTileLog || K < (int)kFusedMinK) {
    return cudaErrorInvalidValue;  // no plan that fuses has such a pass (not compiled)
  } else {
    size_t smem;
    cudaError_t e = pass_smem(ntt_join_kernel<K>, K, st.p, smem);
    if (e != cudaSuccess) return e;
    ntt_join_kernel<K><<<(unsigned)st.p.blocks, st.p.threads, smem, s>>>(st.x, st.y);
    return cudaGetLastError();
  }
}

inline cudaError_t dispatch_join(const fused_step& st, cudaStream_t s) {
  switch (st.p.k) {
    case 7: return launch_join<7>(st, s);
    case 8: return launch_join<8>(st, s);
    case 9: return launch_join<9>(st, s);
    case 10: return launch_join<10>(st, s);
    case 11: return launch_join<11>(st, s);
    default: return cudaErrorInvalidValue;
  }
}

inline cudaError_t run_steps(const fused_step* steps, uint32_t n, cudaStream_t s) {
  if (n == 0) return cudaErrorInvalidValue;
  for (uint32_t i = 0; i < n; i++) {
    const fused_step& st = steps[i];
    const cudaError_t e =
        st.kind == step_kind::pass ? dispatch(st.x, st.p, st.dit, s) : dispatch_join(st, s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace ntt_detail
}  // namespace g16

#endif
