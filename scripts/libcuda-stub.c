/* A stand-in for the NVIDIA driver library (libcuda.so.1) on machines without one, built by
 * scripts/libcuda-stub.sh. It exists so that binaries which link `-lcuda` (filecoin-proofs'
 * `cuda-supraseal` feature pulls in cuda-driver-sys) can be built and run where no driver is
 * installed: every call reports that there is no device, so rust-gpu-tools sees an empty device
 * list and the CUDA runtime inside groth16-c2 fails to initialise, which sends it to its CPU
 * backend.
 *
 * The functions defined here are the ones whose callers read an output even on failure, or that
 * the static CUDA runtime looks up with dlsym before anything else; they leave every output
 * empty (0 / NULL) rather than untouched. libcuda-stub.sh appends one `return 100` function for
 * every other driver entry point a build may reference. */

#include <stddef.h>
#include <stdint.h>

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_NOT_FOUND 500
/* CUdriverProcAddressQueryResult: CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND. */
#define SYMBOL_NOT_FOUND 1

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;

/* Lets scripts tell this stub from the real driver. */
EXPORT const char groth16_c2_libcuda_stub[] = "groth16-c2 libcuda stub";

EXPORT CUresult cuInit(unsigned int flags) {
    (void)flags;
    return CUDA_ERROR_NO_DEVICE;
}

/* Version 0: a runtime that checks the driver's version sees one too old to use. */
EXPORT CUresult cuDriverGetVersion(int *version) {
    if (version) *version = 0;
    return CUDA_ERROR_NO_DEVICE;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
    if (count) *count = 0;
    return CUDA_ERROR_NO_DEVICE;
}

EXPORT CUresult cuDeviceGet(int *device, int ordinal) {
    (void)ordinal;
    if (device) *device = 0;
    return CUDA_ERROR_NO_DEVICE;
}

/* Callers format messages from these, so they must return a real string. */
EXPORT CUresult cuGetErrorString(CUresult error, const char **str) {
    if (!str) return CUDA_ERROR_INVALID_VALUE;
    *str = error == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected (libcuda stub)"
                                         : "CUDA driver not installed (libcuda stub)";
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **str) {
    if (!str) return CUDA_ERROR_INVALID_VALUE;
    *str = error == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_STUB";
    return CUDA_SUCCESS;
}

/* The CUDA runtime resolves the driver's entry points through these: resolve none. */
EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version,
                                 uint64_t flags) {
    (void)symbol, (void)cuda_version, (void)flags;
    if (pfn) *pfn = NULL;
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                                    uint64_t flags, int *symbol_status) {
    (void)symbol, (void)cuda_version, (void)flags;
    if (pfn) *pfn = NULL;
    if (symbol_status) *symbol_status = SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuGetExportTable(const void **table, const void *table_id) {
    (void)table_id;
    if (table) *table = NULL;
    return CUDA_ERROR_NOT_FOUND;
}
