/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work API (lib/work/gpudp_work.h): the built-in works and their
 * verdict names and argument; every rule of a descriptor's validation,
 * refused with a message that says what is wrong; a work registered
 * through the API run by a cpu mode handoff (verdicts, results, counters,
 * its argument, segments); the GPU image format check on made-up images,
 * including short ones at the end of a readable page; and the loader on
 * shared objects built by meson (works/), one for each way a work's file
 * can be bad. No EAL, no GPU.
 *
 * usage: test_work [--works DIR] [CASE...]   (DIR: where works/ was built)
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "gpudp_fwd_pkt.h"
#include "gpudp_handoff.h"
#include "gpudp_handoff_pvt.h"
#include "gpudp_work.h"
#include "gpudp_work_pvt.h"
#include "gpudp_test.h"
#include "state_work.h"

static const char *works_dir;

/* ---- a work defined here, registered through the API ---- */

struct api_params {
	uint32_t tag;
};

/* what the work saw of each packet */
struct api_result {
	uint32_t tag;
	uint32_t nb_segs;
	uint32_t pkt_len;
	uint32_t seg_len[2];
	uint32_t seg1_first;  /* the first byte of segment 1, or 0xffff */
};

/* verdict: the frame's first byte (3 and up are out of range: "error") */
GPUDP_WORK_FN uint32_t
api_pkt(struct gpudp_work_pkt *p)
{
	const struct api_params *prm = p->params;
	struct api_result r = {
		.tag = prm->tag, .nb_segs = p->nb_segs, .pkt_len = p->pkt_len,
		.seg_len = { p->seg_len[0], p->nb_segs > 1 ? p->seg_len[1] : 0 },
		.seg1_first = p->nb_segs > 1 ? p->seg[1][0] : 0xffff,
	};

	memcpy(p->result, &r, sizeof(r));
	gpudp_work_count(p, 0, 1);
	gpudp_work_count(p, 1, p->pkt_len);
	gpudp_work_count(p, 2, prm->tag);
	return p->seg[0][0];
}

GPUDP_WORK_CPU(api_cpu, api_pkt)

static int
api_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct api_params *p = params;
	char *end;

	if (arg == NULL || *arg == '\0') {
		p->tag = 7;
		return 0;
	}
	if (arg[0] < '0' || arg[0] > '9' || (p->tag = (uint32_t)strtoul(arg, &end, 10),
					      *end != '\0')) {
		snprintf(err, err_len, "tag '%s': want digits", arg);
		return -EINVAL;
	}
	return 0;
}

static const char *const api_reasons[] = { "odd", "big" };
static const char *const api_counters[] = { "pkts", "bytes", "tags" };

/* a valid descriptor named @p name: each refusal case breaks one thing */
static struct gpudp_work
api_work(const char *name)
{
	struct gpudp_work w = {
		.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work), .name = name,
		.summary = "TEST: verdict = first byte, result = what it saw",
		.span = 64, .wspan = 12, .result_size = sizeof(struct api_result),
		.params_size = sizeof(struct api_params), .n_reasons = 2, .n_counters = 3,
		.reasons = api_reasons, .counters = api_counters, .init = api_init,
		.cpu = api_cpu,
	};

	return w;
}

/* ---- built-ins ---- */

static int
collect(const struct gpudp_work *w, void *arg)
{
	const struct gpudp_work **out = arg;
	int i;

	for (i = 0; i < 3; i++)
		if (out[i] == NULL) {
			out[i] = w;
			return 0;
		}
	return 1;   /* stop after three */
}

static int
builtins_are_registered(void)
{
	static const char *const names[] = { "macswap", "ipv4", "load" };
	const struct gpudp_work *first[3] = { NULL, NULL, NULL };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct gpudp_work *w = gpudp_work_find(names[i]);

		GPUDP_TEST_ASSERT(w != NULL, "%s not found", names[i]);
		GPUDP_TEST_ASSERT(strcmp(w->name, names[i]) == 0, "found %s for %s", w->name,
				  names[i]);
		GPUDP_TEST_ASSERT(strcmp(gpudp_work_origin(w), "built-in") == 0,
				  "%s: origin %s", names[i], gpudp_work_origin(w));
		GPUDP_TEST_ASSERT(w->abi == GPUDP_WORK_ABI && w->cpu != NULL, "%s", names[i]);
		GPUDP_TEST_ASSERT(gpudp_work_validate(w, NULL, 0) == 0, "%s invalid", names[i]);
	}
	GPUDP_TEST_ASSERT(gpudp_work_find("nosuchwork") == NULL, "a work nobody registered");
	GPUDP_TEST_ASSERT(gpudp_work_find("") == NULL && gpudp_work_find(NULL) == NULL,
			  "empty or NULL name found");
	GPUDP_TEST_ASSERT(gpudp_work_foreach(collect, first) != 0 || first[2] != NULL,
			  "fewer than three works");
	for (i = 0; i < 3; i++)
		GPUDP_TEST_ASSERT(first[i] == gpudp_work_find(names[i]),
				  "work %u of foreach is %s, not %s", i,
				  first[i] != NULL ? first[i]->name : "(none)", names[i]);
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_origin(&(struct gpudp_work){ .name = "x" }),
				 "unregistered") == 0, "origin of an unregistered descriptor");
	return GPUDP_TEST_PASS;
}

static int
builtin_verdict_names(void)
{
	static const char *const want[GPUDP_WORK_VERDICT_MAX] = {
		"pass", "truncated", "malformed", "not_ipv4", "bad_csum", "ttl",
		[GPUDP_WORK_DROP_ERROR] = "error",
	};
	const struct gpudp_work *w = gpudp_work_find("ipv4");
	const char *s;
	uint32_t v;

	GPUDP_TEST_ASSERT(w != NULL, "ipv4 not found");
	for (v = 0; v <= GPUDP_WORK_VERDICT_MAX + 2; v++) {
		s = gpudp_work_verdict_name(w, v);
		if (v < GPUDP_WORK_VERDICT_MAX && want[v] != NULL)
			GPUDP_TEST_ASSERT(s != NULL && strcmp(s, want[v]) == 0,
					  "verdict %u: '%s', want '%s'", v, s ? s : "(null)",
					  want[v]);
		else
			GPUDP_TEST_ASSERT(s == NULL, "unused verdict %u named '%s'", v, s);
	}
	/* the built-ins share the reasons; without a work only pass and error */
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_verdict_name(gpudp_work_find("macswap"), 5),
				 "ttl") == 0, "macswap verdict 5");
	GPUDP_TEST_ASSERT(gpudp_work_verdict_name(NULL, 1) == NULL &&
			  strcmp(gpudp_work_verdict_name(NULL, 15), "error") == 0,
			  "verdict names without a work");
	return GPUDP_TEST_PASS;
}

