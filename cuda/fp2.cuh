// The quadratic extension Fp2 = Fp[u] / (u^2 + 1) that G2's coordinates live in, over the
// Montgomery Fp of bls12_381.cuh. Layout {c0, c1} is blst's blst_fp2, so a G2 affine point is
// byte-for-byte a blst_p2_affine.
#ifndef GROTH16_C2_FP2_CUH
#define GROTH16_C2_FP2_CUH

#include "bls12_381.cuh"

namespace g16 {

// G2 formulas expand to hundreds of Fp products; inlining all of them makes the G2 kernels take
// many minutes to compile for little speed (G2 is a small share of a proof), so device code calls
// one out-of-line Fp product instead.
#if defined(__CUDA_ARCH__)
static __device__ __noinline__ fp_t fp2_base_mul(fp_t a, fp_t b) { return a * b; }
#else
static inline fp_t fp2_base_mul(const fp_t& a, const fp_t& b) { return a * b; }
#endif

struct fp2_t {
  fp_t c0, c1;

  static G16_HD fp2_t zero() { return fp2_t{fp_t::zero(), fp_t::zero()}; }
  static G16_HD fp2_t one() { return fp2_t{fp_t::one(), fp_t::zero()}; }

  G16_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend G16_HD bool operator==(const fp2_t& a, const fp2_t& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend G16_HD bool operator!=(const fp2_t& a, const fp2_t& b) { return !(a == b); }

  friend G16_HD fp2_t operator+(const fp2_t& a, const fp2_t& b) { return fp2_t{a.c0 + b.c0, a.c1 + b.c1}; }
  friend G16_HD fp2_t operator-(const fp2_t& a, const fp2_t& b) { return fp2_t{a.c0 - b.c0, a.c1 - b.c1}; }
  G16_HD fp2_t operator-() const { return fp2_t{-c0, -c1}; }

  // Karatsuba: three Fp products instead of four.
  friend G16_HD fp2_t operator*(const fp2_t& a, const fp2_t& b) {
    const fp_t t0 = fp2_base_mul(a.c0, b.c0);
    const fp_t t1 = fp2_base_mul(a.c1, b.c1);
    const fp_t t2 = fp2_base_mul(a.c0 + a.c1, b.c0 + b.c1);
    return fp2_t{t0 - t1, t2 - t0 - t1};
  }
  static constexpr bool kCheapSquare = true;
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two products.
  G16_HD fp2_t sqr() const {
    const fp_t t = fp2_base_mul(c0, c1);
    return fp2_t{fp2_base_mul(c0 + c1, c0 - c1), t + t};
  }

  G16_HD fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
  G16_HD fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }
  G16_HD fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }
  // Two products (the curve code pairs independent ones for mont_t's interleaved mul2).
  static G16_HD void mul2(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d,
                          fp2_t& ab, fp2_t& cd) {
    const fp2_t t = a * b;
    cd = c * d;
    ab = t;
  }
  // a b + c d (mont_t fuses the two products' reductions; here two products).
  static G16_HD fp2_t mul_add2(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
    return a * b + c * d;
  }
};

static_assert(sizeof(fp2_t) == 96, "fp2_t must be blst's 96-byte blst_fp2");

}  // namespace g16

#endif
