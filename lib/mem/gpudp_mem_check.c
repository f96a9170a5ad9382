/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deployment checks for GPU pools (gpudp_mem_check()): BAR1 space, IOMMU
 * mode, NIC/GPU PCIe placement and mlx5 receive/transmit settings.
 * Facts from NVIDIA's GPUDirect RDMA guide: "Supported Systems" (peer
 * traffic should not cross a CPU root complex; best under one PCIe
 * switch), "PCI BAR sizes" (pinned GPU memory is exposed through BAR1), and
 * the MLNX_OFED notes (inline receive, i.e. scatter-to-CQE, must be off when
 * receive buffers are in GPU memory; TX inlining makes the CPU read packet
 * data, which it cannot do from GPU memory).
 *
 * sysfs is read under $GPUDP_SYSFS_ROOT (default "/sys") so tests can
 * build a fake tree.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "gpudp_mem.h"
#include "gpudp_mem_pvt.h"

struct ctx {
	gpudp_check_report_t *report;
	void *arg;
	int fails;
};

static void
say(struct ctx *c, enum gpudp_check_level lvl, const char *check, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (lvl == GPUDP_CHECK_FAIL)
		c->fails++;
	if (c->report != NULL)
		c->report(lvl, check, msg, c->arg);
}

const char *
gpudp_mem_sysfs(void)
{
	const char *r = getenv("GPUDP_SYSFS_ROOT");

	return r != NULL && r[0] != '\0' ? r : "/sys";
}

/* ---- BAR1 through NVML (libnvidia-ml.so.1, opened at run time) ---- */

/* NVML's documented ABI, declared here: the build needs no NVML header. */
struct nvml_bar1 {
	unsigned long long total, free, used;
};
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_pci_fn)(const char *bus_id, void **dev);
typedef int (*nvml_bar1_fn)(void *dev, struct nvml_bar1 *m);
typedef int (*nvml_shutdown_fn)(void);

static void
check_bar1(struct ctx *c, const char *gpu_pci, size_t pool_bytes)
{
	const char *lib = getenv("GPUDP_LIBNVML");
	nvml_init_fn init;
	nvml_by_pci_fn by_pci;
	nvml_bar1_fn bar1;
	nvml_shutdown_fn shutdown;
	struct nvml_bar1 m;
	void *h, *dev = NULL;

	h = dlopen(lib != NULL ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		say(c, GPUDP_CHECK_SKIP, "bar1", "NVML not available (%s): BAR1 not checked",
		    dlerror());
		return;
	}
	init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
	by_pci = (nvml_by_pci_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	bar1 = (nvml_bar1_fn)dlsym(h, "nvmlDeviceGetBAR1MemoryInfo");
	shutdown = (nvml_shutdown_fn)dlsym(h, "nvmlShutdown");
	if (init == NULL || by_pci == NULL || bar1 == NULL || shutdown == NULL ||
	    init() != 0) {
		say(c, GPUDP_CHECK_SKIP, "bar1", "NVML did not initialise: BAR1 not checked");
		dlclose(h);
		return;
	}
	if (by_pci(gpu_pci, &dev) != 0 || bar1(dev, &m) != 0) {
		say(c, GPUDP_CHECK_SKIP, "bar1", "NVML knows no GPU at %s", gpu_pci);
	} else if (pool_bytes > m.free) {
		say(c, GPUDP_CHECK_FAIL, "bar1",
		    "pool needs %zu MiB of BAR1, only %llu MiB free of %llu MiB",
		    pool_bytes >> 20, m.free >> 20, m.total >> 20);
	} else {
		say(c, GPUDP_CHECK_OK, "bar1", "%llu MiB free of %llu MiB; pool needs %zu MiB",
		    m.free >> 20, m.total >> 20, pool_bytes >> 20);
	}
	shutdown();
	dlclose(h);
}

/* ---- IOMMU ---- */

int
gpudp_mem_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (f == NULL)
		return -errno;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	return 0;
}

static void
check_iommu(struct ctx *c, const char *pci, const char *what,
	    enum gpudp_pin_backend pin)
{
	char path[PATH_MAX], type[64];
	int n;

