/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program built only from the installed SDK (pkg-config gpudp), as a
 * user's would be: test/sdk/sdk_install.py installs gpudp into a DESTDIR,
 * compiles this file with `pkg-config --static --cflags --libs gpudp` and
 * runs it. It sets up EAL (net_null, --no-huge), a gpudp pool in host
 * memory and a handoff in cpu mode with the macswap work, passes one burst
 * of pool mbufs through it and checks every packet's verdict and bytes.
 * Prints "N passed, N failed".
 */
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#endif
#include <gpudp_handoff.h>
#include <gpudp_mem.h>

#define N_PKTS 5

static unsigned int passed, failed;

static void
check(const char *what, int ok)
{
	printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static void
frame(uint8_t *p, unsigned int i)
{
	memset(p, 0, 64);
	memcpy(p, "\x02\x00\x00\x00\x00\x02", 6);      /* destination */
	memcpy(p + 6, "\x02\x00\x00\x00\x00\x01", 6);  /* source */
	p[12] = 0x08;
	p[13] = 0x06;                                   /* ARP */
	p[20] = (uint8_t)i;
}

static int
run_burst(struct gpudp_handoff *h, struct rte_mbuf **m)
{
	struct gpudp_ho_burst *b = gpudp_handoff_acquire(h);
	unsigned int i, swapped = 0;
	uint64_t t0;

	if (b == NULL)
		return -1;
	for (i = 0; i < N_PKTS; i++)
		gpudp_ho_burst_add(b, rte_pktmbuf_mtod(m[i], void *), 64, m[i]);
	if (gpudp_handoff_submit(h, b) != 0)
		return -1;
	gpudp_handoff_flush(h);
	t0 = gpudp_ho_now_ns();
	while ((b = gpudp_handoff_completed(h)) == NULL)
		if (gpudp_ho_now_ns() - t0 > 5000000000ull)
			return -1;
	check("every packet passed the macswap work", b->n == N_PKTS && b->n_pass == N_PKTS);
	for (i = 0; i < N_PKTS; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);

		swapped += memcmp(p, "\x02\x00\x00\x00\x00\x01", 6) == 0 &&
			   memcmp(p + 6, "\x02\x00\x00\x00\x00\x02", 6) == 0 && p[20] == i;
	}
	check("the work swapped the MAC addresses of each packet in place", swapped == N_PKTS);
	gpudp_handoff_release(h, b);
	return 0;
}

int
main(int argc, char **argv)
{
	struct gpudp_pool_conf pc = {
		.name = "sdk_pool", .type = GPUDP_MEM_HOST, .nb_mbufs = 255,
		.data_room = 2048 + RTE_PKTMBUF_HEADROOM, .socket_id = SOCKET_ID_ANY,
	};
	struct gpudp_handoff_conf hc = {
		.name = "sdk", .mode = GPUDP_HO_CPU, .work = NULL,
		.ring_size = 4, .burst_max = 8,
	};
	struct rte_mbuf *m[N_PKTS];
	struct gpudp_handoff_stats st;
	struct gpudp_handoff *h = NULL;
	struct gpudp_pool *pool;
	unsigned int i;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "sdk_consumer: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
#ifdef GPUDP_HAS_CUDA
	/* the installed libraries' kernels are registered GPU images */
	check("GPU images 'handoff' (alias 'fwd') and 'capture' registered",
	      gpudp_cuda_image_find("handoff") != NULL &&
	      gpudp_cuda_image_find("fwd") == gpudp_cuda_image_find("handoff") &&
	      gpudp_cuda_image_find("capture") != NULL);
#endif
	pool = gpudp_pool_create(&pc);
	check("gpudp_pool_create (host memory)", pool != NULL);
	if (pool == NULL)
		goto out;
	check("mbufs from the pool",
	      rte_pktmbuf_alloc_bulk(gpudp_pool_mempool(pool), m, N_PKTS) == 0);
	for (i = 0; i < N_PKTS; i++)
		frame(rte_pktmbuf_mtod(m[i], uint8_t *), i);
	h = gpudp_handoff_create(&hc);
	check("gpudp_handoff_create (cpu mode, macswap)", h != NULL &&
	      strcmp(gpudp_ho_mode_name(GPUDP_HO_CPU), "cpu") == 0);
	if (h != NULL && gpudp_handoff_start(h) == 0) {
		check("a burst goes through the handoff", run_burst(h, m) == 0);
		gpudp_handoff_stats_get(h, &st);
		check("the handoff counted the burst", st.pkts_submitted == N_PKTS &&
		      st.pkts_done == N_PKTS && st.in_flight == 0);
		gpudp_handoff_stop(h);
	}
	gpudp_handoff_destroy(h);
	rte_pktmbuf_free_bulk(m, N_PKTS);
	check("gpudp_pool_destroy", gpudp_pool_destroy(pool) == 0);
out:
	rte_eal_cleanup();
	printf("%u passed, %u failed\n", passed, failed);
	return failed || !passed;
}
