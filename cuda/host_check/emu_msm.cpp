// Host emulation of the MSM accumulation's index logic (msm.cuh: sum_slice, head_round_span,
// bucket_finish, head_rounds, make_msm_plan) with a toy group: a bucket's "sum" is the 64-bit
// sum of a hash of its entries, so a bucket that misses an entry, counts one twice or takes
// one of another bucket's is caught. Every slice flush, tree round and finishing step runs as
// the kernels run them (the rounds from a snapshot, as threads of one launch would see them),
// on bucket sizes around the slice length, one bucket holding everything, runs of empty
// buckets, a single entry and none.
// Build: g++ -x c++ -DG16_EMULATE_PTX -O2 -std=c++17 -include cstring emu_msm.cpp -o emu_msm && ./emu_msm
#include "../msm.cuh"
#include <cstdio>
#include <algorithm>
#include <array>
#include <random>
#include <vector>
using namespace g16;

struct toy {
  uint64_t v;
  static toy inf() { return toy{0}; }
};
static uint64_t mix(uint32_t entry) { return (uint64_t(entry) + 1) * 0x9E3779B97F4A7C15ull; }

static std::mt19937_64 rng(15);

// Runs one pass's accumulation over these bucket sizes with slices of S; returns errors.
static int check_counts(const std::vector<uint32_t>& counts, uint32_t S, const char* what) {
  const uint32_t keys = (uint32_t)counts.size();
  std::vector<uint32_t> offsets(keys + 1, 0);
  uint32_t most = 0;
  for (uint32_t k = 0; k < keys; k++) {
    offsets[k + 1] = offsets[k] + counts[k];
    if (counts[k] > most) most = counts[k];
  }
  const uint32_t total = offsets[keys];
  std::vector<uint32_t> entries(total);
  for (auto& e : entries) e = (uint32_t)rng();
  std::vector<uint64_t> want(keys, 0);
  for (uint32_t k = 0; k < keys; k++)
    for (uint32_t e = offsets[k]; e < offsets[k + 1]; e++) want[k] += mix(entries[e]);

  const uint32_t slices = (total + S - 1) / S;
  std::vector<toy> heads(slices, toy{0xdeadull}), buckets(keys, toy{0xbeefull});
  std::vector<int> head_writes(slices, 0), bucket_writes(keys, 0);
  int bad = 0;
  // The slice kernel.
  for (uint32_t t = 0; t < slices; t++) {
    const uint32_t begin = t * S, end = std::min(begin + S, total);
    sum_slice<toy>(
        offsets.data(), keys, entries.data(), begin, end,
        [&](toy& acc, uint32_t entry) { acc.v += mix(entry); },
        [&](uint32_t key, const toy& acc, bool head) {
          if (head) {
            heads[t] = acc;
            head_writes[t]++;
          } else {
            buckets[key] = acc;
            bucket_writes[key]++;
          }
          // A flushed key's bucket must hold the slice's entries it summed.
          if (key >= keys || offsets[key] == offsets[key + 1] || offsets[key + 1] <= begin ||
              offsets[key] >= end || head != (offsets[key] < begin))
            bad++;
        });
  }
  for (uint32_t t = 0; t < slices; t++) if (head_writes[t] > 1) bad++;
  // The tree rounds, each from a snapshot of the slots; a slot read must not be written in
  // the same round (threads of one launch race otherwise).
  const uint32_t rounds = head_rounds(most, S);
  uint32_t stride = 1;
  for (uint32_t r = 0; r < rounds; r++, stride *= 8) {
    const std::vector<toy> before(heads);
    std::vector<char> read(slices, 0), written(slices, 0);
    for (uint32_t t = 0; t < slices; t++) {
      const uint32_t span = head_round_span(offsets.data(), keys, S, t, stride);
      if (span == 0) continue;
      if (!head_writes[t]) bad++;  // a round starts from a slot no slice wrote
      toy acc = before[t];
      for (uint32_t j = 1; j <= span; j++) {
        const uint32_t u = t + j * stride;
        if (u >= slices || !head_writes[u]) { bad++; continue; }
        acc.v += before[u].v;
        read[u] = 1;
      }
      heads[t] = acc;
      written[t] = 1;
    }
    for (uint32_t t = 0; t < slices; t++) if (read[t] && written[t]) bad++;
  }
  // The finishing step.
  int wrong = 0;
  for (uint32_t k = 0; k < keys; k++) {
    uint32_t slot = 0;
    const uint32_t how = bucket_finish(offsets.data(), k, S, &slot);
    if (how == 0) {
      if (bucket_writes[k]) bad++;
      buckets[k] = toy::inf();
    } else {
      if (bucket_writes[k] != 1) bad++;
      if (how == 2) {
        if (slot >= slices || !head_writes[slot]) { bad++; continue; }
        buckets[k].v += heads[slot].v;
      }
    }
    if (buckets[k].v != want[k]) wrong++;
  }
  printf("%-28s keys %7u slice %3u entries %9u rounds %u errs %d\n", what, keys, S, total,
         rounds, bad + wrong);
  return bad + wrong;
}

