/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in work `match` (gpudp_match_work.h): its descriptor, its
 * argument (a pattern file and two options), its table (the compiled
 * database) and its CPU form. Its GPU form is match.cu.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_errf.h"
#include "gpudp_match_work.h"
#include "gpudp_work_match.h"

_Static_assert(sizeof(struct gpudp_match_work_params) == 24, "parameter block layout");

static const char *const match_reasons[] = { "matched" };
static const char *const match_counters[GPUDP_MATCH_WORK_COUNTERS] = {
	"scanned", "scanned_bytes", "matched", "occurrences", "partial",
};
static const struct gpudp_work_table match_tables[] = {
	{ offsetof(struct gpudp_match_work_params, db),
	  offsetof(struct gpudp_match_work_params, db_size) },
};

GPUDP_WORK_CPU(match_cpu, gpudp_match_work_pkt)

/* one option of the argument: scope=... or action=... @return 0 or -EINVAL */
static int
match_option(const char *opt, size_t n, uint32_t *flags, char *err, size_t err_len)
{
	if (n == 13 && strncmp(opt, "scope=payload", n) == 0)
		*flags &= ~GPUDP_MATCH_WORK_FRAME;
	else if (n == 11 && strncmp(opt, "scope=frame", n) == 0)
		*flags |= GPUDP_MATCH_WORK_FRAME;
	else if (n == 11 && strncmp(opt, "action=drop", n) == 0)
		*flags &= ~GPUDP_MATCH_WORK_COUNT;
	else if (n == 12 && strncmp(opt, "action=count", n) == 0)
		*flags |= GPUDP_MATCH_WORK_COUNT;
	else {
		gpudp_errf(err, err_len, "option '%.*s': want scope=payload|frame or "
			   "action=drop|count", (int)n, opt);
		return -EINVAL;
	}
	return 0;
}

int
gpudp_work_match_arg(const char *arg, char **path, uint32_t *flags, char *err, size_t err_len)
{
	const char *opts;
	uint32_t f = *flags;

	*path = NULL;
	if (arg == NULL || arg[0] == '\0') {
		gpudp_errf(err, err_len, "needs a pattern file: --work-arg FILE[,scope=payload|"
			   "frame][,action=drop|count]");
		return -EINVAL;
	}
	opts = strchr(arg, ',');
	*path = strndup(arg, opts != NULL ? (size_t)(opts - arg) : strlen(arg));
	if (*path == NULL)
		return -ENOMEM;
	while (opts != NULL) {
		const char *next = strchr(opts + 1, ',');
		size_t n = next != NULL ? (size_t)(next - opts - 1) : strlen(opts + 1);

		if (match_option(opts + 1, n, &f, err, err_len) != 0) {
			free(*path);
			*path = NULL;
			return -EINVAL;
		}
		opts = next;
	}
	*flags = f;
	return 0;
}

/* FILE[,scope=payload|frame][,action=drop|count] */
static int
match_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct gpudp_match_work_params *p = params;
	struct gpudp_match_db *db;
	char *path;
	int ret = gpudp_work_match_arg(arg, &path, &p->flags, err, err_len);

	if (ret != 0)
		return ret;
	db = gpudp_match_load(path, NULL, NULL, err, err_len);
	free(path);
	if (db == NULL)
		return -EINVAL;
	p->db = (uint64_t)(uintptr_t)db;
	p->db_size = db->size;
	return 0;
}

static void
match_fini(void *params)
{
	struct gpudp_match_work_params *p = params;

	free((void *)(uintptr_t)p->db);
	p->db = 0;
	p->db_size = 0;
}

struct gpudp_work gpudp_work_match = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = GPUDP_MATCH_WORK_NAME,
	.summary = "drop (or count) packets whose L4 payload (or frame) holds a pattern "
		"of a pattern file (--work-arg FILE[,scope=payload|frame][,action=drop|count])",
	.span = 0, .wspan = 0,
	.params_size = sizeof(struct gpudp_match_work_params),
	.n_reasons = 1, .reasons = match_reasons,
	.n_counters = GPUDP_MATCH_WORK_COUNTERS, .counters = match_counters,
	.init = match_init, .cpu = match_cpu,
	.n_tables = 1, .tables = match_tables, .fini = match_fini,
};
