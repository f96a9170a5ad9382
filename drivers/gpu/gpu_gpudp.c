/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp's gpudev driver for NVIDIA GPUs: buses, probe and remove, children,
 * and the public functions of gpudp_gpu.h. The ops are in gpu_gpudp_ops.c.
 *
 * How a GPU becomes a gpudev device:
 * - PCI bus (driver gpu_gpudp_pci): the id table matches any NVIDIA
 *   (0x10de) function of class VGA (0x030000) or 3D controller (0x030200),
 *   with no device-ID list, so Hopper, Blackwell and later parts match;
 *   the probe then asks the CUDA driver (cuDeviceGetByPCIBusId) and
 *   declines (returns 1) functions CUDA does not report. No BAR mapping is
 *   needed (no RTE_PCI_DRV_NEED_MAPPING), so the GPU stays bound to the
 *   nvidia kernel driver.
 * - vdev bus (driver gpu_gpudp): `--vdev gpu_gpudp0,cuda=N` or
 *   `bdf=D:B:D.F`, and what gpudp_gpu_probe_all() uses under --no-pci.
 * - gpudp_gpu_probe_all(): see gpudp_gpu.h. EAL drops a device from the PCI
 *   scan when an `-a` allow-list does not name it (rte_pci_ignore_device);
 *   rte_dev_probe() inserts an allowing devargs and rescans, which is
 *   DPDK's own hotplug path, so nothing of EAL's is bypassed. A `-b` block
 *   of the GPU is honoured (rte_dev_probe would silently replace it).
 * The gpudev name of a parent is its PCI address on both buses, so one GPU
 * is one gpudev device however it was found.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_pci.h>
#include <bus_pci_driver.h>
#include <bus_vdev_driver.h>

#include "gpu_gpudp_pvt.h"
#include "gpudp_gpu.h"

RTE_LOG_REGISTER(gpudp_gpu_logtype, gpudp.gpu, NOTICE);

#define NVIDIA_PCI_VENDOR 0x10de
#define PCI_CLASS_VGA     0x030000
#define PCI_CLASS_3D      0x030200

#define KV_CUDA "cuda"
#define KV_BDF  "bdf"
#define KV_WMB  "wmb"
#define KV_IGPU_ALLOC "igpu_alloc"

/* ---------------------------------------------------------------- CUDA */

/* Load the CUDA driver; on failure log why once per process. */
static int
cuda_ready(const char *who)
{
	static bool logged;
	int rc = gpudp_cuda_init();

	if (rc != 0 && !logged) {
		logged = true;
		if (who != NULL)
			GPU_LOG(WARNING, "%s: NVIDIA GPU not used: %s; rte_gpu_count_avail() stays 0",
				who, gpudp_cuda_last_error());
		else
			GPU_LOG(NOTICE, "no GPU: %s; rte_gpu_count_avail() is 0",
				gpudp_cuda_last_error());
	}
	return rc;
}

/* CUDA device -> lower-case "dddd:bb:dd.f", DPDK's spelling. */
static int
cuda_pci_addr(CUdevice d, char *out, size_t len)
{
	struct rte_pci_addr a;
	char buf[32];

	if (gpudp_cu->cuDeviceGetPCIBusId(buf, sizeof(buf), d) != CUDA_SUCCESS ||
	    rte_pci_addr_parse(buf, &a) != 0)
		return -EINVAL;
	rte_pci_device_name(&a, out, len);
	return 0;
}

static int
sysfs_numa_node(const char *pci_addr)
{
	char path[96];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci_addr);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v < 0 ? -1 : v;
}

static int
cu_attr(CUdevice d, CUdevice_attribute a, int dflt)
{
	int v;

	return gpudp_cu->cuDeviceGetAttribute(&v, a, d) == CUDA_SUCCESS ? v : dflt;
}

/* ------------------------------------------------------------- devices */

static bool
gpu_is_ours(const struct rte_gpu *dev)
{
	return dev != NULL && dev->ops.dev_close == gpudp_gpu_dev_close;
}

static struct rte_gpu *
gpu_by_id(int16_t id)
{
	struct rte_gpu_info info;

	/* info_get of a device without ops (a plain child) copies mpshared */
	if (rte_gpu_info_get(id, &info) != 0)
		return NULL;
	return rte_gpu_get_by_name(info.name);
}