static std::vector<uint32_t> poisson(uint32_t keys, double mean) {
  std::poisson_distribution<uint32_t> d(mean);
  std::vector<uint32_t> c(keys);
  for (auto& x : c) x = d(rng);
  return c;
}

// The whole MSM's index logic over precomputed copies, in the toy group Z_q (q = 2^61 - 1,
// "2^k P" = P 2^k mod q): digits (for_each_digit), keys and entries (digit_key, digit_copy,
// digit_entry) per pass as the count and scatter kernels make them, one set of buckets per
// group of windows, and the Horner combination c m bits apart. Its sum must equal
// sum k_i P_i mod q. Points at or past n_points are the identity.
static const uint64_t kQ = (uint64_t(1) << 61) - 1;
static uint64_t mulq(uint64_t a, uint64_t b) { return (uint64_t)((unsigned __int128)a * b % kQ); }
static uint64_t addq(uint64_t a, uint64_t b) { return (a + b) % kQ; }
static uint64_t pow2q(uint32_t k) {
  uint64_t r = 1;
  for (uint32_t i = 0; i < k; i++) r = addq(r, r);
  return r;
}

// per_pass != 0 stands in for the plan's windows per pass (a multiple of copies), as large
// MSMs split theirs, so small n reach passes that start past window 0.
static int check_copies(size_t n, uint32_t c, uint32_t copies, int scalar_kind,
                        uint32_t per_pass = 0) {
  msm_plan p;
  const int code = kMsmSlices | int(c << 8) | int(copies << 21);
  if (!make_msm_plan(n, 192, code, &p)) {
    printf("copies plan n %zu c %u m %u refused\n", n, c, copies);
    return 1;
  }
  if (per_pass != 0) p.per_pass = per_pass;
  const size_t n_points = n > 3 ? n - 2 : n;  // the last scalars' points are the identity
  std::vector<uint64_t> base(n_points), all(n_points * copies);
  for (auto& x : base) x = rng() % kQ;
  for (uint32_t j = 0; j < copies; j++)
    for (size_t i = 0; i < n_points; i++) all[j * n_points + i] = mulq(base[i], pow2q(c * j));
  std::vector<std::array<uint32_t, 8>> scalars(n);
  // r - 1, below 2^255 as the plan assumes.
  const uint32_t r_minus_1[8] = {0x00000000u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                                 0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
  uint64_t want = 0;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 8; k++) {
      uint32_t v = (uint32_t)rng();
      if (scalar_kind == 1) v = r_minus_1[k];
      if (scalar_kind == 2) v = k == 0 ? uint32_t(i % 3) : 0;  // 0, 1, 2: mostly empty buckets
      if (k == 7 && scalar_kind == 0) v &= 0x7fffffffu;
      scalars[i][k] = v;
    }
    uint64_t kq = 0;  // the scalar mod q, Horner over its 32-bit limbs
    for (int k = 7; k >= 0; k--) kq = addq(mulq(kq, uint64_t(1) << 32), scalars[i][k] % kQ);
    if (i < n_points) want = addq(want, mulq(kq, base[i]));
  }
  std::vector<uint64_t> group_sums(p.groups, 0);
  int bad = 0;
  for (uint32_t w0 = 0; w0 < p.windows; w0 += p.per_pass) {
    const uint32_t w1 = std::min(w0 + p.per_pass, p.windows);
    const uint32_t keys = pass_groups(p, w1 - w0) * p.buckets;
    std::vector<uint64_t> buckets(keys, 0);
    size_t entries = 0;
    for (size_t i = 0; i < n; i++)
      for_each_digit(scalars[i].data(), p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
        const uint32_t key = digit_key(p, w, b);
        const uint32_t e = digit_entry((uint32_t)i, digit_copy(p, w), n_points, neg);
        const uint32_t idx = e & ~kEntrySign;
        entries++;
        if (key >= keys) { bad++; return; }
        if (idx == kEntryNoPoint) { if (i < n_points) bad++; return; }
        if (idx >= all.size() || idx % n_points != i) { bad++; return; }
        const uint64_t pt = all[idx];
        buckets[key] = addq(buckets[key], (e & kEntrySign) ? (kQ - pt) % kQ : pt);
      });
    if (entries > p.max_entries) bad++;
    const uint32_t g0 = w0 / p.copies;
    for (uint32_t g = 0; g < keys / p.buckets; g++)
      for (uint32_t b = 0; b < p.buckets; b++)
        group_sums[g0 + g] = addq(group_sums[g0 + g], mulq(b + 1, buckets[g * p.buckets + b]));
  }
  uint64_t got = group_sums[p.groups - 1];
  for (uint32_t g = p.groups - 1; g-- > 0;) got = addq(mulq(got, pow2q(c * copies)), group_sums[g]);
  const int errs = bad + (got != want);
  printf("copies n %6zu c %2u m %2u groups %2u per pass %2u scalars %d errs %d\n", n, c, copies,
         p.groups, p.per_pass, scalar_kind, errs);
  return errs;
}

