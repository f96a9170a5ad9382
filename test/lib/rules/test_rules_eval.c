/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules' matching (gpudp_rules_eval.h) against independent references:
 *  - Hyperscan (with -DGPUDP_TEST_HYPERSCAN): rules of one content with
 *    nocase, offset, depth, startswith and endswith against the same
 *    literal compiled with HS_FLAG_CASELESS and the extended parameters
 *    min_offset and max_offset, endswith as a match that ends the payload;
 *  - a plain search written here that tries every combination of matches
 *    (recursion, no sets): rules of up to five contents with distance,
 *    within, offset, depth, nocase, startswith, endswith, isdataat (plain,
 *    relative, negated) and dsize, on payloads with the contents planted;
 *  - the header: protocol, address and port lists, `<>`, by hand.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_rules.h>
#include <gpudp_rules_eval.h>
#include <gpudp_test.h>
#include <gpudp_test_rules_ref.h>

static uint8_t scratch[GPUDP_RULES_EVAL_SCRATCH(4096)];

static int
parse1(struct gpudp_rules *rs, const char *t)
{
	char err[256] = "";
	int n = gpudp_rules_parse(rs, t, strlen(t), "t", NULL, err, sizeof(err));

	if (n != 1)
		fprintf(stderr, "    %s: %s\n", t, err);
	return n == 1;
}

/* a word of 1..6 letters from a small alphabet, so that it recurs */
static void
word(char *w, uint32_t *n)
{
	uint32_t i;

	*n = 1 + (uint32_t)(rand() % 4);
	for (i = 0; i < *n; i++)
		w[i] = (char)("abAB"[rand() % 4]);
	w[*n] = 0;
}

static int
chains_equal_every_combination_tried(void)
{
	char text[2048], w[5][8];
	uint32_t wl[5], t, i, n, len, o, hits = 0, total = 0;
	uint8_t p[160];
	struct gpudp_rules rs;

	srand(99);
	for (t = 0; t < 4000; t++) {
		n = 1 + (uint32_t)(rand() % 5);
		o = (uint32_t)snprintf(text, sizeof(text), "alert ip any any -> any any (");
		for (i = 0; i < n; i++) {
			word(w[i], &wl[i]);
			o += (uint32_t)snprintf(text + o, sizeof(text) - o, "content:\"%s\"; %s", w[i],
						rand() % 3 == 0 ? "nocase; " : "");
			if (i > 0 && rand() % 2) {
				int d = rand() % 12 - 4;

				if (rand() % 2)
					o += (uint32_t)snprintf(text + o, sizeof(text) - o,
								"distance:%d; ", d);
				if (rand() % 2)
					o += (uint32_t)snprintf(text + o, sizeof(text) - o,
								"within:%u; ", wl[i] + (uint32_t)(rand() % 10));
			} else if (rand() % 3 == 0) {
				o += (uint32_t)snprintf(text + o, sizeof(text) - o, "offset:%d; ",
							rand() % 20);
				if (rand() % 2)
					o += (uint32_t)snprintf(text + o, sizeof(text) - o, "depth:%u; ",
								wl[i] + (uint32_t)(rand() % 30));
			} else if (rand() % 6 == 0) {
				o += (uint32_t)snprintf(text + o, sizeof(text) - o, "startswith; ");
			}
			if (rand() % 8 == 0)
				o += (uint32_t)snprintf(text + o, sizeof(text) - o, "endswith; ");
			if (rand() % 6 == 0)
				o += (uint32_t)snprintf(text + o, sizeof(text) - o, "isdataat:%s%d%s; ",
							rand() % 2 ? "!" : "", rand() % 40,
							rand() % 2 ? ",relative" : "");
		}
		if (rand() % 5 == 0)
			o += (uint32_t)snprintf(text + o, sizeof(text) - o, "dsize:<%d; ",
						20 + rand() % 120);
		snprintf(text + o, sizeof(text) - o, "sid:%u;)", t + 1);
		gpudp_rules_init(&rs);
		GPUDP_TEST_ASSERT(parse1(&rs, text), "rule %u", t);
		for (i = 0; i < 25; i++) {
			uint32_t k, at = 0;

			len = (uint32_t)(rand() % (int)sizeof(p));
			for (k = 0; k < len; k++)
				p[k] = (uint8_t)("abABxy "[rand() % 7]);
			/* the contents planted in order, near each other */
			for (k = 0; k < n && rand() % 4 != 0; k++) {
				at += (uint32_t)(rand() % 8);
				if (at + wl[k] > len)
					break;
				memcpy(p + at, w[k], wl[k]);
				at += wl[k];
			}
			{
				int want = gpudp_ref_payload(&rs, &rs.rule[0], p, len);
				int got = gpudp_rule_payload_match(&rs, &rs.rule[0], p, len, scratch);

				GPUDP_TEST_ASSERT(want == got, "%s on '%.*s' (%u bytes): %d, want %d",
						  text, (int)len, (const char *)p, len, got, want);
				hits += (uint32_t)want;
				total++;
			}
		}
		gpudp_rules_free(&rs);
	}
	printf("    %u of %u (rule, payload) pairs matched\n", hits, total);
	GPUDP_TEST_ASSERT(hits > total / 20 && hits < total - total / 20,
			  "%u of %u matched: the test compares too little", hits, total);
	return GPUDP_TEST_PASS;
}

