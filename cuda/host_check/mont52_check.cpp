// The FP64-limb products of mont52.cuh on the host, for tests/host_emulation.rs: reads
// "FIELD COUNT" (0 Fr, 1 Fp) and COUNT pairs of canonical values in big-endian hex (blst's
// Montgomery limbs), prints per pair: the round trip of a through the limbs, a * b, a * b^3 (two
// products fed back unreduced) and (a + p) * b (an input between p and 2p), each in blst's
// Montgomery form. With -DMONT52_SCALED the multiplier is to_m52_scaled(b) (mul_f64's).
#include "../mont52.cuh"
#include <cstdio>
#include <cstdlib>
using namespace g16;
template <class F> void rd(F& x) { for (int i = F::N - 1; i >= 0; i--) if (scanf("%8x", &x.v[i]) != 1) exit(1); }
template <class F> void pr(const F& x) { for (int i = F::N - 1; i >= 0; i--) printf("%08x", x.v[i]); printf("\n"); }
template <class F> uint32_t modulus_word(int i);
template <> uint32_t modulus_word<fr_t>(int i) { return fr_params::mod(i); }
template <> uint32_t modulus_word<fp_t>(int i) { return fp_params::mod(i); }
// a + p without reduction (a < p, so below 2p < 2^(32 N)).
template <class P> typename P::field plus_p(const typename P::field& a) {
  typename P::field r;
  uint64_t c = 0;
  for (int i = 0; i < P::field::N; i++) {
    c += (uint64_t)a.v[i] + modulus_word<typename P::field>(i);
    r.v[i] = (uint32_t)c;
    c >>= 32;
  }
  return r;
}
template <class P> void run(int cnt) {
  typedef typename P::field F;
  for (int k = 0; k < cnt; k++) {
    F a, b;
    rd(a);
    rd(b);
#if defined(MONT52_SCALED)
    const m52<P> tb = to_m52_scaled<P>(b);  // b's words shifted instead of a prepared table
#else
    const m52<P> tb = prepare52<P>(b);
#endif
    pr(from_m52<P>(to_m52<P>(a)));
    pr(from_m52<P>(mul52(to_m52<P>(a), tb)));
    pr(from_m52<P>(mul52(mul52(mul52(to_m52<P>(a), tb), tb), tb)));
    pr(from_m52<P>(mul52(to_m52<P>(plus_p<P>(a)), tb)));
  }
}
int main() {
  int which, cnt;
  if (scanf("%d %d", &which, &cnt) != 2) return 1;
  if (which == 0) run<fr52_params>(cnt); else run<fp52_params>(cnt);
  return 0;
}
