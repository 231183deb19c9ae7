// The lazy Fp forms (values below 2p; field.cuh's kmod) on the host, for tests/host_emulation.rs,
// built with the device's carry chains emulated (-DG16_EMULATE_PTX):
//  - add<2>, sub<2>, neg<2>, is_zero_lazy and the unreduced mul2, sqr and mul_add2 on lazy
//    operands (each value v or v + p, edge values 0, 1, p - 1 among them) against the fully
//    reduced operations: each result below 2p and equal mod p;
//  - G1 mixed additions (xyzz_t::add_affine<2>, the MSM's slice kernel under G16_MSM_LAZY_FP)
//    against add_affine<1> after every step: random multiples of the generator with random
//    signs, a point twice in a row (the doubling), a point and its negation (the identity),
//    additions after the identity. Prints "ALL OK" when nothing differs.
// Build: g++ -x c++ -DG16_EMULATE_PTX -DG16_MUL_EVEN_ODD -O2 -std=c++17 -include cstring
//        lazy_add_check.cpp -o lazy_add_check && ./lazy_add_check
#include "../curve.cuh"
#include <cstdio>
#include <random>
#include <vector>
using namespace g16;

static std::mt19937_64 rng(20261204);
static int failures = 0;

static void expect(bool ok, const char* what, int step) {
  if (!ok && failures++ < 10) printf("FAIL %s (step %d)\n", what, step);
}

// x < 2p as an integer.
static bool below_2p(const fp_t& x) {
  for (int i = fp_t::N - 1; i >= 0; i--) {
    const uint32_t m = fp_t::kmod<2>(i);
    if (x.v[i] != m) return x.v[i] < m;
  }
  return false;
}

static fp_t random_fp() {
  fp_t r;
  for (int i = 0; i < fp_t::N; i++) r.v[i] = (uint32_t)rng();
  r.v[fp_t::N - 1] %= fp_params::mod(fp_t::N - 1);  // below p
  return r;
}

// v or v + p, at random: a lazy form of v.
static fp_t lazy_of(const fp_t& v) {
  if (rng() & 1) return v;
  fp_t r;
  uint64_t c = 0;
  for (int i = 0; i < fp_t::N; i++) {
    c += (uint64_t)v.v[i] + fp_params::mod(i);
    r.v[i] = (uint32_t)c;
    c >>= 32;
  }
  return r;
}

// Lazy results at or above p: some must occur, or the unreduced forms were never exercised.
static long unreduced = 0;
static void count_unreduced(const fp_t& x) { unreduced += !(x == x.canonical()); }

static void check_field_ops() {
  fp_t p_minus_1 = fp_t::zero() - fp_t::one();  // Montgomery form of -1
  fp_t raw_p_minus_1;
  for (int i = 0; i < fp_t::N; i++) raw_p_minus_1.v[i] = fp_params::mod(i) - (i == 0);
  const fp_t edges[] = {fp_t::zero(), fp_t::one(), p_minus_1, raw_p_minus_1};
  for (int step = 0; step < 20000; step++) {
    const fp_t a = step < 16 ? edges[step % 4] : random_fp();
    const fp_t b = step < 16 ? edges[step / 4] : random_fp();
    const fp_t c = random_fp(), d = random_fp();
    const fp_t la = lazy_of(a), lb = lazy_of(b), lc = lazy_of(c), ld = lazy_of(d);
    const fp_t add = fp_t::add<2>(la, lb), sub = fp_t::sub<2>(la, lb), neg = la.neg<2>();
    expect(below_2p(add) && add.canonical() == a + b, "add<2>", step);
    expect(below_2p(sub) && sub.canonical() == a - b, "sub<2>", step);
    expect(below_2p(neg) && neg.canonical() == -a, "neg<2>", step);
    expect(la.is_zero_lazy() == a.is_zero(), "is_zero_lazy", step);
    fp_t ab, cd;
    fp_t::mul2<false>(la, lb, lc, ld, ab, cd);
    expect(below_2p(ab) && ab.canonical() == a * b, "mul2<false> (first)", step);
    expect(below_2p(cd) && cd.canonical() == c * d, "mul2<false> (second)", step);
    const fp_t sq = la.sqr<false>();
    expect(below_2p(sq) && sq.canonical() == a.sqr(), "sqr<false>", step);
    const fp_t s2 = fp_t::mul_add2<false>(la, lb, lc, ld);
    count_unreduced(ab);
    count_unreduced(sq);
    count_unreduced(s2);
    expect(below_2p(s2) && s2.canonical() == fp_t::mul_add2(a, b, c, d), "mul_add2<false>", step);
  }
}

static fp_t from_hex(const char* h) {
  fp_t r = fp_t::zero();
  for (int i = 0; i < fp_t::N; i++) {
    uint32_t w = 0;
    sscanf(h + 8 * i, "%8x", &w);
    r.v[fp_t::N - 1 - i] = w;
  }
  return r.to_mont();
}

typedef xyzz_t<fp_t> g1_xyzz;

static affine_t<fp_t> to_affine(const g1_xyzz& p) {
  return affine_t<fp_t>{p.X * p.ZZ.inverse(), p.Y * p.ZZZ.inverse()};
}

static bool same(const g1_xyzz& a, const g1_xyzz& b) {
  return a.X == b.X && a.Y == b.Y && a.ZZ == b.ZZ && a.ZZZ == b.ZZZ;
}

static void check_additions() {
  const affine_t<fp_t> g{
      from_hex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
      from_hex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
  // The generator is on y^2 = x^3 + 4 (else the constants are wrong).
  const fp_t four = fp_t::one() + fp_t::one() + fp_t::one() + fp_t::one();
  expect(g.y.sqr() == g.x.sqr() * g.x + four, "generator on the curve", -1);
  // k G for k = 1..40.
  std::vector<affine_t<fp_t>> pts;
  g1_xyzz acc = g1_xyzz::inf();
  for (int k = 1; k <= 40; k++) {
    acc.add_affine(g);
    pts.push_back(to_affine(acc));
  }
  for (int run = 0; run < 400; run++) {
    g1_xyzz full = g1_xyzz::inf(), lazy = g1_xyzz::inf();
    size_t last = 0;
    bool last_neg = false;
    for (int step = 0; step < 60; step++) {
      size_t i = rng() % pts.size();
      bool neg = rng() & 1;
      const int kind = rng() % 8;
      if (step > 0 && kind == 0) i = last, neg = last_neg;            // the same point: doubling
      else if (step > 0 && kind == 1) i = last, neg = !last_neg;      // its negation: identity
      full.add_affine(pts[i], neg);
      lazy.add_affine<2>(pts[i], neg);
      expect(full.is_inf() == lazy.is_inf(), "identity agrees", step);
      expect(below_2p(lazy.X) && below_2p(lazy.Y) && below_2p(lazy.ZZ) && below_2p(lazy.ZZZ),
             "lazy coordinates below 2p", step);
      expect(same(full, lazy.canonical()), "lazy sum equals the reduced sum", step);
      count_unreduced(lazy.X);
      count_unreduced(lazy.ZZ);
      last = i;
      last_neg = neg;
    }
  }
}

int main() {
  check_field_ops();
  const long field_unreduced = unreduced;
  check_additions();
  printf("unreduced results: %ld of the products, %ld of the sums' X and ZZ\n", field_unreduced,
         unreduced - field_unreduced);
  expect(field_unreduced > 0 && unreduced > field_unreduced, "some lazy results above p", -1);
  printf("errs %d\n", failures);
  if (failures == 0) printf("ALL OK\n");
  return failures != 0;
}
