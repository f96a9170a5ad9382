/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit: the pin backend rule (gpudp_mem_pin_decide()) on facts given by
 * hand: every branch of auto and of each backend asked for, including the
 * ones this machine cannot reach (a loaded module, with and without
 * dma-buf import; a GPU that exports dma-bufs; mlx5 ports). No EAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include <gpudp_mem.h>
#include <gpudp_pin_client.h>
#include <gpudp_test.h>

#define DEV GPUDP_PIN_DEVICE_PATH

/* the module opened, imports dma-bufs, and the allocator exports them */
static const struct gpudp_mem_pin_facts all_there = {
	.module = 7, .caps = GPUDP_PIN_CAP_DMABUF, .exporter = "gpudev", .peermem = 1,
};

/* no module: what this machine has */
static const struct gpudp_mem_pin_facts no_module = {
	.module = -ENOENT, .peermem = 0,
	.no_peermem = "peermem needs mlx5 ports: port 0 is net_null",
};

static int
decide(enum gpudp_pin_backend want, const struct gpudp_mem_pin_facts *f,
       enum gpudp_pin_backend *chosen, char *why, size_t len)
{
	memset(why, 'x', len);  /* a stale buffer: the rule must write it whole */
	why[len - 1] = '\0';
	return gpudp_mem_pin_decide(want, f, chosen, why, len);
}

static int
auto_prefers_dmabuf_when_the_module_imports_and_the_gpu_exports(void)
{
	enum gpudp_pin_backend chosen;
	char why[300];
	int rc = decide(GPUDP_PIN_AUTO, &all_there, &chosen, why, sizeof(why));

	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_DMABUF, "%d %d %s", rc, chosen, why);
	GPUDP_TEST_ASSERT(strcmp(why, "dmabuf (auto: " DEV " imports dma-bufs and gpudev "
				 "exports them)") == 0, "%s", why);
	return GPUDP_TEST_PASS;
}

static int
auto_takes_kmod_when_the_module_has_no_dmabuf_import(void)
{
	struct gpudp_mem_pin_facts f = all_there;
	enum gpudp_pin_backend chosen;
	char why[300];
	int rc;

	f.caps = 0;
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_KMOD, "%d %d %s", rc, chosen, why);
	GPUDP_TEST_ASSERT(strcmp(why, "kmod (auto: " DEV " opened; not dmabuf: the gpudp_pin "
				 "module has no dma-buf import (GPUDP_PIN_CAP_DMABUF))") == 0,
			  "%s", why);
	return GPUDP_TEST_PASS;
}

static int
auto_takes_kmod_when_the_allocator_cannot_export(void)
{
	struct gpudp_mem_pin_facts f = all_there;
	enum gpudp_pin_backend chosen;
	char why[300];
	int rc;

	f.exporter = NULL;
	f.no_export = "GPU 3 cannot export dma-bufs";
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_KMOD &&
			  strstr(why, "not dmabuf: GPU 3 cannot export dma-bufs") != NULL,
			  "%d %d %s", rc, chosen, why);
	f.no_export = NULL;  /* the generic reason */
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_KMOD &&
			  strstr(why, "the allocator cannot export dma-bufs") != NULL, "%s", why);
	return GPUDP_TEST_PASS;
}

static int
auto_without_the_module_takes_peermem_unless_the_ports_are_not_mlx5(void)
{
	struct gpudp_mem_pin_facts f = no_module;
	enum gpudp_pin_backend chosen;
	char why[400];
	int rc;

	/* this machine: no module, net_null ports */
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_PEERMEM, "%d %d %s", rc, chosen,
			  why);
	GPUDP_TEST_ASSERT(strcmp(why, "no pin backend: " DEV " cannot be opened: No such file "
				 "or directory (is the gpudp_pin module loaded?); and peermem "
				 "needs mlx5 ports: port 0 is net_null") == 0, "%s", why);
	/* mlx5 ports */
	f.peermem = 1;
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_PEERMEM &&
			  strstr(why, "every port is mlx5; not kmod: " DEV " cannot be opened"),
			  "%d %s", rc, why);
	/* pool creation: peermem is the PMD's business */
	f.peermem = -1;
	rc = decide(GPUDP_PIN_AUTO, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_PEERMEM &&
			  strcmp(why, "peermem (auto: not kmod: " DEV " cannot be opened: No "
				 "such file or directory (is the gpudp_pin module loaded?))") == 0,
			  "%d %s", rc, why);
	return GPUDP_TEST_PASS;
}

static int
module_errors_are_named(void)
{
	static const struct { int err; const char *why; } c[] = {
		{ -ENOENT, DEV " cannot be opened: No such file or directory (is the gpudp_pin "
			   "module loaded?)" },
		{ -EACCES, DEV " cannot be opened: Permission denied" },
		{ -EPROTO, DEV " cannot be opened: module ABI differs from this build" },
	};
	struct gpudp_mem_pin_facts f = all_there;
	enum gpudp_pin_backend chosen;
	char why[300];
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(c); i++) {
		f.module = c[i].err;
		rc = decide(GPUDP_PIN_KMOD, &f, &chosen, why, sizeof(why));
		GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_KMOD &&
				  strcmp(why, c[i].why) == 0, "%d: %d '%s', want '%s'", c[i].err,
				  rc, why, c[i].why);
		/* dmabuf needs the module first */
		rc = decide(GPUDP_PIN_DMABUF, &f, &chosen, why, sizeof(why));
		GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_DMABUF &&
				  strcmp(why, c[i].why) == 0, "dmabuf %d: %s", c[i].err, why);
	}
	return GPUDP_TEST_PASS;
}

