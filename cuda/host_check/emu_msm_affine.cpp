// Host emulation of the batch-affine accumulation's index logic (msm_affine.cuh: ba_position,
// ba_out_offset, ba_out_count, ba_next_positions, ba_rounds, ba_per_lane, and make_msm_plan's
// buffer sizes) with a toy group: an element's "point" is a 64-bit sum of entry hashes, so a
// bucket that misses an entry, counts one twice or takes another bucket's is caught. The setup,
// layout and round kernels run here as the GPU runs them: each round's positions in the warps'
// lane order, the forward and backward phases visiting the same slots, a round reading only
// what the round before wrote, each slot and each final bucket written once, and every output
// position inside the buffer the plan sized for that round. Chunks of one pass add into the
// buckets the first chunk wrote.
// Build: g++ -x c++ -DG16_EMULATE_PTX -O2 -std=c++17 -include cstring emu_msm_affine.cpp
#include "../msm.cuh"
#include <cstdio>
#include <random>
#include <vector>
using namespace g16;

static std::mt19937_64 rng(27);
// Warps the emulated GPU holds at once (ba_per_lane): small, so that lanes take many positions.
static size_t resident = 64;
static uint64_t mix(uint32_t entry) { return (uint64_t(entry) + 1) * 0x9E3779B97F4A7C15ull; }