/* Parse "wmb=auto|flush", "igpu_alloc=default|wc" (and, for vdev, cuda= / bdf=). */
struct gpu_args {
	int cuda;          /* -1: not given */
	char bdf[32];
	bool wmb_flush;    /* wmb=flush */
	bool igpu_wc;      /* igpu_alloc=wc */
};

static int
kv_str(const char *key, const char *value, void *opaque)
{
	struct gpu_args *a = opaque;

	if (strcmp(key, KV_CUDA) == 0) {
		char *end;
		long v = strtol(value, &end, 10);

		if (*value == '\0' || *end != '\0' || v < 0 || v > 1023)
			return -EINVAL;
		a->cuda = (int)v;
	} else if (strcmp(key, KV_BDF) == 0) {
		snprintf(a->bdf, sizeof(a->bdf), "%s", value);
	} else if (strcmp(key, KV_WMB) == 0) {
		if (strcmp(value, "flush") == 0)
			a->wmb_flush = true;
		else if (strcmp(value, "auto") != 0)
			return -EINVAL;
	} else if (strcmp(key, KV_IGPU_ALLOC) == 0) {
		if (strcmp(value, "wc") == 0)
			a->igpu_wc = true;
		else if (strcmp(value, "default") != 0)
			return -EINVAL;
	}
	return 0;
}

static int
parse_args(const char *dev_name, const char *args, bool vdev,
	   struct gpu_args *out)
{
	static const char *const pci_keys[] = { KV_WMB, KV_IGPU_ALLOC, NULL };
	static const char *const vdev_keys[] = { KV_CUDA, KV_BDF, KV_WMB, KV_IGPU_ALLOC, NULL };
	struct rte_kvargs *kv;
	int rc;

