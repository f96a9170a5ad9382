/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_cuda: the CUDA driver API, loaded at run time.
 *
 * gpudp's only run-time CUDA dependency is libcuda.so.1, opened with
 * dlopen() on first use, so every gpudp binary starts on a machine without
 * an NVIDIA driver and can say clearly that no GPU was found. Each entry
 * point is requested through cuGetProcAddress at the ABI version this code
 * was compiled against (see gpudp_cuda_fns.h), never at the running
 * driver's version, so the same binary is correct on CUDA 12 and 13
 * drivers. Kernels (lib/kernels/<name>.cu) are embedded as fatbins and
 * loaded with gpudp_cuda_module_load().
 *
 * The library has no DPDK dependency; callers log the reason string from
 * gpudp_cuda_last_error() with their own log type.
 */
#ifndef GPUDP_CUDA_H
#define GPUDP_CUDA_H

#include <stddef.h>
#include <cuda.h>
#include <cudaTypedefs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Driver entry points, typed as cudaTypedefs.h's versioned PFN types. */
struct gpudp_cuda_fns {
#define GPUDP_CUDA_FN(name, ver, req) PFN_##name##_v##ver name;
#include "gpudp_cuda_fns.h"
#undef GPUDP_CUDA_FN
};

/**
 * The loaded entry points, e.g. gpudp_cu->cuMemAlloc(&p, n).
 * NULL until gpudp_cuda_init() has returned 0.
 */
extern const struct gpudp_cuda_fns *gpudp_cu;

/**
 * Load libcuda.so.1, resolve every entry point and call cuInit(0).
 *
 * Idempotent and thread-safe: the first call does the work, later calls
 * return its result. The library path can be overridden with the
 * environment variable GPUDP_LIBCUDA (tests use it).
 *
 * @return
 *   0 on success (at least one CUDA device is present);
 *   -ENODEV if no driver library, no device, or cuInit failed;
 *   -ENOSYS if the driver lacks a required entry point (too old).
 *   gpudp_cuda_last_error() then says why, with the offending name.
 */
int gpudp_cuda_init(void);

/**
 * Why the last failing gpudp_cuda_* call of this thread failed (or why
 * gpudp_cuda_init() failed, in any thread).
 * @return a NUL-terminated message, "" if nothing failed.
 */
const char *gpudp_cuda_last_error(void);

/**
 * The running driver's CUDA version (e.g. 13000), 0 before a successful
 * gpudp_cuda_init().
 */
int gpudp_cuda_driver_version(void);

/**
 * The CUDA version of the headers gpudp was built with (CUDA_VERSION).
 */
int gpudp_cuda_build_version(void);

/**
 * Describe a CUresult as "NAME: description" (e.g. "CUDA_ERROR_OUT_OF_MEMORY:
 * out of memory"). Works before init (then only the number is printed).
 *
 * @param res
 *   A CUresult returned by a driver call.
 * @return
 *   A pointer to a thread-local buffer, valid until the next call.
 */
const char *gpudp_cuda_errstr(CUresult res);

/**
 * Find an embedded fatbin by name.
 *
 * @param name
 *   The kernel source's base name, e.g. "probe" for lib/kernels/probe.cu.
 * @param[out] size
 *   If not NULL, receives the fatbin's size in bytes.
 * @return
 *   The fatbin image, or NULL if no such fatbin was built (no nvcc at
 *   build time, or an unknown name).
 */
const void *gpudp_cuda_fatbin(const char *name, size_t *size);

/**
 * Load an embedded fatbin as a module into the calling thread's current
 * CUDA context. The driver picks the SASS for the device's architecture, or
 * JIT-compiles the embedded PTX on newer GPUs.
 *
 * @param name
 *   The kernel source's base name, e.g. "probe".
 * @param[out] mod
 *   The module; unload with gpudp_cu->cuModuleUnload().
 * @return
 *   0 on success; -ENOENT if no such fatbin is embedded; -ENODEV if
 *   gpudp_cuda_init() has not succeeded; -EIO if the driver refused it
 *   (gpudp_cuda_last_error() has the CUresult).
 */
int gpudp_cuda_module_load(const char *name, CUmodule *mod);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CUDA_H */
