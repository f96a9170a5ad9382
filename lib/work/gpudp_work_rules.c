/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in work `rules` (gpudp_rules_work.h): its descriptor, its
 * argument (a rule file and two options), its table (the rules' image) and
 * its CPU form. Its GPU form is rules.cu.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_errf.h"
#include "gpudp_rules_work.h"
#include "gpudp_work_pvt.h"
#include "gpudp_work_rules.h"

_Static_assert(sizeof(struct gpudp_rules_work_params) == 16, "parameter block layout");

static const char *const rules_reasons[] = { "dropped_by_rule" };
static const char *const rules_counters[GPUDP_RULES_WORK_COUNTERS] = {
	"inspected", "inspected_bytes", "alerted", "alerts", "dropped", "partial",
};
static const struct gpudp_work_table rules_tables[] = {
	{ offsetof(struct gpudp_rules_work_params, img),
	  offsetof(struct gpudp_rules_work_params, img_size) },
};

GPUDP_WORK_CPU(rules_cpu, gpudp_rules_work_pkt)

int
gpudp_work_rules_arg(const char *arg, struct gpudp_work_rules_arg *a, char *err, size_t err_len)
{
	const char *p, *next;

	memset(a, 0, sizeof(*a));
	if (arg == NULL || arg[0] == '\0') {
		gpudp_errf(err, err_len, "needs a rule file: --work-arg FILE[,vars=FILE]"
			   "[,unsupported=refuse|skip]");
		return -EINVAL;
	}
	p = strchr(arg, ',');
	a->file = strndup(arg, p != NULL ? (size_t)(p - arg) : strlen(arg));
	if (a->file == NULL)
		return -ENOMEM;
	for (; p != NULL; p = next) {
		size_t n;

		p++;
		next = strchr(p, ',');
		n = next != NULL ? (size_t)(next - p) : strlen(p);
		if (n > 5 && strncmp(p, "vars=", 5) == 0) {
			free(a->vars);
			a->vars = strndup(p + 5, n - 5);
			if (a->vars == NULL) {
				gpudp_work_rules_arg_free(a);
				return -ENOMEM;
			}
		} else if (n == 18 && strncmp(p, "unsupported=refuse", n) == 0) {
			a->skip = 0;
		} else if (n == 16 && strncmp(p, "unsupported=skip", n) == 0) {
			a->skip = 1;
		} else {
			gpudp_errf(err, err_len, "option '%.*s': want vars=FILE or "
				   "unsupported=refuse|skip", (int)n, p);
			gpudp_work_rules_arg_free(a);
			return -EINVAL;
		}
	}
	return 0;
}

void
gpudp_work_rules_arg_free(struct gpudp_work_rules_arg *a)
{
	free(a->file);
	free(a->vars);
	a->file = a->vars = NULL;
}

/* a keyword's first skipped rule, said once */
static void
rules_warn(void *arg, const char *msg)
{
	(void)arg;
	WORK_LOG(WARNING, "work rules: %s (rule skipped: unsupported=skip)", msg);
}

/* FILE[,vars=FILE][,unsupported=refuse|skip] */
static int
rules_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct gpudp_rules_work_params *p = params;
	struct gpudp_rules_conf conf = { .warn = rules_warn };
	struct gpudp_work_rules_arg a;
	const char *files[1];
	struct gpudp_rules rs;
	struct gpudp_rules_img *img = NULL;
	int ret = gpudp_work_rules_arg(arg, &a, err, err_len);

	if (ret != 0)
		return ret;
	conf.skip_unsupported = a.skip;
	files[0] = a.file;
	gpudp_rules_init(&rs);
	ret = gpudp_rules_load(&rs, files, 1, a.vars, &conf, err, err_len);
	if (ret == 0 && rs.n_rule == 0) {
		gpudp_errf(err, err_len, "%s: no rule%s", a.file,
			   rs.skipped ? " but skipped ones" : "");
		ret = -EINVAL;
	}
	if (ret == 0) {
		img = gpudp_rules_img_build(&rs, err, err_len);
		ret = img == NULL ? -EINVAL : 0;
	}
	if (ret == 0 && rs.skipped != 0)
		WORK_LOG(NOTICE, "work rules: %u rules of %s, %u skipped", rs.n_rule, a.file,
			 rs.skipped);
	gpudp_rules_free(&rs);
	gpudp_work_rules_arg_free(&a);
	if (ret != 0)
		return ret < 0 && ret != -ENOMEM ? -EINVAL : ret;
	p->img = (uint64_t)(uintptr_t)img;
	p->img_size = img->size;
	return 0;
}

static void
rules_fini(void *params)
{
	struct gpudp_rules_work_params *p = params;

	free((void *)(uintptr_t)p->img);
	p->img = 0;
	p->img_size = 0;
}

struct gpudp_work gpudp_work_rules = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = GPUDP_RULES_WORK_NAME,
	.summary = "drop the packets a drop rule of a Suricata-style rule file matches, count "
		"those alert rules match (--work-arg FILE[,vars=FILE][,unsupported=refuse|skip])",
	.span = 0, .wspan = 0,
	.params_size = sizeof(struct gpudp_rules_work_params),
	.n_reasons = 1, .reasons = rules_reasons,
	.n_counters = GPUDP_RULES_WORK_COUNTERS, .counters = rules_counters,
	.init = rules_init, .cpu = rules_cpu,
	.n_tables = 1, .tables = rules_tables, .fini = rules_fini,
};
