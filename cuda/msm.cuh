// Pippenger multi-scalar multiplication and bitmap batch addition over G1 or G2, as templates
// over the coordinate field; msm_g1.cu and msm_g2.cu instantiate them. See msm_plan for the
// work layout. No allocation here: the caller passes one workspace of msm_workspace_size bytes.
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

#include "config.cuh"
#include "curve.cuh"
#include "internal.cuh"

#include <type_traits>

namespace g16 {

// How a pass's buckets are summed (g16_msm's `strategy`): slices of XYZZ mixed additions.
// kMsmSlicesTestBinned runs the slices with the binned scatter at every size, over sub-chunks
// of kBinnedTestScalars (or more) scalars, so that tests reach at small sizes what passes of
// 2^24+ entries do.
enum msm_strategy : int { kMsmAuto = 0, kMsmSlices = 1, kMsmSlicesTestBinned = 2 };

// Sizes of one MSM, chosen from n and the strategy alone so that sizing and launching agree.
struct msm_plan {
  uint32_t c;            // window bits
  uint32_t windows;      // ceil(256 / c): scalars are below 2^255, so the last carry fits
  uint32_t buckets;      // per window: 2^(c-1) (signed digits)
  uint32_t per_pass;     // windows per pass
  uint32_t slice;        // sorted entries per accumulating thread (S)
  uint32_t seg;          // buckets per segment
  size_t max_entries;    // n * per_pass
  size_t max_slices;     // ceil(max_entries / S): head slots
  uint32_t scan_chunks;  // chunks of the multi-block scan (used above kSingleBlockScanKeys keys)
  uint32_t bitrev_lg;    // 0: scalar k goes with point k; else with point bitrev(k) of this many bits
  uint32_t copies;       // m: precomputed multiples per point (1: none); windows of a group share buckets
  uint32_t groups;       // ceil(windows / m): bucket sets, combined with c m doublings apart
  uint32_t subs;         // sub-chunks of the binned scatter per pass (1: the direct scatter)
  size_t sub_scalars;    // scalars per sub-chunk (the last one may be shorter)
  uint32_t bin_shift;    // binned scatter: key >> bin_shift is the key's bin
  uint32_t bins;         // bins per pass (at most kScatterBins)
  size_t max_pairs;      // (key, entry) pairs of one sub-chunk: sub_scalars * per_pass
  // Workspace layout (byte offsets).
  size_t off_counts, off_offsets, off_entries, off_heads, off_buckets, off_segs, off_windows,
      off_chunks, off_pairs, off_bins, total;
};

// The binned scatter. The direct scatter writes each entry straight to its slot (an atomic
// returns the slot), a random 4-byte write into an array of GBs: the H200 fills and writes back
// a 32-byte sector for each (Nsight Compute, 2^24 points over 12 copies: 12.1 GB of DRAM
// traffic for 0.8 GB of entries). For passes of kBinnedFromEntries+ entries over
// kBinnedFromKeys+ keys the scatter runs in two steps per sub-chunk of the scalars instead: the
// bin step writes (key, entry) pairs grouped by bin (a range of keys: runs reserved per block,
// so whole sectors), then the place step puts them in order, bin after bin, so that its writes
// stay within one bin's stretch of the entries, which L2 holds. Within a bucket the entries are ordered by sub-chunk: each (sub-chunk, key) has a
// cursor of its own, so a sub-chunk's entries of a bucket are one contiguous run.
// Measured on the H200 (2026-12-04, G1, ms, binned against direct): 22-bit windows over 12
// copies (2^21 keys) 97.2 / 98.2 at 2^24 and 366.9 / 369.9 at 2^26, plain 2^26 (4 windows of
// 2^19 per pass) 418.9 / 422.8; but plain 2^24 (2^19 keys) 130.5 / 122.5 and plain 2^27 (2^20
// keys) 846.9 against 820.8. So passes of 2^21+ keys only (2^27 over 6 copies: 731.3 against
// 757.0 last session).
constexpr uint32_t kScatterBins = 256;
constexpr size_t kBinnedFromEntries = size_t(1) << 24;
constexpr size_t kBinnedFromKeys = size_t(1) << 21;
// Pairs per sub-chunk (8 bytes each): about 1 GiB of workspace at most. 2^28 (3 sub-chunks
// instead of 6 over 12 copies at 2^26) measured the same on the H200 (2026-12-04: 367.9 against
// 366.8 ms).
constexpr size_t kBinnedPairs = size_t(1) << 27;
constexpr size_t kBinnedTestScalars = 1000;
constexpr size_t kBinnedTestSubs = 64;
// Windows per pass up to which the bin step keeps each digit's rank in shared memory.
constexpr uint32_t kBinnedMaxWindows = 16;
constexpr size_t kScatterPairBytes = 8;
// Two place steps without a returning global atomic per entry measured slower on the H200
// (2026-12-04, G1, 22-bit windows over 12 copies, MSM time against this place step): one block
// per bin with the bin's cursors in shared memory, 1.19-1.23x at 2^22-2^26 (every bin's entries
// written at once, past what L2 holds); tiles of 2^16 pairs in bin order, each counting its
// first bin's keys in shared memory and reserving one run per key (one global atomic per ~8
// entries), 1.03-1.04x at 2^22-2^27 (the pairs read twice). So the atomics are not what
// holds the place step.

// Window width from the size (config.cuh): log2(n) - 3 bits up to G16_MSM_MAX_WINDOW, and
// G16_MSM_WIDE_WINDOW bits from 2^G16_MSM_WIDE_FROM points up (0: never). Measured on the H100
// (G1, slices, ms; gpu_bench --msm-window): 2^24 143.6 at 16 bits, 150.8 at 20; 2^26 548.9 at
// 16, 501.9 at 20; 2^27 1105.2 at 16, 1091.1 at 18, 954.6 at 20, 1037.5 at 21, 1013.8 at 22.
// 20 bits is the widest that keeps 13 windows (21 bits doubles the buckets for the same 13);
// each bucket costs about nine additions (scan, segment sums), so 13 windows of 2^19 buckets
// beat 16 of 2^15 once n is above about 2^24.2.

// Keys per pass up to which one block scans them (every default plan: 16 windows of 2^15).
constexpr uint32_t kSingleBlockScanKeys = 1u << 19;
// Keys per thread of the multi-block scan.
constexpr uint32_t kScanChunk = 64;

G16_HD uint32_t lg_floor(uint64_t n) {
  uint32_t r = 0;
  while (n > 1) { n >>= 1; r++; }
  return r;
}

G16_HD size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

// Bucket sets of a pass over `windows` windows (its first window a multiple of p.copies).
G16_HD uint32_t pass_groups(const msm_plan& p, uint32_t windows) {
  return (windows + p.copies - 1) / p.copies;
}

// A digit of window w (counted from the pass's first) with magnitude b + 1: its bucket key in
// the pass, and the copy of the points it adds (point index offset: copy * n_points).
G16_HD uint32_t digit_key(const msm_plan& p, uint32_t w, uint32_t b) {
  return (p.copies == 1 ? w : w / p.copies) * p.buckets + b;
}
G16_HD uint32_t digit_copy(const msm_plan& p, uint32_t w) {
  return p.copies == 1 ? 0 : w % p.copies;
}

// A sorted entry: the point's index in its copy (copy * n_points + point; a point at or past
// n_points is the identity and stays past every copy), the digit's sign in bit 31. The caller
// keeps copies * n_points below 2^31.
constexpr uint32_t kEntrySign = 0x80000000u;
constexpr uint32_t kEntryNoPoint = 0x7fffffffu;
G16_HD uint32_t digit_entry(uint32_t point, uint32_t copy, size_t n_points, bool neg) {
  const uint32_t idx = point < n_points ? point + copy * uint32_t(n_points) : kEntryNoPoint;
  return idx | (neg ? kEntrySign : 0u);
}

// xyzz_bytes: sizeof(xyzz_t) of the curve. Returns false if n is too large.
// `code`: the strategy in bits 0-7, a forced window width in bits 8-15 (0: from n; 4..24),
// in bits 16-20 the scalars' order: 0 natural, else bit-reversed over that many bits
// (n <= 2^bits; the H step's h comes out of its last transform that way), and in bits 21-25
// the precomputed copies m of the points (0 or 1: none; else 2..windows, slices only, with a
// forced width: the copies were made for it).
inline bool make_msm_plan(size_t n, size_t xyzz_bytes, int code, msm_plan* p) {
  if (n == 0 || n >= (size_t(1) << 31) || code < 0) return false;
  const int strategy = code & 0xff;
  const uint32_t forced = (uint32_t(code) >> 8) & 0xff;
  const uint32_t bitrev_lg = (uint32_t(code) >> 16) & 0x1f;
  uint32_t copies = (uint32_t(code) >> 21) & 0x1f;
  if (strategy > kMsmSlicesTestBinned || (uint32_t(code) >> 26) != 0) return false;
  if (forced != 0 && (forced < 4 || forced > 24)) return false;
  if (copies == 0) copies = 1;
  if (copies > 1 && forced == 0) return false;
  if (bitrev_lg != 0 && n > (size_t(1) << bitrev_lg)) return false;
  p->bitrev_lg = bitrev_lg;
  const uint32_t lg = lg_floor(n);
  uint32_t c = lg > 3 ? lg - 3 : 1;
  if (c < 4) c = 4;
  if (c > G16_MSM_MAX_WINDOW) c = G16_MSM_MAX_WINDOW;
  if (G16_MSM_WIDE_WINDOW != 0 && lg >= G16_MSM_WIDE_FROM) c = G16_MSM_WIDE_WINDOW;
  if (forced) c = forced;
  p->c = c;
  p->windows = (256 + c - 1) / c;
  p->buckets = 1u << (c - 1);
  if (copies > p->windows) return false;
  p->copies = copies;
  p->groups = (p->windows + copies - 1) / copies;
  // At most 2^28 entries (1 GiB) per pass.
  uint64_t per = (uint64_t(1) << 28) / n;
  // With copies, whole groups per pass (their windows share buckets).
  per = per / copies * copies;
  if (per < copies) per = copies;
  if (per > p->windows) per = p->windows;
  // The binned scatter (see kScatterBins), for large passes: at most kBinnedMaxWindows
  // windows per pass (whole groups).
  const size_t pass_keys = size_t((per + copies - 1) / copies) * (size_t(1) << (c - 1));
  const bool binned = copies <= kBinnedMaxWindows &&
                      (strategy == kMsmSlicesTestBinned ||
                       (n * per >= kBinnedFromEntries && pass_keys >= kBinnedFromKeys));
  if (binned && per > kBinnedMaxWindows) per = kBinnedMaxWindows / copies * copies;
  p->per_pass = (uint32_t)per;
  p->max_entries = n * p->per_pass;
  if (p->max_entries >= (uint64_t(1) << 32)) return false;  // entry offsets are 32-bit
  // About 2^20 slices per pass: enough threads to fill the GPU several times over, and few
  // enough that the flushes (one per bucket boundary) and the head slots stay cheap.
  uint64_t t = p->max_entries >> 20;
  if (t < 16) t = 16;
  if (t > 256) t = 256;
  p->slice = (uint32_t)t;
  const size_t keys = size_t(pass_groups(*p, p->per_pass)) * p->buckets;
  p->max_slices = (p->max_entries + p->slice - 1) / p->slice;
  p->seg = p->buckets < 64 ? p->buckets : 64;
  const size_t segs = keys / p->seg;
  p->subs = 1;
  p->sub_scalars = n;
  p->bin_shift = 0;
  p->bins = 0;
  p->max_pairs = 0;
  if (binned) {
    if (strategy == kMsmSlicesTestBinned) {
      // Small sub-chunks, at most kBinnedTestSubs of them (each has a histogram of the keys).
      p->sub_scalars = (n + kBinnedTestSubs - 1) / kBinnedTestSubs;
      if (p->sub_scalars < kBinnedTestScalars) p->sub_scalars = kBinnedTestScalars;
    } else {
      const size_t subs = (n * p->per_pass + kBinnedPairs - 1) / kBinnedPairs;
      p->sub_scalars = (n + subs - 1) / subs;
    }
    if (p->sub_scalars > n) p->sub_scalars = n;
    p->subs = (uint32_t)((n + p->sub_scalars - 1) / p->sub_scalars);
    while ((size_t(kScatterBins) << p->bin_shift) < keys) p->bin_shift++;
    p->bins = (uint32_t)((keys + (size_t(1) << p->bin_shift) - 1) >> p->bin_shift);
    p->max_pairs = p->sub_scalars * p->per_pass;
  }
  size_t off = 0;
  // Counts (then fill cursors) per sub-chunk, keys + 1 apart.
  p->off_counts = off;       off = align_up(off + p->subs * (keys + 1) * 4);
  p->off_offsets = off;      off = align_up(off + (keys + 1) * 4);
  p->off_entries = off;      off = align_up(off + p->max_entries * 4);
  p->off_heads = off;        off = align_up(off + p->max_slices * xyzz_bytes);
  p->off_buckets = off;      off = align_up(off + keys * xyzz_bytes);
  // Segment sums and their reduction tree (ping-pong halves).
  p->off_segs = off;         off = align_up(off + 2 * segs * xyzz_bytes);
  p->off_windows = off;      off = align_up(off + p->windows * xyzz_bytes);
  p->scan_chunks = (uint32_t)((keys + kScanChunk - 1) / kScanChunk);
  p->off_chunks = off;       off = align_up(off + (size_t(p->scan_chunks) + 1) * 4);
  p->off_pairs = off;        off = align_up(off + p->max_pairs * kScatterPairBytes);
  // Per sub-chunk: each bin's pair count, then its cursor in the pairs (and the total).
  p->off_bins = off;         off = align_up(off + (binned ? p->subs * 2 * (p->bins + 1) * 4 : 0));
  p->total = off;
  return true;
}

// The accumulation's index logic, shared by the kernels and the host check
// (host_check/emu_msm.cpp). A pass's entries, sorted by key, are cut into slices of S; thread t
// sums slice t, flushing its sum at each bucket boundary. A bucket that began before the slice
// is flushed to the slice's head slot; any other to the bucket itself, which is then complete
// or is continued by the head slots of the slices after its first (its "run"). A tree over each
// run leaves the run's sum in its first slot, which the finishing step adds to the bucket.

// Sums the entries [begin, end) (end <= offsets[keys]): add(acc, entry) for each, and
// flush(key, acc, head) at each bucket boundary and at the end, head telling whether the
// bucket began before `begin`.
template <class Acc, class Add, class Flush>
G16_HD void sum_slice(const uint32_t* offsets, uint32_t keys, const uint32_t* entries,
                      uint32_t begin, uint32_t end, Add add, Flush flush) {
  uint32_t key = key_of_entry(offsets, keys, begin);
  bool head = offsets[key] < begin;
  uint32_t bound = offsets[key + 1];
  Acc acc = Acc::inf();
  for (uint32_t e = begin; e < end; e++) {
    if (e == bound) {
      flush(key, acc, head);
      // Usually the next key; a binary search past empty buckets. key + 1 < keys here, as
      // offsets[key + 1] = e < offsets[keys].
      key++;
      bound = offsets[key + 1];
      if (bound <= e) {
        key = key_of_entry(offsets, keys, e);
        bound = offsets[key + 1];
      }
      head = false;
      acc = Acc::inf();
    }
    add(acc, entries[e]);
  }
  flush(key, acc, head);
}

// How many head slots after slot t its tree round with this stride adds into it (0: none).
// Slot t holds a piece of the bucket holding entry t * S when that bucket began before
// slice t; the bucket's run is the slots [first, last].
G16_HD uint32_t head_round_span(const uint32_t* offsets, uint32_t keys, uint32_t slice, uint32_t t,
                                uint32_t stride) {
  const uint32_t begin = t * slice;
  const uint32_t key = key_of_entry(offsets, keys, begin);
  const uint32_t lo = offsets[key];
  if (lo == begin) return 0;
  const uint32_t first = lo / slice + 1, last = (offsets[key + 1] - 1) / slice;
  if ((t - first) % (8 * stride) != 0) return 0;
  const uint32_t more = (last - t) / stride;
  return more < 7 ? more : 7;
}

// How bucket k is finished: 0 empty (the identity), 1 complete as flushed, 2 add head slot
// *slot (its run's sum after the tree rounds).
G16_HD uint32_t bucket_finish(const uint32_t* offsets, uint32_t k, uint32_t slice,
                              uint32_t* slot) {
  const uint32_t lo = offsets[k], hi = offsets[k + 1];
  if (lo == hi) return 0;
  const uint32_t first = lo / slice;
  if (first == (hi - 1) / slice) return 1;
  *slot = first + 1;
  return 2;
}

// The plan of an accumulation over chunks of at most n_cap scalars (see msm_accumulate); false
// where one cannot run: precomputed copies, bit-reversed scalars, no forced window (every chunk
// must take the same), or windows that need several passes.
inline bool accumulate_plan(size_t n_cap, size_t xyzz_bytes, int strategy, msm_plan* p) {
  if (!make_msm_plan(n_cap, xyzz_bytes, strategy, p)) return false;
  const uint32_t forced = (uint32_t(strategy) >> 8) & 0xff;
  return p->copies == 1 && p->bitrev_lg == 0 && forced != 0 && p->per_pass >= p->windows;
}

// Where a slice's flushed sum of one bucket lands: the slice's head slot when the bucket began
// before the slice, else the bucket itself: stored, or, accumulating over chunks of the points,
// added to what the chunks before left there.
constexpr int kFlushHead = 0, kFlushStore = 1, kFlushAdd = 2;
G16_HD int flush_lands(bool accumulate, bool head) {
  return head ? kFlushHead : accumulate ? kFlushAdd : kFlushStore;
}
// Whether the finishing step makes an empty bucket the identity (accumulating, it keeps what
// the chunks before left).
G16_HD bool empty_bucket_cleared(bool accumulate) { return !accumulate; }

// Tree rounds needed over head runs of an n-scalar pass: a bucket holds at most n entries, so
// its run has at most ceil(n / S) slots; strides 1, 8, 64, ... below that.
inline uint32_t head_rounds(size_t n, uint32_t slice) {
  const uint64_t most = (n + slice - 1) / slice;
  uint32_t r = 0;
  for (uint64_t stride = 1; stride < most; stride *= 8) r++;
  return r;
}

// Workspace of a batch addition over n points: one partial sum per thread, twice (ping-pong).
// 8 words (512 points) per thread (config.cuh): on the H200 3.5% faster than 4 at 2^24 and
// 2^26 points.
constexpr uint32_t kBatchWordsPerThread = G16_BATCH_WORDS_PER_THREAD;
inline size_t batch_add_partials(size_t n_points) {
  const size_t words = (n_points + 63) / 64;
  return (words + kBatchWordsPerThread - 1) / kBatchWordsPerThread;
}

// The scalars' signed digits, shared by the kernels and the host check (emu_msm.cpp).
// c bits of the scalar at bit `off` (c <= 32, off < 256).
G16_HD uint32_t scalar_bits(const uint32_t s[8], uint32_t off, uint32_t c) {
  const uint32_t limb = off >> 5, sh = off & 31;
  uint64_t v = s[limb];
  if (limb + 1 < 8) v |= uint64_t(s[limb + 1]) << 32;
  return uint32_t(v >> sh) & ((1u << c) - 1);
}

// Calls f(window, bucket, negative) for every nonzero signed digit of windows [w0, w1), the
// window counted from w0.
template <class Fn>
G16_HD void for_each_digit(const uint32_t s[8], const msm_plan& p, uint32_t w0, uint32_t w1,
                           Fn f) {
  const uint32_t half = p.buckets, full = 1u << p.c;
  uint32_t carry = 0;
  for (uint32_t w = 0; w < w1; w++) {
    uint32_t d = scalar_bits(s, w * p.c, p.c) + carry;
    bool neg = false;
    if (d > half) {
      d = full - d;  // digit d - 2^c, negative; its magnitude is 2^c - d (0 when d == 2^c)
      neg = true;
      carry = 1;
    } else {
      carry = 0;
    }
    if (w >= w0 && d != 0) f(w - w0, d - 1, neg);
  }
}

// Workspace of a batch addition (host code, as the MSM's size below).
template <class F>
size_t batch_add_workspace_size(size_t n_points) {
  return 2 * align_up(batch_add_partials(n_points) * sizeof(xyzz_t<F>));
}

#if defined(__CUDACC__)

namespace ba_detail {

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

// Out of line: one inversion per warp. The binary extended Euclidean algorithm, about a tenth
// of Fermat's cost: every lane of the warp runs it on the same value, so its branches never
// diverge.
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

}  // namespace ba_detail

namespace msm_detail {

constexpr uint32_t kSignBit = kEntrySign;

__device__ __forceinline__ void load_scalar(const fr_t* scalars, size_t i, bool montgomery,
                                            uint32_t s[8]) {
  fr_t x = ldg_fr(scalars + i);
  if (montgomery) x = x.from_mont();
#pragma unroll
  for (int k = 0; k < 8; k++) s[k] = x.v[k];
}

// Histogram of the keys, one per sub-chunk of p.sub_scalars scalars (`count_stride` apart).
static __global__ void count_kernel(const fr_t* scalars, bool montgomery, size_t n, msm_plan p, uint32_t w0,
                             uint32_t w1, uint32_t* counts, uint32_t count_stride) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t s[8];
    load_scalar(scalars, i, montgomery, s);
    uint32_t* sub_counts = counts + size_t(i / p.sub_scalars) * count_stride;
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool) {
      atomicAdd(&sub_counts[digit_key(p, w, b)], 1u);
    });
  }
}

