/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules' CPU engine (gpudp_rules_engine.h): 10,000 random rules (fast
 * patterns from a vocabulary, marked or the longest, nocase or not; chains
 * with every modifier; tcp, udp, icmp and ip headers with lists, a few
 * rules without a content) against 400 packets with random headers and
 * payloads in which vocabulary words are planted: the alerts per (packet,
 * rule) equal checking every rule on every packet (gpudp_rules_eval.h), in
 * the rules' order; the database holds each distinct fast pattern once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_rules.h>
#include <gpudp_rules_engine.h>
#include <gpudp_test.h>

#define N_RULES 10000u
#define N_PKTS 400u
#define VOCAB 2500u

static char vocab[VOCAB][12];
static uint8_t scratch[GPUDP_RULES_EVAL_SCRATCH(2048)];

struct got {
	uint32_t rule[N_RULES];
	uint32_t n;
};

static void
on_alert(void *arg, uint32_t rule)
{
	struct got *g = arg;

	g->rule[g->n++] = rule;
}

static size_t
add_rule(char *t, size_t len, uint32_t sid)
{
	static const char *const hdr[] = {
		"alert tcp any any -> any any", "alert udp any any -> any 53",
		"drop tcp 10.0.0.0/8 any -> any [80,8080:8090]", "alert icmp any any -> any any",
		"alert ip !192.0.2.0/24 any <> any any", "alert tcp any !22 <> 10.1.0.0/16 any",
	};
	size_t o = (size_t)snprintf(t, len, "%s (", hdr[rand() % 6]);
	uint32_t n = rand() % 100 == 0 ? 0 : 1 + (uint32_t)(rand() % 3), i;
	int fast = rand() % 3 == 0 ? (int)(rand() % 3) : -1;

	for (i = 0; i < n; i++) {
		const char *w = vocab[rand() % VOCAB];

		o += (size_t)snprintf(t + o, len - o, "content:\"%s\"; %s", w,
				      rand() % 3 == 0 ? "nocase; " : "");
		if (i > 0 && rand() % 2)
			o += (size_t)snprintf(t + o, len - o, "distance:%d; within:%u; ",
					      rand() % 8 - 2, (unsigned int)strlen(w) + 40);
		else if (rand() % 5 == 0)
			o += (size_t)snprintf(t + o, len - o, "offset:%d; ", rand() % 30);
		if ((int)i == fast)
			o += (size_t)snprintf(t + o, len - o, "fast_pattern; ");
	}
	if (rand() % 10 == 0)
		o += (size_t)snprintf(t + o, len - o, "dsize:>%d; ", rand() % 200);
	o += (size_t)snprintf(t + o, len - o, "sid:%u;)\n", sid);
	return o;
}

static int
alerts_equal_every_rule_checked(void)
{
	static struct got a, b;
	struct gpudp_rules rs;
	struct gpudp_rules_engine *e;
	char err[256] = "", *text = malloc(N_RULES * 512);
	uint8_t p[1500];
	uint32_t i, j, r, len, total = 0, pats, always;
	size_t o = 0;

	GPUDP_TEST_ASSERT(text != NULL, "malloc");
	srand(2024);
	for (i = 0; i < VOCAB; i++) {
		uint32_t l = 3 + (uint32_t)(rand() % 6);

		for (j = 0; j < l; j++)
			vocab[i][j] = (char)('a' + rand() % 26 - (rand() % 4 == 0 ? 32 : 0));
		vocab[i][l] = 0;
	}
	for (i = 0; i < N_RULES; i++)
		o += add_rule(text + o, N_RULES * 512 - o, i + 1);
	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(gpudp_rules_parse(&rs, text, o, "gen", NULL, err, sizeof(err)) ==
			  (int)N_RULES, "%s", err);
	free(text);
	e = gpudp_rules_engine_create(&rs, err, sizeof(err));
	GPUDP_TEST_ASSERT(e != NULL, "%s", err);
	gpudp_rules_engine_info(e, &pats, &always);
	printf("    %u rules: %u distinct fast patterns, %u rules without a content\n", N_RULES,
	       pats, always);
	GPUDP_TEST_ASSERT(pats > VOCAB / 2 && pats <= 2 * VOCAB && always > 0 && always < 300,
			  "%u patterns, %u always", pats, always);
	for (i = 0; i < N_PKTS; i++) {
		struct gpudp_rule_pkt k = { .af = 4, .proto = (uint8_t)"\x06\x11\x01\x06"[rand() % 4],
					    .sport = (uint16_t)(rand() % 2 ? 22 : 40000 + rand() % 100),
					    .dport = (uint16_t)"\x35\x50\x16"[rand() % 3],
					    .src = { 10, (uint8_t)(rand() % 3), 1, 1 },
					    .dst = { 192, 0, 2, (uint8_t)rand() } };

		len = 40 + (uint32_t)(rand() % 1000);
		for (j = 0; j < len; j++)
			p[j] = (uint8_t)(' ' + rand() % 95);
		for (j = 0; j < 12; j++) {
			const char *w = vocab[rand() % VOCAB];
			uint32_t at = (uint32_t)(rand() % (int)(len - 10));

			memcpy(p + at, w, strlen(w) < len - at ? strlen(w) : len - at);
		}
		a.n = b.n = 0;
		gpudp_rules_engine_packet(e, &k, p, len, on_alert, &a);
		for (r = 0; r < rs.n_rule; r++)
			if (gpudp_rule_header_match(&rs, &rs.rule[r], &k) &&
			    gpudp_rule_payload_match(&rs, &rs.rule[r], p, len, scratch))
				b.rule[b.n++] = r;
		GPUDP_TEST_ASSERT(a.n == b.n && memcmp(a.rule, b.rule, sizeof(uint32_t) * a.n) == 0,
				  "packet %u: the engine %u alerts, every rule checked %u", i, a.n, b.n);
		total += a.n;
	}
	printf("    %u packets: %u alerts\n", N_PKTS, total);
	GPUDP_TEST_ASSERT(total > N_PKTS, "%u alerts: too few to compare", total);
	gpudp_rules_engine_free(e);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static int
empty_set_and_no_content_rules(void)
{
	static const char text[] = "alert udp any any -> any 53 (dsize:<10; sid:1;)\n";
	struct gpudp_rule_pkt k = { .af = 4, .proto = 17, .sport = 1000, .dport = 53 };
	struct gpudp_rules rs;
	struct gpudp_rules_engine *e;
	char err[256] = "";

	gpudp_rules_init(&rs);
	e = gpudp_rules_engine_create(&rs, err, sizeof(err));
	GPUDP_TEST_ASSERT(e != NULL && gpudp_rules_engine_packet(e, &k, (const uint8_t *)"x", 1,
								 NULL, NULL) == 0, "%s", err);
	gpudp_rules_engine_free(e);
	GPUDP_TEST_ASSERT(gpudp_rules_parse(&rs, text, strlen(text), "t", NULL, err,
					    sizeof(err)) == 1, "%s", err);
	e = gpudp_rules_engine_create(&rs, err, sizeof(err));
	GPUDP_TEST_ASSERT(e != NULL, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_rules_engine_packet(e, &k, (const uint8_t *)"short", 5, NULL,
						    NULL) == 1 &&
			  gpudp_rules_engine_packet(e, &k, (const uint8_t *)"not so short", 12, NULL,
						    NULL) == 0, "dsize rule");
	gpudp_rules_engine_free(e);
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "alerts_equal_every_rule_checked", alerts_equal_every_rule_checked },
	{ "empty_set_and_no_content_rules", empty_set_and_no_content_rules },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("rules_engine", cases, argc, argv);
}
