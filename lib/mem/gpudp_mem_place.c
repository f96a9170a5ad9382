/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which GPU for which port (gpudp_mem_gpu_place()): the closest in the
 * PCIe tree read from sysfs, as NVIDIA's GPUDirect RDMA guide ("Supported
 * Systems") ranks them: below one PCIe switch is best, through the CPU's
 * root complex worse, across CPU sockets worst. And the hand-made map of
 * --gpu-map (gpudp_mem_gpu_map_parse()).
 *
 * sysfs is read under $GPUDP_SYSFS_ROOT (default "/sys") so tests can
 * build a fake tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_errf.h"
#include "gpudp_mem.h"
#include "gpudp_mem_pvt.h"

#define MAX_COMP 64

/* a PCI device as sysfs shows it */
struct pci_dev {
	const char *pci;
	int found;              /* in sysfs, below a pciDDDD:BB root bus */
	char path[PATH_MAX];    /* split in place into comp[] */
	char *comp[MAX_COMP];
	int n;                  /* components */
	int root;               /* index of the root bus component */
	int numa;               /* numa_node; -1 unknown */
};

static void
pci_dev_read(struct pci_dev *d, const char *pci)
{
	char f[PATH_MAX + 16], line[32];
	char *save = NULL, *t, *end;
	long v;
	int i;

	memset(d, 0, sizeof(*d));
	d->pci = pci;
	d->numa = -1;
	d->root = -1;
	if (gpudp_mem_pci_path(pci, d->path) != 0)
		return;
	snprintf(f, sizeof(f), "%s/numa_node", d->path);
	if (gpudp_mem_read_line(f, line, sizeof(line)) == 0) {
		errno = 0;
		v = strtol(line, &end, 10);
		if (errno == 0 && end != line && v >= 0 && v <= INT_MAX)
			d->numa = (int)v;
	}
	for (t = strtok_r(d->path, "/", &save); t != NULL && d->n < MAX_COMP;
	     t = strtok_r(NULL, "/", &save))
		d->comp[d->n++] = t;
	for (i = 0; i < d->n; i++) {
		if (strncmp(d->comp[i], "pci", 3) == 0 && strchr(d->comp[i], ':') != NULL) {
			d->root = i;
			break;
		}
	}
	/* the device itself must be below the root bus */
	d->found = d->root >= 0 && d->root < d->n - 1;
}

/* links from a device up to its root complex */
static int
depth(const struct pci_dev *d)
{
	return d->n - 1 - d->root;
}

/* PCI devices above both (the devices themselves excluded), from the root bus down */
static int
common_bridges(const struct pci_dev *a, const struct pci_dev *b)
{
	int k = 0;

	while (a->root + 1 + k < a->n - 1 && b->root + 1 + k < b->n - 1 &&
	       strcmp(a->comp[a->root + 1 + k], b->comp[b->root + 1 + k]) == 0)
		k++;
	return k;
}

static enum gpudp_gpu_place_level
relation(const struct pci_dev *port, const struct pci_dev *gpu, int *hops)
{
	int k;

	*hops = -1;
	if (!port->found || !gpu->found)
		return GPUDP_GPU_PLACE_UNKNOWN;
	if (strcmp(port->comp[port->root], gpu->comp[gpu->root]) == 0) {
		k = common_bridges(port, gpu);
		*hops = depth(port) - k + depth(gpu) - k;
		return k >= 1 ? GPUDP_GPU_PLACE_SWITCH : GPUDP_GPU_PLACE_ROOT;
	}
	if (port->numa >= 0 && port->numa == gpu->numa)
		return GPUDP_GPU_PLACE_NUMA;
	return GPUDP_GPU_PLACE_CROSS;
}

/* higher is closer: the level, then (under a switch) fewer hops */
static int
rank(enum gpudp_gpu_place_level l, int hops)
{
	int r = (int)l * 1024;

	if (l == GPUDP_GPU_PLACE_SWITCH)
		r += 1023 - (hops < 1023 ? hops : 1023);
	return r;
}

/* append to buf[len] at *off, never past its end (cut, not overflowed) */
static void __attribute__((format(printf, 4, 5)))
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = *off + (size_t)n < len ? *off + (size_t)n : len;
}

/* "port > bridge > common < bridge < gpu" */
static void
pcie_path(const struct pci_dev *p, const struct pci_dev *g, char *buf, size_t len)
{
	int k = common_bridges(p, g), i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = p->n - 1; i > p->root + k; i--)
		put(buf, len, &off, "%s > ", p->comp[i]);
	put(buf, len, &off, "%s", p->comp[p->root + k]);
	for (i = g->root + k + 1; i < g->n; i++)
		put(buf, len, &off, " < %s", g->comp[i]);
}

static const char *
numa_str(int numa, char *buf, size_t len)
{
	if (numa < 0)
		return "unknown";
	snprintf(buf, len, "%d", numa);
	return buf;
}

