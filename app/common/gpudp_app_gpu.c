/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU selection shared by gpudp's apps: see gpudp_app_gpu.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#endif

#include "gpudp_app_gpu.h"

int16_t
gpudp_app_gpu_find(unsigned int ordinal, char *why, size_t len)
{
	int16_t id;
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	gpudp_gpu_probe_all();
	RTE_GPU_FOREACH(id) {
		if (gpudp_gpu_props_get(id, &pr) == 0 && !pr.is_child &&
		    pr.cuda_ordinal == (int)ordinal)
			return id;
	}
#endif
	id = (int16_t)ordinal;
	if (ordinal <= INT16_MAX && rte_gpu_is_valid(id)) {
#ifdef GPUDP_HAS_CUDA
		if (gpudp_gpu_props_get(id, &pr) != 0) /* not gpudp's: another driver's device */
#endif
			return id;
	}
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cuda_init() != 0)
		snprintf(why, len, "%s", gpudp_cuda_last_error());
	else
		snprintf(why, len, "GPU %u does not exist (%u gpudev device%s)", ordinal,
			 rte_gpu_count_avail(), rte_gpu_count_avail() == 1 ? "" : "s");
#else
	snprintf(why, len, "built without CUDA, and no gpudev device %u exists", ordinal);
#endif
	return -1;
}

uint64_t
gpudp_app_gpu_context(int16_t id)
{
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;

	if (id >= 0 && gpudp_gpu_props_get(id, &pr) == 0)
		return pr.context;
#else
	(void)id;
#endif
	return 0;
}

unsigned int
gpudp_app_gpus_avail(struct gpudp_app_gpu_info *a, unsigned int max)
{
	unsigned int n = 0;
#ifdef GPUDP_HAS_CUDA
	struct gpudp_gpu_props pr;
	unsigned int i;
	int16_t id;

	gpudp_gpu_probe_all();
	RTE_GPU_FOREACH(id) {
		if (n == max || gpudp_gpu_props_get(id, &pr) != 0 || pr.is_child)
			continue;
		for (i = n; i > 0 && a[i - 1].ordinal > pr.cuda_ordinal; i--)
			a[i] = a[i - 1];
		memset(&a[i], 0, sizeof(a[i]));
		a[i].ordinal = pr.cuda_ordinal;
		a[i].id = id;
		a[i].ctx = pr.context;
		a[i].gdr_ordering = pr.gdr_writes_ordering;
		snprintf(a[i].pci, sizeof(a[i].pci), "%s", pr.pci_addr);
		snprintf(a[i].product, sizeof(a[i].product), "%s", pr.product);
		n++;
	}
#else
	RTE_SET_USED(a);
	RTE_SET_USED(max);
#endif
	return n;
}

const char *
gpudp_app_port_dev_name(uint16_t port)
{
	struct rte_eth_dev_info di;

	if (rte_eth_dev_info_get(port, &di) != 0 || di.device == NULL)
		return "?";
	return rte_dev_name(di.device);
}

void
gpudp_app_gpu_place_pair(uint16_t port, const char *gpu_pci, struct gpudp_gpu_place *o)
{
	const char *dev = gpudp_app_port_dev_name(port);

	if (gpudp_mem_gpu_place(&dev, 1, &gpu_pci, 1, o) != 0 && o->reason[0] == '\0') {
		memset(o, 0, sizeof(*o));
		o->level = GPUDP_GPU_PLACE_UNKNOWN;
		snprintf(o->reason, sizeof(o->reason), "no PCIe path known");
	}
}

