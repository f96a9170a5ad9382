/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's handoff and kernels (lib/handoff, lib/handoff/handoff.cu).
 *
 * One runner for two suites: the dpdk suite runs the CPU cases (GPU cases
 * skip), the gpu suite names the GPU cases (all skip, exit 77, without a
 * GPU). --bench FILE runs the handoff latency benchmark instead (per mode,
 * and DPDK's rte_gpu_comm_* list on the same GPU) and, given --frame-work,
 * the staged path's bandwidth on whole frames, and writes JSON.
 * --pcap FILE names the capture the staged-path case reads through net_pcap.
 */
#include "fwd_test_pvt.h"

const char *pcap_path;
const char *user_work_path;  /* --user-work: the TEST work "probe" (works/) */
const char *seg_work_path;   /* --seg-work: the TEST work "segsum" (works/) */
const char *span_work_path;  /* --span-work: the TEST work "span" (works-gpu/) */
const char *state_work_path; /* --state-work: the TEST work "state" (works-gpu/) */
const char *frame_work_path; /* --frame-work: the TEST work "frame" (works-gpu/), --bench */
int have_gpu;

const char *const kname[GPUDP_FWD_K_MAX] = { "macswap", "ipv4", "load" };

/* ---- packets ---- */

void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
ip_csum_set(uint8_t *h, uint32_t ihl)
{
	uint32_t s;

	h[10] = h[11] = 0;
	s = gpudp_fwd_csum_sum(h, ihl);
	put16(h + 10, ~s & 0xffffu);
}

/* packet i of a mix that reaches every verdict; returns its length */
uint32_t
gen_packet(uint8_t *p, uint32_t i, uint32_t seed)
{
	uint32_t len = 60 + (i * 37 + seed) % 1400, k, l3 = 14, kind = i % 10;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)((i * 131 + k * 7 + seed) >> (k % 3));
	put16(p + 12, 0x0800);
	if (kind == 1) {                     /* one VLAN tag */
		put16(p + 12, 0x8100);
		put16(p + 14, i & 0xfff);
		put16(p + 16, 0x0800);
		l3 = 18;
	}
	p[l3] = 0x45;
	put16(p + l3 + 2, len - l3);
	p[l3 + 8] = (uint8_t)(2 + i % 200);  /* TTL */
	ip_csum_set(p + l3, 20);
	switch (kind) {
	case 2: p[l3 + 10] ^= 0x11; break;                          /* bad checksum */
	case 3: p[l3 + 8] = 1; ip_csum_set(p + l3, 20); break;      /* TTL expires */
	case 4: put16(p + 12, 0x86dd); break;                        /* not IPv4 */
	case 5: put16(p + l3 + 2, len + 100); ip_csum_set(p + l3, 20); break; /* truncated */
	case 6: p[l3] = 0x43; break;                                  /* IHL 3: malformed */
	case 7: len = 9 + i % 5; break;                               /* runt */
	default: break;
	}
	return len;
}

/* ---- running bursts through a handoff ---- */

/* the built-in works, by enum gpudp_fwd_kernel */

const char *
vname(uint32_t v)
{
	const char *n = gpudp_work_verdict_name(gpudp_work_find("ipv4"), v);

	return n != NULL ? n : "?";
}


