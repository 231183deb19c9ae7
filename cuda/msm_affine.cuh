// Batch-affine bucket accumulation for the Pippenger MSM (msm.cuh), G1.
//
// After the scatter a pass's entries are sorted by bucket. Each bucket is summed by a tree of
// rounds: round r adds its elements in pairs (2q, 2q + 1), so a bucket of c elements has
// ceil(c / 2) after the round, and one after ceil(log2 c) rounds. The additions of a round are
// independent, so they run in affine coordinates with Montgomery's trick: one field inversion
// per warp-batch instead of one per addition. An affine addition with the inversion shared is
// about 6 products (1 for the forward prefix, 2 to peel the inverse back, lambda, lambda^2,
// lambda (x1 - x3)) against 10 for the XYZZ mixed addition that the slices run.
//
// Layout of a round's outputs (no scan needed): bucket k's outputs start at position
// (in_off[k] + k) / 2. With in_off[k + 1] >= in_off[k] + in_cnt[k] this keeps the buckets'
// output ranges disjoint and in order (proof in ba_out_offset). Positions between ranges are
// gaps that no thread writes. A bucket whose round leaves one element writes it (as XYZZ) to
// its final bucket slot instead; later rounds skip it.
//
// One kernel per round: each warp owns 32 K output positions (lane l: base + l + 32 j). In its
// forward phase a lane classifies each pair, stores the exclusive prefix product of the
// denominators in the output slot (overwritten by the sum later), and multiplies its running
// product; the warp inverts the product of its lanes' products once (shuffle scans, one Fermat
// inversion computed by all lanes); the backward phase peels each position's inverse off and
// finishes the additions. The prefix products cost no memory of their own.
#ifndef GROTH16_C2_MSM_AFFINE_CUH
#define GROTH16_C2_MSM_AFFINE_CUH

#include "internal.cuh"

