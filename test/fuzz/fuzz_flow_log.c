/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the NDJSON flow log (lib/flow, gpudp_flow_log.h) and
 * the Community ID (gpudp_flow_cid.h). The input is an options byte (bit 0:
 * no Community ID; bits 1-3: the Community ID's seed, 0 to 7; bits 4-7:
 * how many times the records are written, 1 to 16, so that the writer's
 * buffer fills) and flow records, each as the bytes of a struct
 * gpudp_flow_rec (the last one zero-filled), whose af is made 4 or 6 by
 * its low bit unless its top bit is set (then kept, and refused).
 *
 * Beyond the sanitizers, it aborts unless: a record with af neither 4 nor
 * 6 is refused (-EINVAL, an empty line) and others give one line of
 * printable ASCII ending in its only newline, shorter than
 * GPUDP_FLOW_LOG_LINE_MAX; the line parses as a flat JSON object (a parser
 * here, strict: no escapes, no leading zeros, numbers below 2^64) whose
 * keys are the documented ones in their order (ICMP fields only for
 * protocols 1 and 58, reverse fields only for biflow) and whose values are
 * the record's: numbers equal, addresses that inet_pton() reads back to
 * the record's bytes, RFC 3339 times (valid dates) that are the ns fields,
 * flag letters and end reason names as documented; the Community ID is
 * "1:" and 28 base64 characters, the one gpudp_flow_community_id() gives,
 * and (but for ICMP) the record with its endpoints swapped gets the same
 * ID; and a writer to a memfd writes exactly the lines formatted, counting
 * the refused records as dropped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpudp_flow_cid.h"
#include "gpudp_flow_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_flow_log: %s\n", #c); abort(); } } while (0)

#define MAX_PAIRS 40

struct pair {
	const char *key;
	size_t key_len;
	char kind;            /* 'n' number, 's' string, 'b' boolean */
	uint64_t num;         /* 'n'; 'b': 1 true, 0 false */
	const char *str;      /* 's': its text (not NUL-terminated) */
	size_t str_len;
};

/* A flat JSON object of numbers, strings without escapes and booleans. */
static size_t
parse_line(const char *p, struct pair *pr)
{
	size_t n = 0;

	CHECK(*p++ == '{');
	for (;;) {
		CHECK(n < MAX_PAIRS);
		CHECK(*p++ == '"');
		pr[n].key = p;
		while (*p != '"') {
			CHECK(*p >= 0x20 && *p != '\\' && *p != '\0');
			p++;
		}
		pr[n].key_len = (size_t)(p - pr[n].key);
		p++;
		CHECK(*p++ == ':');
		if (*p == '"') {
			pr[n].kind = 's';
			pr[n].str = ++p;
			while (*p != '"') {
				CHECK(*p >= 0x20 && *p != '\\' && *p != '\0');
				p++;
			}
			pr[n].str_len = (size_t)(p - pr[n].str);
			p++;
		} else if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
			pr[n].kind = 'b';
			pr[n].num = *p == 't';
			p += *p == 't' ? 4 : 5;
		} else {
			uint64_t v = 0;

			pr[n].kind = 'n';
			CHECK(*p >= '0' && *p <= '9');
			CHECK(!(*p == '0' && p[1] >= '0' && p[1] <= '9'));
			while (*p >= '0' && *p <= '9') {
				CHECK(v <= (UINT64_MAX - (uint64_t)(*p - '0')) / 10);
				v = v * 10 + (uint64_t)(*p - '0');
				p++;
			}
			pr[n].num = v;
		}
		n++;
		if (*p == '}')
			break;
		CHECK(*p++ == ',');
	}
	CHECK(p[1] == '\n' && p[2] == '\0');
	return n;
}

static bool
is(const struct pair *p, const char *key)
{
	return p->key_len == strlen(key) && memcmp(p->key, key, p->key_len) == 0;
}

static bool
str_is(const struct pair *p, const char *s)
{
	return p->kind == 's' && p->str_len == strlen(s) && memcmp(p->str, s, p->str_len) == 0;
}

static void
check_num(const struct pair *p, const char *key, uint64_t v)
{
	if (!is(p, key) || p->kind != 'n' || p->num != v) {
		fprintf(stderr, "fuzz_flow_log: field \"%.*s\", want \"%s\" = %llu\n",
			(int)p->key_len, p->key, key, (unsigned long long)v);
		abort();
	}
}

static void
check_flags(const struct pair *p, const char *key, uint8_t f)
{
	char want[9];
	size_t i, n = 0;

	for (i = 0; i < 8; i++)
		if (f >> i & 1)
			want[n++] = "FSRPAUEC"[i];
	want[n] = '\0';
	CHECK(is(p, key) && str_is(p, want));
}

