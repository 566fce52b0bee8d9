/*
 * libcuda.so.1 stand-in for the vllm==0.34.0 config oracle.
 *
 * This machine has no NVIDIA driver, yet the compiled extensions of the
 * official vLLM CUDA wheel (vllm._C_stable_libtorch, vllm._moe_C_stable_libtorch,
 * vllm._flashmla_C, vllm.vllm_flash_attn._vllm_fa3_C, vllm.cumem_allocator, ...)
 * list libcuda.so.1 as a needed library, and Python dlopens extension modules
 * with RTLD_NOW, so every driver symbol they import must resolve.  This file
 * defines exactly those symbols (found with `nm -D --undefined-only` on every
 * *.so of the wheel); each one fails with CUDA_ERROR_STUB_LIBRARY (34), as the
 * CUDA toolkit's own stubs/libcuda.so does.  Its only purpose is to let the
 * wheel's real extension modules load so that their torch ops register.
 * Config resolution never calls the driver.
 */
#include <stddef.h>

#define CUDA_ERROR_STUB_LIBRARY 34

typedef int CUresult;

/* Generic failing entry point: the arguments are never looked at. */
#define STUB(name) \
    CUresult name() { return CUDA_ERROR_STUB_LIBRARY; }

/* Entry points used by _C_stable_libtorch / _flashmla_C / _vllm_fa3_C. */
CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_ERROR_STUB_LIBRARY; }
CUresult cuDriverGetVersion(int *version) {
    if (version) *version = 0;
    return CUDA_ERROR_STUB_LIBRARY;
}
CUresult cuDeviceGetCount(int *count) {
    if (count) *count = 0;
    return CUDA_ERROR_STUB_LIBRARY;
}
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                          unsigned long long flags) {
    (void)symbol; (void)version; (void)flags;
    if (pfn) *pfn = NULL;
    return CUDA_ERROR_STUB_LIBRARY;
}
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             unsigned long long flags, void *status) {
    (void)symbol; (void)version; (void)flags; (void)status;
    if (pfn) *pfn = NULL;
    return CUDA_ERROR_STUB_LIBRARY;
}
STUB(cuPointerGetAttribute)
STUB(cuTensorMapEncodeTiled)

/* Entry points used by cumem_allocator (sleep mode's allocator). */
STUB(cuCtxGetCurrent)
STUB(cuCtxSetCurrent)
STUB(cuDeviceGetAttribute)
STUB(cuDevicePrimaryCtxRetain)
STUB(cuMemAddressFree)
STUB(cuMemAddressReserve)
STUB(cuMemCreate)
STUB(cuMemGetAllocationGranularity)
STUB(cuMemMap)
STUB(cuMemRelease)
STUB(cuMemSetAccess)
STUB(cuMemUnmap)

/* Error strings succeed, so that a caller can report the failure. */
CUresult cuGetErrorString(CUresult error, const char **str) {
    (void)error;
    if (str) *str = "CUDA driver stand-in of the vLLM config oracle (no GPU)";
    return 0;
}
CUresult cuGetErrorName(CUresult error, const char **str) {
    (void)error;
    if (str) *str = "CUDA_ERROR_STUB_LIBRARY";
    return 0;
}