/* push n packets (data[i], len[i]) through a handoff in bursts of r->burst */
int
run_packets(struct run *r, uint8_t *const *data, const uint32_t *len, uint32_t n)
{
	struct gpudp_handoff_conf c;
	struct gpudp_handoff *h;
	uint32_t next = 0, done = 0, spins;

	memset(&c, 0, sizeof(c));
	c.name = "test";
	c.mode = r->mode;
	c.work = gpudp_work_find(kname[r->kernel]);
	c.work_arg = r->kernel == GPUDP_FWD_K_LOAD ? "3" : NULL;
	c.burst_max = r->burst;
	c.ring_size = r->ring ? r->ring : 8;
	c.graph_batch = 4;
	c.persistent_blocks = 2;
	c.stage_gpu_copy = r->gpu_copy;
	c.cu_ctx = r->cu_ctx;
	h = gpudp_handoff_create(&c);
	if (h == NULL) {
		fprintf(stderr, "    handoff %s: %s\n", gpudp_ho_mode_name(r->mode),
			strerror(rte_errno));
		return -1;
	}
	/* what the mode asks of its caller (gpudp-fwd acts on both) */
	if (gpudp_handoff_needs_whole_frames(h) != (r->mode == GPUDP_HO_STAGED) ||
	    gpudp_handoff_needs_desc(h) != (r->mode != GPUDP_HO_NONE)) {
		fprintf(stderr, "    handoff %s: needs_whole_frames %d, needs_desc %d\n",
			gpudp_ho_mode_name(r->mode), gpudp_handoff_needs_whole_frames(h),
			gpudp_handoff_needs_desc(h));
		gpudp_handoff_destroy(h);
		return -1;
	}
	memset(r->vcount, 0, sizeof(r->vcount));
	while (done < n) {
		struct gpudp_ho_burst *b;

		while (next < n && (b = gpudp_handoff_acquire(h)) != NULL) {
			while (next < n && b->n < b->max) {
				gpudp_ho_burst_add(b, data[next], len[next],
						   (void *)(uintptr_t)next);
				next++;
			}
			gpudp_handoff_submit(h, b);
		}
		gpudp_handoff_flush(h);
		for (spins = 0; (b = gpudp_handoff_completed(h)) == NULL; spins++)
			if (spins > 200000000u) {
				fprintf(stderr, "    %s: burst never completed\n",
					gpudp_ho_mode_name(r->mode));
				gpudp_handoff_destroy(h);
				return -1;
			}
		for (uint32_t i = 0; i < b->n; i++) {
			uint32_t idx = (uint32_t)(uintptr_t)b->cookie[i];
			/* verdicts exist only when something was dropped */
			uint8_t v = b->n_pass == b->n ? GPUDP_WORK_PASS : b->verdict[i];

			r->verdict[idx] = v;
			r->aux[idx] = b->result != NULL ? *(const uint32_t *)(b->result + 4 * i) : 0;
			r->vcount[v < GPUDP_WORK_VERDICT_MAX ? v : 0]++;
		}
		if (b->n_pass != b->n) {
			uint32_t pass = 0;

			for (uint32_t i = 0; i < b->n; i++)
				pass += b->verdict[i] == GPUDP_WORK_PASS;
			if (pass != b->n_pass) {
				fprintf(stderr, "    %s: burst of %u: n_pass %u, %u verdicts PASS\n",
					gpudp_ho_mode_name(r->mode), b->n, b->n_pass, pass);
				gpudp_handoff_destroy(h);
				return -1;
			}
		}
		done += b->n;
		gpudp_handoff_release(h, b);
	}
	r->processed = done;
	gpudp_handoff_destroy(h);
	return 0;
}

/* ---- CPU cases (dpdk suite) ---- */

int
ttl_incremental_checksum_equals_full_recompute(void)
{
	static uint8_t p[STRIDE], q[STRIDE];
	uint32_t i;

	for (i = 0; i < 5000; i++) {
		uint32_t len = gen_packet(p, i * 10, i), s;

		memcpy(q, p, sizeof(q));
		RTE_SET_USED(len);
		p[14 + 8] = (uint8_t)(2 + i % 254);
		ip_csum_set(p + 14, 20);
		memcpy(q, p, sizeof(q));
		gpudp_fwd_ttl_dec(p + 14);
		q[14 + 8]--;
		ip_csum_set(q + 14, 20);
		GPUDP_TEST_ASSERT(memcmp(p, q, 64) == 0, "packet %u: checksum %02x%02x, full "
				  "recompute %02x%02x", i, p[24], p[25], q[24], q[25]);
		s = gpudp_fwd_csum_sum(p + 14, 20);
		GPUDP_TEST_ASSERT(s == 0xffff, "packet %u: header sums to %#x", i, s);
	}
	return GPUDP_TEST_PASS;
}