namespace g16 {

// What a pair's sum is.
enum ba_kind : uint32_t {
  kBaAdd = 0,     // different x: slope (y2 - y1) / (x2 - x1)
  kBaDouble = 1,  // the same point, y != 0: slope 3 x^2 / (2 y)
  kBaCopyA = 2,   // no second element, or the second is the identity
  kBaCopyB = 3,   // the first is the identity
  kBaInf = 4,     // P + (-P)
};

// Full classification of a + b (affine, the identity as (0, 0)).
template <class F>
G16_HD uint32_t ba_classify(const affine_t<F>& a, const affine_t<F>& b, bool has_b) {
  if (!has_b) return kBaCopyA;
  if (a.is_inf()) return kBaCopyB;
  if (b.is_inf()) return kBaCopyA;
  if (a.x != b.x) return kBaAdd;
  if (a.y == b.y && !a.y.is_zero()) return kBaDouble;
  return kBaInf;
}

// The slope's denominator for kinds that need one (add, double); 1 otherwise.
template <class F>
G16_HD F ba_denominator(uint32_t kind, const affine_t<F>& a, const affine_t<F>& b) {
  if (kind == kBaAdd) return b.x - a.x;
  if (kind == kBaDouble) return a.y + a.y;
  return F::one();
}

G16_HD bool ba_needs_inverse(uint32_t kind) { return kind <= kBaDouble; }

// a + b given the inverse of the kind's denominator.
template <class F>
G16_HD affine_t<F> ba_finish(uint32_t kind, const affine_t<F>& a, const affine_t<F>& b,
                             const F& inv) {
  switch (kind) {
    case kBaCopyA: return a;
    case kBaCopyB: return b;
    case kBaInf: return affine_t<F>{F::zero(), F::zero()};
    default: break;
  }
  F num;
  if (kind == kBaAdd) {
    num = b.y - a.y;
  } else {
    const F x2 = a.x.sqr();
    num = x2 + x2 + x2;
  }
  const F lambda = num * inv;
  affine_t<F> r;
  r.x = lambda.sqr() - a.x - b.x;
  r.y = lambda * (a.x - r.x) - a.y;
  return r;
}

// Start of bucket k's outputs in a round whose inputs start at in_off. For buckets k < k' with
// in_off[k'] >= in_off[k] + c (c = bucket k's input count), write a = in_off[k] + k: then
// in_off[k + 1] + k + 1 >= a + c + 1, and floor((a + c + 1) / 2) - floor(a / 2) >= ceil(c / 2)
// for both parities of a, so bucket k's ceil(c / 2) outputs end before bucket k + 1's start.
G16_HD uint32_t ba_out_offset(uint32_t in_off, uint32_t k) { return (in_off + k) >> 1; }

// Outputs of a bucket with c inputs in one round: 0 when it is already done (c <= 1).
G16_HD uint32_t ba_out_count(uint32_t c) { return c >= 2 ? (c + 1) >> 1 : 0; }

// An upper bound on the output positions of a round whose input positions are below s
// (round 0: s = the pass's entries), over `keys` buckets: the last bucket's outputs end by
// (in_off + c + keys) / 2 <= (s + keys) / 2.
G16_HD size_t ba_next_positions(size_t s, size_t keys) { return (s + keys) / 2 + 1; }

// Rounds that bring a bucket of up to m entries down to one.
G16_HD uint32_t ba_rounds(size_t m) {
  uint32_t r = 0;
  while ((size_t(1) << r) < m) r++;
  return r;
}

// Output positions per lane of a round over s positions, for a GPU that holds `resident` warps
// of the round kernel at once: one wave of warps where the round is small (each warp inverts
// once, so fewer and longer warps cost fewer inversions; late rounds hold few additions and
// many gaps), several waves of kBaMaxPerLane positions per lane where it is large.
// G16_BA_MAX_PER_LANE (a tuning switch): each warp inverts once per 32 K positions, ~650
// instructions per addition at K = 64 (see the README's issue-slot table), so larger caps trade
// waves for fewer inversions.
#ifndef G16_BA_MAX_PER_LANE
#define G16_BA_MAX_PER_LANE 64
#endif
constexpr uint32_t kBaMaxPerLane = G16_BA_MAX_PER_LANE;
G16_HD uint32_t ba_per_lane(size_t s, size_t resident) {
  if (resident < 1) resident = 1;
  const size_t per = (s + 32 * resident - 1) / (32 * resident);
  return per < 1 ? 1 : per > kBaMaxPerLane ? kBaMaxPerLane : (uint32_t)per;
}

// Bucket of output position i (i < off[keys]), trying the hint and its neighbours first: a
// lane's positions move 32 at a time, so they usually stay in one bucket or step to the next.
G16_HD uint32_t ba_locate(const uint32_t* off, uint32_t keys, uint32_t i, uint32_t hint) {
  if (hint < keys && off[hint] <= i && i < off[hint + 1]) return hint;
  if (hint + 1 < keys && off[hint + 1] <= i && i < off[hint + 2]) return hint + 1;
  if (hint >= 1 && hint <= keys && off[hint - 1] <= i && i < off[hint]) return hint - 1;
  return key_of_entry(off, keys, i);
}

// What output position i of a round does: bucket k's pair at input positions e and e + 1
// (has_b: the second exists), its sum going to the bucket itself when `final` (the bucket's
// last round) or to output slot i. False: a gap between two buckets' outputs.
struct ba_slot {
  uint32_t k, e;
  bool has_b, final;
};
G16_HD bool ba_position(const uint32_t* in_off, const uint32_t* in_cnt, const uint32_t* out_off,
                        const uint32_t* out_cnt, uint32_t keys, uint32_t i, uint32_t& hint,
                        ba_slot* s) {
  const uint32_t k = ba_locate(out_off, keys, i, hint);
  hint = k;
  const uint32_t q = i - out_off[k], oc = out_cnt[k];
  if (q >= oc) return false;
  s->k = k;
  s->e = in_off[k] + 2 * q;
  s->has_b = 2 * q + 1 < in_cnt[k];
  s->final = oc == 1;
  return true;
}

#if defined(__CUDACC__)

namespace ba_detail {

constexpr uint32_t kSignBit = 0x80000000u;

template <class F>
__device__ __forceinline__ F shfl_up(const F& x, uint32_t d) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_up_sync(0xffffffffu, s[i], d);
  return r;
}
template <class F>
__device__ __forceinline__ F shfl_down(const F& x, uint32_t d) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_down_sync(0xffffffffu, s[i], d);
  return r;
}
template <class F>
__device__ __forceinline__ F shfl_idx(const F& x, uint32_t lane) {
  F r;
  const uint32_t* s = reinterpret_cast<const uint32_t*>(&x);
  uint32_t* t = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(F) / 4); i++) t[i] = __shfl_sync(0xffffffffu, s[i], lane);
  return r;
}