constexpr int kScanThreads = 1024;

// Exclusive scan, across one block of kScanThreads threads, of one per-thread sum: on return
// it holds the sum over the threads before this one; total gets the block's sum.
__device__ __forceinline__ void block_exclusive_scan(uint32_t& e, uint32_t* sums,
                                                     uint32_t& total) {
  sums[threadIdx.x] = e;
  __syncthreads();
  // Hillis-Steele inclusive scan of the per-thread sums.
  for (int d = 1; d < kScanThreads; d <<= 1) {
    const uint32_t add = (int)threadIdx.x >= d ? sums[threadIdx.x - d] : 0;
    __syncthreads();
    sums[threadIdx.x] += add;
    __syncthreads();
  }
  e = threadIdx.x ? sums[threadIdx.x - 1] : 0;
  total = sums[kScanThreads - 1];
}

}  // namespace msm_detail
#endif  // __CUDACC__ (reopened below)

// Entries of the keys [lo, hi), over `subs` histograms `stride` apart.
G16_HD uint32_t sum_counts(const uint32_t* counts, uint32_t lo, uint32_t hi, uint32_t subs,
                           uint32_t stride) {
  uint32_t e = 0;
  for (uint32_t sub = 0; sub < subs; sub++)
    for (uint32_t k = lo; k < hi; k++) e += counts[size_t(sub) * stride + k];
  return e;
}