static void
explain(const struct pci_dev *p, const struct pci_dev *g, struct gpudp_gpu_place *o)
{
	char path[1024], tie[96] = "", na[16], ng[16];
	size_t off = 0;

	if (o->tied > 1)
		snprintf(tie, sizeof(tie),
			 " (%u GPUs equally close: fewest ports, then lowest index)", o->tied);
	switch (o->level) {
	case GPUDP_GPU_PLACE_SWITCH:
		pcie_path(p, g, path, sizeof(path));
		put(o->reason, sizeof(o->reason), &off,
			 "one PCIe switch below root port %s, %d hops%s: %s",
			 p->comp[p->root + 1], o->hops, tie, path);
		break;
	case GPUDP_GPU_PLACE_ROOT:
		pcie_path(p, g, path, sizeof(path));
		put(o->reason, sizeof(o->reason), &off,
			 "only the root complex in common (peer traffic through the CPU), "
			 "%d hops%s: %s", o->hops, tie, path);
		break;
	case GPUDP_GPU_PLACE_NUMA:
		put(o->reason, sizeof(o->reason), &off,
			 "same NUMA node %d, different root complexes%s: port %s on %s, "
			 "GPU %s on %s", p->numa, tie, p->pci, p->comp[p->root], g->pci,
			 g->comp[g->root]);
		break;
	case GPUDP_GPU_PLACE_CROSS:
		put(o->reason, sizeof(o->reason), &off,
			 "different root complexes and NUMA nodes, across the CPU "
			 "interconnect%s: port %s on %s NUMA node %s, GPU %s on %s NUMA node %s",
			 tie, p->pci, p->comp[p->root], numa_str(p->numa, na, sizeof(na)),
			 g->pci, g->comp[g->root], numa_str(g->numa, ng, sizeof(ng)));
		break;
	default:
		if (!p->found && !g->found)
			put(o->reason, sizeof(o->reason), &off,
			    "no PCIe path known: port %s and GPU %s are not PCI devices in %s%s",
			    p->pci, g->pci, gpudp_mem_sysfs(), tie);
		else
			put(o->reason, sizeof(o->reason), &off,
			    "no PCIe path known: %s %s is not a PCI device in %s%s",
			    p->found ? "GPU" : "port", p->found ? g->pci : p->pci,
			    gpudp_mem_sysfs(), tie);
	}
}

/* a port's best rank and how many GPUs reach it */
struct port_best {
	unsigned int port;
	int rank;
	unsigned int tied;
};