	memset(out, 0, sizeof(*out));
	out->cuda = -1;
	if (args == NULL || args[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(args, vdev ? vdev_keys : pci_keys);
	if (kv == NULL) {
		GPU_LOG(ERR, "%s: bad device arguments \"%s\" (valid: %s)", dev_name,
			args, vdev ? "cuda=<n>, bdf=<D:B:D.F>, wmb=auto|flush, igpu_alloc=default|wc" :
			"wmb=auto|flush, igpu_alloc=default|wc");
		return -EINVAL;
	}
	rc = rte_kvargs_process(kv, NULL, kv_str, out);
	rte_kvargs_free(kv);
	if (rc != 0) {
		GPU_LOG(ERR, "%s: bad value in device arguments \"%s\"", dev_name, args);
		return -EINVAL;
	}
	return 0;
}

/* A zeroed private part with an empty allocation table. */
static int
priv_new(struct gpudp_gpu_priv **out)
{
	struct gpudp_gpu_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (p == NULL)
		return -ENOMEM;
	rc = gpudp_gpu_mtab_init(&p->mtab);
	if (rc != 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* Create the gpudev parent for CUDA device d, named after its PCI address. */
static int
gpu_create(struct rte_device *rdev, CUdevice d, int numa, const char *bus,
	   const struct gpu_args *args)
{
	struct gpudp_gpu_priv *p;
	struct rte_gpu *dev;
	size_t total = 0;
	CUresult res;
	int rc;

	rc = priv_new(&p);
	if (rc != 0)
		return rc;
	p->cu_dev = d;
	p->cuda_ordinal = (int)d;
	snprintf(p->bus, sizeof(p->bus), "%s", bus);
	if (cuda_pci_addr(d, p->pci_addr, sizeof(p->pci_addr)) != 0) {
		rc = -ENODEV;
		goto fail;
	}
	if (gpudp_cu->cuDeviceGetName(p->product, sizeof(p->product), d) != CUDA_SUCCESS)
		snprintf(p->product, sizeof(p->product), "NVIDIA GPU");
	res = gpudp_cu->cuDeviceTotalMem(&total, d);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cuDeviceTotalMem: %s", p->pci_addr, gpudp_cuda_errstr(res));
		rc = -EIO;
		goto fail;
	}
	p->cc_major = cu_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
	p->cc_minor = cu_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
	p->sm_count = (uint32_t)cu_attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
	p->gdr_supported = cu_attr(d, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0);
	p->gdr_ordering = cu_attr(d, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 0);
	p->gdr_flush_options = cu_attr(d, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0);
	/* an integrated GPU (NVIDIA's GPUDirect RDMA guide, section Porting to
	 * Tegra): mem_alloc from cuMemHostAlloc (gpu_gpudp_igpu.c) */
	gpudp_cuda_mem_caps_get(d, &p->caps);
	if (args->igpu_wc && !p->caps.integrated) {
		GPU_LOG(ERR, "%s: igpu_alloc=wc: not an integrated GPU (its memory comes from cuMemAlloc)",
			p->pci_addr);
		rc = -ENOTSUP;
		goto fail;
	}
	p->igpu_wc = args->igpu_wc;
	if (numa < 0)
		numa = sysfs_numa_node(p->pci_addr);
#if CUDA_VERSION >= 12020 /* the attribute is new in CUDA 12.2's headers */
	if (numa < 0)
		numa = cu_attr(d, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, -1);
#endif

	/* wmb (NVIDIA's "GPUDirect RDMA" guide, "Synchronization and Memory
	 * Ordering"): nothing to do when the GPU orders remote writes for its
	 * own context; otherwise cuFlushGPUDirectRDMAWrites, where the device
	 * offers it. */
	{
		bool can_flush = gpudp_cu->cuFlushGPUDirectRDMAWrites != NULL &&
			(p->gdr_flush_options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);

		if (args->wmb_flush && !can_flush) {
			GPU_LOG(ERR, "%s: wmb=flush: the device or driver has no cuFlushGPUDirectRDMAWrites",
				p->pci_addr);
			rc = -ENOTSUP;
			goto fail;
		}
		p->wmb_flush = args->wmb_flush ||
			(p->gdr_ordering < CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER && can_flush);
		p->wmb_unsupported = !p->wmb_flush &&
			p->gdr_ordering < CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
	}

	res = gpudp_cu->cuDevicePrimaryCtxRetain(&p->ctx, d);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: cuDevicePrimaryCtxRetain: %s", p->pci_addr,
			gpudp_cuda_errstr(res));
		rc = -EIO;
		goto fail;
	}
	p->owns_primary = true;

	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		dev = rte_gpu_allocate(p->pci_addr);
	else
		dev = rte_gpu_attach(p->pci_addr);
	if (dev == NULL) {
		rc = -rte_errno;
		GPU_LOG(ERR, "%s: cannot create the gpudev device: %s", p->pci_addr,
			rte_strerror(rte_errno));
		goto fail_ctx;
	}
	dev->device = rdev;
	dev->ops = gpudp_gpu_ops;
	dev->process_private = p;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		dev->mpshared->info.context = (uint64_t)(uintptr_t)p->ctx;
		dev->mpshared->info.processor_count = p->sm_count;
		dev->mpshared->info.total_memory = total;
		dev->mpshared->info.page_size = GPUDP_GPU_PAGE_SIZE;
		dev->mpshared->info.numa_node = numa;
	}
	rte_gpu_complete_new(dev);
	GPU_LOG(INFO, "%s: gpudev %d via %s: %s, sm_%d%d, %u SMs, %zu MiB, NUMA %d, GPUDirect RDMA %s, wmb %s",
		p->pci_addr, dev->mpshared->info.dev_id, bus, p->product,
		p->cc_major, p->cc_minor, p->sm_count, total >> 20, numa,
		p->gdr_supported ? "supported" : "NOT supported",
		p->wmb_flush ? "flushes (cuFlushGPUDirectRDMAWrites)" :
		p->wmb_unsupported ? "unsupported (writes unordered, no flush)" :
		"is a no-op (writes ordered >= OWNER)");
	if (p->caps.integrated) {
		char caps[256];

		GPU_LOG(INFO, "%s: integrated GPU (shares DRAM with the CPU): mem_alloc is cuMemHostAlloc, %s",
			p->pci_addr, gpudp_cuda_mem_caps_str(&p->caps, CU_MEMHOSTALLOC_DEVICEMAP |
			(p->igpu_wc ? CU_MEMHOSTALLOC_WRITECOMBINED : 0), caps, sizeof(caps)));
	}
	if (!p->gdr_supported)
		GPU_LOG(WARNING, "%s: the device reports no GPUDirect RDMA support: NICs cannot DMA into its memory",
			p->pci_addr);
	return 0;

fail_ctx:
	gpudp_cu->cuDevicePrimaryCtxRelease(p->cu_dev);
fail:
	gpudp_gpu_mtab_fini(&p->mtab);
	free(p);
	return rc;
}

