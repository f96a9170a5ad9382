/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk suite runner: real EAL (no hugepages, no PCI), mempools and ethdev
 * on net_null vdevs. One DPDK-linked executable for the whole suite.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include <gpudp_test.h>

#define NB_MBUF 1024
#define BURST 32
#define EXT_ALIGN (64u << 10)	/* GPU page size, used for host pools too */

static int
eal_sees_vdevs(void)
{
	uint16_t n = rte_eth_dev_count_avail();

	GPUDP_TEST_ASSERT(n == 2, "%u ports, want net_null0 and net_null1", n);
	return GPUDP_TEST_PASS;
}

struct ext_region {
	void *addr;
	size_t len;
};

static int
ext_region_map(struct ext_region *r, size_t len)
{
	r->len = RTE_ALIGN_CEIL(len, EXT_ALIGN);
	r->addr = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->addr == MAP_FAILED)
		return -errno;
	return rte_extmem_register(r->addr, r->len, NULL, 0, 4096);
}

static void
ext_region_unmap(struct ext_region *r)
{
	munmap(r->addr, r->len);
}

static struct rte_mempool *
ext_pool(const char *name, struct ext_region *r, uint16_t room)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_ptr = r->addr,
		.buf_iova = RTE_BAD_IOVA,
		.buf_len = r->len,
		.elt_size = room,
	};

	return rte_pktmbuf_pool_create_extbuf(name, NB_MBUF, 0, 0, room,
					      SOCKET_ID_ANY, &ext, 1);
}

static int
in_region(const struct ext_region *r, const void *p)
{
	return (const char *)p >= (const char *)r->addr &&
	       (const char *)p < (const char *)r->addr + r->len;
}

/* Pool whose data rooms are in memory the app registered, torn down in
 * reverse order; rte_extmem_unregister must then succeed exactly once. */
static int
extbuf_pool_lives_in_registered_memory(void)
{
	struct rte_mbuf *m[NB_MBUF];
	struct ext_region r;
	struct rte_mempool *mp;
	unsigned int i, bad = 0;
	int rc;

	rc = ext_region_map(&r, (size_t)NB_MBUF * 2048);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_register: %s", rte_strerror(rte_errno));
	mp = ext_pool("t_ext", &r, 2048);
	GPUDP_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	rc = rte_pktmbuf_alloc_bulk(mp, m, NB_MBUF);
	GPUDP_TEST_ASSERT(rc == 0, "could not take all %d mbufs", NB_MBUF);
	for (i = 0; i < NB_MBUF; i++) {
		bad += !in_region(&r, m[i]->buf_addr);
		bad += !RTE_MBUF_HAS_PINNED_EXTBUF(m[i]);
		/* each mbuf owns a distinct, full data room */
		bad += m[i]->buf_len != 2048;
	}
	rte_pktmbuf_free_bulk(m, NB_MBUF);
	GPUDP_TEST_ASSERT(bad == 0, "%u bad mbufs", bad);
	GPUDP_TEST_ASSERT(rte_mempool_avail_count(mp) == NB_MBUF, "leak: %u free",
			  rte_mempool_avail_count(mp));
	rte_mempool_free(mp);
	rc = rte_extmem_unregister(r.addr, r.len);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_unregister: %s", rte_strerror(rte_errno));
	rc = rte_extmem_unregister(r.addr, r.len);
	GPUDP_TEST_ASSERT(rc < 0 && rte_errno == ENOENT, "second unregister: rc %d errno %d",
			  rc, rte_errno);
	ext_region_unmap(&r);
	return GPUDP_TEST_PASS;
}

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = {0};
	int rc;

	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static void
port_stop(uint16_t port)
{
	rte_eth_dev_stop(port);
}

/* net_null rx into an external-buffer pool, forward to the other port;
 * ethdev counters and the pool must balance. */
static int
null_ports_forward_from_extbuf_pool(void)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_eth_stats st0, st1;
	struct ext_region r;
	struct rte_mempool *mp;
	uint64_t rx = 0, tx = 0;
	uint16_t n, sent, i;
	int rc, it, outside = 0;

	rc = ext_region_map(&r, (size_t)NB_MBUF * 2048);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_register: %s", rte_strerror(rte_errno));
	mp = ext_pool("t_fwd", &r, 2048);
	GPUDP_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(port_start(0, mp) == 0, "port 0 start");
	GPUDP_TEST_ASSERT(port_start(1, mp) == 0, "port 1 start");
	rte_eth_stats_reset(0);
	rte_eth_stats_reset(1);
	for (it = 0; it < 1000; it++) {
		n = rte_eth_rx_burst(0, 0, pkts, BURST);
		rx += n;
		for (i = 0; i < n; i++)
			outside += !in_region(&r, pkts[i]->buf_addr);
		sent = rte_eth_tx_burst(1, 0, pkts, n);
		tx += sent;
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	rte_eth_stats_get(0, &st0);
	rte_eth_stats_get(1, &st1);
	port_stop(0);
	port_stop(1);
	GPUDP_TEST_ASSERT(rx == 1000 * BURST, "rx %" PRIu64, rx);
	GPUDP_TEST_ASSERT(outside == 0, "%d mbufs outside the external region", outside);
	GPUDP_TEST_ASSERT(st0.ipackets == rx, "port0 ipackets %" PRIu64 " rx %" PRIu64,
			  st0.ipackets, rx);
	GPUDP_TEST_ASSERT(st1.opackets == tx, "port1 opackets %" PRIu64 " tx %" PRIu64,
			  st1.opackets, tx);
	/* queues hold no mbufs after stop with net_null: all back in the pool */
	GPUDP_TEST_ASSERT(rte_mempool_avail_count(mp) == NB_MBUF, "%u of %d free",
			  rte_mempool_avail_count(mp), NB_MBUF);
	rte_mempool_free(mp);
	GPUDP_TEST_ASSERT(rte_extmem_unregister(r.addr, r.len) == 0, "unregister");
	ext_region_unmap(&r);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "eal_sees_vdevs", eal_sees_vdevs },
	{ "extbuf_pool_lives_in_registered_memory", extbuf_pool_lives_in_registered_memory },
	{ "null_ports_forward_from_extbuf_pool", null_ports_forward_from_extbuf_pool },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *eal_argv[] = {
		argv[0], "-l", "0", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--log-level=*:warning",
		"--vdev", "net_null0", "--vdev", "net_null1", NULL,
	};
	int rc;

	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rc = gpudp_test_run("dpdk", cases, argc, argv);
	rte_eal_cleanup();
	return rc;
}
