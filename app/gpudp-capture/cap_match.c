/* SPDX-License-Identifier: BSD-3-Clause */
/* Payload inspection options (cap_match.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_match.h"

int
cap_match_scope(const char *prog, const char *v, struct cap_match *m)
{
	if (strcmp(v, "payload") == 0) {
		m->flags &= ~GPUDP_AN_MATCH_FRAME;
		return 0;
	}
	if (strcmp(v, "frame") == 0) {
		m->flags |= GPUDP_AN_MATCH_FRAME;
		return 0;
	}
	fprintf(stderr, "%s: --match-scope: bad value '%s' (expected payload or frame)\n",
		prog, v);
	return -1;
}

const char *
cap_match_scope_name(const struct cap_match *m)
{
	return (m->flags & GPUDP_AN_MATCH_FRAME) != 0 ? "frame" : "payload";
}

int
cap_match_prepare(const char *prog, struct cap_match *m, const struct gpudp_rules_img *rules,
		  const char *expr, struct gpudp_filter *f)
{
	char err[512];

	if (m->file != NULL) {
		m->db = gpudp_match_load(m->file, &m->pats, &m->n, err, sizeof(err));
		if (m->db == NULL) {
			/* err names the file (and the line) */
			fprintf(stderr, "%s: --match: %s\n", prog, err);
			return -1;
		}
	}
	if (gpudp_filter_compile_rules(expr, m->pats, m->n, rules, f, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: --filter: bad value '%s': %s\n", prog, expr, err);
		return -1;
	}
	return 0;
}

struct gpudp_analysis *
cap_analysis_create(uint32_t flows, const struct gpudp_filter *filter, const struct cap_match *m,
		    const struct gpudp_rules_img *rules)
{
	struct gpudp_analysis *a = gpudp_analysis_create(flows, filter);

	if (a != NULL && (gpudp_analysis_set_match(a, m->db, m->flags) != 0 ||
			  gpudp_analysis_set_rules(a, rules, 0) != 0)) {
		gpudp_analysis_free(a);
		a = NULL;
	}
	return a;
}

void
cap_match_free(struct cap_match *m)
{
	free(m->db);
	free(m->pats);
	m->db = NULL;
	m->pats = NULL;
	m->n = 0;
}
