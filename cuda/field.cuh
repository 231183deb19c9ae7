// Montgomery arithmetic over a prime field held in N little-endian 32-bit limbs, with R = 2^(32N).
// One template serves Fr and Fp; the constants come from a parameter struct (bls12_381.cuh).
// Device code uses PTX carry chains; the same operations also compile for the host (portable
// 64-bit arithmetic), which the launcher uses for a few per-call constants and which lets the
// kernels' index logic be checked on a machine without a GPU.
//
// Requirements on the modulus: odd, and below 2^(32N-1) (both BLS12-381 fields have spare top
// bits), so a + b never carries out of N limbs and the CIOS accumulator fits N + 1 limbs.
// Every operation takes fully reduced inputs and returns fully reduced outputs, so values are
// bit-identical to blst's.
#ifndef GROTH16_C2_FIELD_CUH
#define GROTH16_C2_FIELD_CUH

#include <stdint.h>

#if defined(__CUDACC__)
#define G16_HD __host__ __device__ __forceinline__
#else
#define G16_HD inline
#endif

// Full unrolling in device code; host compilers (nvcc's host pass included) see nothing, so
// -Wall stays quiet about an unknown pragma.
#if defined(__CUDA_ARCH__)
#define G16_UNROLL _Pragma("unroll")
#else
#define G16_UNROLL
#endif

namespace g16 {

// The device code (and its host model, G16_EMULATE_PTX) works on PTX carry chains; the host
// on portable 64-bit arithmetic.
#if defined(__CUDA_ARCH__) || defined(G16_EMULATE_PTX)
#define G16_CARRY_CHAINS 1
#endif

#if defined(__CUDACC__)
// A zero the compiler cannot fold (constant memory may change between launches): see
// mont_t::reduction_multiplier. One copy per translation unit.
static __constant__ uint32_t kOpaqueZero = 0;
#endif

#if defined(__CUDA_ARCH__)
// One PTX instruction each. `volatile` keeps NVVM from reordering them: the carry flag they
// share is invisible to it (ptxas does see it and schedules correctly).
namespace ptx {
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
  uint32_t r; asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r; asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r; asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
// (hi:lo) << 1, high word.
__device__ __forceinline__ uint32_t shl1_funnel(uint32_t lo, uint32_t hi) { return __funnelshift_l(lo, hi, 1); }
}  // namespace ptx
#elif defined(G16_EMULATE_PTX)
// Host model of the same instructions (carry flag in a global), so that the device code path
// of every operation can be checked against a reference on a machine without a GPU.
namespace ptx {
inline uint32_t& cf() { static thread_local uint32_t c = 0; return c; }
inline uint32_t add_cc(uint32_t a, uint32_t b) { uint64_t s = (uint64_t)a + b; cf() = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { uint64_t s = (uint64_t)a + b + cf(); cf() = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t addc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a + b + cf()); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { uint64_t d = (uint64_t)a - b; cf() = (uint32_t)(d >> 63); return (uint32_t)d; }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { uint64_t d = (uint64_t)a - b - cf(); cf() = (uint32_t)(d >> 63); return (uint32_t)d; }
inline uint32_t subc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a - b - cf()); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(a * b, c); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(a * b, c); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc((uint32_t)(((uint64_t)a * b) >> 32), c); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c); }
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return addc((uint32_t)(((uint64_t)a * b) >> 32), c); }
inline uint32_t mul_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
inline uint32_t shl1_funnel(uint32_t lo, uint32_t hi) { return (hi << 1) | (lo >> 31); }
}  // namespace ptx
#endif

// P provides: static constexpr int N; static constexpr uint32_t M0 (= -p^-1 mod 2^32);
// static G16_HD uint32_t mod(int i), rr(int i) (R^2 mod p), one(int i) (R mod p),
// pm2(int i) (p - 2, the inversion exponent). Called with compile-time indices only.
template <class P>
struct mont_t {
  static constexpr int N = P::N;
  uint32_t v[N];

  static G16_HD mont_t zero() {
    mont_t r;
G16_UNROLL
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }
  static G16_HD mont_t one() {
    mont_t r;
G16_UNROLL
    for (int i = 0; i < N; i++) r.v[i] = P::one(i);
    return r;
  }