	n = snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group/type",
		     gpudp_mem_sysfs(), pci);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    gpudp_mem_read_line(path, type, sizeof(type)) != 0) {
		say(c, GPUDP_CHECK_OK, "iommu", "%s %s: no IOMMU group: IOMMU off", what, pci);
		return;
	}
	if (strcmp(type, "identity") == 0) {
		say(c, GPUDP_CHECK_OK, "iommu", "%s %s: IOMMU in passthrough (identity)", what, pci);
	} else if (pin == GPUDP_PIN_KMOD) {
		say(c, GPUDP_CHECK_FAIL, "iommu",
		    "%s %s: IOMMU translates DMA (%s): the kmod backend hands out physical "
		    "addresses; boot with iommu=pt (or intel_iommu=off / amd_iommu=off)",
		    what, pci, type);
	} else {
		say(c, GPUDP_CHECK_WARN, "iommu",
		    "%s %s: IOMMU translates DMA (%s): peer DMA needs ACS/ATS set up for it",
		    what, pci, type);
	}
}

/* ---- PCIe placement ---- */

/* sysfs path of a PCI device, e.g. /sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0 */
int
gpudp_mem_pci_path(const char *pci, char *out)
{
	char link[PATH_MAX];
	int n = snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", gpudp_mem_sysfs(), pci);

	if (n < 0 || (size_t)n >= sizeof(link) || realpath(link, out) == NULL)
		return -ENOENT;
	return 0;
}

/* Split a path into components in place; @return the count. */
static int
split_path(char *p, char **comp, int max)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(p, "/", &save); t != NULL && n < max; t = strtok_r(NULL, "/", &save))
		comp[n++] = t;
	return n;
}

/* index of the "pciDDDD:BB" root bus component, or -1 */
static int
root_index(char **comp, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strncmp(comp[i], "pci", 3) == 0 && strchr(comp[i], ':') != NULL)
			return i;
	return -1;
}

/*
 * Where two PCI devices meet: 2 below one root port (so under a PCIe
 * switch), 1 at the root complex only (different root ports), 0 on
 * different root complexes, -1 unknown.
 */
int
gpudp_mem_pcie_affinity(const char *a, const char *b)
{
	char pa[PATH_MAX], pb[PATH_MAX], *ca[64], *cb[64];
	int na, nb, ra, rb, k = 0;

	if (gpudp_mem_pci_path(a, pa) != 0 || gpudp_mem_pci_path(b, pb) != 0)
		return -1;
	na = split_path(pa, ca, 64);
	nb = split_path(pb, cb, 64);
	ra = root_index(ca, na);
	rb = root_index(cb, nb);
	if (ra < 0 || rb < 0)
		return -1;
	if (strcmp(ca[ra], cb[rb]) != 0)
		return 0;
	/* common components below the root bus, the devices themselves excluded */
	while (ra + 1 + k < na - 1 && rb + 1 + k < nb - 1 &&
	       strcmp(ca[ra + 1 + k], cb[rb + 1 + k]) == 0)
		k++;
	return k >= 1 ? 2 : 1;
}

static void
check_placement(struct ctx *c, const char *gpu, const char *nic)
{
	switch (gpudp_mem_pcie_affinity(gpu, nic)) {
	case 2:
		say(c, GPUDP_CHECK_OK, "pcie", "NIC %s and GPU %s share a PCIe switch", nic, gpu);
		break;
	case 1:
		say(c, GPUDP_CHECK_WARN, "pcie",
		    "NIC %s and GPU %s meet only at the root complex: peer traffic goes "
		    "through the CPU, expect lower bandwidth", nic, gpu);
		break;
	case 0:
		say(c, GPUDP_CHECK_WARN, "pcie",
		    "NIC %s and GPU %s are on different root complexes: GPUDirect RDMA "
		    "across CPU sockets is slow or unsupported", nic, gpu);
		break;
	default:
		say(c, GPUDP_CHECK_SKIP, "pcie", "placement of NIC %s / GPU %s unknown "
		    "(not PCI devices in %s)", nic, gpu, gpudp_mem_sysfs());
	}
}

/* ---- mlx5 ---- */

