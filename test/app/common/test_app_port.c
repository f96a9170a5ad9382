/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk: app/common's port set-up, start, link wait and counters, and EAL
 * start, on real EAL with net_null and net_ring vdevs (--no-huge).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gpudp_app.h"
#include "gpudp_app_gpu.h"
#include "gpudp_app_port.h"
#include "gpudp_app_port_stats.h"
#include "gpudp_json.h"
#include "gpudp_test.h"

static struct rte_mempool *mp;

static int
two_queues_set_up_start_and_link_up(void)
{
	struct gpudp_app_port_conf c = {
		.nb_rxq = 2, .nb_txq = 2, .nb_rxd = 128, .nb_txd = 128, .rss = 1, .mp = mp,
	};
	struct rte_eth_rxq_info qi;
	char err[256] = "";
	int rc;

	GPUDP_TEST_ASSERT(gpudp_app_port_setup(0, &c, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_app_port_start(0, err, sizeof(err)) == 0, "%s", err);
	rc = rte_eth_rx_queue_info_get(0, 1, &qi);
	GPUDP_TEST_ASSERT(rc == 0 || rc == -ENOTSUP, "rx queue 1: %s", rte_strerror(-rc));
	GPUDP_TEST_ASSERT(gpudp_app_link_wait(0, 2, NULL) == 1, "net_null's link is down");
	GPUDP_TEST_ASSERT(strcmp(gpudp_app_port_driver(0), "net_null") == 0, "driver %s",
			  gpudp_app_port_driver(0));
	GPUDP_TEST_ASSERT(strcmp(gpudp_app_port_driver(999), "?") == 0, "no port 999");
	rte_eth_dev_stop(0);
	return GPUDP_TEST_PASS;
}

static int
too_many_queues_is_einval_naming_port_and_driver(void)
{
	struct gpudp_app_port_conf c = {
		.nb_rxq = 4096, .nb_txq = 1, .nb_rxd = 128, .nb_txd = 128, .mp = mp,
	};
	char err[256] = "";
	int rc = gpudp_app_port_setup(1, &c, err, sizeof(err));

	GPUDP_TEST_ASSERT(rc == -EINVAL, "rc %d", rc);
	GPUDP_TEST_ASSERT(strstr(err, "port 1 (net_null)") && strstr(err, "4096 rx") &&
			  strstr(err, "at most"), "%s", err);
	c.nb_rxq = 0;
	GPUDP_TEST_ASSERT(gpudp_app_port_setup(1, &c, err, sizeof(err)) == -EINVAL,
			  "0 rx queues accepted");
	return GPUDP_TEST_PASS;
}

static int
offloads_the_port_lacks_are_left_out(void)
{
	struct gpudp_app_port_conf c = {
		.nb_rxq = 1, .nb_txq = 1, .nb_rxd = 128, .nb_txd = 128, .mp = mp,
		.rx_offloads = RTE_ETH_RX_OFFLOAD_TCP_LRO,
	};
	struct rte_eth_dev_info info;
	struct rte_eth_conf dc;
	char err[256] = "";

	GPUDP_TEST_ASSERT(rte_eth_dev_info_get(1, &info) == 0, "info");
	GPUDP_TEST_SKIP_IF(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_LRO,
			   "net_null has LRO here");
	GPUDP_TEST_ASSERT(gpudp_app_port_setup(1, &c, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(rte_eth_dev_conf_get(1, &dc) == 0 &&
			  (dc.rxmode.offloads & RTE_ETH_RX_OFFLOAD_TCP_LRO) == 0,
			  "LRO was asked of a port without it");
	return GPUDP_TEST_PASS;
}

static int
link_wait_ends_when_stop_is_set(void)
{
	volatile sig_atomic_t stop = 1;
	uint64_t t0 = rte_get_timer_cycles();
	int up = gpudp_app_link_wait(1, 5, &stop);   /* port 1 is not started */
	double s = (double)(rte_get_timer_cycles() - t0) / rte_get_timer_hz();

	GPUDP_TEST_ASSERT(up == 0, "a port never started has its link up");
	GPUDP_TEST_ASSERT(s < 1.0, "waited %.2f s with stop set", s);
	return GPUDP_TEST_PASS;
}

/* port 2 (net_ring) set up and started with one queue of each kind */
static int
ring_port_started(void)
{
	struct gpudp_app_port_conf c = {
		.nb_rxq = 1, .nb_txq = 1, .nb_rxd = 128, .nb_txd = 128, .mp = mp,
	};
	char err[256] = "";

	if (gpudp_app_port_setup(2, &c, err, sizeof(err)) != 0 ||
	    gpudp_app_port_start(2, err, sizeof(err)) != 0) {
		fprintf(stderr, "    port 2: %s\n", err);
		return -1;
	}
	return 0;
}

/* send @p n new mbufs on port 2; @return how many it took (the rest freed) */
static unsigned int
ring_send(unsigned int n)
{
	struct rte_mbuf *m[64];
	unsigned int i, sent = 0, k;

	while (n > 0) {
		k = RTE_MIN(n, RTE_DIM(m));
		if (rte_pktmbuf_alloc_bulk(mp, m, k) != 0)
			break;
		for (i = 0; i < k; i++)
			rte_pktmbuf_append(m[i], 60);
		i = rte_eth_tx_burst(2, 0, m, (uint16_t)k);
		sent += i;
		rte_pktmbuf_free_bulk(m + i, k - i);
		n -= k;
	}
	return sent;
}

/* receive what port 2's ring holds; @return packets */
static unsigned int
ring_drain(void)
{
	struct rte_mbuf *m[64];
	unsigned int got = 0;
	uint16_t n;

	while ((n = rte_eth_rx_burst(2, 0, m, RTE_DIM(m))) > 0) {
		got += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	return got;
}

static int
counters_count_from_the_port_start(void)
{
	struct gpudp_app_port_stats s;
	unsigned int sent, got;

	GPUDP_TEST_ASSERT(ring_port_started() == 0, "port 2 did not start");
	/* traffic before the mark is not the run's */
	ring_send(10);
	ring_drain();
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_mark(2) == 0, "mark");
	sent = ring_send(100);
	got = ring_drain();
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_get(2, &s) == 0, "get");
	GPUDP_TEST_ASSERT(sent == 100 && got == 100, "sent %u got %u", sent, got);
	GPUDP_TEST_ASSERT(s.port == 2 && strcmp(s.driver, "net_ring") == 0, "port %u driver %s",
			  s.port, s.driver);
	GPUDP_TEST_ASSERT(s.rx_pkts == 100 && s.tx_pkts == 100, "rx %" PRIu64 " tx %" PRIu64,
			  s.rx_pkts, s.tx_pkts);
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_drops(&s) == 0 && s.n_xstats == 0,
			  "drops %" PRIu64 " xstats %u", gpudp_app_port_stats_drops(&s), s.n_xstats);
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_warn("t", &s) == 0, "a warning without drops");
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_get(999, &s) == -ENODEV, "port 999");
	rte_eth_dev_stop(2);
	return GPUDP_TEST_PASS;
}