static int
by_fewest_ties(const void *a, const void *b)
{
	const struct port_best *x = a, *y = b;

	if (x->tied != y->tied)
		return x->tied < y->tied ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

int
gpudp_mem_gpu_place(const char *const *ports, unsigned int n_ports,
		    const char *const *gpus, unsigned int n_gpus,
		    struct gpudp_gpu_place *out)
{
	struct pci_dev *dev = NULL;
	struct port_best *best = NULL;
	unsigned int *load = NULL, i, j, pi;
	int *rk = NULL, rc = 0, hops;
	unsigned int n_dev;

	if (ports == NULL || gpus == NULL || out == NULL || n_ports == 0 || n_gpus == 0)
		return -EINVAL;
	for (i = 0; i < n_ports; i++)
		if (ports[i] == NULL || ports[i][0] == '\0' || strchr(ports[i], '/') != NULL)
			return -EINVAL;
	for (j = 0; j < n_gpus; j++)
		if (gpus[j] == NULL || gpus[j][0] == '\0' || strchr(gpus[j], '/') != NULL)
			return -EINVAL;
	if (n_gpus > UINT_MAX - n_ports ||
	    (size_t)n_gpus > SIZE_MAX / sizeof(int) / n_ports)
		return -ENOMEM;
	n_dev = n_ports + n_gpus;
	dev = calloc(n_dev, sizeof(*dev));
	best = calloc(n_ports, sizeof(*best));
	load = calloc(n_gpus, sizeof(*load));
	rk = calloc((size_t)n_ports * n_gpus, sizeof(*rk));
	if (dev == NULL || best == NULL || load == NULL || rk == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n_ports; i++)
		pci_dev_read(&dev[i], ports[i]);
	for (j = 0; j < n_gpus; j++)
		pci_dev_read(&dev[n_ports + j], gpus[j]);
	for (i = 0; i < n_dev; i++)
		if (!dev[i].found)
			rc = -ENOENT;

	/* every pair's rank; each port's best and how many GPUs share it */
	for (i = 0; i < n_ports; i++) {
		best[i].port = i;
		best[i].rank = -1;
		for (j = 0; j < n_gpus; j++) {
			enum gpudp_gpu_place_level l = relation(&dev[i], &dev[n_ports + j], &hops);
			int r = rank(l, hops);

			rk[(size_t)i * n_gpus + j] = r;
			if (r > best[i].rank) {
				best[i].rank = r;
				best[i].tied = 1;
			} else if (r == best[i].rank) {
				best[i].tied++;
			}
		}
	}
	/* ports with fewer choices first, then in the order given */
	qsort(best, n_ports, sizeof(*best), by_fewest_ties);

	for (pi = 0; pi < n_ports; pi++) {
		unsigned int p = best[pi].port, pick = n_gpus;
		struct gpudp_gpu_place *o = &out[p];
		const struct pci_dev *g;

		for (j = 0; j < n_gpus; j++)
			if (rk[(size_t)p * n_gpus + j] == best[pi].rank &&
			    (pick == n_gpus || load[j] < load[pick]))
				pick = j;
		load[pick]++;
		g = &dev[n_ports + pick];
		memset(o, 0, sizeof(*o));
		o->gpu = pick;
		o->level = relation(&dev[p], g, &o->hops);
		o->port_numa = dev[p].numa;
		o->gpu_numa = g->numa;
		o->tied = best[pi].tied;
		explain(&dev[p], g, o);
	}
out:
	free(rk);
	free(load);
	free(best);
	free(dev);
	return rc;
}

const char *
gpudp_gpu_place_level_name(enum gpudp_gpu_place_level l)
{
	static const char *const n[] = {
		[GPUDP_GPU_PLACE_UNKNOWN] = "unknown",
		[GPUDP_GPU_PLACE_CROSS] = "cross",
		[GPUDP_GPU_PLACE_NUMA] = "numa",
		[GPUDP_GPU_PLACE_ROOT] = "root-complex",
		[GPUDP_GPU_PLACE_SWITCH] = "switch",
	};

	return (unsigned int)l < sizeof(n) / sizeof(n[0]) ? n[l] : "?";
}

/* ---- --gpu-map PORT:GPU,... ---- */

/* [s, s + n) as a decimal number; -EINVAL not one, -ERANGE over UINT_MAX */
static int
parse_index(const char *s, size_t n, unsigned int *v)
{
	unsigned long long x = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	for (i = 0; i < n; i++) {
		x = x * 10 + (unsigned int)(s[i] - '0');
		if (x > UINT_MAX)
			return -ERANGE;
	}
	*v = (unsigned int)x;
	return 0;
}

int
gpudp_mem_gpu_map_parse(const char *s, unsigned int n_ports, unsigned int n_gpus,
			int *map, char *err, size_t len)
{
	const char *p = s, *tok, *colon;
	unsigned int port, gpu, i;
	int *tmp, r, rc = -EINVAL;
	size_t tl, gl;

	if (err != NULL && len > 0)
		err[0] = '\0';
	if (s == NULL || map == NULL || n_ports == 0 || n_gpus == 0 || n_gpus > INT_MAX) {
		gpudp_errf(err, len, "no GPU map, ports or GPUs");
		return -EINVAL;
	}
	if (s[0] == '\0') {
		gpudp_errf(err, len, "empty GPU map (want PORT:GPU,...)");
		return -EINVAL;
	}
	tmp = malloc(n_ports * sizeof(*tmp));
	if (tmp == NULL) {
		gpudp_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n_ports; i++)
		tmp[i] = -1;
	for (;;) {
		tok = p;
		tl = strcspn(p, ",");
		if (tl == 0) {
			gpudp_errf(err, len, "empty entry at offset %zu of '%s' (want PORT:GPU,...)",
				(size_t)(tok - s), s);
			goto fail;
		}
		colon = memchr(tok, ':', tl);
		if (colon == NULL) {
			gpudp_errf(err, len, "'%.*s': want PORT:GPU", (int)tl, tok);
			goto fail;
		}
		gl = tl - (size_t)(colon + 1 - tok);
		r = parse_index(tok, (size_t)(colon - tok), &port);
		if (r == -EINVAL) {
			gpudp_errf(err, len, "'%.*s': port '%.*s' is not a decimal number",
				(int)tl, tok, (int)(colon - tok), tok);
			goto fail;
		}
		if (r != 0 || port >= n_ports) {
			gpudp_errf(err, len, "'%.*s': port %.*s out of range (%u ports: 0..%u)",
				(int)tl, tok, (int)(colon - tok), tok, n_ports, n_ports - 1);
			goto fail;
		}
		r = parse_index(colon + 1, gl, &gpu);
		if (r == -EINVAL) {
			gpudp_errf(err, len, "'%.*s': GPU '%.*s' is not a decimal number",
				(int)tl, tok, (int)gl, colon + 1);
			goto fail;
		}
		if (r != 0 || gpu >= n_gpus) {
			gpudp_errf(err, len, "'%.*s': GPU %.*s out of range (%u GPUs: 0..%u)",
				(int)tl, tok, (int)gl, colon + 1, n_gpus, n_gpus - 1);
			goto fail;
		}
		if (tmp[port] >= 0) {
			gpudp_errf(err, len, "'%.*s': port %u given twice (already on GPU %d)",
				(int)tl, tok, port, tmp[port]);
			goto fail;
		}
		tmp[port] = (int)gpu;
		p += tl;
		if (*p == '\0')
			break;
		p++;
	}
	memcpy(map, tmp, n_ports * sizeof(*tmp));
	rc = 0;
fail:
	free(tmp);
	return rc;
}
