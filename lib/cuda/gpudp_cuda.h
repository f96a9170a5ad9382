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
 * drivers.
 *
 * GPU images: each library compiles its own .cu files into fatbins (SASS
 * for every configured architecture plus PTX of the newest) and embeds them
 * as struct gpudp_cuda_image (lib/cuda/embed.py writes the C), registered
 * here by name when linked in; programs may register their own.
 * gpudp_cuda_module_load_image() or gpudp_cuda_module_load() loads one.
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

/** A GPU image: a fatbin (or cubin, or NUL-terminated PTX) and its name. */
struct gpudp_cuda_image {
	const char *name;          /**< unique among registered images, e.g. "handoff" */
	const void *data;          /**< the image, 64-byte aligned for a fatbin */
	size_t size;               /**< bytes */
};

/** Most images that can be registered at once. */
#define GPUDP_CUDA_IMAGES_MAX 64

/**
 * Register a GPU image under its name, for gpudp_cuda_fatbin() and
 * gpudp_cuda_module_load(). The image must stay valid while registered;
 * embedded images (lib/cuda/embed.py) register from a constructor.
 * Thread-safe; no CUDA driver needed.
 *
 * @return 0; -EINVAL if @p img, its name or its data is NULL or its size 0;
 *   -EEXIST if another image has that name (registering the same image
 *   again returns 0); -ENOSPC if GPUDP_CUDA_IMAGES_MAX are registered.
 */
int gpudp_cuda_image_register(const struct gpudp_cuda_image *img);

/**
 * Find a registered image by name.
 * @return the image, or NULL if none has that name.
 */
const struct gpudp_cuda_image *gpudp_cuda_image_find(const char *name);

/**
 * Find a registered image's bytes by name.
 *
 * @param name
 *   The image's name: for embedded ones the .cu file's base name, e.g.
 *   "handoff" for lib/handoff/handoff.cu ("fwd", its
 *   former name, is a deprecated alias of it).
 * @param[out] size
 *   If not NULL, receives the fatbin's size in bytes.
 * @return
 *   The fatbin image, or NULL if no such fatbin was built (no nvcc at
 *   build time, or an unknown name).
 */
const void *gpudp_cuda_fatbin(const char *name, size_t *size);

/**
 * Load a GPU image as a module into the calling thread's current CUDA
 * context. The driver picks the SASS for the device's architecture, or
 * JIT-compiles the embedded PTX on newer GPUs.
 *
 * @param img
 *   The image (registered or not).
 * @param[out] mod
 *   The module; unload with gpudp_cu->cuModuleUnload().
 * @return
 *   0 on success; -EINVAL if @p img is NULL; -ENODEV if gpudp_cuda_init()
 *   has not succeeded; -EIO if the driver refused it
 *   (gpudp_cuda_last_error() has the CUresult and the image's name).
 */
int gpudp_cuda_module_load_image(const struct gpudp_cuda_image *img, CUmodule *mod);

/**
 * Load a registered image by name, as gpudp_cuda_module_load_image().
 *
 * @return as gpudp_cuda_module_load_image(), and -ENOENT if no image of
 *   that name is registered (built without nvcc, or not linked in).
 */
int gpudp_cuda_module_load(const char *name, CUmodule *mod);

/**
 * What a device says about using host memory for GPU work, the facts
 * that decide where an integrated GPU's (Jetson, DRIVE, IGX's iGPU)
 * pools come from. NVIDIA's GPUDirect RDMA guide, section Porting to
 * Tegra: on an integrated GPU, memory a NIC DMAs into comes from
 * cuMemHostAlloc (default or write-combined), not cuMemAlloc, and is used
 * through its device pointer (cuMemHostGetDevicePointer), or through the
 * host pointer directly where the GPU supports unified addressing or
 * CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM.
 */
struct gpudp_cuda_mem_caps {
	int integrated;          /**< CU_DEVICE_ATTRIBUTE_INTEGRATED: shares DRAM with the CPU */
	int can_map_host;        /**< CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY */
	int unified_addressing;  /**< CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING */
	int host_ptr_registered; /**< CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM */
};

/**
 * Read the four attributes of struct gpudp_cuda_mem_caps for device @p dev.
 * An attribute the driver does not answer reads as 0.
 *
 * @param dev
 *   A CUDA device (cuDeviceGet).
 * @param[out] caps
 *   Filled on success.
 * @return
 *   0; -EINVAL if @p caps is NULL; -ENODEV if gpudp_cuda_init() has not
 *   succeeded.
 */
int gpudp_cuda_mem_caps_get(CUdevice dev, struct gpudp_cuda_mem_caps *caps);

/**
 * Whether the GPU may use the host pointer of a cuMemHostAlloc allocation
 * made with @p flags as is, instead of the pointer
 * cuMemHostGetDevicePointer returns: the allocation is mapped
 * (CU_MEMHOSTALLOC_DEVICEMAP, or the device has unified addressing, which
 * maps every allocation), not write-combined (CUDA's cuMemHostAlloc:
 * write-combined memory is always used through cuMemHostGetDevicePointer,
 * even with unified addressing), and the device has unified addressing or
 * CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM. Pure: no
 * driver call.
 *
 * @param caps
 *   The device's facts (gpudp_cuda_mem_caps_get()).
 * @param flags
 *   CU_MEMHOSTALLOC_* flags of the allocation.
 * @return
 *   1 if the host pointer is the one to use; 0 if the device pointer is
 *   (also when @p caps is NULL).
 */
int gpudp_cuda_host_ptr_direct(const struct gpudp_cuda_mem_caps *caps, unsigned int flags);

/**
 * One line describing @p caps and an allocation with @p flags, for logs
 * and deployment checks, e.g. "integrated 1, can map host memory 1,
 * unified addressing 1, host pointer for registered memory 1: used through
 * the host pointer".
 *
 * @return @p buf.
 */
const char *gpudp_cuda_mem_caps_str(const struct gpudp_cuda_mem_caps *caps,
				    unsigned int flags, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CUDA_H */