/*
 * net_pcap (port 3) counts rx_nombuf when its pool is empty: 16 mbufs, two
 * bursts of 32 and nothing freed; the counts in every form
 */
static int
pool_empty_is_rx_nombuf_in_text_and_json(void)
{
	struct gpudp_app_port_conf c = {
		.nb_rxq = 1, .nb_txq = 1, .nb_rxd = 128, .nb_txd = 128,
	};
	struct rte_mbuf *m[64];
	struct gpudp_app_port_stats s;
	struct gpudp_json j;
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	uint16_t n;
	FILE *f;

	c.mp = rte_pktmbuf_pool_create("app_port_small", 16, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	GPUDP_TEST_ASSERT(c.mp != NULL, "pool: %s", rte_strerror(rte_errno));
	GPUDP_TEST_ASSERT(gpudp_app_port_setup(3, &c, err, sizeof(err)) == 0 &&
			  gpudp_app_port_start(3, err, sizeof(err)) == 0, "%s", err);
	n = rte_eth_rx_burst(3, 0, m, 32);
	n += rte_eth_rx_burst(3, 0, m + n, 32);
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_get(3, &s) == 0, "get");
	rte_eth_dev_stop(3);
	rte_pktmbuf_free_bulk(m, n);
	GPUDP_TEST_ASSERT(n == 16 && s.rx_pkts == 16 && s.rx_nombuf == 2 &&
			  gpudp_app_port_stats_drops(&s) == 2,
			  "received %u: rx %" PRIu64 " rx_nombuf %" PRIu64, n, s.rx_pkts,
			  s.rx_nombuf);
	f = open_memstream(&buf, &len);
	GPUDP_TEST_ASSERT(f != NULL, "memstream");
	gpudp_app_port_stats_print(f, "final ", &s);
	gpudp_json_init(&j, f);
	gpudp_json_arr(&j, NULL);
	gpudp_app_port_stats_json(&j, &s);
	gpudp_json_end(&j);
	n = gpudp_json_close(&j) == 0;
	fclose(f);
	GPUDP_TEST_ASSERT(n, "json");
	GPUDP_TEST_ASSERT(strstr(buf, "final port 3 (net_pcap): rx 16 pkts 960 bytes tx 0 pkts "
				 "0 bytes imissed 0 ierrors 0 oerrors 0 rx_nombuf 2\n") != NULL,
			  "%s", buf);
	GPUDP_TEST_ASSERT(strstr(buf, "\"rx_pkts\": 16, \"rx_bytes\": 960, ") != NULL &&
			  strstr(buf, "\"rx_nombuf\": 2, \"drops\": 2, \"xstats\": {}}") != NULL,
			  "%s", buf);
	free(buf);
	GPUDP_TEST_ASSERT(gpudp_app_port_stats_warn("t", &s) == 2, "warn's count");
	rte_eth_dev_close(3);
	rte_mempool_free(c.mp);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "two_queues_set_up_start_and_link_up", two_queues_set_up_start_and_link_up },
	{ "too_many_queues_is_einval_naming_port_and_driver",
	  too_many_queues_is_einval_naming_port_and_driver },
	{ "offloads_the_port_lacks_are_left_out", offloads_the_port_lacks_are_left_out },
	{ "link_wait_ends_when_stop_is_set", link_wait_ends_when_stop_is_set },
	{ "counters_count_from_the_port_start", counters_count_from_the_port_start },
	{ "pool_empty_is_rx_nombuf_in_text_and_json", pool_empty_is_rx_nombuf_in_text_and_json },
	{ NULL, NULL },
};