static int
load_argument_is_hash_rounds(void)
{
	static const struct {
		const char *arg;
		uint32_t rounds;
	} good[] = { { NULL, 16 }, { "", 16 }, { "5", 5 }, { "0", 0 }, { "1000000", 1000000 } };
	static const char *const bad[] = { "x", "-1", "1000001", " 5", "5x", "+5", "0x10" };
	const struct gpudp_work *w = gpudp_work_find("load");
	struct gpudp_fwd_load_params p;
	char err[256];
	unsigned int i;
	int ret;

	GPUDP_TEST_ASSERT(w != NULL && w->params_size == sizeof(p), "load's parameters");
	for (i = 0; i < RTE_DIM(good); i++) {
		p.rounds = 12345;
		ret = gpudp_work_params(w, good[i].arg, &p, err, sizeof(err));
		GPUDP_TEST_ASSERT(ret == 0 && p.rounds == good[i].rounds,
				  "'%s': %d, %u rounds (want %u)", good[i].arg ? good[i].arg : "(null)",
				  ret, p.rounds, good[i].rounds);
	}
	for (i = 0; i < RTE_DIM(bad); i++) {
		char want[64];

		err[0] = '\0';
		ret = gpudp_work_params(w, bad[i], &p, err, sizeof(err));
		snprintf(want, sizeof(want), "hash rounds '%s'", bad[i]);
		GPUDP_TEST_ASSERT(ret == -EINVAL && strstr(err, want) != NULL &&
				  strstr(err, "work load") != NULL,
				  "'%s' accepted or not explained: %d '%s'", bad[i], ret, err);
	}
	/* a work without init takes no argument */
	w = gpudp_work_find("macswap");
	ret = gpudp_work_params(w, "1", NULL, err, sizeof(err));
	GPUDP_TEST_ASSERT(ret == -EINVAL && strstr(err, "takes no argument") != NULL,
			  "macswap took an argument: %d '%s'", ret, err);
	GPUDP_TEST_ASSERT(gpudp_work_params(w, "", NULL, err, sizeof(err)) == 0 &&
			  gpudp_work_params(w, NULL, NULL, err, sizeof(err)) == 0,
			  "macswap refused no argument");
	return GPUDP_TEST_PASS;
}

/* ---- registration and its validation ---- */

/* @p w is refused with @p want and a message containing @p says, and is
 * not registered */
static int
refused(const struct gpudp_work *w, int want, const char *says, const char *what)
{
	char err[256] = "";
	int ret = gpudp_work_register(w, err, sizeof(err));

	if (ret != want || strstr(err, says) == NULL) {
		fprintf(stderr, "    %s: returned %d, said '%s' (want %d, '%s')\n", what, ret,
			err, want, says);
		return 0;
	}
	if (w != NULL && w->name != NULL && gpudp_work_find(w->name) == w) {
		fprintf(stderr, "    %s: refused but registered\n", what);
		return 0;
	}
	return 1;
}

#define REFUSED(w, want, says) \
	GPUDP_TEST_ASSERT(refused(w, want, says, #w " " #want), "%s", says)

static int
register_refuses_wrong_abi_and_size(void)
{
	struct gpudp_work w = api_work("unit_abi");

	REFUSED(NULL, -EINVAL, "no descriptor");
	w.abi = GPUDP_WORK_ABI + 1;
	REFUSED(&w, -EPROTO, "built for work ABI 5, this gpudp has ABI 4");
	w.abi = 0;
	REFUSED(&w, -EPROTO, "built for work ABI 0");
	w = api_work("unit_abi");
	w.size = sizeof(w) - 8;
	REFUSED(&w, -EPROTO, "descriptor of");
	w.size = sizeof(w) + 8;
	REFUSED(&w, -EPROTO, "bytes, ABI 4 has");
	/* a descriptor built without the state fields: no state, accepted */
	w.size = GPUDP_WORK_SIZE_NO_STATE;
	w.n_states = 3;  /* not read */
	GPUDP_TEST_ASSERT(gpudp_work_validate(&w, NULL, 0) == 0 && gpudp_work_n_states(&w) == 0 &&
			  gpudp_work_collect(&w) == NULL, "a descriptor without state");
	w.size = sizeof(w);
	REFUSED(&w, -EINVAL, "3 state tables: at most 8, each described (states)");
	return GPUDP_TEST_PASS;
}

static int
register_refuses_bad_names(void)
{
	static const char *const bad[] = { "", "Macswap", "a b", "a.b", "a/b", "w\xc3\xb6rk",
		"abcdefghijklmnopqrstuvwxyz012345" /* 32 bytes */ };
	struct gpudp_work w = api_work(NULL);
	char want[96];
	unsigned int i;

	REFUSED(&w, -EINVAL, "name '(null)': want [a-z0-9_-], 1..31 bytes");
	for (i = 0; i < RTE_DIM(bad); i++) {
		w.name = bad[i];
		snprintf(want, sizeof(want), "name '%s': want [a-z0-9_-]", bad[i]);
		REFUSED(&w, -EINVAL, want);
	}
	/* 31 bytes, dashes and digits are fine */
	w.name = "abcdefghijklmnopqrstuvwxyz-0123";
	GPUDP_TEST_ASSERT(gpudp_work_validate(&w, want, sizeof(want)) == 0, "%s: %s", w.name,
			  want);
	return GPUDP_TEST_PASS;
}

static int
register_refuses_work_without_cpu_form(void)
{
	struct gpudp_work w = api_work("unit_no_cpu");

	w.cpu = NULL;
	REFUSED(&w, -EINVAL, "no CPU form (cpu)");
	return GPUDP_TEST_PASS;
}

static int
register_refuses_write_span_over_span(void)
{
	struct gpudp_work w = api_work("unit_wspan");
	char err[200];

	w.span = 14;
	w.wspan = 15;
	REFUSED(&w, -EINVAL, "write span 15 exceeds span 14");
	w.wspan = 14;
	GPUDP_TEST_ASSERT(gpudp_work_validate(&w, err, sizeof(err)) == 0, "wspan == span: %s",
			  err);
	w.span = 0;   /* the whole frame: any write span */
	w.wspan = 9000;
	GPUDP_TEST_ASSERT(gpudp_work_validate(&w, err, sizeof(err)) == 0, "span 0: %s", err);
	return GPUDP_TEST_PASS;
}

static int
register_refuses_sizes_over_limits(void)
{
	static const char *const many[GPUDP_WORK_REASONS_MAX + 1] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11",
		"r12", "r13", "r14",
	};
	static char cname[GPUDP_WORK_COUNTERS_MAX + 1][8];
	static const char *counters[GPUDP_WORK_COUNTERS_MAX + 1];
	struct gpudp_work w = api_work("unit_limits");
	char err[200];
	unsigned int k;

	for (k = 0; k < GPUDP_WORK_COUNTERS_MAX + 1; k++) {
		snprintf(cname[k], sizeof(cname[k]), "c%u", k);
		counters[k] = cname[k];
	}
	w.result_size = GPUDP_WORK_RESULT_MAX + 1;
	REFUSED(&w, -EINVAL, "result of 65 bytes: at most 64");
	w = api_work("unit_limits");
	w.params_size = GPUDP_WORK_PARAMS_MAX + 1;
	REFUSED(&w, -EINVAL, "parameters of 65537 bytes: at most 65536");
	w = api_work("unit_limits");
	w.reasons = many;
	w.n_reasons = GPUDP_WORK_REASONS_MAX + 1;
	REFUSED(&w, -EINVAL, "15 drop reasons: at most 14");
	w = api_work("unit_limits");
	w.counters = counters;
	w.n_counters = GPUDP_WORK_COUNTERS_MAX + 1;
	REFUSED(&w, -EINVAL, "65 counters: at most 64");
	/* and the limits themselves are accepted */
	w = api_work("unit_limits");
	w.result_size = GPUDP_WORK_RESULT_MAX;
	w.params_size = GPUDP_WORK_PARAMS_MAX;
	w.reasons = many;
	w.n_reasons = GPUDP_WORK_REASONS_MAX;
	w.counters = counters;
	w.n_counters = GPUDP_WORK_COUNTERS_MAX;
	GPUDP_TEST_ASSERT(gpudp_work_validate(&w, err, sizeof(err)) == 0, "at the limits: %s",
			  err);
	return GPUDP_TEST_PASS;
}

static int
register_refuses_bad_reason_and_counter_names(void)
{
	static const char *const pass[] = { "pass" }, *const error[] = { "x", "error" };
	static const char *const dup[] = { "dup", "dup" }, *const null[] = { "x", NULL };
	static const char *const dash[] = { "a-b" }, *const upper[] = { "Pkts" };
	static const char *const empty[] = { "" };
	static const char *const long32[] = { "abcdefghijklmnopqrstuvwxyz012345" };
	struct gpudp_work w = api_work("unit_reasons");

	w.n_reasons = 1;
	w.reasons = NULL;
	REFUSED(&w, -EINVAL, "1 reason but no names");
	w.reasons = pass;
	REFUSED(&w, -EINVAL, "reason 0: name 'pass': want [a-z0-9_], 1..31 bytes, not 'pass' "
		"or 'error'");
	w.reasons = dash;
	REFUSED(&w, -EINVAL, "reason 0: name 'a-b'");
	w.reasons = empty;
	REFUSED(&w, -EINVAL, "reason 0: name ''");
	w.reasons = long32;
	REFUSED(&w, -EINVAL, "reason 0: name 'abcdefghijklmnopqrstuvwxyz012345'");
	w.n_reasons = 2;
	w.reasons = error;
	REFUSED(&w, -EINVAL, "reason 1: name 'error'");
	w.reasons = null;
	REFUSED(&w, -EINVAL, "reason 1: name '(null)'");
	w.reasons = dup;
	REFUSED(&w, -EINVAL, "reason 'dup' named twice");
	w = api_work("unit_reasons");
	w.n_counters = 1;
	w.counters = NULL;
	REFUSED(&w, -EINVAL, "1 counter but no names");
	w.counters = upper;
	REFUSED(&w, -EINVAL, "counter 0: name 'Pkts'");
	w.n_counters = 2;
	w.counters = dup;
	REFUSED(&w, -EINVAL, "counter 'dup' named twice");
	return GPUDP_TEST_PASS;
}

static int
register_refuses_corrupt_gpu_image(void)
{
	static const uint8_t junk[64] = { 0x13, 0x37, 0xc0, 0xde };
	struct gpudp_work w = api_work("unit_image");

	w.gpu_image = junk;
	w.gpu_image_size = sizeof(junk);
	REFUSED(&w, -ENOEXEC, "GPU image: not a fatbin, a cubin or PTX (first bytes 13 37 c0 de)");
	return GPUDP_TEST_PASS;
}

static int
register_accepts_a_valid_work_once(void)
{
	static struct gpudp_work w, twin, builtin;
	char err[200] = "";
	int ret;

	w = api_work("unit_valid");
	ret = gpudp_work_register(&w, err, sizeof(err));
	GPUDP_TEST_ASSERT(ret == 0, "refused: %d %s", ret, err);
	GPUDP_TEST_ASSERT(gpudp_work_find("unit_valid") == &w, "not found by its name");
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_origin(&w), "registered") == 0, "origin %s",
			  gpudp_work_origin(&w));
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_verdict_name(&w, 2), "big") == 0 &&
			  gpudp_work_verdict_name(&w, 3) == NULL, "verdict names");
	twin = w;   /* another descriptor, the same name */
	REFUSED(&twin, -EEXIST, "a work named 'unit_valid' is already registered (registered)");
	ret = gpudp_work_register(&w, err, sizeof(err));
	GPUDP_TEST_ASSERT(ret == -EEXIST && strstr(err, "already registered") != NULL,
			  "registered twice: %d '%s'", ret, err);
	builtin = api_work("macswap");
	REFUSED(&builtin, -EEXIST, "a work named 'macswap' is already registered (built-in)");
	GPUDP_TEST_ASSERT(gpudp_work_find("unit_valid") == &w &&
			  gpudp_work_find("macswap") != &builtin, "a refused twin replaced a work");
	return GPUDP_TEST_PASS;
}

