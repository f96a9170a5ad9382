/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture report: table and JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudp_json.h"
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

/* Whether the report has payload inspection counts. */
static int
has_match(const struct cap_report *r)
{
	return r->match != NULL && r->match->file != NULL && r->a->match != NULL;
}

/* Whether the report has the rules' counts. */
static int
has_rules(const struct cap_report *r)
{
	return r->rules != NULL && r->rules->img != NULL && r->a->rules != NULL;
}

/* Patterns by packets (descending), then occurrences, then file order. */
static int
cmp_pattern(const void *pa, const void *pb, void *arg)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	const struct gpudp_analysis *a = arg;

	if (a->match_pkts[x] != a->match_pkts[y])
		return a->match_pkts[x] < a->match_pkts[y] ? 1 : -1;
	if (a->match_occ[x] != a->match_occ[y])
		return a->match_occ[x] < a->match_occ[y] ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* What both report forms read from the analysis (report_data_free() it). */
struct report_data {
	struct gpudp_an_counters ctr;    /* resolved: fragmented datagrams in L4 */
	struct gpudp_frag_summary fs;
	struct gpudp_flow_record *fl;
	struct gpudp_talker *tk;
	size_t nf, nt;
};

/* @return 0 or -ENOMEM */
static int
report_data_get(const struct cap_report *r, struct report_data *d)
{
	memset(d, 0, sizeof(*d));
	if (gpudp_analysis_flows(r->a, &d->fl, &d->nf) != 0 ||
	    gpudp_analysis_talkers(r->a, &d->tk, &d->nt) != 0) {
		free(d->fl);
		return -ENOMEM;
	}
	gpudp_analysis_counters(r->a, &d->ctr);
	gpudp_analysis_fragments(r->a, &d->fs);
	return 0;
}

static void
report_data_free(struct report_data *d)
{
	free(d->fl);
	free(d->tk);
}

/* the table's head: input, engine, totals, memory, drops and notes */
static void
table_head(FILE *f, const struct cap_report *r, const struct gpudp_an_counters *c,
	   const struct gpudp_frag_summary *fs)
{
	uint64_t drops = 0;
	unsigned int k;

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
	if (r->mem != NULL && r->pool_mbufs == 0)
		fprintf(f, "memory     %s (copied into batches), no mbufs (records read from the "
			"file)\n", r->mem);
	else if (r->mem != NULL)
		fprintf(f, "memory     %s%s%s%s, %u mbufs of %u B%s%s\n", r->mem,
			strcmp(r->mem, "staged") == 0 ? " (copied into batches)" : " (analysed in place)",
			r->pin ? ", pin backend " : "", r->pin ? r->pin : "", r->pool_mbufs,
			r->pool_data_room, r->cpu_mapped ? ", read by the CPU through a CPU mapping" :
			"", r->pins_running > 0 ? ", PINNED WHILE RUNNING" : "");
	if (r->expected_pkts)
		fprintf(f, "file       %" PRIu64 " packets in the input file%s\n",
			r->expected_pkts, r->file_truncated ? " (file truncated: last record "
			"incomplete, counted in rx_errors)" : "");
	if (r->files_changed)
		fprintf(f, "file       %" PRIu64 " input file%s CHANGED SIZE while read: the report "
			"covers what was read\n", r->files_changed, r->files_changed > 1 ? "s" : "");
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
	for (k = 0; k < r->n_ports; k++)
		gpudp_app_port_stats_print(f, k == 0 ? "ports      " : "           ",
					   &r->ports[k]);
	fprintf(f, "fragments  %" PRIu64 " datagrams in %" PRIu64 " fragments (%" PRIu64
		" bytes): %" PRIu64 " complete, %" PRIu64 " without their first fragment\n",
		fs->datagrams, fs->pkts, fs->bytes, fs->complete, fs->first_missing);
}

/* protocols and the size histogram */
static void
table_protocols(FILE *f, const struct gpudp_an_counters *c)
{
	unsigned int k;

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
}

/* the top flows and talkers */
static void
table_flows(FILE *f, const struct cap_report *r, const struct gpudp_flow_record *fl, size_t nf,
	    const struct gpudp_talker *tk, size_t nt)
{
	size_t i;

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
}