int
gpudp_gpu_dev_close(struct rte_gpu *dev)
{
	struct gpudp_gpu_priv *p = dev->process_private;
	int16_t id = dev->mpshared->info.dev_id, child;

	if (p == NULL)
		return 0;
	if (!p->is_child) {
		RTE_GPU_FOREACH_CHILD(child, id) {
			GPU_LOG(ERR, "%s: close: child gpudev %d is still open: close the children first",
				dev->mpshared->name, child);
			return -EBUSY;
		}
	}
	gpudp_gpu_mem_drain(dev);
	if (p->owns_primary)
		gpudp_cu->cuDevicePrimaryCtxRelease(p->cu_dev);
	gpudp_gpu_mtab_fini(&p->mtab);
	free(p);
	dev->process_private = NULL;
	return 0;
}

/* Bus removal (rte_eal_cleanup, rte_dev_remove): children first. */
static int
gpu_remove(struct rte_device *rdev)
{
	struct rte_gpu *dev;
	int16_t id, child;

	RTE_GPU_FOREACH_PARENT(id) {
		dev = gpu_by_id(id);
		if (dev == NULL || dev->device != rdev || !gpu_is_ours(dev))
			continue;
		RTE_GPU_FOREACH_CHILD(child, id)
			rte_gpu_close(child);
		return rte_gpu_close(id);
	}
	return 0; /* closed by the application already */
}

/* ------------------------------------------------------------ children */

static int
child_attach(struct rte_gpu *dev)
{
	struct rte_gpu *parent = gpu_by_id(dev->mpshared->info.parent);
	CUcontext ctx = (CUcontext)(uintptr_t)dev->mpshared->info.context;
	struct gpudp_gpu_priv *pp, *p;
	CUexecAffinityParam aff;
	CUdevice d = -1;
	uint32_t sms;
	CUresult res;
	int rc;

	if (!gpu_is_ours(parent))
		return -ENODEV;
	pp = parent->process_private;
	if (ctx == NULL) {
		GPU_LOG(ERR, "%s: child of %s has no CUDA context", dev->mpshared->name,
			pp->pci_addr);
		return -EINVAL;
	}
	res = gpudp_cu->cuCtxPushCurrent(ctx);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: child context %p is not usable: %s", dev->mpshared->name,
			(void *)ctx, gpudp_cuda_errstr(res));
		return -EINVAL;
	}
	res = gpudp_cu->cuCtxGetDevice(&d);
	sms = pp->sm_count;
	/* An MPS or green context may have fewer SMs than the device. */
	if (gpudp_cu->cuCtxGetExecAffinity != NULL &&
	    gpudp_cu->cuCtxGetExecAffinity(&aff, CU_EXEC_AFFINITY_TYPE_SM_COUNT) ==
	    CUDA_SUCCESS && aff.param.smCount.val > 0)
		sms = aff.param.smCount.val;
	gpudp_gpu_ctx_pop();
	if (res != CUDA_SUCCESS || d != pp->cu_dev) {
		GPU_LOG(ERR, "%s: child context belongs to CUDA device %d, parent %s is device %d",
			dev->mpshared->name, (int)d, pp->pci_addr, (int)pp->cu_dev);
		return -EINVAL;
	}
	rc = priv_new(&p);
	if (rc != 0)
		return rc;
	p->cu_dev = pp->cu_dev;
	p->ctx = ctx;
	p->owns_primary = false;
	p->is_child = true;
	p->cuda_ordinal = pp->cuda_ordinal;
	memcpy(p->pci_addr, pp->pci_addr, sizeof(p->pci_addr));
	memcpy(p->product, pp->product, sizeof(p->product));
	p->cc_major = pp->cc_major;
	p->cc_minor = pp->cc_minor;
	p->sm_count = sms;
	p->gdr_supported = pp->gdr_supported;
	p->gdr_ordering = pp->gdr_ordering;
	p->gdr_flush_options = pp->gdr_flush_options;
	p->wmb_flush = pp->wmb_flush;
	p->wmb_unsupported = pp->wmb_unsupported;
	p->caps = pp->caps;
	p->igpu_wc = pp->igpu_wc;
	dev->device = parent->device;
	dev->process_private = p;
	dev->ops = gpudp_gpu_ops;
	dev->mpshared->info.processor_count = sms;
	dev->mpshared->info.total_memory = parent->mpshared->info.total_memory;
	dev->mpshared->info.page_size = GPUDP_GPU_PAGE_SIZE;
	dev->mpshared->info.numa_node = parent->mpshared->info.numa_node;
	GPU_LOG(INFO, "%s: child gpudev %d of %s (context %p, %u SMs)",
		dev->mpshared->name, dev->mpshared->info.dev_id, pp->pci_addr,
		(void *)ctx, sms);
	return 0;
}

