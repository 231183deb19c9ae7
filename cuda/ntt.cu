// NTT over Fr: twiddle tables and the in-place transform, as a few shared-memory passes.
//
// A transform of 2^L elements is split into passes over bit fields of the index, top bits first
// (decimation in frequency, natural in -> bit-reversed out) or bottom bits first (decimation in
// time, bit-reversed in -> natural out). A pass over index bits [lo, lo + K) is the four-step
// split of the size-2^(lo+K) sub-transforms it belongs to: each block takes "lines" of 2^K
// elements at stride 2^lo (its first register round reads them from global memory, its last
// writes them back, shared memory carries them between rounds), runs a radix-2 DFT
// of size 2^K on each (two layers per register round, 4 elements per thread, by default), and
// multiplies element (line column j, tile slot t) by w_M^(j * bitrev_K(t)) with M = 2^(lo+K):
// after the local DFT (DIF) or before it (DIT). Passes with lo > 0 hold 2+ consecutive
// columns per block (64-byte runs in global memory; 4+ with G16_NTT_TILE_LOG=11). A 2^27
// transform is 3 passes (9 + 9 + 9 bits); at most 10 bits per pass (11 with
// G16_NTT_TILE_LOG=11).
//
// Stages: ntt_plan.cuh (pass plans), ntt_tables.cuh (twiddle tables), ntt_pass.cuh (the
// passes), ntt_coset.cuh (the H step's coset transforms), ntt_lde.cuh (its fused LDE); this
// file holds the entry points.
#include "ntt_lde.cuh"

namespace g16 {

// Table sizes: host code only, so that a build without CUDA sizes device memory the same way.
size_t ntt_table_size(uint32_t lg_max) {
  if (lg_max < 1 || lg_max > ntt_detail::kMaxLgMax) return 0;
  return size_t(ntt_detail::table_layout(lg_max).total()) * sizeof(fr_t);
}

size_t ntt_top_table_size(uint32_t lg_n) {
  const ntt_detail::top_table t(nullptr, lg_n);
  return t.K == 0 ? 0 : size_t(2 * t.len()) * sizeof(fr_t);
}

size_t ntt_coset_table_size(uint32_t lg_n) {
  const ntt_detail::coset_layout cl(lg_n);
  return cl.ok ? size_t(cl.total()) * sizeof(fr_t) : 0;
}

#if defined(__CUDACC__)

cudaError_t ntt_table_init(fr_t* table, uint32_t lg_max, const fr_t& omega, const fr_t& omega_inv,
                           cudaStream_t s) {
  using namespace ntt_detail;
  if (table == nullptr || lg_max < 1 || lg_max > kMaxLgMax) return cudaErrorInvalidValue;
  table_init_args a;
  a.table = table;
  a.lay = table_layout(lg_max);
  for (int i = 0; i < 8; i++) {
    a.omega.v[i] = omega.v[i];
    a.omega_inv.v[i] = omega_inv.v[i];
  }
  const uint64_t n = a.lay.total();
  const unsigned threads = 128;
  table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_top_table_init(fr_t* top, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                               cudaStream_t s) {
  using namespace ntt_detail;
  if (top == nullptr || table == nullptr || lg_max < 1 || lg_max > kMaxLgMax || lg_n > lg_max ||
      ntt_top_table_size(lg_n) == 0)
    return cudaErrorInvalidValue;
  top_init_args a;
  a.top = top;
  a.M = lg_n;
  a.K = top_table::top_k(lg_n);
  a.table = table;
  a.lay = table_layout(lg_max);
  const uint64_t n = uint64_t(2) << lg_n;
  const unsigned threads = 256;
  top_table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_coset_table_init(fr_t* table, uint32_t lg_n, const fr_t (&omega)[2],
                                 const fr_t (&beta)[2], const fr_t (&kappa)[2], cudaStream_t s) {
  using namespace ntt_detail;
  coset_init_args a;
  a.table = table;
  a.lay = coset_layout(lg_n);
  if (table == nullptr || !a.lay.ok) return cudaErrorInvalidValue;
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 8; i++) {
      a.omega[d].v[i] = omega[d].v[i];
      a.beta[d].v[i] = beta[d].v[i];
      a.kappa[d].v[i] = kappa[d].v[i];
    }
  const uint64_t n = a.lay.total();
  const unsigned threads = 128;
  coset_table_init_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, s>>>(a);
  return cudaGetLastError();
}

cudaError_t ntt_coset(fr_t* data, uint32_t lg_n, bool inverse, const fr_t* table, uint32_t lg_max,
                      const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || table == nullptr || coset == nullptr || lg_max < 1 || lg_max > kMaxLgMax ||
      lg_n > lg_max || !coset_layout(lg_n).ok || (top != nullptr && top_lg > lg_max))
    return cudaErrorInvalidValue;
  return run_coset_passes(data, lg_n, inverse, table, lg_max, coset, top_table(top, top_lg), s);
}

// Whether the H step's sequences can run for these arguments.
static bool lde_args_ok(uint32_t lg_n, const fr_t* table, uint32_t lg_max, const fr_t* coset,
                        const fr_t* top, uint32_t top_lg) {
  using namespace ntt_detail;
  return table != nullptr && coset != nullptr && lg_max >= 1 && lg_max <= kMaxLgMax &&
         lg_n <= lg_max && coset_layout(lg_n).ok && (top == nullptr || top_lg <= lg_max);
}

cudaError_t ntt_lde(fr_t* data, uint32_t lg_n, const fr_t* table, uint32_t lg_max,
                    const fr_t* coset, const fr_t* top, uint32_t top_lg, cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || !lde_args_ok(lg_n, table, lg_max, coset, top, top_lg))
    return cudaErrorInvalidValue;
  const top_table tt(top, top_lg);
  if (h_fusable(lg_n)) {
    fused_step steps[kMaxFusedSteps];
    const uint32_t n = lde_steps(data, lg_n, table, table_layout(lg_max), coset,
                                 coset_layout(lg_n), tt, steps, 0);
    return run_steps(steps, n, s);
  }
  // The separate passes: the plain inverse, then the coset transform.
  cudaError_t e = run_passes(data, lg_n, true, false, table, lg_max, tt, s);
  if (e != cudaSuccess) return e;
  return run_coset_passes(data, lg_n, false, table, lg_max, coset, tt, s);
}