// Offsets of the keys [lo, hi) from the prefix e before lo, which it advances past hi; their
// counts become the scatter's fill cursors, each starting at its key's offset, so that the
// scatter's atomic returns an entry's slot without a read of the offsets. With sub-chunks
// (the binned scatter) a key's entries are ordered by sub-chunk, each with a cursor of its own.
G16_HD void write_offsets(uint32_t* counts, uint32_t lo, uint32_t hi, uint32_t& e,
                          uint32_t* offsets, uint32_t subs, uint32_t stride) {
  for (uint32_t k = lo; k < hi; k++) {
    offsets[k] = e;
    for (uint32_t sub = 0; sub < subs; sub++) {
      uint32_t& c = counts[size_t(sub) * stride + k];
      const uint32_t here = c;
      c = e;
      e += here;
    }
  }
}

#if defined(__CUDACC__)
namespace msm_detail {

// One block: exclusive scan of counts into offsets, with the total at [keys]; counts become
// the scatter's fill cursors (see write_offsets).
static __global__ void __launch_bounds__(kScanThreads) scan_kernel(uint32_t* counts, uint32_t keys,
                                                                   uint32_t* offsets, uint32_t subs,
                                                                   uint32_t stride) {
  __shared__ uint32_t sums[kScanThreads];
  const uint32_t per = (keys + kScanThreads - 1) / kScanThreads;
  const uint32_t lo = min(threadIdx.x * per, keys);
  const uint32_t hi = min(lo + per, keys);
  uint32_t e = sum_counts(counts, lo, hi, subs, stride);
  uint32_t total;
  block_exclusive_scan(e, sums, total);
  write_offsets(counts, lo, hi, e, offsets, subs, stride);
  if (threadIdx.x == kScanThreads - 1) offsets[keys] = total;
}

// The same scan over more keys, in three steps. 1: thread i sums chunk i of the counts.
static __global__ void chunk_sums_kernel(const uint32_t* counts, uint32_t keys, uint32_t chunks,
                                         uint32_t* chunk_e, uint32_t subs, uint32_t stride) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= chunks) return;
  const uint32_t lo = i * kScanChunk, hi = min(lo + kScanChunk, keys);
  chunk_e[i] = sum_counts(counts, lo, hi, subs, stride);
}

// 2: one block turns the chunk sums into exclusive prefix sums, in place.
static __global__ void __launch_bounds__(kScanThreads) chunk_scan_kernel(uint32_t chunks,
                                                                         uint32_t* chunk_e) {
  __shared__ uint32_t sums[kScanThreads];
  const uint32_t per = (chunks + kScanThreads - 1) / kScanThreads;
  const uint32_t lo = threadIdx.x * per;
  const uint32_t hi = min(lo + per, chunks);
  uint32_t e = 0;
  for (uint32_t k = lo; k < hi; k++) e += chunk_e[k];
  uint32_t total;
  block_exclusive_scan(e, sums, total);
  for (uint32_t k = lo; k < hi; k++) {
    const uint32_t ce = chunk_e[k];
    chunk_e[k] = e;
    e += ce;
  }
}

// 3: thread i writes the offsets of chunk i from its prefix, and its fill cursors.
static __global__ void chunk_apply_kernel(uint32_t* counts, uint32_t keys, uint32_t chunks,
                                          const uint32_t* chunk_e, uint32_t* offsets,
                                          uint32_t subs, uint32_t stride) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= chunks) return;
  const uint32_t lo = i * kScanChunk, hi = min(lo + kScanChunk, keys);
  uint32_t e = chunk_e[i];
  write_offsets(counts, lo, hi, e, offsets, subs, stride);
  if (i == chunks - 1) offsets[keys] = e;
}

// Bucket offsets of `keys` counts, by whichever scan suits their number.
inline void scan_counts(uint32_t* counts, uint32_t keys, uint32_t* offsets, uint32_t* chunk_e,
                        uint32_t subs, uint32_t stride, cudaStream_t s) {
  if (keys <= kSingleBlockScanKeys) {
    scan_kernel<<<1, kScanThreads, 0, s>>>(counts, keys, offsets, subs, stride);
    return;
  }
  const uint32_t chunks = (keys + kScanChunk - 1) / kScanChunk;
  const unsigned blocks = (chunks + 255) / 256;
  chunk_sums_kernel<<<blocks, 256, 0, s>>>(counts, keys, chunks, chunk_e, subs, stride);
  chunk_scan_kernel<<<1, kScanThreads, 0, s>>>(chunks, chunk_e);
  chunk_apply_kernel<<<blocks, 256, 0, s>>>(counts, keys, chunks, chunk_e, offsets, subs, stride);
}

