// The 29-bit-limb Fp products of mont29.cuh on the host, for tests/host_emulation.rs: reads
// "1 COUNT" (Fp only) and COUNT pairs of canonical values in big-endian hex (blst's Montgomery
// limbs), prints per pair: the round trip of a through the limbs, a * b, a * b^3 (two products
// fed back unreduced) and (a + p) * b (an input between p and 2p), each in blst's Montgomery form.
#include "../mont29.cuh"
#include <cstdio>
#include <cstdlib>
using namespace g16;
static void rd(fp_t& x) { for (int i = fp_t::N - 1; i >= 0; i--) if (scanf("%8x", &x.v[i]) != 1) exit(1); }
static void pr(const fp_t& x) { for (int i = fp_t::N - 1; i >= 0; i--) printf("%08x", x.v[i]); printf("\n"); }
// a + p without reduction (a < p, so below 2p < 2^384).
static fp_t plus_p(const fp_t& a) {
  fp_t r;
  uint64_t c = 0;
  for (int i = 0; i < fp_t::N; i++) {
    c += (uint64_t)a.v[i] + fp_params::mod(i);
    r.v[i] = (uint32_t)c;
    c >>= 32;
  }
  return r;
}
int main() {
  int which, cnt;
  if (scanf("%d %d", &which, &cnt) != 2 || which != 1) return 1;
  for (int k = 0; k < cnt; k++) {
    fp_t a, b;
    rd(a);
    rd(b);
    const fp29 tb = to_fp29(b, fp29::kShift);
    pr(from_fp29(to_fp29(a, 0)));
    pr(from_fp29(mul29(to_fp29(a, 0), tb)));
    pr(from_fp29(mul29(mul29(mul29(to_fp29(a, 0), tb), tb), tb)));
    pr(from_fp29(mul29(to_fp29(plus_p(a), 0), tb)));
  }
  return 0;
}
