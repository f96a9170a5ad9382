/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules' part of gpudp-capture's reports (doc/rules.md, "In the
 * report"): rules loaded and skipped, packets alerted, alerts, the EVE
 * output, and the packets each rule matched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"

/* the rules' header fields */
static const struct gpudp_rule *
rule_at(const struct gpudp_rules_img *img, uint32_t i)
{
	return GPUDP_RULES_IMG_AT(img, const struct gpudp_rule, img->off_rule) + i;
}

static const char *
rule_msg(const struct gpudp_rules_img *img, uint32_t i)
{
	const struct gpudp_rule *r = rule_at(img, i);

	return r->msg != UINT32_MAX ? GPUDP_RULES_IMG_AT(img, const char, img->off_bytes) +
		r->msg : "";
}

static const char *
rule_action(const struct gpudp_rules_img *img, uint32_t i)
{
	return rule_at(img, i)->action == GPUDP_RULE_DROP ? "drop" : "alert";
}

/* rule indices by packets matched (descending), then by index */
static int
cmp_hits(const void *x, const void *y, void *arg)
{
	const uint64_t *h = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (h[a] != h[b])
		return h[a] < h[b] ? 1 : -1;
	return a < b ? -1 : a > b;
}

int
cap_report_rules_table(FILE *f, const struct cap_report *r)
{
	const struct gpudp_analysis *a = r->a;
	const struct gpudp_rules_img *img = a->rules;
	uint32_t n = img->n_rule, i, *order = malloc(sizeof(*order) * (n ? n : 1));

	if (order == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_hits, a->rule_hits);
	fprintf(f, "\nrules: %u (%u fast patterns", n, img->n_pat);
	if (r->rules->rs.skipped != 0)
		fprintf(f, "; %u skipped for keywords outside the subset", r->rules->rs.skipped);
	fprintf(f, "); %" PRIu64 " packets alerted, %" PRIu64 " alerts\n", a->ctr.alert_pkts,
		a->ctr.alerts);
	if (r->rules->eve != NULL)
		fprintf(f, "  EVE %s: %" PRIu64 " alerts written%s%" PRIu64 " lost\n",
			r->rules->eve, r->eve_written, r->eve_lost != 0 ? ", " : " (", r->eve_lost);
	fprintf(f, "%-10s %-5s %-6s %12s  %s (top %u by packets)\n", "sid", "rev", "action",
		"packets", "msg", r->top_n);
	for (i = 0; i < n && i < r->top_n && a->rule_hits[order[i]] != 0; i++)
		fprintf(f, "%-10" PRIu32 " %-5" PRIu32 " %-6s %12" PRIu64 "  %.60s\n",
			rule_at(img, order[i])->sid, rule_at(img, order[i])->rev,
			rule_action(img, order[i]), a->rule_hits[order[i]], rule_msg(img, order[i]));
	free(order);
	return 0;
}

void
cap_report_rules_json(struct gpudp_json *j, const struct cap_report *r)
{
	const struct gpudp_analysis *a = r->a;
	const struct gpudp_rules_img *img = a->rules;
	uint32_t i;

	gpudp_json_obj(j, "rules");
	gpudp_json_arr(j, "files");
	for (i = 0; i < r->rules->n_files; i++)
		gpudp_json_str(j, NULL, r->rules->files[i]);
	gpudp_json_end(j);
	gpudp_json_u64(j, "rules", img->n_rule);
	gpudp_json_u64(j, "skipped", r->rules->rs.skipped);
	gpudp_json_u64(j, "fast_patterns", img->n_pat);
	gpudp_json_u64(j, "alerted", a->ctr.alert_pkts);
	gpudp_json_u64(j, "alerts", a->ctr.alerts);
	if (r->rules->eve != NULL) {
		gpudp_json_obj(j, "eve");
		gpudp_json_str(j, "path", r->rules->eve);
		gpudp_json_u64(j, "written", r->eve_written);
		gpudp_json_u64(j, "lost", r->eve_lost);
		gpudp_json_end(j);
	} else {
		gpudp_json_null(j, "eve");
	}
	gpudp_json_arr(j, "per_sid");
	for (i = 0; i < img->n_rule; i++) {
		gpudp_json_obj(j, NULL);
		gpudp_json_u64(j, "sid", rule_at(img, i)->sid);
		gpudp_json_u64(j, "rev", rule_at(img, i)->rev);
		gpudp_json_str(j, "action", rule_action(img, i));
		gpudp_json_str(j, "msg", rule_msg(img, i));
		gpudp_json_u64(j, "packets", a->rule_hits[i]);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
	gpudp_json_end(j);
}
