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
		       kname[k], n, rc.vcount[GPUDP_FWD_PASS]);
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
