/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/match (gpudp_match.h): the pattern file parser (every kind of bad
 * line is refused, naming the line and the text), and the compiled
 * database's scan against a plain reference matcher on random patterns
 * and buffers (overlapping, nested, case-insensitive patterns; more
 * distinct patterns in a buffer than the scan remembers).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_match.h>
#include <gpudp_test.h>
#include <gpudp_test_match.h>

static int
parse_str(const char *t, struct gpudp_match_pattern **p, uint32_t *n, char *err, size_t len)
{
	return gpudp_match_parse(t, strlen(t), p, n, err, len);
}

static int
parser_reads_names_literals_escapes_and_flags(void)
{
	static const char text[] =
		"# comment\n"
		"\n"
		"http_get   \"GET /\"\n"
		"  host\tHost: nocase\r\n"
		"nul.bytes \"\\x00\\xffA\\\\\\\"\\n\\r\\t\\0\"   nocase  \n"
		"bare-word abc\"def\n";
	struct gpudp_match_pattern *p;
	uint32_t n;
	char err[200] = "";

	GPUDP_TEST_ASSERT(parse_str(text, &p, &n, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(n == 4, "%u patterns", n);
	GPUDP_TEST_ASSERT(strcmp(p[0].name, "http_get") == 0 && p[0].len == 5 &&
			  memcmp(p[0].bytes, "GET /", 5) == 0 && p[0].flags == 0 &&
			  p[0].line == 3, "pattern 0");
	GPUDP_TEST_ASSERT(strcmp(p[1].name, "host") == 0 && p[1].len == 5 &&
			  memcmp(p[1].bytes, "Host:", 5) == 0 &&
			  p[1].flags == GPUDP_MATCH_NOCASE && p[1].line == 4, "pattern 1");
	GPUDP_TEST_ASSERT(p[2].len == 9 && memcmp(p[2].bytes, "\x00\xff" "A\\\"\n\r\t\x00", 9) == 0 &&
			  p[2].flags == GPUDP_MATCH_NOCASE, "escapes: %u bytes", p[2].len);
	GPUDP_TEST_ASSERT(p[3].len == 7 && memcmp(p[3].bytes, "abc\"def", 7) == 0, "bare");
	free(p);
	return GPUDP_TEST_PASS;
}

static int
parser_refuses_bad_lines_naming_them(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "a b\nbad/name x\n", "line 2: bad name 'bad/name x'" },
		{ "lonely\n", "line 1: pattern 'lonely': no pattern" },
		{ "q \"open\n", "line 1: pattern 'q': no closing quote" },
		{ "e \"\\xZZ\"\n", "line 1: pattern 'e': bad escape '\\xZZ'" },
		{ "e \"\\q\"\n", "line 1: pattern 'e': bad escape '\\q\"'" },
		{ "z \"\"\n", "line 1: pattern 'z': empty" },
		{ "f abc CASE\n", "line 1: pattern 'f': bad flag 'CASE' (want nocase)" },
		{ "g abc nocase more\n", "line 1: pattern 'g': text after the flag: 'more'" },
		{ "h \xc3\xa9t\xc3\xa9\n", "line 1: pattern 'h': byte 0xc3 in a bare pattern" },
		{ "d a\n\nd b\n", "line 3: pattern name 'd' already used on line 1" },
	};
	struct gpudp_match_pattern *p;
	char err[300], longp[600];
	uint32_t n, i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		GPUDP_TEST_ASSERT(parse_str(bad[i].text, &p, &n, err, sizeof(err)) == -22 &&
				  p == NULL && n == 0, "'%s' accepted", bad[i].text);
		GPUDP_TEST_ASSERT(strstr(err, bad[i].want) != NULL, "'%s': '%s', want '%s'",
				  bad[i].text, err, bad[i].want);
	}
	snprintf(longp, sizeof(longp), "long ");
	for (i = 0; i < GPUDP_MATCH_LEN_MAX + 1; i++)
		strcat(longp, "x");
	GPUDP_TEST_ASSERT(parse_str(longp, &p, &n, err, sizeof(err)) == -22 &&
			  strstr(err, "longer than 255 bytes") != NULL, "%s", err);
	return GPUDP_TEST_PASS;
}

static uint32_t rnd_state = 12345;

static uint32_t
rnd(void)
{
	return gpudp_test_rnd(&rnd_state);
}

/* bytes from a small alphabet, so that patterns overlap and nest */
static uint8_t
rnd_byte(void)
{
	static const uint8_t alpha[] = { 'a', 'b', 'A', 'B', 0, 0xff };

	return alpha[rnd() % sizeof(alpha)];
}