// Out of line: every round kernel inverts once per warp and batch. The binary extended
// Euclidean algorithm, about a tenth of Fermat's cost: every lane of the warp runs it on the
// same value, so its branches never diverge, and the warp pays all of it for its 32 K
// additions (Fermat's ~570 products came to ~9 products per addition at K = 64).
template <class F>
__device__ __noinline__ F invert_cold(F x) {
  return x.inverse_vartime();
}

// Each lane's v^-1 (every v nonzero; all 32 lanes call it): prefix and suffix products across
// the lanes by shuffles, one inversion of the whole product, v^-1 = P_(l-1) S_(l+1) / total.
template <class F>
__device__ F warp_batch_inverse(const F& v) {
  const uint32_t lane = threadIdx.x & 31;
  F pre = v, suf = v;
#pragma unroll 1
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const F up = shfl_up(pre, d);
    const F dn = shfl_down(suf, d);
    if (lane >= d) pre = pre * up;
    if (lane + d < 32) suf = suf * dn;
  }
  const F inv = invert_cold(shfl_idx(pre, 31));
  F left = shfl_up(pre, 1), right = shfl_down(suf, 1);
  if (lane == 0) left = F::one();
  if (lane == 31) right = F::one();
  return inv * left * right;
}

// The element at position e of a round's input: round 0 reads the sorted entries (point index,
// sign in bit 31; an index past the points is the identity), later rounds the previous
// round's sums.
template <class F, bool FIRST>
struct ba_input {
  const affine_t<F>* points;
  size_t n_points;
  const uint32_t* entries;
  const affine_t<F>* prev;

  __device__ __forceinline__ F x(uint32_t e) const {
    if (FIRST) {
      const uint32_t idx = __ldg(entries + e) & ~kSignBit;
      if (idx >= n_points) return F::zero();
      return ldg_vec(&points[idx].x);
    }
    return ldg_vec(&prev[e].x);
  }
  __device__ __forceinline__ affine_t<F> point(uint32_t e) const {
    if (FIRST) {
      const uint32_t entry = __ldg(entries + e);
      const uint32_t idx = entry & ~kSignBit;
      if (idx >= n_points) return affine_t<F>{F::zero(), F::zero()};
      affine_t<F> p = ldg_vec(points + idx);
      if (entry & kSignBit) p.y = -p.y;
      return p;
    }
    return ldg_vec(prev + e);
  }
};

// Kind of the pair at input positions e, e + 1 (has_b: the second exists) from the x
// coordinates alone where they decide it; the points in full otherwise (identity, equal x).
// The rare cases (an identity, equal x) in full, out of line.
template <class F, bool FIRST>
__device__ __noinline__ uint32_t kind_and_denominator_cold(const ba_input<F, FIRST>* in,
                                                           uint32_t e, F* d) {
  const affine_t<F> a = in->point(e), b = in->point(e + 1);
  const uint32_t kind = ba_classify(a, b, true);
  *d = ba_denominator(kind, a, b);
  return kind;
}

template <class F, bool FIRST>
__device__ __forceinline__ uint32_t kind_and_denominator(const ba_input<F, FIRST>& in, uint32_t e,
                                                         bool has_b, F& d) {
  if (!has_b) return kBaCopyA;
  const F ax = in.x(e), bx = in.x(e + 1);
  if (!ax.is_zero() && !bx.is_zero() && ax != bx) {
    d = bx - ax;
    return kBaAdd;
  }
  return kind_and_denominator_cold(&in, e, &d);
}

// A bucket's final sum: written, or added to the earlier chunks' (once per bucket and chunk,
// so out of line: the round kernel's registers go to its additions).
template <class F>
__device__ __noinline__ void add_to_bucket(xyzz_t<F>* bucket, const affine_t<F>* p) {
  xyzz_t<F> acc = ld_vec(bucket);
  acc.add_affine(*p);
  st_vec(bucket, acc);
}