static void
check_addr(const struct pair *p, const char *key, uint8_t af, const uint8_t *a)
{
	char text[64];
	uint8_t b[16];

	CHECK(is(p, key) && p->kind == 's' && p->str_len < sizeof(text));
	memcpy(text, p->str, p->str_len);
	text[p->str_len] = '\0';
	CHECK(inet_pton(af == 4 ? AF_INET : AF_INET6, text, b) == 1);
	CHECK(memcmp(a, b, af == 4 ? 4 : 16) == 0);
}

/* days since 1970-01-01 of a proleptic Gregorian date */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
check_time(const struct pair *p, const char *key, uint64_t ns)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddddddddZ";
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int64_t f[7] = { 0 };
	size_t i, k = 0;
	bool leap;

	CHECK(is(p, key) && p->kind == 's' && p->str_len == sizeof(shape) - 1);
	for (i = 0; i < p->str_len; i++) {
		if (shape[i] == 'd') {
			CHECK(p->str[i] >= '0' && p->str[i] <= '9');
			f[k] = f[k] * 10 + (p->str[i] - '0');
		} else {
			CHECK(p->str[i] == shape[i]);
			if (shape[i] != 'Z')
				k++;
		}
	}
	leap = (f[0] % 4 == 0 && f[0] % 100 != 0) || f[0] % 400 == 0;
	CHECK(f[1] >= 1 && f[1] <= 12 && f[2] >= 1);
	CHECK(f[2] <= mdays[f[1] - 1] + (f[1] == 2 && leap));
	CHECK(f[3] <= 23 && f[4] <= 59 && f[5] <= 59);
	CHECK((uint64_t)((days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 + f[4] * 60 +
			  f[5])) * 1000000000u + (uint64_t)f[6] == ns);
}