// The binned scatter (count per sub-chunk, bin counts and cursors, the scan with a cursor per
// sub-chunk and key, the bin step block by block with its shared-memory ranks and one run per
// bin, the place step in pair order), as the kernels run it: every bucket's slots
// [offsets[k], offsets[k + 1]) must hold exactly its digits' entries, each slot written once,
// and no bin step's pair may fall outside its bin's run.
static int check_binned(size_t n, int code, int scalar_kind, const char* what) {
  msm_plan p;
  if (!make_msm_plan(n, 192, code, &p) || p.max_pairs == 0) {
    printf("binned %-24s n %7zu: plan refused or not binned\n", what, n);
    return 1;
  }
  std::vector<std::array<uint32_t, 8>> scalars(n);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 8; k++) {
      uint32_t v = (uint32_t)rng();
      if (scalar_kind == 1) v = k == 0 ? 5u : 0u;  // all equal: one bucket per window
      if (scalar_kind == 2) v = k == 0 ? uint32_t(i % 3) : 0;  // 0, 1, 2
      if (k == 7) v &= 0x7fffffffu;
      scalars[i][k] = v;
    }
  const size_t n_points = n;
  int bad = 0;
  const uint32_t keys_full = pass_groups(p, p.per_pass) * p.buckets, stride = keys_full + 1;
  for (uint32_t w0 = 0; w0 < p.windows; w0 += p.per_pass) {
    const uint32_t w1 = std::min(w0 + p.per_pass, p.windows);
    const uint32_t keys = pass_groups(p, w1 - w0) * p.buckets;
    const uint32_t subs = (uint32_t)((n + p.sub_scalars - 1) / p.sub_scalars);
    if (subs > p.subs) bad++;
    std::vector<uint32_t> counts(size_t(subs) * stride, 0), offsets(keys + 1, 0);
    std::vector<std::vector<uint32_t>> want(keys);
    for (size_t i = 0; i < n; i++)
      for_each_digit(scalars[i].data(), p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
        const uint32_t key = digit_key(p, w, b);
        counts[(i / p.sub_scalars) * stride + key]++;
        want[key].push_back(digit_entry((uint32_t)i, digit_copy(p, w), n_points, neg));
      });
    // Bin counts and cursors per sub-chunk (bin_counts_kernel, bin_scan_kernel).
    std::vector<uint32_t> bins(size_t(subs) * 2 * (p.bins + 1), 0);
    for (uint32_t sub = 0; sub < subs; sub++) {
      uint32_t* bc = &bins[size_t(sub) * 2 * (p.bins + 1)];
      for (uint32_t b = 0; b < p.bins; b++)
        for (uint32_t k = b << p.bin_shift; k < std::min((b + 1) << p.bin_shift, keys); k++)
          bc[b] += counts[sub * stride + k];
      uint32_t e = 0;
      for (uint32_t b = 0; b < p.bins; b++) { bc[p.bins + 1 + b] = e; e += bc[b]; }
      bc[2 * p.bins + 1] = e;
    }
    // The scan: one thread's share at a time, as scan_kernel's threads split the keys.
    uint32_t e = 0;
    for (uint32_t lo = 0; lo < keys; lo += 37) {
      const uint32_t hi = std::min(lo + 37, keys);
      const uint32_t before = e;
      const uint32_t part = sum_counts(counts.data(), lo, hi, subs, stride);
      write_offsets(counts.data(), lo, hi, e, offsets.data(), subs, stride);
      if (e != before + part) bad++;
    }
    offsets[keys] = e;
    std::vector<uint32_t> entries(e, 0xdeadbeefu);
    std::vector<uint8_t> written(e, 0);
    std::vector<uint64_t> pairs(p.max_pairs);
    for (uint32_t sub = 0; sub < subs; sub++) {
      const size_t lo = size_t(sub) * p.sub_scalars, hi = std::min(lo + p.sub_scalars, n);
      uint32_t* cursors = &bins[size_t(sub) * 2 * (p.bins + 1) + p.bins + 1];
      const uint32_t total = cursors[p.bins];
      if (total > p.max_pairs) { bad++; continue; }
      std::vector<uint32_t> starts(cursors, cursors + p.bins + 1);
      std::vector<uint8_t> pair_set(total, 0);
      for (size_t b0 = lo; b0 < hi; b0 += kScatterBins) {  // the bin step, one block at a time
        uint32_t hist[kScatterBins] = {}, run[kScatterBins] = {};
        static uint16_t rank[kBinnedMaxWindows][kScatterBins];
        for (uint32_t t = 0; t < kScatterBins && b0 + t < hi; t++)
          for_each_digit(scalars[b0 + t].data(), p, w0, w1, [&](uint32_t w, uint32_t b, bool) {
            rank[w][t] = (uint16_t)hist[digit_key(p, w, b) >> p.bin_shift]++;
          });
        for (uint32_t t = 0; t < kScatterBins; t++)
          if (hist[t]) { run[t] = cursors[t]; cursors[t] += hist[t]; }
        for (uint32_t t = 0; t < kScatterBins && b0 + t < hi; t++)
          for_each_digit(scalars[b0 + t].data(), p, w0, w1, [&](uint32_t w, uint32_t b, bool neg) {
            const uint32_t key = digit_key(p, w, b), bin = key >> p.bin_shift;
            const uint32_t at = run[bin] + rank[w][t];
            // Inside its bin's run of this sub-chunk, and written once.
            if (at < starts[bin] || at >= starts[bin + 1] || pair_set[at]) { bad++; return; }
            pair_set[at] = 1;
            const uint32_t entry = digit_entry((uint32_t)(b0 + t), digit_copy(p, w), n_points, neg);
            pairs[at] = (uint64_t(key) << 32) | entry;
          });
      }
      for (uint32_t b = 0; b < p.bins; b++)
        if (cursors[b] != starts[b + 1]) bad++;  // each bin's run filled exactly
      uint32_t* fill = &counts[size_t(sub) * stride];
      for (uint32_t j = 0; j < total; j++) {  // the place step
        const uint32_t key = uint32_t(pairs[j] >> 32), at = fill[key]++;
        if (at >= e || written[at]) { bad++; continue; }
        written[at] = 1;
        entries[at] = uint32_t(pairs[j]);
      }
    }
    for (uint32_t k = 0; k < keys; k++) {
      std::vector<uint32_t> got(entries.begin() + offsets[k], entries.begin() + offsets[k + 1]);
      std::sort(got.begin(), got.end());
      std::sort(want[k].begin(), want[k].end());
      if (got != want[k]) bad++;
    }
  }
  printf("binned %-24s n %7zu c %2u per pass %2u subs %4u bins %3u shift %2u errs %d\n", what,
         n, p.c, p.per_pass, p.subs, p.bins, p.bin_shift, bad);
  return bad;
}

