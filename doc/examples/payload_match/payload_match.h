/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * payload_match: an example gpudp work (README.md). It counts the
 * occurrences of up to PAYLOAD_MATCH_MAX byte patterns anywhere in each
 * packet's payload and drops the packets that contain a pattern of the
 * block list.
 *
 * This header holds what the CPU form (payload_match.c) and the GPU form
 * (payload_match.cu) share: the parameter block, the names, and the
 * per-packet function, written once with GPUDP_WORK_FN (static inline in
 * C, __host__ __device__ under nvcc). It uses only inline code of the
 * installed SDK headers: the work's shared object links no gpudp library.
 *
 * The payload of a packet:
 * - TCP or UDP over IPv4 or IPv6 (after VLAN tags, an LLC/SNAP header or
 *   a PPPoE session header, and IPv4's or IPv6's extension headers, AH
 *   included) whose headers are complete and valid: the bytes after the
 *   TCP header (its data offset) or the UDP header, up to the end of the IP
 *   datagram (its total or payload length), or of the frame if that comes
 *   first: Ethernet padding is not payload;
 * - any other frame (ARP, ICMP, a non-first IP fragment, a truncated or
 *   malformed header, a TCP data offset under 5 or past the datagram...):
 *   every byte after the layer 2 headers (Ethernet, its VLAN tags, LLC/SNAP
 *   or PPPoE where IP follows them), up to the end of the frame; nothing
 *   when the Ethernet header or a tag is cut short.
 * The headers are parsed (gpudp_pkt_parse()) in the first segment, where
 * gpudp puts them (a header/data split delivers the headers in segment 0).
 * A frame whose headers run past its first segment is a frame with
 * incomplete headers: the second rule applies. The payload itself is
 * scanned across every segment, and a pattern may straddle a segment
 * boundary.
 *
 * The matcher is a plain multi-pattern scan: at each payload offset, each
 * pattern whose first byte matches is compared in full. Occurrences may
 * overlap ("aa" occurs 3 times in "aaaa"). The work costs
 * O(payload x patterns) byte compares in the worst case; it is an example
 * of the API, not a fast matcher.
 */
#ifndef PAYLOAD_MATCH_H
#define PAYLOAD_MATCH_H

#include <stdint.h>

#include <gpudp_analysis_pkt.h>
#include <gpudp_work.h>

/** The work's name (gpudp-fwd --json "work", logs). */
#define PAYLOAD_MATCH_NAME "payload_match"
/** Most patterns. */
#define PAYLOAD_MATCH_MAX 8
/** Longest pattern, bytes. */
#define PAYLOAD_MATCH_LEN_MAX 32

/** Verdicts: pass, or drop reason 1. */
enum payload_match_verdict {
	PAYLOAD_MATCH_PASS = GPUDP_WORK_PASS,
	PAYLOAD_MATCH_BLOCKED = 1,  /**< a pattern of the block list was seen */
	PAYLOAD_MATCH_REASONS = 1,  /**< drop reasons: 1 .. this */
};

/** Names of the drop reasons 1 .. PAYLOAD_MATCH_REASONS. */
#define PAYLOAD_MATCH_REASON_NAMES { "blocked" }
/** Names of the counters: occurrences of pattern 0 .. 7 (0 when unused). */
#define PAYLOAD_MATCH_COUNTER_NAMES \
	{ "match0", "match1", "match2", "match3", "match4", "match5", "match6", "match7" }

/**
 * Parameter block, filled from --work-arg by payload_match_init() and
 * copied once to GPU memory.
 */
struct payload_match_params {
	uint32_t n;      /**< patterns, 1 .. PAYLOAD_MATCH_MAX */
	uint32_t block;  /**< bit k set: drop packets that contain pattern k */
	uint8_t len[PAYLOAD_MATCH_MAX];  /**< bytes of pattern k, 1 .. PAYLOAD_MATCH_LEN_MAX */
	uint8_t pat[PAYLOAD_MATCH_MAX][PAYLOAD_MATCH_LEN_MAX];  /**< the patterns' bytes */
};