static void
check_line(const struct gpudp_flow_rec *r, const char *line, unsigned int flags,
	   uint16_t seed)
{
	static const char *const ends[] = { "unknown", "idle", "active", "end", "forced",
					    "lack_of_resources" };
	struct pair pr[MAX_PAIRS];
	char cid[GPUDP_FLOW_CID_SIZE], cid2[GPUDP_FLOW_CID_SIZE];
	struct gpudp_flow_rec rev;
	bool icmp = r->proto == 1 || r->proto == 58, bi = r->flags & GPUDP_FLOW_REC_BIFLOW;
	size_t n = parse_line(line, pr), k = 0, i;

	check_num(&pr[k++], "af", r->af);
	check_addr(&pr[k++], "src", r->af, r->src);
	check_addr(&pr[k++], "dst", r->af, r->dst);
	check_num(&pr[k++], "sport", r->sport);
	check_num(&pr[k++], "dport", r->dport);
	if (icmp) {
		check_num(&pr[k++], "icmp_type", r->dport >> 8);
		check_num(&pr[k++], "icmp_code", r->dport & 0xff);
	}
	check_num(&pr[k++], "proto", r->proto);
	check_num(&pr[k++], "vlan", r->vlan);
	check_num(&pr[k++], "tos", r->tos);
	check_num(&pr[k++], "tcp_flags", r->tcp_flags);
	check_flags(&pr[k++], "tcp_flags_str", r->tcp_flags);
	check_time(&pr[k++], "first", r->first_ns);
	check_num(&pr[k++], "first_ns", r->first_ns);
	check_time(&pr[k++], "last", r->last_ns);
	check_num(&pr[k++], "last_ns", r->last_ns);
	check_num(&pr[k++], "packets", r->packets);
	check_num(&pr[k++], "octets", r->octets);
	check_num(&pr[k++], "l2_octets", r->l2_octets);
	CHECK(is(&pr[k], "biflow") && pr[k].kind == 'b' && pr[k].num == bi);
	k++;
	if (bi) {
		check_num(&pr[k++], "rpackets", r->rpackets);
		check_num(&pr[k++], "roctets", r->roctets);
		check_num(&pr[k++], "rl2_octets", r->rl2_octets);
		check_num(&pr[k++], "rtcp_flags", r->rtcp_flags);
		check_flags(&pr[k++], "rtcp_flags_str", r->rtcp_flags);
	}
	CHECK(is(&pr[k], "end_reason") &&
	      str_is(&pr[k], ends[r->end_reason >= 1 && r->end_reason <= 5 ? r->end_reason : 0]));
	k++;
	check_num(&pr[k++], "end_reason_id", r->end_reason);
	if (!(flags & GPUDP_FLOW_LOG_NO_COMMUNITY_ID)) {
		CHECK(gpudp_flow_community_id(r, seed, cid, sizeof(cid)) == GPUDP_FLOW_CID_LEN);
		CHECK(is(&pr[k], "community_id") && str_is(&pr[k], cid));
		k++;
		CHECK(cid[0] == '1' && cid[1] == ':' && cid[GPUDP_FLOW_CID_LEN - 1] == '=');
		for (i = 2; i < GPUDP_FLOW_CID_LEN - 1; i++)
			CHECK((cid[i] >= 'A' && cid[i] <= 'Z') || (cid[i] >= 'a' && cid[i] <= 'z') ||
			      (cid[i] >= '0' && cid[i] <= '9') || cid[i] == '+' || cid[i] == '/');
		if (!icmp) {
			rev = *r;
			memcpy(rev.src, r->dst, 16);
			memcpy(rev.dst, r->src, 16);
			rev.sport = r->dport;
			rev.dport = r->sport;
			CHECK(gpudp_flow_community_id(&rev, seed, cid2, sizeof(cid2)) ==
			      GPUDP_FLOW_CID_LEN);
			CHECK(strcmp(cid, cid2) == 0);
		}
	}
	CHECK(k == n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct gpudp_flow_rec *recs;
	struct gpudp_flow_log *log;
	struct gpudp_flow_log_stats st;
	char line[GPUDP_FLOW_LOG_LINE_MAX], *want, *got;
	size_t nrec, i, want_len = 0, want_cap, valid = 0;
	unsigned int flags, reps, rep;
	uint16_t seed;
	int len;

	if (size < 1)
		return 0;
	if (fd < 0) {
		fd = memfd_create("fuzz-flow-log", 0);
		CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	flags = data[0] & 1 ? GPUDP_FLOW_LOG_NO_COMMUNITY_ID : 0;
	seed = (uint16_t)(data[0] >> 1 & 7);
	reps = 1u + (data[0] >> 4);
	data++;
	size--;
	nrec = (size + sizeof(*recs) - 1) / sizeof(*recs);
	recs = calloc(nrec ? nrec : 1, sizeof(*recs));
	CHECK(recs != NULL);
	if (size > 0)
		memcpy(recs, data, size);
	for (i = 0; i < nrec; i++)
		if (!(recs[i].af & 0x80))
			recs[i].af = recs[i].af & 1 ? 4 : 6;

	/* each line alone */
	want_cap = nrec * reps * GPUDP_FLOW_LOG_LINE_MAX + 1;
	want = malloc(want_cap);
	got = malloc(want_cap);
	CHECK(want != NULL && got != NULL);
	for (i = 0; i < nrec; i++) {
		memset(line, 'x', sizeof(line));
		len = gpudp_flow_log_format(&recs[i], flags, seed, line, sizeof(line));
		if (recs[i].af != 4 && recs[i].af != 6) {
			CHECK(len == -EINVAL && line[0] == '\0');
			continue;
		}
		CHECK(len > 0 && len < GPUDP_FLOW_LOG_LINE_MAX && (size_t)len == strlen(line));
		CHECK(line[len - 1] == '\n' && memchr(line, '\n', (size_t)len - 1) == NULL);
		for (int j = 0; j < len - 1; j++)
			CHECK(line[j] >= 0x20 && line[j] < 0x7f);
		check_line(&recs[i], line, flags, seed);
		valid++;
	}
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < nrec; i++) {
			len = gpudp_flow_log_format(&recs[i], flags, seed, want + want_len,
						    want_cap - want_len);
			if (len > 0)
				want_len += (size_t)len;
		}
	}

	/* all of them through a writer */
	CHECK(gpudp_flow_log_open(path, flags, seed, &log) == 0);
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < nrec; i++)
			CHECK(gpudp_flow_log_write(log, &recs[i]) ==
			      (recs[i].af == 4 || recs[i].af == 6 ? 0 : -EINVAL));
	CHECK(gpudp_flow_log_flush(log) == 0);
	gpudp_flow_log_stats_get(log, &st);
	CHECK(st.records == valid * reps && st.pending == 0 && st.error == 0);
	CHECK(st.dropped == (nrec - valid) * reps && st.bytes == want_len);
	CHECK(gpudp_flow_log_close(log) == 0);
	CHECK(pread(fd, got, want_cap, 0) == (ssize_t)want_len);
	CHECK(memcmp(got, want, want_len) == 0);
	free(want);
	free(got);
	free(recs);
	return 0;
}
