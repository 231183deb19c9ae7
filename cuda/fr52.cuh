// Fr products on the FP64 pipe: a Montgomery product with five 52-bit limbs held in doubles,
// each limb product split exactly by two fused multiply-adds (the method of Emmart, Zheng and
// Weems, "Faster modular exponentiation using double precision floating point arithmetic on the
// GPU", ARITH 2018). GPUs with full-rate FP64 (A100, H100, H200, B200) run these next to the
// integer products of field.cuh, which are bound by the IMAD pipe; on cards with 1/64-rate
// FP64 (GeForce) this path is slow and stays unused.
//
// A limb product a * b (a, b < 2^52) is split into h = 2^104 + floor(ab / 2^52) 2^52 (one fma
// rounded toward zero onto 2^104, whose ulp is 2^52) and l = 2^52 + (ab mod 2^52) (a second fma
// against (2^104 + 2^52) - h, exact). The integers sit in the low bits of the doubles' bit
// patterns, so columns of the product are summed as 64-bit integers and the constant exponent
// bits are taken off once per column.
//
// R = 2^260 here. With a twiddle y prepared as 16 y (fr52_twiddle), mul52(x, y) of an fr_t x in
// blst's Montgomery form (R = 2^256) is x * y in that form: the tables change, the data do not.
// Values are kept below 2p, not reduced: with inputs below 2p the output is below
// (4p/R + 1) p < 1.125 p.
#ifndef GROTH16_C2_FR52_CUH
#define GROTH16_C2_FR52_CUH

#include "bls12_381.cuh"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#include <cstring>
#endif

namespace g16 {

struct fr52 {
  double l[5];  // integers in [0, 2^52): the value is sum l[i] 2^(52 i)
};

namespace fr52_detail {

constexpr int L = 5;
constexpr uint64_t kMask = (uint64_t(1) << 52) - 1;
constexpr uint64_t kBitsHi = uint64_t(1127) << 52;  // bit pattern of 2^104
constexpr uint64_t kBitsLo = uint64_t(1075) << 52;  // bit pattern of 2^52
constexpr double kTwo104 = 0x1p104;
constexpr double kTwo52 = 0x1p52;
constexpr double kSplit = 0x1p104 + 0x1p52;  // representable: its two bits are 52 apart

// Fr's modulus in 52-bit limbs, and -p^-1 mod 2^52.
G16_HD constexpr double mod(int i) {
  return i == 0   ? double(0xfffff00000001ull)
         : i == 1 ? double(0x2fffe5bfefffull)
         : i == 2 ? double(0x9a1d80553bda4ull)
         : i == 3 ? double(0x7d483339d8080ull)
                  : double(0x73eda753299dull);
}
constexpr double kNPrime = double(0xffffeffffffffull);

G16_HD uint64_t bits(double x) {
#if defined(__CUDA_ARCH__)
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
#endif
}

G16_HD double from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)u);
#else
  double x;
  memcpy(&x, &u, 8);
  return x;
#endif
}

// 2^104 + floor(ab / 2^52) 2^52 for integers a, b in [0, 2^52): the fma rounded toward zero.
// The host model computes the same double from the exact product (what rounding toward zero
// gives; the host's rounding mode is not touched).
G16_HD double split_hi(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __fma_rz(a, b, kTwo104);
#else
  const unsigned __int128 p = (unsigned __int128)(uint64_t)a * (uint64_t)b;
  return from_bits(kBitsHi + (uint64_t)(p >> 52));
#endif
}

// 2^52 + (ab mod 2^52), given h = split_hi(a, b): exact in any rounding mode.
G16_HD double split_lo(double a, double b, double h) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, __dsub_rn(kSplit, h));
#else
  return std::fma(a, b, kSplit - h);
#endif
}

// The double holding integer u < 2^52, and back.
G16_HD double to_double(uint64_t u) { return from_bits(kBitsLo | u) - kTwo52; }
G16_HD uint64_t to_int(double x) { return bits(x + kTwo52) - kBitsLo; }

// Adds a * b to the columns lo (weight 2^(52 k)) and hi (weight 2^(52 (k + 1))), offsets
// included (taken off by the columns' starting values).
G16_HD void mac(uint64_t& lo, uint64_t& hi, double a, double b) {
  const double h = split_hi(a, b);
  lo += bits(split_lo(a, b, h));
  hi += bits(h);
}