// One pass and chunk over these bucket sizes, with output buffers of slots[0] and slots[1]
// positions (0: derived from the entries as the plan does). Adds each bucket's sum into
// `buckets` (writes it when !accumulate). Returns errors.
static int run_pass(const std::vector<uint32_t>& counts, std::vector<uint64_t>& buckets,
                    std::vector<int>& writes, bool accumulate, size_t entries_bound,
                    uint32_t rounds, const size_t slots_in[2], const char* what) {
  const uint32_t keys = (uint32_t)counts.size();
  std::vector<uint32_t> offsets(keys + 1, 0);
  for (uint32_t k = 0; k < keys; k++) offsets[k + 1] = offsets[k] + counts[k];
  const uint32_t total = offsets[keys];
  int bad = 0;
  if (total > entries_bound) { printf("%s: entries above the bound\n", what); return 1; }
  std::vector<uint32_t> entries(total);
  for (auto& e : entries) e = (uint32_t)rng();
  std::vector<uint64_t> want(keys, 0);
  for (uint32_t k = 0; k < keys; k++)
    for (uint32_t e = offsets[k]; e < offsets[k + 1]; e++) want[k] += mix(entries[e]);

  const std::vector<uint64_t> before(buckets);
  size_t slots[2] = {slots_in[0], slots_in[1]};
  if (slots[0] == 0) {
    size_t pos = entries_bound;
    for (uint32_t r = 0; r < rounds; r++) {
      pos = ba_next_positions(pos, keys);
      if (pos > slots[r & 1]) slots[r & 1] = pos;
    }
  }
  // Setup: buckets of 0 or 1 entries are final.
  std::vector<int> final_writes(keys, 0);
  uint32_t flag = 0;
  for (uint32_t k = 0; k < keys; k++) {
    const uint32_t c = counts[k];
    if (c >= 2) { flag = 1; continue; }
    if (c == 0) { if (!accumulate) buckets[k] = 0; continue; }
    buckets[k] = (accumulate ? buckets[k] : 0) + mix(entries[offsets[k]]);
    final_writes[k]++;
  }
  // Rounds. prev: the previous round's slots (round 0 reads the entries), with the round that
  // wrote each slot.
  std::vector<uint64_t> buf[2] = {std::vector<uint64_t>(slots[0]), std::vector<uint64_t>(slots[1])};
  std::vector<int> stamp[2] = {std::vector<int>(slots[0], -1), std::vector<int>(slots[1], -1)};
  std::vector<uint32_t> in_off(offsets), in_cnt(counts);
  size_t positions = entries_bound;
  for (uint32_t r = 0; r < rounds; r++) {
    positions = ba_next_positions(positions, keys);
    if (positions > slots[r & 1]) { printf("%s: round %u needs %zu slots, buffer %zu\n", what, r, positions, slots[r & 1]); bad++; break; }
    if (!flag) {  // no bucket has 2 or more elements left: the kernels return at once
      for (uint32_t k = 0; k < keys; k++) if (in_cnt[k] >= 2) bad++;
      continue;
    }
    // Layout.
    std::vector<uint32_t> out_off(keys + 1), out_cnt(keys);
    uint32_t next_flag = 0;
    for (uint32_t k = 0; k < keys; k++) {
      out_off[k] = ba_out_offset(in_off[k], k);
      out_cnt[k] = ba_out_count(in_cnt[k]);
      if (out_cnt[k] >= 2) next_flag = 1;
      if (k && out_off[k] < out_off[k - 1] + out_cnt[k - 1]) bad++;  // ranges overlap
    }
    out_off[keys] = (uint32_t)positions;
    if (keys && out_off[keys - 1] + out_cnt[keys - 1] > positions) bad++;
    // The round kernel's positions, warp by warp, lane by lane.
    const uint32_t per_lane = ba_per_lane(positions, resident);
    const size_t warps = (positions + 32 * size_t(per_lane) - 1) / (32 * size_t(per_lane));
    std::vector<uint64_t>& out = buf[r & 1];
    std::vector<int>& out_stamp = stamp[r & 1];
    const std::vector<uint64_t>& prev = buf[(r + 1) & 1];
    const std::vector<int>& prev_stamp = stamp[(r + 1) & 1];
    std::vector<int> visits(positions, 0);
    auto input = [&](uint32_t e) -> uint64_t {
      if (r == 0) {
        if (e >= total) { bad++; return 0; }
        return mix(entries[e]);
      }
      if (e >= prev.size() || prev_stamp[e] != int(r) - 1) { bad++; return 0; }
      return prev[e];
    };
    for (size_t w = 0; w < warps; w++) {
      const size_t base = w * 32 * per_lane;
      for (uint32_t lane = 0; lane < 32; lane++) {
        // Forward: the slots that need an inverse (here: every pair).
        std::vector<uint32_t> fwd, bwd;
        uint32_t hint = 0;
        for (uint32_t j = 0; j < per_lane; j++) {
          const size_t i = base + lane + 32 * size_t(j);
          if (i >= positions) break;
          ba_slot at;
          if (ba_position(in_off.data(), in_cnt.data(), out_off.data(), out_cnt.data(), keys,
                          (uint32_t)i, hint, &at))
            fwd.push_back((uint32_t)i);
        }
        // Backward, with the hint carried over as the kernel carries it.
        for (uint32_t j = per_lane; j-- > 0;) {
          const size_t i = base + lane + 32 * size_t(j);
          if (i >= positions) continue;
          ba_slot at;
          if (!ba_position(in_off.data(), in_cnt.data(), out_off.data(), out_cnt.data(), keys,
                           (uint32_t)i, hint, &at))
            continue;
          bwd.push_back((uint32_t)i);
          visits[i]++;
          if (at.k >= keys || i < out_off[at.k] || i >= out_off[at.k] + out_cnt[at.k]) bad++;
          const uint64_t a = input(at.e);
          const uint64_t b = at.has_b ? input(at.e + 1) : 0;
          if (at.has_b != (at.e + 1 < in_off[at.k] + in_cnt[at.k])) bad++;
          if (at.final) {
            buckets[at.k] = (accumulate ? buckets[at.k] : 0) + a + b;
            final_writes[at.k]++;
          } else {
            out[i] = a + b;
            out_stamp[i] = (int)r;
          }
        }
        // The backward phase peels the forward's prefix products in reverse order.
        if (fwd.size() != bwd.size()) bad++;
        for (size_t x = 0; x < fwd.size() && x < bwd.size(); x++)
          if (fwd[x] != bwd[bwd.size() - 1 - x]) bad++;
      }
    }
    for (size_t i = 0; i < positions; i++) if (visits[i] > 1) bad++;
    in_off.assign(out_off.begin(), out_off.end() - 1);
    in_cnt = out_cnt;
    flag = next_flag;
  }
  int wrong = 0;
  for (uint32_t k = 0; k < keys; k++) {
    if (counts[k] >= 1 && final_writes[k] != 1) bad++;
    if (counts[k] == 0 && final_writes[k] != 0) bad++;
    writes[k] += final_writes[k];
  }
  // Written: the bucket's sum (the identity, 0, when empty); accumulated: what was there plus it.
  for (uint32_t k = 0; k < keys; k++)
    if (buckets[k] != (accumulate ? before[k] : 0) + want[k]) wrong++;
  printf("%-34s keys %7u entries %9u rounds %2u errs %d\n", what, keys, total, rounds, bad + wrong);
  return bad + wrong;
}

static std::vector<uint32_t> poisson(uint32_t keys, double mean) {
  std::poisson_distribution<uint32_t> d(mean);
  std::vector<uint32_t> c(keys);
  for (auto& x : c) x = d(rng);
  return c;
}

static int check(const std::vector<uint32_t>& counts, const char* what) {
  std::vector<uint64_t> buckets(counts.size(), 0xdeadull);
  std::vector<int> writes(counts.size(), 0);
  uint32_t most = 0;
  size_t total = 0;
  for (uint32_t c : counts) { most = c > most ? c : most; total += c; }
  const size_t none[2] = {0, 0};
  // The entry bound the kernels get is the pass's most entries; use a loose and a tight one.
  int bad = run_pass(counts, buckets, writes, false, total + 17, ba_rounds(most), none, what);
  std::fill(buckets.begin(), buckets.end(), 0xdeadull);
  std::fill(writes.begin(), writes.end(), 0);
  bad += run_pass(counts, buckets, writes, false, total, ba_rounds(most) + 2, none, what);
  return bad;
}