// Scalar i's point is index[i], or without an index position k = base + i (base: the chunk's
// first scalar), or bitrev(k) when the scalars are in bit-reversed order; in the copy of the
// digit's window (see digit_entry).
static __global__ void scatter_kernel(const fr_t* scalars, bool montgomery, const uint32_t* index,
                                      size_t n_points, uint32_t base, size_t n, msm_plan p,
                                      uint32_t w0, uint32_t w1, uint32_t* fill,
                                      uint32_t* entries) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t s[8];
    load_scalar(scalars, i, montgomery, s);
    const uint32_t k = base + (uint32_t)i;
    const uint32_t point = index ? __ldg(index + i)
                           : p.bitrev_lg ? __brev(k) >> (32 - p.bitrev_lg)
                                         : k;
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
      const uint32_t at = atomicAdd(&fill[digit_key(p, w, b)], 1u);
      entries[at] = digit_entry(point, digit_copy(p, w), n_points, neg);
    });
  }
}

// The binned scatter (see kScatterBins), per sub-chunk `sub` of the scalars. `bins` holds per
// sub-chunk 2 (p.bins + 1) words: each bin's pair count, then each bin's cursor into the
// sub-chunk's pairs and, at [p.bins], their total.

// 1: bin b's pair count in sub-chunk blockIdx.y (block b sums its keys' counts).
static __global__ void bin_counts_kernel(const uint32_t* counts, uint32_t count_stride,
                                         uint32_t keys, msm_plan p, uint32_t* bins) {
  __shared__ uint32_t part[256];
  const uint32_t b = blockIdx.x, sub = blockIdx.y;
  const uint32_t lo = b << p.bin_shift, hi = min(lo + (1u << p.bin_shift), keys);
  const uint32_t* c = counts + size_t(sub) * count_stride;
  uint32_t e = 0;
  for (uint32_t k = lo + threadIdx.x; k < hi; k += blockDim.x) e += c[k];
  part[threadIdx.x] = e;
  __syncthreads();
  for (uint32_t d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) part[threadIdx.x] += part[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) bins[size_t(sub) * 2 * (p.bins + 1) + b] = part[0];
}

// 2: one block per sub-chunk: each bin's cursor (exclusive prefix of the counts), the total.
static __global__ void __launch_bounds__(kScatterBins) bin_scan_kernel(msm_plan p, uint32_t* bins) {
  __shared__ uint32_t sums[kScatterBins];
  uint32_t* counts = bins + size_t(blockIdx.x) * 2 * (p.bins + 1);
  uint32_t* cursors = counts + p.bins + 1;
  const uint32_t b = threadIdx.x;
  sums[b] = b < p.bins ? counts[b] : 0;
  __syncthreads();
  for (uint32_t d = 1; d < kScatterBins; d <<= 1) {
    const uint32_t add = b >= d ? sums[b - d] : 0;
    __syncthreads();
    sums[b] += add;
    __syncthreads();
  }
  if (b < p.bins) cursors[b] = b ? sums[b - 1] : 0;
  if (b == 0) cursors[p.bins] = sums[kScatterBins - 1];
}

// 3, the bin step: one thread per scalar of the sub-chunk [lo, hi), blocks of kScatterBins.
// A block ranks its digits per bin in shared memory, reserves one run per bin with one atomic,
// and writes its (key, entry) pairs there.
static __global__ void __launch_bounds__(kScatterBins)
    bin_kernel(const fr_t* scalars, bool montgomery, const uint32_t* index, size_t n_points,
               uint32_t base, size_t lo, size_t hi, msm_plan p, uint32_t w0, uint32_t w1,
               uint32_t* cursors, uint2* pairs) {
  __shared__ uint32_t hist[kScatterBins];
  __shared__ uint32_t run[kScatterBins];
  __shared__ uint16_t rank[kBinnedMaxWindows][kScatterBins];
  const uint32_t tid = threadIdx.x;
  hist[tid] = 0;
  __syncthreads();
  const size_t i = lo + size_t(blockIdx.x) * kScatterBins + tid;
  const bool live = i < hi;
  uint32_t s[8];
  if (live) {
    load_scalar(scalars, i, montgomery, s);
    for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool) {
      rank[w][tid] = (uint16_t)atomicAdd(&hist[digit_key(p, w, b) >> p.bin_shift], 1u);
    });
  }
  __syncthreads();
  if (hist[tid] != 0) run[tid] = atomicAdd(&cursors[tid], hist[tid]);
  __syncthreads();
  if (!live) return;
  const uint32_t k = base + (uint32_t)i;
  const uint32_t point = index ? __ldg(index + i)
                         : p.bitrev_lg ? __brev(k) >> (32 - p.bitrev_lg)
                                       : k;
  for_each_digit(s, p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
    const uint32_t key = digit_key(p, w, b);
    pairs[run[key >> p.bin_shift] + rank[w][tid]] =
        make_uint2(key, digit_entry(point, digit_copy(p, w), n_points, neg));
  });
}

// 4, the place step: one thread per pair, in bin order; `fill` is the sub-chunk's cursors.
static __global__ void place_kernel(const uint2* pairs, const uint32_t* total, size_t most,
                                    uint32_t* fill, uint32_t* entries) {
  const size_t n = min(size_t(*total), most);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride) {
    const uint2 pr = pairs[j];
    entries[atomicAdd(&fill[pr.x], 1u)] = pr.y;
  }
}

// The kernels below the accumulation (tree rounds, segment sums, window reductions, Horner) do
// about a thousandth of the additions; they call one out-of-line copy of the general addition
// and doubling instead of inlining a fresh copy at every call site, which keeps nvcc's time per
// architecture and the fatbin size down at no measurable cost.
template <class F>
__device__ __noinline__ void add_cold(xyzz_t<F>& acc, const xyzz_t<F>& q) {
  acc.add(q);
}

template <class F>
__device__ __noinline__ void dbl_cold(xyzz_t<F>& acc) {
  acc.dbl();
}

// acc = k * acc (double-and-add, most significant bit first), out of line as above.
template <class F>
__device__ __noinline__ void mul_small_cold(xyzz_t<F>& acc, uint32_t k) {
  const xyzz_t<F> base = acc;
  acc = xyzz_t<F>::inf();
  for (int i = 31; i >= 0; i--) {
    dbl_cold(acc);
    if ((k >> i) & 1) add_cold(acc, base);
  }
}