static int
each_backend_asked_for_is_checked_alone(void)
{
	struct gpudp_mem_pin_facts f = all_there;
	enum gpudp_pin_backend chosen;
	char why[300];
	int rc;

	rc = decide(GPUDP_PIN_KMOD, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_KMOD &&
			  strcmp(why, "kmod: " DEV " opened") == 0, "kmod: %d %s", rc, why);
	rc = decide(GPUDP_PIN_DMABUF, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_DMABUF &&
			  strcmp(why, "dmabuf: " DEV " imports dma-bufs and gpudev exports "
				 "them") == 0, "dmabuf: %d %s", rc, why);
	f.caps = 0;
	rc = decide(GPUDP_PIN_DMABUF, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strstr(why, "GPUDP_PIN_CAP_DMABUF"),
			  "dmabuf without the capability: %d %s", rc, why);
	f.caps = GPUDP_PIN_CAP_DMABUF;
	f.exporter = NULL;
	f.no_export = "GPU 0 cannot export dma-bufs";
	rc = decide(GPUDP_PIN_DMABUF, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strcmp(why, "GPU 0 cannot export dma-bufs") == 0,
			  "dmabuf without an exporter: %d %s", rc, why);
	/* peermem never looks at the module */
	f = no_module;
	rc = decide(GPUDP_PIN_PEERMEM, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && chosen == GPUDP_PIN_PEERMEM &&
			  strcmp(why, "peermem needs mlx5 ports: port 0 is net_null") == 0,
			  "peermem, not mlx5: %d %s", rc, why);
	f.no_peermem = NULL;
	rc = decide(GPUDP_PIN_PEERMEM, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == -ENOTSUP && strcmp(why, "peermem needs mlx5 ports") == 0,
			  "peermem, generic: %d %s", rc, why);
	f.peermem = 1;
	rc = decide(GPUDP_PIN_PEERMEM, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && strstr(why, "every port is mlx5"), "peermem, mlx5: %s",
			  why);
	f.peermem = -1;
	rc = decide(GPUDP_PIN_PEERMEM, &f, &chosen, why, sizeof(why));
	GPUDP_TEST_ASSERT(rc == 0 && chosen == GPUDP_PIN_PEERMEM && strstr(why, "no pin here"),
			  "peermem, not asked: %s", why);
	return GPUDP_TEST_PASS;
}

static int
an_unknown_backend_is_einval(void)
{
	enum gpudp_pin_backend chosen;
	char why[100];
	int rc = decide((enum gpudp_pin_backend)42, &all_there, &chosen, why, sizeof(why));

	GPUDP_TEST_ASSERT(rc == -EINVAL && strcmp(why, "unknown pin backend 42") == 0, "%d %s",
			  rc, why);
	return GPUDP_TEST_PASS;
}

static int
a_short_or_missing_reason_buffer_is_safe(void)
{
	enum gpudp_pin_backend chosen = GPUDP_PIN_AUTO;
	char why[12];

	GPUDP_TEST_ASSERT(gpudp_mem_pin_decide(GPUDP_PIN_AUTO, &no_module, &chosen, NULL, 0) ==
			  -ENOTSUP && chosen == GPUDP_PIN_PEERMEM, "NULL reason buffer");
	GPUDP_TEST_ASSERT(decide(GPUDP_PIN_AUTO, &no_module, &chosen, why, sizeof(why)) ==
			  -ENOTSUP && strcmp(why, "no pin back") == 0, "cut: '%s'", why);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "auto_prefers_dmabuf_when_the_module_imports_and_the_gpu_exports",
	  auto_prefers_dmabuf_when_the_module_imports_and_the_gpu_exports },
	{ "auto_takes_kmod_when_the_module_has_no_dmabuf_import",
	  auto_takes_kmod_when_the_module_has_no_dmabuf_import },
	{ "auto_takes_kmod_when_the_allocator_cannot_export",
	  auto_takes_kmod_when_the_allocator_cannot_export },
	{ "auto_without_the_module_takes_peermem_unless_the_ports_are_not_mlx5",
	  auto_without_the_module_takes_peermem_unless_the_ports_are_not_mlx5 },
	{ "module_errors_are_named", module_errors_are_named },
	{ "each_backend_asked_for_is_checked_alone", each_backend_asked_for_is_checked_alone },
	{ "an_unknown_backend_is_einval", an_unknown_backend_is_einval },
	{ "a_short_or_missing_reason_buffer_is_safe", a_short_or_missing_reason_buffer_is_safe },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("mem_pin_rule", cases, argc, argv);
}
