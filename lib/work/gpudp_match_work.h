/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Payload matching as a work (gpudp_work.h): the built-in work `match`
 * scans each packet's L4 payload (or, on request, the whole frame) for a
 * set of byte patterns (gpudp_match.h, doc/match.md) on the CPU or the GPU
 * with the same code, and drops the packets that match (a block list), or
 * only counts them.
 *
 * - Argument (`--work-arg`): `FILE[,scope=payload|frame][,action=drop|count]`,
 *   FILE a pattern file (doc/match.md); scope `payload` (the default) is
 *   the L4 payload as gpudp_pkt_payload() defines it, `frame` every byte of
 *   the frame; action `drop` (the default) drops matching packets with the
 *   reason `matched`, `count` passes them.
 * - Table: the compiled database (struct gpudp_match_db), built by init,
 *   copied into GPU memory by the handoff in the GPU modes.
 * - Counters: enum gpudp_match_work_counter.
 * - The packet is scanned in its first segment: bytes in further segments
 *   (a split pool) are not, and the packet is counted in `partial`.
 */
#ifndef GPUDP_MATCH_WORK_H
#define GPUDP_MATCH_WORK_H

#include <stdint.h>

#include "gpudp_pkt_parse.h"
#include "gpudp_match.h"
#include "gpudp_work.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The work's name (gpudp_work_find()). */
#define GPUDP_MATCH_WORK_NAME "match"
/** Parameter flag: scan the whole frame, not the L4 payload. */
#define GPUDP_MATCH_WORK_FRAME 1u
/** Parameter flag: pass matching packets (count only). */
#define GPUDP_MATCH_WORK_COUNT 2u
/** Verdict of a matching packet (action drop): reason `matched`. */
#define GPUDP_MATCH_WORK_MATCHED 1u

/** The work's counters, in order. */
enum gpudp_match_work_counter {
	GPUDP_MATCH_WORK_SCANNED = 0,  /**< packets scanned */
	GPUDP_MATCH_WORK_BYTES,        /**< bytes scanned */
	GPUDP_MATCH_WORK_PKTS_MATCHED, /**< packets with at least one occurrence */
	GPUDP_MATCH_WORK_OCCURRENCES,  /**< occurrences of any pattern */
	GPUDP_MATCH_WORK_PARTIAL,      /**< packets longer than their first segment */
	GPUDP_MATCH_WORK_COUNTERS
};

/** The parameter block. */
struct gpudp_match_work_params {
	uint64_t db;       /**< table 0: the database (host or GPU address) */
	uint64_t db_size;  /**< its bytes */
	uint32_t flags;    /**< GPUDP_MATCH_WORK_FRAME, GPUDP_MATCH_WORK_COUNT */
	uint32_t pad;
};

/** The per-packet function: scan, count, and the verdict. */
GPUDP_WORK_FN uint32_t
gpudp_match_work_pkt(struct gpudp_work_pkt *pkt)
{
	const struct gpudp_match_work_params *pr =
		(const struct gpudp_match_work_params *)pkt->params;
	const struct gpudp_match_db *db = (const struct gpudp_match_db *)(uintptr_t)pr->db;
	const uint8_t *d = pkt->seg[0];
	uint32_t caplen = pkt->seg_len[0], off = 0, len = caplen;
	uint64_t occ;

	if (db == NULL)
		return GPUDP_WORK_PASS;
	if ((pr->flags & GPUDP_MATCH_WORK_FRAME) == 0) {
		struct gpudp_pkt_info pi;

		gpudp_pkt_parse(d, caplen, &pi);
		off = gpudp_pkt_payload(d, caplen, &pi, &len);
	}
	if (pkt->pkt_len > caplen)
		gpudp_work_count(pkt, GPUDP_MATCH_WORK_PARTIAL, 1);
	gpudp_work_count(pkt, GPUDP_MATCH_WORK_SCANNED, 1);
	gpudp_work_count(pkt, GPUDP_MATCH_WORK_BYTES, len);
	occ = len != 0 ? gpudp_match_scan(db, d + off, len, NULL, NULL) : 0;
	if (occ == 0)
		return GPUDP_WORK_PASS;
	gpudp_work_count(pkt, GPUDP_MATCH_WORK_PKTS_MATCHED, 1);
	gpudp_work_count(pkt, GPUDP_MATCH_WORK_OCCURRENCES, occ);
	return (pr->flags & GPUDP_MATCH_WORK_COUNT) != 0 ? GPUDP_WORK_PASS :
		GPUDP_MATCH_WORK_MATCHED;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_MATCH_WORK_H */
