// The extern "C" door between Rust and CUDA: implements cuda/launcher.h by checking arguments,
// copying host-side constants into kernel parameters, and calling the kernel files' launch
// functions (ntt.cu, h_poly.cu, msm_g1.cu, msm_g2.cu) on the caller's stream. The test kernels'
// entry points live in their own files (*_test.cu), built only with the `gpu-test-kernels`
// feature. No allocation, no
// device-wide synchronisation.
#include <string.h>

#include "launcher.h"

#include "internal.cuh"

namespace {

g16::fr_t host_fr(const void* p) {
  g16::fr_t x;
  memcpy(x.v, p, sizeof(x.v));
  return x;
}

cudaStream_t stream_of(g16_stream_t s) { return reinterpret_cast<cudaStream_t>(s); }

}  // namespace

extern "C" {

size_t g16_ntt_table_size(uint32_t lg_max) { return g16::ntt_table_size(lg_max); }

int g16_ntt_table_init(void* table, uint32_t lg_max, const void* omega_max_host,
                       const void* omega_max_inv_host, g16_stream_t stream) {
  if (omega_max_host == nullptr || omega_max_inv_host == nullptr) return (int)cudaErrorInvalidValue;
  return (int)g16::ntt_table_init(static_cast<g16::fr_t*>(table), lg_max, host_fr(omega_max_host),
                                  host_fr(omega_max_inv_host), stream_of(stream));
}

int g16_ntt(void* data, uint32_t lg_n, int inverse, int bitrev_in, int bitrev_out,
            const void* table, uint32_t lg_max, const void* top, uint32_t top_lg,
            g16_stream_t stream) {
  return (int)g16::ntt(static_cast<g16::fr_t*>(data), lg_n, inverse != 0, bitrev_in != 0,
                       bitrev_out != 0, static_cast<const g16::fr_t*>(table), lg_max,
                       static_cast<const g16::fr_t*>(top), top_lg, stream_of(stream));
}

size_t g16_ntt_top_table_size(uint32_t lg_n) { return g16::ntt_top_table_size(lg_n); }

int g16_ntt_top_table_init(void* top, uint32_t lg_n, const void* table, uint32_t lg_max,
                           g16_stream_t stream) {
  return (int)g16::ntt_top_table_init(static_cast<g16::fr_t*>(top), lg_n,
                                      static_cast<const g16::fr_t*>(table), lg_max,
                                      stream_of(stream));
}

size_t g16_ntt_coset_table_size(uint32_t lg_n) { return g16::ntt_coset_table_size(lg_n); }

int g16_ntt_coset_table_init(void* coset, uint32_t lg_n, const void* omega2_host,
                             const void* beta2_host, const void* kappa2_host, g16_stream_t stream) {
  if (omega2_host == nullptr || beta2_host == nullptr || kappa2_host == nullptr)
    return (int)cudaErrorInvalidValue;
  // Each argument is two consecutive 32-byte values.
  const auto* o = static_cast<const unsigned char*>(omega2_host);
  const auto* b = static_cast<const unsigned char*>(beta2_host);
  const auto* k = static_cast<const unsigned char*>(kappa2_host);
  const g16::fr_t omega[2] = {host_fr(o), host_fr(o + 32)}, beta[2] = {host_fr(b), host_fr(b + 32)},
                  kappa[2] = {host_fr(k), host_fr(k + 32)};
  return (int)g16::ntt_coset_table_init(static_cast<g16::fr_t*>(coset), lg_n, omega, beta, kappa,
                                        stream_of(stream));
}

int g16_ntt_coset(void* data, uint32_t lg_n, int inverse, const void* table, uint32_t lg_max,
                  const void* coset, const void* top, uint32_t top_lg, g16_stream_t stream) {
  return (int)g16::ntt_coset(static_cast<g16::fr_t*>(data), lg_n, inverse != 0,
                             static_cast<const g16::fr_t*>(table), lg_max,
                             static_cast<const g16::fr_t*>(coset),
                             static_cast<const g16::fr_t*>(top), top_lg, stream_of(stream));
}

int g16_ntt_lde(void* data, uint32_t lg_n, const void* table, uint32_t lg_max, const void* coset,
                const void* top, uint32_t top_lg, g16_stream_t stream) {
  return (int)g16::ntt_lde(static_cast<g16::fr_t*>(data), lg_n, static_cast<const g16::fr_t*>(table),
                           lg_max, static_cast<const g16::fr_t*>(coset),
                           static_cast<const g16::fr_t*>(top), top_lg, stream_of(stream));
}

int g16_ntt_lde_quotient(void* a, const void* b, void* c, uint32_t lg_n, const void* table,
                         uint32_t lg_max, const void* coset, const void* top, uint32_t top_lg,
                         g16_stream_t stream) {
  return (int)g16::ntt_lde_quotient(
      static_cast<g16::fr_t*>(a), static_cast<const g16::fr_t*>(b), static_cast<g16::fr_t*>(c),
      lg_n, static_cast<const g16::fr_t*>(table), lg_max, static_cast<const g16::fr_t*>(coset),
      static_cast<const g16::fr_t*>(top), top_lg, stream_of(stream));
}

int g16_scale_powers(void* data, uint32_t lg_n, const void* first_host, const void* ratio_host,
                     int index_bitrev, g16_stream_t stream) {
  if (first_host == nullptr || ratio_host == nullptr) return (int)cudaErrorInvalidValue;
  return (int)g16::scale_powers(static_cast<g16::fr_t*>(data), lg_n, host_fr(first_host),
                                host_fr(ratio_host), index_bitrev != 0, stream_of(stream));
}

int g16_h_pointwise(void* a, const void* b, const void* c, size_t n, const void* factor_host,
                    g16_stream_t stream) {
  if (factor_host == nullptr) return (int)cudaErrorInvalidValue;
  return (int)g16::h_pointwise(static_cast<g16::fr_t*>(a), static_cast<const g16::fr_t*>(b),
                               static_cast<const g16::fr_t*>(c), n, host_fr(factor_host),
                               stream_of(stream));
}

int g16_bit_reverse(void* data, uint32_t lg_n, g16_stream_t stream) {
  return (int)g16::bit_reverse(static_cast<g16::fr_t*>(data), lg_n, stream_of(stream));
}

size_t g16_msm_workspace_size(int curve, size_t n, int strategy) {
  switch (curve) {
    case 1: return g16::g1_msm_workspace_size(n, strategy);
    case 2: return g16::g2_msm_workspace_size(n, strategy);
    default: return 0;
  }
}

int g16_msm(int curve, const void* points, size_t n_points, const uint32_t* index,
            const void* scalars, int montgomery, size_t n, int strategy, void* workspace,
            size_t workspace_bytes, void* result, g16_stream_t stream) {
  using namespace g16;
  const fr_t* sc = static_cast<const fr_t*>(scalars);
  switch (curve) {
    case 1:
      return (int)g1_msm(static_cast<const g1_affine_t*>(points), n_points, index, sc,
                         montgomery != 0, n, strategy, workspace, workspace_bytes,
                         static_cast<g1_xyzz_t*>(result), stream_of(stream));
    case 2:
      return (int)g2_msm(static_cast<const g2_affine_t*>(points), n_points, index, sc,
                         montgomery != 0, n, strategy, workspace, workspace_bytes,
                         static_cast<g2_xyzz_t*>(result), stream_of(stream));
    default: return (int)cudaErrorInvalidValue;
  }
}

int g16_msm_precompute(int curve, void* points, size_t n_points, uint32_t window, uint32_t copies,
                       g16_stream_t stream) {
  if (curve != 1) return (int)cudaErrorInvalidValue;
  return (int)g16::g1_msm_precompute(static_cast<g16::g1_affine_t*>(points), n_points, window,
                                     copies, stream_of(stream));
}

uint32_t g16_msm_window_bits(size_t n, int strategy) { return g16::g1_msm_window_bits(n, strategy); }

size_t g16_msm_accumulate_workspace_size(int curve, size_t n_cap, int strategy) {
  return curve == 1 ? g16::g1_msm_accumulate_workspace_size(n_cap, strategy) : 0;
}

size_t g16_msm_accumulate_buckets_size(int curve, size_t n_cap, int strategy) {
  return curve == 1 ? g16::g1_msm_accumulate_buckets_size(n_cap, strategy) : 0;
}

int g16_msm_accumulate(int curve, const void* points, size_t n_points, const uint32_t* index,
                       const void* scalars, int montgomery, size_t n, size_t n_cap, int strategy,
                       void* buckets, size_t buckets_bytes, void* workspace,
                       size_t workspace_bytes, int first, g16_stream_t stream) {
  if (curve != 1) return (int)cudaErrorInvalidValue;
  return (int)g16::g1_msm_accumulate(static_cast<const g16::g1_affine_t*>(points), n_points, index,
                                     static_cast<const g16::fr_t*>(scalars), montgomery != 0, n,
                                     n_cap, strategy, buckets, buckets_bytes, workspace,
                                     workspace_bytes, first != 0, stream_of(stream));
}

int g16_msm_accumulated(int curve, size_t n_cap, int strategy, void* buckets,
                        size_t buckets_bytes, void* workspace, size_t workspace_bytes,
                        void* result, g16_stream_t stream) {
  if (curve != 1) return (int)cudaErrorInvalidValue;
  return (int)g16::g1_msm_accumulated(n_cap, strategy, buckets, buckets_bytes, workspace,
                                      workspace_bytes, static_cast<g16::g1_xyzz_t*>(result),
                                      stream_of(stream));
}

int g16_msm_index_rebase(uint32_t* index, size_t n, uint32_t base, g16_stream_t stream) {
  return (int)g16::msm_index_rebase(index, n, base, stream_of(stream));
}

int g16_msm_gather_tail(int curve, const void* points, size_t n_points, const uint32_t* index,
                        uint32_t base, const void* scalars, size_t n, void* out_points,
                        void* out_scalars, g16_stream_t stream) {
  size_t point_bytes;
  switch (curve) {
    case 1: point_bytes = sizeof(g16::g1_affine_t); break;
    case 2: point_bytes = sizeof(g16::g2_affine_t); break;
    default: return (int)cudaErrorInvalidValue;
  }
  return (int)g16::msm_gather_tail(points, point_bytes, n_points, index, base, scalars, n,
                                   out_points, out_scalars, stream_of(stream));
}

size_t g16_batch_add_workspace_size(int curve, size_t n_points) {
  switch (curve) {
    case 1: return g16::g1_batch_add_workspace_size(n_points);
    case 2: return g16::g2_batch_add_workspace_size(n_points);
    default: return 0;
  }
}

int g16_batch_add(int curve, const void* points, size_t n_points, const uint64_t* bitmap,
                  void* workspace, size_t workspace_bytes, void* result, g16_stream_t stream) {
  using namespace g16;
  switch (curve) {
    case 1:
      return (int)g1_batch_add(static_cast<const g1_affine_t*>(points), n_points, bitmap,
                               workspace, workspace_bytes, static_cast<g1_xyzz_t*>(result),
                               stream_of(stream));
    case 2:
      return (int)g2_batch_add(static_cast<const g2_affine_t*>(points), n_points, bitmap,
                               workspace, workspace_bytes, static_cast<g2_xyzz_t*>(result),
                               stream_of(stream));
    default: return (int)cudaErrorInvalidValue;
  }
}

int g16_device_info(int device, char* name, size_t name_len, int* major, int* minor,
                    size_t* total_memory) {
  if (name == nullptr || name_len == 0 || major == nullptr || minor == nullptr ||
      total_memory == nullptr)
    return (int)cudaErrorInvalidValue;
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return (int)e;
  strncpy(name, prop.name, name_len - 1);
  name[name_len - 1] = '\0';
  *major = prop.major;
  *minor = prop.minor;
  *total_memory = prop.totalGlobalMem;
  return (int)cudaSuccess;
}

int g16_kernel_image_check(int device, int* binary_version, int* ptx_version) {
  if (binary_version == nullptr || ptx_version == nullptr) return (int)cudaErrorInvalidValue;
  cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return (int)e;
  cudaFuncAttributes attr;
  e = g16::kernel_attributes(&attr);
  if (e != cudaSuccess) return (int)e;
  *binary_version = attr.binaryVersion;
  *ptx_version = attr.ptxVersion;
  return (int)cudaSuccess;
}

}  // extern "C"
