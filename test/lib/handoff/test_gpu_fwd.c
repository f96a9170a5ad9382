/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd's handoff and kernels (lib/handoff, lib/handoff/fwd.cu).
 *
 * One runner for two suites: the dpdk suite runs the CPU cases (GPU cases
 * skip), the gpu suite names the GPU cases (all skip, exit 77, without a
 * GPU). --bench FILE runs the handoff latency benchmark instead (per mode,
 * and DPDK's rte_gpu_comm_* list on the same GPU) and writes JSON.
 * --pcap FILE names the capture the staged-path case reads through net_pcap.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include <gpudp_handoff.h>
#include <gpudp_test.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#include <gpudp_mem.h>
#include <gpudp_handoff_dev.h>

#include "fwd_test.h"
#endif

#define STRIDE 2048u
#define MAXPKT 1600u

static const char *pcap_path;
static const char *user_work_path;  /* --user-work: the TEST work "probe" (works/) */
static const char *seg_work_path;   /* --seg-work: the TEST work "segsum" (works/) */
static int have_gpu __attribute__((unused));

/* ---- packets ---- */

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
ip_csum_set(uint8_t *h, uint32_t ihl)
{
	uint32_t s;

	h[10] = h[11] = 0;
	s = gpudp_fwd_csum_sum(h, ihl);
	put16(h + 10, ~s & 0xffffu);
}

/* packet i of a mix that reaches every verdict; returns its length */
static uint32_t
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
static const char *const kname[GPUDP_FWD_K_MAX] = { "macswap", "ipv4", "load" };

static const char *
vname(uint32_t v)
{
	const char *n = gpudp_work_verdict_name(gpudp_work_find("ipv4"), v);

	return n != NULL ? n : "?";
}

struct run {
	enum gpudp_ho_mode mode;
	enum gpudp_fwd_kernel kernel;
	uint32_t burst, ring;
	int gpu_copy;       /* staged: the GPU copies (packets GPU-addressable) */
	uint64_t cu_ctx;
	uint8_t *verdict;   /* per packet */
	uint32_t *aux;
	uint64_t vcount[GPUDP_FWD_VERDICT_MAX];
	uint64_t processed;
};

/* push n packets (data[i], len[i]) through a handoff in bursts of r->burst */
static int
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
			uint8_t v = b->n_pass == b->n ? GPUDP_FWD_PASS : b->verdict[i];

			r->verdict[idx] = v;
			r->aux[idx] = b->result != NULL ? *(const uint32_t *)(b->result + 4 * i) : 0;
			r->vcount[v < GPUDP_FWD_VERDICT_MAX ? v : 0]++;
		}
		if (b->n_pass != b->n) {
			uint32_t pass = 0;

			for (uint32_t i = 0; i < b->n; i++)
				pass += b->verdict[i] == GPUDP_FWD_PASS;
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

static int
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

static int
ipv4_kernel_gives_each_drop_reason(void)
{
	static uint8_t buf[200 * STRIDE];
	uint8_t *data[200];
	uint32_t len[200], i, v, cnt[GPUDP_FWD_VERDICT_MAX] = { 0 };

	for (i = 0; i < 200; i++) {
		data[i] = buf + i * STRIDE;
		len[i] = gen_packet(data[i], i, 1);
		v = gpudp_fwd_ipv4(data[i], len[i], len[i]);
		GPUDP_TEST_ASSERT(v < GPUDP_FWD_VERDICT_MAX, "verdict %u", v);
		cnt[v]++;
	}
	for (v = 0; v < GPUDP_FWD_REASONS; v++)
		GPUDP_TEST_ASSERT(cnt[v] > 0, "no packet got verdict %s",
				  vname(v));
	GPUDP_TEST_ASSERT(cnt[GPUDP_FWD_PASS] == 80, "%u passed, want 80 (kinds 0, 1, 8, 9 of 10)",
			  cnt[GPUDP_FWD_PASS]);
	return GPUDP_TEST_PASS;
}

/* every packet of bursts of any size is processed exactly once */
static int
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
	if (r.processed != n || r.vcount[GPUDP_FWD_PASS] != n) {
		fprintf(stderr, "    %s burst %u: %" PRIu64 " processed, %" PRIu64 " passed of %u\n",
			gpudp_ho_mode_name(mode), burst, r.processed, r.vcount[0], n);
		return -1;
	}
	return 0;
}

static int
verify_swapped(uint8_t *const *view, uint32_t n, const uint8_t (*before)[12])
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (memcmp(view[i], before[i] + 6, 6) != 0 || memcmp(view[i] + 6, before[i], 6) != 0)
			return (int)i;
	return -1;
}

static int
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

static int
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
static int
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

static int
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

#ifdef GPUDP_HAS_CUDA

/* ---- GPU helpers ---- */

static CUcontext ctx;

#define CU_OK(call) do { CUresult r_ = (call); GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, \
	"%s: %s", #call, gpudp_cuda_errstr(r_)); } while (0)

static int
gpu_up(void)
{
	CUdevice dev;

	if (ctx != NULL)
		return 0;
	if (!have_gpu)
		return -1;
	if (gpudp_cu->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
		return -1;
	return gpudp_cu->cuCtxSetCurrent(ctx) == CUDA_SUCCESS ? 0 : -1;
}

/* device memory, SYNC_MEMOPS as every NIC-written buffer (doc/ordering.md) */
static CUdeviceptr
dev_alloc(size_t len)
{
	CUdeviceptr d = 0;
	unsigned int one = 1;

	if (gpudp_cu->cuMemAlloc(&d, len) != CUDA_SUCCESS)
		return 0;
	gpudp_cu->cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d);
	return d;
}

static int
kernels_gpu_match_cpu_byte_for_byte(void)
{
	enum { N = 3000 };
	static uint8_t host[N * STRIDE], gpu_out[N * STRIDE];
	static uint8_t *hd[N], *dd[N], *pd[N];
	static uint32_t len[N], aux_c[N], aux_g[N], aux_s[N];
	static uint8_t v_c[N], v_g[N], v_s[N];
	uint8_t *pin = NULL;
	CUdeviceptr d;
	uint32_t i, k;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	d = dev_alloc(sizeof(host));
	GPUDP_TEST_ASSERT(d != 0, "cuMemAlloc");
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&pin, sizeof(host)));
	for (k = 0; k < GPUDP_FWD_K_MAX; k++) {
		struct run rc = { .mode = GPUDP_HO_CPU, .kernel = k, .burst = 256,
				  .verdict = v_c, .aux = aux_c };
		struct run rg = { .mode = GPUDP_HO_LAUNCH, .kernel = k, .burst = 256,
				  .cu_ctx = (uint64_t)(uintptr_t)ctx, .verdict = v_g, .aux = aux_g };

		/* staged with GPU copies, packets in pinned memory at odd
		 * offsets: the gather and the header copy back take their
		 * byte paths as well as their 16-byte ones */
		struct run rs = { .mode = GPUDP_HO_STAGED, .kernel = k, .burst = 256,
				  .gpu_copy = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx,
				  .verdict = v_s, .aux = aux_s };

		for (i = 0; i < N; i++) {
			len[i] = gen_packet(host + i * STRIDE, i, k);
			hd[i] = host + i * STRIDE;
			dd[i] = (uint8_t *)(uintptr_t)(d + i * STRIDE);
			pd[i] = pin + i * STRIDE + (i % 4 == 0 ? 0 : i % 13);
			memcpy(pd[i], hd[i], len[i]);
		}
		CU_OK(gpudp_cu->cuMemcpyHtoD(d, host, sizeof(host)));
		GPUDP_TEST_ASSERT(run_packets(&rc, hd, len, N) == 0, "cpu run");
		GPUDP_TEST_ASSERT(run_packets(&rg, dd, len, N) == 0, "gpu run");
		GPUDP_TEST_ASSERT(run_packets(&rs, pd, len, N) == 0, "staged run");
		CU_OK(gpudp_cu->cuMemcpyDtoH(gpu_out, d, sizeof(gpu_out)));
		for (i = 0; i < N; i++) {
			GPUDP_TEST_ASSERT(v_c[i] == v_g[i] && v_c[i] == v_s[i],
					  "%s packet %u: verdict cpu %s gpu %s staged %s",
					  kname[k], i, vname(v_c[i]),
					  vname(v_g[i]), vname(v_s[i]));
			GPUDP_TEST_ASSERT(aux_c[i] == aux_g[i] && aux_c[i] == aux_s[i],
					  "%s packet %u: aux %#x vs %#x, staged %#x",
					  kname[k], i, aux_c[i], aux_g[i], aux_s[i]);
			GPUDP_TEST_ASSERT(memcmp(host + i * STRIDE, gpu_out + i * STRIDE, len[i]) == 0,
					  "%s packet %u: bytes differ", kname[k], i);
			GPUDP_TEST_ASSERT(memcmp(host + i * STRIDE, pd[i], len[i]) == 0,
					  "%s packet %u (offset %u): staged bytes differ",
					  kname[k], i, (unsigned int)(i % 13));
		}
		GPUDP_TEST_ASSERT(rc.vcount[GPUDP_FWD_PASS] > 0 && rc.vcount[GPUDP_FWD_PASS] < N,
				  "%s: %" PRIu64 " passed: the mix must pass some and drop some",
				  kname[k], rc.vcount[GPUDP_FWD_PASS]);
	}
	gpudp_cu->cuMemFree(d);
	gpudp_cu->cuMemFreeHost(pin);
	return GPUDP_TEST_PASS;
}

/* every GPU mode, device or pinned packets, bursts 1, 31, 32, 33, 1024 */
static int
gpu_modes_process_every_packet(int pinned)
{
	static const uint32_t bursts[] = { 1, 31, 32, 33, 1024 };
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT,
						    GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	enum { N = 1024 * 3 + 7, PS = 64 };
	static uint8_t before[N][12], *data[N], *view[N], *host;
	uint8_t *pin = NULL;
	CUdeviceptr d = 0;
	uint32_t m, b, i, n;
	int bad;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	host = malloc((size_t)N * PS);
	GPUDP_TEST_ASSERT(host != NULL, "malloc");
	if (pinned)
		CU_OK(gpudp_cu->cuMemAllocHost((void **)&pin, (size_t)N * PS));
	else
		GPUDP_TEST_ASSERT((d = dev_alloc((size_t)N * PS)) != 0, "cuMemAlloc");
	/* pinned: once more in staged mode with the GPU doing the copies */
	for (m = 0; m < RTE_DIM(modes) + (pinned ? 1 : 0); m++)
		for (b = 0; b < RTE_DIM(bursts); b++) {
			int gpu_copy = m == RTE_DIM(modes);
			enum gpudp_ho_mode mode = gpu_copy ? GPUDP_HO_STAGED : modes[m];
			/* staged reads host packets: pinned or plain host memory */
			int on_host = mode == GPUDP_HO_STAGED;

			n = bursts[b] * 3 + 7;
			for (i = 0; i < n; i++) {
				uint8_t *h = host + (size_t)i * PS;

				memset(h, (int)(i * 3 + m), PS);
				h[0] = (uint8_t)i;
				h[1] = (uint8_t)(i >> 8);
				h[6] = (uint8_t)~i;
				memcpy(before[i], h, 12);
				if (pinned) {
					memcpy(pin + (size_t)i * PS, h, PS);
					data[i] = view[i] = pin + (size_t)i * PS;
				} else if (on_host) {
					data[i] = view[i] = h;
				} else {
					data[i] = (uint8_t *)(uintptr_t)(d + (size_t)i * PS);
					view[i] = h;
				}
			}
			if (!pinned && !on_host)
				CU_OK(gpudp_cu->cuMemcpyHtoD(d, host, (size_t)n * PS));
			GPUDP_TEST_ASSERT(check_macswap_once(mode, gpu_copy,
							     (uint64_t)(uintptr_t)ctx,
							     data, view, n, bursts[b]) == 0,
					  "%s%s burst %u", gpudp_ho_mode_name(mode),
					  gpu_copy ? " (GPU copies)" : "", bursts[b]);
			if (!pinned && !on_host)
				CU_OK(gpudp_cu->cuMemcpyDtoH(host, d, (size_t)n * PS));
			bad = verify_swapped(view, n, (const uint8_t (*)[12])before);
			GPUDP_TEST_ASSERT(bad < 0, "%s %s burst %u: packet %d not swapped exactly once",
					  gpudp_ho_mode_name(mode), pinned ? "pinned" : "device",
					  bursts[b], bad);
		}
	if (pin != NULL)
		gpudp_cu->cuMemFreeHost(pin);
	if (d != 0)
		gpudp_cu->cuMemFree(d);
	free(host);
	return GPUDP_TEST_PASS;
}