#ifdef GPUDP_TEST_HYPERSCAN
static int
one_content_equals_hyperscan(void)
{
	hs_scratch_t *hss = NULL;
	char text[1024], w[16];
	uint8_t p[300];
	struct gpudp_rules rs;
	uint32_t t, i, k, len, wl, hits = 0, total = 0;

	srand(7);
	for (t = 0; t < 1500; t++) {
		hs_database_t *db = NULL;
		int o;

		wl = 1 + (uint32_t)(rand() % 6);
		for (i = 0; i < wl; i++)
			w[i] = (char)("aBc"[rand() % 3]);
		w[wl] = 0;
		o = snprintf(text, sizeof(text), "alert ip any any -> any any (content:\"%s\"; %s",
			     w, rand() % 2 ? "nocase; " : "");
		switch (rand() % 5) {
		case 0:
			o += snprintf(text + o, sizeof(text) - (size_t)o, "offset:%d; ", rand() % 40);
			break;
		case 1:
			o += snprintf(text + o, sizeof(text) - (size_t)o, "offset:%d; depth:%u; ",
				      rand() % 40, wl + (uint32_t)(rand() % 40));
			break;
		case 2:
			o += snprintf(text + o, sizeof(text) - (size_t)o, "depth:%u; ",
				      wl + (uint32_t)(rand() % 40));
			break;
		case 3:
			o += snprintf(text + o, sizeof(text) - (size_t)o, "startswith; ");
			break;
		default:
			break;
		}
		if (rand() % 4 == 0)
			o += snprintf(text + o, sizeof(text) - (size_t)o, "endswith; ");
		snprintf(text + o, sizeof(text) - (size_t)o, "sid:%u;)", t + 1);
		gpudp_rules_init(&rs);
		GPUDP_TEST_ASSERT(parse1(&rs, text), "rule %u", t);
		GPUDP_TEST_ASSERT(gpudp_ref_hs_rule(&rs, &rs.rule[0], &db) == 0, "%s", text);
		GPUDP_TEST_ASSERT(hs_alloc_scratch(db, &hss) == HS_SUCCESS, "hs_alloc_scratch");
		for (i = 0; i < 40; i++) {
			int hit;

			len = (uint32_t)(rand() % (int)sizeof(p));
			for (k = 0; k < len; k++)
				p[k] = (uint8_t)("abcABC"[rand() % 6]);
			if (len >= wl && rand() % 2) {
				k = (uint32_t)(rand() % (int)(len - wl + 1));
				memcpy(p + k, w, wl);
			}
			hit = gpudp_ref_hs_payload(&rs, &rs.rule[0], db, hss, p, len);
			GPUDP_TEST_ASSERT(hit == gpudp_rule_payload_match(&rs, &rs.rule[0], p, len,
									  scratch),
					  "%s on %u bytes: Hyperscan %d", text, len, hit);
			hits += (uint32_t)hit;
			total++;
		}
		hs_free_database(db);
		gpudp_rules_free(&rs);
	}
	hs_free_scratch(hss);
	printf("    %u of %u (rule, payload) pairs matched\n", hits, total);
	GPUDP_TEST_ASSERT(hits > total / 20 && hits < total - total / 20,
			  "%u of %u matched: the test compares too little", hits, total);
	return GPUDP_TEST_PASS;
}
#else
static int
one_content_equals_hyperscan(void)
{
	GPUDP_TEST_SKIP_IF(1, "Hyperscan not found (Debian: libhyperscan-dev)");
	return GPUDP_TEST_SKIP;
}
#endif