// Thread t sums slice t of the sorted entries (see sum_slice), writing each flushed sum to the
// slice's head slot or to its bucket. Three blocks per SM (config.cuh): left alone, ptxas takes
// 180 registers (two blocks); at 168 it spills a few bytes, off the additions. G2's additions
// hold twice the field elements: at 168 registers its slice kernel spills 1,540 bytes per
// thread (sm_90), at 255 (2 blocks) 184, which measured no faster (H200, 2^27 partition: G2
// tail 83.6 ms against 82.6).
template <class F>
constexpr int slice_min_blocks() {
  return std::is_same<F, fp_t>::value ? G16_SLICE_MIN_BLOCKS : G16_G2_SLICE_MIN_BLOCKS;
}
template <class F, bool ACC = false>
__global__ void __launch_bounds__(128, slice_min_blocks<F>())
    slice_kernel(const affine_t<F>* points, size_t n_points, const uint32_t* entries,
                 const uint32_t* offsets, uint32_t keys, uint32_t slice, xyzz_t<F>* heads,
                 size_t max_slices, xyzz_t<F>* buckets) {
  const uint32_t total = offsets[keys];
  const size_t slices = (size_t(total) + slice - 1) / slice;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < slices && t < max_slices;
       t += stride) {
    const uint32_t begin = (uint32_t)t * slice;
    const uint32_t end = min(begin + slice, total);
    sum_slice<xyzz_t<F>>(
        offsets, keys, entries, begin, end,
        [&](xyzz_t<F>& acc, uint32_t entry) {
          const uint32_t idx = entry & ~kSignBit;
          if (idx < n_points)  // never read outside the points
            acc.add_affine(ldg_vec(points + idx), (entry & kSignBit) != 0);
        },
        [&](uint32_t key, const xyzz_t<F>& acc, bool head) {
          if constexpr (ACC) {
            // A bucket's first piece goes onto what the chunks before left in it (the one
            // thread whose slice holds the bucket's start writes it).
            if (flush_lands(ACC, head) == kFlushAdd) {
              xyzz_t<F> sum = ld_vec(buckets + key);
              add_cold(sum, acc);
              st_vec(buckets + key, sum);
              return;
            }
          }
          st_vec(head ? heads + t : buckets + key, acc);
        });
  }
}

// One round of the tree sum over each bucket's run of head slots (see head_round_span): after
// enough rounds a run's sum sits in its first slot, however skewed the scalars (e.g. all equal)
// made that bucket; one thread summing a whole run would be serial.
template <class F>
__global__ void __launch_bounds__(128) head_round_kernel(xyzz_t<F>* heads, const uint32_t* offsets,
                                                         uint32_t keys, uint32_t slice,
                                                         uint32_t stride, size_t max_slices) {
  const uint32_t total = offsets[keys];
  const size_t slices = (size_t(total) + slice - 1) / slice;
  const size_t grid = size_t(gridDim.x) * blockDim.x;
  for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < slices && t < max_slices;
       t += grid) {
    const uint32_t span = head_round_span(offsets, keys, slice, (uint32_t)t, stride);
    if (span == 0) continue;
    xyzz_t<F> acc = ld_vec(heads + t);
    for (uint32_t j = 1; j <= span; j++) add_cold(acc, ld_vec(heads + t + j * stride));
    st_vec(heads + t, acc);
  }
}

// One thread per bucket: the identity if empty (with ACC: as the chunks before left it), plus
// its run's sum if it spans slices.
template <class F, bool ACC = false>
__global__ void __launch_bounds__(128) bucket_finish_kernel(const xyzz_t<F>* heads,
                                                            const uint32_t* offsets, uint32_t keys,
                                                            uint32_t slice, xyzz_t<F>* buckets) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= keys) return;
  uint32_t slot = 0;
  switch (bucket_finish(offsets, k, slice, &slot)) {
    case 0:
      if (empty_bucket_cleared(ACC)) st_vec(buckets + k, xyzz_t<F>::inf());
      break;
    case 2: {
      xyzz_t<F> acc = ld_vec(buckets + k);
      add_cold(acc, ld_vec(heads + slot));
      st_vec(buckets + k, acc);
      break;
    }
    default:
      break;
  }
}

// Segment s of window w covers buckets [lo, lo + seg): sum over them of (j + 1) * bucket_j.
template <class F>
__global__ void __launch_bounds__(128) segment_kernel(const xyzz_t<F>* buckets, uint32_t n_segs,
                                                      uint32_t segs_per_window, uint32_t bucket_count,
                                                      uint32_t seg, xyzz_t<F>* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_segs) return;
  const uint32_t w = i / segs_per_window;
  const uint32_t lo = (i % segs_per_window) * seg;
  const xyzz_t<F>* b = buckets + size_t(w) * bucket_count;
  xyzz_t<F> running = xyzz_t<F>::inf(), acc = xyzz_t<F>::inf();
  for (uint32_t j = lo + seg; j-- > lo;) {
    add_cold(running, ld_vec(b + j));
    add_cold(acc, running);
  }
  // acc holds sum (j - lo + 1) * bucket_j; add lo * sum bucket_j.
  mul_small_cold(running, lo);
  add_cold(acc, running);
  st_vec(out + i, acc);
}

// out[i] = sum of in[i * g .. min((i + 1) * g, m)).
template <class F>
__global__ void __launch_bounds__(128) reduce_kernel(const xyzz_t<F>* in, size_t m, uint32_t g,
                                                     xyzz_t<F>* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t groups = (m + g - 1) / g;
  if (i >= groups) return;
  xyzz_t<F> acc = ld_vec(in + i * g);
  for (size_t j = i * g + 1; j < m && j < (i + 1) * g; j++) add_cold(acc, ld_vec(in + j));
  st_vec(out + i, acc);
}

// Horner over the window sums: result = sum 2^(c w) * window_w.
template <class F>
__global__ void combine_kernel(const xyzz_t<F>* windows, uint32_t count, uint32_t c,
                               xyzz_t<F>* result) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  xyzz_t<F> acc = ld_vec(windows + count - 1);
  for (uint32_t w = count - 1; w-- > 0;) {
    for (uint32_t k = 0; k < c; k++) dbl_cold(acc);
    add_cold(acc, ld_vec(windows + w));
  }
  st_vec(result, acc);
}

// Thread i sums the points whose bit is set in words [i * K, (i + 1) * K) of the bitmap. One
// loop over the thread's set bits, fetching the next word only when the current one is spent,
// so lanes reconverge once per thread rather than once per word: a word's set-bit count
// varies between lanes, and a loop per word ran each warp at its busiest lane's count of each
// word (H200, 46% of the bits set: 1.29x this loop's time at 2^24 points, 1.05x at 2^26).
template <class F>
__global__ void __launch_bounds__(128) bitmap_sum_kernel(const affine_t<F>* points, size_t n_points,
                                                         const uint64_t* bitmap, size_t threads,
                                                         xyzz_t<F>* partials) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= threads) return;
  const size_t words = (n_points + 63) / 64;
  const size_t end = (i + 1) * kBatchWordsPerThread < words ? (i + 1) * kBatchWordsPerThread : words;
  xyzz_t<F> acc = xyzz_t<F>::inf();
  size_t w = i * kBatchWordsPerThread;
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

