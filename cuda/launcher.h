// The only door between Rust and CUDA: plain C functions over device pointers, sizes and a
// stream. Rust (src/backend/cuda/) owns every allocation; nothing here allocates or frees device
// memory, and nothing synchronises the whole device. Each function returns a cudaError_t value
// (0 = cudaSuccess) from launching its kernels; errors that happen while they run surface at
// the caller's next stream/event synchronisation.
//
// Data layout: fr_t is 4 x u64 (8 x u32) little-endian limbs in Montgomery form with R = 2^256,
// fp_t is 6 x u64 (12 x u32) with R = 2^384: exactly blst's memory, so no conversion pass.
//
// Limits (added with the kernels; see cuda/README.md): device pointers to Fr data and tables
// must be 16-byte aligned (cudaMalloc's 256 is fine). lg_max <= 32, lg_n <= 31. Invalid
// arguments return cudaErrorInvalidValue (1) without launching anything. The NTT launches may
// call cudaFuncSetAttribute (64 KiB dynamic shared memory) on the current device; nothing
// else touches device-wide state.
#ifndef GROTH16_C2_LAUNCHER_H
#define GROTH16_C2_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st* g16_stream_t;

// ---- Field test kernels (tests compare them with blstrs on the host) ----------------------
// Defined in field_test.cu, built only with the `gpu-test-kernels` cargo feature.
// out[i] = op(a[i], b[i]) for i < n. b is ignored by unary ops.
// ops: 0 add, 1 sub, 2 mul, 3 sqr, 4 neg, 5 to_montgomery (canonical -> Montgomery),
//      6 from_montgomery (Montgomery -> canonical), 7 inverse (0 -> 0), 8 a chain of products
//      (the multiplication benchmark), 9 inverse by the binary extended Euclidean algorithm,
//      10 two chains of products paired (field_test.cu).
// Inputs may be any value below the modulus; outputs are fully reduced.
int g16_fr_test_op(int op, const void* a, const void* b, void* out, size_t n, g16_stream_t stream);
int g16_fp_test_op(int op, const void* a, const void* b, void* out, size_t n, g16_stream_t stream);

// ---- NTT over Fr ------------------------------------------------------------------------------
// Twiddle tables for every domain up to 2^lg_max, computed on the device into `table`, which
// the caller allocates with g16_ntt_table_size(lg_max) bytes. `omega_max` is the primitive
// 2^lg_max-th root of unity (Montgomery form) the host computed the same way bellperson does
// (Fr::ROOT_OF_UNITY squared S - lg_max times); the table holds enough powers of it and of its
// inverse for every smaller domain.
// g16_ntt_table_size returns 0 when lg_max is outside 1..32.
size_t g16_ntt_table_size(uint32_t lg_max);
int g16_ntt_table_init(void* table, uint32_t lg_max, const void* omega_max_host,
                       const void* omega_max_inv_host, g16_stream_t stream);

// In-place NTT of `data` (2^lg_n elements on the device) with the table for lg_max >= lg_n.
// inverse = 0: evaluations from coefficients (omega); 1: coefficients from evaluations
// (omega^-1), WITHOUT the 1/n factor (fold it into a scaling pass).
// bitrev_in / bitrev_out: whether the input / output is in bit-reversed order (0 = natural).
// Natural in and out (both 0, or both 1) must also work.
// `top` (may be NULL) is a top table for 2^top_lg (g16_ntt_top_table_init, top_lg <= lg_max):
// any pass of this transform with that table's shape takes its twiddles from it.
int g16_ntt(void* data, uint32_t lg_n, int inverse, int bitrev_in, int bitrev_out,
            const void* table, uint32_t lg_max, const void* top, uint32_t top_lg,
            g16_stream_t stream);

// The top pass's own twiddle table for transforms of 2^lg_n (optional: one product per element
// of that pass instead of two, for 2^(lg_n + 6) bytes): g16_ntt_top_table_size(lg_n) bytes (0:
// lg_n's plan has one pass, no table), computed from g16_ntt's table for lg_max >= lg_n, which
// must be initialised first on the same stream (or before it).
size_t g16_ntt_top_table_size(uint32_t lg_n);
int g16_ntt_top_table_init(void* top, uint32_t lg_n, const void* table, uint32_t lg_max,
                           g16_stream_t stream);

// The H step's coset transforms with the scaling folded into their passes, for one size 2^lg_n.
// Their table (g16_ntt_coset_table_size(lg_n) bytes; 0: this size cannot fold, use g16_ntt and
// g16_scale_powers) is computed from host Montgomery values, each an array of two (forward,
// inverse): omega, the primitive 2^lg_n-th root of unity and its inverse; beta and kappa.
// g16_ntt_coset with inverse = 0: bit-reversed in, natural out, data <- NTT(kappa beta^i data_i)
// (data_i: coefficient i); inverse = 1: natural in, bit-reversed out, coefficient i <-
// kappa beta^i iNTT(data)_i. `table` is g16_ntt's, for lg_max >= lg_n; `top` and `top_lg` as
// for g16_ntt.
size_t g16_ntt_coset_table_size(uint32_t lg_n);
int g16_ntt_coset_table_init(void* coset, uint32_t lg_n, const void* omega2_host,
                             const void* beta2_host, const void* kappa2_host, g16_stream_t stream);