/* Give the ops to children added with plain rte_gpu_add_child(). */
static void
adopt_children(void)
{
	struct rte_gpu *dev;
	int16_t id;

	RTE_GPU_FOREACH(id) {
		dev = gpu_by_id(id);
		if (dev == NULL || dev->mpshared->info.parent == RTE_GPU_ID_NONE ||
		    dev->ops.dev_close != NULL)
			continue;
		child_attach(dev);
	}
}

int16_t
gpudp_gpu_add_child(const char *name, int16_t parent, uint64_t child_context)
{
	struct rte_gpu *dev;
	int16_t id;
	int rc;

	if (!gpu_is_ours(gpu_by_id(parent))) {
		GPU_LOG(ERR, "add_child %s: parent %d is not a GPU of this driver",
			name != NULL ? name : "(null)", parent);
		rte_errno = ENODEV;
		return -ENODEV;
	}
	id = rte_gpu_add_child(name, parent, child_context);
	if (id < 0)
		return id;
	dev = gpu_by_id(id);
	rc = dev != NULL ? child_attach(dev) : -ENODEV;
	if (rc != 0) {
		rte_gpu_close(id);
		rte_errno = -rc;
		return (int16_t)rc;
	}
	return id;
}

/* ----------------------------------------------------------------- PCI */

static int
gpu_pci_probe(struct rte_pci_driver *drv, struct rte_pci_device *pdev)
{
	struct gpu_args args;
	char name[RTE_DEV_NAME_MAX_LEN];
	struct rte_gpu *existing;
	CUdevice d;
	CUresult res;
	int rc;

	RTE_SET_USED(drv);
	rte_pci_device_name(&pdev->addr, name, sizeof(name));
	if (cuda_ready(name) != 0)
		return 1;
	res = gpudp_cu->cuDeviceGetByPCIBusId(&d, name);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(INFO, "%s: NVIDIA function %04x:%04x (class %06x) is not a CUDA device of this process (%s): not probed",
			name, pdev->id.vendor_id, pdev->id.device_id, pdev->id.class_id,
			gpudp_cuda_errstr(res));
		return 1;
	}
	existing = rte_gpu_get_by_name(name);
	if (existing != NULL) {
		/* probed again (RTE_PCI_DRV_PROBE_AGAIN) while still open */
		if (gpu_is_ours(existing) && existing->device == &pdev->device)
			return 0;
		GPU_LOG(INFO, "%s: already a gpudev device (vdev or another driver): PCI probe skipped",
			name);
		return 1;
	}
	rc = parse_args(name, pdev->device.devargs != NULL ?
			pdev->device.devargs->args : NULL, false, &args);
	if (rc != 0)
		return rc;
	return gpu_create(&pdev->device, d, pdev->device.numa_node, "pci", &args);
}

static int
gpu_pci_remove(struct rte_pci_device *pdev)
{
	return gpu_remove(&pdev->device);
}

/* NVIDIA + display class; no device-ID list (see the file comment). */
static const struct rte_pci_id gpu_pci_ids[] = {
	{
		.class_id = PCI_CLASS_3D,
		.vendor_id = NVIDIA_PCI_VENDOR,
		.device_id = RTE_PCI_ANY_ID,
		.subsystem_vendor_id = RTE_PCI_ANY_ID,
		.subsystem_device_id = RTE_PCI_ANY_ID,
	},
	{
		.class_id = PCI_CLASS_VGA,
		.vendor_id = NVIDIA_PCI_VENDOR,
		.device_id = RTE_PCI_ANY_ID,
		.subsystem_vendor_id = RTE_PCI_ANY_ID,
		.subsystem_device_id = RTE_PCI_ANY_ID,
	},
	{ .vendor_id = 0 },
};

/* PROBE_AGAIN: after the application closed the gpudev device (the PCI
 * device stays probed), gpudp_gpu_probe_all's rte_dev_probe() recreates it
 * here instead of failing with EEXIST. No NEED_MAPPING: nothing of the
 * GPU's BARs is mapped by DPDK. */