/* ---- a registered work in a cpu mode handoff ---- */

static const struct gpudp_work *
api_registered(void)
{
	static struct gpudp_work w;
	char err[200];

	if (gpudp_work_find("unit_api") == NULL) {
		w = api_work("unit_api");
		if (gpudp_work_register(&w, err, sizeof(err)) != 0) {
			fprintf(stderr, "    register: %s\n", err);
			return NULL;
		}
	}
	return gpudp_work_find("unit_api");
}

static int
registered_work_runs_in_cpu_handoff(void)
{
	static const uint8_t first[] = { 0, 1, 2, 3, 200 };
	static uint8_t pkt[8][128];
	const struct gpudp_work *w = api_registered();
	struct gpudp_handoff_conf c = { .name = "unit-api", .mode = GPUDP_HO_CPU, .work = w,
					.work_arg = "42", .ring_size = 4, .burst_max = 8 };
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	struct gpudp_handoff *h;
	struct gpudp_ho_burst *b;
	struct api_result r;
	uint32_t i, bytes = 0;

	GPUDP_TEST_ASSERT(w != NULL && s != NULL, "setup");
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "create: rte_errno %d", rte_errno);
	GPUDP_TEST_ASSERT(gpudp_handoff_work(h) == w, "runs another work");
	/* burst 1: a pass, both reasons, two out-of-range verdicts */
	b = gpudp_handoff_acquire(h);
	GPUDP_TEST_ASSERT(b != NULL && b->result_size == sizeof(r), "acquire");
	for (i = 0; i < RTE_DIM(first); i++) {
		memset(pkt[i], 0x5a, sizeof(pkt[i]));
		pkt[i][0] = first[i];
		gpudp_ho_burst_add(b, pkt[i], 60 + i, NULL);
		bytes += 60 + i;
	}
	GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit");
	b = gpudp_handoff_completed(h);
	GPUDP_TEST_ASSERT(b != NULL && b->n == RTE_DIM(first), "not completed");
	GPUDP_TEST_ASSERT(b->n_pass == 1, "%u passed, want 1", b->n_pass);
	for (i = 0; i < RTE_DIM(first); i++) {
		uint8_t want = first[i] <= 2 ? first[i] : GPUDP_WORK_DROP_ERROR;

		GPUDP_TEST_ASSERT(b->verdict[i] == want, "packet %u: verdict %u, want %u", i,
				  b->verdict[i], want);
		GPUDP_TEST_ASSERT(b->result != NULL, "no results");
		memcpy(&r, b->result + i * sizeof(r), sizeof(r));
		GPUDP_TEST_ASSERT(r.tag == 42 && r.pkt_len == 60 + i && r.nb_segs == 1 &&
				  r.seg_len[0] == 60 + i && r.seg1_first == 0xffff,
				  "packet %u: result tag %u len %u segs %u", i, r.tag, r.pkt_len,
				  r.nb_segs);
	}
	GPUDP_TEST_ASSERT(b->counters[0] == 5 && b->counters[1] == bytes &&
			  b->counters[2] == 5 * 42, "burst counters %" PRIu64 " %" PRIu64
			  " %" PRIu64, b->counters[0], b->counters[1], b->counters[2]);
	gpudp_handoff_release(h, b);
	/* burst 2: every packet passes (verdicts not written) */
	b = gpudp_handoff_acquire(h);
	GPUDP_TEST_ASSERT(b != NULL, "acquire 2");
	for (i = 0; i < 3; i++) {
		memset(pkt[i], 0, sizeof(pkt[i]));
		gpudp_ho_burst_add(b, pkt[i], 100, NULL);
	}
	GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit 2");
	b = gpudp_handoff_completed(h);
	GPUDP_TEST_ASSERT(b != NULL && b->n == 3 && b->n_pass == 3, "burst 2: %u of %u passed",
			  b ? b->n_pass : 0, b ? b->n : 0);
	GPUDP_TEST_ASSERT(b->counters[0] == 3 && b->counters[1] == 300,
			  "burst 2's counters start from zero: %" PRIu64, b->counters[0]);
	gpudp_handoff_release(h, b);
	gpudp_handoff_stats_get(h, s);
	GPUDP_TEST_ASSERT(s->pkts_done == 8 && s->pkts_pass == 4, "done %" PRIu64 ", pass %"
			  PRIu64, s->pkts_done, s->pkts_pass);
	GPUDP_TEST_ASSERT(s->drops[1] == 1 && s->drops[2] == 1 &&
			  s->drops[GPUDP_WORK_DROP_ERROR] == 2, "drops odd %" PRIu64 " big %"
			  PRIu64 " error %" PRIu64, s->drops[1], s->drops[2],
			  s->drops[GPUDP_WORK_DROP_ERROR]);
	for (i = 3; i < GPUDP_WORK_DROP_ERROR; i++)
		GPUDP_TEST_ASSERT(s->drops[i] == 0, "drops[%u] = %" PRIu64, i, s->drops[i]);
	GPUDP_TEST_ASSERT(s->counters[0] == 8 && s->counters[1] == bytes + 300 &&
			  s->counters[2] == 8 * 42 && s->counters[3] == 0,
			  "summed counters %" PRIu64 " %" PRIu64 " %" PRIu64, s->counters[0],
			  s->counters[1], s->counters[2]);
	gpudp_handoff_destroy(h);
	free(s);
	return GPUDP_TEST_PASS;
}

