// NTT over Fr: twiddle tables and the in-place transform, as a few shared-memory passes.
//
// A transform of 2^L elements is split into passes over bit fields of the index, top bits first
// (decimation in frequency, natural in -> bit-reversed out) or bottom bits first (decimation in
// time, bit-reversed in -> natural out). A pass over index bits [lo, lo + K) is the four-step
// split of the size-2^(lo+K) sub-transforms it belongs to: each block takes "lines" of 2^K
// elements at stride 2^lo (its first register round reads them from global memory, its last
// writes them back, shared memory carries them between rounds), runs a radix-2 DFT
// of size 2^K on each (two layers per register round, 4 elements per thread, by default), and
// multiplies element (line column j, tile slot t) by w_M^(j * bitrev_K(t)) with M = 2^(lo+K):
// after the local DFT (DIF) or before it (DIT). Passes with lo > 0 hold 2+ consecutive
// columns per block (64-byte runs in global memory; 4+ with G16_NTT_TILE_LOG=11). A 2^27
// transform is 3 passes (9 + 9 + 9 bits); at most 10 bits per pass (11 with
// G16_NTT_TILE_LOG=11).
//
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

// The pass plan of a size (defined below; the table's layout depends on lg_max's plan).
struct pass_plan {
  uint32_t k, lo, c, threads;
  uint64_t blocks;
};
G16_HD uint32_t make_plan(uint32_t L, bool dit, pass_plan out[8]);

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

// ---- Coset transforms with the scaling folded in (the H step) ---------------------------------
// The H step moves a, b, c from coefficients c_i to evaluations on the coset beta H and back:
// forward, NTT(kappa beta^i c_i) (beta = g, kappa = 1/n); inverse, kappa beta^i iNTT(y)_i
// (beta = g^-1, kappa = 1/(n Z(g))). Instead of a scaling pass, the factor kappa beta^i is split
// over the passes of a plan of two or three (widths k0 at bit 0, k1 above it, k2 at the top):
// coefficient i of the element at position pos is bitrev_L(pos), so
//   beta^i = (beta^(2^(L-k0)))^bitrev_k0(t0) * (beta^(2^k2))^bitrev_k1(t1) * beta^bitrev_k2(t2)
// with t0, t1, t2 the element's slot in the bit-0, middle and top pass. The middle factor (and
// kappa) joins the middle pass's own twiddle table (one product per element, as before); the
// other two turn the local DFTs of the bit-0 and top passes into DFTs on a coset (sigma H):
// layer S's twiddle becomes sigma^(2^(k-1-S)) w_{2^(S+1)}^tm, layer 0's included (half a product
// per element). For DIT that twists the inputs (sigma^b on input b), for DIF the outputs.
// Layout, per direction (forward, then inverse): [bit-0 pass layers | top pass layers | middle
// pass table], the layers as 2^S - 1 + tm.
constexpr uint32_t kMinTwistK = 5;  // narrowest pass of any plan with two or three passes

struct coset_layout {
  uint32_t L, np, k0, k1, k2;
  uint64_t t0_len, t2_len, pt_len;
  bool ok;  // whether 2^L folds the scaling (two or three passes)
  coset_layout() = default;
  G16_HD explicit coset_layout(uint32_t lg) : L(lg), np(0), k0(0), k1(0), k2(0), ok(false) {
    pass_plan plan[8];
    np = lg >= 2 && lg <= 31 ? make_plan(lg, true, plan) : 0;  // DIT order: bit 0 first
    if (np == 2 || np == 3) {
      k0 = plan[0].k;
      k1 = plan[1].k;
      k2 = np == 3 ? plan[2].k : 0;
      ok = k0 >= kMinTwistK && k1 >= kMinTwistK && (np == 2 || k2 >= kMinTwistK);
    }
    t0_len = ok ? uint64_t(1) << k0 : 0;
    t2_len = ok && np == 3 ? uint64_t(1) << k2 : 0;
    pt_len = ok ? uint64_t(1) << (k0 + k1) : 0;
  }
  G16_HD uint64_t half() const { return t0_len + t2_len + pt_len; }
  G16_HD uint64_t t0(bool inv) const { return inv ? half() : 0; }
  G16_HD uint64_t t2(bool inv) const { return t0(inv) + t0_len; }
  G16_HD uint64_t pt(bool inv) const { return t2(inv) + t2_len; }
  G16_HD uint64_t total() const { return 2 * half(); }
};

