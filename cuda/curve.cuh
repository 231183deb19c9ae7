// Points of BLS12-381's G1 (over Fp) and G2 (over Fp2): y^2 = x^3 + b, a = 0. One template over
// the coordinate field F serves both.
//
// Inputs are affine points in blst's memory layout ({x, y}, Montgomery coordinates) with the
// identity written as (0, 0) (no curve point has x = y = 0, since b != 0). Sums accumulate in
// XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2): a mixed addition costs 8M + 2S and needs
// no inversion. Every formula handles the identity, doubling (P + P) and P + (-P) explicitly,
// so the results are exact group elements whatever the input (repeated points included).
// Formulas: Bernstein-Lange's Explicit-Formulas Database, "xyzz" for short Weierstrass curves
// with a = 0 (madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1).
#ifndef GROTH16_C2_CURVE_CUH
#define GROTH16_C2_CURVE_CUH

#include "fp2.cuh"

namespace g16 {

template <class F>
G16_HD F twice(const F& a) { return a + a; }

template <class F>
G16_HD F square(const F& a) { return a.sqr(); }

template <class F>
struct affine_t {
  F x, y;
  G16_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  G16_HD affine_t neg() const { return affine_t{x, -y}; }
};

template <class F>
struct xyzz_t {
  F X, Y, ZZ, ZZZ;

  static G16_HD xyzz_t inf() { return xyzz_t{F::zero(), F::zero(), F::zero(), F::zero()}; }
  G16_HD bool is_inf() const { return ZZ.is_zero(); }

  static G16_HD xyzz_t from_affine(const affine_t<F>& p) {
    if (p.is_inf()) return inf();
    return xyzz_t{p.x, p.y, F::one(), F::one()};
  }

  // 2 * (x, y) for an affine point (mdbl-2008-s-1).
  static G16_HD xyzz_t dbl_affine(const F& x, const F& y) {
    const F u = twice(y);
    const F v = square(u);
    const F w = u * v;
    const F s = x * v;
    const F x2 = square(x);
    const F m = twice(x2) + x2;
    xyzz_t r;
    r.X = square(m) - twice(s);
    r.Y = F::mul_add2(m, s - r.X, w, -y);
    r.ZZ = v;
    r.ZZZ = w;
    return r;
  }

  // this = 2 * this (dbl-2008-s-1).
  G16_HD void dbl() {
    if (is_inf()) return;
    const F u = twice(Y);
    const F v = square(u);
    const F w = u * v;
    const F s = X * v;
    const F x2 = square(X);
    const F m = twice(x2) + x2;
    X = square(m) - twice(s);
    Y = F::mul_add2(m, s - X, w, -Y);
    ZZ = ZZ * v;
    ZZZ = ZZZ * w;
  }

  // a^2 and b^2: two squarings where the field has a cheaper one (mont_t's even/odd squaring,
  // fp2_t's two products), else a product pair (rows interleaved).
  static G16_HD void squares(const F& a, const F& b, F& aa, F& bb) {
    if constexpr (F::kCheapSquare) {
      aa = a.sqr();
      bb = b.sqr();
    } else {
      F::mul2(a, a, b, b, aa, bb);
    }
  }

  // this += (x, y) for an affine point that is not the identity (madd-2008-s). The MSM's slice
  // kernel spends 85% of its cycles on the IMAD pipe (Nsight Compute, H200), nearly all of it
  // in these products: Y3's two products share one reduction (F::mul_add2), and the
  // independent ones go in pairs through F::mul2 (rows interleaved, for the latency).
  G16_HD void add_affine_nonzero(const F& x, const F& y) {
    if (is_inf()) {
      X = x; Y = y; ZZ = F::one(); ZZZ = F::one();
      return;
    }
    F u2, s2;
    F::mul2(x, ZZ, y, ZZZ, u2, s2);
    const F p = u2 - X;  // U2 - X1
    const F r = s2 - Y;  // S2 - Y1
    if (p.is_zero()) {
      if (r.is_zero()) *this = dbl_affine(x, y);
      else *this = inf();
      return;
    }
    F pp, rr;
    squares(p, r, pp, rr);
    F ppp, q;
    F::mul2(p, pp, X, pp, ppp, q);
    const F x3 = rr - (ppp + (q + q));
    F zz, zzz;
    F::mul2(ZZ, pp, ZZZ, ppp, zz, zzz);
    Y = F::mul_add2(r, q - x3, Y, -ppp);  // R (Q - X3) - Y1 PPP, one reduction
    X = x3;
    ZZ = zz;
    ZZZ = zzz;
  }

  // this += p, or this -= p when `negate`.
  G16_HD void add_affine(const affine_t<F>& p, bool negate = false) {
    if (p.is_inf()) return;
    add_affine_nonzero(p.x, negate ? -p.y : p.y);
  }

  // this += q for another accumulator (add-2008-s).
  G16_HD void add(const xyzz_t& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F u1, s1, u2, s2;
    F::mul2(X, q.ZZ, Y, q.ZZZ, u1, s1);
    F::mul2(q.X, ZZ, q.Y, ZZZ, u2, s2);
    const F p = u2 - u1;  // U2 - U1
    const F r = s2 - s1;  // S2 - S1
    if (p.is_zero()) {
      if (r.is_zero()) dbl();
      else *this = inf();
      return;
    }
    F pp, rr, ppp, qq, zz, zzz;
    squares(p, r, pp, rr);
    F::mul2(p, pp, u1, pp, ppp, qq);
    F::mul2(ZZ, q.ZZ, ZZZ, q.ZZZ, zz, zzz);
    const F x3 = rr - (ppp + twice(qq));
    Y = F::mul_add2(r, qq - x3, s1, -ppp);
    X = x3;
    F::mul2(zz, pp, zzz, ppp, ZZ, ZZZ);
  }

  G16_HD xyzz_t neg() const { return xyzz_t{X, -Y, ZZ, ZZZ}; }

  // this = k * this for a small multiplier (double-and-add, most significant bit first).
  G16_HD void mul_small(uint32_t k) {
    const xyzz_t base = *this;
    *this = inf();
    for (int i = 31; i >= 0; i--) {
      dbl();
      if ((k >> i) & 1) add(base);
    }
  }
};

typedef affine_t<fp_t> g1_affine_t;
typedef affine_t<fp2_t> g2_affine_t;
typedef xyzz_t<fp_t> g1_xyzz_t;
typedef xyzz_t<fp2_t> g2_xyzz_t;

static_assert(sizeof(g1_affine_t) == 96, "G1 affine points must be blst's 96-byte layout");
static_assert(sizeof(g2_affine_t) == 192, "G2 affine points must be blst's 192-byte layout");

#if defined(__CUDACC__)
// Loads through the read-only cache as 16-byte vectors (points are 16-byte aligned: 96 and 192
// are multiples of 16 and cudaMalloc aligns to 256).
template <class T>
__device__ __forceinline__ T ldg_vec(const T* p) {
  static_assert(sizeof(T) % 16 == 0, "vector loads need a multiple of 16 bytes");
  T r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 16); i++) d[i] = __ldg(q + i);
  return r;
}
template <class T>
__device__ __forceinline__ T ld_vec(const T* p) {
  T r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 16); i++) d[i] = q[i];
  return r;
}
template <class T>
__device__ __forceinline__ void st_vec(T* p, const T& x) {
  uint4* q = reinterpret_cast<uint4*>(p);
  const uint4* s = reinterpret_cast<const uint4*>(&x);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 16); i++) q[i] = s[i];
}
#endif

}  // namespace g16

#endif