int g16_ntt_coset(void* data, uint32_t lg_n, int inverse, const void* table, uint32_t lg_max,
                  const void* coset, const void* top, uint32_t top_lg, g16_stream_t stream);

// The H step's sequences with fewer passes (same results; arguments as for g16_ntt_coset):
// g16_ntt_lde is the plain inverse g16_ntt (natural in, bit-reversed out) followed by
// g16_ntt_coset with inverse = 0; g16_ntt_lde_quotient is g16_ntt_lde on c, then
// g16_h_pointwise(a, b, c, 2^lg_n, 1), then g16_ntt_coset on a with inverse = 1 (c is left
// undefined). From 2^20 up g16_ntt_lde runs the two passes that work on the same tiles as one
// kernel.
int g16_ntt_lde(void* data, uint32_t lg_n, const void* table, uint32_t lg_max, const void* coset,
                const void* top, uint32_t top_lg, g16_stream_t stream);
int g16_ntt_lde_quotient(void* a, const void* b, void* c, uint32_t lg_n, const void* table,
                         uint32_t lg_max, const void* coset, const void* top, uint32_t top_lg,
                         g16_stream_t stream);

// data[i] *= first * ratio^k(i) where k(i) = i, or bitreverse_{lg_n}(i) when index_bitrev = 1
// (for data held in bit-reversed order). first and ratio are host pointers to Montgomery Fr.
int g16_scale_powers(void* data, uint32_t lg_n, const void* first_host, const void* ratio_host,
                     int index_bitrev, g16_stream_t stream);

// a[i] = (a[i] * b[i] - c[i]) * factor for i < n; factor is a host pointer (Montgomery Fr).
// b = NULL reads no b (a[i] * 1), c = NULL no c (- 0); not both.
int g16_h_pointwise(void* a, const void* b, const void* c, size_t n, const void* factor_host,
                    g16_stream_t stream);

// Permutes 2^lg_n elements from natural to bit-reversed order or back (the same permutation).
int g16_bit_reverse(void* data, uint32_t lg_n, g16_stream_t stream);

// ---- Curves: G1 (curve = 1) and G2 (curve = 2) ---------------------------------------------
// Points in: affine, blst's layout (G1 96 bytes {x, y}; G2 192 bytes {x.c0, x.c1, y.c0, y.c1}),
// Montgomery coordinates, the identity as all zeros; 16-byte aligned device arrays.
// Points out: XYZZ (X, Y, ZZ, ZZZ; x = X/ZZ, y = Y/ZZZ; the identity has ZZ = 0): 192 bytes on
// G1, 384 on G2. Results are exact group elements; their coordinates are not canonical.
// Invalid arguments (curve not 1 or 2, NULL pointers, a workspace smaller than its size
// function says) return cudaErrorInvalidValue without launching anything.

// Test kernels (curve_test.cu, built only with the `gpu-test-kernels` cargo feature):
// out[i] = op(a[i], b[i]) for i < n, through different formula paths: 0 a + b (mixed
// additions), 1 2a + 2b (doublings + general addition), 2 (a + b) + (a + b) (general addition,
// doubling branch), 3 (a + b) - (a + b) (general addition, the identity), 4 13 (a + b).
int g16_curve_test_op(int curve, int op, const void* a, const void* b, void* out, size_t n,
                      g16_stream_t stream);

// Multi-scalar multiplication: result = sum over k < n of scalar[k] * points[index[k]] (index
// NULL: points[k]). Scalars are 32-byte little-endian values below r: canonical integers, or
// Montgomery-form Fr when `montgomery` != 0 (as the H coefficients are left by the NTT). Index
// entries >= n_points (and points beyond n_points when index is NULL) are never read: an index
// out of range counts as the identity. n < 2^31. `strategy` bits 0-7 say how buckets are
// summed: 0 auto (the slices), 1 slices of XYZZ mixed additions, 2 the slices with the binned
// scatter at any size, over small sub-chunks (for tests); bits 8-15 force the
// window width (0: chosen from n; else 4..24); bits 16-20, with index NULL, give the scalars'
// order: 0 natural, else bit-reversed over that many bits (scalar k goes with
// points[bitrev(k)]; n <= 2^bits); bits 21-25 the precomputed copies m of the points (0 or 1:
// none; G1 only, 2 <= m <= ceil(256 / c) with the window c forced in bits 8-15):
// `points` then holds m * n_points points, copy j = 2^(c j) times copy 0, as
// g16_msm_precompute leaves them (m * n_points < 2^31); any other value is invalid. `workspace` must hold g16_msm_workspace_size(curve, n, strategy)
// bytes (0 means n or strategy is out of range). result: one XYZZ point in device memory; n = 0
// gives the identity.
size_t g16_msm_workspace_size(int curve, size_t n, int strategy);
// Precomputed multiples for g16_msm's copies (G1 only: curve = 1): `points` holds
// copies * n_points affine points with copy 0 (the first n_points) filled; fills copy j =
// 2^(window j) times copy 0 for 0 < j < copies. 4 <= window <= 24, 2 <= copies <=
// ceil(256 / window), copies * n_points < 2^31. A window c with m copies makes an MSM add each
// point ceil(256 / c) times but reduce only ceil(256 / c) / m sets of 2^(c-1) buckets.
int g16_msm_precompute(int curve, void* points, size_t n_points, uint32_t window, uint32_t copies,
                       g16_stream_t stream);