template <class F>
__device__ __forceinline__ void store_bucket(xyzz_t<F>* bucket, const affine_t<F>& p,
                                             bool accumulate) {
  if (accumulate) add_to_bucket(bucket, &p);
  else st_vec(bucket, xyzz_t<F>::from_affine(p));
}

// Buckets of 0 or 1 entries are final at once (the identity, or the point); the rest start
// round 0. Sets flag[0] when any bucket needs a round.
template <class F>
__global__ void __launch_bounds__(128)
    ba_setup_kernel(const affine_t<F>* points, size_t n_points, const uint32_t* entries,
                    const uint32_t* offsets, uint32_t keys, xyzz_t<F>* buckets, bool accumulate,
                    uint32_t* flag) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= keys) return;
  const uint32_t lo = offsets[k], c = offsets[k + 1] - lo;
  if (c >= 2) {
    *flag = 1;
    return;
  }
  if (c == 0) {
    if (!accumulate) st_vec(buckets + k, xyzz_t<F>::inf());
    return;
  }
  const ba_input<F, true> in{points, n_points, entries, nullptr};
  store_bucket(buckets + k, in.point(lo), accumulate);
}

// The output layout of round r from its input layout; sets flag_next when round r + 1 has work.
static __global__ void __launch_bounds__(256)
    ba_layout_kernel(const uint32_t* in_off, const uint32_t* in_cnt, uint32_t keys,
                     uint32_t positions, const uint32_t* flag, uint32_t* out_off,
                     uint32_t* out_cnt, uint32_t* flag_next) {
  if (*flag == 0) return;
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k == 0) out_off[keys] = positions;
  if (k >= keys) return;
  const uint32_t c = ba_out_count(in_cnt[k]);
  out_off[k] = ba_out_offset(in_off[k], k);
  out_cnt[k] = c;
  if (c >= 2) *flag_next = 1;
}

// One round: see the file comment. `positions` = out_off[keys] (the bound), `per_lane` = K.
// Blocks of 128 threads per SM the round kernel asks for (registers: 65536 / (128 * blocks)).
#ifndef G16_BA_MIN_BLOCKS
#define G16_BA_MIN_BLOCKS 4
#endif

template <class F, bool FIRST>
__global__ void __launch_bounds__(128, G16_BA_MIN_BLOCKS)
    ba_round_kernel(ba_input<F, FIRST> in, const uint32_t* in_off, const uint32_t* in_cnt,
                    const uint32_t* out_off, const uint32_t* out_cnt, uint32_t keys,
                    uint32_t positions, uint32_t per_lane, const uint32_t* flag,
                    affine_t<F>* out, xyzz_t<F>* buckets, bool accumulate) {
  if (*flag == 0) return;
  const uint32_t lane = threadIdx.x & 31;
  const size_t warp = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const size_t base = warp * 32 * per_lane;
  if (base >= positions) return;  // whole warps only: the shuffles need every lane

  // Forward: exclusive prefix products of the denominators, kept in the output slots.
  F acc = F::one();
  uint32_t hint = 0;
  for (uint32_t j = 0; j < per_lane; j++) {
    const size_t i = base + lane + 32 * size_t(j);
    if (i >= positions) break;
    ba_slot at;
    if (!ba_position(in_off, in_cnt, out_off, out_cnt, keys, (uint32_t)i, hint, &at)) continue;
    F d;
    const uint32_t kind = kind_and_denominator(in, at.e, at.has_b, d);
    if (!ba_needs_inverse(kind)) continue;
    st_vec(&out[i].x, acc);
    acc = acc * d;
  }

  F run = warp_batch_inverse(acc);

  // Backward: peel each position's inverse off the running inverse and finish its sum.
  for (uint32_t j = per_lane; j-- > 0;) {
    const size_t i = base + lane + 32 * size_t(j);
    if (i >= positions) continue;
    ba_slot at;
    if (!ba_position(in_off, in_cnt, out_off, out_cnt, keys, (uint32_t)i, hint, &at)) continue;
    const affine_t<F> a = in.point(at.e);
    const affine_t<F> b = at.has_b ? in.point(at.e + 1) : affine_t<F>{F::zero(), F::zero()};
    const uint32_t kind = ba_classify(a, b, at.has_b);
    F inv = F::zero();
    if (ba_needs_inverse(kind)) {
      inv = run * ld_vec(&out[i].x);
      run = run * ba_denominator(kind, a, b);
    }
    const affine_t<F> sum = ba_finish(kind, a, b, inv);
    if (at.final) store_bucket(buckets + at.k, sum, accumulate);
    else st_vec(out + i, sum);
  }
}

}  // namespace ba_detail