  G16_HD bool is_zero() const {
    uint32_t acc = 0;
G16_UNROLL
    for (int i = 0; i < N; i++) acc |= v[i];
    return acc == 0;
  }
  friend G16_HD bool operator==(const mont_t& a, const mont_t& b) {
    uint32_t acc = 0;
G16_UNROLL
    for (int i = 0; i < N; i++) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  friend G16_HD bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }
  // r = x - p if x >= p, else x. x < 2p, and 2p fits N limbs.
  static G16_HD void reduce_once(uint32_t x[N]) {
    uint32_t t[N];
    uint32_t borrow;
#if defined(G16_CARRY_CHAINS)
    t[0] = ptx::sub_cc(x[0], P::mod(0));
G16_UNROLL
    for (int i = 1; i < N; i++) t[i] = ptx::subc_cc(x[i], P::mod(i));
    borrow = ptx::subc(0, 0);  // 0xffffffff when x < p
#else
    uint64_t b = 0;
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)x[i] - P::mod(i) - b;
      t[i] = (uint32_t)d;
      b = (d >> 32) & 1;
    }
    borrow = b ? 0xffffffffu : 0u;
#endif
G16_UNROLL
    for (int i = 0; i < N; i++) x[i] = borrow ? x[i] : t[i];
  }

  friend G16_HD mont_t operator+(const mont_t& a, const mont_t& b) {
    mont_t r;
#if defined(G16_CARRY_CHAINS)
    r.v[0] = ptx::add_cc(a.v[0], b.v[0]);
G16_UNROLL
    for (int i = 1; i < N; i++) r.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
#else
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
      uint64_t s = (uint64_t)a.v[i] + b.v[i] + c;
      r.v[i] = (uint32_t)s;
      c = s >> 32;
    }
#endif
    reduce_once(r.v);
    return r;
  }
  friend G16_HD mont_t operator-(const mont_t& a, const mont_t& b) {
    mont_t r;
    uint32_t mask;
#if defined(G16_CARRY_CHAINS)
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
G16_UNROLL
    for (int i = 1; i < N; i++) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    mask = ptx::subc(0, 0);
    r.v[0] = ptx::add_cc(r.v[0], P::mod(0) & mask);
G16_UNROLL
    for (int i = 1; i < N - 1; i++) r.v[i] = ptx::addc_cc(r.v[i], P::mod(i) & mask);
    r.v[N - 1] = ptx::addc(r.v[N - 1], P::mod(N - 1) & mask);
#else
    uint64_t br = 0;
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a.v[i] - b.v[i] - br;
      r.v[i] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    mask = br ? 0xffffffffu : 0u;
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
      uint64_t s = (uint64_t)r.v[i] + (P::mod(i) & mask) + c;
      r.v[i] = (uint32_t)s;
      c = s >> 32;
    }
#endif
    return r;
  }

  G16_HD mont_t operator-() const {
    // p - a, except that -0 = 0.
    mont_t r;
    uint32_t nz = is_zero() ? 0u : 0xffffffffu;
#if defined(G16_CARRY_CHAINS)
    r.v[0] = ptx::sub_cc(P::mod(0) & nz, v[0]);
G16_UNROLL
    for (int i = 1; i < N - 1; i++) r.v[i] = ptx::subc_cc(P::mod(i) & nz, v[i]);
    r.v[N - 1] = ptx::subc(P::mod(N - 1) & nz, v[N - 1]);
#else
    uint64_t b = 0;
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)(P::mod(i) & nz) - v[i] - b;
      r.v[i] = (uint32_t)d;
      b = (d >> 32) & 1;
    }
#endif
    return r;
  }

  // The multiplier m = x (-1/p) mod 2^32 of a reduction row. Fr's M0 is 2^32 - 1, so m = -x;
  // knowing that, ptxas splits every m p limb pair into IMAD.X + IMAD.HI.U32.X (6 IMAD-pipe
  // cycles) instead of one IMAD.WIDE.U32.X (4). Subtracting x from a zero it cannot see (a
  // __constant__) hides it: the Fr product's IMAD cycles fall from 560 to 464 (sm_90 SASS).
  static G16_HD uint32_t reduction_multiplier(uint32_t x) {
    if constexpr (P::M0 == 0xffffffffu) {
#if defined(__CUDA_ARCH__)
      return kOpaqueZero - x;
#else
      return 0u - x;
#endif
    } else {
      return x * P::M0;
    }
  }