// Several chunks of one pass: the first writes the buckets, the rest add to them (run_pass
// checks each chunk's buckets against what they held before plus the chunk's sums).
static int check_chunks(uint32_t keys, uint32_t chunks, double mean, const char* what) {
  std::vector<uint64_t> buckets(keys, 0xdeadull);
  std::vector<int> writes(keys, 0);
  int bad = 0;
  for (uint32_t c = 0; c < chunks; c++) {
    std::vector<uint32_t> counts = poisson(keys, mean);
    if (c == 1) std::fill(counts.begin(), counts.begin() + keys / 2, 0);
    size_t total = 0;
    uint32_t most = 0;
    for (uint32_t x : counts) { total += x; most = x > most ? x : most; }
    const size_t none[2] = {0, 0};
    bad += run_pass(counts, buckets, writes, c > 0, total, ba_rounds(most), none, what);
  }
  return bad;
}

int main() {
  int bad = 0;
  // One resident warp (lanes take up to kBaMaxPerLane positions) and many (one each).
  for (size_t warps : {size_t(1), size_t(64), size_t(100000)}) {
  resident = warps;
  printf("resident warps %zu\n", resident);
  bad += check(poisson(4096, 0.3), "sparse (mostly empty)");
  bad += check(poisson(4096, 1.5), "buckets ~ 1.5");
  bad += check(poisson(4096, 2.5), "buckets ~ 2.5");
  bad += check(poisson(4096, 64), "buckets ~ 64");
  bad += check(poisson(2048, 513), "buckets ~ 513");
  std::vector<uint32_t> one(1000, 0);
  one[517] = 300 * 64 + 3;  // all scalars equal: one bucket holds every entry
  bad += check(one, "one bucket holds all");
  one.assign(1000, 0);
  one[0] = 1 << 16;
  bad += check(one, "first bucket holds 2^16");
  one.assign(1000, 0);
  one[999] = 1;
  bad += check(one, "a single entry, last key");
  one.assign(1000, 0);
  one[999] = 2;
  bad += check(one, "two entries, last key");
  one.assign(1000, 0);
  bad += check(one, "no entries");
  std::vector<uint32_t> pow2(600);
  for (uint32_t k = 0; k < 600; k++) pow2[k] = (1u << (k % 11)) + (k % 3) - 1;
  bad += check(pow2, "sizes 2^j - 1, 2^j, 2^j + 1");
  std::vector<uint32_t> ragged = poisson(3000, 20);
  for (uint32_t k = 0; k < 3000; k += 7) ragged[k] = 0;  // empty buckets between full ones
  for (uint32_t k = 1000; k < 1900; k++) ragged[k] = 0;  // a long run of empty buckets
  bad += check(ragged, "runs of empty buckets");
  // Enough positions for several lanes' worth per warp (ba_per_lane > 1).
  bad += check(poisson(1 << 15, 40), "2^15 buckets ~ 40 (many warps)");
  bad += check(poisson(1 << 12, 2048), "2^12 buckets ~ 2^11 (per lane > 1)");
  {
    const int e = check_chunks(4096, 3, 7.0, "chunks of one pass");
    printf("%-34s errs %d\n", "chunks accumulate", e);
    bad += e;
  }
  }
  // The plan sizes both round buffers for every round of every pass and chunk it will run.
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(31), size_t(1000), size_t(1) << 16,
                   size_t(1) << 20, size_t(1) << 24, (size_t(1) << 26) + 1, size_t(1) << 27,
                   (size_t(1) << 28) + 5}) {
    msm_plan p;
    if (!make_msm_plan(n, 192, 96, kMsmAffine, &p)) { printf("plan n %zu failed\n", n); bad++; continue; }
    const size_t keys = size_t(p.per_pass) * p.buckets;
    size_t pos = p.max_entries;
    bool ok = p.affine == 1 && p.max_entries <= (kBaMaxEntries > n ? kBaMaxEntries : n) &&
              p.chunk * p.per_pass == p.max_entries && (size_t(1) << p.rounds) >= p.chunk &&
              p.max_slices == 0;
    for (uint32_t r = 0; r < p.rounds; r++) {
      pos = ba_next_positions(pos, keys);
      ok = ok && pos <= p.ba_slots[r & 1] && pos < (size_t(1) << 32);
    }
    ok = ok && p.off_ba_buf[1] + p.ba_slots[1] * 96 <= p.total;
    printf("plan n %10zu c %2u windows %2u per pass %2u chunk %9zu rounds %2u slots %9zu %9zu "
           "ws %6.2f GB %s\n",
           n, p.c, p.windows, p.per_pass, p.chunk, p.rounds, p.ba_slots[0], p.ba_slots[1],
           p.total / 1e9, ok ? "errs 0" : "errs 1");
    if (!ok) bad++;
    msm_plan q;
    if (!make_msm_plan(n, 384, 0, kMsmAffine, &q) || q.affine) bad++;  // G2: slices
  }
  printf(bad ? "FAILED %d\n" : "ALL OK\n", bad);
  return bad ? 1 : 0;
}