// Where a batch-affine pass keeps its rounds' state inside the MSM workspace.
template <class F>
struct ba_buffers {
  uint32_t* off[2];   // output layouts of even and odd rounds: keys + 1 offsets
  uint32_t* cnt[2];   // and keys counts
  uint32_t* flags;    // rounds + 1 words: round r has work
  affine_t<F>* buf[2];  // even rounds write buf[0], odd rounds buf[1]
};

// Sums every bucket of one pass (entries sorted by key, offsets with the total at [keys],
// counts[k] = offsets[k + 1] - offsets[k]) into buckets[0 .. keys): written, or added to what
// is there when `accumulate` (a later chunk of the same windows). `entries_bound` bounds the
// pass's entries (sizes the rounds' position spaces), `rounds` the rounds needed.
template <class F>
cudaError_t ba_accumulate(const affine_t<F>* points, size_t n_points, const uint32_t* entries,
                          const uint32_t* offsets, const uint32_t* counts, uint32_t keys,
                          size_t entries_bound, uint32_t rounds, const ba_buffers<F>& b,
                          xyzz_t<F>* buckets, bool accumulate, cudaStream_t s) {
  using namespace ba_detail;
  // Warps of the round kernel the GPU holds at once (both instances have the same bounds).
  int device = 0, sms = 0, blocks_per_sm = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (!err) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (!err)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm,
                                                        ba_round_kernel<F, false>, 128, 0);
  if (err) return err;
  const size_t resident = size_t(sms) * size_t(blocks_per_sm) * 4;
  err = cudaMemsetAsync(b.flags, 0, (rounds + 1) * sizeof(uint32_t), s);
  if (err) return err;
  const unsigned key_blocks = (unsigned)((keys + 127) / 128);
  ba_setup_kernel<F><<<key_blocks, 128, 0, s>>>(points, n_points, entries, offsets, keys,
                                                 buckets, accumulate, b.flags);
  size_t positions = entries_bound;
  for (uint32_t r = 0; r < rounds; r++) {
    positions = ba_next_positions(positions, keys);
    const uint32_t* in_off = r == 0 ? offsets : b.off[(r - 1) & 1];
    const uint32_t* in_cnt = r == 0 ? counts : b.cnt[(r - 1) & 1];
    uint32_t* out_off = b.off[r & 1];
    uint32_t* out_cnt = b.cnt[r & 1];
    ba_layout_kernel<<<(keys + 1 + 255) / 256, 256, 0, s>>>(
        in_off, in_cnt, keys, (uint32_t)positions, b.flags + r, out_off, out_cnt,
        b.flags + r + 1);
    const uint32_t per_lane = ba_per_lane(positions, resident);
    const size_t warps = (positions + 32 * size_t(per_lane) - 1) / (32 * size_t(per_lane));
    const unsigned blocks = (unsigned)((warps + 3) / 4);
    affine_t<F>* out = b.buf[r & 1];
    if (r == 0) {
      const ba_input<F, true> in{points, n_points, entries, nullptr};
      ba_round_kernel<F, true><<<blocks, 128, 0, s>>>(in, in_off, in_cnt, out_off, out_cnt, keys,
                                                     (uint32_t)positions, per_lane, b.flags + r,
                                                     out, buckets, accumulate);
    } else {
      const ba_input<F, false> in{points, n_points, entries, b.buf[(r - 1) & 1]};
      ba_round_kernel<F, false><<<blocks, 128, 0, s>>>(in, in_off, in_cnt, out_off, out_cnt,
                                                      keys, (uint32_t)positions, per_lane,
                                                      b.flags + r, out, buckets, accumulate);
    }
  }
  return cudaGetLastError();
}

#endif  // __CUDACC__

}  // namespace g16

#endif