static struct rte_pci_driver gpu_pci_driver = {
	.id_table = gpu_pci_ids,
	.drv_flags = RTE_PCI_DRV_PROBE_AGAIN,
	.probe = gpu_pci_probe,
	.remove = gpu_pci_remove,
};

/* One registration name per bus: since DPDK 25.07 the symbol a
 * registration exports is made of the name alone, so the PCI and vdev
 * drivers cannot share one (GPUDP_GPU_PCI_DRIVER_NAME, gpudp_gpu.h). */
RTE_PMD_REGISTER_PCI(gpu_gpudp_pci, gpu_pci_driver);
RTE_PMD_REGISTER_PCI_TABLE(gpu_gpudp_pci, gpu_pci_ids);
RTE_PMD_REGISTER_KMOD_DEP(gpu_gpudp_pci, "* nvidia");
RTE_PMD_REGISTER_PARAM_STRING(gpu_gpudp_pci, "wmb=auto|flush igpu_alloc=default|wc");

/* ---------------------------------------------------------------- vdev */

static int
gpu_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct gpu_args args;
	char pci_addr[24];
	CUdevice d;
	CUresult res;
	int rc;

	rc = parse_args(name, rte_vdev_device_args(vdev), true, &args);
	if (rc != 0)
		return rc;
	if (cuda_ready(NULL) != 0) {
		GPU_LOG(ERR, "%s: no CUDA driver or device: %s", name,
			gpudp_cuda_last_error());
		return -ENODEV;
	}
	if (args.bdf[0] != '\0')
		res = gpudp_cu->cuDeviceGetByPCIBusId(&d, args.bdf);
	else
		res = gpudp_cu->cuDeviceGet(&d, args.cuda < 0 ? 0 : args.cuda);
	if (res != CUDA_SUCCESS) {
		GPU_LOG(ERR, "%s: no CUDA device %s%s: %s", name,
			args.bdf[0] != '\0' ? "at " : "number ",
			args.bdf[0] != '\0' ? args.bdf : (args.cuda < 0 ? "0" : "given"),
			gpudp_cuda_errstr(res));
		return -ENODEV;
	}
	if (cuda_pci_addr(d, pci_addr, sizeof(pci_addr)) != 0)
		return -ENODEV;
	if (rte_gpu_get_by_name(pci_addr) != NULL) {
		GPU_LOG(ERR, "%s: GPU %s is already a gpudev device", name, pci_addr);
		return -EEXIST;
	}
	return gpu_create(&vdev->device, d, -1, "vdev", &args);
}

static int
gpu_vdev_remove(struct rte_vdev_device *vdev)
{
	return gpu_remove(&vdev->device);
}

