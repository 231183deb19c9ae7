// BLS12-381 scalar field Fr (255-bit, R = 2^256) and base field Fp (381-bit, R = 2^384) as
// instances of the Montgomery template in field.cuh. Limb order and Montgomery form are blst's,
// so an fr_t is byte-for-byte a blstrs::Scalar and an fp_t a blst_fp.
// Constants were derived with Python (pow(m, -1, 2^32), R^2 mod m, R mod m) and cross-checked
// against blst's published values (e.g. Fp's 64-bit p0 = 0x89f3fffcfffcfffd).
#ifndef GROTH16_C2_BLS12_381_CUH
#define GROTH16_C2_BLS12_381_CUH

#include "field.cuh"

namespace g16 {

// Selects limb i of a constant; i is a compile-time constant at every call, so this folds to an
// immediate operand.
#define G16_LIMB(i, ...)                                   \
  do {                                                     \
    constexpr uint32_t k_[] = {__VA_ARGS__};               \
    return k_[i];                                          \
  } while (0)

struct fr_params {
  static constexpr int N = 8;
  static constexpr uint32_t M0 = 0xffffffffu;
  // r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
  static G16_HD constexpr uint32_t mod(int i) {
    G16_LIMB(i, 0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808,
             0x299d7d48, 0x73eda753);
  }
  static G16_HD constexpr uint32_t rr(int i) {
    G16_LIMB(i, 0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb, 0x7254398f, 0x05d31496,
             0x9f59ff11, 0x0748d9d9);
  }
  static G16_HD constexpr uint32_t one(int i) {
    G16_LIMB(i, 0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef,
             0xacc5056f, 0x1824b159);
  }
  static G16_HD constexpr uint32_t pm2(int i) {
    G16_LIMB(i, 0xffffffff, 0xfffffffe, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808,
             0x299d7d48, 0x73eda753);
  }
};

struct fp_params {
  static constexpr int N = 12;
  static constexpr uint32_t M0 = 0xfffcfffdu;
  // p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
  static G16_HD constexpr uint32_t mod(int i) {
    G16_LIMB(i, 0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
             0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea);
  }
  static G16_HD constexpr uint32_t rr(int i) {
    G16_LIMB(i, 0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
             0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5);
  }
  static G16_HD constexpr uint32_t one(int i) {
    G16_LIMB(i, 0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
             0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3);
  }
  static G16_HD constexpr uint32_t pm2(int i) {
    G16_LIMB(i, 0xffffaaa9, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
             0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea);
  }
};

typedef mont_t<fr_params> fr_t;
typedef mont_t<fp_params> fp_t;

static_assert(sizeof(fr_t) == 32, "fr_t must be blst's 32-byte scalar");
static_assert(sizeof(fp_t) == 48, "fp_t must be blst's 48-byte field element");

}  // namespace g16

#endif
