/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules-capture-ref: the reference of gpudp-capture's rules (--rules). It
 * reads a capture file (pcap or pcapng, with gpudp-capture's reader), the
 * rule files (parsed by gpudp_rules_parse(): no image, no prefilter) and
 * checks every rule on every IP record with the tests' references alone
 * (gpudp_test_rules_ref.h): each content is first looked for with memmem()
 * (a rule none of whose contents can match is passed over), then the
 * rule's header by its lists' meaning and its payload by trying every
 * combination of matches; a rule Hyperscan's extended parameters express
 * is also run through Hyperscan, which must agree. The payload is the L4
 * payload as gpudp_pkt_payload() defines it, its first
 * GPUDP_RULES_PAYLOAD_MAX bytes.
 *
 * It writes JSON: {"rules": N, "records": N, "alerted": N, "alerts": N,
 *   "per_sid": [{"sid", "packets"}, ... in the rules' order],
 *   "list": [[ts_ns, sid, "src", sport, "dst", dport, proto, record], ...]}
 * (ports as EVE writes them: ICMP's type and code in dport's place).
 *
 * usage: rules-capture-ref [--rule-vars FILE] [--skip] --rules FILE...
 *                          [--json OUT] CAPTURE
 * Exit 0; 1 on an unreadable input, a Hyperscan error or a disagreement
 * between the references; 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_analysis_pkt.h>
#include <gpudp_rules.h>
#include <gpudp_rules_img.h>
#include <gpudp_rules_pkt.h>
#include <gpudp_test_rules_ref.h>

#include "gpudp_capfile.h"

#define MAX_FILES 16

struct ref {
	struct gpudp_rules rs;
	uint64_t *hits;
	uint8_t **lower;        /* per check: its bytes in lower case (nocase) */
#ifdef GPUDP_TEST_HYPERSCAN
	hs_database_t **db;     /* per rule, NULL: not expressible */
	hs_scratch_t *hss;
#endif
};

static void
lower(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (uint8_t)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
}

/* every content of @p r occurs somewhere in the payload (or its lower case) */
static int
may_match(const struct ref *f, const struct gpudp_rule *r, const uint8_t *p, const uint8_t *lp,
	  uint32_t len)
{
	uint32_t i;

	for (i = 0; i < r->n_check; i++) {
		const struct gpudp_rule_check *c = &f->rs.check[r->check + i];

		if (c->kind != GPUDP_RULE_CONTENT)
			continue;
		if (c->flags & GPUDP_RULE_F_NOCASE) {
			if (memmem(lp, len, f->lower[r->check + i], c->len) == NULL)
				return 0;
		} else if (memmem(p, len, f->rs.bytes + c->bytes, c->len) == NULL) {
			return 0;
		}
	}
	return 1;
}

static int
setup(struct ref *f)
{
	uint32_t i;

	f->hits = calloc(f->rs.n_rule + 1, sizeof(*f->hits));
	f->lower = calloc(f->rs.n_check + 1, sizeof(*f->lower));
	if (f->hits == NULL || f->lower == NULL)
		return -1;
	for (i = 0; i < f->rs.n_check; i++) {
		const struct gpudp_rule_check *c = &f->rs.check[i];

		if (c->kind != GPUDP_RULE_CONTENT)
			continue;
		f->lower[i] = malloc(c->len);
		if (f->lower[i] == NULL)
			return -1;
		lower(f->lower[i], f->rs.bytes + c->bytes, c->len);
	}
#ifdef GPUDP_TEST_HYPERSCAN
	f->db = calloc(f->rs.n_rule + 1, sizeof(*f->db));
	if (f->db == NULL)
		return -1;
	for (i = 0; i < f->rs.n_rule; i++) {
		if (!gpudp_ref_hs_expressible(&f->rs, &f->rs.rule[i]))
			continue;
		if (gpudp_ref_hs_rule(&f->rs, &f->rs.rule[i], &f->db[i]) != 0 ||
		    hs_alloc_scratch(f->db[i], &f->hss) != HS_SUCCESS)
			return -1;
	}
#endif
	return 0;
}

static void
teardown(struct ref *f)
{
	uint32_t i;

	for (i = 0; f->lower != NULL && i < f->rs.n_check; i++)
		free(f->lower[i]);
#ifdef GPUDP_TEST_HYPERSCAN
	for (i = 0; f->db != NULL && i < f->rs.n_rule; i++)
		hs_free_database(f->db[i]);
	free(f->db);
	hs_free_scratch(f->hss);
#endif
	free(f->lower);
	free(f->hits);
	gpudp_rules_free(&f->rs);
}

/* rule @p i on one packet; 1: it matches, -1: the references disagree */
static int
check_rule(struct ref *f, uint32_t i, const struct gpudp_rule_pkt *k, const uint8_t *p,
	   const uint8_t *lp, uint32_t len)
{
	const struct gpudp_rule *r = &f->rs.rule[i];
	int hit = may_match(f, r, p, lp, len) && gpudp_ref_header(&f->rs, r, k) &&
		  gpudp_ref_payload(&f->rs, r, p, len);

#ifdef GPUDP_TEST_HYPERSCAN
	if (f->db[i] != NULL && gpudp_ref_header(&f->rs, r, k)) {
		int hs = gpudp_ref_hs_payload(&f->rs, r, f->db[i], f->hss, p, len);

		if (hs != hit) {
			fprintf(stderr, "rules-capture-ref: sid %u: Hyperscan says %d, the "
				"recursion %d\n", r->sid, hs, hit);
			return -1;
		}
	}
#endif
	return hit;
}

static int
run(struct ref *f, const struct gpudp_capfile_packets *pk, FILE *out)
{
	static uint8_t lp[GPUDP_RULES_PAYLOAD_MAX];
	uint64_t alerted = 0, alerts = 0;
	uint32_t i;
	size_t n;
	int first = 1;

	fprintf(out, "{\"rules\": %u, \"records\": %zu,\n \"list\": [", f->rs.n_rule, pk->n);
	for (n = 0; n < pk->n; n++) {
		const uint8_t *d = pk->pkt[n].data;
		uint32_t caplen = pk->pkt[n].caplen, off, len, got = 0;
		struct gpudp_pkt_info pi;
		struct gpudp_rule_pkt k;
		char s[INET6_ADDRSTRLEN], t[INET6_ADDRSTRLEN];

		gpudp_pkt_parse(d, caplen, &pi);
		if (pi.af == 0)
			continue;
		off = gpudp_pkt_payload(d, caplen, &pi, &len);
		if (len > GPUDP_RULES_PAYLOAD_MAX)
			len = GPUDP_RULES_PAYLOAD_MAX;
		lower(lp, d + off, len);
		/* the packet as the rules see it, as gpudp-capture's analysis builds it */
		gpudp_rule_pkt_of(&pi, &k);
		inet_ntop(k.af == 6 ? AF_INET6 : AF_INET, k.src, s, sizeof(s));
		inet_ntop(k.af == 6 ? AF_INET6 : AF_INET, k.dst, t, sizeof(t));
		for (i = 0; i < f->rs.n_rule; i++) {
			int hit = check_rule(f, i, &k, d + off, lp, len);

			if (hit < 0)
				return -1;
			if (!hit)
				continue;
			f->hits[i]++;
			got++;
			fprintf(out, "%s\n  [%" PRIu64 ", %u, \"%s\", %u, \"%s\", %u, %u, %zu]",
				first ? "" : ",", pk->pkt[n].ts_ns, f->rs.rule[i].sid, s, k.sport,
				t, k.dport, k.proto, n);
			first = 0;
		}
		alerted += got != 0;
		alerts += got;
	}
	fprintf(out, "],\n \"alerted\": %" PRIu64 ", \"alerts\": %" PRIu64 ",\n \"per_sid\": [",
		alerted, alerts);
	for (i = 0; i < f->rs.n_rule; i++)
		fprintf(out, "%s\n  {\"sid\": %u, \"packets\": %" PRIu64 "}", i ? "," : "",
			f->rs.rule[i].sid, f->hits[i]);
	fprintf(out, "]}\n");
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: rules-capture-ref [--rule-vars FILE] [--skip] --rules FILE... "
		"[--json OUT] CAPTURE\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "rule-vars", required_argument, NULL, 'v' },
		{ "skip", no_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *files[MAX_FILES], *vars = NULL, *json = NULL;
	struct gpudp_rules_conf conf = { 0 };
	struct gpudp_capfile_packets pk;
	struct ref f;
	uint32_t n_files = 0;
	char err[512];
	FILE *out;
	int o, rc;

	memset(&f, 0, sizeof(f));
	gpudp_rules_init(&f.rs);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'r' && n_files < MAX_FILES)
			files[n_files++] = optarg;
		else if (o == 'v')
			vars = optarg;
		else if (o == 's')
			conf.skip_unsupported = 1;
		else if (o == 'j')
			json = optarg;
		else
			return usage(stderr), 2;
	}
	if (optind != argc - 1 || n_files == 0)
		return usage(stderr), 2;
	if (gpudp_rules_load(&f.rs, files, n_files, vars, &conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "rules-capture-ref: %s\n", err);
		return 1;
	}
	if (setup(&f) != 0) {
		fprintf(stderr, "rules-capture-ref: out of memory, or Hyperscan refused a rule\n");
		return 1;
	}
	if (gpudp_capfile_read_all(argv[optind], &pk, err, sizeof(err)) != 0) {
		fprintf(stderr, "rules-capture-ref: %s\n", err);
		teardown(&f);
		return 1;
	}
	out = json != NULL ? fopen(json, "w") : stdout;
	rc = out == NULL ? -1 : run(&f, &pk, out);
	if (out != NULL && (out != stdout ? fclose(out) : fflush(out)) != 0)
		rc = -1;
	gpudp_capfile_packets_free(&pk);
	teardown(&f);
	return rc == 0 ? 0 : 1;
}
