// Element-wise kernels of the H (quotient) polynomial step: coset scaling by a geometric
// sequence (scale_powers), the pointwise (a*b - c) * factor, and the bit-reversal permutation.
// All three are memory-bound passes over 2^lg_n Fr elements; kernel bodies are host+device so
// their index logic can be emulated on a machine without a GPU.
#include "internal.cuh"

namespace g16 {
namespace hpoly_detail {

// ---- scale_powers: data[i] *= first * ratio^k(i) ---------------------------------------------
// Block b owns 2^(lt+le) elements, i = b*2^(lt+le) + e*2^lt + tid (coalesced in tid). The
// exponent splits into disjoint bit fields (block, e, tid), also after bit reversal, so
//   first * ratio^k(i) = P_block * ratio^(thread part) * step^(pi(e)), pi = id or bitrev,
// with ratio^(2^q) precomputed on the host. Cost: ~2 multiplications per element.
struct scale_args {
  fr_t* data;
  uint32_t lg_n, lt, le;  // log2 of: elements, threads per block, elements per thread
  uint32_t index_bitrev;
  fr_arg first;
  fr_arg sq[32];  // sq[q] = ratio^(2^q), q < lg_n
};

// Exponent of the block's first factor (without `first`).
G16_HD uint64_t scale_block_exp(const scale_args& a, uint64_t block) {
  const uint32_t lb = a.lg_n - a.lt - a.le;
  return a.index_bitrev ? bitrev64(block, lb) : block << (a.lt + a.le);
}

// P_block = first * ratio^scale_block_exp, by one thread per block.
G16_HD fr_t scale_block_factor(const scale_args& a, const fr_arg* sq, uint64_t block) {
  fr_t p = from_arg(a.first);
  const uint64_t e = scale_block_exp(a, block);
  for (uint32_t q = 0; q < a.lg_n; q++)
    if ((e >> q) & 1) p = p * from_arg(sq[q]);
  return p;
}

template <int E>
G16_HD void scale_thread(const scale_args& a, const fr_arg* sq, const fr_t& p_block, uint64_t block,
                         uint32_t tid) {
  const uint32_t lt = a.lt;
  // Thread part of the exponent, and the step between consecutive pi(e).
  const uint64_t te = a.index_bitrev ? bitrev64(tid, lt) << (a.lg_n - lt) : uint64_t(tid);
  const uint32_t step_log = a.index_bitrev ? a.lg_n - lt - a.le : lt;
  fr_t w = p_block;
  for (uint32_t q = 0; q < a.lg_n; q++)
    if ((te >> q) & 1) w = w * from_arg(sq[q]);
  const fr_t r = from_arg(sq[step_log]);
  const uint64_t base = (block << (lt + a.le)) + tid;
  const uint32_t ne = 1u << a.le;
  // w runs through p * r^p' for p' = 0, 1, ...; element e = pi(p').
  for (uint32_t p0 = 0; p0 < ne; p0 += E) {
    fr_t x[E];
G16_UNROLL
    for (int k = 0; k < E; k++) {
      const uint32_t pp = p0 + k;
      const uint32_t e = a.index_bitrev ? bitrev(pp, a.le) : pp;
      if (pp < ne) x[k] = ld_fr(a.data + base + (uint64_t(e) << lt));
    }
G16_UNROLL
    for (int k = 0; k < E; k++) {
      const uint32_t pp = p0 + k;
      const uint32_t e = a.index_bitrev ? bitrev(pp, a.le) : pp;
      if (pp < ne) {
        st_fr(a.data + base + (uint64_t(e) << lt), x[k] * w);
        w = w * r;
      }
    }
  }
}

// Launch shape: 2^lt threads, 2^le elements each.
G16_HD void scale_shape(uint32_t lg_n, uint32_t& lt, uint32_t& le) {
  lt = lg_n < 8 ? lg_n : 8;
  le = (lg_n - lt) < 5 ? (lg_n - lt) : 5;
}

// ---- bit reversal ------------------------------------------------------------------------------
// For lg_n >= 9: index = [a:2 | mid:lg_n-4 | b:2], bitrev = [rev b | rev mid | rev a]. A group of
// 16 threads swaps the 4x4 element blocks of mid and rev(mid) (each a set of four 128-byte runs),
// transposing through shared memory; groups with mid > rev(mid) idle. Smaller sizes: one block.
constexpr uint32_t kBrevSmallLog = 8;

G16_HD uint64_t brev_index(uint32_t lg_n, uint32_t a, uint64_t mid, uint32_t b) {
  return (uint64_t(a) << (lg_n - 2)) | (mid << 2) | b;
}

// Phase 1 for thread tid of block `block`: load both 4x4 blocks into s1/s2 (16 fr_t per group).
G16_HD void brev_load(fr_t* data, uint32_t lg_n, uint64_t block, uint32_t tid, fr_t* s1, fr_t* s2) {
  const uint32_t g = tid >> 4, a = (tid >> 2) & 3, b = tid & 3;
  const uint64_t mid = block * 16 + g, rmid = bitrev64(mid, lg_n - 4);
  if (mid > rmid) return;
  s1[tid] = ld_fr(data + brev_index(lg_n, a, mid, b));
  s2[tid] = ld_fr(data + brev_index(lg_n, a, rmid, b));
}
// Phase 2: data[rev(i)] = old data[i], written in coalesced order.
G16_HD void brev_store(fr_t* data, uint32_t lg_n, uint64_t block, uint32_t tid, const fr_t* s1,
                       const fr_t* s2) {
  const uint32_t g = tid >> 4, a = (tid >> 2) & 3, b = tid & 3;
  const uint64_t mid = block * 16 + g, rmid = bitrev64(mid, lg_n - 4);
  if (mid > rmid) return;
  const uint32_t src = (g << 4) | (bitrev(b, 2) << 2) | bitrev(a, 2);
  st_fr(data + brev_index(lg_n, a, rmid, b), s1[src]);
  if (mid != rmid) st_fr(data + brev_index(lg_n, a, mid, b), s2[src]);
}

// ---- (a*b - c) * factor --------------------------------------------------------------------------
// SCALE = false: the factor is 1 (the coset transforms fold it), one product fewer. MUL = false
// reads no b (a * 1), SUB = false no c (- 0): the H step in two buffers runs a = a b, then
// a = (a - c) factor once c has taken b's place.
template <bool SCALE = true, bool MUL = true, bool SUB = true>
G16_HD void h_point(fr_t* a, const fr_t* b, const fr_t* c, uint64_t i, const fr_t& factor) {
  fr_t d = ld_fr(a + i);
  if (MUL) d = d * ld_fr(b + i);
  if (SUB) d = d - ld_fr(c + i);
  st_fr(a + i, SCALE ? d * factor : d);
}

#if defined(__CUDACC__)

__global__ void __launch_bounds__(256) scale_powers_kernel(const __grid_constant__ scale_args a) {
  __shared__ fr_arg s_sq[32];
  __shared__ fr_t s_pb;
  if (threadIdx.x < a.lg_n) s_sq[threadIdx.x] = a.sq[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) s_pb = scale_block_factor(a, s_sq, blockIdx.x);
  __syncthreads();
  scale_thread<8>(a, s_sq, s_pb, blockIdx.x, threadIdx.x);
}

template <bool SCALE, bool MUL = true, bool SUB = true>
__global__ void __launch_bounds__(256) h_pointwise_kernel(fr_t* a, const fr_t* b,
                                                          const fr_t* c, size_t n,
                                                          const fr_arg factor) {
  const fr_t f = from_arg(factor);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    h_point<SCALE, MUL, SUB>(a, b, c, i, f);
}

__global__ void __launch_bounds__(256) bit_reverse_kernel(fr_t* data, uint32_t lg_n) {
  __shared__ fr_t s1[256], s2[256];
  brev_load(data, lg_n, blockIdx.x, threadIdx.x, s1, s2);
  __syncthreads();
  brev_store(data, lg_n, blockIdx.x, threadIdx.x, s1, s2);
}

// Sizes up to 2^kBrevSmallLog: one block, one element per thread.
__global__ void __launch_bounds__(256) bit_reverse_small_kernel(fr_t* data, uint32_t lg_n) {
  __shared__ fr_t s[1 << kBrevSmallLog];
  const uint32_t i = threadIdx.x;
  s[i] = ld_fr(data + i);
  __syncthreads();
  st_fr(data + bitrev(i, lg_n), s[i]);
}

#endif  // __CUDACC__

}  // namespace hpoly_detail

#if defined(__CUDACC__)

cudaError_t scale_powers(fr_t* data, uint32_t lg_n, const fr_t& first, const fr_t& ratio,
                         bool index_bitrev, cudaStream_t s) {
  using namespace hpoly_detail;
  if (data == nullptr || lg_n > 32) return cudaErrorInvalidValue;
  scale_args a;
  a.data = data;
  a.lg_n = lg_n;
  scale_shape(lg_n, a.lt, a.le);
  a.index_bitrev = index_bitrev ? 1 : 0;
  for (int i = 0; i < 8; i++) a.first.v[i] = first.v[i];
  fr_t sq = ratio;  // host-side Montgomery arithmetic (field.cuh's portable path)
  for (uint32_t q = 0; q < 32; q++) {
    for (int i = 0; i < 8; i++) a.sq[q].v[i] = q < lg_n ? sq.v[i] : 0;
    if (q + 1 < lg_n) sq = sq.sqr();
  }
  // lg_n = 0 (one element, exponent 0) still gives one block of one thread below.
  const uint64_t blocks = uint64_t(1) << (lg_n - a.lt - a.le);
  scale_powers_kernel<<<(unsigned)blocks, 1u << a.lt, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t h_pointwise(fr_t* a, const fr_t* b, const fr_t* c, size_t n, const fr_t& factor,
                        cudaStream_t s) {
  using namespace hpoly_detail;
  if (n == 0) return cudaSuccess;
  if (a == nullptr || (b == nullptr && c == nullptr)) return cudaErrorInvalidValue;
  fr_arg f;
  for (int i = 0; i < 8; i++) f.v[i] = factor.v[i];
  const unsigned threads = 256;
  const uint64_t want = (n + threads - 1) / threads;
  const unsigned blocks = (unsigned)(want < 132 * 64 ? want : 132 * 64);
  const bool one = factor == fr_t::one();
  if (b == nullptr) {  // a = (a - c) factor
    if (one) h_pointwise_kernel<false, false, true><<<blocks, threads, 0, s>>>(a, b, c, n, f);
    else h_pointwise_kernel<true, false, true><<<blocks, threads, 0, s>>>(a, b, c, n, f);
  } else if (c == nullptr) {  // a = a b factor
    if (one) h_pointwise_kernel<false, true, false><<<blocks, threads, 0, s>>>(a, b, c, n, f);
    else h_pointwise_kernel<true, true, false><<<blocks, threads, 0, s>>>(a, b, c, n, f);
  } else if (one) {
    h_pointwise_kernel<false><<<blocks, threads, 0, s>>>(a, b, c, n, f);
  } else {
    h_pointwise_kernel<true><<<blocks, threads, 0, s>>>(a, b, c, n, f);
  }
  return cudaGetLastError();
}

cudaError_t bit_reverse(fr_t* data, uint32_t lg_n, cudaStream_t s) {
  using namespace hpoly_detail;
  if (data == nullptr || lg_n > 36) return cudaErrorInvalidValue;
  if (lg_n == 0) return cudaSuccess;
  if (lg_n <= kBrevSmallLog) {
    bit_reverse_small_kernel<<<1, 1u << lg_n, 0, s>>>(data, lg_n);
  } else {
    const uint64_t groups = uint64_t(1) << (lg_n - 4);
    bit_reverse_kernel<<<(unsigned)(groups / 16), 256, 0, s>>>(data, lg_n);
  }
  return cudaGetLastError();
}

cudaError_t kernel_attributes(cudaFuncAttributes* out) {
  // Any production kernel will do: every production file is built for the same architectures.
  return cudaFuncGetAttributes(out, hpoly_detail::h_pointwise_kernel<true>);
}

#endif  // __CUDACC__

}  // namespace g16
