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

#include <gpudp_mem.h>

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

/** A GPU of gpudp's gpudev driver (gpudp_app_gpus_avail()). */
struct gpudp_app_gpu_info {
	int ordinal;           /**< CUDA device ordinal */
	int16_t id;            /**< gpudev device id */
	uint64_t ctx;          /**< its CUDA context (gpudev's primary context) */
	char pci[32];          /**< PCI address */
	char product[96];      /**< product name */
	int gdr_ordering;      /**< GPUDirect RDMA writes ordering (gpudp_gpu_props) */
};

/**
 * Every GPU of gpudp's gpudev driver (children left out), sorted by CUDA
 * ordinal; GPUs are probed first. Call it after rte_eal_init().
 * @param a    filled with up to @p max GPUs
 * @return how many (0 in a build without CUDA, or without a GPU)
 */
unsigned int gpudp_app_gpus_avail(struct gpudp_app_gpu_info *a, unsigned int max);

/**
 * The device name of ethdev port @p port: its PCI address for a PCI
 * device ("0000:04:00.0"), the vdev's name otherwise ("net_null0"); "?"
 * when the port has none.
 */
const char *gpudp_app_port_dev_name(uint16_t port);

/**
 * The level and PCIe path between port @p port and the GPU at @p gpu_pci
 * (a pair chosen by hand): gpudp_mem_gpu_place() of that one pair, or
 * level GPUDP_GPU_PLACE_UNKNOWN with "no PCIe path known".
 */
void gpudp_app_gpu_place_pair(uint16_t port, const char *gpu_pci, struct gpudp_gpu_place *o);

/** How the ports' GPUs are chosen (gpudp_app_gpu_place_ports()). */
struct gpudp_app_gpu_placing {
	const char *prog;      /**< the app's name, for messages ("gpudp-fwd") */
	const char *gpu_map;   /**< --gpu-map PORT:GPU,... or NULL */
	const char *how;       /**< what placed the other ports ("--gpu auto", "default
				*   (several GPUs)"), in each result's @c how */
	const char *role;      /**< what the app does with a port, for "port 5 is not
				*   Role" ("forwarded", "read") */
	unsigned int max_gpus; /**< the largest GPU ordinal --gpu-map may name, plus 1 */
};

/** Where one port goes (gpudp_app_gpu_place_ports()). */
struct gpudp_app_port_gpu {
	unsigned int gpu;             /**< index into the GPU list given */
	const char *how;              /**< "--gpu-map" or placing->how */
	struct gpudp_gpu_place place; /**< the level, PCIe path and reason */
};

/**
 * --gpu auto and --gpu-map: a GPU of @p a for each of the ports: those
 * that --gpu-map names on their GPU, the others on the GPUs closest to
 * them in the PCIe tree, placed among themselves (gpudp_mem_gpu_place():
 * the mapped ports do not count in their ties). Errors are printed to
 * stderr, prefixed with placing->prog.
 * @param ports    the ports' ethdev ids
 * @param n_ports  how many (<= RTE_MAX_ETHPORTS)
 * @param a        the GPUs (gpudp_app_gpus_avail()), @p n_gpus > 0 of them
 * @param out      n_ports results
 * @return 0; GPUDP_EXIT_USAGE for a bad --gpu-map or one naming a port not
 *   in @p ports; GPUDP_EXIT_NO_GPU when it names a GPU not in @p a;
 *   GPUDP_EXIT_FAILURE when the placement failed (out of memory)
 */
int gpudp_app_gpu_place_ports(const struct gpudp_app_gpu_placing *placing,
			      const uint16_t *ports, unsigned int n_ports,
			      const struct gpudp_app_gpu_info *a, unsigned int n_gpus,
			      struct gpudp_app_port_gpu *out);

/**
 * --gpu-map's syntax, checked before EAL (the ports and GPUs that exist are
 * checked after it, by gpudp_app_gpu_place_ports()): port ids within
 * uint16_t, GPUs below @p max_gpus.
 * @param err  why not, on failure
 * @return 0, or -1 (@p err says why)
 */
int gpudp_app_gpu_map_check(const char *v, unsigned int max_gpus, char *err, size_t errlen);

#endif /* GPUDP_APP_GPU_H */