#if defined(G16_CARRY_CHAINS)
  // Montgomery product a * b / R mod p (CIOS) with the accumulator T held in two halves,
  // T = lo + 2^32 * hi: `lo` takes the products of the even limbs of a (and of p), `hi` those of
  // the odd limbs, so every row is two carry chains that do not depend on each other (the GPU
  // interleaves them) instead of one chain twice as long. The 64-bit products of one half never
  // overlap, so each adds in one chain of N fused multiply-adds. After a row's reduction lo[0]
  // is 0; dividing by 2^32 swaps the halves' roles: the old hi becomes the next row's lo (plus
  // lo[1], added with the first instruction of the row), the old lo shifted by two limbs the
  // next row's hi. T < a + p < 2p < 2^(32N) after every row, so neither half overflows N limbs.
  //
  // Row i's even half `e` (weights 0..N-1) and odd half `o` (weights 1..N). For row 0 both are
  // empty; otherwise `e` is the previous odd half and `o` the previous even half, whose limbs
  // 2.. move down two places here.
  //
  // Fr's lowest limbs are 1 and 2^32 - 1 (and -1/p mod 2^32 = 2^32 - 1), so two of each
  // reduction row's 2N multiply-adds with m become additions (on the H200 the Fr product ran
  // at 49.3 against 46.2-48.6 G/s, and a 2^27 NTT took 0.95x the time).
  static constexpr bool kLowLimbsOneMinusOne =
      P::mod(0) == 1u && P::mod(1) == 0xffffffffu && P::M0 == 0xffffffffu;
  // Both words of x y added to (zh:zl), low word first, as one multiply-add pair: (rl, rh).
  // pmad starts a carry chain, pmadc continues one, pmadc_end ends one. On the device the two
  // instructions go in one asm statement: ptxas then emits one IMAD.WIDE.U32.X (4 cycles of
  // the IMAD pipe), where from two statements it often emits IMAD.X + IMAD.HI.X (6 cycles) or
  // a product and separate additions (the NTT's Fr products: half their pairs).
#if defined(__CUDA_ARCH__)
  static __device__ __forceinline__ void pmad(uint32_t x, uint32_t y, uint32_t zl, uint32_t zh,
                                              uint32_t& rl, uint32_t& rh) {
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.cc.u32 %1, %2, %3, %5;"
                 : "=&r"(rl), "=r"(rh) : "r"(x), "r"(y), "r"(zl), "r"(zh));
  }
  static __device__ __forceinline__ void pmadc(uint32_t x, uint32_t y, uint32_t zl, uint32_t zh,
                                               uint32_t& rl, uint32_t& rh) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.cc.u32 %1, %2, %3, %5;"
                 : "=&r"(rl), "=r"(rh) : "r"(x), "r"(y), "r"(zl), "r"(zh));
  }
  static __device__ __forceinline__ void pmadc_end(uint32_t x, uint32_t y, uint32_t zl,
                                                   uint32_t zh, uint32_t& rl, uint32_t& rh) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.u32 %1, %2, %3, %5;"
                 : "=&r"(rl), "=r"(rh) : "r"(x), "r"(y), "r"(zl), "r"(zh));
  }
#else
  static G16_HD void pmad(uint32_t x, uint32_t y, uint32_t zl, uint32_t zh, uint32_t& rl,
                          uint32_t& rh) {
    const uint32_t l = ptx::mad_lo_cc(x, y, zl);
    rh = ptx::madc_hi_cc(x, y, zh);
    rl = l;
  }
  static G16_HD void pmadc(uint32_t x, uint32_t y, uint32_t zl, uint32_t zh, uint32_t& rl,
                           uint32_t& rh) {
    const uint32_t l = ptx::madc_lo_cc(x, y, zl);
    rh = ptx::madc_hi_cc(x, y, zh);
    rl = l;
  }
  static G16_HD void pmadc_end(uint32_t x, uint32_t y, uint32_t zl, uint32_t zh, uint32_t& rl,
                               uint32_t& rh) {
    const uint32_t l = ptx::madc_lo_cc(x, y, zl);
    rh = ptx::madc_hi(x, y, zh);
    rl = l;
  }
