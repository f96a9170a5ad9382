/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hs-capture-ref: the reference of gpudp-capture's payload inspection
 * (--match, --match-scope). It reads a capture file (pcap or pcapng, with
 * gpudp-capture's own reader), a pattern file (doc/match.md, parsed by
 * gpudp_match_parse() only: no gpudp_match database is built), and finds
 * the patterns in every record with Hyperscan alone (gpudp_test_hs.h):
 *   - scope payload: the L4 payload of the record's captured bytes, as
 *     gpudp_pkt_payload() defines it (after gpudp_pkt_parse());
 *   - scope frame: every captured byte.
 * It writes the "match" object of gpudp-capture's JSON report:
 *   {"match": {"file", "scope", "patterns", "scanned", "scanned_bytes",
 *              "matched", "occurrences", "per_pattern": [{"name",
 *              "packets", "occurrences"}, ... in pattern-file order]}}
 *
 * usage: hs-capture-ref --match FILE [--match-scope payload|frame]
 *                       [--json OUT] [--list NAME] CAPTURE
 * --json OUT: the report's file (default: stdout); --list NAME: also list,
 * on stderr, every record where pattern NAME occurs (to find the packet of
 * a difference).
 * Exit 0; 1 on an unreadable capture or pattern file, or a Hyperscan
 * error; 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <time.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_analysis_pkt.h>
#include <gpudp_match.h>
#include <gpudp_test_hs.h>

#include "gpudp_capfile.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: hs-capture-ref --match FILE [--match-scope payload|frame] "
		"[--json OUT] [--list NAME] CAPTURE\n");
}

/* the whole file in memory (*len bytes), or NULL */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);

			if (b == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* a JSON string */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double t0, secs;
	static const struct option opts[] = {
		{ "match", required_argument, NULL, 'm' },
		{ "match-scope", required_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'j' },
		{ "list", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pat_path = NULL, *scope = "payload", *out_path = NULL, *list = NULL;
	struct gpudp_match_pattern *pats = NULL;
	struct gpudp_capfile_packets pk;
	struct gpudp_test_hs h;
	uint64_t scanned_bytes = 0;
	uint32_t n_pats = 0, i, list_id = UINT32_MAX;
	char err[512], *text;
	size_t text_len = 0, k;
	FILE *out;
	int c, frame, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': pat_path = optarg; break;
		case 's': scope = optarg; break;
		case 'j': out_path = optarg; break;
		case 'l': list = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (pat_path == NULL || optind != argc - 1 ||
	    (strcmp(scope, "payload") != 0 && strcmp(scope, "frame") != 0)) {
		usage(stderr);
		return 2;
	}
	frame = strcmp(scope, "frame") == 0;

	text = read_file(pat_path, &text_len);
	if (text == NULL) {
		fprintf(stderr, "hs-capture-ref: %s: %s\n", pat_path, strerror(errno));
		return 1;
	}
	rc = gpudp_match_parse(text, text_len, &pats, &n_pats, err, sizeof(err));
	free(text);
	if (rc != 0 || n_pats == 0) {
		fprintf(stderr, "hs-capture-ref: %s: %s\n", pat_path,
			rc != 0 ? err : "no patterns");
		free(pats);
		return 1;
	}
	for (i = 0; list != NULL && i < n_pats; i++)
		if (strcmp(pats[i].name, list) == 0)
			list_id = i;
	if (list != NULL && list_id == UINT32_MAX) {
		fprintf(stderr, "hs-capture-ref: --list: no pattern '%s' in %s\n", list, pat_path);
		free(pats);
		return 2;
	}
	if (gpudp_test_hs_open(&h, pats, n_pats, err, sizeof(err)) != 0) {
		fprintf(stderr, "hs-capture-ref: %s: %s\n", pat_path, err);
		free(pats);
		return 1;
	}
	rc = gpudp_capfile_read_all(argv[optind], &pk, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "hs-capture-ref: %s\n", err);
		gpudp_test_hs_close(&h);
		free(pats);
		return 1;
	}

	t0 = now_s();
	for (k = 0; k < pk.n; k++) {
		const uint8_t *d = pk.pkt[k].data;
		uint32_t caplen = pk.pkt[k].caplen, off = 0, len = caplen;
		uint64_t before = list != NULL ? h.occ[list_id] : 0;

		if (!frame) {
			struct gpudp_pkt_info pi;

			gpudp_pkt_parse(d, caplen, &pi);
			off = gpudp_pkt_payload(d, caplen, &pi, &len);
		}
		scanned_bytes += len;
		if (gpudp_test_hs_scan(&h, d + off, len) != 0) {
			fprintf(stderr, "hs-capture-ref: hs_scan failed on record %zu\n", k);
			rc = 1;
			goto done;
		}
		if (list != NULL && h.occ[list_id] != before)
			fprintf(stderr, "record %zu (caplen %u, %u bytes scanned from offset %u): "
				"%s occurs %" PRIu64 " times\n", k, caplen, len, off, list,
				h.occ[list_id] - before);
	}

	secs = now_s() - t0;
	out = out_path != NULL ? fopen(out_path, "w") : stdout;
	if (out == NULL) {
		fprintf(stderr, "hs-capture-ref: %s: %s\n", out_path, strerror(errno));
		rc = 1;
		goto done;
	}
	fprintf(out, "{\"match\": {\"file\": ");
	json_str(out, pat_path);
	fprintf(out, ", \"scope\": \"%s\", \"patterns\": %" PRIu32 ", \"scanned\": %zu, "
		"\"scanned_bytes\": %" PRIu64 ", \"matched\": %" PRIu64 ", \"occurrences\": %"
		PRIu64 ",\n  \"per_pattern\": [", scope, n_pats, pk.n, scanned_bytes, h.matched,
		h.total_occ);
	for (i = 0; i < n_pats; i++) {
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_str(out, pats[i].name);
		fprintf(out, ", \"packets\": %" PRIu64 ", \"occurrences\": %" PRIu64 "}",
			h.pkts[i], h.occ[i]);
	}
	/* one core's Hyperscan scan of the records, parsing included (benchmarks) */
	fprintf(out, "]},\n \"hyperscan_seconds\": %.6f}\n", secs);
	if ((out != stdout ? fclose(out) : fflush(out)) != 0) {
		fprintf(stderr, "hs-capture-ref: %s: write failed\n",
			out_path != NULL ? out_path : "stdout");
		rc = 1;
	}
done:
	gpudp_capfile_packets_free(&pk);
	gpudp_test_hs_close(&h);
	free(pats);
	return rc;
}
