/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the gpudp_pin module's ioctl argument checks
 * (kmod/gpudp_pin_args.h), the part of its ioctl decoding that depends on no
 * kernel state, built in user space from the module's own header. The first
 * input byte picks the ioctl, the rest fills its argument struct (zero
 * padded). Every answer is compared with an oracle computed here in 128-bit
 * arithmetic, so a check that lets a range wrap, or refuses a good one,
 * fails; the sanitizers catch any overflow in the checks themselves.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_pin_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_pin_ioctl: %s\n", #c); abort(); } } while (0)

typedef unsigned __int128 u128;

#define PAGE ((u128)GPUDP_PIN_GPU_PAGE_SIZE)
#define TOP ((u128)1 << 64)

/* PIN rounds to @page: 64 KiB, or 4 KiB for the Tegra NV-P2P API. */
static void
pin(const struct gpudp_pin_pin *a, __u64 page)
{
	const u128 g = page;
	__u64 start = 1, end = 1;
	int rc = gpudp_pin_args_pin(a, page, &start, &end);
	u128 s = (u128)a->va / g * g;
	u128 e = ((u128)a->va + a->len + g - 1) / g * g;
	int want;

	if (a->flags & ~GPUDP_PIN_F_ALL || a->pad || a->len == 0 ||
	    ((a->flags & GPUDP_PIN_F_STRICT) && ((a->va | a->len) % g)))
		want = -EINVAL;
	else if (e >= TOP)   /* the rounded end must be representable */
		want = -EOVERFLOW;
	else
		want = 0;
	CHECK(rc == want);
	if (rc != 0)
		return;
	CHECK(start == s && end == e);
	CHECK(start % g == 0 && end % g == 0 && start < end);
	CHECK(start <= a->va && (u128)a->va + a->len <= end);
	CHECK(end - start < (u128)a->len + 2 * g);
}

static void
dmabuf(const struct gpudp_pin_dmabuf *a)
{
	int rc = gpudp_pin_args_dmabuf(a), want;

	if (a->flags & ~GPUDP_PIN_DMABUF_F_ALL || a->pad0 ||
	    (!(a->flags & GPUDP_PIN_DMABUF_F_PCI) && (a->pci_domain || a->pci_bus ||
						       a->pci_devfn)) ||
	    a->len == 0 || (a->offset % PAGE) || (a->len % PAGE))
		want = -EINVAL;
	else if ((u128)a->offset + a->len >= TOP)
		want = -EOVERFLOW;
	else
		want = 0;
	CHECK(rc == want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		struct gpudp_pin_pin pin;
		struct gpudp_pin_table table;
		struct gpudp_pin_map_peer peer;
		struct gpudp_pin_dmabuf dmabuf;
		uint8_t raw[64];
	} u;

	if (size < 1)
		return 0;
	memset(&u, 0, sizeof(u));
	memcpy(u.raw, data + 1, size - 1 < sizeof(u.raw) ? size - 1 : sizeof(u.raw));
	switch (data[0] % 4) {
	case 0:
		pin(&u.pin, GPUDP_PIN_GPU_PAGE_SIZE);
		pin(&u.pin, GPUDP_PIN_TEGRA_PAGE_SIZE);
		break;
	case 1:
		CHECK(gpudp_pin_args_table(&u.table) == (u.table.pad ? -EINVAL : 0));
		break;
	case 2:
		CHECK(gpudp_pin_args_map_peer(&u.peer) ==
		      (u.peer.pad0 || u.peer.pad1 ? -EINVAL : 0));
		break;
	default:
		dmabuf(&u.dmabuf);
		break;
	}
	return 0;
}
