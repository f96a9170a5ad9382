/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pin backend rule (gpudp_mem_pin_decide(), doc/pools.md "Pin
 * backends"): which backend a device pool uses, and why, from facts the
 * caller gathered. gpudp_pool_create() (gpudp_pin_backend_select()) and
 * gpudp_mem_pin_plan() both decide here, so what an app is told and what a
 * pool does cannot differ. No I/O, no DPDK: tests give the facts by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gpudp_errf.h>
#include <gpudp_pin_client.h>

#include "gpudp_mem.h"

/* "" if the module opened, else why not */
static void
module_why(const struct gpudp_mem_pin_facts *f, char *why, size_t len)
{
	if (f->module >= 0) {
		why[0] = '\0';
		return;
	}
	gpudp_errf(why, len, "%s cannot be opened: %s%s", GPUDP_PIN_DEVICE_PATH,
		   f->module == -EPROTO ? gpudp_pin_strerror(f->module) : strerror(-f->module),
		   f->module == -ENOENT ? " (is the gpudp_pin module loaded?)" : "");
}

/* "" if the dmabuf backend is usable, else why not */
static void
dmabuf_why(const struct gpudp_mem_pin_facts *f, char *why, size_t len)
{
	module_why(f, why, len);
	if (why[0] != '\0')
		return;
	if (!(f->caps & GPUDP_PIN_CAP_DMABUF))
		gpudp_errf(why, len, "the gpudp_pin module has no dma-buf import "
			   "(GPUDP_PIN_CAP_DMABUF)");
	else if (f->exporter == NULL)
		gpudp_errf(why, len, "%s", f->no_export != NULL ? f->no_export :
			   "the allocator cannot export dma-bufs");
}

static const char *
peermem_why(const struct gpudp_mem_pin_facts *f)
{
	return f->no_peermem != NULL ? f->no_peermem : "peermem needs mlx5 ports";
}

int
gpudp_mem_pin_decide(enum gpudp_pin_backend want, const struct gpudp_mem_pin_facts *f,
		     enum gpudp_pin_backend *chosen, char *why, size_t len)
{
	char no_mod[200], no_dma[240];

	module_why(f, no_mod, sizeof(no_mod));
	dmabuf_why(f, no_dma, sizeof(no_dma));
	*chosen = want;
	switch (want) {
	case GPUDP_PIN_DMABUF:
		if (no_dma[0] != '\0') {
			gpudp_errf(why, len, "%s", no_dma);
			return -ENOTSUP;
		}
		gpudp_errf(why, len, "dmabuf: %s imports dma-bufs and %s exports them",
			   GPUDP_PIN_DEVICE_PATH, f->exporter);
		return 0;
	case GPUDP_PIN_KMOD:
		if (no_mod[0] != '\0') {
			gpudp_errf(why, len, "%s", no_mod);
			return -ENOTSUP;
		}
		gpudp_errf(why, len, "kmod: %s opened", GPUDP_PIN_DEVICE_PATH);
		return 0;
	case GPUDP_PIN_PEERMEM:
		if (f->peermem == 0) {
			gpudp_errf(why, len, "%s", peermem_why(f));
			return -ENOTSUP;
		}
		gpudp_errf(why, len, "%s", f->peermem > 0 ?
			   "peermem: every port is mlx5 (nvidia-peermem pins)" :
			   "peermem: no pin here (the PMD registers the memory: mlx5 and "
			   "nvidia-peermem)");
		return 0;
	case GPUDP_PIN_AUTO:
		break;
	default:
		gpudp_errf(why, len, "unknown pin backend %d", (int)want);
		return -EINVAL;
	}
	/* auto: dmabuf, else kmod, else peermem */
	if (no_dma[0] == '\0') {
		*chosen = GPUDP_PIN_DMABUF;
		gpudp_errf(why, len, "dmabuf (auto: %s imports dma-bufs and %s exports them)",
			   GPUDP_PIN_DEVICE_PATH, f->exporter);
		return 0;
	}
	if (no_mod[0] == '\0') {
		*chosen = GPUDP_PIN_KMOD;
		gpudp_errf(why, len, "kmod (auto: %s opened; not dmabuf: %s)",
			   GPUDP_PIN_DEVICE_PATH, no_dma);
		return 0;
	}
	*chosen = GPUDP_PIN_PEERMEM;
	if (f->peermem != 0) {
		gpudp_errf(why, len, "peermem (auto: %snot kmod: %s)",
			   f->peermem > 0 ? "every port is mlx5; " : "", no_mod);
		return 0;
	}
	gpudp_errf(why, len, "no pin backend: %s; and %s", no_mod, peermem_why(f));
	return -ENOTSUP;
}
