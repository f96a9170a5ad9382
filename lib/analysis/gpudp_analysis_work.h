/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The capture analysis as a work (gpudp_work.h): gpudp-capture hands its
 * batches to a handoff (gpudp_handoff.h) that runs this work, so its GPU
 * analysis uses the same in-flight ring, streams and ordering rule as
 * gpudp-fwd. The per-packet function is gpudp_an_account(), the code the
 * CPU engine runs (gpudp_analysis_pkt.h).
 *
 * - Parameters (struct gpudp_an_work_params), which the caller fills and
 *   passes as the handoff's parameter block (gpudp_handoff_conf.params):
 *   two read-only tables, the compiled filter and, for payload inspection,
 *   the pattern database (their host addresses: the handoff copies them
 *   where the work runs), and the work's state (gpudp_work.h, "state"),
 *   which the handoff allocates zeroed and which accumulates over the run:
 *   the flow table, the fragment table and the per-pattern counts (their
 *   sizes; address 0). At the end gpudp_handoff_collect() merges the state
 *   into a struct gpudp_analysis (struct gpudp_an_work_result).
 * - Counters: struct gpudp_an_counters, field by field
 *   (GPUDP_AN_WORK_COUNTERS of them): the handoff sums them over the
 *   bursts (gpudp_handoff_stats.counters), in the struct's layout.
 * - Metadata: each packet's timestamp and original length
 *   (gpudp_handoff_conf.meta; without it the timestamp is 0 and the
 *   original length the captured one).
 * - Verdict: GPUDP_WORK_PASS when the packet matches the filter,
 *   GPUDP_AN_WORK_UNMATCHED otherwise (with no filter, every packet).
 * - Bytes: the frame's first segment holds it whole (seg_len[0] bytes
 *   captured), or, where a handoff staged only the work's span, its
 *   first GPUDP_AN_SPAN bytes, pkt_len being the captured length. The
 *   headers are nearly always in the span; a frame whose headers run past
 *   it (long IPv6 extension chains) is read whole where it lies: its
 *   second segment must then be the rest of the frame, contiguous with
 *   its first byte (the producer described it as the frame's first
 *   seg_len[0] bytes and what follows them), which is how gpudp-capture
 *   describes frames. Without a second segment such a frame is counted
 *   from its span (truncated, as a capture cut short).
 * - Three descriptors: gpudp_analysis_work() declares the span
 *   GPUDP_AN_SPAN (the headers: only they are staged);
 *   gpudp_analysis_work_payload(), for payload inspection, whole frames;
 *   gpudp_analysis_work_rules(), for rules (doc/rules.md), whole frames.
 */
#ifndef GPUDP_ANALYSIS_WORK_H
#define GPUDP_ANALYSIS_WORK_H

#include <stdint.h>

#include "gpudp_analysis_pkt.h"
#include "gpudp_flow_scan.h"
#include "gpudp_work.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The work's name (gpudp_work_find()). */
#define GPUDP_AN_WORK_NAME "capture-analysis"
/** The same analysis with payload inspection (whole frames staged). */
#define GPUDP_AN_WORK_PAYLOAD_NAME "capture-analysis-payload"
/** The same analysis with rules (and payload inspection when asked). */
#define GPUDP_AN_WORK_RULES_NAME "capture-analysis-rules"
/** Bytes of each frame the analysis reads without payload inspection: its span. */
#define GPUDP_AN_SPAN 128u
/** Its counters: the fields of struct gpudp_an_counters. */
#define GPUDP_AN_WORK_COUNTERS (sizeof(struct gpudp_an_counters) / sizeof(uint64_t))
/** Its one drop reason: the packet does not match the filter. */
#define GPUDP_AN_WORK_UNMATCHED 1u

/** The work's state tables, in the order of its descriptor's states. */
enum gpudp_an_work_state {
	GPUDP_AN_STATE_FLOWS = 0,  /**< the flow table */
	GPUDP_AN_STATE_FRAGS,      /**< the fragment table */
	GPUDP_AN_STATE_COUNTS,     /**< per pattern: occurrences, then packets */
	GPUDP_AN_STATE_EXPORT,     /**< the flow monitor's looks: the table's header
				    *   (struct gpudp_flow_export, gpudp_flow_scan.h) */
	GPUDP_AN_STATE_HITS,       /**< per rule: packets it matched */
	GPUDP_AN_STATE_ALERTS,     /**< the alert records (struct gpudp_rules_alerts) */
	GPUDP_AN_STATES
};

/**
 * gpudp_work_meta.mark of a pseudo-packet that is a look at the flow table
 * (the flow monitor): its bytes are a struct gpudp_flow_scan, its index in
 * the burst the chunk it looks at. It is not a packet: nothing is counted.
 */
