/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST work "frame" (test/lib/handoff/works-gpu): its span is the whole
 * frame (span 0), so staged mode copies every byte of it into GPU memory;
 * it reads only the frame's last byte and writes nothing, so that the
 * staged-bandwidth benchmark (fwd_bench.c) measures the staging itself.
 * Verdict: pass when the whole frame is in its first segment, else "cut"
 * (not staged, or cut short). Counter "last": the sum of the last bytes of
 * the frames that passed (what the benchmark wrote there: those bytes
 * arrived).
 */
#ifndef FRAME_WORK_H
#define FRAME_WORK_H

#include <gpudp_work.h>

#define FRAME_CUT 1u

GPUDP_WORK_FN uint32_t
frame_pkt(struct gpudp_work_pkt *p)
{
	if (p->nb_segs != 1 || p->pkt_len == 0 || p->seg_len[0] != p->pkt_len)
		return FRAME_CUT;
	gpudp_work_count(p, 0, p->seg[0][p->pkt_len - 1]);
	return GPUDP_WORK_PASS;
}

#endif