inline unsigned blocks_for(size_t threads, unsigned per_block) {
  const size_t b = (threads + per_block - 1) / per_block;
  return (unsigned)(b < 65535u * 16 ? (b ? b : 1) : 65535u * 16);
}

// Sums m points at `a` down to one, ping-ponging between a and b; returns where it ended.
template <class F>
cudaError_t reduce_all(xyzz_t<F>* a, xyzz_t<F>* b, size_t m, size_t stop, cudaStream_t s,
                       xyzz_t<F>** out) {
  // Groups of 8 while more than `stop` remain (stop = one per window keeps windows apart:
  // segs per window is a power of two, so groups never straddle two windows).
  while (m > stop) {
    // With several windows, m / stop (segments per window) is a power of two; with one, a
    // ragged last group is fine.
    uint32_t g = 8;
    if (stop > 1)
      while ((m / stop) % g != 0) g >>= 1;
    const size_t groups = (m + g - 1) / g;
    reduce_kernel<F><<<blocks_for(groups, 128), 128, 0, s>>>(a, m, g, b);
    xyzz_t<F>* t = a; a = b; b = t;
    m = groups;
  }
  *out = a;
  return cudaGetLastError();
}

// Copies 1..m-1 of the points (copy j = 2^(c j) P, affine, after copy 0 = P): c doublings per
// copy in XYZZ, then back to affine with one inversion per warp and copy (warp_batch_inverse:
// 32 lanes share it). Every lane of a warp runs the same number of rounds,
// as the shared inversion needs all 32; lanes past n carry the identity and store nothing.
template <class F>
__global__ void __launch_bounds__(128) precompute_kernel(affine_t<F>* points, size_t n, uint32_t c,
                                                         uint32_t copies) {
  const size_t grid = size_t(gridDim.x) * blockDim.x;
  const size_t rounds = (n + grid - 1) / grid;
  for (size_t r = 0; r < rounds; r++) {
    const size_t i = r * grid + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool live = i < n;
    xyzz_t<F> acc = live ? xyzz_t<F>::from_affine(ldg_vec(points + i)) : xyzz_t<F>::inf();
    for (uint32_t j = 1; j < copies; j++) {
      for (uint32_t k = 0; k < c; k++) dbl_cold(acc);
      const bool inf = acc.is_inf();
      // 1/ZZ = ZZZ / (ZZ ZZZ) and 1/ZZZ = ZZ / (ZZ ZZZ); the identity inverts a stand-in 1.
      const F inv = ba_detail::warp_batch_inverse(inf ? F::one() : acc.ZZ * acc.ZZZ);
      affine_t<F> q{F::zero(), F::zero()};
      if (!inf) {
        q.x = acc.X * (inv * acc.ZZZ);
        q.y = acc.Y * (inv * acc.ZZ);
      }
      if (live) st_vec(points + j * n + i, q);
    }
  }
}

}  // namespace msm_detail

// Fills copies 1..copies-1 of `points` (copies * n_points affine points, copy 0 filled) with
// 2^(c j) times copy 0, for MSMs with `copies` and window c in their strategy code (see
// make_msm_plan). Built for G1 (msm_g1.cu).
template <class F>
cudaError_t msm_precompute(affine_t<F>* points, size_t n_points, uint32_t c, uint32_t copies,
                           cudaStream_t s) {
  using namespace msm_detail;
  if (points == nullptr || c < 4 || c > 24 || copies < 2 || copies > 31 ||
      copies > (256 + c - 1) / c || n_points >= (size_t(1) << 31) / copies)
    return cudaErrorInvalidValue;
  if (n_points == 0) return cudaSuccess;
  precompute_kernel<F><<<blocks_for(n_points, 128), 128, 0, s>>>(points, n_points, c, copies);
  return cudaGetLastError();
}

