// Montgomery products for Fp in 29-bit limbs (14 of them, R' = 2^406) with no carry flags: every
// limb product goes into a 64-bit column sum (one IMAD.WIDE.U32 with a 64-bit addend), so the
// columns are independent of each other but for one carry and one reduction multiplier each.
// The products of field.cuh are chains of carry-flag instructions, and PTX has one carry flag:
// however many products a formula has in flight, ptxas sees them one chain at a time, and the
// MSM's bucket kernels wait ~4 cycles per instruction on those chains at 12 warps per SM (README,
// "Where the MSM's issue slots go"). This is a candidate for them, measured first on its own.
//
// The values elsewhere are blst's Montgomery forms (R = 2^384). With b' = b * 2^22 (a shift:
// b < 2^384 gives b' < 2^406), mul29(a, b') = a b 2^22 / 2^406 = a b / 2^384, blst's Montgomery
// product: the forms do not change. Column bounds: 28 limb products below 2^58 plus a carry
// below 2^37 stay below 2^63. With a < 2p and b < 2p the result is below
// (2p * 2p * 2^22 + 2^406 p) / 2^406 < p / 2 + p, so products chain without reductions.
#ifndef GROTH16_C2_MONT29_CUH
#define GROTH16_C2_MONT29_CUH

#include "bls12_381.cuh"

namespace g16 {

struct fp29 {
  static constexpr int L = 14;
  static constexpr int kBits = 29;
  static constexpr uint32_t kMask = (1u << kBits) - 1;
  static constexpr int kShift = kBits * L - 32 * fp_t::N;  // 22: b' = b * 2^kShift
  uint32_t v[L];

  // Bits [29 k, 29 k + 29) of the 32-bit limbs x (N of them), x shifted left by `shift` first.
  static G16_HD constexpr uint32_t limb_of(const uint32_t* x, int k, int shift) {
    const int lo = kBits * k - shift;  // bit position in x of this limb's bit 0 (may be < 0)
    uint64_t w = 0;
    for (int b = 0; b < 2; b++) {
      const int word = (lo >> 5) + b;  // arithmetic shift: floor division
      if (word >= 0 && word < fp_t::N) w |= uint64_t(x[word]) << (32 * b);
    }
    const int off = lo - 32 * (lo >> 5);
    return uint32_t(w >> off) & kMask;
  }
  static G16_HD constexpr uint32_t mod(int k) {
    uint32_t p[fp_t::N] = {};
    for (int i = 0; i < fp_t::N; i++) p[i] = fp_params::mod(i);
    return limb_of(p, k, 0);
  }
  static constexpr uint32_t kNPrime = fp_params::M0 & kMask;  // -p^-1 mod 2^29
};

// a * 2^shift in 29-bit limbs (shift 0 for a left operand, fp29::kShift for a right one).
G16_HD fp29 to_fp29(const fp_t& a, int shift) {
  fp29 r;
G16_UNROLL
  for (int k = 0; k < fp29::L; k++) r.v[k] = fp29::limb_of(a.v, k, shift);
  return r;
}

// Back to blst's 32-bit limbs, reduced below p (inputs below 2p).
G16_HD fp_t from_fp29(const fp29& a) {
  uint32_t w[fp_t::N + 1] = {};
G16_UNROLL
  for (int k = 0; k < fp29::L; k++) {
    const int bit = fp29::kBits * k, word = bit >> 5, off = bit & 31;
    w[word] |= a.v[k] << off;
    if (off > 32 - fp29::kBits && word + 1 <= fp_t::N) w[word + 1] |= a.v[k] >> (32 - off);
  }
  // Subtract p when the value is at least p.
  uint32_t d[fp_t::N];
  int64_t borrow = 0;
G16_UNROLL
  for (int i = 0; i < fp_t::N; i++) {
    const int64_t t = int64_t(w[i]) - int64_t(fp_params::mod(i)) + borrow;
    d[i] = uint32_t(t);
    borrow = t >> 32;
  }
  const bool keep = borrow < 0;
  fp_t r;
G16_UNROLL
  for (int i = 0; i < fp_t::N; i++) r.v[i] = keep ? w[i] : d[i];
  return r;
}

// a * b / 2^406 mod p (below 1.5 p for a, b below 2p as above): product scanning, the
// Montgomery multiplier of column i formed once its low 29 bits are known.
G16_HD fp29 mul29(const fp29& a, const fp29& b) {
  constexpr int L = fp29::L;
  uint32_t m[L];
  fp29 r;
  uint64_t carry = 0;
G16_UNROLL
  for (int i = 0; i < L; i++) {
    // The limb products first (they depend on nothing), then the multipliers' terms in the
    // order the multipliers become known, then the carry.
    uint64_t acc = 0;
G16_UNROLL
    for (int j = 0; j <= i; j++) acc += uint64_t(a.v[j]) * b.v[i - j];
G16_UNROLL
    for (int j = 0; j < i; j++) acc += uint64_t(m[j]) * fp29::mod(i - j);
    acc += carry;
    m[i] = (uint32_t(acc) * fp29::kNPrime) & fp29::kMask;
    acc += uint64_t(m[i]) * fp29::mod(0);  // the low 29 bits become 0
    carry = acc >> fp29::kBits;
  }
G16_UNROLL
  for (int i = L; i < 2 * L - 1; i++) {
    uint64_t acc = 0;
G16_UNROLL
    for (int j = i - L + 1; j < L; j++) acc += uint64_t(a.v[j]) * b.v[i - j];
G16_UNROLL
    for (int j = i - L + 1; j < L; j++) acc += uint64_t(m[j]) * fp29::mod(i - j);
    acc += carry;
    r.v[i - L] = uint32_t(acc) & fp29::kMask;
    carry = acc >> fp29::kBits;
  }
  r.v[L - 1] = uint32_t(carry);  // the result is below 2^381: this limb is small
  return r;
}

}  // namespace g16

#endif
