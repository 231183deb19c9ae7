// The H step's coset transforms, their scaling folded into the passes: the coset table and
// the passes that read it.
#ifndef GROTH16_C2_NTT_COSET_CUH
#define GROTH16_C2_NTT_COSET_CUH

#include "ntt_pass.cuh"

namespace g16 {
namespace ntt_detail {

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

#if defined(__CUDACC__)

__global__ void coset_table_init_kernel(const coset_init_args a) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < a.lay.total()) coset_entry(a, idx);
}

// The coset transforms: forward DIT (bit-reversed in, natural out), inverse DIF (natural in,
// bit-reversed out), with the passes' tables taken from the coset table.
inline cudaError_t run_coset_passes(fr_t* data, uint32_t lg_n, bool inverse, const fr_t* table,
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
}  // namespace g16

#endif
