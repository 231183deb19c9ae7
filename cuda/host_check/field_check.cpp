// Field arithmetic (host path, or the device path with -DG16_EMULATE_PTX): reads "FIELD COUNT"
// and COUNT pairs of hex operands, prints each operation's result (tests/host_emulation.rs
// checks them against blstrs).
#include "../bls12_381.cuh"
#include <cstdio>
#include <cstdlib>
using namespace g16;
template<class F> void rd(F& x){ for(int i=F::N-1;i>=0;i--) if(scanf("%8x",&x.v[i])!=1) exit(1); }
template<class F> void pr(const F& x){ for(int i=F::N-1;i>=0;i--) printf("%08x",x.v[i]); printf("\n"); }
template<class F> void run(int cnt){
  for(int k=0;k<cnt;k++){ F a,b; rd(a); rd(b);
    pr(a+b); pr(a-b); pr(a*b); pr(a.sqr()); pr(-a); pr(a.to_mont()); pr(a.from_mont()); pr(a.inverse()); pr(a.pow(12345)); pr(a.inverse_vartime());
    F ab,cd; F::mul2(a,b,b,a+b,ab,cd); pr(ab); pr(cd);
    pr(F::mul_add2(a,b,a+b,b)); pr(F::mul_add2(a,a,b,-b)); }
}
int main(){ int which,cnt; if(scanf("%d %d",&which,&cnt)!=2) return 1; if(which==0) run<fr_t>(cnt); else run<fp_t>(cnt); }