/*
 * Drops by verdict in bursts longer than 8 (gpudp_handoff_release() takes
 * 8 verdicts at a time where they are all one): runs of one drop reason,
 * of passes and of mixed verdicts, out-of-range ones, and a tail, each
 * counted as one packet at a time counts them.
 */
static int
drops_counted_in_long_bursts(void)
{
	static uint8_t pkt[61][64];
	const struct gpudp_work *w = api_registered();
	struct gpudp_handoff_conf c = { .name = "unit-drops", .mode = GPUDP_HO_CPU, .work = w,
					.work_arg = "1", .ring_size = 2, .burst_max = 64 };
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	uint64_t want[GPUDP_WORK_VERDICT_MAX] = { 0 };
	struct gpudp_handoff *h;
	struct gpudp_ho_burst *b;
	uint32_t i, r;

	GPUDP_TEST_ASSERT(w != NULL && s != NULL, "setup");
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "create: rte_errno %d", rte_errno);
	for (r = 0; r < 3; r++) {
		b = gpudp_handoff_acquire(h);
		GPUDP_TEST_ASSERT(b != NULL, "acquire %u", r);
		for (i = 0; i < RTE_DIM(pkt); i++) {
			/* 16 of reason 1, 8 passes, 8 mixed, 16 of reason 2,
			 * 13 mixed; the second burst all reason 2, the third
			 * all out of range */
			static const uint8_t mixed[] = { 0, 1, 2, 3, 1, 2, 0, 200 };
			uint8_t v = r == 1 ? 2 : r == 2 ? 7 : i < 16 ? 1 : i < 24 ? 0 :
				i < 32 ? mixed[i - 24] : i < 48 ? 2 : mixed[i % 8];

			memset(pkt[i], 0, sizeof(pkt[i]));
			pkt[i][0] = v;
			gpudp_ho_burst_add(b, pkt[i], sizeof(pkt[i]), NULL);
			if (v != GPUDP_WORK_PASS)
				want[v <= 2 ? v : GPUDP_WORK_DROP_ERROR]++;
		}
		GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit %u", r);
		b = gpudp_handoff_completed(h);
		GPUDP_TEST_ASSERT(b != NULL && b->n == RTE_DIM(pkt), "burst %u not completed", r);
		gpudp_handoff_release(h, b);
	}
	gpudp_handoff_stats_get(h, s);
	for (i = 0; i < GPUDP_WORK_VERDICT_MAX; i++)
		GPUDP_TEST_ASSERT(s->drops[i] == want[i], "drops[%u] = %" PRIu64 ", want %" PRIu64,
				  i, s->drops[i], want[i]);
	GPUDP_TEST_ASSERT(want[1] > 16 && want[2] > 61 && want[GPUDP_WORK_DROP_ERROR] > 61,
			  "the bursts hold what they should");
	gpudp_handoff_destroy(h);
	free(s);
	return GPUDP_TEST_PASS;
}

/* the persistent defaults from the blocks' model, and the pollers' limits
 * (checked in every mode, before the mode's own set-up) */
static int
persistent_defaults_and_pollers_limits(void)
{
	static const struct { uint32_t burst, ring, blocks; } want[] = {
		{ 32, 64, 19 }, { 256, 64, 5 }, { 1024, 64, 3 }, { 4096, 64, 3 },
		{ 1, 64, 64 }, { 32, 8, 8 }, { 4096, 2, 2 },
	};
	struct gpudp_handoff_conf c = { .name = "unit-poll", .mode = GPUDP_HO_CPU };
	const struct gpudp_handoff_conf *got;
	struct gpudp_handoff *h;
	uint32_t i;

	for (i = 0; i < RTE_DIM(want); i++) {
		c.burst_max = want[i].burst;
		c.ring_size = want[i].ring;
		h = gpudp_handoff_create(&c);
		GPUDP_TEST_ASSERT(h != NULL, "burst %u ring %u refused", want[i].burst,
				  want[i].ring);
		got = gpudp_handoff_conf_get(h);
		GPUDP_TEST_ASSERT(got->persistent_blocks == want[i].blocks &&
				  got->persistent_pollers == 4,
				  "burst %u ring %u: %u blocks (want %u), %u pollers", want[i].burst,
				  want[i].ring, got->persistent_blocks, want[i].blocks,
				  got->persistent_pollers);
		gpudp_handoff_destroy(h);
	}
	c.burst_max = 32;
	c.ring_size = 64;
	c.threads = 64;   /* two warps: two pollers at most, and by default */
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL && gpudp_handoff_conf_get(h)->persistent_pollers == 2,
			  "64 threads: %u pollers", h ? gpudp_handoff_conf_get(h)->persistent_pollers : 0);
	gpudp_handoff_destroy(h);
	c.persistent_pollers = 3;
	rte_errno = 0;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h == NULL && rte_errno == EINVAL, "3 pollers in 2 warps (errno %d)",
			  rte_errno);
	c.threads = 1024;
	c.persistent_pollers = GPUDP_HO_POLLERS_MAX + 1;
	rte_errno = 0;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h == NULL && rte_errno == EINVAL, "%u pollers (errno %d)",
			  GPUDP_HO_POLLERS_MAX + 1, rte_errno);
	c.persistent_pollers = GPUDP_HO_POLLERS_MAX;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "%u pollers refused", GPUDP_HO_POLLERS_MAX);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