/* payload inspection: the totals and the patterns found most often */
static int
table_match(FILE *f, const struct cap_report *r, const struct gpudp_an_counters *c)
{
	const struct gpudp_analysis *a = r->a;
	uint32_t n = a->match->n_patterns, i, *order = malloc(sizeof(*order) * (n ? n : 1));

	if (order == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_pattern, (void *)(uintptr_t)a);
	fprintf(f, "\npayload inspection: %u patterns of %s over the %s; %" PRIu64
		" bytes scanned\n", n, r->match->file, cap_match_scope_name(r->match),
		c->match_bytes);
	fprintf(f, "  %" PRIu64 " packets matched, %" PRIu64 " occurrences (top %u patterns "
		"by packets)\n", c->match_pkts, c->match_occ, r->top_n);
	fprintf(f, "%-40s %12s %12s\n", "pattern", "packets", "occurrences");
	for (i = 0; i < n && i < r->top_n && a->match_pkts[order[i]] != 0; i++)
		fprintf(f, "%-40s %12" PRIu64 " %12" PRIu64 "\n", r->match->pats[order[i]].name,
			a->match_pkts[order[i]], a->match_occ[order[i]]);
	free(order);
	return 0;
}

int
cap_report_table(FILE *f, const struct cap_report *r)
{
	struct report_data d;
	const struct gpudp_an_counters *c = &d.ctr;

	if (report_data_get(r, &d) != 0)
		return -ENOMEM;
	table_head(f, r, c, &d.fs);
	table_protocols(f, c);
	table_flows(f, r, d.fl, d.nf, d.tk, d.nt);
	if ((has_match(r) && table_match(f, r, c) != 0) ||
	    (has_rules(r) && cap_report_rules_table(f, r) != 0)) {
		report_data_free(&d);
		return -ENOMEM;
	}
	if (r->filter_expr != NULL) {
		fprintf(f, "\nfilter     \"%s\": %" PRIu64 " packets, %" PRIu64 " bytes matched",
			r->filter_expr, c->filter_pkts, c->filter_bytes);
		if (r->filter_file != NULL && r->filter_rotate != NULL)
			fprintf(f, "; %" PRIu64 " written to %" PRIu64 " file%s named after %s",
				r->filter_written, r->filter_files, r->filter_files == 1 ? "" : "s",
				r->filter_file);
		else if (r->filter_file != NULL)
			fprintf(f, "; written to %s", r->filter_file);
		if (r->filter_files_removed != 0)
			fprintf(f, " (%" PRIu64 " deleted, files:%u)", r->filter_files_removed,
				r->filter_rotate->files);
		if (r->filter_dropped != 0)
			fprintf(f, "; %" PRIu64 " not written (write errors)", r->filter_dropped);
		if (r->filter_unreadable != 0)
			fprintf(f, "; %" PRIu64 " matches not written (their bytes could not be "
				"read back from GPU memory)", r->filter_unreadable);
		fprintf(f, "\n");
	}
	if (r->flows != NULL)
		cap_report_flows_table(f, r->flows);
	report_data_free(&d);
	return ferror(f) ? -EIO : 0;
}