static int
gpu_modes_device_memory_every_burst_size(void)
{
	return gpu_modes_process_every_packet(0);
}

static int
gpu_modes_pinned_memory_every_burst_size(void)
{
	return gpu_modes_process_every_packet(1);
}

/*
 * Ordering (NVIDIA, "GPUDirect RDMA", "Synchronization and Memory Ordering";
 * doc/ordering.md):
 * an independent writer (a copy on another stream, behind a 20 us delay
 * kernel: the stand-in for a NIC's DMA) fills a burst's packets; the burst
 * is handed off once the write is complete with respect to this CPU
 * thread (stream synchronised: the equivalent of rx_burst returning).
 * The macswap result proves the kernel read this burst's bytes. The wrong
 * variant hands the burst off before the write completes. With @p w, a
 * user work loaded from its file (works/probe_work.c), the same holds,
 * and its result (the first 4 bytes it read) must be this burst's too.
 */
static int
ordering_run(enum gpudp_ho_mode mode, int wrong, uint32_t bursts, uint64_t *stale,
	     int force_flush, const struct gpudp_work *w)
{
	enum { NP = 32, PS = 64 };
	struct gpudp_handoff_conf c = { .name = "order", .mode = mode, .work = w,
		.ring_size = 2, .burst_max = NP,
		.graph_batch = 1, .persistent_blocks = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx,
		.force_flush = force_flush };
	int on_host = mode == GPUDP_HO_STAGED;
	struct gpudp_handoff *h;
	CUstream ws;
	CUmodule mod;
	CUfunction delay;
	CUdeviceptr dst_d = 0, src_d = 0;
	uint8_t *src_h, *dst_h = NULL, check[NP * PS];
	uint32_t k, i;

	*stale = 0;
	CU_OK(gpudp_cu->cuStreamCreate(&ws, CU_STREAM_NON_BLOCKING));
	GPUDP_TEST_ASSERT(gpudp_cuda_module_load("fwd_test", &mod) == 0, "fwd_test module: %s",
			  gpudp_cuda_last_error());
	CU_OK(gpudp_cu->cuModuleGetFunction(&delay, mod, "gpudp_fwd_test_delay"));
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&src_h, NP * PS));
	if (on_host) {
		CU_OK(gpudp_cu->cuMemAllocHost((void **)&dst_h, NP * PS));
		GPUDP_TEST_ASSERT((src_d = dev_alloc(NP * PS)) != 0, "alloc");
	} else {
		GPUDP_TEST_ASSERT((dst_d = dev_alloc(NP * PS)) != 0, "alloc");
	}
	h = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(h != NULL, "handoff %s", gpudp_ho_mode_name(mode));
	for (k = 1; k <= bursts; k++) {
		struct gpudp_ho_burst *b;
		uint64_t ns = 20000;
		void *dp[] = { &ns };

		for (i = 0; i < NP; i++) {
			uint8_t *p = src_h + i * PS;

			memset(p, 0, PS);
			memcpy(p, &k, 4);          /* dst MAC: burst, packet */
			p[4] = (uint8_t)i;
			p[5] = 0xd5;
			p[6] = 0x5a;               /* src MAC: a constant */
		}
		/* the independent writer: delay, then the copy */
		CU_OK(gpudp_cu->cuLaunchKernel(delay, 1, 1, 1, 1, 1, 1, 0, ws, dp, NULL));
		if (on_host) {
			CU_OK(gpudp_cu->cuMemcpyHtoDAsync(src_d, src_h, NP * PS, ws));
			CU_OK(gpudp_cu->cuMemcpyDtoHAsync(dst_h, src_d, NP * PS, ws));
		} else {
			CU_OK(gpudp_cu->cuMemcpyHtoDAsync(dst_d, src_h, NP * PS, ws));
		}
		if (!wrong)   /* the write is complete w.r.t. this thread */
			CU_OK(gpudp_cu->cuStreamSynchronize(ws));
		while ((b = gpudp_handoff_acquire(h)) == NULL)
			;
		for (i = 0; i < NP; i++)
			gpudp_ho_burst_add(b, on_host ? (void *)(dst_h + i * PS) :
					   (void *)(uintptr_t)(dst_d + i * PS), 64, NULL);
		gpudp_handoff_submit(h, b);
		gpudp_handoff_flush(h);
		while ((b = gpudp_handoff_completed(h)) == NULL)
			;
		/* the user work's result: the dst MAC's first 4 bytes it read */
		for (i = 0; w != NULL && i < NP; i++)
			if (*(const uint32_t *)(b->result + 4 * i) != k)
				(*stale)++;
		gpudp_handoff_release(h, b);
		CU_OK(gpudp_cu->cuStreamSynchronize(ws));
		if (on_host)
			memcpy(check, dst_h, sizeof(check));
		else
			CU_OK(gpudp_cu->cuMemcpyDtoH(check, dst_d, sizeof(check)));
		for (i = 0; i < NP; i++) {
			const uint8_t *p = check + i * PS;
			uint32_t got;

			memcpy(&got, p + 6, 4);
			if (got != k || p[10] != i || p[0] != 0x5a)
				(*stale)++;
		}
	}
	gpudp_handoff_destroy(h);
	gpudp_cu->cuStreamSynchronize(ws);
	gpudp_cu->cuStreamDestroy(ws);
	gpudp_cu->cuModuleUnload(mod);
	gpudp_cu->cuMemFreeHost(src_h);
	if (dst_h != NULL)
		gpudp_cu->cuMemFreeHost(dst_h);
	if (src_d != 0)
		gpudp_cu->cuMemFree(src_d);
	if (dst_d != 0)
		gpudp_cu->cuMemFree(dst_d);
	return GPUDP_TEST_PASS;
}

static const enum gpudp_ho_mode gpu_modes[] = {
	GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT, GPUDP_HO_GRAPH, GPUDP_HO_STAGED,
};

/* every GPU mode, and persistent with the flush forced on: no packet (nor,
 * with a work @p w, result) read stale in @p n bursts each */