int g16_msm(int curve, const void* points, size_t n_points, const uint32_t* index,
            const void* scalars, int montgomery, size_t n, int strategy, void* workspace,
            size_t workspace_bytes, void* result, g16_stream_t stream);

// An MSM over chunks of the points, accumulated (G1 only: curve = 1): g16_msm_accumulate adds
// one chunk's sum (n <= n_cap scalars; points, index, scalars, montgomery as for g16_msm, natural
// order) to `buckets`, `first` != 0 starting them from the identity; g16_msm_accumulated
// reduces them to `result`. Every call of one accumulation passes the same n_cap and strategy,
// which must force the window (bits 8-15; slices, no copies, no bit reversal) and take every
// window in one pass: the sizes below (bytes) are 0 otherwise. Between the calls nothing else
// may use the buckets; the workspace is scratch, free for other kernels between the calls.
size_t g16_msm_accumulate_workspace_size(int curve, size_t n_cap, int strategy);
size_t g16_msm_accumulate_buckets_size(int curve, size_t n_cap, int strategy);
// The window width (bits) an MSM of n scalars with `strategy` takes (0: out of range).
uint32_t g16_msm_window_bits(size_t n, int strategy);
int g16_msm_accumulate(int curve, const void* points, size_t n_points, const uint32_t* index,
                       const void* scalars, int montgomery, size_t n, size_t n_cap, int strategy,
                       void* buckets, size_t buckets_bytes, void* workspace,
                       size_t workspace_bytes, int first, g16_stream_t stream);
int g16_msm_accumulated(int curve, size_t n_cap, int strategy, void* buckets,
                        size_t buckets_bytes, void* workspace, size_t workspace_bytes,
                        void* result, g16_stream_t stream);

// Subtracts `base` from each of the n point indices at `index` (device memory), in place: the
// indices of a tail MSM's entries that fall in one chunk of the points, made relative to that
// chunk when only the chunk is on the device.
int g16_msm_index_rebase(uint32_t* index, size_t n, uint32_t base, g16_stream_t stream);

// Appends a chunk's tail entries to a gathered tail: for k < n, out_points[k] =
// points[index[k] - base] (affine points of `curve`, 1 G1 or 2 G2; the identity where that index
// is not below n_points) and out_scalars[k] = scalars[k] (32 bytes each). One MSM then sums the
// tails of many chunks. All pointers are device memory; the outputs must not overlap the inputs.
int g16_msm_gather_tail(int curve, const void* points, size_t n_points, const uint32_t* index,
                        uint32_t base, const void* scalars, size_t n, void* out_points,
                        void* out_scalars, g16_stream_t stream);

// Batch addition: result = the sum of points[i] for every i < n_points whose bit is set in
// `bitmap` (bit i = bit i % 64 of word i / 64, LSB first; ceil(n_points / 64) words on the
// device; bits past n_points are ignored). `workspace`: g16_batch_add_workspace_size bytes.
size_t g16_batch_add_workspace_size(int curve, size_t n_points);
int g16_batch_add(int curve, const void* points, size_t n_points, const uint64_t* bitmap,
                  void* workspace, size_t workspace_bytes, void* result, g16_stream_t stream);

// ---- Devices ------------------------------------------------------------------------------
// Name (NUL-terminated, truncated to name_len), compute capability and memory of `device`.
int g16_device_info(int device, char* name, size_t name_len, int* major, int* minor,
                    size_t* total_memory);

// Makes `device` current and asks the driver for one production kernel's attributes, which
// loads this build's code for that GPU (compiling the embedded PTX when no machine code fits):
// cudaErrorNoKernelImageForDevice (209) when the build has nothing the GPU can run.
// *binary_version / *ptx_version: the architecture of the code the driver chose, and of its PTX.
int g16_kernel_image_check(int device, int* binary_version, int* ptx_version);

// Decodes n params-file points in place on the device (curve 0: G1, 96 bytes each; 1: G2, 192
// bytes): uncompressed big-endian in, blst's Montgomery affine out. A point outside the plain
// encoding (flag bits, a coordinate not below p, G1's x = 0, off the curve) sets *needs_cpu
// (device memory) and is left as it was: the host decodes that chunk on the CPU for the verdict.
int g16_srs_decode(int curve, void* points, size_t n, uint32_t* needs_cpu, g16_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif
