/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Payload inspection options of gpudp-capture and gpudp-capture-bench
 * (doc/match.md "Payload inspection in gpudp-capture"): `--match FILE`,
 * `--match-scope
 * payload|frame`, and `--filter` expressions that use `match` / `match
 * NAME`, which need the pattern file first. No DPDK dependency.
 */
#ifndef GPUDP_CAPTURE_MATCH_H
#define GPUDP_CAPTURE_MATCH_H

#include <stdint.h>

#include "gpudp_analysis.h"

/** The pattern set of a run. */
struct cap_match {
	const char *file;                  /**< --match, or NULL: no inspection */
	uint32_t flags;                    /**< GPUDP_AN_MATCH_FRAME (--match-scope frame) */
	struct gpudp_match_db *db;         /**< compiled by cap_match_load() */
	struct gpudp_match_pattern *pats;  /**< the patterns, in the database's order */
	uint32_t n;                        /**< how many */
};

/**
 * --match-scope: "payload" (the L4 payload) or "frame" (every captured byte).
 * @return 0, or -1 with the error printed as "PROG: --match-scope: bad value ..."
 */
int cap_match_scope(const char *prog, const char *v, struct cap_match *m);

/** "payload" or "frame". */
const char *cap_match_scope_name(const struct cap_match *m);

/**
 * Read and compile m->file (nothing when it is NULL), then compile the
 * filter expression @p expr (NULL: none) with its `match` names and the
 * `alert` sids of @p rules (NULL: no rules).
 * @return 0, or -1 with the error printed ("PROG: --match: bad value
 *   'FILE': line L: ..." or "PROG: --filter: bad value 'EXPR': ...")
 */
int cap_match_prepare(const char *prog, struct cap_match *m, const struct gpudp_rules_img *rules,
		      const char *expr, struct gpudp_filter *f);

/**
 * An analysis object with the run's payload inspection (@p m) and rules
 * (@p rules, NULL: none; without alert records): gpudp_analysis_create(),
 * gpudp_analysis_set_match(), gpudp_analysis_set_rules().
 * @return the object, or NULL (memory, or a bad capacity)
 */
struct gpudp_analysis *cap_analysis_create(uint32_t flows, const struct gpudp_filter *filter,
					   const struct cap_match *m,
					   const struct gpudp_rules_img *rules);

/** Free what cap_match_prepare() made (the file name stays). */
void cap_match_free(struct cap_match *m);

#endif /* GPUDP_CAPTURE_MATCH_H */