static int
ordering_every_mode(const struct gpudp_work *w, uint32_t n)
{
	uint64_t stale;
	uint32_t m;

	for (m = 0; m <= RTE_DIM(gpu_modes); m++) {
		/* the last round: persistent with the flush forced on */
		enum gpudp_ho_mode mode = m < RTE_DIM(gpu_modes) ? gpu_modes[m] :
			GPUDP_HO_PERSISTENT;
		int flush = m == RTE_DIM(gpu_modes);

		GPUDP_TEST_ASSERT(ordering_run(mode, 0, n, &stale, flush, w) == GPUDP_TEST_PASS,
				  "run");
		printf("    %-10s%s %s%s%u bursts x 32 packets, %" PRIu64 " stale\n",
		       gpudp_ho_mode_name(mode), flush ? "+flush" : "", w != NULL ? "work " : "",
		       w != NULL ? w->name : "", n, stale);
		GPUDP_TEST_ASSERT(stale == 0, "%s: %" PRIu64 " packets or results read stale",
				  gpudp_ho_mode_name(mode), stale);
	}
	return GPUDP_TEST_PASS;
}

/* every GPU mode: handing a burst off before its write completed is caught */
static int
ordering_wrong_every_mode(const struct gpudp_work *w, uint32_t n)
{
	uint64_t stale;
	uint32_t m;

	for (m = 0; m < RTE_DIM(gpu_modes); m++) {
		GPUDP_TEST_ASSERT(ordering_run(gpu_modes[m], 1, n, &stale, 0, w) ==
				  GPUDP_TEST_PASS, "run");
		printf("    %-10s %s%shanded off before the write completed: %" PRIu64
		       " of %u packets stale\n", gpudp_ho_mode_name(gpu_modes[m]),
		       w != NULL ? w->name : "", w != NULL ? " " : "", stale, n * 32);
		GPUDP_TEST_ASSERT(stale > 0, "%s: the wrong variant went unnoticed",
				  gpudp_ho_mode_name(gpu_modes[m]));
	}
	return GPUDP_TEST_PASS;
}

static int
ordering_dependent_kernel_never_reads_stale(void)
{
	const char *env = getenv("GPUDP_FWD_ORDER_BURSTS"); /* longer runs by hand */

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	return ordering_every_mode(NULL, env != NULL && atoi(env) > 0 ? (uint32_t)atoi(env) :
				   4000);
}

static int
ordering_wrong_variant_is_caught(void)
{
	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	return ordering_wrong_every_mode(NULL, 200);
}

/* the ordering guarantee holds for a work loaded from its file, in every
 * GPU mode, and the early hand-off is caught with it too */
static int
ordering_user_work_never_reads_stale(void)
{
	const struct gpudp_work *w;
	char err[256];

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(user_work_path == NULL, "no --user-work given");
	w = gpudp_work_load(user_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	if (ordering_every_mode(w, 2000) != GPUDP_TEST_PASS)
		return GPUDP_TEST_FAIL;
	return ordering_wrong_every_mode(w, 200);
}

/*
 * Header/data split: each packet's headers (42 bytes) in pinned host memory
 * and its payload (1..1400 bytes, none for every 5th packet) in GPU memory,
 * described as two segments (conf.segs = 2). In every GPU mode (staged:
 * the header segment copied, by the CPU and by the GPU, the payload read in
 * place) the work sees every byte of both (its sum over them, the segment
 * count and the frame length are what the host copies give) and its write
 * into the last segment lands, exactly once.
 */
struct segsum_result {
	uint32_t sum, nb_segs, pkt_len, last;
};

static int
split_segments_in_every_gpu_mode(void)
{
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_LAUNCH, GPUDP_HO_PERSISTENT,
						    GPUDP_HO_GRAPH, GPUDP_HO_STAGED,
						    GPUDP_HO_STAGED };
	enum { N = 500, HL = 42, PL = 1400 };
	const struct gpudp_work *w;
	static uint8_t pay[N][PL], back[N][PL];
	struct segsum_result res[N];
	uint8_t *hdr = NULL;
	CUdeviceptr d = 0;
	char err[256];
	uint32_t m, i, k, plen[N];

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(seg_work_path == NULL, "no --seg-work given");
	w = gpudp_work_load(seg_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&hdr, (size_t)N * 64));
	GPUDP_TEST_ASSERT((d = dev_alloc((size_t)N * PL)) != 0, "cuMemAlloc");
	for (m = 0; m < RTE_DIM(modes); m++) {
		struct gpudp_handoff_conf c = { .name = "split", .mode = modes[m], .work = w,
			.segs = 2, .ring_size = 8, .burst_max = 64, .graph_batch = 2,
			.persistent_blocks = 2, .cu_ctx = (uint64_t)(uintptr_t)ctx,
			/* staged: the header segment copied by the CPU, then by the GPU */
			.stage_gpu_copy = m == 4 };
		struct gpudp_handoff *h;
		uint32_t next = 0, done = 0;

		for (i = 0; i < N; i++) {
			plen[i] = i % 5 == 4 ? 0 : 1 + (i * 13 + m) % PL;
			for (k = 0; k < HL; k++)
				hdr[(size_t)i * 64 + k] = (uint8_t)(i + k * 7 + m);
			for (k = 0; k < PL; k++)
				pay[i][k] = (uint8_t)(i * 3 + k + m);
		}
		CU_OK(gpudp_cu->cuMemcpyHtoD(d, pay, sizeof(pay)));
		h = gpudp_handoff_create(&c);
		GPUDP_TEST_ASSERT(h != NULL, "handoff %s with 2 segments",
				  gpudp_ho_mode_name(modes[m]));
		while (done < N) {
			struct gpudp_ho_burst *b;

			while (next < N && (b = gpudp_handoff_acquire(h)) != NULL) {
				while (next < N && b->n < b->max) {
					gpudp_ho_burst_add(b, hdr + (size_t)next * 64, HL,
							   (void *)(uintptr_t)next);
					if (plen[next] != 0)
						gpudp_ho_burst_seg(b, b->n - 1, 1, (void *)(uintptr_t)
								   (d + (size_t)next * PL),
								   plen[next]);
					next++;
				}
				gpudp_handoff_submit(h, b);
			}
			gpudp_handoff_flush(h);
			while ((b = gpudp_handoff_completed(h)) == NULL)
				GPUDP_TEST_ASSERT(gpudp_handoff_failed(h) == 0, "GPU failed");
			for (i = 0; i < b->n; i++)
				memcpy(&res[(uint32_t)(uintptr_t)b->cookie[i]],
				       b->result + (size_t)i * sizeof(res[0]), sizeof(res[0]));
			done += b->n;
			gpudp_handoff_release(h, b);
		}
		gpudp_handoff_destroy(h);
		CU_OK(gpudp_cu->cuMemcpyDtoH(back, d, sizeof(back)));
		for (i = 0; i < N; i++) {
			uint32_t sum = 0, segs = plen[i] != 0 ? 2 : 1;
			uint8_t last;

			for (k = 0; k < HL; k++)
				sum += (uint8_t)(i + k * 7 + m);
			for (k = 0; k < plen[i]; k++)
				sum += pay[i][k];
			last = plen[i] != 0 ? pay[i][plen[i] - 1] : (uint8_t)(i + (HL - 1) * 7 + m);
			GPUDP_TEST_ASSERT(res[i].sum == sum && res[i].nb_segs == segs &&
					  res[i].pkt_len == HL + plen[i] && res[i].last == last,
					  "%s packet %u: sum %u/%u segs %u/%u len %u/%u last %u/%u",
					  gpudp_ho_mode_name(modes[m]), i, res[i].sum, sum,
					  res[i].nb_segs, segs, res[i].pkt_len, HL + plen[i],
					  res[i].last, last);
			if (plen[i] != 0)
				GPUDP_TEST_ASSERT(back[i][plen[i] - 1] == (uint8_t)(last + 1) &&
						  memcmp(back[i], pay[i], plen[i] - 1) == 0,
						  "%s packet %u: payload write", gpudp_ho_mode_name(modes[m]),
						  i);
			else
				GPUDP_TEST_ASSERT(hdr[(size_t)i * 64 + HL - 1] == (uint8_t)(last + 1),
						  "%s packet %u: header write", gpudp_ho_mode_name(modes[m]),
						  i);
		}
		printf("    %-10s%s %u packets as header (pinned) + payload (GPU) segments: "
		       "every byte seen, writes land once\n", gpudp_ho_mode_name(modes[m]),
		       m == 4 ? "+gpu-copy" : "", N);
	}
	gpudp_cu->cuMemFreeHost(hdr);
	gpudp_cu->cuMemFree(d);
	return GPUDP_TEST_PASS;
}

