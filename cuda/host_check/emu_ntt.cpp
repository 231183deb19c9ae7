// Host emulation of the NTT kernels (index logic + device arithmetic path) against a radix-2 reference.
// Build: g++ -x c++ -DG16_EMULATE_PTX -O2 -std=c++17 -include cstring emu_ntt.cpp -o emu_ntt && ./emu_ntt 16
#include "../ntt.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
using namespace g16;
using namespace g16::ntt_detail;

static std::mt19937_64 rng(42);
fr_t rnd() { fr_t x; for (int i=0;i<8;i++) x.v[i]=(uint32_t)rng(); x.v[7] &= 0x3fffffff; return x.to_mont(); }

template<int K, bool DIT, int R> void rounds(std::vector<pass_tile<K,DIT>>& ts) {
  for (auto& T : ts) T.template round<R>();
  if constexpr (R + 1 < pass_tile<K,DIT>::NR) rounds<K,DIT,R+1>(ts);
}
template<int K, bool DIT> void emu_pass(const pass_args& a, const pass_plan& p) {
  std::vector<uint4> smem((size_t(1) << kTileLog) + (size_t(1) << (K + p.c)));
  for (uint64_t b = 0; b < p.blocks; b++) {
    std::vector<pass_tile<K,DIT>> ts;
    for (uint32_t t = 0; t < p.threads; t++)
      ts.push_back(pass_tile<K,DIT>{a, (uint32_t)b, t, p.threads, smem.data(), smem.data() + (1u << kTileLog)});
    for (auto& T : ts) T.load();
    rounds<K,DIT,0>(ts);
    for (auto& T : ts) T.store();
  }
}
template<bool DIT> void emu_dispatch(const pass_args& a, const pass_plan& p) {
  switch (p.k) {
    case 1: emu_pass<1,DIT>(a,p); break; case 2: emu_pass<2,DIT>(a,p); break;
    case 3: emu_pass<3,DIT>(a,p); break; case 4: emu_pass<4,DIT>(a,p); break;
    case 5: emu_pass<5,DIT>(a,p); break; case 6: emu_pass<6,DIT>(a,p); break;
    case 7: emu_pass<7,DIT>(a,p); break; case 8: emu_pass<8,DIT>(a,p); break;
    case 9: emu_pass<9,DIT>(a,p); break; case 10: emu_pass<10,DIT>(a,p); break;
    case 11: emu_pass<11,DIT>(a,p); break; default: abort();
  }
}
void emu_ntt(std::vector<fr_t>& d, uint32_t L, bool inv, bool dit, const std::vector<fr_t>& table, uint32_t lg_max) {
  table_layout lay(lg_max);
  pass_plan plan[8]; uint32_t np = make_plan(L, dit, plan);
  for (uint32_t i=0;i<np;i++) {
    const pass_args a = make_pass_args(d.data(), table.data(), lay, inv, plan[i]);
    if (dit) emu_dispatch<true>(a, plan[i]); else emu_dispatch<false>(a, plan[i]);
  }
}
int main(int argc, char** argv) {
  // omega_max for lg_max: Fr root of unity of order 2^32, squared 32-lg_max times.
  // Fr::ROOT_OF_UNITY (canonical) = 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
  const char* rou = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";
  fr_t w32; for (int i=0;i<8;i++) { char buf[9]; memcpy(buf, rou + 8*(7-i), 8); buf[8]=0; w32.v[i]=strtoul(buf,0,16);} 
  w32 = w32.to_mont();
  // sanity: w32^(2^32) == 1, w32^(2^31) != 1
  { fr_t t=w32; for(int i=0;i<31;i++) t=t.sqr(); if (t==fr_t::one()) {printf("bad root\n");return 1;} t=t.sqr(); if(!(t==fr_t::one())){printf("bad root2\n");return 1;} }
  int maxL = argc > 1 ? atoi(argv[1]) : 14;
  int bad = 0;
  for (uint32_t lg_max : {1u, 5u, 12u, 14u, 16u, 22u, 27u}) {
    fr_t om = w32; for (uint32_t i=lg_max;i<32;i++) om=om.sqr();
    fr_t omi = om.inverse();
    table_layout lay(lg_max);
    std::vector<fr_t> table(lay.total());
    table_init_args ta; ta.table=table.data(); ta.lay=lay; memcpy(ta.omega.v, om.v, 32); memcpy(ta.omega_inv.v, omi.v, 32);
    for (uint64_t i=0;i<lay.total();i++) table_entry(ta, i);
    for (uint32_t L=1; L<=lg_max && L<=(uint32_t)maxL; L++) {
      if (lg_max >= 16 && L < 12 && L != 1 && L != 3 && L != 11) continue;
      size_t n = size_t(1)<<L;
      fr_t w = om; for (uint32_t i=L;i<lg_max;i++) w=w.sqr();
      for (int inv=0; inv<2; inv++) {
        fr_t ww = inv ? w.inverse() : w;
        std::vector<fr_t> in(n); for (auto& x: in) x=rnd();
        // reference: O(n log n) recursive-free via powers (n up to 2^14 -> use radix-2 reference)
        std::vector<fr_t> ref(in);
        { // iterative DIT with bitrev input, natural output, on bit-reversed copy
          std::vector<fr_t> t(n); for (size_t i=0;i<n;i++) t[bitrev64(i,L)]=ref[i];
          for (uint32_t s=0;s<L;s++){ size_t h=size_t(1)<<s; fr_t wm=ww; for(uint32_t q=s+1;q<L;q++) wm=wm.sqr();
            for (size_t blk=0;blk<n;blk+=2*h){ fr_t tw=fr_t::one(); for(size_t j=0;j<h;j++){ fr_t X=t[blk+j], Y=t[blk+j+h]*tw; t[blk+j]=X+Y; t[blk+j+h]=X-Y; tw=tw*wm; } } }
          ref=t;
        }
        if (L <= 6) { // textbook check of the reference itself
          for (size_t k=0;k<n;k++){ fr_t acc=fr_t::zero(); for(size_t j=0;j<n;j++) acc=acc+in[j]*ww.pow((uint64_t)j*k % n); if(!(acc==ref[k])){printf("REF BAD\n");return 1;} }
        }
        // DIF: natural in -> bitrev out
        std::vector<fr_t> d(in); emu_ntt(d, L, inv, false, table, lg_max);
        int e1=0; for (size_t i=0;i<n;i++) if(!(d[bitrev64(i,L)]==ref[i])) e1++;
        // DIT: bitrev in -> natural out
        std::vector<fr_t> d2(n); for (size_t i=0;i<n;i++) d2[bitrev64(i,L)]=in[i];
        emu_ntt(d2, L, inv, true, table, lg_max);
        int e2=0; for (size_t i=0;i<n;i++) if(!(d2[i]==ref[i])) e2++;
        pass_plan plan[8]; uint32_t np=make_plan(L,false,plan);
        printf("lg_max %2u L %2u inv %d passes %u [", lg_max, L, inv, np); for(uint32_t i=0;i<np;i++) printf(" k%u lo%u c%u t%u", plan[i].k, plan[i].lo, plan[i].c, plan[i].threads);
        printf(" ] DIF errs %d DIT errs %d\n", e1, e2);
        bad += e1 + e2;
      }
    }
  }
  printf(bad ? "FAIL\n" : "ALL OK\n");
  return bad != 0;
}