static int
header_protocol_lists_and_either_way(void)
{
	static const char text[] =
		"alert tcp [10.0.0.0/8,!10.9.0.0/16] [1024:,!8080] -> 192.0.2.7 80 (sid:1;)\n"
		"alert udp any any <> [2001:db8::/32] 53 (sid:2;)\n"
		"alert icmp any any -> any any (sid:3;)\n"
		"alert ip !192.0.2.0/24 any -> any any (sid:4;)\n";
	struct gpudp_rules rs;
	struct gpudp_rule_pkt k = { .af = 4, .proto = 6, .sport = 40000, .dport = 80,
				    .src = { 10, 1, 2, 3 }, .dst = { 192, 0, 2, 7 } };
	struct gpudp_rule_pkt v6 = { .af = 6, .proto = 17, .sport = 53, .dport = 5353,
				     .src = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
				     .dst = { 0xfe, 0x80, [15] = 2 } };
	char err[256] = "";

	gpudp_rules_init(&rs);
	GPUDP_TEST_ASSERT(gpudp_rules_parse(&rs, text, strlen(text), "h", NULL, err,
					    sizeof(err)) == 4, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_rule_header_match(&rs, &rs.rule[0], &k), "tcp rule");
	k.src[1] = 9;   /* 10.9.2.3: in the !10.9.0.0/16 */
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[0], &k), "negated net");
	k.src[1] = 1;
	k.sport = 8080;
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[0], &k), "negated port");
	k.sport = 1000;
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[0], &k), "port below 1024");
	k.sport = 40000;
	k.proto = 17;
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[0], &k), "udp for tcp");
	/* <>: the reply from 2001:db8::1 port 53 matches the other way */
	GPUDP_TEST_ASSERT(gpudp_rule_header_match(&rs, &rs.rule[1], &v6), "either way");
	v6.src[1] = 0x02;
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[1], &v6), "outside the /32");
	v6.proto = 58;
	GPUDP_TEST_ASSERT(gpudp_rule_header_match(&rs, &rs.rule[2], &v6), "icmpv6");
	GPUDP_TEST_ASSERT(gpudp_rule_header_match(&rs, &rs.rule[3], &v6), "ip rule, v6");
	k.src[0] = 192;
	k.src[1] = 0;
	k.src[2] = 2;
	GPUDP_TEST_ASSERT(!gpudp_rule_header_match(&rs, &rs.rule[3], &k), "not 192.0.2.0/24");
	gpudp_rules_free(&rs);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "chains_equal_every_combination_tried", chains_equal_every_combination_tried },
	{ "one_content_equals_hyperscan", one_content_equals_hyperscan },
	{ "header_protocol_lists_and_either_way", header_protocol_lists_and_either_way },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("rules_eval", cases, argc, argv);
}
