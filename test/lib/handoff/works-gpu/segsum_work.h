/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "segsum" (test/lib/handoff/works-gpu): sees a packet as its segments (header/data
 * split: headers in pinned host memory, payload in GPU memory). Its result:
 * the sum of every byte over all segments, the segment count, the frame
 * length and the last byte of the last segment as read; then it increments
 * that byte (a write into the payload segment). Counter "segs": segments.
 */
#ifndef SEGSUM_WORK_H
#define SEGSUM_WORK_H

#include <gpudp_work.h>

struct segsum_result {
	uint32_t sum, nb_segs, pkt_len, last;
};

GPUDP_WORK_FN uint32_t
segsum_pkt(struct gpudp_work_pkt *p)
{
	struct segsum_result *r = (struct segsum_result *)p->result;
	uint32_t s, i, sum = 0, off = 0, avail = 0;
	uint8_t *last;

	for (s = 0; s < p->nb_segs; s++)
		for (i = 0; i < p->seg_len[s]; i++)
			sum += p->seg[s][i];
	/* the same bytes through gpudp_work_at(), one contiguous run at a time */
	while (off < p->pkt_len && gpudp_work_at(p, off, &avail) != NULL)
		off += avail;
	r->sum = off == p->pkt_len ? sum : 0;
	r->nb_segs = p->nb_segs;
	r->pkt_len = p->pkt_len;
	last = p->seg[p->nb_segs - 1] + p->seg_len[p->nb_segs - 1] - 1;
	r->last = *last;
	*last = (uint8_t)(*last + 1);
	gpudp_work_count(p, 0, p->nb_segs);
	return GPUDP_WORK_PASS;
}

#endif