namespace msm_detail {

// The parts of an MSM's workspace (see msm_plan's offsets).
template <class F>
struct msm_ws {
  typedef xyzz_t<F> P;
  char* base;
  uint32_t *counts, *offsets, *entries, *chunk_e, *bins;
  P *heads, *buckets, *segs, *windows;
  uint2* pairs;
  msm_ws(const msm_plan& p, void* workspace) : base(static_cast<char*>(workspace)) {
    counts = reinterpret_cast<uint32_t*>(base + p.off_counts);
    offsets = reinterpret_cast<uint32_t*>(base + p.off_offsets);
    entries = reinterpret_cast<uint32_t*>(base + p.off_entries);
    heads = reinterpret_cast<P*>(base + p.off_heads);
    buckets = reinterpret_cast<P*>(base + p.off_buckets);
    segs = reinterpret_cast<P*>(base + p.off_segs);
    windows = reinterpret_cast<P*>(base + p.off_windows);
    chunk_e = reinterpret_cast<uint32_t*>(base + p.off_chunks);
    pairs = reinterpret_cast<uint2*>(base + p.off_pairs);
    bins = reinterpret_cast<uint32_t*>(base + p.off_bins);
  }
};

// Sorts the digits of windows [w0, w1) of the m scalars from c0 into the pass's buckets:
// the entries in key order, each key's offsets (and, after the scatter, counts[k] holds its
// cursor's end, offsets[k + 1]).
template <class F>
cudaError_t sort_chunk(const msm_plan& p, const msm_ws<F>& w, const fr_t* scalars,
                       bool montgomery, const uint32_t* index, size_t n_points, size_t c0,
                       size_t m, uint32_t w0, uint32_t w1, uint32_t keys, cudaStream_t s) {
  const uint32_t keys_full = pass_groups(p, p.per_pass) * p.buckets;
  const uint32_t count_stride = keys_full + 1;
  const unsigned scalar_blocks = blocks_for(m, 256);
  // Sub-chunks of this chunk (1 unless the scatter is binned).
  const uint32_t subs = (uint32_t)((m + p.sub_scalars - 1) / p.sub_scalars);
  cudaError_t err;
  if ((err = cudaMemsetAsync(w.counts, 0, size_t(subs) * count_stride * sizeof(uint32_t), s)))
    return err;
  count_kernel<<<scalar_blocks, 256, 0, s>>>(scalars + c0, montgomery, m, p, w0, w1, w.counts,
                                             count_stride);
  if (p.max_pairs != 0) {
    bin_counts_kernel<<<dim3(p.bins, subs), 256, 0, s>>>(w.counts, count_stride, keys, p, w.bins);
    bin_scan_kernel<<<subs, kScatterBins, 0, s>>>(p, w.bins);
  }
  scan_counts(w.counts, keys, w.offsets, w.chunk_e, subs, count_stride, s);
  if (p.max_pairs == 0) {
    scatter_kernel<<<scalar_blocks, 256, 0, s>>>(scalars + c0, montgomery,
                                                 index ? index + c0 : nullptr, n_points,
                                                 (uint32_t)c0, m, p, w0, w1, w.counts, w.entries);
  }
  for (uint32_t sub = 0; p.max_pairs != 0 && sub < subs; sub++) {
    const size_t lo = size_t(sub) * p.sub_scalars;
    const size_t hi = lo + p.sub_scalars < m ? lo + p.sub_scalars : m;
    uint32_t* sub_bins = w.bins + size_t(sub) * 2 * (p.bins + 1) + p.bins + 1;
    bin_kernel<<<blocks_for(hi - lo, kScatterBins), kScatterBins, 0, s>>>(
        scalars + c0, montgomery, index ? index + c0 : nullptr, n_points, (uint32_t)c0, lo, hi, p,
        w0, w1, sub_bins, w.pairs);
    place_kernel<<<blocks_for(p.max_pairs, 256), 256, 0, s>>>(
        w.pairs, sub_bins + p.bins, p.max_pairs, w.counts + size_t(sub) * count_stride,
        w.entries);
  }
  return cudaSuccess;
}

// Sums the sorted entries into the pass's buckets with the slices; with ACC, adds them to what
// the buckets hold (an accumulation over chunks of the points). `rounds`: head_rounds of the
// chunk's scalars.
template <class F, bool ACC>
void slice_chunk(const msm_plan& p, const msm_ws<F>& w, const affine_t<F>* points,
                 size_t all_points, uint32_t keys, uint32_t rounds, cudaStream_t s) {
  const unsigned slice_blocks = blocks_for(p.max_slices, 128);
  slice_kernel<F, ACC><<<slice_blocks, 128, 0, s>>>(points, all_points, w.entries, w.offsets, keys,
                                                    p.slice, w.heads, p.max_slices, w.buckets);
  uint32_t stride = 1;
  for (uint32_t r = 0; r < rounds; r++, stride *= 8)
    head_round_kernel<F><<<slice_blocks, 128, 0, s>>>(w.heads, w.offsets, keys, p.slice, stride,
                                                      p.max_slices);
  bucket_finish_kernel<F, ACC><<<blocks_for(keys, 128), 128, 0, s>>>(w.heads, w.offsets, keys,
                                                                     p.slice, w.buckets);
}

// The pass's buckets to one sum per group of windows, into windows[g0 ..].
template <class F>
cudaError_t reduce_pass(const msm_plan& p, const msm_ws<F>& w, uint32_t groups, uint32_t g0,
                        cudaStream_t s) {
  typedef xyzz_t<F> P;
  const uint32_t segs_per_window = p.buckets / p.seg;
  const uint32_t n_segs = groups * segs_per_window;
  segment_kernel<F><<<blocks_for(n_segs, 128), 128, 0, s>>>(w.buckets, n_segs, segs_per_window,
                                                            p.buckets, p.seg, w.segs);
  P* sums;
  cudaError_t err;
  if ((err = reduce_all<F>(w.segs, w.segs + n_segs, n_segs, groups, s, &sums))) return err;
  return cudaMemcpyAsync(w.windows + g0, sums, groups * sizeof(P), cudaMemcpyDeviceToDevice, s);
}

}  // namespace msm_detail

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
    slice_chunk<F, false>(p, w, points, all_points, keys, rounds, s);
    if ((err = reduce_pass<F>(p, w, groups, g0, s))) return err;
  }
  // One sum per group of windows, c m bits apart.
  combine_kernel<F><<<1, 1, 0, s>>>(w.windows, p.groups, p.c * p.copies, result);
  return cudaGetLastError();
}

// An MSM over chunks of the points that never share the device: msm_accumulate adds one
// chunk's sum s_k points[idx(k)] (n <= n_cap scalars; idx as in msm, natural order) to buckets
// kept in the workspace, `first` starting them from the identity; msm_accumulated reduces them
// to the result. Every call of one accumulation passes the same n_cap and strategy, which lay
// out the workspace (msm_accumulate_workspace_size bytes) and fix the window: the strategy must
// force one, so that the chunks of a large MSM share the window the whole would take. Between
// the calls the workspace holds the buckets: nothing else may use it. A large MSM in chunks
// then reduces its buckets once, not once per chunk, with the whole's window.
template <class F>
cudaError_t msm_accumulate(const affine_t<F>* points, size_t n_points, const uint32_t* index,
                           const fr_t* scalars, bool montgomery, size_t n, size_t n_cap,
                           int strategy, void* workspace, size_t workspace_bytes, bool first,
                           cudaStream_t s) {
  using namespace msm_detail;
  msm_plan p;
  if (!accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) || n > n_cap ||
      workspace_bytes < p.total || points == nullptr || scalars == nullptr ||
      workspace == nullptr || n_points >= (size_t(1) << 31))
    return cudaErrorInvalidValue;
  const msm_ws<F> w(p, workspace);
  const uint32_t keys = pass_groups(p, p.windows) * p.buckets;
  if (n == 0) {
    // An empty chunk adds nothing; as the first it leaves every bucket the identity.
    return first ? cudaMemsetAsync(w.buckets, 0, size_t(keys) * sizeof(xyzz_t<F>), s)
                 : cudaSuccess;
  }
  cudaError_t err;
  if ((err = sort_chunk<F>(p, w, scalars, montgomery, index, n_points, 0, n, 0, p.windows, keys,
                           s)))
    return err;
  const uint32_t rounds = head_rounds(n, p.slice);
  if (first)
    slice_chunk<F, false>(p, w, points, n_points, keys, rounds, s);
  else
    slice_chunk<F, true>(p, w, points, n_points, keys, rounds, s);
  return cudaGetLastError();
}

template <class F>
cudaError_t msm_accumulated(size_t n_cap, int strategy, void* workspace, size_t workspace_bytes,
                            xyzz_t<F>* result, cudaStream_t s) {
  using namespace msm_detail;
  msm_plan p;
  if (!accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) || workspace_bytes < p.total ||
      workspace == nullptr || result == nullptr)
    return cudaErrorInvalidValue;
  const msm_ws<F> w(p, workspace);
  cudaError_t err;
  if ((err = reduce_pass<F>(p, w, p.groups, 0, s))) return err;
  combine_kernel<F><<<1, 1, 0, s>>>(w.windows, p.groups, p.c, result);
  return cudaGetLastError();
}

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
  bitmap_sum_kernel<F><<<blocks_for(threads, 128), 128, 0, s>>>(points, n_points, bitmap, threads, a);
  P* sum;
  cudaError_t err = reduce_all<F>(a, b, threads, 1, s, &sum);
  if (err) return err;
  return cudaMemcpyAsync(result, sum, sizeof(P), cudaMemcpyDeviceToDevice, s);
}

#endif  // __CUDACC__

// Workspace sizes: host code only, so that a build without CUDA sizes device memory the same way.
template <class F>
size_t msm_accumulate_workspace_size(size_t n_cap, int strategy) {
  msm_plan p;
  return accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) ? p.total : 0;
}

template <class F>
size_t msm_workspace_size(size_t n, int strategy) {
  msm_plan p;
  return make_msm_plan(n, sizeof(xyzz_t<F>), strategy, &p) ? p.total : 0;
}

}  // namespace g16

#endif
