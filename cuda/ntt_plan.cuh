// The NTT's pass plans: a transform of 2^L elements as passes over bit fields of the index,
// top bits first (DIF) or bottom bits first (DIT), each as wide as a block's tile allows.
#ifndef GROTH16_C2_NTT_PLAN_CUH
#define GROTH16_C2_NTT_PLAN_CUH

#include "config.cuh"
#include "internal.cuh"

namespace g16 {
namespace ntt_detail {

// Elements held by one block (config.cuh): 2^10 (32 KiB of shared memory), so 3 blocks of 256
// threads fit an SM. On the H200 2^10 with 3 blocks ran a 2^27 forward NTT in 0.91x the time of
// 2^11 with 2.
constexpr uint32_t kTileLog = G16_NTT_TILE_LOG;
constexpr uint32_t kInnerLog = 9;   // passes with lo > 0 use tiles of at most 2^9 (>= 2 columns)
static_assert(kTileLog >= kInnerLog + 1 && kTileLog <= 11, "G16_NTT_TILE_LOG must be 10 or 11");
constexpr uint32_t kMaxLgMax = 32;  // Fr's two-adicity
constexpr uint32_t kMinTwistK = 5;  // narrowest pass of any plan with two or three passes

// One pass of a size's plan.
struct pass_plan {
  uint32_t k, lo, c, threads;
  uint64_t blocks;
};

// Radix-2 layers per register round: each thread holds 2^window elements (config.cuh: 4). On
// the H200 4 elements and 2 blocks per SM ran a 2^27 forward NTT in 58 ms against 81 ms with 8
// elements and 3 blocks (spilling).
G16_HD constexpr uint32_t window(uint32_t k) { return k < G16_NTT_WINDOW ? k : G16_NTT_WINDOW; }
// Threads of the largest block: a tile of 2^kTileLog elements, 2^window per thread.
constexpr uint32_t kMaxThreads = 1u << (kTileLog - G16_NTT_WINDOW);

// Bit widths of the passes, top bits first (the last one holds bit 0 and may use up to 11 bits;
// the others at most 9 so a block can hold 4 columns).
G16_HD uint32_t split_bits(uint32_t L, uint32_t ks[8]) {
  uint32_t np = L <= kTileLog ? 1 : 1 + (L - kTileLog + kInnerLog - 1) / kInnerLog;
  uint32_t last = (L + np - 1) / np;
  if (np > 1 && L - kInnerLog * (np - 1) > last) last = L - kInnerLog * (np - 1);
  uint32_t rest = L - last;
  for (uint32_t i = 0; i + 1 < np; i++) {
    uint32_t left = np - 1 - i;
    ks[i] = (rest + left - 1) / left;
    rest -= ks[i];
  }
  ks[np - 1] = last;
  return np;
}

// Passes in execution order.
G16_HD uint32_t make_plan(uint32_t L, bool dit, pass_plan out[8]) {
  uint32_t ks[8];
  const uint32_t np = split_bits(L, ks);
  uint32_t lo = dit ? 0 : L;
  for (uint32_t i = 0; i < np; i++) {
    const uint32_t k = dit ? ks[np - 1 - i] : ks[i];
    if (!dit) lo -= k;
    pass_plan& p = out[i];
    p.k = k;
    p.lo = lo;
    p.c = (kTileLog - k) < (L - k) ? (kTileLog - k) : (L - k);
    p.threads = 1u << (k - window(k) + p.c);
    p.blocks = uint64_t(1) << (L - k - p.c);
    if (dit) lo += k;
  }
  return np;
}

}  // namespace ntt_detail
}  // namespace g16

#endif