/* A failed EAL start, in a child: one line naming the program and the cause. */
static int
eal_failure_names_program_and_cause(void)
{
	/* a secondary process without a primary: rte_eal_init() returns an
	 * error (an unknown option would not do: DPDK 25.11 exits in it) */
	char prefix[64];
	char *bad[] = { "t", "--proc-type=secondary", "--file-prefix", prefix, "--no-pci",
		"--log-level", "lib.eal:crit", NULL };
	char buf[2048] = "";
	int fd[2], status, rc;
	ssize_t n, got = 0;
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "gpudp-no-primary-%d", (int)getpid());
	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(3);    /* EAL prints its usage there */
		_exit(gpudp_app_eal_init("t", (int)RTE_DIM(bad) - 1, bad));
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd[0]);
	waitpid(pid, &status, 0);
	/* the runtime directory the child made, empty */
	for (n = 0; n < 2; n++) {
		const char *base = n == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
		char dir[512];

		if (base == NULL)
			continue;
		snprintf(dir, sizeof(dir), "%s/dpdk/%s", base, prefix);
		rmdir(dir);
	}
	rc = WIFEXITED(status) && WEXITSTATUS(status) == GPUDP_EXIT_FAILURE &&
		strstr(buf, "t: EAL initialisation failed: ") != NULL;
	printf("%s app_port.eal_failure_names_program_and_cause\n", rc ? "ok  " : "FAIL");
	if (!rc)
		fprintf(stderr, "    exit %d, stderr:\n%s\n", WEXITSTATUS(status), buf);
	return rc ? 0 : 1;
}

/* a capture of @p n 60-byte frames at @p path. @return 0 or -1 */
static int
write_pcap(const char *path, unsigned int n)
{
	static const uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	uint8_t frame[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x88, 0xb5 };
	FILE *f = fopen(path, "wb");
	unsigned int i;
	int ok;

	if (f == NULL)
		return -1;
	ok = fwrite(hdr, sizeof(hdr), 1, f) == 1;
	for (i = 0; i < n && ok; i++) {
		uint32_t rec[4] = { i, 0, sizeof(frame), sizeof(frame) };

		ok = fwrite(rec, sizeof(rec), 1, f) == 1 && fwrite(frame, sizeof(frame), 1, f) == 1;
	}
	return fclose(f) == 0 && ok ? 0 : -1;
}

int
main(int argc, char **argv)
{
	char pcap[128], vdev[160];
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--log-level", "lib.eal:warning", "--vdev", "net_null0", "--vdev", "net_null1",
		"--vdev", "net_ring0", "--vdev", vdev, NULL };
	int rc, bad;

	snprintf(pcap, sizeof(pcap), "/tmp/gpudp-app-port-%d.pcap", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_pcap0,rx_pcap=%s", pcap);
	if (write_pcap(pcap, 40) != 0) {
		perror(pcap);
		return 1;
	}

	bad = eal_failure_names_program_and_cause();
	rc = gpudp_app_eal_init("test_app_port", (int)RTE_DIM(eal) - 1, eal);
	unlink(pcap);  /* net_pcap opened it */
	if (rc != 0)
		return 1;
	mp = rte_pktmbuf_pool_create("app_port", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rc = gpudp_test_run("app_port", cases, argc, argv);
	rte_eth_dev_close(0);
	rte_eth_dev_close(1);
	rte_eth_dev_close(2);
	rte_mempool_free(mp);
	gpudp_app_eal_cleanup();
	return bad ? 1 : rc;
}