/** Per-packet result (result_size 4): bit k set when pattern k was seen. */
typedef uint32_t payload_match_result;

/*
 * The payload of packet @p p (see the top of this file): bytes
 * [*start, *end) of the frame, empty when *start >= *end.
 */
GPUDP_WORK_FN void
payload_match_bounds(const struct gpudp_work_pkt *p, uint32_t *start, uint32_t *end)
{
	const uint8_t *h = p->seg[0];
	uint32_t len = p->seg_len[0], present = 0, l4, hl, s;
	struct gpudp_pkt_info pi;

	for (s = 0; s < p->nb_segs; s++)
		present += p->seg_len[s];
	*end = present;
	gpudp_pkt_parse(h, len, &pi);
	if (pi.status == GPUDP_PKT_OK && pi.af != 0 && pi.has_ports) {
		/* the parser checked the TCP header's data offset */
		l4 = pi.l4_off;
		hl = pi.l4proto == 6 ? (uint32_t)(h[l4 + 12] >> 4) * 4 : 8;
		*start = l4 + hl;
		if (pi.l3_off + pi.ip_len < *end)
			*end = pi.l3_off + pi.ip_len;
		return;
	}
	/* after the Ethernet header and its tags; l3_off is 0 when they
	 * are cut short (or too many) */
	*start = pi.l3_off != 0 ? pi.l3_off : present;
}

/*
 * Whether pattern @p pat (@p n bytes) is at the packet's position given by
 * segment @p seg, offset @p off; the caller made sure that the n bytes from
 * there are present.
 */
GPUDP_WORK_FN int
payload_match_at(const struct gpudp_work_pkt *p, uint32_t seg, uint32_t off,
		 const uint8_t *pat, uint32_t n)
{
	uint32_t j;

	for (j = 0; j < n; j++) {
		while (off >= p->seg_len[seg]) {  /* into the next segment */
			off -= p->seg_len[seg];
			seg++;
		}
		if (p->seg[seg][off] != pat[j])
			return 0;
		off++;
	}
	return 1;
}

/**
 * The work's per-packet function: count each pattern's occurrences in the
 * payload, write the mask of the patterns seen as the result (every
 * packet), and drop the packet if one of them is on the block list.
 */
GPUDP_WORK_FN uint32_t
payload_match_pkt(struct gpudp_work_pkt *p)
{
	const struct payload_match_params *prm = (const struct payload_match_params *)p->params;
	uint32_t cnt[PAYLOAD_MATCH_MAX];
	uint32_t start, end, pos, seg, off, k, n = prm->n, seen = 0;

	if (n > PAYLOAD_MATCH_MAX)
		n = PAYLOAD_MATCH_MAX;
	for (k = 0; k < PAYLOAD_MATCH_MAX; k++)
		cnt[k] = 0;
	payload_match_bounds(p, &start, &end);
	/* frame byte pos is byte off of segment seg (end <= the bytes present) */
	seg = 0;
	off = start;
	for (pos = start; pos < end; pos++) {
		uint8_t c;

		while (off >= p->seg_len[seg]) {
			off -= p->seg_len[seg];
			seg++;
		}
		c = p->seg[seg][off];
		for (k = 0; k < n; k++)
			if (prm->pat[k][0] == c && prm->len[k] <= end - pos &&
			    payload_match_at(p, seg, off, prm->pat[k], prm->len[k]))
				cnt[k]++;
		off++;
	}
	for (k = 0; k < n; k++)
		if (cnt[k] != 0) {
			gpudp_work_count(p, k, cnt[k]);
			seen |= 1u << k;
		}
	*(payload_match_result *)p->result = seen;
	return (seen & prm->block) != 0 ? PAYLOAD_MATCH_BLOCKED : PAYLOAD_MATCH_PASS;
}

#endif /* PAYLOAD_MATCH_H */