int main() {
  int bad = 0;
  // The binned scatter: test sub-chunks over plain windows, copies and several passes; ragged
  // last sub-chunks and blocks; skewed scalars.
  bad += check_binned(3, kMsmSlicesTestBinned, 0, "three scalars");
  bad += check_binned(5000, kMsmSlicesTestBinned, 0, "plain windows");
  bad += check_binned(4097, kMsmSlicesTestBinned | (16 << 8), 0, "16 bits");
  bad += check_binned(2500, kMsmSlicesTestBinned | (22 << 8) | (12 << 21), 0, "22 bits, 12 copies");
  bad += check_binned(3001, kMsmSlicesTestBinned | (13 << 8) | (4 << 21), 0, "13 bits, 4 copies");
  bad += check_binned(2100, kMsmSlicesTestBinned | (10 << 8), 1, "all equal");
  bad += check_binned(2100, kMsmSlicesTestBinned | (8 << 8), 2, "0, 1, 2");
  // Real shapes' plans: sub-chunks within kBinnedPairs, the bins within kScatterBins.
  {
    msm_plan p;
    const bool ok =
        make_msm_plan(size_t(1) << 26, 192, kMsmSlices | (22 << 8) | (12 << 21), &p) &&
        p.subs == 6 && p.bins == 256 && p.bin_shift == 13 &&
        p.max_pairs < kBinnedPairs + p.subs * p.per_pass &&
        make_msm_plan(size_t(1) << 27, 192, kMsmSlices | (22 << 8) | (6 << 21), &p) &&
        p.subs == 6 && p.per_pass == 6 && p.bins == 256 &&
        // Plain windows: 2^26 (4 windows of 2^19 buckets per pass) binned; 2^27 (2 per pass)
        // and 2^20 (2^15 buckets) not.
        make_msm_plan(size_t(1) << 26, 192, kMsmSlices, &p) && p.max_pairs != 0 &&
        p.per_pass == 4 && p.subs == 2 &&
        make_msm_plan(size_t(1) << 27, 192, kMsmSlices, &p) && p.max_pairs == 0 &&
        make_msm_plan(size_t(1) << 20, 192, kMsmSlices, &p) && p.max_pairs == 0 &&
        p.subs == 1;
    printf("binned plans %s\n", ok ? "errs 0" : "errs 1");
    if (!ok) bad++;
  }
  // Precomputed copies: every width, copies dividing the windows or not, one group or many.
  for (uint32_t c : {4u, 7u, 13u, 16u}) {
    const uint32_t windows = (256 + c - 1) / c;
    // At most 31 copies (the strategy code's 5 bits).
    for (uint32_t m : {2u, 3u, std::min(31u, windows - 1), std::min(31u, windows)}) {
      for (int kind : {0, 1, 2}) bad += check_copies(kind == 2 ? 7 : 300, c, m, kind);
    }
  }
  bad += check_copies(1, 9, 29, 0);
  // Several passes: whole groups per pass, the last one ragged.
  bad += check_copies(500, 16, 3, 0, 6);
  bad += check_copies(500, 20, 2, 1, 4);
  bad += check_copies(500, 22, 5, 0, 5);  // one scalar and point, every window a copy of its own
  // Plans: copies need a forced width, at most one per window; large shapes fit.
  {
    msm_plan p;
    const bool ok = !make_msm_plan(1000, 192, kMsmSlices | (3 << 21), &p) &&
                    !make_msm_plan(1000, 192, kMsmSlices | (16 << 8) | (17 << 21), &p) &&
                    make_msm_plan(1000, 192, kMsmSlices | (16 << 8) | (16 << 21), &p) &&
                    p.groups == 1 && p.per_pass == 16 &&
                    make_msm_plan(size_t(1) << 24, 192, kMsmSlices | (22 << 8) | (12 << 21), &p) &&
                    p.groups == 1 && p.per_pass == 12 &&
                    make_msm_plan(size_t(1) << 27, 192, kMsmSlices | (22 << 8) | (6 << 21), &p) &&
                    p.groups == 2 && p.per_pass == 6 && p.max_entries == (size_t(6) << 27) &&
                    make_msm_plan(size_t(1) << 26, 192, kMsmSlices | (20 << 8) | (2 << 21), &p) &&
                    p.per_pass == 4 && p.groups == 7;
    printf("copies plans %s\n", ok ? "errs 0" : "errs 1");
    if (!ok) bad++;
  }
  for (uint32_t S : {1u, 2u, 7u, 16u, 64u, 256u}) {
    bad += check_counts(poisson(4096, 0.3), S, "sparse (mostly empty)");
    bad += check_counts(poisson(4096, S / 2.0 + 0.5), S, "buckets ~ half a slice");
    bad += check_counts(poisson(4096, S), S, "buckets ~ a slice");
    bad += check_counts(poisson(2048, 9.5 * S), S, "buckets ~ 9.5 slices");
    std::vector<uint32_t> one(1000, 0);
    one[517] = 300 * S + 3;  // all scalars equal: one bucket, a run of hundreds of slots
    bad += check_counts(one, S, "one bucket holds all");
    one.assign(1000, 0);
    one[999] = 1;
    bad += check_counts(one, S, "a single entry, last key");
    one.assign(1000, 0);
    bad += check_counts(one, S, "no entries");
    std::vector<uint32_t> exact(500);
    for (uint32_t k = 0; k < 500; k++) exact[k] = (k % 3 == 0) ? S : (k % 3 == 1 ? S - 1 : S + 1);
    bad += check_counts(exact, S, "sizes S-1, S, S+1");
    std::vector<uint32_t> ragged = poisson(3000, 2.0 * S);
    for (uint32_t k = 0; k < 3000; k += 7) ragged[k] = 0;  // empty buckets between full ones
    for (uint32_t k = 1000; k < 1900; k++) ragged[k] = 0;  // a long run of empty buckets
    bad += check_counts(ragged, S, "runs of empty buckets");
  }
  // Accumulation plans: one pass with the window forced, or none (-> independent chunks).
  {
    msm_plan p;
    const bool ok =
        accumulate_plan(size_t(1) << 24, 192, kMsmSlices | (20 << 8), &p) &&
        p.per_pass == p.windows && p.windows == 13 &&
        accumulate_plan(size_t(1) << 22, 192, kMsmSlices | (16 << 8), &p) &&
        accumulate_plan(1000, 192, kMsmSlices | (8 << 8), &p) &&
        !accumulate_plan(size_t(1) << 24, 192, kMsmSlices, &p) &&                 // no window
        !accumulate_plan(size_t(1) << 24, 192, kMsmSlices | (4 << 8), &p) &&      // 64 passes
        !accumulate_plan(size_t(1) << 20, 192, kMsmSlices | (20 << 8) | (2 << 21), &p) &&
        !accumulate_plan(size_t(1) << 20, 192, kMsmSlices | (20 << 8) | (20 << 16), &p);
    printf("accumulation plans %s\n", ok ? "errs 0" : "errs 1");
    if (!ok) bad++;
  }
  // The plan's slots cover every pass: each window's digits are at most one entry per scalar.
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(31), size_t(1000), size_t(1) << 16,
                   size_t(1) << 20, size_t(1) << 24, size_t(1) << 26, size_t(1) << 27,
                   (size_t(1) << 28) + 5}) {
    for (int window : {0, 16, 20, 22}) {  // from the size, and forced widths
      msm_plan p;
      if (!make_msm_plan(n, 192, kMsmAuto | (window << 8), &p)) {
        printf("plan n %zu window %d failed\n", n, window);
        bad++;
        continue;
      }
      const size_t entries = n * p.per_pass;
      const bool ok = p.max_slices * p.slice >= entries && entries <= p.max_entries &&
                      (p.max_slices - 1) * p.slice < entries && p.slice >= 1 &&
                      size_t(p.per_pass) * p.buckets <= (size_t(1) << 31) &&
                      (window == 0 || p.c == uint32_t(window)) && p.windows * p.c >= 256;
      printf("plan n %10zu c %2u windows %2u per pass %2u slice %3u slots %8zu rounds %u %s\n",
             n, p.c, p.windows, p.per_pass, p.slice, p.max_slices, head_rounds(n, p.slice),
             ok ? "errs 0" : "errs 1");
      if (!ok) bad++;
    }
  }
  // The scalars' order (bits 16-20): bit-reversed over b bits takes at most 2^b scalars and
  // leaves the sizes alone; bits above 20 are invalid.
  {
    msm_plan nat, rev;
    const bool ok_nat = make_msm_plan(1023, 192, kMsmAuto, &nat);
    const bool ok_rev = make_msm_plan(1023, 192, kMsmAuto | (10 << 16), &rev);
    const bool ok = ok_nat && ok_rev && rev.bitrev_lg == 10 && nat.bitrev_lg == 0 &&
                    rev.total == nat.total && make_msm_plan(1024, 192, kMsmAuto | (10 << 16), &rev) &&
                    !make_msm_plan(1025, 192, kMsmAuto | (10 << 16), &rev) &&
                    make_msm_plan(size_t(1) << 27, 192, kMsmAuto | (27 << 16), &rev) &&
                    !make_msm_plan(3, 192, kMsmAuto | (1 << 26), &rev);
    printf("bit-reversed order plans %s\n", ok ? "errs 0" : "errs 1");
    if (!ok) bad++;
  }
  printf(bad ? "FAILED %d\n" : "ALL OK\n", bad);
  return bad ? 1 : 0;
}
