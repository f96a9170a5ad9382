/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * gpudp_pin: checks of the ioctl arguments that do not depend on kernel
 * state, as pure functions on the uapi structs. The module calls them right
 * after copy_from_user(); test/fuzz builds the same header in user space
 * (libFuzzer, with -fsanitize=address,undefined) to check that no argument
 * makes the range arithmetic wrap.
 *
 * Each returns 0 or a negative errno, which the ioctl returns as is.
 */
#ifndef GPUDP_PIN_ARGS_H
#define GPUDP_PIN_ARGS_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <linux/types.h>
#endif

#include "include/uapi/gpudp_pin.h"

#define GPUDP_PIN_ARGS_PAGE_MASK	(GPUDP_PIN_GPU_PAGE_SIZE - 1)

/*
 * GPUDP_PIN_IOC_PIN: flags, padding, length; the range rounded out to
 * pages of @granule bytes (a power of two: 64 KiB, or 4 KiB for the Tegra
 * API) in *start (inclusive) and *end (exclusive). Only a range whose
 * rounding cannot wrap is accepted: @a->va + @a->len, then rounded up,
 * stays below 2^64.
 */
static inline int gpudp_pin_args_pin(const struct gpudp_pin_pin *a,
				     __u64 granule, __u64 *start, __u64 *end)
{
	__u64 mask = granule - 1;
	__u64 last;

	if (a->flags & ~GPUDP_PIN_F_ALL || a->pad || !a->len)
		return -EINVAL;
	if ((a->flags & GPUDP_PIN_F_STRICT) && ((a->va | a->len) & mask))
		return -EINVAL;
	/* last byte of the range; then its page must not be the top one */
	if (a->len - 1 > ~(__u64)0 - a->va)
		return -EOVERFLOW;
	last = a->va + (a->len - 1);
	if ((last | mask) == ~(__u64)0)
		return -EOVERFLOW;
	*start = a->va & ~mask;
	*end = (last | mask) + 1;
	return 0;
}

/* GPUDP_PIN_IOC_GET_TABLE: padding. */
static inline int gpudp_pin_args_table(const struct gpudp_pin_table *t)
{
	return t->pad ? -EINVAL : 0;
}

/* GPUDP_PIN_IOC_MAP_PEER: padding. */
static inline int gpudp_pin_args_map_peer(const struct gpudp_pin_map_peer *m)
{
	return m->pad0 || m->pad1 ? -EINVAL : 0;
}

/*
 * GPUDP_PIN_IOC_ATTACH_DMABUF: flags, padding, a PCI name only with
 * GPUDP_PIN_DMABUF_F_PCI, a non-empty 64 KiB-aligned range whose end
 * does not wrap.
 */
static inline int gpudp_pin_args_dmabuf(const struct gpudp_pin_dmabuf *a)
{
	if (a->flags & ~GPUDP_PIN_DMABUF_F_ALL || a->pad0 ||
	    (!(a->flags & GPUDP_PIN_DMABUF_F_PCI) &&
	     (a->pci_domain || a->pci_bus || a->pci_devfn)))
		return -EINVAL;
	if (!a->len || (a->offset | a->len) & GPUDP_PIN_ARGS_PAGE_MASK)
		return -EINVAL;
	if (a->offset + a->len < a->offset)
		return -EOVERFLOW;
	return 0;
}

#endif /* GPUDP_PIN_ARGS_H */
