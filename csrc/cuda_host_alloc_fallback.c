/* CPU-only builds: `cudaHostAlloc` / `cudaFreeHost` for hosts that declare them and rely on the
 * prover library to bring the CUDA runtime (Curio's pinned pool does). Without a GPU backend
 * there is nothing to pin for, so they hand out ordinary page-aligned memory. Both are weak and
 * live in their own object file: a real CUDA runtime linked into the same process wins. */
#include <stdlib.h>

/* cudaErrorMemoryAllocation */
#define G16_CUDA_ERROR_MEMORY_ALLOCATION 2
/* cudaErrorInvalidValue */
#define G16_CUDA_ERROR_INVALID_VALUE 1

__attribute__((weak)) int cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
    (void)flags;
    if (ptr == NULL) {
        return G16_CUDA_ERROR_INVALID_VALUE;
    }
    *ptr = NULL;
    if (posix_memalign(ptr, 4096, size == 0 ? 1 : size) != 0) {
        *ptr = NULL;
        return G16_CUDA_ERROR_MEMORY_ALLOCATION;
    }
    return 0;
}

__attribute__((weak)) int cudaFreeHost(void* ptr) {
    free(ptr);
    return 0;
}