#define GPUDP_AN_MARK_SCAN 0x5343414eu

/**
 * Parameter block: where the tables are (the work reads them) and where the
 * state is (the work updates it, atomically on the GPU). The caller writes
 * the tables' host addresses and every size; the handoff writes the
 * addresses the work sees.
 */
struct gpudp_an_work_params {
	uint64_t flows;       /**< state: struct gpudp_flow_slot[flow_mask + 1] */
	uint64_t flows_size;  /**< its bytes */
	uint64_t frags;       /**< state: struct gpudp_frag_slot[frag_mask + 1] */
	uint64_t frags_size;  /**< its bytes (0: no fragment table) */
	uint64_t counts;      /**< state: uint64_t[2 * n_patterns]: per pattern its
			       *   occurrences, then the packets it was found in */
	uint64_t counts_size; /**< its bytes (0: no payload inspection) */
	uint64_t filter;      /**< table: struct gpudp_filter */
	uint64_t filter_size; /**< its bytes */
	uint64_t match;       /**< table: struct gpudp_match_db, or 0 (no payload
			       *   inspection) */
	uint64_t match_size;  /**< its bytes (the database's size) */
	uint64_t exp;         /**< state: the flow monitor's table header (struct
			       *   gpudp_flow_export without slots: the looks put the
			       *   ended flows in areas of their own), or 0 */
	uint64_t exp_size;    /**< its bytes (0: no flow monitor) */
	uint32_t flow_mask;   /**< flow table capacity - 1 */
	uint32_t frag_mask;   /**< fragment table capacity - 1 */
	uint32_t match_flags; /**< GPUDP_AN_MATCH_FRAME */
	uint32_t n_patterns;  /**< the database's patterns */
	uint64_t rules;       /**< table: struct gpudp_rules_img, or 0 (no rules) */
	uint64_t rules_size;  /**< its bytes */
	uint64_t hits;        /**< state: uint64_t[n_rules], per rule the packets it matched */
	uint64_t hits_size;   /**< its bytes (0: no rules) */
	uint64_t alerts;      /**< state: struct gpudp_rules_alerts and its records; the
			       *   caller writes its cap before the first packet */
	uint64_t alerts_size; /**< its bytes (0: no alert records) */
	uint32_t n_rules;     /**< the image's rules */
	uint32_t pad;
};

struct gpudp_analysis;

/** gpudp_handoff_collect()'s argument for this work: where the state goes. */
struct gpudp_an_work_result {
	struct gpudp_analysis *out;           /**< its tables are replaced by the state
					       *   (merged when their shapes differ)
					       *   and its pattern counts by the work's */
	const struct gpudp_an_counters *ctr;  /**< the work's counters the handoff
					       *   summed (gpudp_handoff_stats) */
};

/*
 * A look at the flow table (a pseudo-packet of the flow monitor): chunk
 * p->index of the table, in the pass (GPUDP_FLOW_SCAN_LOOK_*) the struct
 * gpudp_flow_scan in its bytes says.
 */
GPUDP_WORK_FN uint32_t
gpudp_an_work_scan(struct gpudp_work_pkt *p, const struct gpudp_an_work_params *pr)
{
	const struct gpudp_flow_scan *x = (const struct gpudp_flow_scan *)p->seg[0];
	struct gpudp_flow_slot *t = (struct gpudp_flow_slot *)(uintptr_t)pr->flows;
	struct gpudp_flow_export *ex = (struct gpudp_flow_export *)(uintptr_t)pr->exp;

	if (p->seg_len[0] < sizeof(*x) || x->magic != GPUDP_FLOW_SCAN_MAGIC || ex == 0 ||
	    p->index >= x->chunks || x->out == 0)
		return GPUDP_AN_WORK_UNMATCHED;
	gpudp_flow_look_chunk(t, pr->flow_mask, x, ex, p->index);
	return GPUDP_WORK_PASS;
}

