// Test kernels for the field arithmetic: out[i] = op(a[i], b[i]) over Fr or Fp, so the host
// tests can compare every operation of field.cuh with blstrs bit for bit.
#include "internal.cuh"
#include "launcher.h"

namespace g16 {
namespace field_test_detail {

enum op_t {
  OP_ADD = 0, OP_SUB, OP_MUL, OP_SQR, OP_NEG, OP_TO_MONT, OP_FROM_MONT, OP_INV,
  // a * b * b * ... (MUL_CHAIN_LEN products, each waiting for the one before): the
  // multiplication throughput benchmark, checkable against blstrs.
  OP_MUL_CHAIN,
  // a^-1 by the binary extended Euclidean algorithm (the MSM's batch inversions); 0 -> 0.
  OP_INV_VARTIME,
  // Two independent integer chains per thread through mont_t::mul2 (a b^L and b^(L+1),
  // returned summed): what pairing products gains at the kernel's occupancy.
  OP_MUL_CHAIN_PAIRED,
  OP_COUNT
};

constexpr int MUL_CHAIN_LEN = 64;

template <class F>
G16_HD F mul_chain_int(const F& x, const F& y) {
  F r = x;
  for (int k = 0; k < MUL_CHAIN_LEN; k++) r = r * y;
  return r;
}
template <class F>
G16_HD F mul_chain_paired(const F& x, const F& y) {
  F r = x, q = y;
  for (int k = 0; k < MUL_CHAIN_LEN; k++) F::mul2(r, y, q, y, r, q);
  return r + q;
}
template <class F>
G16_HD F apply(int op, const F& x, const F* b, size_t i) {
  switch (op) {
    case OP_ADD: return x + b[i];
    case OP_SUB: return x - b[i];
    case OP_MUL: return x * b[i];
    case OP_SQR: return x.sqr();
    case OP_NEG: return -x;
    case OP_TO_MONT: return x.to_mont();
    case OP_FROM_MONT: return x.from_mont();
    case OP_MUL_CHAIN: return mul_chain_int(x, b[i]);
    case OP_INV_VARTIME: return x.inverse_vartime();
    case OP_MUL_CHAIN_PAIRED: return mul_chain_paired(x, b[i]);
    default: return x.inverse();  // OP_INV; 0 -> 0
  }
}

#if defined(__CUDACC__)
// b is only read by binary ops (it may be NULL otherwise).
template <class F>
__global__ void __launch_bounds__(256) test_op_kernel(int op, const F* a, const F* b, F* out,
                                                      size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = apply(op, a[i], b, i);
}

template <class F>
cudaError_t launch(int op, const F* a, const F* b, F* out, size_t n, cudaStream_t s) {
  if (op < 0 || op >= OP_COUNT) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  // The binary ops read b.
  const bool binary = op <= OP_MUL || op == OP_MUL_CHAIN || op == OP_MUL_CHAIN_PAIRED;
  if (a == nullptr || out == nullptr || (binary && b == nullptr)) return cudaErrorInvalidValue;
  const unsigned threads = 256;
  const uint64_t want = (n + threads - 1) / threads;
  const unsigned blocks = (unsigned)(want < 4096 ? want : 4096);
  test_op_kernel<F><<<blocks, threads, 0, s>>>(op, a, b, out, n);
  return cudaGetLastError();
}
#endif

}  // namespace field_test_detail

}  // namespace g16

#if defined(__CUDACC__)
// The launcher.h entry points (this file is their only home: it is built only for tests).
extern "C" {

int g16_fr_test_op(int op, const void* a, const void* b, void* out, size_t n, g16_stream_t stream) {
  using namespace g16;
  return (int)field_test_detail::launch(op, static_cast<const fr_t*>(a),
                                        static_cast<const fr_t*>(b), static_cast<fr_t*>(out), n,
                                        reinterpret_cast<cudaStream_t>(stream));
}

int g16_fp_test_op(int op, const void* a, const void* b, void* out, size_t n, g16_stream_t stream) {
  using namespace g16;
  return (int)field_test_detail::launch(op, static_cast<const fp_t*>(a),
                                        static_cast<const fp_t*>(b), static_cast<fp_t*>(out), n,
                                        reinterpret_cast<cudaStream_t>(stream));
}

}  // extern "C"
#endif