static int
scan_equals_the_reference_on_random_patterns(void)
{
	enum { NP = 200, BUFS = 300, LEN = 400 };
	struct gpudp_match_pattern *p = calloc(NP, sizeof(*p));
	uint64_t *occ = calloc(NP, 8), *pk = calloc(NP, 8), *wocc = calloc(NP, 8),
		 *wpk = calloc(NP, 8);
	struct gpudp_match_db *db, *copy;
	uint8_t buf[LEN];
	uint64_t total = 0, want_total = 0, most = 0;
	uint32_t i, b;
	char err[200] = "";

	GPUDP_TEST_ASSERT(p && occ && pk && wocc && wpk, "calloc");
	for (i = 0; i < NP; i++) {
		snprintf(p[i].name, sizeof(p[i].name), "p%u", i);
		p[i].len = 1 + rnd() % (i < 20 ? 3 : 9);
		for (b = 0; b < p[i].len; b++)
			p[i].bytes[b] = rnd_byte();
		p[i].flags = rnd() % 3 == 0 ? GPUDP_MATCH_NOCASE : 0;
	}
	db = gpudp_match_compile(p, NP, err, sizeof(err));
	GPUDP_TEST_ASSERT(db != NULL, "%s", err);
	GPUDP_TEST_ASSERT(db->n_patterns == NP && db->n_states[0] > 1 && db->n_states[1] > 1,
			  "states %u %u", db->n_states[0], db->n_states[1]);
	/* position-independent: scan a copy elsewhere */
	copy = malloc(db->size);
	GPUDP_TEST_ASSERT(copy != NULL, "malloc");
	memcpy(copy, db, db->size);
	free(db);
	for (b = 0; b < BUFS; b++) {
		uint32_t len = rnd() % LEN;

		for (i = 0; i < len; i++)
			buf[i] = rnd_byte();
		total += gpudp_match_scan(copy, buf, len, occ, pk);
		gpudp_test_match_naive(p, NP, buf, len, wocc, wpk);
	}
	for (i = 0; i < NP; i++) {
		GPUDP_TEST_ASSERT(occ[i] == wocc[i] && pk[i] == wpk[i],
				  "pattern %u (len %u, flags %u): occurrences %lu / %lu, buffers %lu / %lu",
				  i, p[i].len, p[i].flags, (unsigned long)occ[i],
				  (unsigned long)wocc[i], (unsigned long)pk[i], (unsigned long)wpk[i]);
		want_total += wocc[i];
		most = wpk[i] > most ? wpk[i] : most;
	}
	GPUDP_TEST_ASSERT(total == want_total && most > 0, "total %lu / %lu",
			  (unsigned long)total, (unsigned long)want_total);
	printf("    %u patterns, %u buffers: %lu occurrences, equal to the reference\n", NP,
	       (unsigned int)BUFS, (unsigned long)total);
	free(copy);
	free(p);
	free(occ);
	free(pk);
	free(wocc);
	free(wpk);
	return GPUDP_TEST_PASS;
}

static int
buffer_counts_once_per_pattern_past_the_remembered_ones(void)
{
	/* 40 distinct patterns in one buffer, each twice: the scan remembers
	 * 16, the others are told apart by compare */
	enum { NP = 40 };
	struct gpudp_match_pattern p[NP];
	uint64_t occ[NP], pk[NP];
	uint8_t buf[NP * 8];
	struct gpudp_match_db *db;
	uint32_t i, len = 0;
	char err[200] = "";

	memset(p, 0, sizeof(p));
	memset(occ, 0, sizeof(occ));
	memset(pk, 0, sizeof(pk));
	for (i = 0; i < NP; i++) {
		snprintf(p[i].name, sizeof(p[i].name), "k%u", i);
		p[i].len = 3;
		p[i].bytes[0] = '<';
		p[i].bytes[1] = (uint8_t)('0' + i);
		p[i].bytes[2] = '>';
		p[i].flags = i % 2 ? GPUDP_MATCH_NOCASE : 0;
	}
	for (i = 0; i < NP; i++) {
		memcpy(buf + len, p[i].bytes, 3);
		len += 3;
	}
	for (i = 0; i < NP; i++) {
		memcpy(buf + len, p[i].bytes, 3);
		len += 3;
	}
	db = gpudp_match_compile(p, NP, err, sizeof(err));
	GPUDP_TEST_ASSERT(db != NULL, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_match_scan(db, buf, len, occ, pk) == 2 * NP, "occurrences");
	for (i = 0; i < NP; i++)
		GPUDP_TEST_ASSERT(occ[i] == 2 && pk[i] == 1, "pattern %u: %lu, %lu", i,
				  (unsigned long)occ[i], (unsigned long)pk[i]);
	free(db);
	return GPUDP_TEST_PASS;
}

static int
compile_refuses_no_patterns(void)
{
	char err[200] = "";

	GPUDP_TEST_ASSERT(gpudp_match_compile(NULL, 0, err, sizeof(err)) == NULL &&
			  strstr(err, "0 patterns") != NULL, "%s", err);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "parser_reads_names_literals_escapes_and_flags",
	  parser_reads_names_literals_escapes_and_flags },
	{ "parser_refuses_bad_lines_naming_them", parser_refuses_bad_lines_naming_them },
	{ "scan_equals_the_reference_on_random_patterns",
	  scan_equals_the_reference_on_random_patterns },
	{ "buffer_counts_once_per_pattern_past_the_remembered_ones",
	  buffer_counts_once_per_pattern_past_the_remembered_ones },
	{ "compile_refuses_no_patterns", compile_refuses_no_patterns },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("match", cases, argc, argv);
}
