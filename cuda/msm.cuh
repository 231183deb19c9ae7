// Pippenger multi-scalar multiplication and bitmap batch addition over G1 or G2, as templates
// over the coordinate field; msm_g1.cu and msm_g2.cu instantiate them. See msm_plan for the
// work layout. No allocation here: the caller passes one workspace of msm_workspace_size bytes.
// This file holds the MSM's drivers; its stages live in msm_plan.cuh (plan, digits, workspace
// layout), msm_sort.cuh (count, scan, scatter), msm_buckets.cuh (slices, heads),
// msm_reduce.cuh (segments, reduce, combine), msm_precompute.cuh (precomputed copies) and
// batch_add.cuh (bitmap batch addition).
//
// MSM outline, per pass over a group of windows (the group bounds the sorted-entry memory):
//   count    one thread per scalar: signed c-bit digits, a histogram of (window, |digit|) keys
//   scan     bucket offsets: one block, or with windows above 16 bits (G16_MSM_MAX_WINDOW)
//            three kernels over chunks
//   scatter  one thread per scalar: point index (sign in bit 31) into its bucket's slice; for
//            large passes in two steps over sub-chunks of the scalars (binned scatter, below)
//   slices   one thread per slice of S sorted entries: XYZZ mixed additions, the sum flushed at
//            each bucket boundary (see sum_slice), so every thread does S additions however
//            the scalars fall: one bucket holding every point, or wide windows whose buckets
//            are smaller than a slice
//   heads    tree rounds over each bucket's run of head slots (the pieces of a bucket that
//            continue into later slices), then one thread per bucket adds its run's sum
//   segments one thread per run of buckets: running sums give sum (j + 1) * bucket_j
//   reduce   tree of sums down to one point per window
// then one thread combines the windows (Horner with c doublings per window).
//
// Precomputed multiples (`copies` m > 1, msm_precompute): the points buffer holds m copies,
// copy j = 2^(c j) P, so windows w and w + 1 of one group of m share one set of buckets: a
// digit of window w goes to group w / m's bucket with point (w % m) n_points + i. The bucket
// sums, segments and reductions then run once per group instead of once per window, and the
// combination doubles c m times per group. That makes wide windows (fewer additions) pay:
// their 2^(c-1) buckets cost about nine additions each, once per group.
#ifndef GROTH16_C2_MSM_CUH
#define GROTH16_C2_MSM_CUH

#include "batch_add.cuh"
#include "msm_buckets.cuh"
#include "msm_plan.cuh"
#include "msm_precompute.cuh"
#include "msm_reduce.cuh"
#include "msm_sort.cuh"

