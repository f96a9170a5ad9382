/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Rules in gpudp-capture (doc/rules.md): `--rules FILE` (repeatable),
 * `--rule-vars FILE`, `--rules-unsupported refuse|skip` and `--eve
 * FILE|-`; the rule files read, parsed and compiled into an image the
 * engines run; the alert records written as EVE JSON lines. No DPDK
 * dependency.
 */
#ifndef GPUDP_CAPTURE_RULES_H
#define GPUDP_CAPTURE_RULES_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "gpudp_flow_log.h"
#include "gpudp_rules.h"
#include "gpudp_rules_img.h"

/** Most --rules files. */
#define CAP_MAX_RULE_FILES 16

/** The rules of a run and their alert output. */
struct cap_rules {
	const char *files[CAP_MAX_RULE_FILES]; /**< --rules */
	uint32_t n_files;
	const char *vars;                  /**< --rule-vars, or NULL */
	int skip_unsupported;              /**< --rules-unsupported skip */
	const char *eve;                   /**< --eve FILE or "-", or NULL */
	struct gpudp_rules rs;             /**< the rules parsed */
	struct gpudp_rules_img *img;       /**< compiled; NULL: no rules */
	uint32_t warned;                   /**< warnings said for skipped keywords */
	/* the EVE output (cap_rules_eve_open()) */
	struct gpudp_flow_log *eve_log;
	pthread_mutex_t eve_lock;          /**< the engines' threads write in turn */
	int eve_lock_made;
	uint64_t eve_lost;                 /**< alert records that found no room in an engine */
	uint64_t eve_bad;                  /**< records that could not be written as a line */
};

/** Options of the rules (getopt_long values). */
enum {
	CAP_RULE_OPT_FIRST = 560,
	CAP_RULE_OPT_RULES = CAP_RULE_OPT_FIRST, CAP_RULE_OPT_VARS, CAP_RULE_OPT_UNSUPPORTED,
	CAP_RULE_OPT_EVE,
};
#define CAP_RULE_LONG_OPTS \
	{ "rules", required_argument, NULL, CAP_RULE_OPT_RULES }, \
	{ "rule-vars", required_argument, NULL, CAP_RULE_OPT_VARS }, \
	{ "rules-unsupported", required_argument, NULL, CAP_RULE_OPT_UNSUPPORTED }, \
	{ "eve", required_argument, NULL, CAP_RULE_OPT_EVE }

/**
 * One option of the rules.
 * @return 0, -1 (bad value: said as "PROG: --OPT: bad value ..."), or 1
 *   (not an option of the rules)
 */
int cap_rules_option(const char *prog, struct cap_rules *r, int o, const char *v);

/** The rules' part of --help. */
void cap_rules_usage(FILE *f);

/**
 * Read --rule-vars and every --rules file, parse and compile them. A rule
 * with a keyword outside the subset is refused with FILE:LINE and the
 * keyword, or (skip) skipped with one warning per keyword on stderr.
 * @return 0 (nothing to do without --rules), or -1 with the error said
 */
int cap_rules_prepare(const char *prog, struct cap_rules *r);

/**
 * Open --eve (nothing without it).
 * @return 0, or -1 with the error said
 */
int cap_rules_eve_open(const char *prog, struct cap_rules *r);

/**
 * The engines' alerts_out (gpudp_cap_engine.h): each record written as an
 * EVE line (alert.action "allowed": gpudp-capture does not drop), the
 * records without room counted. @p arg is the struct cap_rules.
 */
void cap_rules_alerts_out(void *arg, const struct gpudp_rule_alert *rec, uint32_t n,
			  uint64_t lost);

/** What the EVE output did: lines written, records lost (any reason), its error. */
void cap_rules_eve_stats(struct cap_rules *r, uint64_t *written, uint64_t *lost, int *error);

/**
 * Flush and close --eve.
 * @return 0, or 1 when records were lost (said on stderr)
 */
int cap_rules_eve_close(const char *prog, struct cap_rules *r);

/** Free what cap_rules_prepare() made (the options stay). */
void cap_rules_free(struct cap_rules *r);

#endif /* GPUDP_CAPTURE_RULES_H */