/* ---- EAL (net_pcap, gpudev) for the staged-path and comm-list cases ---- */

static int eal_state;  /* 0 not tried, 1 up, -1 failed */

static int
eal_up(void)
{
	char vdev[4096];
	char *args[] = { "test_gpu_fwd", "--no-huge", "-m", "512", "--no-pci",
			 "--no-telemetry", "--file-prefix", "gpufwd", "--log-level", "lib.eal:error",
			 NULL, NULL };
	int n = 10;

	if (eal_state != 0)
		return eal_state > 0 ? 0 : -1;
	eal_state = -1;
	if (pcap_path != NULL) {
		snprintf(vdev, sizeof(vdev), "--vdev=net_pcap0,rx_pcap=%s", pcap_path);
		args[n++] = vdev;
	}
	if (rte_eal_init(n, args) < 0)
		return -1;
	gpudp_gpu_probe_all();
	eal_state = 1;
	return 0;
}

static int
staged_path_on_pcap_payloads_matches_cpu(void)
{
	enum { MAXN = 4096 };
	static uint8_t copy[MAXN * STRIDE];
	static uint8_t *cd[MAXN], *md[MAXN];
	static uint8_t *pd[MAXN];
	static uint32_t len[MAXN], aux_c[MAXN], aux_g[MAXN], aux_p[MAXN];
	static uint8_t v_c[MAXN], v_g[MAXN], v_p[MAXN];
	static struct rte_mbuf *m[MAXN];
	struct rte_eth_conf pc;
	struct rte_mempool *mp;
	uint8_t *pinned = NULL;
	uint32_t n = 0, idle = 0, i, k;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(pcap_path == NULL, "no --pcap given");
	GPUDP_TEST_ASSERT(eal_up() == 0, "EAL: %s", rte_strerror(rte_errno));
	mp = rte_pktmbuf_pool_create("pcap", 8191, 0, 0, STRIDE + RTE_PKTMBUF_HEADROOM, 0);
	GPUDP_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	memset(&pc, 0, sizeof(pc));
	GPUDP_TEST_ASSERT(rte_eth_dev_configure(0, 1, 1, &pc) == 0, "configure");
	GPUDP_TEST_ASSERT(rte_eth_rx_queue_setup(0, 0, 1024, 0, NULL, mp) == 0, "rxq");
	GPUDP_TEST_ASSERT(rte_eth_tx_queue_setup(0, 0, 1024, 0, NULL) == 0, "txq");
	GPUDP_TEST_ASSERT(rte_eth_dev_start(0) == 0, "start");
	while (n < MAXN && idle < 1000) {
		uint16_t r = rte_eth_rx_burst(0, 0, m + n, (uint16_t)RTE_MIN(32u, MAXN - n));

		n += r;
		idle = r == 0 ? idle + 1 : 0;
	}
	GPUDP_TEST_ASSERT(n > 100, "only %u packets from %s", n, pcap_path);
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&pinned, (size_t)n * STRIDE));
	for (i = 0; i < n; i++)
		pd[i] = pinned + (size_t)i * STRIDE;
	for (k = 0; k < GPUDP_FWD_K_MAX; k++) {
		struct run rc = { .mode = GPUDP_HO_CPU, .kernel = k, .burst = 64,
				  .verdict = v_c, .aux = aux_c };
		struct run rg = { .mode = GPUDP_HO_STAGED, .kernel = k, .burst = 64,
				  .cu_ctx = (uint64_t)(uintptr_t)ctx, .verdict = v_g, .aux = aux_g };
		struct run rp = { .mode = GPUDP_HO_STAGED, .kernel = k, .burst = 64,
				  .gpu_copy = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx,
				  .verdict = v_p, .aux = aux_p };

		for (i = 0; i < n; i++) {
			len[i] = m[i]->data_len;
			md[i] = rte_pktmbuf_mtod(m[i], uint8_t *);
			cd[i] = copy + (size_t)i * STRIDE;
			memcpy(cd[i], md[i], len[i]);
		}
		for (i = 0; i < n; i++)
			memcpy(pd[i], md[i], len[i]);
		GPUDP_TEST_ASSERT(run_packets(&rc, cd, len, n) == 0, "cpu");
		GPUDP_TEST_ASSERT(run_packets(&rg, md, len, n) == 0, "staged");
		/* the same packets in pinned memory: the GPU does the copies */
		GPUDP_TEST_ASSERT(run_packets(&rp, pd, len, n) == 0, "staged, GPU copies");
		for (i = 0; i < n; i++) {
			GPUDP_TEST_ASSERT(v_c[i] == v_g[i] && aux_c[i] == aux_g[i],
					  "%s packet %u: verdict %u/%u aux %#x/%#x",
					  kname[k], i, v_c[i], v_g[i], aux_c[i],
					  aux_g[i]);
			GPUDP_TEST_ASSERT(v_c[i] == v_p[i] && aux_c[i] == aux_p[i],
					  "%s packet %u: verdict %u/%u aux %#x/%#x (GPU copies)",
					  kname[k], i, v_c[i], v_p[i], aux_c[i],
					  aux_p[i]);
			GPUDP_TEST_ASSERT(memcmp(cd[i], md[i], len[i]) == 0,
					  "%s packet %u: bytes differ", kname[k], i);
			GPUDP_TEST_ASSERT(memcmp(cd[i], pd[i], len[i]) == 0,
					  "%s packet %u: bytes differ (GPU copies)",
					  kname[k], i);
		}
		printf("    %s: %u packets from net_pcap, staged (CPU and GPU copies) == cpu "
		       "(%" PRIu64 " passed)\n",
		       kname[k], n, rc.vcount[GPUDP_FWD_PASS]);
	}
	gpudp_cu->cuMemFreeHost(pinned);
	rte_pktmbuf_free_bulk(m, n);
	rte_eth_dev_stop(0);
	return GPUDP_TEST_PASS;
}