namespace g16 {

#if defined(__CUDACC__)

template <class F>
cudaError_t msm(const affine_t<F>* points, size_t n_points, const uint32_t* index,
                const fr_t* scalars, bool montgomery, size_t n, int strategy, void* workspace,
                size_t workspace_bytes, xyzz_t<F>* result, cudaStream_t s) {
  using namespace msm_detail;
  typedef xyzz_t<F> P;
  if (n == 0) return cudaMemsetAsync(result, 0, sizeof(P), s);
  msm_plan p;
  if (!make_msm_plan(n, sizeof(P), strategy, &p) || workspace_bytes < p.total || points == nullptr || scalars == nullptr ||
      workspace == nullptr || result == nullptr || (p.bitrev_lg != 0 && index != nullptr) ||
      n_points >= (size_t(1) << 31) / p.copies)
    return cudaErrorInvalidValue;
  // Every copy's points (see digit_entry); the slices read all of them.
  const size_t all_points = n_points * p.copies;
  const msm_ws<F> w(p, workspace);
  // A bucket holds at most one entry per scalar and window of its group.
  const uint32_t rounds = head_rounds(n * p.copies, p.slice);
  cudaError_t err;
  for (uint32_t w0 = 0; w0 < p.windows; w0 += p.per_pass) {
    const uint32_t w1 = w0 + p.per_pass < p.windows ? w0 + p.per_pass : p.windows;
    const uint32_t groups = pass_groups(p, w1 - w0), g0 = w0 / p.copies;
    const uint32_t keys = groups * p.buckets;
    if ((err = sort_chunk<F>(p, w, scalars, montgomery, index, n_points, 0, n, w0, w1, keys, s)))
      return err;
    slice_chunk<F>(p, w, points, all_points, keys, rounds, s);
    if ((err = reduce_pass<F>(p, w, groups, g0, s))) return err;
  }
  // One sum per group of windows, c m bits apart.
  combine_kernel<F><<<1, 1, 0, s>>>(w.windows, p.groups, p.c * p.copies, result);
  return cudaGetLastError();
}

// An MSM over chunks of the points that never share the device: msm_accumulate sums one
// chunk's s_k points[idx(k)] (n <= n_cap scalars; idx as in msm, natural order) into buckets in
// the scratch workspace (msm_accumulate_workspace_size bytes), as msm does, and adds those to
// the kept buckets (msm_accumulate_buckets_size bytes), `first` starting them from the chunk's;
// msm_accumulated reduces the kept buckets to the result. Every call of one accumulation passes
// the same n_cap and strategy, which lay out both and fix the window: the strategy must force
// one, so that every chunk adds into the same buckets. Between the calls only the kept buckets
// must be left alone: the scratch holds nothing from one call to the next (the streamed
// proof's other kernels share it). A large MSM in chunks then reduces its buckets once, not
// once per chunk.
template <class F>
cudaError_t msm_accumulate(const affine_t<F>* points, size_t n_points, const uint32_t* index,
                           const fr_t* scalars, bool montgomery, size_t n, size_t n_cap,
                           int strategy, void* buckets, size_t buckets_bytes, void* workspace,
                           size_t workspace_bytes, bool first, cudaStream_t s) {
  using namespace msm_detail;
  msm_plan p;
  if (!accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) || n > n_cap ||
      workspace_bytes < p.total || buckets_bytes < accumulate_kept_bytes(p, sizeof(xyzz_t<F>)) ||
      points == nullptr || scalars == nullptr || workspace == nullptr || buckets == nullptr ||
      n_points >= (size_t(1) << 31))
    return cudaErrorInvalidValue;
  const msm_ws<F> w(p, workspace);
  xyzz_t<F>* kept = static_cast<xyzz_t<F>*>(buckets);
  const uint32_t keys = pass_groups(p, p.windows) * p.buckets;
  if (n == 0) {
    // An empty chunk adds nothing; as the first it leaves every bucket the identity.
    return first ? cudaMemsetAsync(kept, 0, size_t(keys) * sizeof(xyzz_t<F>), s) : cudaSuccess;
  }
  cudaError_t err;
  if ((err = sort_chunk<F>(p, w, scalars, montgomery, index, n_points, 0, n, 0, p.windows, keys,
                           s)))
    return err;
  slice_chunk<F>(p, w, points, n_points, keys, head_rounds(n, p.slice), s);
  keep_buckets_kernel<F><<<blocks_for(keys, 128), 128, 0, s>>>(kept, w.buckets, keys, first);
  return cudaGetLastError();
}

template <class F>
cudaError_t msm_accumulated(size_t n_cap, int strategy, void* buckets, size_t buckets_bytes,
                            void* workspace, size_t workspace_bytes, xyzz_t<F>* result,
                            cudaStream_t s) {
  using namespace msm_detail;
  msm_plan p;
  if (!accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) || workspace_bytes < p.total ||
      buckets_bytes < accumulate_kept_bytes(p, sizeof(xyzz_t<F>)) || workspace == nullptr ||
      buckets == nullptr || result == nullptr)
    return cudaErrorInvalidValue;
  msm_ws<F> w(p, workspace);
  w.buckets = static_cast<xyzz_t<F>*>(buckets);
  cudaError_t err;
  if ((err = reduce_pass<F>(p, w, p.groups, 0, s))) return err;
  combine_kernel<F><<<1, 1, 0, s>>>(w.windows, p.groups, p.c, result);
  return cudaGetLastError();
}

#endif  // __CUDACC__

}  // namespace g16

#endif
