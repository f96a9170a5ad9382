/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture analysis work's descriptor (gpudp_analysis_work.h): its CPU
 * form, its GPU image (capture.cu, embedded as gpudp_analysis_image_capture),
 * the names of its counters (the fields of struct gpudp_an_counters in
 * order), its tables and state, and the collect hook that merges the state
 * into a struct gpudp_analysis.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "gpudp_analysis.h"
#include "gpudp_analysis_images.h"
#include "gpudp_analysis_work.h"

/* struct gpudp_an_counters, field by field */
static const char *const an_counters[] = {
	"pkts", "bytes", "caplen_bytes", "pkts_eth", "pkts_vlan", "pkts_qinq", "pkts_arp",
	"pkts_ipv4", "pkts_ipv6", "pkts_other_l3", "pkts_ipv6_ext", "pkts_frag",
	"pkts_tcp", "pkts_udp", "pkts_icmp", "pkts_icmpv6", "pkts_other_l4", "bytes_eth",
	"bytes_vlan", "bytes_qinq", "bytes_arp", "bytes_ipv4", "bytes_ipv6",
	"bytes_other_l3", "bytes_ipv6_ext", "bytes_frag", "bytes_tcp", "bytes_udp",
	"bytes_icmp", "bytes_icmpv6", "bytes_other_l4", "size_bucket0", "size_bucket1",
	"size_bucket2", "size_bucket3", "size_bucket4", "size_bucket5", "size_bucket6",
	"size_bucket7", "size_bucket8", "size_bucket9", "drop_truncated", "drop_malformed",
	"drop_flow_full", "drop_frag_full", "snapped", "filter_pkts", "filter_bytes",
	"match_bytes", "match_pkts", "match_occ", "alert_pkts", "alerts",
};
_Static_assert(sizeof(an_counters) / sizeof(an_counters[0]) == GPUDP_AN_WORK_COUNTERS,
	       "a name for every field of struct gpudp_an_counters");
_Static_assert(GPUDP_AN_WORK_COUNTERS <= GPUDP_WORK_COUNTERS_MAX,
	       "struct gpudp_an_counters fits the work's counters");
_Static_assert(sizeof(struct gpudp_an_work_params) == 168, "parameter block layout");

static const char *const an_reasons[] = { "unmatched" };

GPUDP_WORK_CPU(an_cpu, gpudp_an_work_pkt)

#define AN_FIELD(ptr, size) { offsetof(struct gpudp_an_work_params, ptr), \
			      offsetof(struct gpudp_an_work_params, size) }
/* read-only: the filter, the pattern database */
static const struct gpudp_work_table an_tables[] = {
	AN_FIELD(filter, filter_size), AN_FIELD(match, match_size), AN_FIELD(rules, rules_size),
};
/* state, in enum gpudp_an_work_state's order */
static const struct gpudp_work_table an_states[GPUDP_AN_STATES] = {
	AN_FIELD(flows, flows_size), AN_FIELD(frags, frags_size), AN_FIELD(counts, counts_size),
	AN_FIELD(exp, exp_size), AN_FIELD(hits, hits_size), AN_FIELD(alerts, alerts_size),
};
#undef AN_FIELD

/* the tables are the caller's (gpudp_handoff_conf.params): nothing to free */
static void
an_fini(void *params)
{
	(void)params;
}

/*
 * The state into the result: the tables copied into the result's when
 * they have its shapes (the GPU's are laid out as the host's, filled by
 * the same code: gpudp_analysis_pkt.h's lookups and hash), merged
 * otherwise; the pattern counts replace the result's.
 */
static int
an_collect(const void *params, void *const *state, const uint64_t *size, void *arg)
{
	const struct gpudp_an_work_params *pr = params;
	const struct gpudp_an_work_result *r = arg;
	struct gpudp_analysis *out = r->out;
	const uint64_t *cnt = state[GPUDP_AN_STATE_COUNTS];
	const uint64_t *hits = state[GPUDP_AN_STATE_HITS];
	int rc = 0;

	/* the flow monitor has no fragment table */
	if (size[GPUDP_AN_STATE_FLOWS] != sizeof(*out->flows) * ((uint64_t)pr->flow_mask + 1) ||
	    (size[GPUDP_AN_STATE_FRAGS] != sizeof(*out->frags) * ((uint64_t)pr->frag_mask + 1) &&
	     size[GPUDP_AN_STATE_FRAGS] != 0))
		return -EINVAL;
	if (size[GPUDP_AN_STATE_FRAGS] == 0) {
		gpudp_analysis_reset(out);
		rc = gpudp_analysis_merge(out, r->ctr, state[GPUDP_AN_STATE_FLOWS],
					  pr->flow_mask + 1);
		goto match;
	}
	if (out->flow_mask == pr->flow_mask && out->frag_mask == pr->frag_mask) {
		memcpy(out->flows, state[GPUDP_AN_STATE_FLOWS], size[GPUDP_AN_STATE_FLOWS]);
		memcpy(out->frags, state[GPUDP_AN_STATE_FRAGS], size[GPUDP_AN_STATE_FRAGS]);
		memcpy(&out->ctr, r->ctr, sizeof(out->ctr));
	} else {
		gpudp_analysis_reset(out);
		rc = gpudp_analysis_merge(out, r->ctr, state[GPUDP_AN_STATE_FLOWS],
					  pr->flow_mask + 1);
		if (gpudp_analysis_merge_frags(out, state[GPUDP_AN_STATE_FRAGS],
					       pr->frag_mask + 1) != 0)
			rc = -ENOSPC;
	}
match:
	if (out->match != NULL) {
		memset(out->match_occ, 0, sizeof(uint64_t) * out->match->n_patterns);
		memset(out->match_pkts, 0, sizeof(uint64_t) * out->match->n_patterns);
		if (cnt != NULL && out->match->n_patterns == pr->n_patterns)
			gpudp_analysis_merge_match(out, cnt, cnt + pr->n_patterns);
	}
	if (out->rules != NULL && hits != NULL && out->rules->n_rule == pr->n_rules)
		memcpy(out->rule_hits, hits, sizeof(uint64_t) * pr->n_rules);
	return rc;
}

void
gpudp_analysis_work_params_rules(struct gpudp_an_work_params *prm,
				 const struct gpudp_rules_img *img, uint32_t room)
{
	prm->rules = (uint64_t)(uintptr_t)img;
	prm->rules_size = img->size;
	prm->n_rules = img->n_rule;
	prm->hits_size = sizeof(uint64_t) * (uint64_t)(img->n_rule ? img->n_rule : 1);
	prm->alerts_size = room > 0 ? sizeof(struct gpudp_rules_alerts) +
		sizeof(struct gpudp_rule_alert) * (uint64_t)room : 0;
}

void
gpudp_analysis_work_monitor(struct gpudp_an_work_params *prm)
{
	prm->frags_size = 0;
	prm->exp_size = sizeof(struct gpudp_flow_export);
}

void
gpudp_analysis_work_params(struct gpudp_an_work_params *prm, uint32_t flow_capacity,
			   const struct gpudp_filter *filter, const struct gpudp_match_db *db,
			   uint32_t match_flags)
{
	uint32_t frag_capacity = gpudp_analysis_frag_capacity(flow_capacity);

	memset(prm, 0, sizeof(*prm));
	prm->flows_size = sizeof(struct gpudp_flow_slot) * (uint64_t)flow_capacity;
	prm->frags_size = sizeof(struct gpudp_frag_slot) * (uint64_t)frag_capacity;
	prm->filter = (uint64_t)(uintptr_t)filter;
	prm->filter_size = sizeof(*filter);
	prm->flow_mask = flow_capacity - 1;
	prm->frag_mask = frag_capacity - 1;
	if (db != NULL) {
		prm->match = (uint64_t)(uintptr_t)db;
		prm->match_size = db->size;
		prm->n_patterns = db->n_patterns;
		prm->counts_size = 2 * sizeof(uint64_t) * db->n_patterns;
		prm->match_flags = match_flags;
	}
}

/* the analysis reads its span (the headers) without payload inspection,
 * whole frames with it */
#define AN_STATE .n_tables = 3, .tables = an_tables, .fini = an_fini, \
	.n_states = GPUDP_AN_STATES, .states = an_states, .collect = an_collect
static struct gpudp_work an_works[3] = {
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	  .name = GPUDP_AN_WORK_NAME,
	  .summary = "gpudp-capture's analysis: protocols, sizes, flows, fragments, filter",
	  .span = GPUDP_AN_SPAN, .wspan = 0,
	  .params_size = sizeof(struct gpudp_an_work_params),
	  .n_reasons = 1, .reasons = an_reasons,
	  .n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	  .cpu = an_cpu, AN_STATE },
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	  .name = GPUDP_AN_WORK_PAYLOAD_NAME,
	  .summary = "gpudp-capture's analysis with payload inspection (whole frames)",
	  .span = 0, .wspan = 0,
	  .params_size = sizeof(struct gpudp_an_work_params),
	  .n_reasons = 1, .reasons = an_reasons,
	  .n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	  .cpu = an_cpu, AN_STATE },
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	  .name = GPUDP_AN_WORK_RULES_NAME,
	  .summary = "gpudp-capture's analysis with rules and payload inspection (whole frames)",
	  .span = 0, .wspan = 0,
	  .params_size = sizeof(struct gpudp_an_work_params),
	  .n_reasons = 1, .reasons = an_reasons,
	  .n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	  .cpu = an_cpu, AN_STATE },
};
#undef AN_STATE

/* descriptor @p i, its image set and registered on its first call */
static const struct gpudp_work *
an_work(uint32_t i)
{
	static int done[3];
	struct gpudp_work *w = &an_works[i];
	int rc;

	if (done[i])
		return w;
	w->gpu_image = i == 2 ? gpudp_analysis_image_capture_rules.data :
		gpudp_analysis_image_capture.data;
	w->gpu_image_size = i == 2 ? gpudp_analysis_image_capture_rules.size :
		gpudp_analysis_image_capture.size;
	rc = gpudp_work_register(w, NULL, 0);
	if (rc != 0 && rc != -EEXIST)
		return NULL;
	done[i] = 1;
	return w;
}

const struct gpudp_work *
gpudp_analysis_work(void)
{
	return an_work(0);
}

const struct gpudp_work *
gpudp_analysis_work_payload(void)
{
	return an_work(1);
}

const struct gpudp_work *
gpudp_analysis_work_rules(void)
{
	return an_work(2);
}