cudaError_t ntt_lde_quotient(fr_t* a, const fr_t* b, fr_t* c, uint32_t lg_n, const fr_t* table,
                             uint32_t lg_max, const fr_t* coset, const fr_t* top, uint32_t top_lg,
                             cudaStream_t s) {
  using namespace ntt_detail;
  if (a == nullptr || b == nullptr || c == nullptr ||
      !lde_args_ok(lg_n, table, lg_max, coset, top, top_lg))
    return cudaErrorInvalidValue;
  const top_table tt(top, top_lg);
  cudaError_t e = ntt_lde(c, lg_n, table, lg_max, coset, top, top_lg, s);
  if (e == cudaSuccess) e = h_pointwise(a, b, c, size_t(1) << lg_n, fr_t::one(), s);
  if (e != cudaSuccess) return e;
  return run_coset_passes(a, lg_n, true, table, lg_max, coset, tt, s);
}

cudaError_t ntt(fr_t* data, uint32_t lg_n, bool inverse, bool bitrev_in, bool bitrev_out,
                const fr_t* table, uint32_t lg_max, const fr_t* top, uint32_t top_lg,
                cudaStream_t s) {
  using namespace ntt_detail;
  if (data == nullptr || table == nullptr || lg_max < 1 || lg_max > kMaxLgMax || lg_n > lg_max ||
      lg_n > 31 || (top != nullptr && top_lg > lg_max))
    return cudaErrorInvalidValue;
  if (lg_n == 0) return cudaSuccess;  // a 1-point transform is the identity
  const top_table tt(top, top_lg);
  cudaError_t e;
  if (bitrev_in && !bitrev_out) return run_passes(data, lg_n, inverse, true, table, lg_max, tt, s);
  if (bitrev_in) {  // bit-reversed in and out: permute to natural, then DIF
    if ((e = bit_reverse(data, lg_n, s)) != cudaSuccess) return e;
    return run_passes(data, lg_n, inverse, false, table, lg_max, tt, s);
  }
  if ((e = run_passes(data, lg_n, inverse, false, table, lg_max, tt, s)) != cudaSuccess) return e;
  if (!bitrev_out) return bit_reverse(data, lg_n, s);
  return cudaSuccess;
}

#endif  // __CUDACC__

}  // namespace g16
