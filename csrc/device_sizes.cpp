// The kernels' device-memory sizes for a build without CUDA: the same host functions that
// launcher.cu exports in a CUDA build (msm.cuh and ntt.cu compiled for the host), so that the
// memory plan of a proof (src/backend/memory_plan.rs) is computed, and tested, from the real
// sizes on any machine.
#include <cstring>

#include "../cuda/msm.cuh"
#include "../cuda/ntt.cu"

extern "C" {

size_t g16_msm_workspace_size(int curve, size_t n, int strategy) {
  switch (curve) {
    case 1: return g16::msm_workspace_size<g16::fp_t>(n, strategy);
    case 2: return g16::msm_workspace_size<g16::fp2_t>(n, strategy);
    default: return 0;
  }
}

uint32_t g16_msm_window_bits(size_t n, int strategy) {
  g16::msm_plan p;
  return g16::make_msm_plan(n, sizeof(g16::xyzz_t<g16::fp_t>), strategy, &p) ? p.c : 0;
}

size_t g16_msm_accumulate_workspace_size(int curve, size_t n_cap, int strategy) {
  return curve == 1 ? g16::msm_accumulate_workspace_size<g16::fp_t>(n_cap, strategy) : 0;
}

size_t g16_msm_accumulate_buckets_size(int curve, size_t n_cap, int strategy) {
  return curve == 1 ? g16::msm_accumulate_buckets_size<g16::fp_t>(n_cap, strategy) : 0;
}

size_t g16_batch_add_workspace_size(int curve, size_t n_points) {
  switch (curve) {
    case 1: return g16::batch_add_workspace_size<g16::fp_t>(n_points);
    case 2: return g16::batch_add_workspace_size<g16::fp2_t>(n_points);
    default: return 0;
  }
}

size_t g16_ntt_table_size(uint32_t lg_max) { return g16::ntt_table_size(lg_max); }

size_t g16_ntt_top_table_size(uint32_t lg_n) { return g16::ntt_top_table_size(lg_n); }

size_t g16_ntt_coset_table_size(uint32_t lg_n) { return g16::ntt_coset_table_size(lg_n); }

}  // extern "C"
