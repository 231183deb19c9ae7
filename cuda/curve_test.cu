// Test kernels for the curve formulas (curve.cuh): out[i] = op(a[i], b[i]) as an XYZZ point, so
// host tests can compare each addition path, identity and P + (-P) included, with blstrs.
#include "internal.cuh"
#include "launcher.h"

namespace g16 {
namespace curve_test_detail {

enum op_t {
  OP_MADD = 0,    // a + b by two mixed additions onto the identity
  OP_DBL_ADD,     // 2a + 2b: doublings, then a general addition
  OP_ADD_SELF,    // (a + b) + (a + b) through the general addition's doubling branch
  OP_ADD_NEG,     // (a + b) + (-(a + b)) through the general addition: the identity
  OP_MUL_SMALL,   // (a + b) * 13 via mul_small
  OP_COUNT
};

template <class F>
__device__ xyzz_t<F> apply(int op, const affine_t<F>& a, const affine_t<F>& b) {
  xyzz_t<F> s = xyzz_t<F>::inf();
  s.add_affine(a);
  s.add_affine(b);
  switch (op) {
    case OP_MADD: return s;
    case OP_DBL_ADD: {
      xyzz_t<F> x = xyzz_t<F>::from_affine(a), y = xyzz_t<F>::from_affine(b);
      x.dbl();
      y.dbl();
      x.add(y);
      return x;
    }
    case OP_ADD_SELF: {
      xyzz_t<F> t = s;
      t.add(s);
      return t;
    }
    case OP_ADD_NEG: {
      xyzz_t<F> t = s;
      t.add(s.neg());
      return t;
    }
    default: {
      s.mul_small(13);
      return s;
    }
  }
}

template <class F>
__global__ void __launch_bounds__(128) test_op_kernel(int op, const affine_t<F>* a,
                                                      const affine_t<F>* b, xyzz_t<F>* out,
                                                      size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = apply(op, a[i], b[i]);
}

template <class F>
cudaError_t launch(int op, const affine_t<F>* a, const affine_t<F>* b, xyzz_t<F>* out, size_t n,
                   cudaStream_t s) {
  if (op < 0 || op >= OP_COUNT) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (a == nullptr || b == nullptr || out == nullptr) return cudaErrorInvalidValue;
  const size_t want = (n + 127) / 128;
  test_op_kernel<F><<<(unsigned)(want < 4096 ? want : 4096), 128, 0, s>>>(op, a, b, out, n);
  return cudaGetLastError();
}

}  // namespace curve_test_detail

}  // namespace g16

// The launcher.h entry point (this file is its only home: it is built only for tests).
extern "C" int g16_curve_test_op(int curve, int op, const void* a, const void* b, void* out,
                                 size_t n, g16_stream_t stream) {
  using namespace g16;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (curve) {
    case 1:
      return (int)curve_test_detail::launch(op, static_cast<const g1_affine_t*>(a),
                                            static_cast<const g1_affine_t*>(b),
                                            static_cast<g1_xyzz_t*>(out), n, s);
    case 2:
      return (int)curve_test_detail::launch(op, static_cast<const g2_affine_t*>(a),
                                            static_cast<const g2_affine_t*>(b),
                                            static_cast<g2_xyzz_t*>(out), n, s);
    default: return (int)cudaErrorInvalidValue;
  }
}
