// Twiddle table for lg_max (all entries Montgomery Fr, derived only from omega_max and its
// inverse, so every smaller domain uses w_n = omega_max^(2^(lg_max - lg_n))):
//   [lt fwd | lt inv | lo fwd | hi fwd | lo inv | hi inv | pt fwd | pt inv]
//   lt[x] = w_{2^kl}^x, x < 2^(kl-1), kl = min(11, lg_max): roots of the in-tile layers;
//   lo[x] = w_max^x, x < 2^b, and hi[x] = w_max^(x 2^b), x < 2^(lg_max-b), b = ceil(lg_max/2):
//   w_max^e = hi[e >> b] * lo[e & (2^b-1)] for the between-pass twiddles.
//   pt[(j << K) | t] = w_M^(j bitrev_K(t)), M = 2^(lo+K): the between-pass twiddles of the
//   plan's pass with the smallest such table (at most 2^20 entries; see kPassTableMaxLog).
// Size: 32 * 2 * (2^(kl-1) + 2^b + 2^(lg_max-b) + |pt|) bytes (17.6 MiB for lg_max = 27).
//
// Optional top table for one size 2^L (top_table, built where VRAM allows: 8 GiB for L = 27):
// [fwd | inv], entry (j << k) | t = w_{2^L}^(j bitrev_k(t)) for the plan's top pass (bits
// [L - k, L)), so that pass's between-pass twiddles cost one product instead of two.
#ifndef GROTH16_C2_NTT_TABLES_CUH
#define GROTH16_C2_NTT_TABLES_CUH

#include "ntt_plan.cuh"

