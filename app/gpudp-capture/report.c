/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture report: table and JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static const char *
proto_label(uint8_t p)
{
	switch (p) {
	case 1: return "ICMP";
	case 6: return "TCP";
	case 17: return "UDP";
	case 58: return "ICMPv6";
	default: return NULL;
	}
}

static void
endpoint_str(const struct gpudp_flow_key *k, int e, char *buf, size_t len)
{
	char a[64];

	gpudp_an_addr_str(k->af, k->addr[e], a, sizeof(a));
	if (k->proto == 6 || k->proto == 17)
		snprintf(buf, len, k->af == 6 ? "[%s]:%u" : "%s:%u", a, k->port[e]);
	else
		snprintf(buf, len, "%s", a);
}

static double
rate(uint64_t n, double s)
{
	return s > 0 ? n / s : 0;
}

int
cap_report_table(FILE *f, const struct cap_report *r)
{
	struct gpudp_an_counters ctr;    /* resolved: fragmented datagrams in L4 */
	const struct gpudp_an_counters *c = &ctr;
	struct gpudp_frag_summary fs;
	struct gpudp_flow_record *fl = NULL;
	struct gpudp_talker *tk = NULL;
	size_t nf = 0, nt = 0, i;
	unsigned int k;
	uint64_t drops = 0;

	if (gpudp_analysis_flows(r->a, &fl, &nf) != 0 ||
	    gpudp_analysis_talkers(r->a, &tk, &nt) != 0) {
		free(fl);
		return -ENOMEM;
	}
	gpudp_analysis_counters(r->a, &ctr);
	gpudp_analysis_fragments(r->a, &fs);
	for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
		drops += c->drops[k];
	fprintf(f, "\n=== gpudp-capture %s report ===\n", r->final ? "final" : "periodic");
	fprintf(f, "input      %s\n", r->input ? r->input : "?");
	fprintf(f, "engine     %s on %s%s%s\n", r->engine, r->eng->device,
		r->engine_note ? ": " : "", r->engine_note ? r->engine_note : "");
	fprintf(f, "packets    %" PRIu64 "   bytes %" PRIu64 " (captured %" PRIu64 ")\n",
		c->pkts, c->bytes, c->caplen_bytes);
	fprintf(f, "time       %.3f s   %.0f packets/s analysed\n", r->elapsed_s,
		rate(c->pkts, r->elapsed_s));
	fprintf(f, "GPU share  %.1f %% of packets (%" PRIu64 " batches, busy %.3f ms, kernels "
		"%.3f ms, %" PRIu64 " bytes copied)\n",
		strcmp(r->engine, "gpu") == 0 && c->pkts ? 100.0 * r->eng->pkts / c->pkts : 0.0,
		r->eng->batches, r->eng->busy_ms, r->eng->kernel_ms, r->eng->copy_bytes);
	if (r->mem != NULL)
		fprintf(f, "memory     %s%s%s%s, %u mbufs of %u B%s%s\n", r->mem,
			strcmp(r->mem, "staged") == 0 ? " (copied into batches)" : " (analysed in place)",
			r->pin ? ", pin backend " : "", r->pin ? r->pin : "", r->pool_mbufs,
			r->pool_data_room, r->cpu_mapped ? ", read by the CPU through a CPU mapping" :
			"", r->pins_running > 0 ? ", PINNED WHILE RUNNING" : "");
	if (r->expected_pkts)
		fprintf(f, "file       %" PRIu64 " packets in the input file%s\n",
			r->expected_pkts, r->file_truncated ? " (file truncated: last record "
			"incomplete, ignored)" : "");
	fprintf(f, "\ndrops      %-19s %" PRIu64 "\n", "(analysis total)", drops);
	for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
		fprintf(f, "           %-19s %" PRIu64 "\n", gpudp_an_drop_name(k), c->drops[k]);
	fprintf(f, "           %-19s %" PRIu64 "\n", "rx_missed", r->rx_missed);
	fprintf(f, "           %-19s %" PRIu64 "\n", "rx_errors", r->rx_errors);
	fprintf(f, "           %-19s %" PRIu64 "\n", "rx_nombuf", r->rx_nombuf);
	fprintf(f, "           %-19s %" PRIu64 "\n", "staging", r->staging_drops);
	fprintf(f, "notes      %-19s %" PRIu64 "\n", "snapped", c->snapped);
	fprintf(f, "           %-19s %" PRIu64 "\n", "multi_segment", r->multiseg);
	fprintf(f, "           %-19s %" PRIu64 "\n", "pmd_cut", r->pmd_cut);
	fprintf(f, "fragments  %" PRIu64 " datagrams in %" PRIu64 " fragments (%" PRIu64
		" bytes): %" PRIu64 " complete, %" PRIu64 " without their first fragment\n",
		fs.datagrams, fs.pkts, fs.bytes, fs.complete, fs.first_missing);

	fprintf(f, "\n%-10s %12s %14s\n", "protocol", "packets", "bytes");
	for (k = 0; k < GPUDP_AN_PROTO_MAX; k++)
		fprintf(f, "%-10s %12" PRIu64 " %14" PRIu64 "\n", gpudp_an_proto_name(k),
			c->proto_pkts[k], c->proto_bytes[k]);

	fprintf(f, "\n%-14s %12s\n", "frame size", "packets");
	for (k = 0; k < GPUDP_AN_SIZE_BUCKETS; k++) {
		uint32_t lo, hi;
		char b[32];

		gpudp_an_size_bucket_bounds(k, &lo, &hi);
		if (hi == UINT32_MAX)
			snprintf(b, sizeof(b), "%u+", lo);
		else
			snprintf(b, sizeof(b), "%u-%u", lo, hi);
		fprintf(f, "%-14s %12" PRIu64 "\n", b, c->size_hist[k]);
	}

	fprintf(f, "\nflows: %zu (top %u by bytes)\n", nf, r->top_n);
	fprintf(f, "%-6s %-42s %-42s %9s %12s\n", "proto", "endpoint A", "endpoint B",
		"packets", "bytes");
	for (i = 0; i < nf && i < r->top_n; i++) {
		char a[64], b[64], pn[8];
		const char *pl = proto_label(fl[i].key.proto);

		if (pl == NULL) {
			snprintf(pn, sizeof(pn), "%u", fl[i].key.proto);
			pl = pn;
		}
		endpoint_str(&fl[i].key, 0, a, sizeof(a));
		endpoint_str(&fl[i].key, 1, b, sizeof(b));
		fprintf(f, "%-6s %-42s %-42s %9" PRIu64 " %12" PRIu64 "\n", pl, a, b,
			fl[i].pkts[0] + fl[i].pkts[1], fl[i].bytes[0] + fl[i].bytes[1]);
	}
	fprintf(f, "\ntop talkers: %zu addresses (top %u by bytes)\n", nt, r->top_n);
	fprintf(f, "%-40s %9s %12s %9s %12s\n", "address", "tx pkts", "tx bytes", "rx pkts",
		"rx bytes");
	for (i = 0; i < nt && i < r->top_n; i++) {
		char a[64];

		gpudp_an_addr_str(tk[i].af, tk[i].addr, a, sizeof(a));
		fprintf(f, "%-40s %9" PRIu64 " %12" PRIu64 " %9" PRIu64 " %12" PRIu64 "\n", a,
			tk[i].tx_pkts, tk[i].tx_bytes, tk[i].rx_pkts, tk[i].rx_bytes);
	}
	if (r->filter_expr != NULL) {
		fprintf(f, "\nfilter     \"%s\": %" PRIu64 " packets, %" PRIu64 " bytes matched%s%s",
			r->filter_expr, c->filter_pkts, c->filter_bytes,
			r->filter_file ? "; written to " : "", r->filter_file ? r->filter_file : "");
		if (r->filter_unreadable != 0)
			fprintf(f, "; %" PRIu64 " matches not written (their bytes could not be "
				"read back from GPU memory)", r->filter_unreadable);
		fprintf(f, "\n");
	}
	free(fl);
	free(tk);
	return ferror(f) ? -EIO : 0;
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

int
cap_report_json(FILE *f, const struct cap_report *r)
{
	struct gpudp_an_counters ctr;    /* resolved: fragmented datagrams in L4 */
	const struct gpudp_an_counters *c = &ctr;
	struct gpudp_frag_summary fs;
	struct gpudp_flow_record *fl = NULL;
	struct gpudp_talker *tk = NULL;
	size_t nf = 0, nt = 0, i;
	unsigned int k;

	if (gpudp_analysis_flows(r->a, &fl, &nf) != 0 ||
	    gpudp_analysis_talkers(r->a, &tk, &nt) != 0) {
		free(fl);
		return -ENOMEM;
	}
	gpudp_analysis_counters(r->a, &ctr);
	gpudp_analysis_fragments(r->a, &fs);
	fprintf(f, "{\n  \"schema\": %d,\n  \"final\": %s,\n  \"input\": ", CAP_REPORT_SCHEMA,
		r->final ? "true" : "false");
	json_str(f, r->input);
	fprintf(f, ",\n  \"engine\": {\"kind\": ");
	json_str(f, r->engine);
	fprintf(f, ", \"device\": ");
	json_str(f, r->eng->device);
	fprintf(f, ", \"note\": ");
	json_str(f, r->engine_note ? r->engine_note : "");
	fprintf(f, ", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"batches\": %" PRIu64
		", \"busy_ms\": %.3f, \"kernel_ms\": %.3f, \"copy_bytes\": %" PRIu64
		", \"copy_out_bytes\": %" PRIu64 ", \"gpu_share\": %.6f},\n",
		r->eng->pkts, r->eng->bytes, r->eng->batches, r->eng->busy_ms, r->eng->kernel_ms,
		r->eng->copy_bytes, r->eng->copy_out_bytes,
		strcmp(r->engine, "gpu") == 0 && c->pkts ? (double)r->eng->pkts / c->pkts : 0.0);
	if (r->mem != NULL) {
		fprintf(f, "  \"mem\": {\"type\": ");
		json_str(f, r->mem);
		fprintf(f, ", \"note\": ");
		json_str(f, r->mem_note ? r->mem_note : "");
		fprintf(f, ", \"pin\": ");
		if (r->pin != NULL)
			json_str(f, r->pin);
		else
			fprintf(f, "null");
		fprintf(f, ", \"mbufs\": %u, \"data_room\": %u, \"gpu_bytes\": %" PRIu64
			", \"host_bytes\": %" PRIu64 ", \"cpu_mapped\": %s, \"pins\": ",
			r->pool_mbufs, r->pool_data_room, r->pool_gpu_bytes, r->pool_host_bytes,
			r->cpu_mapped ? "true" : "false");
		if (r->pins_created < 0)
			fprintf(f, "null},\n");
		else
			fprintf(f, "{\"at_pool_creation\": %" PRId64 ", \"while_running\": %" PRId64
				"}},\n", r->pins_created, r->pins_running);
	}
	fprintf(f, "  \"elapsed_s\": %.6f,\n  \"packets_per_s\": %.1f,\n", r->elapsed_s,
		rate(c->pkts, r->elapsed_s));
	fprintf(f, "  \"packets\": %" PRIu64 ",\n  \"bytes\": %" PRIu64 ",\n"
		"  \"captured_bytes\": %" PRIu64 ",\n", c->pkts, c->bytes, c->caplen_bytes);
	fprintf(f, "  \"input_file\": {\"packets\": %" PRIu64 ", \"truncated\": %s},\n",
		r->expected_pkts, r->file_truncated ? "true" : "false");
	fprintf(f, "  \"rx\": {\"packets\": %" PRIu64 ", \"missed\": %" PRIu64 ", \"errors\": %"
		PRIu64 ", \"nombuf\": %" PRIu64 ", \"multi_segment\": %" PRIu64
		", \"pmd_cut\": %" PRIu64 "},\n",
		r->rx_pkts, r->rx_missed, r->rx_errors, r->rx_nombuf, r->multiseg, r->pmd_cut);
	fprintf(f, "  \"drops\": {");
	for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
		fprintf(f, "\"%s\": %" PRIu64 ", ", gpudp_an_drop_name(k), c->drops[k]);
	fprintf(f, "\"rx_missed\": %" PRIu64 ", \"rx_errors\": %" PRIu64 ", \"rx_nombuf\": %"
		PRIu64 ", \"staging\": %" PRIu64 "},\n", r->rx_missed, r->rx_errors,
		r->rx_nombuf, r->staging_drops);
	fprintf(f, "  \"snapped\": %" PRIu64 ",\n", c->snapped);
	fprintf(f, "  \"fragments\": {\"datagrams\": %" PRIu64 ", \"packets\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"complete\": %" PRIu64 ", \"first_missing\": %"
		PRIu64 "},\n", fs.datagrams, fs.pkts, fs.bytes, fs.complete, fs.first_missing);
	fprintf(f, "  \"protocols\": {");
	for (k = 0; k < GPUDP_AN_PROTO_MAX; k++)
		fprintf(f, "%s\n    \"%s\": {\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			k ? "," : "", gpudp_an_proto_name(k), c->proto_pkts[k], c->proto_bytes[k]);
	fprintf(f, "\n  },\n  \"size_histogram\": [");
	for (k = 0; k < GPUDP_AN_SIZE_BUCKETS; k++) {
		uint32_t lo, hi;

		gpudp_an_size_bucket_bounds(k, &lo, &hi);
		fprintf(f, "%s\n    {\"min\": %u, \"max\": ", k ? "," : "", lo);
		if (hi == UINT32_MAX)
			fprintf(f, "null");
		else
			fprintf(f, "%u", hi);
		fprintf(f, ", \"packets\": %" PRIu64 "}", c->size_hist[k]);
	}
	fprintf(f, "\n  ],\n  \"flows_total\": %zu,\n  \"flows\": [", nf);
	for (i = 0; i < nf; i++) {
		const struct gpudp_flow_record *x = &fl[i];
		char a[64], b[64];

		gpudp_an_addr_str(x->key.af, x->key.addr[0], a, sizeof(a));
		gpudp_an_addr_str(x->key.af, x->key.addr[1], b, sizeof(b));
		fprintf(f, "%s\n    {\"af\": %u, \"proto\": %u, \"a\": \"%s\", \"a_port\": %u, "
			"\"b\": \"%s\", \"b_port\": %u, \"packets_ab\": %" PRIu64 ", \"bytes_ab\": %"
			PRIu64 ", \"packets_ba\": %" PRIu64 ", \"bytes_ba\": %" PRIu64
			", \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64 "}",
			i ? "," : "", x->key.af, x->key.proto, a, x->key.port[0], b, x->key.port[1],
			x->pkts[0], x->bytes[0], x->pkts[1], x->bytes[1], x->first_ts, x->last_ts);
	}
	fprintf(f, "\n  ],\n  \"top_talkers\": [");
	for (i = 0; i < nt; i++) {
		char a[64];

		gpudp_an_addr_str(tk[i].af, tk[i].addr, a, sizeof(a));
		fprintf(f, "%s\n    {\"af\": %u, \"addr\": \"%s\", \"tx_packets\": %" PRIu64
			", \"tx_bytes\": %" PRIu64 ", \"rx_packets\": %" PRIu64 ", \"rx_bytes\": %"
			PRIu64 "}", i ? "," : "", tk[i].af, a, tk[i].tx_pkts, tk[i].tx_bytes,
			tk[i].rx_pkts, tk[i].rx_bytes);
	}
	fprintf(f, "\n  ],\n  \"filter\": ");
	if (r->filter_expr == NULL) {
		fprintf(f, "null\n}\n");
	} else {
		fprintf(f, "{\"expression\": ");
		json_str(f, r->filter_expr);
		fprintf(f, ", \"matched_packets\": %" PRIu64 ", \"matched_bytes\": %" PRIu64
			", \"file\": ", c->filter_pkts, c->filter_bytes);
		if (r->filter_file)
			json_str(f, r->filter_file);
		else
			fprintf(f, "null");
		fprintf(f, ", \"written\": %" PRIu64 ", \"not_written_unreadable\": %" PRIu64
			"}\n}\n", r->filter_written, r->filter_unreadable);
	}
	free(fl);
	free(tk);
	return ferror(f) ? -EIO : 0;
}

int
cap_report_json_file(const char *path, const struct cap_report *r)
{
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	FILE *f;
	int rc;

	if (tmp == NULL)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (f == NULL) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = cap_report_json(f, r);
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