// The exponent bits the product and reduction steps add to column k, so that a column starting
// at minus this holds the plain integer sum once its terms are in.
G16_HD constexpr uint64_t column_offset(int k) {
  uint64_t off = 0;
  for (int i = 0; i < L; i++)
    for (int j = 0; j < L; j++) {
      if (i + j == k) off += kBitsLo;      // a_i b_j, low half
      if (i + j + 1 == k) off += kBitsHi;  // a_i b_j, high half
      if (j > 0 && i + j == k) off += kBitsLo;  // m_i p_j (m_i p_0's low half is never formed)
      if (i + j + 1 == k) off += kBitsHi;       // m_i p_j, high half
    }
  return off;
}

}  // namespace fr52_detail

// a * b / 2^260 mod p, below 1.125 p, for a, b below 2p.
G16_HD fr52 mul52(const fr52& a, const fr52& b) {
  using namespace fr52_detail;
  uint64_t t[2 * L];
G16_UNROLL
  for (int k = 0; k < 2 * L; k++) t[k] = uint64_t(0) - column_offset(k);
G16_UNROLL
  for (int i = 0; i < L; i++)
G16_UNROLL
    for (int j = 0; j < L; j++) mac(t[i + j], t[i + j + 1], a.l[i], b.l[j]);
  // Row i: m = t_i (-p^-1) mod 2^52 clears column i's low 52 bits; its carry moves up.
G16_UNROLL
  for (int i = 0; i < L; i++) {
    const uint64_t u = t[i] & kMask;
    const double ud = to_double(u);
    const double mh = split_hi(ud, kNPrime);
    const double md = split_lo(ud, kNPrime, mh) - kTwo52;  // u n' mod 2^52, exact
    // t_i + (m p_0 mod 2^52) is t_i rounded up to a multiple of 2^52.
    t[i + 1] += (t[i] >> 52) + (u != 0 ? 1 : 0);
    t[i + 1] += bits(split_hi(md, mod(0)));
G16_UNROLL
    for (int j = 1; j < L; j++) mac(t[i + j], t[i + j + 1], md, mod(j));
  }
  fr52 r;
  uint64_t carry = 0;
G16_UNROLL
  for (int k = 0; k < L; k++) {
    const uint64_t v = t[L + k] + carry;
    r.l[k] = to_double(v & kMask);
    carry = v >> 52;
  }
  return r;
}

// The limbs of an fr_t (any value below 2^256).
G16_HD fr52 to_fr52(const fr_t& x) {
  using namespace fr52_detail;
  uint64_t q[4];
G16_UNROLL
  for (int i = 0; i < 4; i++) q[i] = (uint64_t)x.v[2 * i] | (uint64_t)x.v[2 * i + 1] << 32;
  fr52 r;
  r.l[0] = to_double(q[0] & kMask);
  r.l[1] = to_double((q[0] >> 52 | q[1] << 12) & kMask);
  r.l[2] = to_double((q[1] >> 40 | q[2] << 24) & kMask);
  r.l[3] = to_double((q[2] >> 28 | q[3] << 36) & kMask);
  r.l[4] = to_double(q[3] >> 16);
  return r;
}

// The fr_t of a value below 2p (fully reduced).
G16_HD fr_t from_fr52(const fr52& x) {
  using namespace fr52_detail;
  uint64_t l[L];
G16_UNROLL
  for (int i = 0; i < L; i++) l[i] = to_int(x.l[i]);
  const uint64_t q[4] = {l[0] | l[1] << 52, l[1] >> 12 | l[2] << 40, l[2] >> 24 | l[3] << 28,
                         l[3] >> 36 | l[4] << 16};
  fr_t r;
G16_UNROLL
  for (int i = 0; i < 4; i++) {
    r.v[2 * i] = (uint32_t)q[i];
    r.v[2 * i + 1] = (uint32_t)(q[i] >> 32);
  }
  fr_t::reduce_once(r.v);
  return r;
}

// A multiplier for mul52: 16 y, so that from_fr52(mul52(to_fr52(x), fr52_twiddle(y))) == x * y
// in blst's Montgomery form.
G16_HD fr52 fr52_twiddle(const fr_t& y) {
  fr_t y16 = y + y;
  y16 = y16 + y16;
  y16 = y16 + y16;
  y16 = y16 + y16;
  return to_fr52(y16);
}

}  // namespace g16

#endif