static void
check_mlx5(struct ctx *c, uint16_t port, const struct rte_eth_dev_info *di)
{
	const struct rte_devargs *da = di->device != NULL ? rte_dev_devargs(di->device) : NULL;
	const char *args = da != NULL && da->args != NULL ? da->args : "";
	const char *s2c = getenv("MLX5_SCATTER_TO_CQE");

	if (strstr(args, "txq_inline_max=0") == NULL)
		say(c, GPUDP_CHECK_FAIL, "mlx5",
		    "port %u (%s): TX inlining makes the CPU copy packet data, which is in GPU "
		    "memory: add txq_inline_max=0 to the device's -a arguments", port,
		    rte_dev_name(di->device));
	else
		say(c, GPUDP_CHECK_OK, "mlx5", "port %u: txq_inline_max=0", port);
	if (s2c == NULL || strcmp(s2c, "0") != 0)
		say(c, GPUDP_CHECK_FAIL, "mlx5",
		    "port %u: inline receive (scatter-to-CQE) is on: small packets would land "
		    "in the host CQE, not in GPU memory; set MLX5_SCATTER_TO_CQE=0", port);
	else
		say(c, GPUDP_CHECK_OK, "mlx5", "port %u: MLX5_SCATTER_TO_CQE=0", port);
}

/* ---- an integrated GPU (NVIDIA's GPUDirect RDMA guide, section Porting to Tegra) ---- */

/* @return 1 if the GPU at @p gpu_pci is integrated (its findings said), else 0 */
static int
check_igpu(struct ctx *c, const char *gpu_pci)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_cuda_mem_caps caps;
	char desc[256];

	if (gpu_pci == NULL || gpudp_mem_gpu_caps(-1, gpu_pci, &caps, NULL) != 0 ||
	    !caps.integrated)
		return 0;
	say(c, GPUDP_CHECK_OK, "igpu", "GPU %s is integrated: it shares DRAM with the CPU, "
	    "so its device pools are host memory from cuMemHostAlloc, not cuMemAlloc",
	    gpu_pci);
	if (!caps.can_map_host)
		say(c, GPUDP_CHECK_FAIL, "igpu", "GPU %s cannot map host memory "
		    "(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY 0): no device pool can be built",
		    gpu_pci);
	else
		say(c, GPUDP_CHECK_OK, "igpu", "GPU %s: %s; write-combined ones through the "
		    "device pointer", gpu_pci, gpudp_cuda_mem_caps_str(&caps,
		    CU_MEMHOSTALLOC_DEVICEMAP, desc, sizeof(desc)));
	say(c, GPUDP_CHECK_SKIP, "bar1", "GPU %s is integrated: no BAR1, the pools are in "
	    "system memory", gpu_pci);
	return 1;
#else
	(void)c;
	(void)gpu_pci;
	return 0;
#endif
}

int
gpudp_mem_check(const char *gpu_pci, const uint16_t *ports, uint16_t nb_ports,
		size_t pool_bytes, enum gpudp_pin_backend pin,
		gpudp_check_report_t *report, void *arg)
{
	struct ctx c = { .report = report, .arg = arg };
	int igpu = check_igpu(&c, gpu_pci);
	uint16_t i;

	if (gpu_pci != NULL && !igpu) {
		check_bar1(&c, gpu_pci, pool_bytes);
		check_iommu(&c, gpu_pci, "GPU", pin);
	}
	for (i = 0; i < nb_ports; i++) {
		struct rte_eth_dev_info di;
		const char *name;

		if (rte_eth_dev_info_get(ports[i], &di) != 0 || di.device == NULL) {
			say(&c, GPUDP_CHECK_FAIL, "port", "port %u does not exist", ports[i]);
			continue;
		}
		name = rte_dev_name(di.device);
		if (strcmp(rte_bus_name(rte_dev_bus(di.device)), "pci") == 0) {
			check_iommu(&c, name, "NIC", pin);
			if (igpu)
				say(&c, GPUDP_CHECK_SKIP, "pcie", "NIC %s DMAs into system memory, "
				    "which integrated GPU %s shares with the CPU: no PCIe path "
				    "between them to check", name, gpu_pci);
			else if (gpu_pci != NULL)
				check_placement(&c, gpu_pci, name);
		} else {
			say(&c, GPUDP_CHECK_SKIP, "pcie", "port %u (%s) is not a PCI device",
			    ports[i], name);
		}
		if (di.driver_name != NULL && strncmp(di.driver_name, "mlx5", 4) == 0)
			check_mlx5(&c, ports[i], &di);
	}
	return c.fails;
}

const char *
gpudp_check_level_name(enum gpudp_check_level l)
{
	static const char *const n[] = { "ok", "warn", "FAIL", "skip" };

	return (unsigned int)l < RTE_DIM(n) ? n[l] : "?";
}
