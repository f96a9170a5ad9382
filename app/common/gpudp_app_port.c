/* SPDX-License-Identifier: BSD-3-Clause */
/* Port set-up shared by gpudp's apps: see gpudp_app_port.h. */
#include <errno.h>
#include <string.h>
#include <net/if.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include <gpudp_errf.h>
#include <gpudp_mem.h>

#include "gpudp_app_port.h"
#include "gpudp_app_port_stats.h"

/* log type gpudp.app: what the app layer says of ports */
RTE_LOG_REGISTER(gpudp_app_logtype, gpudp.app, INFO);

const char *
gpudp_app_port_driver(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == NULL)
		return "?";
	return info.driver_name;
}

/* rte_eth_dev_configure(): the queue counts, the offloads, RSS */
static int
configure(uint16_t port, const struct gpudp_app_port_conf *c,
	  const struct rte_eth_dev_info *info, char *err, size_t len)
{
	struct rte_eth_conf pc;
	int rc;

	if (c->nb_rxq == 0 || c->nb_rxq > info->max_rx_queues ||
	    c->nb_txq > info->max_tx_queues) {
		gpudp_errf(err, len, "port %u (%s): %u rx / %u tx queues asked, it has at most "
			   "%u rx / %u tx queues", port, info->driver_name, c->nb_rxq, c->nb_txq,
			   info->max_rx_queues, info->max_tx_queues);
		return -EINVAL;
	}
	memset(&pc, 0, sizeof(pc));
	pc.rxmode.offloads = c->rx_offloads & info->rx_offload_capa;
	if (c->rss && c->nb_rxq > 1 && (info->flow_type_rss_offloads & RTE_ETH_RSS_IP) != 0) {
		pc.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		pc.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info->flow_type_rss_offloads;
	}
	rc = rte_eth_dev_configure(port, c->nb_rxq, c->nb_txq, &pc);
	if (rc != 0)
		gpudp_errf(err, len, "port %u (%s): configure failed: %s", port,
			   info->driver_name, rte_strerror(-rc));
	return rc;
}

int
gpudp_app_port_setup(uint16_t port, const struct gpudp_app_port_conf *c, char *err,
		     size_t len)
{
	struct rte_eth_dev_info info;
	uint16_t q, nrxd = c->nb_rxd, ntxd = c->nb_txd;
	int socket = rte_eth_dev_socket_id(port), rc;

	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0) {
		gpudp_errf(err, len, "port %u: cannot get device info: %s", port,
			   rte_strerror(-rc));
		return rc;
	}
	rc = configure(port, c, &info, err, len);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrxd, &ntxd);
	if (rc != 0) {
		gpudp_errf(err, len, "port %u (%s): descriptor counts %u/%u: %s", port,
			   info.driver_name, c->nb_rxd, c->nb_txd, rte_strerror(-rc));
		return rc;
	}
	for (q = 0; q < RTE_MAX(c->nb_rxq, c->nb_txq); q++) {
		const char *what = "rx";

		rc = 0;
		if (q < c->nb_rxq)
			rc = c->pools != NULL ?
				gpudp_pool_rx_queue_setup(c->pools[q], port, q, nrxd, socket) :
				rte_eth_rx_queue_setup(port, q, nrxd, socket, NULL, c->mp);
		if (rc == 0 && q < c->nb_txq) {
			what = "tx";
			rc = rte_eth_tx_queue_setup(port, q, ntxd, socket, NULL);
		}
		if (rc != 0) {
			gpudp_errf(err, len, "port %u (%s): %s queue %u setup failed: %s", port,
				   info.driver_name, what, q, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/*
 * A port on an existing kernel interface (net_af_packet) changes that
 * interface for the kernel's own users: say how, once it has started.
 */
static void
kernel_side_effects(uint16_t port)
{
	struct rte_eth_dev_info info;
	char name[IF_NAMESIZE] = "?";

	if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == NULL ||
	    strcmp(info.driver_name, "net_af_packet") != 0)
		return;
	if (info.if_index == 0 || if_indextoname(info.if_index, name) == NULL)
		snprintf(name, sizeof(name), "?");
	rte_log(RTE_LOG_NOTICE, gpudp_app_logtype,
		"gpudp.app: port %u (net_af_packet on %s): the interface is now in promiscuous "
		"mode, and stays so after the app ends; starting the port set its MAC address "
		"again, so the kernel flushed its neighbour table, permanent entries too "
		"(doc/fwd.md, \"Live interfaces\")\n", port, name);
}

int
gpudp_app_port_start(uint16_t port, char *err, size_t len)
{
	int rc = rte_eth_dev_start(port);

	if (rc != 0) {
		gpudp_errf(err, len, "port %u (%s): start failed: %s", port,
			   gpudp_app_port_driver(port), rte_strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(port); /* not every PMD has it */
	/* the run's port counters count from here (gpudp_app_port_stats.h) */
	gpudp_app_port_stats_mark(port);
	kernel_side_effects(port);
	return 0;
}

int
gpudp_app_link_wait(uint16_t port, unsigned int secs, volatile sig_atomic_t *stop)
{
	struct rte_eth_link link;
	uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	memset(&link, 0, sizeof(link));
	while (rte_eth_link_get_nowait(port, &link) == 0 &&
	       link.link_status != RTE_ETH_LINK_UP &&
	       rte_get_timer_cycles() - t0 < secs * hz && (stop == NULL || !*stop))
		rte_delay_ms(10);
	return link.link_status == RTE_ETH_LINK_UP;
}
