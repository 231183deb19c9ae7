// Montgomery products on the FP64 pipe, for Fr (five 52-bit limbs, R = 2^260) and Fp (eight,
// R = 2^416): limbs held in doubles, each limb product split exactly by two fused multiply-adds
// (the method of Emmart, Zheng and Weems, "Faster modular exponentiation using double precision
// floating point arithmetic on the GPU", ARITH 2018). GPUs with full-rate FP64 (A100, H100,
// H200, B200) run these next to the integer products of field.cuh, which are bound by the IMAD
// pipe; on cards with 1/64-rate FP64 (GeForce) this path is slow and stays unused.
//
// A limb product a * b (a, b < 2^52) is split into h = 2^104 + floor(ab / 2^52) 2^52 (one fma
// rounded toward zero onto 2^104, whose ulp is 2^52) and l = 2^52 + (ab mod 2^52) (a second fma
// against (2^104 + 2^52) - h, exact). The integers sit in the low bits of the doubles' bit
// patterns, so columns of the product are summed as 64-bit integers and the constant exponent
// bits are taken off once per column (in its starting value).
//
// The field elements elsewhere are blst's Montgomery forms (R = 2^(32 N)). prepare(y) (y times
// 2^(52 L - 32 N)) makes mul52(to_m52(x), prepare(y)) the Montgomery product x * y of those
// forms: tables change, the data do not. Values are kept below 2p, not reduced: with inputs
// below 2p the output is below (4p / 2^(52 L) + 1) p < 1.125 p.
#ifndef GROTH16_C2_MONT52_CUH
#define GROTH16_C2_MONT52_CUH

#include "bls12_381.cuh"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#include <cstring>
#endif

