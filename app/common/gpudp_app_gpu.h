/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What gpudp's apps share about GPUs and exit codes: `--gpu N` means the
 * same in every app, the CUDA device ordinal (as nvidia-smi and
 * CUDA_VISIBLE_DEVICES number GPUs), and the app works on the gpudev
 * device that gpudp's driver made for that GPU.
 */
#ifndef GPUDP_APP_GPU_H
#define GPUDP_APP_GPU_H

#include <stddef.h>
#include <stdint.h>

/** Exit codes of gpudp's apps (doc/fwd.md, doc/capture.md). */
enum gpudp_app_exit {
	GPUDP_EXIT_OK = 0,       /**< the run completed */
	GPUDP_EXIT_FAILURE = 1,  /**< a run-time failure (the error is logged) */
	GPUDP_EXIT_USAGE = 2,    /**< a bad option, option value or input file */
	GPUDP_EXIT_NO_GPU = 77,  /**< a GPU was needed and none is usable (test
				  *   harnesses read it as SKIP) */
};

/**
 * The gpudev device of `--gpu` @p ordinal: the device gpudp's driver made
 * for CUDA device @p ordinal (GPUs are probed first: no EAL -a option is
 * needed); a device of another gpudev driver (a test driver, say) is taken
 * by its gpudev id. Call it after rte_eal_init().
 * @param why  on failure, why there is none (for the user)
 * @return the gpudev id, or -1
 */
int16_t gpudp_app_gpu_find(unsigned int ordinal, char *why, size_t len);

/**
 * The CUDA context of gpudev device @p id (gpudp's driver): the context
 * its memory and the apps' handoffs live in.
 * @return the CUcontext, or 0 for a device of another driver (or a build
 *   without CUDA)
 */
uint64_t gpudp_app_gpu_context(int16_t id);

#endif /* GPUDP_APP_GPU_H */
