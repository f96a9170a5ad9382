/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "unit_good", CPU only, exported as a user's work is: swaps the
 * MAC addresses of frames of 14 bytes or more and drops shorter ones
 * ("short"); counts packets and bytes; its result is the frame's length.
 */
#include <gpudp_work.h>

GPUDP_WORK_FN uint32_t
good_pkt(struct gpudp_work_pkt *p)
{
	uint8_t t[6];

	gpudp_work_count(p, 0, 1);
	gpudp_work_count(p, 1, p->pkt_len);
	*(uint32_t *)p->result = p->pkt_len;
	if (p->seg_len[0] < 14)
		return 1;
	memcpy(t, p->seg[0], 6);
	memmove(p->seg[0], p->seg[0] + 6, 6);
	memcpy(p->seg[0] + 6, t, 6);
	return GPUDP_WORK_PASS;
}

GPUDP_WORK_CPU(good_cpu, good_pkt)

static const char *const reasons[] = { "short" };
static const char *const counters[] = { "pkts", "bytes" };

static const struct gpudp_work good = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "unit_good", .summary = "TEST: macswap, drops runts, counts",
	.span = 14, .wspan = 12, .result_size = sizeof(uint32_t),
	.n_reasons = 1, .reasons = reasons, .n_counters = 2, .counters = counters,
	.cpu = good_cpu,
};

GPUDP_WORK_EXPORT(good)