static int
refused_work_arg_fails_handoff_create(void)
{
	struct gpudp_handoff_conf c = { .name = "unit-arg", .mode = GPUDP_HO_CPU,
					.work = api_registered(), .work_arg = "nope",
					.ring_size = 4, .burst_max = 8 };
	struct gpudp_work unreg = api_work("unit_unreg");
	struct gpudp_handoff *h;
	struct api_params p;
	char err[256];
	int ret;

	GPUDP_TEST_ASSERT(c.work != NULL, "setup");
	rte_errno = 0;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h == NULL && rte_errno == EINVAL, "argument 'nope' accepted (errno %d)",
			  rte_errno);
	ret = gpudp_work_params(c.work, "nope", &p, err, sizeof(err));
	GPUDP_TEST_ASSERT(ret == -EINVAL && strstr(err, "work unit_api: tag 'nope': want digits"),
			  "%d '%s'", ret, err);
	/* a work without init refuses any argument */
	c.work = gpudp_work_find("macswap");
	c.work_arg = "3";
	rte_errno = 0;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h == NULL && rte_errno == EINVAL, "macswap took '3' (errno %d)",
			  rte_errno);
	/* an invalid descriptor is refused too */
	unreg.abi = GPUDP_WORK_ABI + 1;
	c.work = &unreg;
	c.work_arg = NULL;
	rte_errno = 0;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h == NULL && rte_errno == EINVAL, "bad ABI accepted (errno %d)",
			  rte_errno);
	/* and with no argument the init's default applies */
	c.work = api_registered();
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "no argument refused (errno %d)", rte_errno);
	GPUDP_TEST_ASSERT(gpudp_work_params(c.work, NULL, &p, err, sizeof(err)) == 0 &&
			  p.tag == 7, "default tag %u", p.tag);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

static int
two_segment_packet_seen_as_its_segments(void)
{
	static uint8_t head[2][20], tail[30], whole[40];
	struct gpudp_handoff_conf c = { .name = "unit-seg", .mode = GPUDP_HO_CPU,
					.work = api_registered(), .segs = 2,
					.ring_size = 2, .burst_max = 4 };
	struct gpudp_handoff *h;
	struct gpudp_ho_burst *b;
	struct api_result r[3];

	GPUDP_TEST_ASSERT(c.work != NULL, "setup");
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "create with 2 segments: errno %d", rte_errno);
	b = gpudp_handoff_acquire(h);
	GPUDP_TEST_ASSERT(b != NULL && b->segs == 2, "acquire");
	tail[0] = 0xab;
	/* a 2-segment packet, a 1-segment one, and a 2-segment one again */
	GPUDP_TEST_ASSERT(gpudp_ho_burst_add(b, head[0], sizeof(head[0]), NULL) == 0 &&
			  gpudp_ho_burst_seg(b, 0, 1, tail, sizeof(tail)) == 0, "packet 0");
	GPUDP_TEST_ASSERT(gpudp_ho_burst_add(b, whole, sizeof(whole), NULL) == 0, "packet 1");
	GPUDP_TEST_ASSERT(gpudp_ho_burst_add(b, head[1], 9, NULL) == 0 &&
			  gpudp_ho_burst_seg(b, 2, 1, tail + 1, 5) == 0, "packet 2");
	GPUDP_TEST_ASSERT(gpudp_ho_burst_seg(b, 0, 2, tail, 1) == -EINVAL &&
			  gpudp_ho_burst_seg(b, 0, 0, tail, 1) == -EINVAL,
			  "segment out of 1..segs-1 accepted");
	GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit");
	b = gpudp_handoff_completed(h);
	GPUDP_TEST_ASSERT(b != NULL && b->n == 3 && b->n_pass == 3, "completed");
	memcpy(r, b->result, sizeof(r));
	GPUDP_TEST_ASSERT(r[0].nb_segs == 2 && r[0].seg_len[0] == 20 && r[0].seg_len[1] == 30 &&
			  r[0].pkt_len == 50 && r[0].seg1_first == 0xab,
			  "packet 0 seen as %u segments %u + %u = %u, seg 1 starts %#x",
			  r[0].nb_segs, r[0].seg_len[0], r[0].seg_len[1], r[0].pkt_len,
			  r[0].seg1_first);
	GPUDP_TEST_ASSERT(r[1].nb_segs == 1 && r[1].seg_len[0] == 40 && r[1].pkt_len == 40,
			  "packet 1 seen as %u segments, %u bytes", r[1].nb_segs, r[1].pkt_len);
	GPUDP_TEST_ASSERT(r[2].nb_segs == 2 && r[2].seg_len[0] == 9 && r[2].seg_len[1] == 5 &&
			  r[2].pkt_len == 14 && r[2].seg1_first == 0,
			  "packet 2 seen as %u segments, %u bytes", r[2].nb_segs, r[2].pkt_len);
	GPUDP_TEST_ASSERT(b->counters[1] == 50 + 40 + 14, "bytes counted %" PRIu64,
			  b->counters[1]);
	gpudp_handoff_release(h, b);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

/* ---- the GPU image format check ---- */

static void
wr_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	while (bytes-- > 0) {
		*p++ = (uint8_t)v;
		v >>= 8;
	}
}

/* a fatbin header: magic, version, header size, payload size */
static void
fatbin_header(uint8_t *p, uint16_t hsize, uint64_t payload)
{
	wr_le(p, 0xba55ed50u, 4);
	wr_le(p + 4, 1, 2);
	wr_le(p + 6, hsize, 2);
	wr_le(p + 8, payload, 8);
}

/* an ELF header as a cubin's: 64-bit little-endian, section headers at
 * 64 (@p shnum of 64 bytes) */
static void
cubin_header(uint8_t *p, uint8_t cls, uint16_t machine, uint16_t shnum)
{
	memset(p, 0, 64);
	memcpy(p, "\177ELF", 4);
	p[4] = cls;
	p[5] = 1;
	p[6] = 1;
	wr_le(p + 16, 2, 2);      /* ET_EXEC */
	wr_le(p + 18, machine, 2);
	wr_le(p + 20, 1, 4);
	wr_le(p + 40, 64, 8);     /* e_shoff */
	wr_le(p + 52, 64, 2);     /* e_ehsize */
	wr_le(p + 58, 64, 2);     /* e_shentsize */
	wr_le(p + 60, shnum, 2);
}

/* gpudp_work_image_check() of @p len bytes at @p p given as @p size */
static int
image(const void *p, size_t size, char *err, size_t err_len)
{
	struct gpudp_work w = { .gpu_image = p, .gpu_image_size = size };

	err[0] = '\0';
	return gpudp_work_image_check(&w, err, err_len);
}

#define IMAGE_OK(p, size) do { \
	char e_[200]; \
	int r_ = image(p, size, e_, sizeof(e_)); \
	GPUDP_TEST_ASSERT(r_ == 0, "size %zu refused: %d '%s'", (size_t)(size), r_, e_); \
} while (0)

#define IMAGE_BAD(p, size, says) do { \
	char e_[200]; \
	int r_ = image(p, size, e_, sizeof(e_)); \
	GPUDP_TEST_ASSERT(r_ == -ENOEXEC && strstr(e_, says) != NULL, \
			  "size %zu: %d '%s', want -ENOEXEC and '%s'", (size_t)(size), r_, e_, \
			  says); \
} while (0)

