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
// out[i] = op(a[i], b[i]) for i < n. b is ignored by unary ops.
// ops: 0 add, 1 sub, 2 mul, 3 sqr, 4 neg, 5 to_montgomery (canonical -> Montgomery),
//      6 from_montgomery (Montgomery -> canonical), 7 inverse (0 -> 0).
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
int g16_ntt(void* data, uint32_t lg_n, int inverse, int bitrev_in, int bitrev_out,
            const void* table, uint32_t lg_max, g16_stream_t stream);

// data[i] *= first * ratio^k(i) where k(i) = i, or bitreverse_{lg_n}(i) when index_bitrev = 1
// (for data held in bit-reversed order). first and ratio are host pointers to Montgomery Fr.
int g16_scale_powers(void* data, uint32_t lg_n, const void* first_host, const void* ratio_host,
                     int index_bitrev, g16_stream_t stream);

// a[i] = (a[i] * b[i] - c[i]) * factor for i < n; factor is a host pointer (Montgomery Fr).
int g16_h_pointwise(void* a, const void* b, const void* c, size_t n, const void* factor_host,
                    g16_stream_t stream);

// Permutes 2^lg_n elements from natural to bit-reversed order or back (the same permutation).
int g16_bit_reverse(void* data, uint32_t lg_n, g16_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif
