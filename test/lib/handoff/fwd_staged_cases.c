/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gpu_fwd: net_pcap payloads through the staged path, and the clock model shared by handoffs. */
#include "fwd_test_pvt.h"

#ifdef GPUDP_HAS_CUDA

/* ---- EAL (net_pcap, gpudev) for the staged-path and comm-list cases ---- */

int eal_state;  /* 0 not tried, 1 up, -1 failed */

int
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

/* the TEST work "span"'s result (works-gpu/span_work.h) and span */
struct span_result {
	uint32_t sum, seen, pkt_len, wire_len;
	uint64_t ts_ns;
	uint32_t mark, pad;
};
#define SPAN_BYTES 64u

/* the TEST work "span"'s results of @p n packets through @p h: bursts of
 * up to @p burst, each packet added (desc == NULL) or as one array */
static int
span_run(struct gpudp_handoff *h, const uint8_t *data, uint32_t data_len,
	 const struct gpudp_ho_desc *d, uint32_t n, uint32_t burst, int desc,
	 struct span_result *res)
{
	uint32_t next = 0, done = 0, i, k;

	while (done < n) {
		struct gpudp_ho_burst *b;

		while (next < n && (b = gpudp_handoff_acquire(h)) != NULL) {
			k = RTE_MIN(burst, n - next);
			if (desc) {
				if (gpudp_handoff_submit_desc(h, b, data, data_len, d + next, k) != 0)
					return -1;
			} else {
				for (i = 0; i < k; i++) {
					const struct gpudp_ho_desc *x = &d[next + i];
					/* outside the data area: the empty segment staging gives */
					int in = x->off <= data_len && x->len <= data_len - x->off;

					gpudp_ho_burst_add(b, (void *)(uintptr_t)(data + (in ? x->off : 0)),
							   in ? x->len : 0, NULL);
					b->meta[i] = (struct gpudp_work_meta){ .ts_ns = x->ts_ns,
						.wire_len = x->wire_len, .mark = x->mark };
				}
				if (gpudp_handoff_submit(h, b) != 0)
					return -1;
			}
			b->udata = next;
			next += k;
		}
		while ((b = gpudp_handoff_completed(h)) == NULL)
			if (gpudp_handoff_failed(h))
				return -1;
		if (b->n_pass != b->n)
			return -1;
		memcpy(res + b->udata, b->result, (size_t)b->n * sizeof(*res));
		done += b->n;
		gpudp_handoff_release(h, b);
	}
	return 0;
}

/*
 * gpudp_handoff_submit_desc(): packets laid out as a capture file's records
 * (a 16-byte header of other bytes before each, any alignment, lengths 0 to
 * 300 against the work's span of 64) and some described past the data
 * area reach the TEST work "span" with the bytes, lengths and metadata that
 * packets added one by one give in the CPU mode; bad calls (misaligned,
 * too large, descriptors the GPU cannot read) are refused and leave the
 * burst as it was.
 */
int
staged_desc_bursts_give_what_added_packets_give(void)
{
	enum { N = 5000, DL = 1u << 20 };
	static struct gpudp_ho_desc pageable[8];
	static struct span_result rc[N], rg[N];
	struct gpudp_ho_desc *d = NULL;
	const struct gpudp_work *w;
	struct gpudp_handoff *hc, *hg;
	struct gpudp_ho_burst *b;
	uint8_t *data = NULL;
	char err[256];
	uint32_t i, off = 0, outside = 0, cut = 0;

	GPUDP_TEST_SKIP_IF(gpu_up() != 0, "no GPU");
	GPUDP_TEST_SKIP_IF(span_work_path == NULL, "no --span-work given");
	w = gpudp_work_load(span_work_path, err, sizeof(err));
	GPUDP_TEST_ASSERT(w != NULL, "%s", err);
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&data, DL));
	CU_OK(gpudp_cu->cuMemAllocHost((void **)&d, N * sizeof(*d)));
	memset(data, 0xee, DL);
	for (i = 0; i < N; i++) {
		uint32_t len = (i * 7919u) % 301;

		off += 16;  /* a record header's worth of other bytes */
		/* struct gpudp_ho_desc, len and wire_len: the deprecated names of
		 * struct gpudp_pkt_desc, caplen and wirelen, still what SDK
		 * programs may write */
		d[i] = (struct gpudp_ho_desc){ .off = off, .len = len, .wire_len = len + i % 3,
			.mark = i * 31u, .ts_ns = 1700000000000000000ull + i * 977ull };
		if (i % 97 == 5)  /* past the data area */
			d[i].off = DL - len / 2;
		else
			off += len;
		for (uint32_t k = 0; k < len && d[i].off + k < DL; k++)
			data[d[i].off + k] = (uint8_t)(i * 13 + k * 7);
		outside += d[i].off + len > DL;
		cut += d[i].off + len <= DL && len > SPAN_BYTES;
	}
	GPUDP_TEST_ASSERT(off < DL && outside > 10 && cut > 1000, "layout");
	{
		struct gpudp_handoff_conf c = { .name = "desc-cpu", .mode = GPUDP_HO_CPU, .work = w,
			.meta = 1, .ring_size = 4, .burst_max = 1024 };

		hc = gpudp_handoff_create(&c);
		c.name = "desc-gpu";
		c.mode = GPUDP_HO_STAGED;
		c.stage_gpu_copy = 1;
		c.stage_bytes = 2048;
		c.stage_burst_bytes = DL;
		c.cu_ctx = (uint64_t)(uintptr_t)ctx;
		hg = gpudp_handoff_create(&c);
	}
	GPUDP_TEST_ASSERT(hc != NULL && hg != NULL, "handoffs");
	/* refusals: the burst stays acquired and empty */
	b = gpudp_handoff_acquire(hc);
	GPUDP_TEST_ASSERT(gpudp_handoff_submit_desc(hc, b, data, DL, d, 8) == -ENOTSUP,
			  "CPU mode must refuse");
	b = gpudp_handoff_acquire(hg);
	GPUDP_TEST_ASSERT(gpudp_handoff_submit_desc(hg, b, data + 8, DL - 16, d, 8) == -EINVAL &&
			  gpudp_handoff_submit_desc(hg, b, data, DL + 16, d, 8) == -EINVAL &&
			  gpudp_handoff_submit_desc(hg, b, data, DL, d, b->max + 1) == -EINVAL &&
			  /* memory the GPU cannot read: refused, not faulted on */
			  gpudp_handoff_submit_desc(hg, b, data, DL, pageable, 8) == -EINVAL &&
			  b->n == 0 && gpudp_handoff_acquire(hg) == b,
			  "bad arguments must be refused, the burst left as it was");
	GPUDP_TEST_ASSERT(span_run(hc, data, DL, d, N, 1024, 0, rc) == 0, "CPU mode run");
	GPUDP_TEST_ASSERT(span_run(hg, data, DL, d, N, 1000, 1, rg) == 0, "staged desc run");
	for (i = 0; i < N; i++) {
		/* not staged: an empty first segment of a frame of its length */
		if (d[i].off + d[i].len > DL)
			rc[i].pkt_len = d[i].len;
		GPUDP_TEST_ASSERT(memcmp(&rc[i], &rg[i], sizeof(rc[i])) == 0,
				  "packet %u (off %u len %u): sum %u/%u seen %u/%u len %u/%u "
				  "wire %u/%u mark %u/%u ts %" PRIu64 "/%" PRIu64, i, d[i].off,
				  d[i].len, rc[i].sum, rg[i].sum, rc[i].seen, rg[i].seen,
				  rc[i].pkt_len, rg[i].pkt_len, rc[i].wire_len, rg[i].wire_len,
				  rc[i].mark, rg[i].mark, rc[i].ts_ns, rg[i].ts_ns);
	}
	gpudp_handoff_destroy(hc);
	gpudp_handoff_destroy(hg);
	gpudp_cu->cuMemFreeHost(data);
	gpudp_cu->cuMemFreeHost(d);
	printf("    %u packets (%u cut to the span, %u outside the data area) described in "
	       "one array: what the CPU mode gives packet by packet\n", N, cut, outside);
	return GPUDP_TEST_PASS;
}

int
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
		       kname[k], n, rc.vcount[GPUDP_WORK_PASS]);
	}
	gpudp_cu->cuMemFreeHost(pinned);
	rte_pktmbuf_free_bulk(m, n);
	rte_eth_dev_stop(0);
	return GPUDP_TEST_PASS;
}

/* one GPU clock measure serves every handoff on that GPU */
int
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

#endif /* GPUDP_HAS_CUDA */
