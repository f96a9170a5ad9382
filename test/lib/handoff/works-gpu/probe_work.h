/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "probe" (test/lib/handoff/works-gpu): a work built like any user's, outside the
 * library, loaded from its shared object. It swaps the MAC addresses (so
 * the ordering test can tell fresh bytes from stale ones, as with the
 * built-in macswap), returns the packet's first 4 bytes as read before the
 * swap as its result, counts packets and bytes, and drops frames shorter
 * than 14 bytes as "short".
 */
#ifndef PROBE_WORK_H
#define PROBE_WORK_H

#include <gpudp_work.h>

GPUDP_WORK_FN uint32_t
probe_pkt(struct gpudp_work_pkt *p)
{
	uint8_t *d = p->seg[0], t[12];
	uint32_t i;

	gpudp_work_count(p, 0, 1);
	gpudp_work_count(p, 1, p->pkt_len);
	if (p->seg_len[0] < 14) {
		*(uint32_t *)p->result = 0;
		return 1;
	}
	for (i = 0; i < 12; i++)
		t[i] = d[i];
	*(uint32_t *)p->result = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
				 (uint32_t)t[3] << 24;
	for (i = 0; i < 6; i++) {
		d[i] = t[6 + i];
		d[6 + i] = t[i];
	}
	return GPUDP_WORK_PASS;
}

#endif
