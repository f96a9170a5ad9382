/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Rules as a work (gpudp_work.h, doc/rules.md "In gpudp-fwd"): the
 * built-in work `rules` checks each packet against a set of
 * Suricata-style content rules (gpudp_rules_img.h) on the CPU or the GPU
 * with the same code, drops the packets a `drop` rule matches and counts
 * those `alert` rules match.
 * - Argument (`--work-arg`): `FILE[,vars=FILE][,unsupported=refuse|skip]`:
 *   the rule file, its variables ($HOME_NET, ...), and what a keyword
 *   outside the subset does (refuse, the default: the work does not start;
 *   skip: the rule is left out, said once per keyword).
 * - Table: the rules' image, built by init, copied into GPU memory by the
 *   handoff in the GPU modes.
 * - Counters: enum gpudp_rules_work_counter.
 * - The packet is checked in its first segment: bytes in further segments
 *   (a split pool) are not, and the packet is counted in `partial`.
 * - Its GPU form keeps GPUDP_RULES_SCRATCH_WORDS words of local memory a
 *   thread.
 */
#ifndef GPUDP_RULES_WORK_H
#define GPUDP_RULES_WORK_H

#include <stdint.h>

#include "gpudp_pkt_parse.h"
#include "gpudp_rules_img.h"
#include "gpudp_rules_pkt.h"
#include "gpudp_work.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The work's name (gpudp_work_find()). */
#define GPUDP_RULES_WORK_NAME "rules"
/** Verdict of a packet a drop rule matches: reason `dropped_by_rule`. */
#define GPUDP_RULES_WORK_DROPPED 1u

/** The work's counters, in order. */
enum gpudp_rules_work_counter {
	GPUDP_RULES_WORK_INSPECTED = 0, /**< IP packets checked */
	GPUDP_RULES_WORK_BYTES,         /**< their payload bytes */
	GPUDP_RULES_WORK_ALERTED,       /**< packets some rule matched */
	GPUDP_RULES_WORK_ALERTS,        /**< rules matched, over every packet */
	GPUDP_RULES_WORK_DROPS,         /**< packets a drop rule matched (dropped) */
	GPUDP_RULES_WORK_PARTIAL,       /**< packets longer than their first segment */
	GPUDP_RULES_WORK_COUNTERS
};

/** The parameter block. */
struct gpudp_rules_work_params {
	uint64_t img;       /**< table 0: the rules' image (host or GPU address) */
	uint64_t img_size;  /**< its bytes */
};

/** The per-packet function: the rules, the counts, and the verdict. */
GPUDP_WORK_FN uint32_t
gpudp_rules_work_pkt(struct gpudp_work_pkt *pkt)
{
	const struct gpudp_rules_work_params *pr =
		(const struct gpudp_rules_work_params *)pkt->params;
	const struct gpudp_rules_img *img = (const struct gpudp_rules_img *)(uintptr_t)pr->img;
	const uint8_t *d = pkt->seg[0];
	uint32_t caplen = pkt->seg_len[0], off, len, n, actions = 0;
	uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
	struct gpudp_rules_out o;
	struct gpudp_pkt_info pi;
	struct gpudp_rule_pkt k;

	if (img == 0)
		return GPUDP_WORK_PASS;
	gpudp_pkt_parse(d, caplen, &pi);
	if (pi.af == 0)
		return GPUDP_WORK_PASS;
	if (pkt->pkt_len > caplen)
		gpudp_work_count(pkt, GPUDP_RULES_WORK_PARTIAL, 1);
	off = gpudp_pkt_payload(d, caplen, &pi, &len);
	gpudp_rule_pkt_of(&pi, &k);
	o.hits = 0;
	o.alerts = 0;
	o.list = 0;
	o.list_max = 0;
	o.actions = &actions;
	o.seq = 0;
	o.ts_ns = 0;
	gpudp_work_count(pkt, GPUDP_RULES_WORK_INSPECTED, 1);
	gpudp_work_count(pkt, GPUDP_RULES_WORK_BYTES, len);
	n = gpudp_rules_img_packet(img, &k, d + off, len, scratch, &o);
	if (n == 0)
		return GPUDP_WORK_PASS;
	gpudp_work_count(pkt, GPUDP_RULES_WORK_ALERTED, 1);
	gpudp_work_count(pkt, GPUDP_RULES_WORK_ALERTS, n);
	if (!(actions & (1u << GPUDP_RULE_DROP)))
		return GPUDP_WORK_PASS;
	gpudp_work_count(pkt, GPUDP_RULES_WORK_DROPS, 1);
	return GPUDP_RULES_WORK_DROPPED;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_RULES_WORK_H */
