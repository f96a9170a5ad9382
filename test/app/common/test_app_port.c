/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk: app/common's port set-up, start and link wait, and EAL start, on
 * real EAL with net_null vdevs (--no-huge).
 */
#include <errno.h>
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

static const struct gpudp_test_case cases[] = {
	{ "two_queues_set_up_start_and_link_up", two_queues_set_up_start_and_link_up },
	{ "too_many_queues_is_einval_naming_port_and_driver",
	  too_many_queues_is_einval_naming_port_and_driver },
	{ "offloads_the_port_lacks_are_left_out", offloads_the_port_lacks_are_left_out },
	{ "link_wait_ends_when_stop_is_set", link_wait_ends_when_stop_is_set },
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

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--log-level", "lib.eal:warning", "--vdev", "net_null0", "--vdev", "net_null1",
		NULL };
	int rc, bad;

	bad = eal_failure_names_program_and_cause();
	if (gpudp_app_eal_init("test_app_port", (int)RTE_DIM(eal) - 1, eal) != 0)
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
	rte_mempool_free(mp);
	gpudp_app_eal_cleanup();
	return bad ? 1 : rc;
}
