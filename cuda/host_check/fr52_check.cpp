// The FP64-limb Fr product of fr52.cuh on the host, for tests/host_emulation.rs: reads
// "0 COUNT" and COUNT pairs of canonical Fr values in big-endian hex (blst's Montgomery limbs),
// prints per pair: the round trip of a through the limbs, a * b, a * b^3 (two products fed back
// unreduced) and (a + p) * b (an input between p and 2p), each in the R = 2^256 Montgomery form.
#include "../fr52.cuh"
#include <cstdio>
#include <cstdlib>
using namespace g16;
static void rd(fr_t& x) { for (int i = 7; i >= 0; i--) if (scanf("%8x", &x.v[i]) != 1) exit(1); }
static void pr(const fr_t& x) { for (int i = 7; i >= 0; i--) printf("%08x", x.v[i]); printf("\n"); }
// a + p without reduction (a < p, so below 2p < 2^256).
static fr_t plus_p(const fr_t& a) {
  fr_t r;
  uint64_t c = 0;
  for (int i = 0; i < 8; i++) {
    c += (uint64_t)a.v[i] + fr_params::mod(i);
    r.v[i] = (uint32_t)c;
    c >>= 32;
  }
  return r;
}
int main() {
  int which, cnt;
  if (scanf("%d %d", &which, &cnt) != 2 || which != 0) return 1;
  for (int k = 0; k < cnt; k++) {
    fr_t a, b;
    rd(a);
    rd(b);
    const fr52 tb = fr52_twiddle(b);
    pr(from_fr52(to_fr52(a)));
    pr(from_fr52(mul52(to_fr52(a), tb)));
    pr(from_fr52(mul52(mul52(mul52(to_fr52(a), tb), tb), tb)));
    pr(from_fr52(mul52(to_fr52(plus_p(a)), tb)));
  }
  return 0;
}