/* ---- --bench: handoff latency per mode vs rte_gpu_comm_* ---- */

struct lat {
	struct gpudp_ho_hist ks, done;
};

static int
bench_mode(enum gpudp_ho_mode mode, uint8_t *const *pk, uint32_t np, uint32_t iters,
	   struct lat *out)
{
	struct gpudp_handoff_conf c = { .name = "bench", .mode = mode,
		.ring_size = 8, .burst_max = np,
		.graph_batch = 1, .persistent_blocks = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	uint32_t it, i;

	if (h == NULL || s == NULL)
		return -1;
	for (it = 0; it < iters + 100; it++) {
		struct gpudp_ho_burst *b;

		/* the GPU clock drifts from the CPU's: keep the model fresh */
		if (it % 1000 == 0 && gpudp_handoff_clock_sync(h) != 0)
			return -1;
		b = gpudp_handoff_acquire(h);
		for (i = 0; i < np; i++)
			gpudp_ho_burst_add(b, pk[i], 64, NULL);
		gpudp_handoff_submit(h, b);
		while ((b = gpudp_handoff_completed(h)) == NULL)
			;
		gpudp_handoff_release(h, b);
		if (it == 99) {  /* warm-up done: restart the histograms */
			gpudp_handoff_destroy(h);
			h = gpudp_handoff_create(&c);
			if (h == NULL)
				return -1;
		}
	}
	gpudp_handoff_stats_get(h, s);
	out->ks = s->lat_kstart;
	out->done = s->lat_done;
	free(s);
	gpudp_handoff_destroy(h);
	return 0;
}

static int
bench_comm(uint8_t *const *pk, uint32_t np, uint32_t iters, struct lat *out,
	   struct rte_mbuf **mb)
{
	enum { ITEMS = 8 };
	struct rte_gpu_comm_list *list;
	struct gpudp_fwd_comm_args a;
	void *params[] = { &a };
	CUmodule mod;
	CUfunction f;
	CUstream st;
	uint64_t *ts, *q;
	uint32_t it;
	/* a launch handoff only for its clock model (CPU ns of %globaltimer) */
	struct gpudp_handoff_conf cc = { .name = "bench-clock", .mode = GPUDP_HO_LAUNCH,
		.ring_size = 2, .burst_max = 1, .cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *clk = gpudp_handoff_create(&cc);

	RTE_SET_USED(pk);
	if (clk == NULL)
		return -1;
	list = rte_gpu_comm_create_list(0, ITEMS);
	if (list == NULL)
		return -1;
	if (gpudp_cuda_module_load("fwd_test", &mod) != 0 ||
	    gpudp_cu->cuModuleGetFunction(&f, mod, "gpudp_fwd_comm_persistent") != 0 ||
	    gpudp_cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != 0 ||
	    gpudp_cu->cuMemAllocHost((void **)&ts, (ITEMS + 16) * 8) != 0)
		return -1;
	memset(ts, 0, (ITEMS + 16) * 8);
	q = ts + ITEMS;
	memset(&a, 0, sizeof(a));
	a.list = (uint64_t)(uintptr_t)list;
	a.tstamp = (uint64_t)(uintptr_t)ts;
	a.quit = (uint64_t)(uintptr_t)q;
	a.n_items = ITEMS;
	a.item_size = sizeof(struct rte_gpu_comm_list);
	a.off_pkts = offsetof(struct rte_gpu_comm_list, pkt_list);
	a.off_num = offsetof(struct rte_gpu_comm_list, num_pkts);
	a.off_status_d = offsetof(struct rte_gpu_comm_list, status_d);
	a.pkt_size = sizeof(struct rte_gpu_comm_pkt);
	if (gpudp_cu->cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, st, params, NULL) != 0)
		return -1;
	for (it = 0; it < iters + 100; it++) {
		struct rte_gpu_comm_list *item = &list[it % ITEMS];
		enum rte_gpu_comm_list_status s;
		uint64_t t0, t1;

		if (it % 1000 == 0 && gpudp_handoff_clock_sync(clk) != 0)
			return -1;
		t0 = gpudp_ho_now_ns();
		if (rte_gpu_comm_populate_list_pkts(item, mb, np) != 0)
			return -1;
		do {
			rte_gpu_comm_get_status(item, &s);
		} while (s != RTE_GPU_COMM_LIST_DONE);
		t1 = gpudp_ho_now_ns();
		if (it >= 100) {
			uint64_t ks = gpudp_handoff_gpu_to_cpu_ns(clk, ts[it % ITEMS], t0);

			gpudp_ho_hist_add(&out->ks, (int64_t)(ks - t0) > 0 ? ks - t0 : 0);
			gpudp_ho_hist_add(&out->done, t1 - t0);
		}
		/* cleanup_list would free the mbufs: reset the item by hand */
		item->num_pkts = 0;
		rte_gpu_comm_set_status(item, RTE_GPU_COMM_LIST_FREE);
	}
	*(volatile uint32_t *)q = 1;
	gpudp_cu->cuStreamSynchronize(st);
	gpudp_cu->cuStreamDestroy(st);
	gpudp_cu->cuMemFreeHost(ts);
	gpudp_cu->cuModuleUnload(mod);
	rte_gpu_comm_destroy_list(list, ITEMS);
	gpudp_handoff_destroy(clk);
	return 0;
}

static void
json_lat(FILE *f, const char *name, const struct lat *l, const char *sep)
{
	fprintf(f, "  \"%s\": {\"n\": %" PRIu64 ", \"kstart_p50_ns\": %" PRIu64
		", \"kstart_p99_ns\": %" PRIu64 ", \"kstart_p999_ns\": %" PRIu64
		", \"done_p50_ns\": %" PRIu64 ", \"done_p99_ns\": %" PRIu64
		", \"done_p999_ns\": %" PRIu64 "}%s\n", name, l->done.count,
		gpudp_ho_hist_quantile(&l->ks, 0.5), gpudp_ho_hist_quantile(&l->ks, 0.99),
		gpudp_ho_hist_quantile(&l->ks, 0.999), gpudp_ho_hist_quantile(&l->done, 0.5),
		gpudp_ho_hist_quantile(&l->done, 0.99), gpudp_ho_hist_quantile(&l->done, 0.999),
		sep);
	printf("%-16s rx->kernel-start p50 %6.2f p99 %6.2f p999 %7.2f us | round trip p50 "
	       "%6.2f p99 %6.2f p999 %7.2f us\n", name,
	       gpudp_ho_hist_quantile(&l->ks, 0.5) / 1e3, gpudp_ho_hist_quantile(&l->ks, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->ks, 0.999) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.5) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.99) / 1e3,
	       gpudp_ho_hist_quantile(&l->done, 0.999) / 1e3);
}

