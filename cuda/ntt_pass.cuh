// One NTT pass over index bits [lo, lo + K): its arguments, the tile logic of its register
// rounds (pass_tile: lanes, swizzled shared-memory slots, layers, between-pass twiddles), the
// pass kernel and its launch.
#ifndef GROTH16_C2_NTT_PASS_CUH
#define GROTH16_C2_NTT_PASS_CUH

#include "ntt_tables.cuh"

namespace g16 {
namespace ntt_detail {

// One pass as the kernel sees it.
struct pass_args {
  fr_t* data;
  const fr_t* lt;     // lt[x] = w_{2^kl}^x
  const fr_t* tw_lo;  // w_max^x
  const fr_t* tw_hi;  // w_max^(x 2^b)
  uint32_t lo;        // lowest index bit of the pass
  uint32_t c;         // log2 of lines per block
  uint32_t kl;        // log2 of the order of lt's root
  uint32_t b;         // split of the two-level table
  uint32_t tw_shift;  // lg_max - (lo + K): w_{2^(lo+K)} = w_max^(2^tw_shift)
  const fr_t* tw_pass;  // this pass's own twiddle table (table_layout::pt), or null
  const fr_t* lt_tw;    // twisted layer twiddles (coset_layout), or null: see pass_tile<.., TW>
};

// The arguments of pass p of a transform with `table` built for lg_max.
G16_HD pass_args make_pass_args(fr_t* data, const fr_t* table, const table_layout& lay, bool inverse,
                                const pass_plan& p, const top_table& top = top_table()) {
  pass_args a;
  a.data = data;
  a.lt = table + lay.lt(inverse);
  a.tw_lo = table + lay.lo(inverse);
  a.tw_hi = table + lay.hi(inverse);
  a.lo = p.lo;
  a.c = p.c;
  a.kl = lay.kl;
  a.b = lay.b;
  a.tw_shift = lay.lg_max - p.lo - p.k;
  a.tw_pass = lay.has_pass_table(p.lo, p.k) ? table + lay.pt(inverse) : top.for_pass(inverse, p);
  a.lt_tw = nullptr;
  return a;
}

// Bit reversal of a small unrolled-loop index (folds to a constant; a recursive form would not).
G16_HD constexpr uint32_t cbitrev(uint32_t x, int bits) {
  uint32_t r = 0;
  for (int i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
}

// TW: a twisted pass (the coset transforms of the H step, see coset_layout): the local DFT of
// each line is taken on a coset, so layer S multiplies by lt_tw[2^S - 1 + tm] (layer 0 too).
template <int K, bool DIT, bool TW = false>
struct pass_tile {
  static constexpr int W = (int)window(K);
  static constexpr int E = 1 << W;           // elements per thread
  static constexpr int TPL = 1 << (K - W);   // threads per line
  static constexpr int NR = (K + W - 1) / W; // register rounds

  pass_args a;
  uint32_t block;
  uint32_t tid, nthreads;
  uint4* s_lo;
  uint4* s_hi;

  // Swizzled shared-memory slot of tile element e = line * 2^K + t: XORs the low three bits
  // with higher ones, so that the 16-byte accesses of each quarter warp (8 lanes) fall in
  // distinct bank groups (an exhaustive count over the lanes, emu_ntt's `banks`: none for
  // K >= 5).
  G16_HD static uint32_t phys(uint32_t e) {
    if constexpr (K >= 5) {
      // Slot bits 3 and 4 and line bits 0, 1, 2 fold in as 1, 6, 6, 3 and 1: free of
      // conflicts for every round of both lane layouts and the flat order, K = 5..11, every
      // column count (found by exhaustive search over such XOR forms).
      const uint32_t l = e >> K;
      const uint32_t f = ((e >> 3) & 1u) ^ ((0u - ((e >> 4) & 1u)) & 6u) ^
                         ((0u - (l & 1u)) & 6u) ^ ((0u - ((l >> 1) & 1u)) & 3u) ^ ((l >> 2) & 1u);
      return e ^ f;
    }
    if (K >= 3) return e ^ (((e >> 3) ^ ((e >> K) << 1)) & 7u);
    return e;
  }

  // The slot of a thread's element m in round R (R is a constant at the kernels' calls):
  // the window's bits are m, the others ut's. In the low rounds ut's bits fill them in order;
  // in the high ones ut's lowest kQ bits stay at the bottom
  // (runs of consecutive elements for the global reads and writes), its next kH bits go to the
  // part of the high bits [kHighLo, K) outside the window, and the rest to bits [kQ, kHighLo),
  // so that a warp owns the same slots in both high rounds (see warp_local).
  G16_HD static uint32_t round_slot(int R, uint32_t ut, int m) {
    const int L0 = round_l0(R);
    if (high_round(R)) {
      const int p = top_round(R) ? kHighLo : kHighLo + W;  // the high bits outside the window
      return (ut & ((1u << kQ) - 1)) | (((ut >> kQ) & ((1u << kH) - 1)) << p) |
             ((ut >> (kQ + kH)) << kQ) | (uint32_t(m) << L0);
    }
    return ((ut >> L0) << (L0 + W)) | (uint32_t(m) << L0) | (ut & ((1u << L0) - 1));
  }
  // The high phase: the top two rounds by window, over bits [kHighLo, K), on passes of 3+
  // rounds, their slots remapped so that each warp keeps its own between them (one
  // __syncthreads left of a 9-bit pass's four; H200: the forward NTT 0.92-0.95x the time of a
  // __syncthreads after every round at 2^20, 0.99x at 2^24-2^27).
  static constexpr bool kHighPhase = NR >= 3;
  static constexpr int kHighLo = NR < 3 ? 0 : (W * (NR - 2) < K - W ? W * (NR - 2) : K - W);
  static constexpr int kH = NR < 3 ? 0 : K - W - kHighLo;  // high bits outside either window
  // ut bits kept at the bottom in the high rounds: 3, so that a quarter warp's 8 lanes keep
  // the L0 = 0 round's layout (free of bank conflicts, emu_ntt's `banks`) and, with al <= 1
  // (the 9- and 10-bit passes), the warp spans them and the kH above (warp-local). A count
  // chosen at run time per al made ptxas spend ~1.6% more IMAD-pipe cycles in the DIT passes.
  static constexpr int kQ = kHighLo < 3 ? kHighLo : 3;
  G16_HD static constexpr bool top_round(int R) { return (DIT ? R : NR - 1 - R) == NR - 1; }
  G16_HD static constexpr bool high_round(int R) {
    return kHighPhase && (DIT ? R : NR - 1 - R) >= NR - 2;
  }

  // This thread's line l in the block and its place ut among the line's threads in the
  // register rounds. Consecutive lanes take consecutive columns first (the low min(lo, c) bits
  // of the line), so that a round's loads and stores are runs of 2^min(lo, c) elements in
  // global memory (H200: the forward NTT 0.974x the time of lanes over a line's slots at 2^27,
  // 0.91-0.97x at 2^20-2^26).
  G16_HD void lane(uint32_t& l, uint32_t& ut) const {
    const uint32_t al = line_low_bits();
    l = (tid & ((1u << al) - 1)) | ((tid >> (al + K - W)) << al);
    ut = (tid >> al) & (TPL - 1);
  }
  // The low bits of a thread's index that pick its line (lane): min(lo, c).
  G16_HD uint32_t line_low_bits() const { return a.lo < a.c ? a.lo : a.c; }

  // The lowest bit of round R's window (rounds run upwards in DIT, downwards in DIF).
  G16_HD static constexpr int round_l0(int R) {
    const int r = DIT ? R : NR - 1 - R;
    return W * r < K - W ? W * r : K - W;
  }
  // Whether each warp reads in round R + 1 exactly the tile slots it wrote in round R, so
  // that __syncwarp would do between them: a warp's 32 threads take consecutive ut in their
  // lines' low 5 - al bits (al = line_low_bits()), so it holds when both windows start at or
  // below that bit (emu_ntt's `warps` checks it for every pass width and lane layout).
  // Between the two high rounds the warp's ut bits [0, kQ + kH) map to
  // the same slot bits outside the windows, so it holds when the warp spans them.
  G16_HD bool warp_local(int R) const {
    const int v = 5 - (int)line_low_bits();  // ut bits a warp spans
    if (high_round(R) != high_round(R + 1)) return v >= K - W;
    if (high_round(R)) return v >= kQ + kH;
    const int hi = round_l0(R) > round_l0(R + 1) ? round_l0(R) : round_l0(R + 1);
    return hi <= v;
  }
  G16_HD fr_t sget(uint32_t e) const { const uint32_t p = phys(e); return join_fr(s_lo[p], s_hi[p]); }
  G16_HD void sput(uint32_t e, const fr_t& x) const { const uint32_t p = phys(e); split_fr(x, s_lo[p], s_hi[p]); }

  // Global index of slot t of line l of this block (lg_n <= 31, so 32 bits suffice).
  G16_HD uint32_t gidx(uint32_t l, uint32_t t) const {
    const uint32_t lam = (block << a.c) + l;
    const uint32_t j = lam & ((1u << a.lo) - 1), u = lam >> a.lo;
    return (u << (a.lo + K)) | (t << a.lo) | j;
  }
  // w_max^e (e < 2^lg_max <= 2^32).
  G16_HD fr_t pow_max(uint32_t e) const {
    return ldg_fr(a.tw_hi + (e >> a.b)) * ldg_fr(a.tw_lo + (e & ((1u << a.b) - 1)));
  }
  // Between-pass twiddles for the elements of a round with window at bit 0 (slots
  // t = m | ut << W): x[m] *= w_M^(j * bitrev_K(t)), a geometric sequence in bitrev_W(m).
  G16_HD void twiddle(fr_t (&x)[E], uint32_t l, uint32_t ut) const {
    const uint32_t j = ((block << a.c) + l) & ((1u << a.lo) - 1);
    if (a.tw_pass != nullptr) {
      // One product per element: this thread's E twiddles are consecutive in the pass table.
      const fr_t* row = a.tw_pass + ((uint64_t(j) << K) | (uint64_t(ut) << W));
G16_UNROLL
      for (int m = 0; m < E; m++) x[m] = x[m] * ldg_fr(row + m);
      return;
    }
    // Else each element's twiddle straight from the two-level table: E independent products
    // instead of a chain through w (H200, 2^27: 0.97x the time of the chain).
    const uint32_t base = bitrev(ut, K - W);
G16_UNROLL
    for (int p = 0; p < E; p++) {
      const int m = (int)cbitrev(p, W);
      x[m] = x[m] * pow_max((j * (base + (uint32_t(p) << (K - W)))) << a.tw_shift);
    }
  }

  // Radix-2 layer S on the thread's elements (window bit BB = S - L0). Butterflies are grouped
  // by twiddle so that only one twiddle is live at a time (register pressure).
  // low: the thread's slot bits below L0 (the layers' twiddles depend on them).
  template <int S, int L0>
  G16_HD void layer(fr_t (&x)[E], uint32_t low) const {
    constexpr int BB = S - L0;
    constexpr int NLOW = 1 << BB;
G16_UNROLL
    for (int ml = 0; ml < NLOW; ml++) {
      [[maybe_unused]] fr_t twt;  // the twisted pass's twiddle (TW)
      fr_t tw = fr_t::one();  // unused when S == 0 (that layer's twiddle is 1)
      if constexpr (S > 0) {
        const uint32_t tm = low | (uint32_t(ml) << L0);
        tw = ldg_fr(a.lt + (tm << (a.kl - 1 - S)));
      }
      if constexpr (TW) {
        const uint32_t tm = low | (uint32_t(ml) << L0);
        twt = ldg_fr(a.lt_tw + ((1u << S) - 1 + tm));
      }
      // A twiddle known to be 1 at compile time costs no product: layer 0's, and the first
      // group's of a round whose window starts at bit 0 (tm = ml = 0). Not on a twisted pass.
      const bool unit = !TW && (S == 0 || (L0 == 0 && ml == 0));
G16_UNROLL
      for (int mh = 0; mh < E / (2 * NLOW); mh++) {
        const int m = mh * 2 * NLOW + ml;  // bit BB clear, low bits = ml
        const int m2 = m | NLOW;
        if (DIT) {
          const fr_t X = x[m];
          fr_t Y = x[m2];
          if constexpr (TW) Y = Y * twt;
          else if (!unit) Y = Y * tw;
          x[m] = X + Y;
          x[m2] = X - Y;
        } else {
          const fr_t X = x[m], Y = x[m2];
          x[m] = X + Y;
          x[m2] = X - Y;
          if constexpr (TW) x[m2] = x[m2] * twt;
          else if (!unit) x[m2] = x[m2] * tw;
        }
      }
    }
  }

  template <int R, int I, int NL, int SFIRST, int L0>
  G16_HD void layers(fr_t (&x)[E], uint32_t low) const {
    if constexpr (I < NL) {
      layer<(DIT ? SFIRST + I : SFIRST - I), L0>(x, low);
      layers<R, I + 1, NL, SFIRST, L0>(x, low);
    }
  }

  // Round R: the thread holds slots with window bits [L0, L0 + W) and runs the layers in it.
  // The rounds cut the layers into windows from bit 0 up; DIT runs them upwards, DIF downwards,
  // so both have the round of layer 0 at L0 = 0, where the first group's twiddles are 1.
  // FROM_DATA: the round reads its slots from global memory instead of the tile (a pass's
  // first round); TO_DATA: writes them there (its last).
  template <int R, bool FROM_DATA = false, bool TO_DATA = false>
  G16_HD void round() const {
    constexpr int r = DIT ? R : NR - 1 - R;
    constexpr int s_bot = W * r;
    constexpr int s_top = (W * r + W - 1) < K - 1 ? (W * r + W - 1) : K - 1;
    constexpr int L0 = round_l0(R);
    constexpr int NL = s_top - s_bot + 1;
    uint32_t l, ut;
    lane(l, ut);
    fr_t x[E];
G16_UNROLL
    for (int m = 0; m < E; m++) {
      const uint32_t t = round_slot(R, ut, m);
      x[m] = FROM_DATA ? ld_fr(a.data + gidx(l, t)) : sget((l << K) | t);
    }
    if (DIT && R == 0 && a.lo != 0) twiddle(x, l, ut);
    layers<R, 0, NL, (DIT ? s_bot : s_top), L0>(x, round_slot(R, ut, 0) & ((1u << L0) - 1));
    if (!DIT && R == NR - 1 && a.lo != 0) twiddle(x, l, ut);
G16_UNROLL
    for (int m = 0; m < E; m++) {
      const uint32_t t = round_slot(R, ut, m);
      if (TO_DATA)
        st_fr(a.data + gidx(l, t), x[m]);
      else
        sput((l << K) | t, x[m]);
    }
  }
};

#if defined(__CUDACC__)

// The rounds of a pass on a tile, a barrier after each. FROM_DATA: the first round reads the
// pass's data itself; TO_DATA: the last writes it, with no barrier after. __syncwarp instead of
// __syncthreads between rounds that pass_tile::warp_local joins, so that a warp does not wait
// there for the block's other warps.
template <int K, bool DIT, bool TW, int R, bool FROM_DATA = false, bool TO_DATA = false>
__device__ __forceinline__ void run_rounds(const pass_tile<K, DIT, TW>& T) {
  constexpr bool last = R + 1 == pass_tile<K, DIT, TW>::NR;
  T.template round<R, FROM_DATA && R == 0, TO_DATA && last>();
  if constexpr (!last) {
    // A block-uniform branch: warp_local depends on the pass's arguments only.
    if (T.warp_local(R))
      __syncwarp();
    else
      __syncthreads();
  } else if constexpr (!TO_DATA) {
    __syncthreads();  // the next user of the tile may lay it out differently
  }
  if constexpr (!last) run_rounds<K, DIT, TW, R + 1, FROM_DATA, TO_DATA>(T);
}

// Blocks per SM the register allocation aims for (config.cuh): with 4 elements per thread a
// block of 2^10 elements is 256 threads, so 3 blocks are 24 warps per SM (85 registers, a few
// spilled: still the fastest measured).
template <int K, bool DIT, bool TW>
__global__ void __launch_bounds__(kMaxThreads, G16_NTT_MIN_BLOCKS) ntt_pass_kernel(const pass_args a) {
  extern __shared__ uint4 smem[];
  // The high halves sit at a fixed offset so shared-memory addresses share registers.
  const pass_tile<K, DIT, TW> T{a, blockIdx.x, threadIdx.x, blockDim.x, smem, smem + (1u << kTileLog)};
  // The first round reads global memory and the last writes it (two fewer round trips through
  // shared memory and barriers than staging the tile there in flat order).
  run_rounds<K, DIT, TW, 0, true, true>(T);
}

template <int K, bool DIT, bool TW>
cudaError_t launch_pass(const pass_args& a, const pass_plan& p, cudaStream_t s) {
  if constexpr (K > (int)kTileLog || (TW && K < (int)kMinTwistK)) {
    return cudaErrorInvalidValue;  // no plan has such a pass (not compiled)
  } else {
    const size_t smem = (size_t(16) << kTileLog) + (size_t(16) << (K + p.c));
    if (smem > 48 * 1024) {
      cudaError_t e = cudaFuncSetAttribute(ntt_pass_kernel<K, DIT, TW>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
      if (e != cudaSuccess) return e;
    }
    ntt_pass_kernel<K, DIT, TW><<<(unsigned)p.blocks, p.threads, smem, s>>>(a);
    return cudaGetLastError();
  }
}

template <bool DIT, bool TW>
cudaError_t dispatch_pass(const pass_args& a, const pass_plan& p, cudaStream_t s) {
  switch (p.k) {
    case 1: return launch_pass<1, DIT, TW>(a, p, s);
    case 2: return launch_pass<2, DIT, TW>(a, p, s);
    case 3: return launch_pass<3, DIT, TW>(a, p, s);
    case 4: return launch_pass<4, DIT, TW>(a, p, s);
    case 5: return launch_pass<5, DIT, TW>(a, p, s);
    case 6: return launch_pass<6, DIT, TW>(a, p, s);
    case 7: return launch_pass<7, DIT, TW>(a, p, s);
    case 8: return launch_pass<8, DIT, TW>(a, p, s);
    case 9: return launch_pass<9, DIT, TW>(a, p, s);
    case 10: return launch_pass<10, DIT, TW>(a, p, s);
    case 11: return launch_pass<11, DIT, TW>(a, p, s);
    default: return cudaErrorInvalidValue;
  }
}

inline cudaError_t dispatch(const pass_args& a, const pass_plan& p, bool dit, cudaStream_t s) {
  const bool tw = a.lt_tw != nullptr;
  if (dit) return tw ? dispatch_pass<true, true>(a, p, s) : dispatch_pass<true, false>(a, p, s);
  return tw ? dispatch_pass<false, true>(a, p, s) : dispatch_pass<false, false>(a, p, s);
}

inline cudaError_t run_passes(fr_t* data, uint32_t lg_n, bool inverse, bool dit, const fr_t* table,
                       uint32_t lg_max, const top_table& top, cudaStream_t s) {
  const table_layout lay(lg_max);
  pass_plan plan[8];
  const uint32_t np = make_plan(lg_n, dit, plan);
  for (uint32_t i = 0; i < np; i++) {
    const pass_args a = make_pass_args(data, table, lay, inverse, plan[i], top);
    const cudaError_t e = dispatch(a, plan[i], dit, s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace ntt_detail
}  // namespace g16

#endif