#endif

  static G16_HD void mul_row(uint32_t e[N], uint32_t o[N], const mont_t& a, uint32_t bi,
                             bool first) {
    product_row(e, o, a, bi, first);
    reduce_row(e, o);
  }
  // T += a * bi, after T /= 2^32 unless `first` (then T = a * bi).
  static G16_HD void product_row(uint32_t e[N], uint32_t o[N], const mont_t& a, uint32_t bi,
                                 bool first) {
    if (first) {
G16_UNROLL
      for (int j = 0; j < N; j += 2) {
        e[j] = a.v[j] * bi;
        e[j + 1] = ptx::mul_hi(a.v[j], bi);
        o[j] = a.v[j + 1] * bi;
        o[j + 1] = ptx::mul_hi(a.v[j + 1], bi);
      }
    } else {
      // e[0] += o[1] (the previous even half's limb 1, now weight 0); its carry, of weight 1,
      // goes into the odd chain, whose limb 0 has weight 1.
      e[0] = ptx::add_cc(e[0], o[1]);
G16_UNROLL
      for (int j = 0; j < N - 2; j += 2) {
        pmadc(a.v[j + 1], bi, o[j + 2], o[j + 3], o[j], o[j + 1]);
      }
      pmadc_end(a.v[N - 1], bi, 0, 0, o[N - 2], o[N - 1]);
      pmad(a.v[0], bi, e[0], e[1], e[0], e[1]);
G16_UNROLL
      for (int j = 2; j < N; j += 2) {
        pmadc(a.v[j], bi, e[j], e[j + 1], e[j], e[j + 1]);
      }
      o[N - 1] = ptx::addc(o[N - 1], 0);  // the even chain's carry, weight N
    }
  }
  // T += c * di, no shift (the second product of mul_add2's rows).
  static G16_HD void accumulate_row(uint32_t e[N], uint32_t o[N], const mont_t& c, uint32_t di) {
    pmad(c.v[1], di, o[0], o[1], o[0], o[1]);
G16_UNROLL
    for (int j = 2; j < N - 2; j += 2) {
      pmadc(c.v[j + 1], di, o[j], o[j + 1], o[j], o[j + 1]);
    }
    // T < 2^(32 (N + 1)): no carry beyond weight N.
    pmadc_end(c.v[N - 1], di, o[N - 2], o[N - 1], o[N - 2], o[N - 1]);
    pmad(c.v[0], di, e[0], e[1], e[0], e[1]);
G16_UNROLL
    for (int j = 2; j < N; j += 2) {
      pmadc(c.v[j], di, e[j], e[j + 1], e[j], e[j + 1]);
    }
    o[N - 1] = ptx::addc(o[N - 1], 0);  // the even chain's carry, weight N
  }
  // The even half of a reduction row: e += m p's even-limb products (e[0] becomes 0), then the
  // chain's carry (weight N) into o[N - 1]. For Fr (kLowLimbsOneMinusOne) m p_0 = m = -e0 is an
  // addition.
  static G16_HD void reduce_even_half(uint32_t e[N], uint32_t o[N], uint32_t m) {
    if constexpr (kLowLimbsOneMinusOne) {
      e[0] = ptx::add_cc(e[0], m);  // 0, with a carry unless e0 was 0
      e[1] = ptx::addc_cc(e[1], 0);
    } else {
      pmad(m, P::mod(0), e[0], e[1], e[0], e[1]);
    }
G16_UNROLL
    for (int j = 2; j < N; j += 2) {
      pmadc(m, P::mod(j), e[j], e[j + 1], e[j], e[j + 1]);
    }
    o[N - 1] = ptx::addc(o[N - 1], 0);
  }
  // T += m p with m making T's limb 0 (e[0]) vanish.
  static G16_HD void reduce_row(uint32_t e[N], uint32_t o[N]) {
    if constexpr (kLowLimbsOneMinusOne) {
      // p = ... + (2^32 - 1) W + 1 and M0 = -1 (Fr): m = -e0, and m p's two lowest limb
      // products need no multiplier. m * 1 = m; m (2^32 - 1) = m W - m has low word -m = e0
      // and high word m - 1 (0 when m = 0, else ~e0).
      const uint32_t e0 = e[0];
      const uint32_t m = reduction_multiplier(e0);  // -e0
      const uint32_t m_hi = e0 != 0 ? ~e0 : 0u;
      o[0] = ptx::add_cc(o[0], e0);
      o[1] = ptx::addc_cc(o[1], m_hi);
G16_UNROLL
      for (int j = 2; j < N; j += 2) {
        pmadc(m, P::mod(j + 1), o[j], o[j + 1], o[j], o[j + 1]);
      }
      reduce_even_half(e, o, m);
      return;
    }
    const uint32_t m = reduction_multiplier(e[0]);
    pmad(m, P::mod(1), o[0], o[1], o[0], o[1]);
G16_UNROLL
    for (int j = 2; j < N; j += 2) {
      pmadc(m, P::mod(j + 1), o[j], o[j + 1], o[j], o[j + 1]);
    }
    reduce_even_half(e, o, m);
  }

  friend G16_HD mont_t operator*(const mont_t& a, const mont_t& b) {
    static_assert(N % 2 == 0, "the even/odd split needs an even limb count");
    uint32_t x[N], y[N];
    // Rows alternate which array holds the even half.
G16_UNROLL
    for (int i = 0; i < N; i += 2) {
      mul_row(x, y, a, b.v[i], i == 0);
      mul_row(y, x, a, b.v[i + 1], false);
    }
    return mul_finish(x, y);
  }
  // T = y + 2^32 * x with y[0] = 0: the result is x + y / 2^32.
  static G16_HD mont_t mul_finish(const uint32_t x[N], const uint32_t y[N]) {
    mont_t r;
    r.v[0] = ptx::add_cc(x[0], y[1]);
G16_UNROLL
    for (int j = 1; j < N - 1; j++) r.v[j] = ptx::addc_cc(x[j], y[j + 1]);
    r.v[N - 1] = ptx::addc(x[N - 1], 0);
    reduce_once(r.v);
    return r;
  }
  // Two independent products with their rows interleaved, so that one warp has four carry
  // chains in flight instead of two (the MSM's curve additions run at ~12 warps per SM, where
  // one product's chains leave the IMAD pipe idle between dependent instructions).
  static G16_HD void mul2(const mont_t& a, const mont_t& b, const mont_t& c, const mont_t& d,
                          mont_t& ab, mont_t& cd) {
    uint32_t x[N], y[N], u[N], w[N];
G16_UNROLL
    for (int i = 0; i < N; i += 2) {
      mul_row(x, y, a, b.v[i], i == 0);
      mul_row(u, w, c, d.v[i], i == 0);
      mul_row(y, x, a, b.v[i + 1], false);
      mul_row(w, u, c, d.v[i + 1], false);
    }
    ab = mul_finish(x, y);
    cd = mul_finish(u, w);
  }
  // T = T / 2^32 + m p, with m making the new limb 0 vanish: a reduction row of mul_row
  // without the product, for sqr's reduction of the square's low half. (e, o) are the previous
  // row's (o, e), as in product_row, whose shift this repeats.
  static G16_HD void shift_reduce_row(uint32_t e[N], uint32_t o[N]) {
    e[0] = ptx::add_cc(e[0], o[1]);  // its carry (weight 1) starts the odd chain
    if constexpr (kLowLimbsOneMinusOne) {
      // As in reduce_row: m p's two lowest limb products as additions.
      const uint32_t e0 = e[0];
      const uint32_t m = reduction_multiplier(e0);  // -e0
      const uint32_t m_hi = e0 != 0 ? ~e0 : 0u;
      o[0] = ptx::addc_cc(o[2], e0);
      o[1] = ptx::addc_cc(o[3], m_hi);
G16_UNROLL
      for (int j = 2; j < N - 2; j += 2) {
        pmadc(m, P::mod(j + 1), o[j + 2], o[j + 3], o[j], o[j + 1]);
      }
      pmadc_end(m, P::mod(N - 1), 0, 0, o[N - 2], o[N - 1]);
      reduce_even_half(e, o, m);
      return;
    }
    const uint32_t m = reduction_multiplier(e[0]);
G16_UNROLL
    for (int j = 0; j < N - 2; j += 2) {
      pmadc(m, P::mod(j + 1), o[j + 2], o[j + 3], o[j], o[j + 1]);
    }
    pmadc_end(m, P::mod(N - 1), 0, 0, o[N - 2], o[N - 1]);
    reduce_even_half(e, o, m);
  }
  // a^2 / R mod p with each cross product a_i a_j (i < j) formed once: ~3/4 of a product's
  // IMAD work (the MSM's curve additions square twice each, and their kernels are bound by the
  // IMAD pipe). The square S = 2 C + D in 2N limbs: C, the cross products, in two arrays by
  // the parity of i + j, so that each row is two chains of fused 64-bit multiply-adds (as in
  // the product); D, the diagonal a_i^2. Then the Montgomery reduction of S's low half alone,
  // U = (S_lo + M p) / R <= p, and a^2 / R = U + S_hi (mod p) with S_hi < p^2 / R < p: one
  // conditional subtraction.
  G16_HD mont_t sqr() const {
    uint32_t ev[2 * N], od[2 * N];
G16_UNROLL
    for (int k = 0; k < 2 * N; k++) ev[k] = od[k] = 0;
    // Row i: a_i a_j at weight i + j, odd (j - i odd) into od, even into ev. A row's carry goes
    // one limb above its last product, where earlier rows left at most a carry: no overflow.
G16_UNROLL
    for (int i = 0; i < N - 1; i++) {
      pmad(v[i], v[i + 1], od[2 * i + 1], od[2 * i + 2], od[2 * i + 1], od[2 * i + 2]);
      int top = 2 * i + 2;
G16_UNROLL
      for (int j = i + 3; j < N; j += 2) {
        pmadc(v[i], v[j], od[i + j], od[i + j + 1], od[i + j], od[i + j + 1]);
        top = i + j + 1;
      }
      od[top + 1] = ptx::addc(od[top + 1], 0);
      if (i + 2 < N) {
        pmad(v[i], v[i + 2], ev[2 * i + 2], ev[2 * i + 3], ev[2 * i + 2], ev[2 * i + 3]);
        top = 2 * i + 3;
G16_UNROLL
        for (int j = i + 4; j < N; j += 2) {
          pmadc(v[i], v[j], ev[i + j], ev[i + j + 1], ev[i + j], ev[i + j + 1]);
          top = i + j + 1;
        }
        ev[top + 1] = ptx::addc(ev[top + 1], 0);
      }
    }
    // C = ev + od (below 2^(64N - 1)), doubled by a funnel shift, plus the diagonal.
    uint32_t c[2 * N];
    c[0] = 0;
    c[1] = od[1];
    c[2] = ptx::add_cc(ev[2], od[2]);
G16_UNROLL
    for (int k = 3; k < 2 * N - 1; k++) c[k] = ptx::addc_cc(ev[k], od[k]);
    c[2 * N - 1] = ptx::addc(ev[2 * N - 1], od[2 * N - 1]);
    uint32_t t[2 * N];
    t[0] = 0;
G16_UNROLL
    for (int k = 1; k < 2 * N; k++) t[k] = ptx::shl1_funnel(c[k - 1], c[k]);
    pmad(v[0], v[0], t[0], t[1], t[0], t[1]);
G16_UNROLL
    for (int i = 1; i < N - 1; i++) {
      pmadc(v[i], v[i], t[2 * i], t[2 * i + 1], t[2 * i], t[2 * i + 1]);
    }
    pmadc_end(v[N - 1], v[N - 1], t[2 * N - 2], t[2 * N - 1], t[2 * N - 2], t[2 * N - 1]);
    return reduce_wide(t);
  }
  // The curve formulas square on their own rather than as a product pair.
  static constexpr bool kCheapSquare = true;
  // T / R mod p for T < p R (2N limbs): the Montgomery reduction of T's low half alone,
  // U = (T_lo + M p) / R <= p, then U + T_hi < 2p (T_hi < p), one conditional subtraction.
  static G16_HD mont_t reduce_wide(const uint32_t t[2 * N]) {
    // Row 0 on (x = T_lo, y = 0), then shifted rows alternating.
    uint32_t x[N], y[N];
G16_UNROLL
    for (int j = 0; j < N; j++) {
      x[j] = t[j];
      y[j] = 0;
    }
    reduce_row(x, y);
G16_UNROLL
    for (int i = 1; i < N; i += 2) {
      shift_reduce_row(y, x);
      if (i + 1 < N) shift_reduce_row(x, y);
    }
    // T = y + 2^32 x (y[0] = 0): U = x + y / 2^32, plus T_hi.
    mont_t r;
    r.v[0] = ptx::add_cc(x[0], y[1]);
G16_UNROLL
    for (int j = 1; j < N - 1; j++) r.v[j] = ptx::addc_cc(x[j], y[j + 1]);
    r.v[N - 1] = ptx::addc(x[N - 1], 0);
    r.v[0] = ptx::add_cc(r.v[0], t[N]);
G16_UNROLL
    for (int j = 1; j < N - 1; j++) r.v[j] = ptx::addc_cc(r.v[j], t[N + j]);
    r.v[N - 1] = ptx::addc(r.v[N - 1], t[2 * N - 1]);
    reduce_once(r.v);
    return r;
  }
  // (a b + c d) / R mod p with one reduction per row for both products: each row adds a b_i
  // and c d_i before m p, so a sum of two products costs three row halves' multiply-adds
  // instead of four (the curve formulas' Y3 = R (Q - X3) - Y1 PPP, with -PPP as d). The MSM's
  // bucket kernels are bound by the IMAD pipe (Nsight Compute: 85% of its cycles in the slice
  // kernel). With a, c < p, T < a + c + p < 3p < 2^(32N) after every row, and the result is
  // below (2 p^2 + R p) / R < 1.25 p: one conditional subtraction, the same value as
  // a * b + c * d.
  static G16_HD mont_t mul_add2(const mont_t& a, const mont_t& b, const mont_t& c,
                                const mont_t& d) {
    // 3p must fit N limbs: Fp's top limb is below 2^29, Fr's (above 2^32 / 3) is not.
    if constexpr (P::mod(N - 1) >= 0x55555555u) {
      return a * b + c * d;
    } else {
      uint32_t x[N], y[N];
G16_UNROLL
      for (int i = 0; i < N; i += 2) {
        product_row(x, y, a, b.v[i], i == 0);
        accumulate_row(x, y, c, d.v[i]);
        reduce_row(x, y);
        product_row(y, x, a, b.v[i + 1], false);
        accumulate_row(y, x, c, d.v[i + 1]);
        reduce_row(y, x);
      }
      return mul_finish(x, y);
    }
  }