int
ipv4_kernel_gives_each_drop_reason(void)
{
	static uint8_t buf[200 * STRIDE];
	uint8_t *data[200];
	uint32_t len[200], i, v, cnt[GPUDP_WORK_VERDICT_MAX] = { 0 };

	for (i = 0; i < 200; i++) {
		data[i] = buf + i * STRIDE;
		len[i] = gen_packet(data[i], i, 1);
		v = gpudp_fwd_ipv4(data[i], len[i], len[i]);
		GPUDP_TEST_ASSERT(v < GPUDP_WORK_VERDICT_MAX, "verdict %u", v);
		cnt[v]++;
	}
	for (v = 0; v < GPUDP_FWD_REASONS; v++)
		GPUDP_TEST_ASSERT(cnt[v] > 0, "no packet got verdict %s",
				  vname(v));
	GPUDP_TEST_ASSERT(cnt[GPUDP_WORK_PASS] == 80, "%u passed, want 80 (kinds 0, 1, 8, 9 of 10)",
			  cnt[GPUDP_WORK_PASS]);
	return GPUDP_TEST_PASS;
}

/* every packet of bursts of any size is processed exactly once */
int
check_macswap_once(enum gpudp_ho_mode mode, int gpu_copy, uint64_t cu_ctx,
		   uint8_t *const *data, uint8_t *const *view, uint32_t n, uint32_t burst)
{
	static uint32_t len[4096], aux[4096];
	static uint8_t verdict[4096];
	struct run r = { .mode = mode, .kernel = GPUDP_FWD_K_MACSWAP, .burst = burst,
			 .gpu_copy = gpu_copy, .cu_ctx = cu_ctx, .verdict = verdict,
			 .aux = aux };
	uint32_t i;

	RTE_SET_USED(view);
	for (i = 0; i < n; i++)
		len[i] = 64;
	if (run_packets(&r, data, len, n) != 0)
		return -1;
	if (r.processed != n || r.vcount[GPUDP_WORK_PASS] != n) {
		fprintf(stderr, "    %s burst %u: %" PRIu64 " processed, %" PRIu64 " passed of %u\n",
			gpudp_ho_mode_name(mode), burst, r.processed, r.vcount[0], n);
		return -1;
	}
	return 0;
}

int
verify_swapped(uint8_t *const *view, uint32_t n, const uint8_t (*before)[12])
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (memcmp(view[i], before[i] + 6, 6) != 0 || memcmp(view[i] + 6, before[i], 6) != 0)
			return (int)i;
	return -1;
}

int
cpu_modes_process_every_packet_of_any_burst(void)
{
	static const uint32_t bursts[] = { 1, 31, 32, 33, 1024 };
	static uint8_t buf[3100 * 64];
	static uint8_t before[3100][12];
	uint8_t *data[3100];
	uint32_t b, i, n;
	int bad;

	for (b = 0; b < RTE_DIM(bursts); b++) {
		n = bursts[b] * 3 + 7;
		for (i = 0; i < n; i++) {
			data[i] = buf + i * 64;
			memset(data[i], (int)i, 64);
			data[i][0] = (uint8_t)i;
			data[i][6] = (uint8_t)~i;
			memcpy(before[i], data[i], 12);
		}
		GPUDP_TEST_ASSERT(check_macswap_once(GPUDP_HO_CPU, 0, 0, data, data, n,
						     bursts[b]) == 0, "burst %u", bursts[b]);
		bad = verify_swapped(data, n, (const uint8_t (*)[12])before);
		GPUDP_TEST_ASSERT(bad < 0, "burst %u: packet %d not swapped exactly once",
				  bursts[b], bad);
	}
	return GPUDP_TEST_PASS;
}

