// Bitmap batch addition: the sum of the points whose bit is set, as partial sums per thread
// (one loop over each thread's set bits) reduced by the MSM's tree of sums.
#ifndef GROTH16_C2_BATCH_ADD_CUH
#define GROTH16_C2_BATCH_ADD_CUH

#include "msm_reduce.cuh"

namespace g16 {

// Bitmap words (64 points each) per thread: 8 (512 points, config.cuh; on the H200 3.5%
// faster than 4 at 2^24 and 2^26 points), fewer where that would leave fewer than
// G16_BATCH_MIN_THREADS threads: a streamed chunk of 2^22 points at 8 words per thread runs
// 8,192 threads, a fraction of one wave, each summing ~230 points one after another.
constexpr uint32_t kBatchWordsPerThread = G16_BATCH_WORDS_PER_THREAD;
constexpr size_t kBatchMinThreads = G16_BATCH_MIN_THREADS;
inline uint32_t batch_words_per_thread(size_t n_points) {
  const size_t k = (n_points + 63) / 64 / kBatchMinThreads;
  return k < 1 ? 1 : k > kBatchWordsPerThread ? kBatchWordsPerThread : (uint32_t)k;
}

// Workspace of a batch addition over n points: one partial sum per thread, twice (ping-pong).
inline size_t batch_add_partials(size_t n_points) {
  const size_t words = (n_points + 63) / 64, k = batch_words_per_thread(n_points);
  return (words + k - 1) / k;
}

// Workspace of a batch addition (host code, as the MSM's sizes in msm_plan.cuh).
template <class F>
size_t batch_add_workspace_size(size_t n_points) {
  return 2 * align_up(batch_add_partials(n_points) * sizeof(xyzz_t<F>));
}

#if defined(__CUDACC__)

namespace msm_detail {

// Thread i sums the points whose bit is set in words [i * k, (i + 1) * k) of the bitmap. One
// loop over the thread's set bits, fetching the next word only when the current one is spent,
// so lanes reconverge once per thread rather than once per word: a word's set-bit count
// varies between lanes, and a loop per word ran each warp at its busiest lane's count of each
// word (H200, 46% of the bits set: 1.29x this loop's time at 2^24 points, 1.05x at 2^26).
template <class F>
__global__ void __launch_bounds__(128) bitmap_sum_kernel(const affine_t<F>* points, size_t n_points,
                                                         const uint64_t* bitmap, size_t threads,
                                                         uint32_t k, xyzz_t<F>* partials) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= threads) return;
  const size_t words = (n_points + 63) / 64;
  const size_t end = (i + 1) * k < words ? (i + 1) * k : words;
  xyzz_t<F> acc = xyzz_t<F>::inf();
  size_t w = i * k;
  uint64_t bits = 0;
  for (;;) {
    while (bits == 0 && w < end) {
      bits = bitmap[w++];
      if (w == words && (n_points & 63)) bits &= (uint64_t(1) << (n_points & 63)) - 1;
    }
    if (bits == 0) break;
    const uint32_t b = __ffsll((long long)bits) - 1;
    bits &= bits - 1;
    acc.add_affine(ldg_vec(points + (w - 1) * 64 + b));
  }
  st_vec(partials + i, acc);
}

}  // namespace msm_detail

template <class F>
cudaError_t batch_add(const affine_t<F>* points, size_t n_points, const uint64_t* bitmap,
                      void* workspace, size_t workspace_bytes, xyzz_t<F>* result, cudaStream_t s) {
  using namespace msm_detail;
  typedef xyzz_t<F> P;
  if (n_points == 0) return cudaMemsetAsync(result, 0, sizeof(P), s);
  if (points == nullptr || bitmap == nullptr || workspace == nullptr || result == nullptr ||
      workspace_bytes < batch_add_workspace_size<F>(n_points))
    return cudaErrorInvalidValue;
  const size_t threads = batch_add_partials(n_points);
  P* a = static_cast<P*>(workspace);
  P* b = reinterpret_cast<P*>(static_cast<char*>(workspace) + align_up(threads * sizeof(P)));
  bitmap_sum_kernel<F><<<blocks_for(threads, 128), 128, 0, s>>>(
      points, n_points, bitmap, threads, batch_words_per_thread(n_points), a);
  P* sum;
  cudaError_t err = reduce_all<F>(a, b, threads, 1, s, &sum);
  if (err) return err;
  return cudaMemcpyAsync(result, sum, sizeof(P), cudaMemcpyDeviceToDevice, s);
}

#endif  // __CUDACC__

}  // namespace g16

#endif