struct coset_init_args {
  fr_t* table;
  coset_layout lay;
  fr_arg omega[2], beta[2], kappa[2];  // forward, inverse; omega of order 2^L
};

// An entry of the coset table: products of powers of omega, beta and kappa.
G16_HD void coset_entry(const coset_init_args& a, uint64_t idx) {
  const coset_layout& C = a.lay;
  const bool inv = idx >= C.half();
  uint64_t r = idx - (inv ? C.half() : 0);
  const fr_t w = from_arg(a.omega[inv]), beta = from_arg(a.beta[inv]);
  const uint32_t L = C.L;
  fr_t v;
  if (r < C.t0_len + C.t2_len) {
    // Layer S, butterfly tm of the bit-0 pass (sigma = beta^(2^(L-k0))) or the top pass
    // (sigma = beta): sigma^(2^(k-1-S)) w^(tm 2^(L-1-S)).
    const bool top = r >= C.t0_len;
    if (top) r -= C.t0_len;
    const uint32_t k = top ? C.k2 : C.k0;
    uint32_t S = 0;
    while (S + 1 < 32 && (uint64_t(1) << (S + 1)) <= r + 1) S++;
    if (S >= k) {  // the one unused slot, 2^k - 1
      st_fr(a.table + idx, fr_t::one());
      return;
    }
    const uint64_t tm = r + 1 - (uint64_t(1) << S);
    fr_t sig = beta;
    const uint32_t sq = (top ? 0 : L - k) + (k - 1 - S);
    for (uint32_t i = 0; i < sq; i++) sig = sig.sqr();
    v = sig * w.pow(tm << (L - 1 - S));
  } else {
    // Middle pass (bits [k0, k0 + k1)), slot t of column j: w_M^(j bitrev(t)), M = 2^(k0 + k1),
    // times beta^(bitrev(t) 2^k2) kappa.
    r -= C.t0_len + C.t2_len;
    const uint64_t j = r >> C.k1, bt = bitrev64(r & ((uint64_t(1) << C.k1) - 1), C.k1);
    v = w.pow((j * bt) << (L - C.k0 - C.k1)) * beta.pow(bt << C.k2) * from_arg(a.kappa[inv]);
  }
  st_fr(a.table + idx, v);
}

// Pass p of a coset transform: the plain table's twiddles, but the coset table's layers for
// the bit-0 and top passes and its middle-pass table.
G16_HD pass_args make_coset_pass_args(fr_t* data, const fr_t* table, const table_layout& lay,
                                      const fr_t* coset, const coset_layout& cl, bool inverse,
                                      const pass_plan& p, const top_table& top = top_table()) {
  pass_args a = make_pass_args(data, table, lay, inverse, p, top);
  if (p.lo == 0) {
    a.lt_tw = coset + cl.t0(inverse);
  } else if (p.lo == cl.k0) {
    a.tw_pass = coset + cl.pt(inverse);
  } else {
    a.lt_tw = coset + cl.t2(inverse);
  }
  return a;
}

// ---- The H step's fused sequence (ntt_lde) ----------------------------------------------------
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

__global__ void table_init_kernel(const table_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < a.lay.total()) table_entry(a, idx);
}

__global__ void top_table_init_kernel(const top_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < (uint64_t(2) << a.M)) top_entry(a, idx);
}

__global__ void coset_table_init_kernel(const coset_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < a.lay.total()) coset_entry(a, idx);
}

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