#else
  // The host's Montgomery product a * b / R mod p (CIOS on 64-bit products); the accumulator
  // stays below 2^33 * p < 2^(32(N+1)) before each shift.
  friend G16_HD mont_t operator*(const mont_t& a, const mont_t& b) {
    uint32_t t[N + 1];
    for (int j = 0; j <= N; j++) t[j] = 0;
    for (int i = 0; i < N; i++) {
      uint64_t c = 0;
      for (int j = 0; j < N; j++) {
        uint64_t s = (uint64_t)a.v[j] * b.v[i] + t[j] + c;
        t[j] = (uint32_t)s;
        c = s >> 32;
      }
      t[N] += (uint32_t)c;
      const uint32_t m = reduction_multiplier(t[0]);
      c = 0;
      for (int j = 0; j < N; j++) {
        uint64_t s = (uint64_t)m * P::mod(j) + t[j] + c;
        t[j] = (uint32_t)s;
        c = s >> 32;
      }
      uint64_t top = (uint64_t)t[N] + c;
      for (int j = 0; j < N - 1; j++) t[j] = t[j + 1];
      t[N - 1] = (uint32_t)top;
      t[N] = (uint32_t)(top >> 32);
    }
    mont_t r;
    for (int j = 0; j < N; j++) r.v[j] = t[j];
    reduce_once(r.v);
    return r;
  }
  static G16_HD void mul2(const mont_t& a, const mont_t& b, const mont_t& c, const mont_t& d,
                          mont_t& ab, mont_t& cd) {
    const mont_t t = a * b;
    cd = c * d;
    ab = t;
  }
  static G16_HD mont_t mul_add2(const mont_t& a, const mont_t& b, const mont_t& c,
                                const mont_t& d) {
    return a * b + c * d;
  }
  G16_HD mont_t sqr() const { return *this * *this; }
  static constexpr bool kCheapSquare = false;
