/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's rules (cap_rules.h): their options, files and image, and
 * their alerts as EVE JSON lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_opt.h>
#include <gpudp_rules_eve.h>

#include "cap_rules.h"

void
cap_rules_usage(FILE *f)
{
	fprintf(f,
"Rules (doc/rules.md; Suricata-style content rules, either engine):\n"
"  --rules FILE        alert on the packets that match the rules of FILE (a subset\n"
"                      of Suricata 8's syntax); repeatable, up to 16; --filter may\n"
"                      use 'alert' and 'alert SID' (default: none)\n"
"  --rule-vars FILE    the rules' variables ($HOME_NET, $HTTP_PORTS, ...): one\n"
"                      'NAME: VALUE' per line (default: none)\n"
"  --rules-unsupported refuse|skip\n"
"                      a rule with a keyword outside the subset stops the run\n"
"                      (refuse), or is skipped with a warning per keyword and\n"
"                      counted in the report (skip) (default: refuse)\n"
"  --eve FILE          each alert as a line of Suricata's EVE JSON to FILE, or - for\n"
"                      stdout (the report table then on stderr) (default: none)\n");
}

int
cap_rules_option(const char *prog, struct cap_rules *r, int o, const char *v)
{
	switch (o) {
	case CAP_RULE_OPT_RULES:
		if (r->n_files == CAP_MAX_RULE_FILES)
			return gpudp_opt_bad(prog, "rules", v, "more than 16 rule files");
		r->files[r->n_files++] = v;
		return 0;
	case CAP_RULE_OPT_VARS:
		r->vars = v;
		return 0;
	case CAP_RULE_OPT_UNSUPPORTED:
		if (strcmp(v, "refuse") != 0 && strcmp(v, "skip") != 0)
			return gpudp_opt_bad(prog, "rules-unsupported", v, "refuse or skip");
		r->skip_unsupported = strcmp(v, "skip") == 0;
		return 0;
	case CAP_RULE_OPT_EVE:
		r->eve = v;
		return strcmp(v, "-") == 0 ? 0 : gpudp_opt_out_file(prog, "eve", v);
	default:
		return 1;
	}
}

/* a skipped keyword's warning, once per keyword (the parser says each once) */
static void
warn_skip(void *arg, const char *msg)
{
	struct cap_rules *r = arg;

	r->warned++;
	fprintf(stderr, "gpudp-capture: --rules: warning: %s (rule skipped; "
		"--rules-unsupported skip)\n", msg);
}

int
cap_rules_prepare(const char *prog, struct cap_rules *r)
{
	struct gpudp_rules_conf conf = {
		.skip_unsupported = r->skip_unsupported, .warn = warn_skip, .warn_arg = r,
	};
	char err[512];
	int rc;

	gpudp_rules_init(&r->rs);
	if (r->n_files == 0) {
		if (r->vars != NULL)
			fprintf(stderr, "%s: --rule-vars: bad value '%s' (no --rules to use it)\n",
				prog, r->vars);
		else if (r->eve != NULL)
			fprintf(stderr, "%s: --eve: bad value '%s' (no --rules to alert on)\n",
				prog, r->eve);
		return r->vars != NULL || r->eve != NULL ? -1 : 0;
	}
	if (gpudp_rules_load(&r->rs, NULL, 0, r->vars, &conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: --rule-vars: %s\n", prog, err);
		return -1;
	}
	rc = gpudp_rules_load(&r->rs, r->files, r->n_files, NULL, &conf, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "%s: --rules: %s\n", prog, err);
		return -1;
	}
	if (r->rs.n_rule == 0) {
		fprintf(stderr, "%s: --rules: bad value '%s' (no rule in the file%s%s)\n", prog,
			r->files[0], r->n_files > 1 ? "s" : "",
			r->rs.skipped > 0 ? " but skipped ones" : "");
		return -1;
	}
	r->img = gpudp_rules_img_build(&r->rs, err, sizeof(err));
	if (r->img == NULL) {
		fprintf(stderr, "%s: --rules: %s\n", prog, err);
		return -1;
	}
	return 0;
}

int
cap_rules_eve_open(const char *prog, struct cap_rules *r)
{
	int rc;

	if (r->eve == NULL || r->img == NULL)
		return 0;
	rc = gpudp_flow_log_open(r->eve, 0, 0, &r->eve_log);
	if (rc != 0) {
		fprintf(stderr, "%s: --eve: cannot create '%s': %s\n", prog, r->eve,
			strerror(-rc));
		return -1;
	}
	if (pthread_mutex_init(&r->eve_lock, NULL) != 0) {
		gpudp_flow_log_close(r->eve_log);
		r->eve_log = NULL;
		fprintf(stderr, "%s: --eve: no lock for its writers\n", prog);
		return -1;
	}
	r->eve_lock_made = 1;
	return 0;
}

void
cap_rules_alerts_out(void *arg, const struct gpudp_rule_alert *rec, uint32_t n, uint64_t lost)
{
	struct cap_rules *r = arg;
	char line[GPUDP_RULES_EVE_LINE_MAX];
	uint32_t i;
	int k;

	if (r->eve_log == NULL)
		return;
	pthread_mutex_lock(&r->eve_lock);
	r->eve_lost += lost;
	for (i = 0; i < n; i++) {
		k = gpudp_rules_eve_format(r->img, &rec[i], GPUDP_RULES_EVE_ALLOWED, line,
					   sizeof(line));
		if (k <= 0 || (size_t)k >= sizeof(line)) {
			r->eve_bad++;
			continue;
		}
		/* an error is kept by the writer, its records counted dropped */
		gpudp_flow_log_write_line(r->eve_log, line, (size_t)k);
	}
	pthread_mutex_unlock(&r->eve_lock);
}

void
cap_rules_eve_stats(struct cap_rules *r, uint64_t *written, uint64_t *lost, int *error)
{
	struct gpudp_flow_log_stats st;

	*written = *lost = 0;
	*error = 0;
	if (r->eve_log == NULL)
		return;
	pthread_mutex_lock(&r->eve_lock);
	gpudp_flow_log_stats_get(r->eve_log, &st);
	pthread_mutex_unlock(&r->eve_lock);
	*written = st.records;
	*lost = st.dropped + r->eve_lost + r->eve_bad;
	*error = st.error;
}

int
cap_rules_eve_close(const char *prog, struct cap_rules *r)
{
	uint64_t written, lost;
	int err, rc;

	if (r->eve_log == NULL)
		return 0;
	pthread_mutex_lock(&r->eve_lock);
	rc = gpudp_flow_log_flush(r->eve_log);
	pthread_mutex_unlock(&r->eve_lock);
	cap_rules_eve_stats(r, &written, &lost, &err);
	if (gpudp_flow_log_close(r->eve_log) != 0 && rc == 0)
		rc = -EIO;
	r->eve_log = NULL;
	if (r->eve_lock_made)
		pthread_mutex_destroy(&r->eve_lock);
	r->eve_lock_made = 0;
	if (lost == 0 && rc == 0)
		return 0;
	fprintf(stderr, "%s: --eve: %" PRIu64 " alerts lost (%" PRIu64 " written)%s%s\n", prog,
		lost, written, err != 0 ? ": " : "", err != 0 ? strerror(-err) : "");
	return 1;
}

void
cap_rules_free(struct cap_rules *r)
{
	free(r->img);
	r->img = NULL;
	gpudp_rules_free(&r->rs);
}