namespace g16 {

// Fr: p in 52-bit limbs, -p^-1 mod 2^52, and 16 R mod p (blst's Montgomery form of 16).
struct fr52_params {
  typedef fr_t field;
  static constexpr int L = 5;
  static G16_HD constexpr uint64_t mod(int i) {
    return i == 0 ? 0xfffff00000001ull : i == 1 ? 0x2fffe5bfefffull : i == 2 ? 0x9a1d80553bda4ull
           : i == 3 ? 0x7d483339d8080ull : 0x73eda753299dull;
  }
  static constexpr uint64_t kNPrime = 0xffffeffffffffull;
  static G16_HD constexpr uint32_t scale(int i) {
    G16_LIMB(i, 0xffffffdd, 0x00000022, 0x00396c23, 0x8d129397, 0xaedf7745, 0xff1776e6,
               0x4f77df20, 0x26821fa1);
  }
};

// Fp: the same for eight limbs, and 2^32 R mod p.
struct fp52_params {
  typedef fp_t field;
  static constexpr int L = 8;
  static G16_HD constexpr uint64_t mod(int i) {
    return i == 0 ? 0xeffffffffaaabull : i == 1 ? 0xfeb153ffffb9full : i == 2 ? 0x6b0f6241eabffull
           : i == 3 ? 0x12bf6730d2a0full : i == 4 ? 0x764774b84f385ull : i == 5 ? 0x1ba7b6434bacdull
           : i == 6 ? 0x1ea397fe69a4bull : 0x1a011ull;
  }
  static constexpr uint64_t kNPrime = 0x3fffcfffcfffdull;
  static G16_HD constexpr uint32_t scale(int i) {
    G16_LIMB(i, 0xa8e9b9af, 0x44f6480e, 0x766c8fe4, 0xa96f7d65, 0x28b540fe, 0xe82efd42,
               0xade53b2e, 0x6723e5f0, 0xfdd4230a, 0x25ff6eb6, 0xef23c24a, 0x14c8ee06);
  }
};

template <class P>
struct m52 {
  static constexpr int L = P::L;
  double l[L];  // integers in [0, 2^52): the value is sum l[i] 2^(52 i)
};
typedef m52<fr52_params> fr52;
typedef m52<fp52_params> fp52;

namespace m52_detail {

constexpr uint64_t kMask = (uint64_t(1) << 52) - 1;
constexpr uint64_t kBitsHi = uint64_t(1127) << 52;  // bit pattern of 2^104
constexpr uint64_t kBitsLo = uint64_t(1075) << 52;  // bit pattern of 2^52
constexpr double kTwo104 = 0x1p104;
constexpr double kTwo52 = 0x1p52;
constexpr double kSplit = 0x1p104 + 0x1p52;  // representable: its two bits are 52 apart

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
G16_HD constexpr uint64_t column_offset(int L, int k) {
  uint64_t off = 0;
  for (int i = 0; i < L; i++)
    for (int j = 0; j < L; j++) {
      if (i + j == k) off += kBitsLo;           // a_i b_j, low half
      if (i + j + 1 == k) off += kBitsHi;       // a_i b_j, high half
      if (j > 0 && i + j == k) off += kBitsLo;  // m_i p_j (m_i p_0's low half is never formed)
      if (i + j + 1 == k) off += kBitsHi;       // m_i p_j, high half
    }
  return off;
}

}  // namespace m52_detail

// a * b / 2^(52 L) mod p, below 1.125 p, for a, b below 2p.
template <class P>
G16_HD m52<P> mul52(const m52<P>& a, const m52<P>& b) {
  using namespace m52_detail;
  constexpr int L = P::L;
  uint64_t t[2 * L];
G16_UNROLL
  for (int k = 0; k < 2 * L; k++) t[k] = uint64_t(0) - column_offset(L, k);
G16_UNROLL
  for (int i = 0; i < L; i++)
G16_UNROLL
    for (int j = 0; j < L; j++) mac(t[i + j], t[i + j + 1], a.l[i], b.l[j]);
  // Row i: m = t_i (-p^-1) mod 2^52 clears column i's low 52 bits; its carry moves up.
G16_UNROLL
  for (int i = 0; i < L; i++) {
    const uint64_t u = t[i] & kMask;
    const double ud = to_double(u);
    const double np = double(P::kNPrime);
    const double md = split_lo(ud, np, split_hi(ud, np)) - kTwo52;  // u n' mod 2^52, exact
    // t_i + (m p_0 mod 2^52) is t_i rounded up to a multiple of 2^52.
    t[i + 1] += (t[i] >> 52) + (u != 0 ? 1 : 0);
    t[i + 1] += bits(split_hi(md, double(P::mod(0))));
G16_UNROLL
    for (int j = 1; j < L; j++) mac(t[i + j], t[i + j + 1], md, double(P::mod(j)));
  }
  m52<P> r;
  uint64_t carry = 0;
G16_UNROLL
  for (int k = 0; k < L; k++) {
    const uint64_t v = t[L + k] + carry;
    r.l[k] = to_double(v & kMask);
    carry = v >> 52;
  }
  return r;
}

// The limbs of x 2^Shift for a field element's words x (any value below 2^(32 N)): limb i
// starts at bit 52 i - Shift of x.
template <class P, int Shift>
G16_HD m52<P> limbs_of(const typename P::field& x) {
  using namespace m52_detail;
  constexpr int N = P::field::N;
  static_assert(Shift >= 0 && Shift <= 32, "the shift must fall within the first word");
  m52<P> r;
G16_UNROLL
  for (int i = 0; i < P::L; i++) {
    const int start = 52 * i - Shift;
    uint64_t v;
    if (start < 0) {
      v = ((uint64_t)x.v[0] | ((uint64_t)x.v[1] << 32)) << -start;
    } else {
      const int w = start / 32, s = start % 32;  // bit `start` is bit s of word w
      v = (uint64_t)x.v[w] >> s;
      if (w + 1 < N) v |= (uint64_t)x.v[w + 1] << (32 - s);
      if (w + 2 < N && s > 12) v |= (uint64_t)x.v[w + 2] << (64 - s);
    }
    r.l[i] = to_double(v & kMask);
  }
  return r;
}

// The limbs of a field element's words (any value below 2^(32 N)).
template <class P>
G16_HD m52<P> to_m52(const typename P::field& x) {
  return limbs_of<P, 0>(x);
}

// The field element of a value below 2p (fully reduced).
template <class P>
G16_HD typename P::field from_m52(const m52<P>& x) {
  using namespace m52_detail;
  typedef typename P::field F;
  uint64_t l[P::L];
G16_UNROLL
  for (int i = 0; i < P::L; i++) l[i] = to_int(x.l[i]);
  F r;
G16_UNROLL
  for (int j = 0; j < F::N; j++) {
    const int i = 32 * j / 52, s = 32 * j % 52;  // bit 32 j is bit s of limb i
    uint64_t v = l[i] >> s;
    if (i + 1 < P::L && s > 20) v |= l[i + 1] << (52 - s);
    r.v[j] = (uint32_t)v;
  }
  F::reduce_once(r.v);
  return r;
}

// A multiplier for mul52: y 2^(52 L - 32 N), so that from_m52(mul52(to_m52(x), prepare(y))) is
// x * y in blst's Montgomery form.
template <class P>
G16_HD m52<P> prepare52(const typename P::field& y) {
  typename P::field s;
G16_UNROLL
  for (int i = 0; i < P::field::N; i++) s.v[i] = P::scale(i);
  return to_m52<P>(y * s);
}

// The limbs of x 2^(52 L - 32 N) (x below 2^(32 N)): x's words shifted, no product. As mul52's
// second operand it gives blst's Montgomery product of the first and x, as prepare52(x) does,
// with nothing to prepare. With the first operand below 2p and x below 2p the output is below
// (4p / 2^(32 N) + 1) p: 1.4p for Fp; for Fr (4p / 2^256 = 1.8) x must be below p (then the
// output is below 1.9p).
template <class P>
G16_HD m52<P> to_m52_scaled(const typename P::field& x) {
  return limbs_of<P, 52 * P::L - 32 * P::field::N>(x);
}

// a * b in blst's Montgomery form, on the FP64 pipe (conversions in and out included), for a,
// b below p.
template <class P>
G16_HD typename P::field mul_f64(const typename P::field& a, const typename P::field& b) {
  return from_m52<P>(mul52(to_m52<P>(a), to_m52_scaled<P>(b)));
}

// Fr's names, as the NTT uses them.
G16_HD fr52 to_fr52(const fr_t& x) { return to_m52<fr52_params>(x); }
G16_HD fr_t from_fr52(const fr52& x) { return from_m52<fr52_params>(x); }
G16_HD fr52 fr52_twiddle(const fr_t& y) { return prepare52<fr52_params>(y); }

}  // namespace g16

#endif
