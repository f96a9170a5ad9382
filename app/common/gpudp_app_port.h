/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Port set-up shared by gpudp's apps: configure, queues, promiscuous mode,
 * start, link wait. Errors come back as text naming the port, its driver
 * and the step that failed, for the app to log.
 */
#ifndef GPUDP_APP_PORT_H
#define GPUDP_APP_PORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct gpudp_pool;
struct rte_mempool;

/** How gpudp_app_port_setup() sets a port up. */
struct gpudp_app_port_conf {
	uint16_t nb_rxq;       /**< rx queues (1..the port's maximum) */
	uint16_t nb_txq;       /**< tx queues, set up even if unused (some PMDs,
				*   net_tap, want as many as rx queues) */
	uint16_t nb_rxd;       /**< rx descriptors per queue, adjusted to the PMD's limits */
	uint16_t nb_txd;       /**< tx descriptors per queue, likewise */
	uint64_t rx_offloads;  /**< rx offloads wanted where the port has them (the
				*   others are left out, not an error) */
	int rss;               /**< several rx queues: spread flows by RSS on IP
				*   headers where the port hashes them */
	/** the mbufs of rx queue q: pools[q] (gpudp_pool_rx_queue_setup(),
	 *  a buffer split for split pools), or, pools being NULL, @p mp */
	struct gpudp_pool *const *pools;
	struct rte_mempool *mp;  /**< the mbufs of every rx queue, without pools */
};

/**
 * Configure port @p port and set up its queues as @p c says. Not started.
 * @param err  on failure, why (port, driver, step, reason)
 * @return 0; -EINVAL if the port has fewer queues than asked (a usage
 *   error); another negative errno from ethdev
 */
int gpudp_app_port_setup(uint16_t port, const struct gpudp_app_port_conf *c, char *err,
			 size_t len);

/**
 * Start port @p port, then ask for promiscuous mode (a PMD without it is
 * not an error), and mark its counters (gpudp_app_port_stats_mark()): the
 * apps report what the port counted from here. A net_af_packet port gets a
 * notice (log type gpudp.app) of what starting it did to its kernel
 * interface: promiscuous mode, its neighbour table flushed.
 * @return 0, or a negative errno (with @p err)
 */
int gpudp_app_port_start(uint16_t port, char *err, size_t len);

/**
 * Wait up to @p secs seconds for the link of @p port to come up, polling
 * every 10 ms, or until *@p stop (NULL: never) is set.
 * @return 1 if the link is up, 0 if not
 */
int gpudp_app_link_wait(uint16_t port, unsigned int secs, volatile sig_atomic_t *stop);

/** The driver name of @p port, or "?" if it has none. */
const char *gpudp_app_port_driver(uint16_t port);

#endif /* GPUDP_APP_PORT_H */