/** The per-packet function: one packet into the tables and counters. */
GPUDP_WORK_FN uint32_t
gpudp_an_work_pkt(struct gpudp_work_pkt *p)
{
	const struct gpudp_an_work_params *pr = (const struct gpudp_an_work_params *)p->params;
	struct gpudp_an_sink sk;
	uint32_t wire, cap;
	const uint8_t *whole;
	uint64_t ts;
	int m;

	if (p->meta != NULL && p->meta->mark == GPUDP_AN_MARK_SCAN)
		return gpudp_an_work_scan(p, pr);

	sk.ctr = (struct gpudp_an_counters *)p->counters;
	sk.flows = (struct gpudp_flow_slot *)(uintptr_t)pr->flows;
	sk.flow_mask = pr->flow_mask;
	sk.pad = 0;
	sk.filter = (const struct gpudp_filter *)(uintptr_t)pr->filter;
	sk.frags = (struct gpudp_frag_slot *)(uintptr_t)pr->frags;
	sk.frag_mask = pr->frag_mask;
	sk.pad2 = 0;
	sk.match = (const struct gpudp_match_db *)(uintptr_t)pr->match;
	sk.match_occ = (uint64_t *)(uintptr_t)pr->counts;
	sk.match_pkts = sk.match_occ != NULL ? sk.match_occ + pr->n_patterns : NULL;
	sk.match_flags = pr->match_flags;
	sk.seq = p->index;
	sk.rules = (const struct gpudp_rules_img *)(uintptr_t)pr->rules;
	sk.rule_hits = (uint64_t *)(uintptr_t)pr->hits;
	sk.alerts = (struct gpudp_rules_alerts *)(uintptr_t)pr->alerts;
	/* the frame's captured length: pkt_len, of which seg[0] may hold only the span */
	cap = p->pkt_len > p->seg_len[0] ? p->pkt_len : p->seg_len[0];
	whole = p->seg[0];
	if (cap > p->seg_len[0]) {
		if (p->nb_segs > 1 && p->seg_len[1] == cap - p->seg_len[0])
			whole = p->seg[1] - p->seg_len[0];  /* the frame where it lies */
		else
			cap = p->seg_len[0];
	}
	/* the original length as the caller gives it (a bogus record's may be
	 * below the captured one: counted as is, as on the CPU), else the
	 * captured length */
	wire = p->meta != NULL ? p->meta->wire_len : cap;
	ts = p->meta != NULL ? p->meta->ts_ns : 0;
	m = gpudp_an_account_head(&sk, p->seg[0], p->seg_len[0], cap, wire, ts);
	if (m < 0)  /* headers past the span: the whole frame */
		m = gpudp_an_account(&sk, whole, cap, wire, ts);
	return m ? GPUDP_WORK_PASS : GPUDP_AN_WORK_UNMATCHED;
}

#ifndef __CUDACC__
/**
 * Fill @p prm for an analysis whose flow table has @p flow_capacity slots
 * (a power of two), with the compiled filter @p filter and, when @p db is
 * not NULL, payload inspection against @p db with @p match_flags. The
 * pointers must stay valid until the handoff is created (it copies the
 * tables).
 */
void gpudp_analysis_work_params(struct gpudp_an_work_params *prm, uint32_t flow_capacity,
				const struct gpudp_filter *filter,
				const struct gpudp_match_db *db, uint32_t match_flags);

/**
 * Add the rules of @p img to @p prm (gpudp_analysis_work_params()), with
 * room for @p room alert records (0: counts only): the caller then writes
 * the area's header (struct gpudp_rules_alerts: head 0, cap @p room) into
 * state GPUDP_AN_STATE_ALERTS before the first packet, and runs
 * gpudp_analysis_work_rules().
 */
void gpudp_analysis_work_params_rules(struct gpudp_an_work_params *prm,
				      const struct gpudp_rules_img *img, uint32_t room);

/**
 * Make @p prm (gpudp_analysis_work_params()) a flow monitor's: no fragment
 * table (fragments go to their flows at once) and the table's header
 * (GPUDP_AN_STATE_EXPORT), which the caller zeroes but for its cap and
 * whose looks are scan pseudo-packets (GPUDP_AN_MARK_SCAN) of the passes
 * GPUDP_FLOW_SCAN_LOOK_*.
 */
void gpudp_analysis_work_monitor(struct gpudp_an_work_params *prm);

/**
 * The work's descriptor (its GPU image is lib/analysis/capture.cu's),
 * registered on the first call (gpudp_work_register()).
 * @return the descriptor, or NULL when it could not be registered
 */
const struct gpudp_work *gpudp_analysis_work(void);

/**
 * The descriptor of the same analysis for payload inspection: its span is
 * 0 (whole frames staged: the patterns are looked for in every byte),
 * registered on the first call.
 * @return the descriptor, or NULL when it could not be registered
 */
const struct gpudp_work *gpudp_analysis_work_payload(void);

/**
 * The descriptor of the analysis with rules (and payload inspection, when
 * its parameters have a database): whole frames staged; its GPU image
 * (capture_rules.cu) holds the rules' code and scratch, which the others
 * leave out. Registered on the first call.
 * @return the descriptor, or NULL when it could not be registered
 */
const struct gpudp_work *gpudp_analysis_work_rules(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_ANALYSIS_WORK_H */