static int
image_check_fatbin(void)
{
	uint8_t b[16 + 48] = { 0 };

	fatbin_header(b, 16, 48);
	IMAGE_OK(b, sizeof(b));
	IMAGE_OK(b, 0);                /* size from the header */
	IMAGE_OK(b, sizeof(b) + 100);  /* more than it says: padding */
	IMAGE_BAD(b, sizeof(b) - 1, "corrupt fatbin header (says 64 bytes, has fewer)");
	IMAGE_BAD(b, 10, "GPU image of 10 bytes: too short to be one");
	fatbin_header(b, 8, 48);       /* a header size below the header's own */
	IMAGE_BAD(b, sizeof(b), "corrupt fatbin header");
	IMAGE_BAD(b, 0, "corrupt fatbin header");
	/* a payload size that wraps the sum around */
	fatbin_header(b, 16, UINT64_MAX - 15);
	IMAGE_BAD(b, sizeof(b), "corrupt fatbin header");
	fatbin_header(b, 0xffff, UINT64_MAX);
	IMAGE_BAD(b, sizeof(b), "corrupt fatbin header");
	return GPUDP_TEST_PASS;
}

static int
image_check_cubin(void)
{
	uint8_t b[64 + 3 * 64] = { 0 };

	cubin_header(b, 2, 190, 3);
	IMAGE_OK(b, sizeof(b));
	IMAGE_OK(b, 0);
	IMAGE_BAD(b, sizeof(b) - 1, "cubin cut short (255 of 256 bytes)");
	IMAGE_BAD(b, 100, "cubin cut short");
	cubin_header(b, 1, 190, 3);    /* 32-bit */
	IMAGE_BAD(b, sizeof(b), "an ELF file but not a 64-bit CUDA cubin");
	cubin_header(b, 2, 62, 3);     /* x86-64 */
	IMAGE_BAD(b, sizeof(b), "not a 64-bit CUDA cubin");
	/* section headers that wrap the end around */
	cubin_header(b, 2, 190, 3);
	wr_le(b + 40, UINT64_MAX - 64, 8);
	IMAGE_BAD(b, sizeof(b), "cubin cut short");
	return GPUDP_TEST_PASS;
}

static int
image_check_ptx(void)
{
	static const char ptx[] = "//\n// Generated\n.version 8.0\n.target sm_80\n"
				  ".address_size 64\n.visible .entry k() { ret; }\n";
	static const char no_target[] = ".version 8.0\n.address_size 64\n";
	static const char no_version[] = "\t.target sm_90\r\n";
	char buf[sizeof(ptx)];

	IMAGE_OK(ptx, strlen(ptx));
	IMAGE_OK(ptx, sizeof(ptx));    /* with its NUL */
	IMAGE_OK(ptx, 0);              /* up to its NUL */
	IMAGE_BAD(no_target, 0, "not a fatbin, a cubin or PTX (first bytes 2e 76 65 72)");
	IMAGE_BAD(no_target, strlen(no_target), "not a fatbin, a cubin or PTX");
	IMAGE_BAD(no_version, 0, "not a fatbin, a cubin or PTX");
	/* text stops at a control byte: what follows is not looked at */
	memcpy(buf, ptx, sizeof(ptx));
	buf[20] = '\001';
	IMAGE_BAD(buf, sizeof(buf), "not a fatbin, a cubin or PTX");
	IMAGE_BAD(buf, 0, "not a fatbin, a cubin or PTX");
	return GPUDP_TEST_PASS;
}

static int
image_check_random_bytes(void)
{
	uint8_t b[512];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int i, round;
	struct gpudp_work none = { .gpu_image = NULL };

	for (round = 0; round < 64; round++) {
		for (i = 0; i < sizeof(b); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b[i] = (uint8_t)x;
		}
		b[0] |= 0x80;   /* neither a magic nor text */
		b[sizeof(b) - 1] = 0;
		IMAGE_BAD(b, sizeof(b), "not a fatbin, a cubin or PTX");
		IMAGE_BAD(b, 0, "not a fatbin, a cubin or PTX");
	}
	GPUDP_TEST_ASSERT(gpudp_work_image_check(&none, NULL, 0) == 0, "no image refused");
	return GPUDP_TEST_PASS;
}

/*
 * Run the check in a child on @p len bytes copied to the very end of a
 * readable page followed by an unreadable one: reading past them kills
 * the child. @return the check's result, or 1000 + the signal.
 */
static int
image_at_page_end(const void *p, size_t len, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m;
	pid_t pid;
	int st;

	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1000;
	if (mprotect(m + pg, pg, PROT_NONE) != 0) {
		munmap(m, 2 * pg);
		return -1000;
	}
	memcpy(m + pg - len, p, len);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char err[200];
		int r = image(m + pg - len, size, err, sizeof(err));

		_exit(r == 0 ? 0 : r == -ENOEXEC ? 1 : 2);
	}
	munmap(m, 2 * pg);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1000;
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return WEXITSTATUS(st) == 0 ? 0 : WEXITSTATUS(st) == 1 ? -ENOEXEC : -1001;
}

static int
image_check_reads_nothing_past_a_short_image(void)
{
	static const char *const texts[] = { "", "x", ".ve", "\177EL", "\120\355",
					     ".version 8.0 .target" };
	uint8_t elf[64], fat[16];
	unsigned int i;
	int r;

	/* size 0: a text image is read up to its NUL, and no further */
	for (i = 0; i < RTE_DIM(texts); i++) {
		r = image_at_page_end(texts[i], strlen(texts[i]) + 1, 0);
		GPUDP_TEST_ASSERT(r == -ENOEXEC, "size 0, %zu-byte text '%s': %s %d",
				  strlen(texts[i]) + 1, texts[i], r >= 1000 ? "killed by signal" :
				  "result", r >= 1000 ? r - 1000 : r);
	}
	/* with a size: no header field is read past it */
	cubin_header(elf, 2, 190, 3);
	for (i = 16; i < sizeof(elf); i += 8) {
		r = image_at_page_end(elf, i, i);
		GPUDP_TEST_ASSERT(r == -ENOEXEC, "cubin header cut at %u bytes: %s %d", i,
				  r >= 1000 ? "killed by signal" : "result", r >= 1000 ? r - 1000 : r);
	}
	fatbin_header(fat, 16, 0);
	r = image_at_page_end(fat, sizeof(fat), sizeof(fat));
	GPUDP_TEST_ASSERT(r == 0, "16-byte fatbin header: %d", r);
	return GPUDP_TEST_PASS;
}

/* ---- the loader, on shared objects built by meson (works/) ---- */

static char tmpdir[] = "/tmp/gpudp-test-work-XXXXXX";

static int
work_path(char *buf, size_t len, const char *what)
{
	return snprintf(buf, len, "%s/work_%s.so", works_dir, what) < (int)len;
}

/* whether the object at @p path is loaded in the process */
static int
loaded(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

	if (dl == NULL)
		return 0;
	dlclose(dl);
	return 1;
}

/* gpudp_work_load(@p path) fails with @p want, a message naming the file
 * and saying @p says, and leaves nothing loaded (unless @p was_loaded) or
 * registered under @p name */
static int
load_fails_as(const char *path, int want, const char *says, const char *name, int was_loaded)
{
	char err[512] = "";
	const struct gpudp_work *w;

	rte_errno = 0;
	w = gpudp_work_load(path, err, sizeof(err));
	if (w != NULL || rte_errno != want) {
		fprintf(stderr, "    %s: %s, rte_errno %d (want NULL and %d): %s\n", path,
			w != NULL ? "loaded" : "refused", rte_errno, want, err);
		return 0;
	}
	if (strstr(err, path) == NULL || strstr(err, says) == NULL) {
		fprintf(stderr, "    %s: message '%s' lacks the file or '%s'\n", path, err, says);
		return 0;
	}
	if (name != NULL && gpudp_work_find(name) != NULL) {
		fprintf(stderr, "    %s: refused, yet %s is registered\n", path, name);
		return 0;
	}
	if (!was_loaded && strchr(path, '/') != NULL && loaded(path)) {
		fprintf(stderr, "    %s: refused, yet still loaded\n", path);
		return 0;
	}
	printf("    %s -> %s\n", path, err);
	return 1;
}

