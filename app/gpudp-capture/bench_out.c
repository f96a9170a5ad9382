/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture-bench's result, as JSON (bench.h). */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "gpudp_json.h"

/* --threads: where each pass's time went, the warm-up first */
static void
print_parts(struct gpudp_json *j, const struct bench_result *r)
{
	uint32_t i;

	gpudp_json_arr(j, "pass_parts");
	for (i = 0; i < r->n_pass; i++) {
		const struct gpudp_cap_reader_stats *p = &r->pass[i];

		gpudp_json_obj(j, NULL);
		gpudp_json_dbl(j, "seconds", p->seconds, 6);
		gpudp_json_dbl(j, "staged_s", p->staged_s, 6);
		gpudp_json_dbl(j, "flushed_s", p->flushed_s, 6);
		gpudp_json_dbl(j, "read_s", p->read_s, 6);
		gpudp_json_dbl(j, "collect_s", p->collect_s, 6);
		gpudp_json_dbl(j, "merge_s", p->merge_s, 6);
		gpudp_json_dbl(j, "kernel_ms", p->eng.kernel_ms, 3);
		gpudp_json_dbl(j, "busy_ms", p->eng.busy_ms, 3);
		gpudp_json_dbl(j, "wait_ms", p->eng.wait_ms, 3);
		gpudp_json_dbl(j, "submit_ms", p->eng.submit_ms, 3);
		gpudp_json_bool(j, "ranges", p->ranges);
		gpudp_json_end(j);
	}
	gpudp_json_end(j);
}

static void
print_result(struct gpudp_json *j, const char *name, const struct bench_result *r)
{
	uint32_t i;

	gpudp_json_obj(j, name);
	gpudp_json_bool(j, "ran", r->ran);
	if (!r->ran) {
		gpudp_json_str(j, "note", r->note);
		gpudp_json_end(j);
		return;
	}
	gpudp_json_str(j, "device", r->st.device);
	gpudp_json_u64(j, "packets", r->pkts);
	gpudp_json_dbl(j, "seconds", r->seconds, 6);
	gpudp_json_dbl(j, "packets_per_s", r->seconds > 0 ? r->pkts / r->seconds : 0, 1);
	gpudp_json_u64(j, "batches", r->st.batches);
	gpudp_json_dbl(j, "busy_ms", r->st.busy_ms, 3);
	gpudp_json_dbl(j, "kernel_ms", r->st.kernel_ms, 3);
	gpudp_json_dbl(j, "wait_ms", r->st.wait_ms, 3);
	gpudp_json_dbl(j, "submit_ms", r->st.submit_ms, 3);
	gpudp_json_u64(j, "copy_bytes", r->st.copy_bytes);
	gpudp_json_dbl(j, "kernel_packets_per_s", r->st.kernel_ms > 0 ?
		       r->pkts / (r->st.kernel_ms / 1e3) : 0, 1);
	if (r->read_s > 0) {
		gpudp_json_dbl(j, "read_s", r->read_s, 6);
		gpudp_json_dbl(j, "collect_s", r->collect_s, 6);
		gpudp_json_dbl(j, "merge_s", r->merge_s, 6);
		gpudp_json_dbl(j, "register_s", r->register_s, 6);
		gpudp_json_str(j, "stage", gpudp_cap_reader_stage_name(r->stage));
		gpudp_json_bool(j, "in_memory", r->in_memory);
		gpudp_json_dbl(j, "warmup_s", r->warmup_s, 6);
		gpudp_json_arr(j, "passes_s");   /* after the warm-up */
		for (i = 1; i < r->n_pass; i++)
			gpudp_json_dbl(j, NULL, r->pass[i].seconds, 6);
		gpudp_json_end(j);
		print_parts(j, r);
	}
	gpudp_json_end(j);
}

int
bench_write_result(const struct bench_conf *bc, const struct gpudp_capfile_packets *pk,
		   const struct bench_result *cpu, const struct bench_result *gpu,
		   const struct gpudp_cap_reader_mem *m)
{
	struct gpudp_json j;
	int rc;

	if (bc->json == NULL)
		gpudp_json_init(&j, stdout);
	else if (gpudp_json_open(&j, bc->json) != 0) {
		fprintf(stderr, "gpudp-capture-bench: --json: cannot create '%s': %s\n",
			bc->json, strerror(-j.err));
		return -1;
	}
	gpudp_json_obj(&j, NULL);
	gpudp_json_str(&j, "input", bc->input);
	gpudp_json_u64(&j, "packets_per_pass", pk->n);
	gpudp_json_u64(&j, "bytes_per_pass", pk->data_bytes);
	gpudp_json_u64(&j, "repeat", bc->repeat);
	gpudp_json_u64(&j, "vary", bc->vary);
	gpudp_json_u64(&j, "batch", bc->batch_pkts);
	if (m != NULL) {   /* --memory: before the passes, not in their times */
		gpudp_json_obj(&j, "memory");
		gpudp_json_dbl(&j, "load_s", m->load_s, 6);
		gpudp_json_dbl(&j, "register_s", m->register_s, 6);
		gpudp_json_end(&j);
	}
	print_result(&j, "cpu", cpu);
	print_result(&j, "gpu", gpu);
	if (cpu->ran && gpu->ran && cpu->seconds > 0 && gpu->seconds > 0)
		gpudp_json_dbl(&j, "gpu_speedup", cpu->seconds / gpu->seconds *
			       ((double)gpu->pkts / (cpu->pkts ? cpu->pkts : 1)), 3);
	else
		gpudp_json_null(&j, "gpu_speedup");
	gpudp_json_end(&j);
	rc = gpudp_json_close(&j);
	if (rc != 0)
		fprintf(stderr, "gpudp-capture-bench: --json %s: %s\n",
			bc->json ? bc->json : "(stdout)", strerror(-rc));
	return rc != 0 ? -1 : 0;
}