/* --gpu-map: the ports it names. @return 0 or an exit code */
static int
apply_map(const struct gpudp_app_gpu_placing *pl, const uint16_t *ports, unsigned int n_ports,
	  const struct gpudp_app_gpu_info *a, unsigned int n, struct gpudp_app_port_gpu *out,
	  unsigned int *pick)
{
	int *map = malloc(RTE_MAX_ETHPORTS * sizeof(*map));
	unsigned int i, j, p, found;
	char err[256];
	int rc = 0;

	if (map == NULL)
		return GPUDP_EXIT_FAILURE;
	if (gpudp_mem_gpu_map_parse(pl->gpu_map, RTE_MAX_ETHPORTS, pl->max_gpus, map, err,
				    sizeof(err)) != 0) {
		fprintf(stderr, "%s: --gpu-map: bad value '%s' (%s)\n", pl->prog, pl->gpu_map,
			err);
		free(map);
		return GPUDP_EXIT_USAGE;
	}
	for (p = 0; p < RTE_MAX_ETHPORTS && rc == 0; p++) {
		if (map[p] < 0)
			continue;
		for (i = 0; i < n_ports && ports[i] != p; i++)
			;
		for (j = 0, found = 0; j < n && !found; j++)
			found = a[j].ordinal == map[p] ? j + 1 : 0;
		if (i == n_ports) {
			fprintf(stderr, "%s: --gpu-map: bad value '%s' (port %u is not %s: "
				"--ports or the ports EAL made)\n", pl->prog, pl->gpu_map, p,
				pl->role);
			rc = GPUDP_EXIT_USAGE;
		} else if (!found) {
			fprintf(stderr, "%s: --gpu-map: GPU %d of port %u: no such GPU "
				"(%u found)\n", pl->prog, map[p], p, n);
			rc = GPUDP_EXIT_NO_GPU;
		} else {
			pick[i] = found - 1;
			out[i].gpu = found - 1;
			out[i].how = "--gpu-map";
			gpudp_app_gpu_place_pair(ports[i], a[found - 1].pci, &out[i].place);
		}
	}
	free(map);
	return rc;
}

int
gpudp_app_gpu_place_ports(const struct gpudp_app_gpu_placing *pl, const uint16_t *ports,
			  unsigned int n_ports, const struct gpudp_app_gpu_info *a,
			  unsigned int n_gpus, struct gpudp_app_port_gpu *out)
{
	const char **names = calloc(n_ports + n_gpus + 1, sizeof(*names));
	const char **gpus = names + n_ports;
	struct gpudp_gpu_place *res = calloc(n_ports + 1, sizeof(*res));
	unsigned int *pick = calloc(n_ports + 1, 2 * sizeof(*pick));
	unsigned int *idx = pick + n_ports + 1;
	unsigned int i, k, np = 0;
	int rc = 0;

	if (names == NULL || res == NULL || pick == NULL) {
		rc = GPUDP_EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < n_ports; i++)
		pick[i] = UINT32_MAX;
	if (pl->gpu_map != NULL) {
		rc = apply_map(pl, ports, n_ports, a, n_gpus, out, pick);
		if (rc != 0)
			goto out;
	}
	for (i = 0; i < n_ports; i++)
		if (pick[i] == UINT32_MAX) {
			idx[np] = i;
			names[np++] = gpudp_app_port_dev_name(ports[i]);
		}
	for (i = 0; i < n_gpus; i++)
		gpus[i] = a[i].pci;
	rc = np > 0 ? gpudp_mem_gpu_place(names, np, gpus, n_gpus, res) : 0;
	if (rc != 0 && rc != -ENOENT) {
		fprintf(stderr, "%s: --gpu auto: placement failed: %s\n", pl->prog,
			strerror(-rc));
		rc = GPUDP_EXIT_FAILURE;
		goto out;
	}
	rc = 0;
	for (k = 0; k < np; k++) {
		out[idx[k]].gpu = res[k].gpu;
		out[idx[k]].how = pl->how;
		out[idx[k]].place = res[k];
	}
out:
	free(names);
	free(res);
	free(pick);
	return rc;
}

int
gpudp_app_gpu_map_check(const char *v, unsigned int max_gpus, char *err, size_t errlen)
{
	const unsigned int n_ports = UINT16_MAX + 1u;
	int *map = malloc(n_ports * sizeof(*map));
	int rc;

	if (map == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = gpudp_mem_gpu_map_parse(v, n_ports, max_gpus, map, err, errlen);
	free(map);
	return rc == 0 ? 0 : -1;
}
