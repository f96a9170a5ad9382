/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Port counters as gpudp's apps report them: what each port's PMD counted
 * since the app started the port (packets and bytes each way, and the
 * packets lost before the app could see them: imissed, ierrors, rx_nombuf,
 * oerrors, and the PMD's own non-zero drop and error xstats), for the
 * stats lines, the final report, --json and telemetry (doc/fwd.md "Port
 * counters").
 *
 * Counts are relative to gpudp_app_port_stats_mark(): a PMD that counted
 * before (a port probed earlier, a restart) is not mistaken for this run's
 * traffic. net_af_packet of DPDK releases before 25.11 does not count the
 * frames the kernel's receive ring had no room for; for those ports the
 * count is read from the PMD's sockets (PACKET_STATISTICS) and reported as
 * imissed.
 */
#ifndef GPUDP_APP_PORT_STATS_H
#define GPUDP_APP_PORT_STATS_H

#include <stdint.h>
#include <stdio.h>

struct gpudp_json;
struct rte_tel_data;

/** Most PMD xstats kept per port (the non-zero drop and error ones). */
#define GPUDP_APP_PORT_XSTATS_MAX 16

/** One port's counters since its mark. */
struct gpudp_app_port_stats {
	uint16_t port;
	char driver[32];          /**< the PMD's name */
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	uint64_t imissed;         /**< dropped by the port: no rx descriptor free */
	uint64_t ierrors;         /**< received with errors, dropped */
	uint64_t oerrors;         /**< failed to send */
	uint64_t rx_nombuf;       /**< dropped: no mbuf to receive into */
	unsigned int n_xstats;    /**< entries of xstats[] */
	struct {
		char name[64];
		uint64_t value;
	} xstats[GPUDP_APP_PORT_XSTATS_MAX]; /**< the PMD's non-zero drop and error
					      *   counters not already above */
};

/**
 * Note the counters of port @p port as they are now: later
 * gpudp_app_port_stats_get() calls count from here. Call it once the port
 * has started, before the app receives.
 * @return 0, or a negative errno from ethdev (-ENODEV: no such port)
 */
int gpudp_app_port_stats_mark(uint16_t port);

/**
 * The counters of port @p port since its mark (since the port's creation
 * if it has none).
 * @param s  filled; zeroed on error
 * @return 0, or a negative errno from ethdev
 */
int gpudp_app_port_stats_get(uint16_t port, struct gpudp_app_port_stats *s);

/**
 * Packets the port received or was sent that it lost before the app saw
 * them, or failed to send: imissed + ierrors + rx_nombuf + oerrors.
 */
uint64_t gpudp_app_port_stats_drops(const struct gpudp_app_port_stats *s);

/**
 * Call @p fn(name, value, @p arg) for each counter of @p s, in report order:
 * rx_pkts, rx_bytes, tx_pkts, tx_bytes, imissed, ierrors, oerrors,
 * rx_nombuf, drops (gpudp_app_port_stats_drops()); then, if @p xstats, each
 * xstat kept, by its own name.
 */
void gpudp_app_port_stats_foreach(const struct gpudp_app_port_stats *s, int xstats,
				  void (*fn)(const char *name, uint64_t value, void *arg),
				  void *arg);

/**
 * Print @p s on one line to @p f, after @p prefix: "port 0 (net_null): rx N
 * pkts N bytes tx N pkts N bytes imissed N ierrors N oerrors N rx_nombuf N"
 * and each xstat kept as " name=N", then a newline.
 */
void gpudp_app_port_stats_print(FILE *f, const char *prefix,
				const struct gpudp_app_port_stats *s);

/**
 * Write @p s as a JSON object (an element of an array: key NULL) with the
 * members port, driver, rx_pkts, rx_bytes, tx_pkts, tx_bytes, imissed,
 * ierrors, oerrors, rx_nombuf, drops (gpudp_app_port_stats_drops()) and
 * xstats (an object of the xstats kept).
 */
void gpudp_app_port_stats_json(struct gpudp_json *j, const struct gpudp_app_port_stats *s);

/**
 * Add @p s's counters to the telemetry dictionary @p d (already started),
 * the same names as the JSON object's, the xstats under their own names.
 */
void gpudp_app_port_stats_tel(struct rte_tel_data *d, const struct gpudp_app_port_stats *s);

/**
 * Start the telemetry dictionary @p d and add, for each of the @p n ports
 * @p ports, a dictionary keyed "portN" with its counters
 * (gpudp_app_port_stats_tel()): the answer of an app's ports command.
 */
void gpudp_app_port_stats_tel_ports(struct rte_tel_data *d, const uint16_t *ports,
				    unsigned int n);

/**
 * The final word on port @p s of the app called @p app: where the port lost
 * packets that the app never saw, or could not send them, a warning on
 * stderr with the counters that say how.
 * @return the packets lost (gpudp_app_port_stats_drops())
 */
uint64_t gpudp_app_port_stats_warn(const char *app, const struct gpudp_app_port_stats *s);

#endif /* GPUDP_APP_PORT_STATS_H */
