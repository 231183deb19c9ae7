// Decoding of params-file points on the GPU: uncompressed big-endian G1 (96 bytes) and G2 (192
// bytes, each coordinate c1 then c0) become blst's affine points in Montgomery form, in place.
// Only the plain encoding is decoded here (no flag bits, every coordinate below p, x != 0 for
// G1, on the curve): a point outside it raises `*needs_cpu` and the host decodes that chunk on
// the CPU, which gives the exact verdict and message. So a point the GPU accepts is one the CPU
// accepts, and its limbs are the same (the products are fully reduced).
#include "internal.cuh"
#include "launcher.h"

namespace g16 {
namespace {

constexpr int kThreads = 128;

// The 48-byte big-endian number at `p` (4-byte aligned) as little-endian 32-bit limbs; false
// if it is not below p.
__device__ __forceinline__ bool load_be(const uint32_t* p, fp_t& out) {
G16_UNROLL
  for (int j = 0; j < 12; j++) out.v[j] = __byte_perm(p[11 - j], 0, 0x0123);
  // Below the modulus iff, from the top, the first differing limb is smaller.
  int verdict = 0;  // -1 below, 1 above, 0 equal so far
G16_UNROLL
  for (int j = 11; j >= 0; j--) {
    const uint32_t m = fp_params::mod(j);
    if (verdict == 0) verdict = out.v[j] < m ? -1 : (out.v[j] > m ? 1 : 0);
  }
  return verdict < 0;
}

__device__ __forceinline__ fp_t four() {
  fp_t f = fp_t::zero();
  f.v[0] = 4;
  return f.to_mont();
}

// This thread's point of `n` (WORDS 32-bit words each), or nullptr past the end.
template <int WORDS>
__device__ __forceinline__ uint32_t* point_of_thread(uint32_t* words, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  return i < n ? words + i * WORDS : nullptr;
}

// No flag bits: the first byte holds them, and it is the low byte of the first word.
__device__ __forceinline__ bool no_flags(const uint32_t* p) { return (p[0] & 0xe0u) == 0; }

__global__ void decode_g1(uint32_t* words, size_t n, uint32_t* needs_cpu) {
  uint32_t* p = point_of_thread<24>(words, n);
  if (p == nullptr) return;
  bool plain = no_flags(p);
  fp_t x, y;
  plain &= load_be(p, x);
  plain &= load_be(p + 12, y);
  plain &= !x.is_zero();
  if (plain) {
    x = x.to_mont();
    y = y.to_mont();
    plain = y.sqr() == x.sqr() * x + four();
  }
  if (!plain) {
    atomicOr(needs_cpu, 1u);
    return;
  }
G16_UNROLL
  for (int j = 0; j < 12; j++) {
    p[j] = x.v[j];
    p[12 + j] = y.v[j];
  }
}

__global__ void decode_g2(uint32_t* words, size_t n, uint32_t* needs_cpu) {
  uint32_t* p = point_of_thread<48>(words, n);
  if (p == nullptr) return;
  bool plain = no_flags(p);
  fp2_t x, y;
  plain &= load_be(p, x.c1);
  plain &= load_be(p + 12, x.c0);
  plain &= load_be(p + 24, y.c1);
  plain &= load_be(p + 36, y.c0);
  if (plain) {
    x = fp2_t{x.c0.to_mont(), x.c1.to_mont()};
    y = fp2_t{y.c0.to_mont(), y.c1.to_mont()};
    const fp2_t b{four(), four()};
    plain = y.sqr() == x.sqr() * x + b;
  }
  if (!plain) {
    atomicOr(needs_cpu, 1u);
    return;
  }
G16_UNROLL
  for (int j = 0; j < 12; j++) {
    p[j] = x.c0.v[j];
    p[12 + j] = x.c1.v[j];
    p[24 + j] = y.c0.v[j];
    p[36 + j] = y.c1.v[j];
  }
}

}  // namespace
}  // namespace g16

extern "C" int g16_srs_decode(int curve, void* points, size_t n, uint32_t* needs_cpu,
                              g16_stream_t stream) {
  if (points == nullptr || needs_cpu == nullptr || (curve != 0 && curve != 1))
    return (int)cudaErrorInvalidValue;
  if (n == 0) return (int)cudaSuccess;
  const unsigned blocks = (unsigned)((n + g16::kThreads - 1) / g16::kThreads);
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  if (curve == 0)
    g16::decode_g1<<<blocks, g16::kThreads, 0, s>>>(static_cast<uint32_t*>(points), n, needs_cpu);
  else
    g16::decode_g2<<<blocks, g16::kThreads, 0, s>>>(static_cast<uint32_t*>(points), n, needs_cpu);
  return (int)cudaGetLastError();
}