static struct rte_vdev_driver gpu_vdev_driver = {
	.probe = gpu_vdev_probe,
	.remove = gpu_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(gpu_gpudp, gpu_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(gpu_gpudp,
	"cuda=<int> bdf=<D:B:D.F> wmb=auto|flush igpu_alloc=default|wc");

/* -------------------------------------------------------------- public */

/* Is pci_addr named by a -b/--block devargs? */
static bool
pci_blocked(const char *pci_addr)
{
	struct rte_pci_addr want, a;
	struct rte_devargs *da;

	if (rte_pci_addr_parse(pci_addr, &want) != 0)
		return false;
	RTE_EAL_DEVARGS_FOREACH("pci", da) {
		if (da->policy == RTE_DEV_BLOCKED &&
		    rte_pci_addr_parse(da->name, &a) == 0 &&
		    rte_pci_addr_cmp(&a, &want) == 0)
			return true;
	}
	return false;
}

static void
probe_one(const char *pci_addr)
{
	char vname[RTE_DEV_NAME_MAX_LEN], vargs[48];
	int rc;

	if (pci_blocked(pci_addr)) {
		GPU_LOG(INFO, "%s: blocked by -b: not probed", pci_addr);
		return;
	}
	if (rte_eal_has_pci()) {
		rc = rte_dev_probe(pci_addr);
		if (rc == 0 && rte_gpu_get_by_name(pci_addr) != NULL)
			return;
		GPU_LOG(INFO, "%s: PCI probe did not create the device (%s): using vdev",
			pci_addr, rc != 0 ? strerror(-rc) : "declined");
	}
	snprintf(vname, sizeof(vname), "%s_%s", GPUDP_GPU_DRIVER_NAME, pci_addr);
	snprintf(vargs, sizeof(vargs), "%s=%s", KV_BDF, pci_addr);
	rc = rte_vdev_init(vname, vargs);
	if (rc == -EEXIST) {
		/* an earlier vdev whose gpudev the application closed */
		rte_vdev_uninit(vname);
		rc = rte_vdev_init(vname, vargs);
	}
	if (rc != 0)
		GPU_LOG(ERR, "%s: vdev %s failed: %s", pci_addr, vname,
			strerror(rc < 0 ? -rc : EINVAL));
}

int
gpudp_gpu_probe_all(void)
{
	char pci_addr[24];
	struct rte_gpu *dev;
	int i, count = 0, n = 0;
	CUdevice d;

	if (cuda_ready(NULL) != 0)
		return 0;
	if (gpudp_cu->cuDeviceGetCount(&count) != CUDA_SUCCESS)
		return 0;
	for (i = 0; i < count; i++) {
		if (gpudp_cu->cuDeviceGet(&d, i) != CUDA_SUCCESS ||
		    cuda_pci_addr(d, pci_addr, sizeof(pci_addr)) != 0)
			continue;
		if (rte_gpu_get_by_name(pci_addr) == NULL)
			probe_one(pci_addr);
		dev = rte_gpu_get_by_name(pci_addr);
		if (dev != NULL && gpu_is_ours(dev))
			n++;
		else if (dev != NULL)
			GPU_LOG(INFO, "%s: served by another gpudev driver", pci_addr);
	}
	adopt_children();
	return n;
}

int
gpudp_gpu_props_get(int16_t dev_id, struct gpudp_gpu_props *props)
{
	struct rte_gpu *dev = gpu_by_id(dev_id);
	struct gpudp_gpu_priv *p;

	if (props == NULL)
		return -EINVAL;
	if (!gpu_is_ours(dev) || dev->process_private == NULL)
		return -ENODEV;
	p = dev->process_private;
	memset(props, 0, sizeof(*props));
	memcpy(props->product, p->product, sizeof(props->product));
	memcpy(props->pci_addr, p->pci_addr, sizeof(props->pci_addr));
	memcpy(props->bus, p->bus, sizeof(props->bus));
	props->cuda_ordinal = p->cuda_ordinal;
	props->cc_major = p->cc_major;
	props->cc_minor = p->cc_minor;
	props->sm_count = p->sm_count;
	props->context = (uint64_t)(uintptr_t)p->ctx;
	props->is_child = p->is_child;
	props->gdr_supported = p->gdr_supported;
	props->gdr_writes_ordering = p->gdr_ordering;
	props->gdr_flush_options = p->gdr_flush_options;
	props->wmb_flushes = p->wmb_flush;
	props->integrated = p->caps.integrated;
	props->can_map_host = p->caps.can_map_host;
	props->unified_addressing = p->caps.unified_addressing;
	props->host_ptr_registered = p->caps.host_ptr_registered;
	props->igpu_alloc = p->igpu_wc ? GPUDP_GPU_IGPU_ALLOC_WC : GPUDP_GPU_IGPU_ALLOC_DEFAULT;
	gpudp_gpu_mtab_stats(&p->mtab, GPUDP_GPU_MEM_DEVICE, &props->n_allocs,
			     &props->alloc_bytes);
	gpudp_gpu_mtab_stats(&p->mtab, GPUDP_GPU_MEM_HOST, &props->n_registered,
			     &props->registered_bytes);
	props->n_cpu_mapped = gpudp_gpu_cpumap_count(p);
	return 0;
}

int
gpudp_gpu_igpu_alloc_set(int16_t dev_id, enum gpudp_gpu_igpu_alloc how)
{
	struct rte_gpu *dev = gpu_by_id(dev_id);
	struct gpudp_gpu_priv *p;

	if (!gpu_is_ours(dev) || dev->process_private == NULL)
		return -ENODEV;
	if (how != GPUDP_GPU_IGPU_ALLOC_DEFAULT && how != GPUDP_GPU_IGPU_ALLOC_WC)
		return -EINVAL;
	p = dev->process_private;
	if (!p->caps.integrated)
		return -ENOTSUP;
	p->igpu_wc = how == GPUDP_GPU_IGPU_ALLOC_WC;
	GPU_LOG(INFO, "%s: mem_alloc: cuMemHostAlloc%s", dev->mpshared->name,
		p->igpu_wc ? ", write-combined" : " with the default flags (not write-combined)");
	return 0;
}