static int
load_fails(const char *path, int want, const char *says, const char *name)
{
	return load_fails_as(path, want, says, name, 0);
}

#define LOAD_FAILS(what, want, says, name) do { \
	char p_[1024]; \
	GPUDP_TEST_SKIP_IF(works_dir == NULL, "no --works DIR"); \
	GPUDP_TEST_ASSERT(work_path(p_, sizeof(p_), what), "path"); \
	GPUDP_TEST_ASSERT(load_fails(p_, want, says, name), "%s", what); \
} while (0)

static int
load_refuses_missing_file(void)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/no-such-work.so", tmpdir);
	GPUDP_TEST_ASSERT(load_fails(p, ENOENT, "No such file or directory", NULL), "missing");
	/* a bare name is not searched for in the library path, even when the
	 * file is in the current directory */
	if (works_dir != NULL) {
		char cwd[1024];
		int ok;

		GPUDP_TEST_ASSERT(getcwd(cwd, sizeof(cwd)) != NULL && chdir(works_dir) == 0,
				  "chdir %s", works_dir);
		ok = load_fails("work_good.so", ENOENT, "give a path (./work_good.so), "
				"not a bare name", "unit_good");
		GPUDP_TEST_ASSERT(chdir(cwd) == 0, "chdir back to %s", cwd);
		GPUDP_TEST_ASSERT(ok, "bare name");
	}
	rte_errno = 0;
	GPUDP_TEST_ASSERT(gpudp_work_load(NULL, NULL, 0) == NULL && rte_errno == ENOENT,
			  "NULL path: errno %d", rte_errno);
	return GPUDP_TEST_PASS;
}

static int
load_refuses_text_file(void)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/text_work.so", tmpdir);
	f = fopen(p, "w");
	GPUDP_TEST_ASSERT(f != NULL, "create %s", p);
	fputs("this is not a shared object\n", f);
	fclose(f);
	GPUDP_TEST_ASSERT(load_fails(p, ENOEXEC, "not a loadable shared object", NULL), "text");
	/* a directory is not one either */
	GPUDP_TEST_ASSERT(load_fails(tmpdir, ENOEXEC, "not a loadable shared object", NULL),
			  "directory");
	return GPUDP_TEST_PASS;
}

static int
load_refuses_object_without_entry_point(void)
{
	LOAD_FAILS("no_entry", ENOEXEC, "no entry point gpudp_work_entry (export the descriptor "
		   "with GPUDP_WORK_EXPORT)", "unit_no_entry");
	return GPUDP_TEST_PASS;
}

static int
load_refuses_entry_point_returning_null(void)
{
	LOAD_FAILS("null_descriptor", ENOEXEC, "gpudp_work_entry returned no descriptor", NULL);
	return GPUDP_TEST_PASS;
}

static int
load_refuses_abi_mismatch(void)
{
	LOAD_FAILS("abi_mismatch", EPROTO, "built for work ABI 5, this gpudp has ABI 4: rebuild",
		   "unit_abi_mismatch");
	return GPUDP_TEST_PASS;
}

static int
load_refuses_corrupt_gpu_image(void)
{
	LOAD_FAILS("corrupt_image", ENOEXEC, "GPU image: not a fatbin, a cubin or PTX",
		   "unit_corrupt_image");
	return GPUDP_TEST_PASS;
}

static int
load_refuses_invalid_descriptor(void)
{
	LOAD_FAILS("no_cpu_form", EINVAL, "no CPU form", "unit_no_cpu_form");
	return GPUDP_TEST_PASS;
}

static int
load_opens_a_good_work(void)
{
	struct gpudp_handoff_conf c = { .name = "unit-good", .mode = GPUDP_HO_CPU,
					.ring_size = 2, .burst_max = 4 };
	uint8_t pkt[2][64], ref[64];
	const struct gpudp_work *w;
	struct gpudp_handoff *h;
	struct gpudp_ho_burst *b;
	char p[1024], err[512] = "";
	uint32_t i;

	GPUDP_TEST_SKIP_IF(works_dir == NULL, "no --works DIR");
	GPUDP_TEST_ASSERT(work_path(p, sizeof(p), "good"), "path");
	w = gpudp_work_load(p, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s refused: errno %d, %s", p, rte_errno, err);
	GPUDP_TEST_ASSERT(strcmp(w->name, "unit_good") == 0, "name %s", w->name);
	GPUDP_TEST_ASSERT(gpudp_work_find("unit_good") == w, "not found by name");
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_origin(w), p) == 0, "origin %s", gpudp_work_origin(w));
	GPUDP_TEST_ASSERT(w->gpu_image == NULL, "a GPU image in a CPU-only work");
	GPUDP_TEST_ASSERT(strcmp(gpudp_work_verdict_name(w, 1), "short") == 0 &&
			  w->n_counters == 2 && strcmp(w->counters[1], "bytes") == 0, "names");
	GPUDP_TEST_ASSERT(loaded(p), "not loaded");
	/* a second load of it: the name is taken; the first stays */
	GPUDP_TEST_ASSERT(load_fails_as(p, EEXIST, "a work named 'unit_good' is already "
					"registered (", NULL, 1), "second load");
	GPUDP_TEST_ASSERT(loaded(p) && gpudp_work_find("unit_good") == w,
			  "the first load was undone");
	/* it runs: a frame swapped, a runt dropped as "short" */
	c.work = w;
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "create: errno %d", rte_errno);
	for (i = 0; i < 64; i++)
		pkt[0][i] = pkt[1][i] = (uint8_t)i;
	memcpy(ref, pkt[0], 64);
	b = gpudp_handoff_acquire(h);
	gpudp_ho_burst_add(b, pkt[0], 64, NULL);
	gpudp_ho_burst_add(b, pkt[1], 10, NULL);
	GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit");
	b = gpudp_handoff_completed(h);
	GPUDP_TEST_ASSERT(b != NULL && b->n_pass == 1 && b->verdict[0] == 0 &&
			  b->verdict[1] == 1, "verdicts");
	GPUDP_TEST_ASSERT(memcmp(pkt[0], ref + 6, 6) == 0 && memcmp(pkt[0] + 6, ref, 6) == 0 &&
			  memcmp(pkt[1], ref, 64) == 0, "bytes");
	GPUDP_TEST_ASSERT(b->counters[0] == 2 && b->counters[1] == 74, "counters %" PRIu64
			  " %" PRIu64, b->counters[0], b->counters[1]);
	gpudp_handoff_release(h, b);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

/* ---- state (the TEST work "state", CPU form only) ---- */

static const struct gpudp_work state_cpu_work = STATE_WORK_DESC(NULL);