cudaError_t dispatch_join(const fused_step& st, cudaStream_t s) {
  switch (st.p.k) {
    case 7: return launch_join<7>(st, s);
    case 8: return launch_join<8>(st, s);
    case 9: return launch_join<9>(st, s);
    case 10: return launch_join<10>(st, s);
    case 11: return launch_join<11>(st, s);
    default: return cudaErrorInvalidValue;
  }
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

cudaError_t dispatch(const pass_args& a, const pass_plan& p, bool dit, cudaStream_t s) {
  const bool tw = a.lt_tw != nullptr;
  if (dit) return tw ? dispatch_pass<true, true>(a, p, s) : dispatch_pass<true, false>(a, p, s);
  return tw ? dispatch_pass<false, true>(a, p, s) : dispatch_pass<false, false>(a, p, s);
}

cudaError_t run_passes(fr_t* data, uint32_t lg_n, bool inverse, bool dit, const fr_t* table,
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

cudaError_t run_steps(const fused_step* steps, uint32_t n, cudaStream_t s) {
  if (n == 0) return cudaErrorInvalidValue;
  for (uint32_t i = 0; i < n; i++) {
    const fused_step& st = steps[i];
    const cudaError_t e =
        st.kind == step_kind::pass ? dispatch(st.x, st.p, st.dit, s) : dispatch_join(st, s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// The coset transforms: forward DIT (bit-reversed in, natural out), inverse DIF (natural in,
// bit-reversed out), with the passes' tables taken from the coset table.
cudaError_t run_coset_passes(fr_t* data, uint32_t lg_n, bool inverse, const fr_t* table,
                             uint32_t lg_max, const fr_t* coset, const top_table& top,
                             cudaStream_t s) {
  const table_layout lay(lg_max);
  const coset_layout cl(lg_n);
  pass_plan plan[8];
  const uint32_t np = make_plan(lg_n, !inverse, plan);
  for (uint32_t i = 0; i < np; i++) {
    const pass_args a = make_coset_pass_args(data, table, lay, coset, cl, inverse, plan[i], top);
    const cudaError_t e = dispatch(a, plan[i], !inverse, s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace ntt_detail

// Table sizes: host code only, so that a build without CUDA sizes device memory the same way.
size_t ntt_table_size(uint32_t lg_max) {
  if (lg_max < 1 || lg_max > ntt_detail::kMaxLgMax) return 0;
  return size_t(ntt_detail::table_layout(lg_max).total()) * sizeof(fr_t);
}

size_t ntt_top_table_size(uint32_t lg_n) {
  const ntt_detail::top_table t(nullptr, lg_n);
  return t.K == 0 ? 0 : size_t(2 * t.len()) * sizeof(fr_t);
}

size_t ntt_coset_table_size(uint32_t lg_n) {
  const ntt_detail::coset_layout cl(lg_n);
  return cl.ok ? size_t(cl.total()) * sizeof(fr_t) : 0;
}

#if defined(__CUDACC__)

cudaError_t ntt_table_init(fr_t* table, uint32_t lg_max, const fr_t& omega, const fr_t& omega_inv,
                           cudaStream_t s) {
  using namespace ntt_detail;
  if (table == nullptr || lg_max < 1 || lg_max > kMaxLgMax) return cudaErrorInvalidValue;
  table_init_args a;
  a.table = table;
  a.lay = table_layout(lg_max);
  for (int i = 0; i < 8; i++) {
    a.omega.v[i] = omega.v[i];
    a.omega_inv.v[i] = omega_inv.v[i];
  }
  const uint64_t n = a.lay.total();
  const unsigned threads = 128;
  table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_top_table_init(fr_t* top, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                               cudaStream_t s) {
  using namespace ntt_detail;
  if (top == nullptr || table == nullptr || lg_max < 1 || lg_max > kMaxLgMax || lg_n > lg_max ||
      ntt_top_table_size(lg_n) == 0)
    return cudaErrorInvalidValue;
  top_init_args a;
  a.top = top;
  a.M = lg_n;
  a.K = top_table::top_k(lg_n);
  a.table = table;
  a.lay = table_layout(lg_max);
  const uint64_t n = uint64_t(2) << lg_n;
  const unsigned threads = 256;
  top_table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_coset_table_init(fr_t* table, uint32_t lg_n, const fr_t (&omega)[2],
                                 const fr_t (&beta)[2], const fr_t (&kappa)[2], cudaStream_t s) {
  using namespace ntt_detail;
  coset_init_args a;
  a.table = table;
  a.lay = coset_layout(lg_n);
  if (table == nullptr || !a.lay.ok) return cudaErrorInvalidValue;
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 8; i++) {
      a.omega[d].v[i] = omega[d].v[i];
      a.beta[d].v[i] = beta[d].v[i];
      a.kappa[d].v[i] = kappa[d].v[i];
    }
  const uint64_t n = a.lay.total();
  const unsigned threads = 128;
  coset_table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_coset(fr_t* data, uint32_t lg_n, bool inverse, const fr_t* table, uint32_t lg_max,
                      const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || table == nullptr || coset == nullptr || lg_max < 1 || lg_max > kMaxLgMax ||
      lg_n > lg_max || !coset_layout(lg_n).ok || (top != nullptr && top_lg > lg_max))
    return cudaErrorInvalidValue;
  return run_coset_passes(data, lg_n, inverse, table, lg_max, coset, top_table(top, top_lg), s);
}

// Whether the H step's sequences can run for these arguments.
static bool lde_args_ok(uint32_t lg_n, const fr_t* table, uint32_t lg_max, const fr_t* coset,
                        const fr_t* top, uint32_t top_lg) {
  using namespace ntt_detail;
  return table != nullptr && coset != nullptr && lg_max >= 1 && lg_max <= kMaxLgMax &&
         lg_n <= lg_max && coset_layout(lg_n).ok && (top == nullptr || top_lg <= lg_max);
}

cudaError_t ntt_lde(fr_t* data, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                    const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || !lde_args_ok(lg_n, table, lg_max, coset, top, top_lg))
    return cudaErrorInvalidValue;
  const top_table tt(top, top_lg);
  if (h_fusable(lg_n)) {
    fused_step steps[kMaxFusedSteps];
    const uint32_t n = lde_steps(data, lg_n, table, table_layout(lg_max), coset,
                                 coset_layout(lg_n), tt, steps, 0);
    return run_steps(steps, n, s);
  }
  // The separate passes: the plain inverse, then the coset transform.
  cudaError_t e = run_passes(data, lg_n, true, false, table, lg_max, tt, s);
  if (e != cudaSuccess) return e;
  return run_coset_passes(data, lg_n, false, table, lg_max, coset, tt, s);
}

cudaError_t ntt_lde_quotient(fr_t* a, const fr_t* b, fr_t* c, uint32_t lg_n, const fr_t* table,
                             uint32_t lg_max, const fr_t* coset, const fr_t* top, uint32_t top_lg,
                             cudaStream_t s) {
  using namespace ntt_detail;
  if (a == nullptr || b == nullptr || c == nullptr ||
      !lde_args_ok(lg_n, table, lg_max, coset, top, top_lg))
    return cudaErrorInvalidValue;
  const top_table tt(top, top_lg);
  cudaError_t e = ntt_lde(c, lg_n, table, lg_max, coset, top, top_lg, s);
  if (e == cudaSuccess) e = h_pointwise(a, b, c, size_t(1) << lg_n, fr_t::one(), s);
  if (e != cudaSuccess) return e;
  return run_coset_passes(a, lg_n, true, table, lg_max, coset, tt, s);
}

cudaError_t ntt(fr_t* data, uint32_t lg_n, bool inverse, bool bitrev_in, bool bitrev_out,
                const fr_t* table, uint32_t lg_max, const fr_t* top, uint32_t top_lg,
                cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || table == nullptr || lg_max < 1 || lg_max > kMaxLgMax || lg_n > lg_max ||
      lg_n > 31 || (top != nullptr && top_lg > lg_max))
    return cudaErrorInvalidValue;
  if (lg_n == 0) return cudaSuccess;  // a 1-point transform is the identity
  const top_table tt(top, top_lg);
  cudaError_t e;
  if (bitrev_in && !bitrev_out) return run_passes(data, lg_n, inverse, true, table, lg_max, tt, s);
  if (bitrev_in) {  // bit-reversed in and out: permute to natural, then DIF
    if ((e = bit_reverse(data, lg_n, s)) != cudaSuccess) return e;
    return run_passes(data, lg_n, inverse, false, table, lg_max, tt, s);
  }
  if ((e = run_passes(data, lg_n, inverse, false, table, lg_max, tt, s)) != cudaSuccess) return e;
  if (!bitrev_out) return bit_reverse(data, lg_n, s);
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace g16