#endif

  G16_HD mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
  G16_HD mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
  G16_HD mont_t& operator*=(const mont_t& b) { return *this = *this * b; }


  // Canonical integer -> Montgomery form: a * R^2 / R.
  G16_HD mont_t to_mont() const {
    mont_t rr;
G16_UNROLL
    for (int i = 0; i < N; i++) rr.v[i] = P::rr(i);
    return *this * rr;
  }
  // Montgomery form -> canonical integer: a * 1 / R.
  G16_HD mont_t from_mont() const {
    mont_t o = zero();
    o.v[0] = 1;
    return *this * o;
  }

  // this^e for a small run-time exponent (square-and-multiply, most significant bit first).
  G16_HD mont_t pow(uint64_t e) const {
    mont_t r = one();
    int top = 63;
    while (top >= 0 && !((e >> top) & 1)) top--;
    for (int i = top; i >= 0; i--) {
      r = r.sqr();
      if ((e >> i) & 1) r = r * *this;
    }
    return r;
  }

  // a^-1 by the binary extended Euclidean algorithm; 0 -> 0. Its running time depends on the
  // value (no secret goes through it: the MSM inverts differences of public points), and it
  // costs about a tenth of Fermat's 381 squarings and ~190 products. On u = aR and p, with
  // x1 aR = u and x2 aR = w (mod p) throughout: halve whichever of u, w is even (and its x mod
  // p), subtract the smaller from the larger, until one is 1; its x is (aR)^-1, and two
  // Montgomery products by R^2 give a^-1 R.
  G16_HD mont_t inverse_vartime() const {
    if (is_zero()) return zero();
    uint32_t u[N], w[N], x1[N], x2[N];
G16_UNROLL
    for (int i = 0; i < N; i++) {
      u[i] = v[i];
      w[i] = P::mod(i);
      x1[i] = 0;
      x2[i] = 0;
    }
    x1[0] = 1;
    for (;;) {
      while ((u[0] & 1) == 0) {
        shr1(u);
        half_mod(x1);
      }
      while ((w[0] & 1) == 0) {
        shr1(w);
        half_mod(x2);
      }
      // Both odd; unless one is 1 they differ (their gcd is 1), and the larger minus the
      // smaller is even and nonzero.
      if (is_one(u)) break;
      if (is_one(w)) {
G16_UNROLL
        for (int i = 0; i < N; i++) x1[i] = x2[i];
        break;
      }
      if (geq(u, w)) {
        sub_in_place(u, w);
        sub_mod(x1, x2);
      } else {
        sub_in_place(w, u);
        sub_mod(x2, x1);
      }
    }
    mont_t r, rr;
G16_UNROLL
    for (int i = 0; i < N; i++) {
      r.v[i] = x1[i];
      rr.v[i] = P::rr(i);
    }
    return r * rr * rr;
  }

 private:
  // Helpers of inverse_vartime on raw limbs below 2^(32N - 1).
  static G16_HD void shr1(uint32_t x[N]) {
G16_UNROLL
    for (int i = 0; i < N - 1; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 31);
    x[N - 1] >>= 1;
  }
  // x += p (x < p: the sum fits N limbs).
  static G16_HD void add_mod_p(uint32_t x[N]) {
    uint64_t c = 0;
G16_UNROLL
    for (int i = 0; i < N; i++) {
      c += (uint64_t)x[i] + P::mod(i);
      x[i] = (uint32_t)c;
      c >>= 32;
    }
  }
  // x / 2 mod p for x < p: (x + p) / 2 when x is odd.
  static G16_HD void half_mod(uint32_t x[N]) {
    if (x[0] & 1) add_mod_p(x);
    shr1(x);
  }
  static G16_HD bool geq(const uint32_t a[N], const uint32_t b[N]) {
    uint64_t borrow = 0;
G16_UNROLL
    for (int i = 0; i < N; i++) borrow = ((uint64_t)a[i] - b[i] - borrow) >> 63;
    return borrow == 0;
  }
  // a -= b; returns the borrow out (1 when a < b).
  static G16_HD uint64_t sub_in_place(uint32_t a[N], const uint32_t b[N]) {
    uint64_t borrow = 0;
G16_UNROLL
    for (int i = 0; i < N; i++) {
      const uint64_t d = (uint64_t)a[i] - b[i] - borrow;
      a[i] = (uint32_t)d;
      borrow = d >> 63;
    }
    return borrow;
  }
  // a = a - b mod p (both below p).
  static G16_HD void sub_mod(uint32_t a[N], const uint32_t b[N]) {
    if (sub_in_place(a, b)) add_mod_p(a);
  }
  static G16_HD bool is_one(const uint32_t a[N]) {
    uint32_t acc = a[0] ^ 1u;
G16_UNROLL
    for (int i = 1; i < N; i++) acc |= a[i];
    return acc == 0;
  }

 public:
  // a^(p-2) = a^-1 (Fermat); 0 -> 0.
  G16_HD mont_t inverse() const {
    mont_t r = one();
    for (int w = N - 1; w >= 0; w--) {
      const uint32_t e = P::pm2(w);
      for (int i = 31; i >= 0; i--) {
        r = r.sqr();
        if ((e >> i) & 1) r = r * *this;
      }
    }
    return r;
  }
};

}  // namespace g16

#endif