/* staged path bytes/s at 1500-byte packets in bursts of @p np, packets in
 * plain host memory (CPU copies) or in pinned memory (GPU copies); @p pkts
 * holds STAGED_POOL packets 1536 bytes apart, walked through burst by burst
 * (the way mbufs cycle: every burst reads other memory) */
#define STAGED_POOL 16384u
static double
staged_bw_run(uint8_t *pkts, int gpu_copy, uint32_t np)
{
	enum { PL = 1500, BYTES = 3u << 30 };
	struct gpudp_handoff_conf c = { .name = "staged-bw", .mode = GPUDP_HO_STAGED,
		.ring_size = 16, .burst_max = np,
		.stage_bytes = PL, .stage_gpu_copy = gpu_copy,
		.cu_ctx = (uint64_t)(uintptr_t)ctx };
	struct gpudp_handoff *h = gpudp_handoff_create(&c);
	uint32_t sub = 0, done = 0, bursts = BYTES / (np * PL), next = 0, i;
	uint64_t t0, t1, cpu = 0;

	if (h == NULL)
		return -1;
	t0 = gpudp_ho_now_ns();
	while (done < bursts) {
		struct gpudp_ho_burst *b;

		while (sub < bursts && (b = gpudp_handoff_acquire(h)) != NULL) {
			uint64_t s0 = gpudp_ho_now_ns();

			for (i = 0; i < np; i++, next = (next + 1) % STAGED_POOL)
				gpudp_ho_burst_add(b, pkts + (size_t)next * 1536, PL, NULL);
			gpudp_handoff_submit(h, b);
			cpu += gpudp_ho_now_ns() - s0;
			sub++;
		}
		if ((b = gpudp_handoff_completed(h)) != NULL) {
			gpudp_handoff_release(h, b);
			done++;
		}
	}
	t1 = gpudp_ho_now_ns();
	gpudp_handoff_destroy(h);
	printf("    staged %s copies: %.1f us per %u-packet burst, %.1f us of it the CPU "
	       "describing and submitting\n", gpu_copy ? "GPU" : "CPU",
	       (t1 - t0) / 1e3 / bursts, np, cpu / 1e3 / bursts);
	return (double)bursts * np * PL / ((t1 - t0) / 1e9) / 1e9;
}

/* staged path bytes/s at 1500-byte packets vs the plain pinned copy */
static int
bench_staged_bw(FILE *f)
{
	enum { PL = 1500, CB = 64 << 20 };
	size_t pool = (size_t)STAGED_POOL * 1536;
	uint8_t *pkts = malloc(pool), *pinned = NULL, *src;
	CUdeviceptr dst;
	CUstream st;
	uint32_t i;
	uint64_t t0, t1;
	double staged, staged4k, staged_cpu, copy;

	if (pkts == NULL || gpudp_cu->cuMemAllocHost((void **)&pinned, pool) != CUDA_SUCCESS) {
		free(pkts);
		return -1;
	}
	memset(pkts, 0x11, pool);
	memset(pinned, 0x11, pool);
	staged_cpu = staged_bw_run(pkts, 0, 1024);
	staged = staged_bw_run(pinned, 1, 1024);
	staged4k = staged_bw_run(pinned, 1, 4096);
	free(pkts);
	gpudp_cu->cuMemFreeHost(pinned);
	if (staged < 0 || staged4k < 0 || staged_cpu < 0)
		return -1;
	if (gpudp_cu->cuMemAllocHost((void **)&src, CB) != 0 || gpudp_cu->cuMemAlloc(&dst, CB) != 0 ||
	    gpudp_cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != 0)
		return -1;
	memset(src, 1, CB);
	gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
	gpudp_cu->cuStreamSynchronize(st);
	t0 = gpudp_ho_now_ns();
	for (i = 0; i < 20; i++)
		gpudp_cu->cuMemcpyHtoDAsync(dst, src, CB, st);
	gpudp_cu->cuStreamSynchronize(st);
	t1 = gpudp_ho_now_ns();
	copy = 20.0 * CB / ((t1 - t0) / 1e9) / 1e9;
	gpudp_cu->cuStreamDestroy(st);
	gpudp_cu->cuMemFree(dst);
	gpudp_cu->cuMemFreeHost(src);
	printf("staged path at %u-byte packets: pinned mbufs (GPU copies) %.2f GB/s in bursts "
	       "of 1024, %.2f GB/s in bursts of 4096; host mbufs (CPU copies) %.2f GB/s; "
	       "pinned H2D copy %.2f GB/s (%.0f%%, %.0f%%, %.0f%%)\n", PL, staged, staged4k,
	       staged_cpu, copy, 100 * staged / copy, 100 * staged4k / copy,
	       100 * staged_cpu / copy);
	fprintf(f, "  \"staged_bw\": {\"packet_bytes\": %u, \"burst\": 1024, "
		"\"staged_gbytes_s\": %.3f, \"staged_gbytes_s_burst4096\": %.3f, "
		"\"staged_cpu_copy_gbytes_s\": %.3f, \"pinned_copy_gbytes_s\": %.3f, "
		"\"ratio\": %.3f, \"ratio_burst4096\": %.3f, \"ratio_cpu_copy\": %.3f},\n",
		PL, staged, staged4k, staged_cpu, copy, staged / copy, staged4k / copy,
		staged_cpu / copy);
	return 0;
}

