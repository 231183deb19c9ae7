// Host emulation of h_poly.cu (bit_reverse, scale_powers, h_pointwise) against direct formulas.
// Build: g++ -x c++ -DG16_EMULATE_PTX -O2 -std=c++17 -include cstring emu_hpoly.cpp -o emu_hpoly && ./emu_hpoly
#include "../h_poly.cu"
#include <cstdio>
#include <vector>
#include <random>
using namespace g16; using namespace g16::hpoly_detail;
static std::mt19937_64 rng(7);
fr_t rnd() { fr_t x; for (int i=0;i<8;i++) x.v[i]=(uint32_t)rng(); x.v[7] &= 0x3fffffff; return x.to_mont(); }
int main() {
  int bad = 0;
  for (uint32_t L = 0; L <= 18; L++) {
    size_t n = size_t(1) << L;
    std::vector<fr_t> d(n); for (auto& x : d) x = rnd();
    // bit reverse
    std::vector<fr_t> br(d);
    if (L >= 1 && L <= kBrevSmallLog) { std::vector<fr_t> s(br); for (uint32_t i=0;i<n;i++) br[bitrev(i,L)] = s[i]; }
    else if (L > kBrevSmallLog) {
      uint64_t blocks = (uint64_t(1) << (L-4)) / 16;
      for (uint64_t b=0;b<blocks;b++){ std::vector<fr_t> s1(256), s2(256);
        for (uint32_t t=0;t<256;t++) brev_load(br.data(), L, b, t, s1.data(), s2.data());
        for (uint32_t t=0;t<256;t++) brev_store(br.data(), L, b, t, s1.data(), s2.data()); }
    }
    int e0=0; for (size_t i=0;i<n;i++) if (!(br[bitrev64(i,L)]==d[i])) e0++;
    // scale powers
    fr_t first = rnd(), ratio = rnd();
    int e1=0;
    for (int ib=0; ib<2; ib++) {
      scale_args a; a.data = nullptr; a.lg_n = L; scale_shape(L, a.lt, a.le); a.index_bitrev = ib;
      memcpy(a.first.v, first.v, 32); fr_t sq = ratio;
      for (uint32_t q=0;q<32;q++){ for(int i=0;i<8;i++) a.sq[q].v[i] = q<L? sq.v[i]:0; if(q+1<L) sq=sq.sqr(); }
      std::vector<fr_t> x(d); a.data = x.data();
      uint64_t blocks = uint64_t(1) << (L - a.lt - a.le);
      for (uint64_t b=0;b<blocks;b++){ fr_t pb = scale_block_factor(a, a.sq, b);
        for (uint32_t t=0;t<(1u<<a.lt);t++) scale_thread<8>(a, a.sq, pb, b, t); }
      fr_t pw = first;  // first * ratio^k
      std::vector<fr_t> pows(n); for (size_t k=0;k<n;k++){ pows[k]=pw; pw=pw*ratio; }
      for (size_t i=0;i<n;i++){ size_t k = ib ? bitrev64(i,L) : i; if (!(x[i]==d[i]*pows[k])) e1++; }
    }
    printf("L %2u brev errs %d scale errs %d\n", L, e0, e1); bad += e0+e1;
  }
  // h_point
  { std::vector<fr_t> a(100), b(100), c(100); for(int i=0;i<100;i++){a[i]=rnd();b[i]=rnd();c[i]=rnd();}
    fr_t f = rnd(); std::vector<fr_t> a0(a); int e=0;
    for (int i=0;i<100;i++) h_point(a.data(), b.data(), c.data(), i, f);
    for (int i=0;i<100;i++) if(!(a[i]==(a0[i]*b[i]-c[i])*f)) e++; printf("h_point errs %d\n", e); bad+=e;
    std::vector<fr_t> a1(a0); e=0;  // unscaled: the factor folded elsewhere
    for (int i=0;i<100;i++) h_point<false>(a1.data(), b.data(), c.data(), i, f);
    for (int i=0;i<100;i++) if(!(a1[i]==a0[i]*b[i]-c[i])) e++; printf("h_point unscaled errs %d\n", e); bad+=e;
    // Two buffers: a = a b (no c read), then a = (a - c) f (no b read), scaled and unscaled.
    for (int scaled=0; scaled<2; scaled++) {
      std::vector<fr_t> a2(a0); e=0;
      for (int i=0;i<100;i++) h_point<false, true, false>(a2.data(), b.data(), nullptr, i, f);
      for (int i=0;i<100;i++) if (scaled) h_point<true, false, true>(a2.data(), nullptr, c.data(), i, f);
                              else h_point<false, false, true>(a2.data(), nullptr, c.data(), i, f);
      for (int i=0;i<100;i++) if(!(a2[i]==(scaled ? a[i] : a1[i]))) e++;
      printf("h_point in two buffers (%s) errs %d\n", scaled ? "scaled" : "unscaled", e); bad+=e; } }
  printf(bad ? "FAIL\n" : "ALL OK\n"); return bad != 0;
}