int
full_ring_refuses_then_recovers(void)
{
	struct gpudp_handoff_conf c = { .name = "ring", .mode = GPUDP_HO_CPU,
					.ring_size = 4, .burst_max = 8 };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	struct gpudp_ho_burst *b;
	uint8_t pkt[64] = { 0 };
	uint32_t i;

	GPUDP_TEST_ASSERT(h != NULL && s != NULL, "create");
	for (i = 0; i < 4; i++) {
		b = gpudp_handoff_acquire(h);
		GPUDP_TEST_ASSERT(b != NULL, "slot %u refused", i);
		gpudp_ho_burst_add(b, pkt, 64, NULL);
		GPUDP_TEST_ASSERT(gpudp_handoff_submit(h, b) == 0, "submit");
	}
	GPUDP_TEST_ASSERT(gpudp_handoff_acquire(h) == NULL, "fifth burst accepted by a ring of 4");
	GPUDP_TEST_ASSERT(gpudp_handoff_acquire(h) == NULL, "still full");
	gpudp_handoff_stats_get(h, s);
	GPUDP_TEST_ASSERT(s->ring_full == 2 && s->in_flight == 4, "ring_full %" PRIu64
			  ", in flight %u", s->ring_full, s->in_flight);
	b = gpudp_handoff_completed(h);
	GPUDP_TEST_ASSERT(b != NULL && b->seq == 1, "oldest burst not complete");
	gpudp_handoff_release(h, b);
	b = gpudp_handoff_acquire(h);
	GPUDP_TEST_ASSERT(b != NULL && b->n == 0, "no slot after a release");
	gpudp_handoff_stats_get(h, s);
	GPUDP_TEST_ASSERT(s->lat_done.count == 1 && s->pkts_pass == 1, "accounting");
	free(s);
	gpudp_handoff_destroy(h);
	return GPUDP_TEST_PASS;
}

/* a clock model is shared only between GPU mode handoffs */
int
clock_share_refused_without_gpu_modes(void)
{
	struct gpudp_handoff_conf c = { .name = "clk-cpu", .mode = GPUDP_HO_CPU,
					.ring_size = 4, .burst_max = 8 };
	struct gpudp_handoff *a = gpudp_handoff_create(&c), *b;

	c.name = "clk-cpu2";
	b = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(a != NULL && b != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_handoff_clock_share(b, a) == -EINVAL,
			  "cpu mode took a clock model");
	GPUDP_TEST_ASSERT(gpudp_handoff_clock_share(a, a) == 0, "sharing with itself");
	GPUDP_TEST_ASSERT(gpudp_handoff_gpu_to_cpu_ns(b, 12345, 1) == 12345,
			  "cpu mode's mapping is not the identity");
	gpudp_handoff_destroy(a);
	gpudp_handoff_destroy(b);
	return GPUDP_TEST_PASS;
}

int
histogram_quantiles_within_a_bucket(void)
{
	struct gpudp_ho_hist *h = calloc(1, sizeof(*h));
	uint64_t i, q;

	GPUDP_TEST_ASSERT(h != NULL, "calloc");
	for (i = 1; i <= 100000; i++)
		gpudp_ho_hist_add(h, i * 10);   /* 10 ns .. 1 ms, uniform */
	q = gpudp_ho_hist_quantile(h, 0.5);
	GPUDP_TEST_ASSERT(q >= 500000 && q <= 500000 * 1.07, "p50 %" PRIu64, q);
	q = gpudp_ho_hist_quantile(h, 0.99);
	GPUDP_TEST_ASSERT(q >= 990000 && q <= 1000000, "p99 %" PRIu64, q);
	q = gpudp_ho_hist_quantile(h, 0.999);
	GPUDP_TEST_ASSERT(q >= 999000 && q <= 1000000, "p999 %" PRIu64, q);
	free(h);
	return GPUDP_TEST_PASS;
}

#ifndef GPUDP_HAS_CUDA
static int
no_cuda(void)
{
	GPUDP_TEST_SKIP_IF(1, "built without CUDA");
	return GPUDP_TEST_PASS;
}
#define kernels_gpu_match_cpu_byte_for_byte no_cuda
#define gpu_modes_device_memory_every_burst_size no_cuda
#define gpu_modes_pinned_memory_every_burst_size no_cuda
#define ordering_dependent_kernel_never_reads_stale no_cuda
#define ordering_wrong_variant_is_caught no_cuda
#define ordering_user_work_never_reads_stale no_cuda
#define ordering_two_gpus_at_once no_cuda
#define split_segments_in_every_gpu_mode no_cuda
#define work_state_in_every_gpu_mode no_cuda
#define persistent_blocks_must_all_be_resident no_cuda
#define staged_path_on_pcap_payloads_matches_cpu no_cuda
#define staged_desc_bursts_give_what_added_packets_give no_cuda
#define clock_model_shared_between_handoffs no_cuda
int
bench(const char *json)
{
	RTE_SET_USED(json);
	return GPUDP_TEST_SKIP;
}
#endif