static int
bench(const char *json)
{
	enum { NP = 32, ITERS = 20000 };
	static const enum gpudp_ho_mode modes[] = { GPUDP_HO_CPU, GPUDP_HO_LAUNCH,
		GPUDP_HO_PERSISTENT, GPUDP_HO_GRAPH, GPUDP_HO_STAGED };
	struct gpudp_pool_conf pc;
	struct gpudp_pool *pool;
	struct rte_mbuf *mb[NP];
	uint8_t *pk[NP];
	static struct lat lat[8];
	FILE *f;
	uint32_t i, m;

	if (gpu_up() != 0 || eal_up() != 0 || rte_gpu_count_avail() == 0) {
		fprintf(stderr, "bench: no GPU\n");
		return GPUDP_TEST_SKIP;
	}
	memset(&pc, 0, sizeof(pc));
	pc.name = "bench";
	pc.type = GPUDP_MEM_PINNED;  /* readable by the CPU (cpu, staged) and the GPU */
	pc.nb_mbufs = 1024;
	pc.data_room = 2048;
	pc.socket_id = 0;
	pool = gpudp_pool_create(&pc);
	if (pool == NULL || rte_pktmbuf_alloc_bulk(gpudp_pool_mempool(pool), mb, NP) != 0) {
		fprintf(stderr, "bench: pinned pool: %s\n", strerror(rte_errno));
		return GPUDP_TEST_FAIL;
	}
	for (i = 0; i < NP; i++) {
		rte_pktmbuf_append(mb[i], 64);
		pk[i] = rte_pktmbuf_mtod(mb[i], uint8_t *);
		memset(pk[i], (int)i, 64);
	}
	f = fopen(json, "w");
	if (f == NULL)
		return GPUDP_TEST_FAIL;
	fprintf(f, "{\n  \"burst\": %u, \"iterations\": %u,\n", NP, ITERS);
	for (m = 0; m < RTE_DIM(modes); m++) {
		if (bench_mode(modes[m], pk, NP, ITERS, &lat[m]) != 0) {
			fprintf(stderr, "bench: mode %s failed\n", gpudp_ho_mode_name(modes[m]));
			fclose(f);
			return GPUDP_TEST_FAIL;
		}
		json_lat(f, gpudp_ho_mode_name(modes[m]), &lat[m], ",");
	}
	if (bench_comm(pk, NP, ITERS, &lat[7], mb) != 0) {
		fprintf(stderr, "bench: rte_gpu_comm list failed: %s\n", strerror(rte_errno));
		fprintf(f, "  \"rte_gpu_comm\": null\n}\n");
		fclose(f);
		return GPUDP_TEST_FAIL;
	}
	if (bench_staged_bw(f) != 0)
		fprintf(stderr, "bench: staged bandwidth failed\n");
	json_lat(f, "rte_gpu_comm", &lat[7], "");
	fprintf(f, "}\n");
	fclose(f);
	rte_pktmbuf_free_bulk(mb, NP);
	gpudp_pool_destroy(pool);
	return GPUDP_TEST_PASS;
}

/* one GPU clock measure serves every handoff on that GPU */
static int
clock_model_shared_between_handoffs(void)
{
	struct gpudp_handoff_conf c = { .name = "clk-a", .mode = GPUDP_HO_LAUNCH,
		.ring_size = 4, .burst_max = 32 };
	struct gpudp_handoff *a, *b, *cpu;
	uint64_t now, g;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	c.cu_ctx = (uint64_t)(uintptr_t)ctx;
	a = gpudp_handoff_create(&c);
	c.name = "clk-b";
	b = gpudp_handoff_create(&c);
	c.name = "clk-cpu";
	c.mode = GPUDP_HO_CPU;
	cpu = gpudp_handoff_create(&c);
	GPUDP_TEST_ASSERT(a != NULL && b != NULL && cpu != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_handoff_clock_sync(a) == 0, "measure");
	now = gpudp_ho_now_ns();
	g = now + 5000000000ull;  /* a stamp: the mapping is what is compared */
	/* each measured its own at create: two measures differ by their error */
	printf("    own models: %" PRId64 " ns apart\n",
	       (int64_t)(gpudp_handoff_gpu_to_cpu_ns(a, g, now) -
			 gpudp_handoff_gpu_to_cpu_ns(b, g, now)));
	GPUDP_TEST_ASSERT(gpudp_handoff_clock_share(b, a) == 0, "share");
	GPUDP_TEST_ASSERT(gpudp_handoff_gpu_to_cpu_ns(a, g, now) ==
			  gpudp_handoff_gpu_to_cpu_ns(b, g, now) &&
			  gpudp_handoff_gpu_to_cpu_ns(a, g, now + 1000000000ull) ==
			  gpudp_handoff_gpu_to_cpu_ns(b, g, now + 1000000000ull),
			  "shared model maps differently");
	GPUDP_TEST_ASSERT(gpudp_handoff_clock_share(cpu, a) == -EINVAL &&
			  gpudp_handoff_clock_share(b, cpu) == -EINVAL, "cpu mode in a share");
	gpudp_handoff_destroy(cpu);
	gpudp_handoff_destroy(b);
	gpudp_handoff_destroy(a);
	return GPUDP_TEST_PASS;
}

#else /* !GPUDP_HAS_CUDA */

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
#define split_segments_in_every_gpu_mode no_cuda
#define staged_path_on_pcap_payloads_matches_cpu no_cuda
#define clock_model_shared_between_handoffs no_cuda
static int
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
	{ "split_segments_in_every_gpu_mode", split_segments_in_every_gpu_mode },
	{ "staged_path_on_pcap_payloads_matches_cpu", staged_path_on_pcap_payloads_matches_cpu },
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
