/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_mem: mbuf pools whose data buffers are in GPU memory, registered so
 * that a NIC can DMA into them (doc/architecture.md, "Memory and
 * registration").
 *
 * A device pool is built as (doc/pools.md):
 *  1. GPU memory from an allocator (gpudev's rte_gpu_mem_alloc by default:
 *     64 KiB aligned, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set by gpudp's
 *     gpudev driver; on an integrated GPU, host memory from cuMemHostAlloc,
 *     doc/tegra.md), in chunks of at most conf.max_chunk bytes;
 *  2. bus addresses for each chunk from the pin backend (dmabuf: the chunk
 *     exported as a dma-buf and attached by the gpudp_pin module for the
 *     ports' PCI device; kmod: the module's NV-P2P page table; peermem:
 *     left to the PMD);
 *  3. rte_extmem_register() with that IOVA table;
 *  4. rte_dev_dma_map() for every port in conf.ports;
 *  5. rte_pktmbuf_pool_create_extbuf() over all chunks.
 * gpudp_pool_destroy() undoes it in reverse order, rte_extmem_unregister()
 * included. The mbuf headers stay in host memory; no payload is ever copied
 * to host memory.
 *
 * Log type: gpudp.mem. Telemetry: /gpudp/pools, /gpudp/pool,<name>.
 */
#ifndef GPUDP_MEM_H
#define GPUDP_MEM_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include <gpudp_regcache.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where the packet data lives. */
enum gpudp_mem_type {
	GPUDP_MEM_HOST,   /**< host (hugepage) memory: CPU workloads only */
	GPUDP_MEM_PINNED, /**< host memory registered with the GPU (gpudev) */
	GPUDP_MEM_DEVICE, /**< GPU memory */
	/**
	 * Buffer split: each packet's first conf.hdr_len bytes in a host
	 * mbuf (the CPU can read headers; the header pool's memory is
	 * registered with the GPU, so GPU work reads and writes them in place),
	 * the rest in a GPU mbuf, for PMDs
	 * with RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT. Set up rx queues with
	 * gpudp_pool_rx_queue_setup().
	 */
	GPUDP_MEM_SPLIT,
};

/** How the NIC gets bus addresses for GPU memory. */
enum gpudp_pin_backend {
	/**
	 * dmabuf if /dev/gpudp_pin opens, imports dma-bufs
	 * (GPUDP_PIN_CAP_DMABUF) and the allocator can export them; else kmod
	 * if /dev/gpudp_pin opens; else peermem. The choice is logged.
	 */
	GPUDP_PIN_AUTO,
	GPUDP_PIN_PEERMEM, /**< IOVA left to the PMD (mlx5 + nvidia-peermem) */
	GPUDP_PIN_KMOD,    /**< gpudp_pin page table as the IOVA table */
	/**
	 * Each chunk exported as a dma-buf (allocator's export_dmabuf:
	 * cuMemGetHandleForAddressRange for gpudev), attached by gpudp_pin for
	 * the first PCI port's device; its DMA addresses are the IOVA table.
	 */
	GPUDP_PIN_DMABUF,
};

/**
 * Allocator of device memory. The default (conf.alloc == NULL) is gpudev
 * on conf.gpu_id. Tests and the e2e guest plug in others.
 */
struct gpudp_mem_allocator {
	const char *name;
	/** Return len bytes aligned to align, or NULL with rte_errno set. */
	void *(*alloc)(void *ctx, size_t len, size_t align);
	/** Free what alloc returned; 0 or a negative errno. */
	int (*free)(void *ctx, void *ptr);
	void *ctx;
	/**
	 * Optional (NULL: cannot): export [ptr, ptr + len) of what alloc
	 * returned (64 KiB aligned) as a dma-buf whose byte 0 is ptr.
	 * @return its file descriptor (the caller closes it), or a negative
	 *   errno. Needed by the dmabuf backend. gpudev's allocator has it when
	 *   the GPU reports CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: it calls
	 *   cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD).
	 */
	int (*export_dmabuf)(void *ctx, void *ptr, size_t len);
};

/** Parameters of gpudp_pool_create(). */
struct gpudp_pool_conf {
	const char *name;        /**< mempool name, unique */
	enum gpudp_mem_type type;
	int16_t gpu_id;          /**< gpudev device (PINNED, DEVICE) */
	const uint16_t *ports;   /**< ports that DMA into the pool */
	uint16_t nb_ports;
	uint32_t nb_mbufs;       /**< elements (> 0) */
	uint16_t data_room;      /**< bytes per buffer incl. headroom (> RTE_PKTMBUF_HEADROOM) */
	uint32_t cache_size;     /**< per-lcore cache, <= RTE_MEMPOOL_CACHE_MAX_SIZE */
	int socket_id;           /**< NUMA node of the mbuf headers */
	enum gpudp_pin_backend pin; /**< DEVICE pools only */
	size_t max_chunk;        /**< most bytes per device allocation; 0: 1 GiB */
	const struct gpudp_mem_allocator *alloc; /**< NULL: gpudev */
	uint16_t hdr_len;        /**< SPLIT: header bytes in host memory; 0: 128 */
};

/**
 * Bits of gpudp_pool_info.host_alloc: CUDA's CU_MEMHOSTALLOC_* values,
 * named here so that users need no cuda.h.
 */
#define GPUDP_MEM_HOST_ALLOC_PORTABLE      0x01 /**< CU_MEMHOSTALLOC_PORTABLE */
#define GPUDP_MEM_HOST_ALLOC_DEVICEMAP     0x02 /**< CU_MEMHOSTALLOC_DEVICEMAP */
#define GPUDP_MEM_HOST_ALLOC_WRITECOMBINED 0x04 /**< CU_MEMHOSTALLOC_WRITECOMBINED */

/** What a pool uses, for reports and the memory-overhead checks. */
struct gpudp_pool_info {
	enum gpudp_mem_type type;
	enum gpudp_pin_backend pin; /**< the backend actually used */
	uint32_t nb_mbufs;
	uint16_t elt_size;        /**< bytes of data memory per mbuf */
	uint32_t chunks;          /**< device/pinned allocations */
	uint32_t extmem_segs;     /**< IOVA-contiguous runs given to the mempool */
	size_t data_bytes;        /**< nb_mbufs * elt_size */
	size_t gpu_bytes;         /**< device memory allocated (DEVICE; on an
				   *   integrated GPU, host memory from cuMemHostAlloc) */
	size_t host_bytes;        /**< host memory of the mempools (mbufs, SPLIT header rooms) */
	uint64_t pins;            /**< pins made for this pool */
	/**
	 * DEVICE and SPLIT pools of gpudev's allocator on an integrated GPU
	 * (CU_DEVICE_ATTRIBUTE_INTEGRATED: Jetson, DRIVE, IGX's iGPU): the
	 * CU_MEMHOSTALLOC_* flags (GPUDP_MEM_HOST_ALLOC_*) of the pool's
	 * memory, which gpudp's gpudev driver takes from cuMemHostAlloc there
	 * (NVIDIA's GPUDirect RDMA guide, section Porting to Tegra;
	 * doc/tegra.md): DEVICEMAP, with WRITECOMBINED when the device is set
	 * so. 0 on a discrete GPU and for the other pools.
	 */
	unsigned int host_alloc;
};

struct gpudp_pool;

/**
 * Create a pool. Logs (gpudp.mem) the backend chosen and what failed.
 * @return the pool, or NULL with rte_errno set: EINVAL bad parameter;
 *   ENODEV no such GPU, or (PINNED, DEVICE, SPLIT) a port in conf.ports that
 *   does not exist; ENOTSUP backend not available (e.g. kmod without
 *   the module); ENOMEM host or GPU memory exhausted; EEXIST name in use;
 *   another errno from registration.
 */
struct gpudp_pool *gpudp_pool_create(const struct gpudp_pool_conf *conf);

/**
 * The mempool of the packet data: give it to rte_eth_rx_queue_setup()
 * (for SPLIT pools it holds the payload segments; use
 * gpudp_pool_rx_queue_setup() instead).
 */
struct rte_mempool *gpudp_pool_mempool(const struct gpudp_pool *p);

/** SPLIT pools: the host mempool of the header segments; NULL otherwise. */
struct rte_mempool *gpudp_pool_header_mempool(const struct gpudp_pool *p);

/**
 * Set up an rx queue that receives into the pool: a plain
 * rte_eth_rx_queue_setup() for HOST, PINNED and DEVICE pools; for SPLIT
 * pools a two-segment buffer split (header pool, then payload pool).
 * @return 0; -ENOTSUP if the port cannot split buffers (logged with the
 *   port and driver names); another negative errno from ethdev.
 */
int gpudp_pool_rx_queue_setup(const struct gpudp_pool *p, uint16_t port,
			      uint16_t queue, uint16_t nb_desc, int socket_id);

/** Fill @p info. */
void gpudp_pool_info_get(const struct gpudp_pool *p, struct gpudp_pool_info *info);

/**
 * Destroy a pool: mbufs must all be back (ports stopped, queues released).
 * Order: mempool free, dma_unmap per port, extmem_unregister, unpin, free.
 * The ports may already be closed: the unmaps go to the devices looked up
 * at creation. Their devices must not have been removed (detached).
 * @return 0; -EBUSY if mbufs are still out (nothing is freed then).
 *   A NULL pool is a no-op.
 */
int gpudp_pool_destroy(struct gpudp_pool *p);

/**
 * Check that the pool's memory is still there: for kmod pins, that the
 * module's free callback has not revoked them (the GPU memory was freed
 * under the pin); for dmabuf attachments, that the exporter has not
 * revoked the buffer (move_notify). A revoked region is dropped from the
 * registration cache. Costs one ioctl per chunk: call it from a slow path
 * (e.g. the stats timer), not per burst.
 * @return 0; -EIDRM if a pin was revoked: stop the ports using the pool,
 *   then destroy it.
 */
int gpudp_pool_check(struct gpudp_pool *p);

/**
 * Counters of the kmod and dmabuf backends' registration caches, summed
 * (all zero before their first use): pins (dmabuf: attachments), hits,
 * evictions, bytes pinned... Sample them around a
 * forwarding run to show that the steady state pins nothing.
 */
void gpudp_mem_pin_stats(struct gpudp_regcache_stats *st);

/**
 * The same counters for one GPU: the kmod and dmabuf registration caches
 * of the pools on gpudev device @p gpu_id (gpudp_pool_conf.gpu_id; a child
 * device counts as its parent, one GPU). The caches are per GPU: a pool's
 * pin is never served from another GPU's region.
 */
void gpudp_mem_pin_gpu_stats(int16_t gpu_id, struct gpudp_regcache_stats *st);

/**
 * Drop every region the kmod and dmabuf registration caches keep for GPU
 * @p gpu_id (as gpudp_mem_pin_gpu_stats() counts them), the other GPUs'
 * left as they are: idle regions (kept pinned by lazy unpinning after
 * their pools were destroyed) are unpinned at once, regions still in use
 * at their pool's destruction, and none is handed out again. Call it when
 * done with a GPU, after destroying its pools, so that no pin or dma-buf
 * attachment of its freed memory outlives them.
 * @return the number of regions dropped.
 */
unsigned int gpudp_mem_pin_gpu_release(int16_t gpu_id);

/** Result of one deployment check. */
enum gpudp_check_level {
	GPUDP_CHECK_OK,
	GPUDP_CHECK_WARN,  /**< works, but slower or fragile */
	GPUDP_CHECK_FAIL,  /**< GPU receive will not work as configured */
	GPUDP_CHECK_SKIP,  /**< could not be checked here */
};

/** Called once per finding: @p check is "bar1", "iommu", "pcie", "mlx5", "port", "igpu". */
typedef void gpudp_check_report_t(enum gpudp_check_level lvl, const char *check,
				  const char *msg, void *arg);

/**
 * Check a deployment before creating GPU pools: BAR1 free space against
 * @p pool_bytes (through NVML, when libnvidia-ml.so.1 is present), IOMMU
 * mode of the GPU and each PCI port (the kmod backend needs it off or in
 * passthrough), NIC/GPU PCIe placement (NVIDIA's GPUDirect RDMA guide,
 * "Supported Systems": a warning when they do not share a PCIe switch), and
 * on mlx5 ports the settings GPU receive needs (txq_inline_max=0,
 * MLX5_SCATTER_TO_CQE=0). On an integrated GPU (CU_DEVICE_ATTRIBUTE_INTEGRATED,
 * NVIDIA's GPUDirect RDMA guide, section Porting to Tegra; doc/tegra.md)
 * "igpu" findings say so and what it reports about host memory
 * (CAN_MAP_HOST_MEMORY 0 fails: no pool can be built), BAR1 and the
 * NIC/GPU placement are skipped (the pools are system memory) and the
 * GPU's IOMMU is not checked; the ports' are.
 *
 * @param gpu_pci PCI address of the GPU ("0000:00:06.0"), or NULL
 * @param ports, nb_ports the ports that will DMA into the pools
 * @param pool_bytes GPU memory the pools will pin
 * @param pin the pin backend that will be used
 * @param report called for every finding (may be NULL)
 * @param arg passed to @p report
 * @return the number of GPUDP_CHECK_FAIL findings.
 */
int gpudp_mem_check(const char *gpu_pci, const uint16_t *ports, uint16_t nb_ports,
		    size_t pool_bytes, enum gpudp_pin_backend pin,
		    gpudp_check_report_t *report, void *arg);

/** "ok", "warn", "FAIL", "skip". */
const char *gpudp_check_level_name(enum gpudp_check_level l);

/**
 * Where two PCI devices meet (sysfs under $GPUDP_SYSFS_ROOT, default /sys):
 * 2 below one root port (a PCIe switch), 1 at the root complex only, 0 on
 * different root complexes, -1 unknown (not PCI devices).
 */
int gpudp_mem_pcie_affinity(const char *pci_a, const char *pci_b);

/* ---- policies: what an app asks before it builds a pool (doc/pools.md "Policies") ---- */

/** How a port's PMD fills its mbufs on receive (gpudp_mem_port_rx()). */
enum gpudp_mem_port_rx {
	GPUDP_PORT_RX_CPU = 0,  /**< the CPU writes every packet (a software PMD, or a
				 *   device not on a DMA bus): its mbufs cannot be GPU
				 *   memory */
	GPUDP_PORT_RX_DMA = 1,  /**< a PCI or auxiliary bus device DMAs the packets */
	GPUDP_PORT_RX_NONE = 2, /**< no packet data is written (net_null): GPU memory
				 *   works, but nothing is received into it */
};

/**
 * How ethdev port @p port_id's device fills its mbufs: by DMA (a PCI or
 * auxiliary bus device), with the CPU (net_pcap, net_tap, net_af_packet,
 * net_ring, net_memif, net_af_xdp, net_vhost, net_virtio_user, net_kni,
 * net_bonding, net_failsafe, net_softnic, net_tun, net_null with its
 * devarg copy=1, and any other device off a DMA bus), or not at all
 * (net_null). The rule, in order: net_null by its copy devarg; a driver
 * named above copies, whatever its bus; a device on the "pci" or
 * "auxiliary" bus DMAs; anything else copies (GPU memory is offered only
 * to a port known to DMA). Nothing is allocated.
 * @param why  except for DMA, why (e.g. "is a software PMD that copies
 *   every packet with the CPU"); else ""
 * @return an enum gpudp_mem_port_rx, or -ENODEV (no such port)
 */
int gpudp_mem_port_rx(uint16_t port_id, char *why, size_t len);

/**
 * The facts the pin backend rule (gpudp_mem_pin_decide()) decides from.
 * gpudp_pool_create() and gpudp_mem_pin_plan() gather them from the host;
 * tests give them by hand. The strings are the caller's and must not be
 * the @p why buffer of gpudp_mem_pin_decide().
 */
struct gpudp_mem_pin_facts {
	/** lib/pin's answer for /dev/gpudp_pin (gpudp_pin_shared_fd()):
	 *  >= 0 it opened, else -errno (-ENOENT: no module loaded) */
	int module;
	/** with the module open: its capability bits (GPUDP_PIN_CAP_*) */
	uint32_t caps;
	/** the name of the allocator that can export dma-bufs ("gpudev"),
	 *  or NULL if it cannot */
	const char *exporter;
	/** with @p exporter NULL: why it cannot (NULL: a generic reason) */
	const char *no_export;
	/** peermem: 1 every port is mlx5 (the PMD registers the memory,
	 *  nvidia-peermem pins), 0 not (why in @p no_peermem), -1 not asked:
	 *  peermem taken as is (gpudp_pool_create(): the PMD's business) */
	int peermem;
	/** with @p peermem 0: why (e.g. "peermem needs mlx5 ports: port 0
	 *  is net_null"; NULL: a generic reason) */
	const char *no_peermem;
};

/**
 * The pin backend rule, on facts alone (no I/O, no allocation): @p want
 * itself if usable; for GPUDP_PIN_AUTO the first usable of dmabuf (the
 * module opens, reports GPUDP_PIN_CAP_DMABUF, and the allocator exports
 * dma-bufs), kmod (the module opens), peermem (unless @p f says its ports
 * are not mlx5). gpudp_pool_create() and gpudp_mem_pin_plan() both decide
 * with it.
 * @param chosen  the backend (the one refused on failure)
 * @param why     one line: why this backend (e.g. "kmod (auto:
 *   /dev/gpudp_pin opened; not dmabuf: the gpudp_pin module has no
 *   dma-buf import (GPUDP_PIN_CAP_DMABUF))"), or why it is not usable
 *   (e.g. "/dev/gpudp_pin cannot be opened: No such file or directory (is
 *   the gpudp_pin module loaded?)"); NULL or @p len 0: not written
 * @return 0, -ENOTSUP (not usable), -EINVAL (unknown backend)
 */
int gpudp_mem_pin_decide(enum gpudp_pin_backend want, const struct gpudp_mem_pin_facts *f,
			 enum gpudp_pin_backend *chosen, char *why, size_t len);

/**
 * The pin backend a device pool on GPU @p gpu_id (gpudev's allocator) for
 * @p ports would use, and why, without allocating anything: the facts of
 * this host (lib/pin's process-wide /dev/gpudp_pin descriptor, which this
 * opens if it can; whether the GPU exports dma-bufs; whether every port is
 * mlx5) put to gpudp_mem_pin_decide(). Stricter than gpudp_pool_create()
 * in one case only: peermem (asked for, or auto's last resort) is refused
 * unless every port is mlx5, since no other PMD can DMA into GPU memory
 * without bus addresses from gpudp_pin.
 * @param chosen  the backend (the one refused on failure)
 * @param why     one line: why this backend, or why none is usable
 * @return 0, -ENOTSUP (not usable here), -EINVAL (unknown backend)
 */
int gpudp_mem_pin_plan(enum gpudp_pin_backend want, int16_t gpu_id, const uint16_t *ports,
		       uint16_t nb_ports, enum gpudp_pin_backend *chosen, char *why,
		       size_t len);

/**
 * Map every chunk of device pool @p p for the CPU (rte_gpu_mem_cpu_map():
 * gpudp_pin's write-combined mapping of the GPU's BAR; slow to read), for
 * a CPU that must read packets in GPU memory. Chunks already mapped are
 * kept; gpudp_pool_destroy() unmaps them.
 * @return 0, -EINVAL (not a device pool), or the mapping's error (with
 *   @p why: the chunk and the reason)
 */
int gpudp_pool_cpu_map(struct gpudp_pool *p, char *why, size_t len);

/**
 * The CPU address of @p len bytes at GPU address @p addr of a pool
 * gpudp_pool_cpu_map() mapped, or NULL if they are not all in one mapped
 * chunk.
 */
const void *gpudp_pool_cpu_addr(const struct gpudp_pool *p, uint64_t addr, uint32_t len);

/** Bytes of @p p mapped for the CPU (0 before gpudp_pool_cpu_map()). */
size_t gpudp_pool_cpu_mapped(const struct gpudp_pool *p);

/** How close a port's chosen GPU is in the PCIe tree, closest last. */
enum gpudp_gpu_place_level {
	/** the port or the GPU is not a PCI device in sysfs: no path known */
	GPUDP_GPU_PLACE_UNKNOWN,
	/** different root complexes and NUMA nodes: across the CPU interconnect */
	GPUDP_GPU_PLACE_CROSS,
	/** different root complexes (host bridges) of one NUMA node */
	GPUDP_GPU_PLACE_NUMA,
	/** one root complex, different root ports: peer traffic through the CPU */
	GPUDP_GPU_PLACE_ROOT,
	/** below one root port, i.e. behind a common PCIe switch (best) */
	GPUDP_GPU_PLACE_SWITCH,
};

/** Size of gpudp_gpu_place.reason, NUL included (longer reasons are cut). */
#define GPUDP_GPU_PLACE_REASON_LEN 256

/** The GPU chosen for one port by gpudp_mem_gpu_place(). */
struct gpudp_gpu_place {
	unsigned int gpu;                  /**< index into the GPU list */
	enum gpudp_gpu_place_level level;  /**< how close it is */
	/**
	 * PCIe links between port and GPU through their closest common
	 * bridge (SWITCH, ROOT: the root complex counts as the bridge);
	 * -1 for the other levels.
	 */
	int hops;
	int port_numa;                     /**< the port's sysfs numa_node; -1 unknown */
	int gpu_numa;                      /**< the GPU's sysfs numa_node; -1 unknown */
	unsigned int tied;                 /**< GPUs that were equally close (>= 1) */
	/**
	 * One line for logs and --check: the level, the PCIe path from the
	 * port to the GPU ("0000:04:00.0 > 0000:02:01.0 > 0000:01:00.0 <
	 * 0000:02:00.0 < 0000:03:00.0") or their root complexes and NUMA
	 * nodes, what is not in sysfs, and how a tie was broken.
	 */
	char reason[GPUDP_GPU_PLACE_REASON_LEN];
};

/**
 * Choose a GPU for each port: the closest in the PCIe tree (sysfs under
 * $GPUDP_SYSFS_ROOT, default /sys). Closest means, in this order: below
 * one root port (a common PCIe switch; of several, the fewest hops), then
 * the same root complex, then the same NUMA node (sysfs numa_node), then
 * any. Among equally close GPUs the one with the fewest ports so far wins,
 * then the lowest index. Ports with fewer equally close GPUs choose first
 * (so a port with one good GPU gets it before a port with several), then
 * in the order given. Pure sysfs reading: no EAL, no GPU driver needed.
 *
 * @param ports PCI addresses of the ports' devices ("0000:04:00.0")
 * @param n_ports number of ports (> 0)
 * @param gpus PCI addresses of the GPUs
 * @param n_gpus number of GPUs (> 0)
 * @param out n_ports results, filled (all of them) also when -ENOENT is
 *   returned
 * @return 0; -ENOENT if a port or GPU is not a PCI device in sysfs: its
 *   level is GPUDP_GPU_PLACE_UNKNOWN, its GPU chosen by the tie rules and
 *   the reason says so (a port that is not PCI, e.g. a vdev, gets this);
 *   -EINVAL for a NULL pointer or a count of 0; -ENOMEM.
 */
int gpudp_mem_gpu_place(const char *const *ports, unsigned int n_ports,
			const char *const *gpus, unsigned int n_gpus,
			struct gpudp_gpu_place *out);

/** "switch", "root-complex", "numa", "cross", "unknown"; "?" otherwise. */
const char *gpudp_gpu_place_level_name(enum gpudp_gpu_place_level l);

/**
 * Parse a hand-made placement, --gpu-map "PORT:GPU,..." (decimal
 * indexes, e.g. "0:1,1:0"), into @p map (n_ports entries: the GPU index
 * of each port, -1 for a port the string does not name).
 *
 * @param s the map
 * @param n_ports ports that exist (a PORT must be below it)
 * @param n_gpus GPUs that exist (a GPU must be below it)
 * @param map filled only on success
 * @param err on error, a message that names the offending token, e.g.
 *   "port 0 given twice ('0:1')"; may be NULL
 * @param len size of @p err
 * @return 0; -EINVAL for bad syntax (an empty map or token, no ':', not
 *   a decimal number, trailing characters), a port or GPU out of range,
 *   a port given twice, or a NULL @p s or @p map or a count of 0; -ENOMEM.
 */
int gpudp_mem_gpu_map_parse(const char *s, unsigned int n_ports, unsigned int n_gpus,
			    int *map, char *err, size_t len);

/** "host", "pinned", "device", "split" -> type; -EINVAL for anything else. */
int gpudp_mem_type_parse(const char *s, enum gpudp_mem_type *t);
/** "auto", "peermem", "kmod", "dmabuf" -> backend; -EINVAL otherwise. */
int gpudp_pin_backend_parse(const char *s, enum gpudp_pin_backend *b);
/** Names of the enums, as parsed. */
const char *gpudp_mem_type_name(enum gpudp_mem_type t);
const char *gpudp_pin_backend_name(enum gpudp_pin_backend b);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_MEM_H */
