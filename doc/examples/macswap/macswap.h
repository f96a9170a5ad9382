/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The smallest useful work: swap the Ethernet destination and source
 * addresses of each frame, drop frames under 14 bytes as "truncated". The
 * same body as gpudp's built-in macswap, built outside gpudp from the
 * installed SDK: gpudp's benchmark compares the two (doc/work.md).
 */
#ifndef EXAMPLE_MACSWAP_H
#define EXAMPLE_MACSWAP_H

#include <gpudp_work.h>

#define MACSWAP_TRUNCATED 1u

GPUDP_WORK_FN uint32_t
macswap_pkt(struct gpudp_work_pkt *p)
{
	uint8_t *d = p->seg[0], t[12];
	uint32_t i;

	if (p->seg_len[0] < 14)
		return MACSWAP_TRUNCATED;
	/* every load before any store: across PCIe (pinned packets) the
	 * twelve loads cost one round trip */
	for (i = 0; i < 12; i++)
		t[i] = d[i];
	for (i = 0; i < 6; i++) {
		d[i] = t[6 + i];
		d[6 + i] = t[i];
	}
	return GPUDP_WORK_PASS;
}

#endif /* EXAMPLE_MACSWAP_H */