static const struct gpudp_test_case cases[] = {
	{ "ttl_incremental_checksum_equals_full_recompute",
	  ttl_incremental_checksum_equals_full_recompute },
	{ "ipv4_kernel_gives_each_drop_reason", ipv4_kernel_gives_each_drop_reason },
	{ "cpu_modes_process_every_packet_of_any_burst",
	  cpu_modes_process_every_packet_of_any_burst },
	{ "full_ring_refuses_then_recovers", full_ring_refuses_then_recovers },
	{ "histogram_quantiles_within_a_bucket", histogram_quantiles_within_a_bucket },
	{ "clock_share_refused_without_gpu_modes", clock_share_refused_without_gpu_modes },
	{ "kernels_gpu_match_cpu_byte_for_byte", kernels_gpu_match_cpu_byte_for_byte },
	{ "gpu_modes_device_memory_every_burst_size", gpu_modes_device_memory_every_burst_size },
	{ "gpu_modes_pinned_memory_every_burst_size", gpu_modes_pinned_memory_every_burst_size },
	{ "ordering_dependent_kernel_never_reads_stale",
	  ordering_dependent_kernel_never_reads_stale },
	{ "ordering_wrong_variant_is_caught", ordering_wrong_variant_is_caught },
	{ "ordering_user_work_never_reads_stale", ordering_user_work_never_reads_stale },
	{ "ordering_two_gpus_at_once", ordering_two_gpus_at_once },
	{ "split_segments_in_every_gpu_mode", split_segments_in_every_gpu_mode },
	{ "work_state_in_every_gpu_mode", work_state_in_every_gpu_mode },
	{ "persistent_blocks_must_all_be_resident", persistent_blocks_must_all_be_resident },
	{ "staged_path_on_pcap_payloads_matches_cpu", staged_path_on_pcap_payloads_matches_cpu },
	{ "staged_desc_bursts_give_what_added_packets_give",
	  staged_desc_bursts_give_what_added_packets_give },
	{ "clock_model_shared_between_handoffs", clock_model_shared_between_handoffs },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	const char *bench_json = NULL;
	char *rest[64];
	int i, n = 0;

	for (i = 0; i < argc && n < 63; i++) {
		if (strcmp(argv[i], "--pcap") == 0 && i + 1 < argc)
			pcap_path = argv[++i];
		else if (strcmp(argv[i], "--user-work") == 0 && i + 1 < argc)
			user_work_path = argv[++i];
		else if (strcmp(argv[i], "--seg-work") == 0 && i + 1 < argc)
			seg_work_path = argv[++i];
		else if (strcmp(argv[i], "--span-work") == 0 && i + 1 < argc)
			span_work_path = argv[++i];
		else if (strcmp(argv[i], "--state-work") == 0 && i + 1 < argc)
			state_work_path = argv[++i];
		else if (strcmp(argv[i], "--frame-work") == 0 && i + 1 < argc)
			frame_work_path = argv[++i];
		else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
			bench_json = argv[++i];
		else
			rest[n++] = argv[i];
	}
	rest[n] = NULL;
#ifdef GPUDP_HAS_CUDA
	have_gpu = gpudp_cuda_init() == 0;
	if (!have_gpu)
		fprintf(stderr, "no GPU: %s\n", gpudp_cuda_last_error());
#endif
	if (bench_json != NULL) {
		int rc = bench(bench_json);

		return rc == GPUDP_TEST_PASS ? 0 : rc;
	}
	return gpudp_test_run("fwd", cases, n, rest);
}