/* engine.gpus: the GPUs the ports were analysed on (none: nothing written) */
static void
json_gpus(struct gpudp_json *j, const struct cap_report *r)
{
	unsigned int g, i;

	if (r->gpus == NULL || r->n_gpus == 0)
		return;
	gpudp_json_arr(j, "gpus");
	for (g = 0; g < r->n_gpus; g++) {
		gpudp_json_obj(j, NULL);
		gpudp_json_i64(j, "gpu", r->gpus[g].ordinal);
		gpudp_json_str(j, "pci", r->gpus[g].pci);
		gpudp_json_arr(j, "ports");
		for (i = 0; i < r->gpus[g].n_ports; i++)
			gpudp_json_u64(j, NULL, r->gpus[g].ports[i]);
		gpudp_json_end(j);
		gpudp_json_u64(j, "packets", r->gpus[g].packets);
		gpudp_json_u64(j, "batches", r->gpus[g].batches);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* "engine" and "mem": what analysed the packets and where they were */
static void
json_engine_mem(struct gpudp_json *j, const struct cap_report *r,
		const struct gpudp_an_counters *c)
{
	gpudp_json_obj(j, "engine");
	gpudp_json_str(j, "kind", r->engine);
	gpudp_json_str(j, "device", r->eng->device);
	gpudp_json_str(j, "note", r->engine_note ? r->engine_note : "");
	gpudp_json_u64(j, "packets", r->eng->pkts);
	gpudp_json_u64(j, "bytes", r->eng->bytes);
	gpudp_json_u64(j, "batches", r->eng->batches);
	gpudp_json_dbl(j, "busy_ms", r->eng->busy_ms, 3);
	gpudp_json_dbl(j, "kernel_ms", r->eng->kernel_ms, 3);
	gpudp_json_dbl(j, "wait_ms", r->eng->wait_ms, 3);
	gpudp_json_dbl(j, "submit_ms", r->eng->submit_ms, 3);
	gpudp_json_u64(j, "copy_bytes", r->eng->copy_bytes);
	gpudp_json_u64(j, "copy_out_bytes", r->eng->copy_out_bytes);
	gpudp_json_dbl(j, "gpu_share", strcmp(r->engine, "gpu") == 0 && c->pkts ?
		       (double)r->eng->pkts / c->pkts : 0.0, 6);
	json_gpus(j, r);
	gpudp_json_end(j);
	if (r->mem == NULL)
		return;
	gpudp_json_obj(j, "mem");
	gpudp_json_str(j, "type", r->mem);
	gpudp_json_str(j, "note", r->mem_note ? r->mem_note : "");
	gpudp_json_str(j, "pin", r->pin);
	if (r->host_alloc != NULL)
		gpudp_json_str(j, "host_alloc", r->host_alloc);
	gpudp_json_u64(j, "mbufs", r->pool_mbufs);
	gpudp_json_u64(j, "data_room", r->pool_data_room);
	gpudp_json_u64(j, "gpu_bytes", r->pool_gpu_bytes);
	gpudp_json_u64(j, "host_bytes", r->pool_host_bytes);
	gpudp_json_bool(j, "cpu_mapped", r->cpu_mapped);
	if (r->pins_created < 0) {
		gpudp_json_null(j, "pins");
	} else {
		gpudp_json_obj(j, "pins");
		gpudp_json_i64(j, "at_pool_creation", r->pins_created);
		gpudp_json_i64(j, "while_running", r->pins_running);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* the counters: totals, input, rx, drops, fragments */
static void
json_counters(struct gpudp_json *j, const struct cap_report *r,
	      const struct gpudp_an_counters *c, const struct gpudp_frag_summary *fs)
{
	uint64_t port_drops = 0;
	unsigned int k;

	gpudp_json_dbl(j, "elapsed_s", r->elapsed_s, 6);
	gpudp_json_dbl(j, "packets_per_s", rate(c->pkts, r->elapsed_s), 1);
	gpudp_json_u64(j, "packets", c->pkts);
	gpudp_json_u64(j, "bytes", c->bytes);
	gpudp_json_u64(j, "captured_bytes", c->caplen_bytes);
	gpudp_json_obj(j, "input_file");
	gpudp_json_u64(j, "packets", r->expected_pkts);
	gpudp_json_bool(j, "truncated", r->file_truncated);
	gpudp_json_u64(j, "changed_while_read", r->files_changed);
	gpudp_json_end(j);
	gpudp_json_obj(j, "rx");
	gpudp_json_u64(j, "packets", r->rx_pkts);
	gpudp_json_u64(j, "missed", r->rx_missed);
	gpudp_json_u64(j, "errors", r->rx_errors);
	gpudp_json_u64(j, "nombuf", r->rx_nombuf);
	gpudp_json_u64(j, "multi_segment", r->multiseg);
	gpudp_json_u64(j, "pmd_cut", r->pmd_cut);
	gpudp_json_end(j);
	gpudp_json_obj(j, "drops");
	for (k = 0; k < GPUDP_AN_DROP_MAX; k++)
		gpudp_json_u64(j, gpudp_an_drop_name(k), c->drops[k]);
	gpudp_json_u64(j, "rx_missed", r->rx_missed);
	gpudp_json_u64(j, "rx_errors", r->rx_errors);
	gpudp_json_u64(j, "rx_nombuf", r->rx_nombuf);
	gpudp_json_u64(j, "staging", r->staging_drops);
	gpudp_json_end(j);
	gpudp_json_arr(j, "ports");
	for (k = 0; k < r->n_ports; k++) {
		gpudp_app_port_stats_json(j, &r->ports[k]);
		port_drops += gpudp_app_port_stats_drops(&r->ports[k]);
	}
	gpudp_json_end(j);
	gpudp_json_u64(j, "port_drops", port_drops);
	gpudp_json_u64(j, "snapped", c->snapped);
	gpudp_json_obj(j, "fragments");
	gpudp_json_u64(j, "datagrams", fs->datagrams);
	gpudp_json_u64(j, "packets", fs->pkts);
	gpudp_json_u64(j, "bytes", fs->bytes);
	gpudp_json_u64(j, "complete", fs->complete);
	gpudp_json_u64(j, "first_missing", fs->first_missing);
	gpudp_json_end(j);
}

/* "protocols" and "size_histogram" */
static void
json_protocols_sizes(struct gpudp_json *j, const struct gpudp_an_counters *c)
{
	unsigned int k;

	gpudp_json_obj(j, "protocols");
	for (k = 0; k < GPUDP_AN_PROTO_MAX; k++) {
		gpudp_json_obj(j, gpudp_an_proto_name(k));
		gpudp_json_u64(j, "packets", c->proto_pkts[k]);
		gpudp_json_u64(j, "bytes", c->proto_bytes[k]);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
	gpudp_json_arr(j, "size_histogram");
	for (k = 0; k < GPUDP_AN_SIZE_BUCKETS; k++) {
		uint32_t lo, hi;

		gpudp_an_size_bucket_bounds(k, &lo, &hi);
		gpudp_json_obj(j, NULL);
		gpudp_json_u64(j, "min", lo);
		if (hi == UINT32_MAX)
			gpudp_json_null(j, "max");
		else
			gpudp_json_u64(j, "max", hi);
		gpudp_json_u64(j, "packets", c->size_hist[k]);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* "flows" and "top_talkers" */
static void
json_flows_talkers(struct gpudp_json *j, const struct gpudp_flow_record *fl, size_t nf,
		   const struct gpudp_talker *tk, size_t nt, int match)
{
	char a[64], b[64];
	size_t i;

	gpudp_json_u64(j, "flows_total", nf);
	gpudp_json_arr(j, "flows");
	for (i = 0; i < nf; i++) {
		const struct gpudp_flow_record *x = &fl[i];

		gpudp_an_addr_str(x->key.af, x->key.addr[0], a, sizeof(a));
		gpudp_an_addr_str(x->key.af, x->key.addr[1], b, sizeof(b));
		gpudp_json_obj(j, NULL);
		gpudp_json_u64(j, "af", x->key.af);
		gpudp_json_u64(j, "proto", x->key.proto);
		gpudp_json_str(j, "a", a);
		gpudp_json_u64(j, "a_port", x->key.port[0]);
		gpudp_json_str(j, "b", b);
		gpudp_json_u64(j, "b_port", x->key.port[1]);
		gpudp_json_u64(j, "packets_ab", x->pkts[0]);
		gpudp_json_u64(j, "bytes_ab", x->bytes[0]);
		gpudp_json_u64(j, "packets_ba", x->pkts[1]);
		gpudp_json_u64(j, "bytes_ba", x->bytes[1]);
		gpudp_json_u64(j, "first_ns", x->first_ts);
		gpudp_json_u64(j, "last_ns", x->last_ts);
		if (match)
			gpudp_json_u64(j, "match_packets", x->match_pkts);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
	gpudp_json_arr(j, "top_talkers");
	for (i = 0; i < nt; i++) {
		gpudp_an_addr_str(tk[i].af, tk[i].addr, a, sizeof(a));
		gpudp_json_obj(j, NULL);
		gpudp_json_u64(j, "af", tk[i].af);
		gpudp_json_str(j, "addr", a);
		gpudp_json_u64(j, "tx_packets", tk[i].tx_pkts);
		gpudp_json_u64(j, "tx_bytes", tk[i].tx_bytes);
		gpudp_json_u64(j, "rx_packets", tk[i].rx_pkts);
		gpudp_json_u64(j, "rx_bytes", tk[i].rx_bytes);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* "match": payload inspection's totals and every pattern's counts, in file order */
static void
json_match(struct gpudp_json *j, const struct cap_report *r, const struct gpudp_an_counters *c)
{
	const struct gpudp_analysis *a = r->a;
	uint32_t i;

	if (!has_match(r)) {
		gpudp_json_null(j, "match");
		return;
	}
	gpudp_json_obj(j, "match");
	gpudp_json_str(j, "file", r->match->file);
	gpudp_json_str(j, "scope", cap_match_scope_name(r->match));
	gpudp_json_u64(j, "patterns", a->match->n_patterns);
	gpudp_json_u64(j, "scanned", c->pkts);
	gpudp_json_u64(j, "scanned_bytes", c->match_bytes);
	gpudp_json_u64(j, "matched", c->match_pkts);
	gpudp_json_u64(j, "occurrences", c->match_occ);
	gpudp_json_arr(j, "per_pattern");
	for (i = 0; i < a->match->n_patterns; i++) {
		gpudp_json_obj(j, NULL);
		gpudp_json_str(j, "name", r->match->pats[i].name);
		gpudp_json_u64(j, "packets", a->match_pkts[i]);
		gpudp_json_u64(j, "occurrences", a->match_occ[i]);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
	gpudp_json_end(j);
}

static void
json_filter(struct gpudp_json *j, const struct cap_report *r,
	    const struct gpudp_an_counters *c)
{
	if (r->filter_expr == NULL) {
		gpudp_json_null(j, "filter");
		return;
	}
	gpudp_json_obj(j, "filter");
	gpudp_json_str(j, "expression", r->filter_expr);
	gpudp_json_u64(j, "matched_packets", c->filter_pkts);
	gpudp_json_u64(j, "matched_bytes", c->filter_bytes);
	gpudp_json_str(j, "file", r->filter_file);
	gpudp_json_u64(j, "written", r->filter_written);
	gpudp_json_u64(j, "not_written_unreadable", r->filter_unreadable);
	gpudp_json_u64(j, "not_written_write_errors", r->filter_dropped);
	gpudp_json_u64(j, "files", r->filter_files);
	gpudp_json_u64(j, "files_removed", r->filter_files_removed);
	if (r->filter_rotate == NULL) {
		gpudp_json_null(j, "rotate");
	} else {
		gpudp_json_obj(j, "rotate");
		gpudp_json_u64(j, "filesize_kb", r->filter_rotate->filesize_kb);
		gpudp_json_u64(j, "duration_s", r->filter_rotate->duration_s);
		gpudp_json_u64(j, "files", r->filter_rotate->files);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

/* The report into the writer @p j. @return 0 or -ENOMEM */
static int
report_json(struct gpudp_json *j, const struct cap_report *r)
{
	struct report_data d;

	if (report_data_get(r, &d) != 0)
		return -ENOMEM;
	gpudp_json_obj(j, NULL);
	gpudp_json_u64(j, "schema", CAP_REPORT_SCHEMA);
	gpudp_json_bool(j, "final", r->final);
	gpudp_json_str(j, "input", r->input);
	json_engine_mem(j, r, &d.ctr);
	json_counters(j, r, &d.ctr, &d.fs);
	json_protocols_sizes(j, &d.ctr);
	json_flows_talkers(j, d.fl, d.nf, d.tk, d.nt, has_match(r));
	json_filter(j, r, &d.ctr);
	json_match(j, r, &d.ctr);
	if (has_rules(r))
		cap_report_rules_json(j, r);
	else
		gpudp_json_null(j, "rules");
	if (r->flows != NULL)
		cap_report_flows_json(j, r->flows);
	gpudp_json_end(j);
	report_data_free(&d);
	return 0;
}

int
cap_report_json(FILE *f, const struct cap_report *r)
{
	struct gpudp_json j;
	int rc;

	gpudp_json_init(&j, f);
	rc = report_json(&j, r);
	return gpudp_json_close(&j) != 0 && rc == 0 ? -EIO : rc;
}

int
cap_report_json_file(const char *path, const struct cap_report *r)
{
	struct gpudp_json j;
	int rc;

	rc = gpudp_json_open(&j, path);
	if (rc != 0)
		return rc;
	rc = report_json(&j, r);
	if (rc != 0)
		j.err = rc;    /* the temporary file is removed */
	return gpudp_json_close(&j);
}
