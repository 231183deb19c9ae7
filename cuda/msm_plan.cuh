// The MSM's plan: its window width, passes, digits (scalar -> bucket keys and entries) and the
// layout of its workspace, all chosen from n and the strategy code alone, in host code, so
// that sizing (also in a build without CUDA) and launching agree.
#ifndef GROTH16_C2_MSM_PLAN_CUH
#define GROTH16_C2_MSM_PLAN_CUH

#include "config.cuh"
#include "curve.cuh"
#include "internal.cuh"

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
// Measured on the H200 (G1, ms, binned against direct): 22-bit windows over 12
// copies (2^21 keys) 97.2 / 98.2 at 2^24 and 366.9 / 369.9 at 2^26, plain 2^26 (4 windows of
// 2^19 per pass) 418.9 / 422.8; but plain 2^24 (2^19 keys) 130.5 / 122.5 and plain 2^27 (2^20
// keys) 846.9 against 820.8. So passes of 2^21+ keys only (2^27 over 6 copies: 731.3 against
// 757.0 with the direct scatter).
constexpr uint32_t kScatterBins = 256;
constexpr size_t kBinnedFromEntries = size_t(1) << 24;
constexpr size_t kBinnedFromKeys = size_t(1) << 21;
// Pairs per sub-chunk (8 bytes each): about 1 GiB of workspace at most. 2^28 (3 sub-chunks
// instead of 6 over 12 copies at 2^26) measured the same on the H200 (367.9 against
// 366.8 ms).
constexpr size_t kBinnedPairs = size_t(1) << 27;
constexpr size_t kBinnedTestScalars = 1000;
constexpr size_t kBinnedTestSubs = 64;
// Windows per pass up to which the bin step keeps each digit's rank in shared memory.
constexpr uint32_t kBinnedMaxWindows = 16;
constexpr size_t kScatterPairBytes = 8;
// Two place steps without a returning global atomic per entry measured slower on the H200
// (G1, 22-bit windows over 12 copies, MSM time against this place step): one block
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

// The plan of an accumulation over chunks of at most n_cap scalars (see msm_accumulate); false
// where one cannot run: precomputed copies, bit-reversed scalars, no forced window (every chunk
// must take the same), or windows that need several passes.
inline bool accumulate_plan(size_t n_cap, size_t xyzz_bytes, int strategy, msm_plan* p) {
  if (!make_msm_plan(n_cap, xyzz_bytes, strategy, p)) return false;
  const uint32_t forced = (uint32_t(strategy) >> 8) & 0xff;
  return p->copies == 1 && p->bitrev_lg == 0 && forced != 0 && p->per_pass >= p->windows;
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

// The buckets an accumulation keeps between its calls: one set for every window.
inline size_t accumulate_kept_bytes(const msm_plan& p, size_t xyzz_bytes) {
  return align_up(size_t(pass_groups(p, p.windows)) * p.buckets * xyzz_bytes);
}

// Workspace sizes: host code only, so that a build without CUDA sizes device memory the same way.
// An accumulation's scratch (a chunk's MSM workspace) and its kept buckets.
template <class F>
size_t msm_accumulate_workspace_size(size_t n_cap, int strategy) {
  msm_plan p;
  return accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p) ? p.total : 0;
}
template <class F>
size_t msm_accumulate_buckets_size(size_t n_cap, int strategy) {
  msm_plan p;
  return accumulate_plan(n_cap, sizeof(xyzz_t<F>), strategy, &p)
             ? accumulate_kept_bytes(p, sizeof(xyzz_t<F>))
             : 0;
}

template <class F>
size_t msm_workspace_size(size_t n, int strategy) {
  msm_plan p;
  return make_msm_plan(n, sizeof(xyzz_t<F>), strategy, &p) ? p.total : 0;
}

namespace msm_detail {

// Blocks of per_block threads for `threads` threads (grid-stride loops take the rest beyond
// the cap).
inline unsigned blocks_for(size_t threads, unsigned per_block) {
  const size_t b = (threads + per_block - 1) / per_block;
  return (unsigned)(b < 65535u * 16 ? (b ? b : 1) : 65535u * 16);
}

}  // namespace msm_detail

#if defined(__CUDACC__)

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

}  // namespace msm_detail

#endif  // __CUDACC__

}  // namespace g16

#endif