namespace g16 {
namespace ntt_detail {

// Between-pass twiddles of one pass read straight from a table of their own (one product per
// element instead of two) when that table has at most 2^kPassTableMaxLog entries: the middle
// pass of lg_max's plan (2^18 entries for 2^27).
constexpr uint32_t kPassTableMaxLog = 20;

struct table_layout {
  uint32_t lg_max, kl, b;
  uint64_t lt_len, lo_len, hi_len;
  // The pass with its own twiddle table (pt_len = 0: none): bits [pt_lo, pt_lo + pt_k).
  uint32_t pt_lo, pt_k;
  uint64_t pt_len;
  table_layout() = default;
  G16_HD explicit table_layout(uint32_t lg)
      : lg_max(lg), kl(lg < 11 ? lg : 11), b((lg + 1) / 2), pt_lo(0), pt_k(0), pt_len(0) {
    lt_len = uint64_t(1) << (kl - 1);
    lo_len = uint64_t(1) << b;
    hi_len = uint64_t(1) << (lg - b);
    pass_plan plan[8];
    const uint32_t np = make_plan(lg, false, plan);
    for (uint32_t i = 0; i < np; i++) {
      const uint32_t m = plan[i].lo + plan[i].k;
      if (plan[i].lo != 0 && m <= kPassTableMaxLog && (pt_len == 0 || m < pt_lo + pt_k)) {
        pt_lo = plan[i].lo;
        pt_k = plan[i].k;
        pt_len = uint64_t(1) << m;
      }
    }
  }
  G16_HD uint64_t lt(bool inv) const { return inv ? lt_len : 0; }
  G16_HD uint64_t lo(bool inv) const { return 2 * lt_len + (inv ? lo_len + hi_len : 0); }
  G16_HD uint64_t hi(bool inv) const { return lo(inv) + lo_len; }
  // The pass table after the two-level ones: entry (j << pt_k) | t = w_M^(j bitrev(t)),
  // M = 2^(pt_lo + pt_k), for column j < 2^pt_lo and slot t < 2^pt_k.
  G16_HD uint64_t pt(bool inv) const { return 2 * (lt_len + lo_len + hi_len) + (inv ? pt_len : 0); }
  // Whether the pass over bits [lo, lo + k) has the pass table.
  G16_HD bool has_pass_table(uint32_t lo, uint32_t k) const {
    return pt_len != 0 && lo == pt_lo && k == pt_k;
  }
  G16_HD uint64_t total() const { return 2 * (lt_len + lo_len + hi_len + pt_len); }
};

// A pass table of its own for the top pass of one size (see the header). Any pass over bits
// [lo, lo + k) with lo > 0, lo + k = M and k = K takes its twiddles from it: the entries depend
// only on M and K, so a smaller transform whose middle pass has that shape uses it too.
struct top_table {
  const fr_t* base = nullptr;  // [fwd 2^M | inv 2^M], or null: none
  uint32_t M = 0, K = 0;
  top_table() = default;
  // The shape of lg's top pass; K = 0 when lg's plan has a single pass (no table).
  G16_HD static uint32_t top_k(uint32_t lg) {
    if (lg < 2 || lg > 31) return 0;
    pass_plan plan[8];
    return make_plan(lg, false, plan) >= 2 ? plan[0].k : 0;
  }
  G16_HD top_table(const fr_t* t, uint32_t lg) : base(t), M(lg), K(top_k(lg)) {
    if (K == 0) base = nullptr;
  }
  G16_HD uint64_t len() const { return uint64_t(1) << M; }
  G16_HD const fr_t* for_pass(bool inv, const pass_plan& p) const {
    if (base == nullptr || p.lo == 0 || p.lo + p.k != M || p.k != K) return nullptr;
    return base + (inv ? len() : 0);
  }
};

struct table_init_args {
  fr_t* table;
  table_layout lay;
  fr_arg omega, omega_inv;
};

// Entry idx of the table: a power of omega (or its inverse) squared a few times.
G16_HD void table_entry(const table_init_args& a, uint64_t idx) {
  const table_layout& L = a.lay;
  bool inv;
  uint32_t squarings;
  uint64_t x;
  if (idx >= L.pt(false)) {
    // Pass table: w_max^((j bitrev(t)) << (lg_max - M)).
    uint64_t r = idx - L.pt(false);
    inv = r >= L.pt_len;
    if (inv) r -= L.pt_len;
    const uint64_t j = r >> L.pt_k, t = r & ((uint64_t(1) << L.pt_k) - 1);
    x = j * bitrev64(t, L.pt_k);
    squarings = L.lg_max - L.pt_lo - L.pt_k;
  } else if (idx < 2 * L.lt_len) {
    inv = idx >= L.lt_len;
    x = idx - (inv ? L.lt_len : 0);
    squarings = L.lg_max - L.kl;
  } else {
    uint64_t r = idx - 2 * L.lt_len;
    inv = r >= L.lo_len + L.hi_len;
    if (inv) r -= L.lo_len + L.hi_len;
    if (r < L.lo_len) {
      x = r;
      squarings = 0;
    } else {
      x = r - L.lo_len;
      squarings = L.b;
    }
  }
  fr_t base;
  for (int i = 0; i < 8; i++) base.v[i] = inv ? a.omega_inv.v[i] : a.omega.v[i];
  for (uint32_t i = 0; i < squarings; i++) base = base.sqr();
  st_fr(a.table + idx, base.pow(x));
}

struct top_init_args {
  fr_t* top;
  uint32_t M, K;
  const fr_t* table;  // the plain table for lg_max >= M, already built
  table_layout lay;
};

// Entry idx of a top table: w_M^(j bitrev_K(t)) = w_max^e, one product of the plain table's
// two levels (hi[e >> b] lo[e & (2^b - 1)]).
G16_HD void top_entry(const top_init_args& a, uint64_t idx) {
  const uint64_t len = uint64_t(1) << a.M;
  const bool inv = idx >= len;
  const uint64_t r = idx - (inv ? len : 0);
  const uint64_t j = r >> a.K, t = r & ((uint64_t(1) << a.K) - 1);
  const uint64_t e = (j * bitrev64(t, a.K)) << (a.lay.lg_max - a.M);  // < 2^lg_max
  const fr_t* lo = a.table + a.lay.lo(inv);
  const fr_t* hi = a.table + a.lay.hi(inv);
  st_fr(a.top + idx, ld_fr(hi + (e >> a.lay.b)) * ld_fr(lo + (e & ((uint64_t(1) << a.lay.b) - 1))));
}

#if defined(__CUDACC__)

__global__ void table_init_kernel(const table_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < a.lay.total()) table_entry(a, idx);
}

__global__ void top_table_init_kernel(const top_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < (uint64_t(2) << a.M)) top_entry(a, idx);
}

#endif  // __CUDACC__

}  // namespace ntt_detail
}  // namespace g16

#endif
