/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "span" (test/lib/handoff/works-gpu): reads only its span (the
 * first SPAN_BYTES bytes of a frame) and writes nothing, as the capture
 * analysis does. Its result: the sum and the count of the bytes it reads,
 * the frame's length and the packet's metadata, so that a test can tell
 * what reached the work in each mode. Counter "pkts".
 */
#ifndef SPAN_WORK_H
#define SPAN_WORK_H

#include <gpudp_work.h>

#define SPAN_BYTES 64u

struct span_result {
	uint32_t sum, seen, pkt_len, wire_len;
	uint64_t ts_ns;
	uint32_t mark, pad;
};

GPUDP_WORK_FN uint32_t
span_pkt(struct gpudp_work_pkt *p)
{
	struct span_result *r = (struct span_result *)p->result;
	uint32_t i, n = p->seg_len[0] < SPAN_BYTES ? p->seg_len[0] : SPAN_BYTES, sum = 0;

	for (i = 0; i < n; i++)
		sum += p->seg[0][i];
	r->sum = sum;
	r->seen = n;
	r->pkt_len = p->pkt_len;
	r->wire_len = p->meta != NULL ? p->meta->wire_len : 0;
	r->ts_ns = p->meta != NULL ? p->meta->ts_ns : 0;
	r->mark = p->meta != NULL ? p->meta->mark : 0;
	r->pad = 0;
	gpudp_work_count(p, 0, 1);
	return GPUDP_WORK_PASS;
}

#endif