/* @p n packets, packet i of first byte i % 7 and length 60 + i % 40, on @p h */
static int
state_feed(struct gpudp_handoff *h, uint32_t n, uint32_t first, struct state_result *want)
{
	static uint8_t pkt[16][128];
	struct gpudp_ho_burst *b;
	uint32_t i, k;

	for (i = 0; i < n; i += k) {
		b = gpudp_handoff_acquire(h);
		if (b == NULL)
			return -1;
		for (k = 0; k < RTE_DIM(pkt) && i + k < n; k++) {
			uint32_t j = first + i + k;

			pkt[k][0] = (uint8_t)(j % 7);
			gpudp_ho_burst_add(b, pkt[k], 60 + j % 40, NULL);
			want->hist[j % 7]++;
			want->total += 60 + j % 40;
		}
		if (gpudp_handoff_submit(h, b) != 0 || (b = gpudp_handoff_completed(h)) == NULL)
			return -1;
		gpudp_handoff_release(h, b);
	}
	return 0;
}

static int
state_kept_shared_read_written_and_collected(void)
{
	struct gpudp_handoff_conf c = { .name = "unit-state", .mode = GPUDP_HO_CPU,
					.work = &state_cpu_work, .ring_size = 4, .burst_max = 16 };
	struct state_result want = { .total = STATE_TOTAL_START }, got, zero = { { 0 }, 0 };
	struct gpudp_handoff *h, *h2, *hx;
	struct gpudp_ho_burst *b;
	uint64_t total = 0;

	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "create: rte_errno %d", rte_errno);
	c.name = "unit-state-2";
	c.state_from = h;
	h2 = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h2 != NULL, "create a handoff on the first one's state");
	GPUDP_TEST_ASSERT(gpudp_handoff_state_size(h, 0) == sizeof(want.hist) &&
			  gpudp_handoff_state_size(h, 1) == sizeof(uint64_t) &&
			  gpudp_handoff_state_size(h, 2) == 0 &&
			  gpudp_handoff_state_size(h2, 0) == sizeof(want.hist), "sizes");
	/* both handoffs add into one state */
	GPUDP_TEST_ASSERT(state_feed(h, 40, 0, &want) == 0 && state_feed(h2, 33, 40, &want) == 0,
			  "bursts");
	GPUDP_TEST_ASSERT(gpudp_handoff_state_read(h2, 1, 0, &total, sizeof(total)) == 0 &&
			  total == want.total, "total %" PRIu64 ", want %" PRIu64 " (from %u)",
			  total, want.total, STATE_TOTAL_START);
	memset(&got, 0xa5, sizeof(got));
	GPUDP_TEST_ASSERT(gpudp_handoff_collect(h, &got) == 0 &&
			  memcmp(&got, &want, sizeof(got)) == 0, "collected through the owner");
	memset(&got, 0xa5, sizeof(got));
	GPUDP_TEST_ASSERT(gpudp_handoff_collect(h2, &got) == 0 &&
			  memcmp(&got, &want, sizeof(got)) == 0, "collected through the sharer");
	/* out of range: refused */
	GPUDP_TEST_ASSERT(gpudp_handoff_state_read(h, 2, 0, &total, 8) == -EINVAL &&
			  gpudp_handoff_state_read(h, 1, 1, &total, 8) == -EINVAL &&
			  gpudp_handoff_state_write(h, 0, sizeof(want.hist), NULL, 1) == -EINVAL,
			  "a range outside a table must be refused");
	/* a burst not released: collect refuses */
	b = gpudp_handoff_acquire(h);
	gpudp_ho_burst_add(b, zero.hist, 64, NULL);
	GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0 &&
			  gpudp_handoff_collect(h, &got) == -EBUSY, "collect with a burst out");
	GPUDP_TEST_ASSERT((b = gpudp_handoff_completed(h)) != NULL, "completed");
	gpudp_handoff_release(h, b);
	/* cleared: what is collected starts again */
	GPUDP_TEST_ASSERT(gpudp_handoff_state_write(h, 0, 0, NULL, sizeof(want.hist)) == 0 &&
			  gpudp_handoff_state_write(h, 1, 0, &zero.total, 8) == 0, "clear");
	memset(&want, 0, sizeof(want));
	GPUDP_TEST_ASSERT(state_feed(h2, 5, 100, &want) == 0 &&
			  gpudp_handoff_collect(h, &got) == 0 &&
			  memcmp(&got, &want, sizeof(got)) == 0, "collected after clearing");
	/* another work cannot share it; a work without collect has none */
	c.work = api_registered();
	c.work_arg = "1";
	hx = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(hx == NULL, "a handoff of another work must not share the state");
	c.state_from = NULL;
	hx = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(hx != NULL && gpudp_handoff_collect(hx, &got) == -ENOTSUP &&
			  gpudp_handoff_state_size(hx, 0) == 0, "a work without state");
	gpudp_handoff_destroy(hx);
	gpudp_handoff_destroy(h2);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "builtins_are_registered", builtins_are_registered },
	{ "builtin_verdict_names", builtin_verdict_names },
	{ "load_argument_is_hash_rounds", load_argument_is_hash_rounds },
	{ "register_refuses_wrong_abi_and_size", register_refuses_wrong_abi_and_size },
	{ "register_refuses_bad_names", register_refuses_bad_names },
	{ "register_refuses_work_without_cpu_form", register_refuses_work_without_cpu_form },
	{ "register_refuses_write_span_over_span", register_refuses_write_span_over_span },
	{ "register_refuses_sizes_over_limits", register_refuses_sizes_over_limits },
	{ "register_refuses_bad_reason_and_counter_names",
	  register_refuses_bad_reason_and_counter_names },
	{ "register_refuses_corrupt_gpu_image", register_refuses_corrupt_gpu_image },
	{ "register_accepts_a_valid_work_once", register_accepts_a_valid_work_once },
	{ "registered_work_runs_in_cpu_handoff", registered_work_runs_in_cpu_handoff },
	{ "drops_counted_in_long_bursts", drops_counted_in_long_bursts },
	{ "refused_work_arg_fails_handoff_create", refused_work_arg_fails_handoff_create },
	{ "persistent_defaults_and_pollers_limits", persistent_defaults_and_pollers_limits },
	{ "two_segment_packet_seen_as_its_segments", two_segment_packet_seen_as_its_segments },
	{ "state_kept_shared_read_written_and_collected",
	  state_kept_shared_read_written_and_collected },
	{ "image_check_fatbin", image_check_fatbin },
	{ "image_check_cubin", image_check_cubin },
	{ "image_check_ptx", image_check_ptx },
	{ "image_check_random_bytes", image_check_random_bytes },
	{ "image_check_reads_nothing_past_a_short_image",
	  image_check_reads_nothing_past_a_short_image },
	{ "load_refuses_missing_file", load_refuses_missing_file },
	{ "load_refuses_text_file", load_refuses_text_file },
	{ "load_refuses_object_without_entry_point", load_refuses_object_without_entry_point },
	{ "load_refuses_entry_point_returning_null", load_refuses_entry_point_returning_null },
	{ "load_refuses_abi_mismatch", load_refuses_abi_mismatch },
	{ "load_refuses_corrupt_gpu_image", load_refuses_corrupt_gpu_image },
	{ "load_refuses_invalid_descriptor", load_refuses_invalid_descriptor },
	{ "load_opens_a_good_work", load_opens_a_good_work },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *rest[64], cmd[600];
	int i, n = 0, rc;

	for (i = 0; i < argc && n < 63; i++) {
		if (strcmp(argv[i], "--works") == 0 && i + 1 < argc)
			works_dir = argv[++i];
		else
			rest[n++] = argv[i];
	}
	rest[n] = NULL;
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	rc = gpudp_test_run("work", cases, n, rest);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return rc;
}
