/* SPDX-License-Identifier: BSD-3-Clause */
/* Port counters as gpudp's apps report them: see gpudp_app_port_stats.h.
 * Their text and JSON forms are in gpudp_app_port_stats_fmt.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include <rte_ethdev.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include <gpudp_dpdk_compat.h>

#include "gpudp_app_port.h"
#include "gpudp_app_port_stats.h"

/* xstats watched per port: candidates by name, their values at the mark */
#define WATCH_MAX 64
/* a port's af_packet sockets (one per queue) */
#define PKT_FDS_MAX 16

/*
 * net_af_packet before DPDK 25.11 does not read the kernel's count of the
 * frames its receive ring had no room for (PACKET_STATISTICS), so its
 * imissed stays 0 whatever was lost. gpudp reads that count from the PMD's
 * sockets itself there; from 25.11 on the PMD reads it (and reading it
 * resets it, so only one of them may).
 */
#define AFP_UNCOUNTED (RTE_VERSION < RTE_VERSION_NUM(25, 11, 0, 0))

struct port_mark {
	int marked;
	struct rte_eth_stats base;
	unsigned int n_watch;
	uint64_t watch_id[WATCH_MAX];
	uint64_t watch_base[WATCH_MAX];
	char watch_name[WATCH_MAX][RTE_ETH_XSTATS_NAME_SIZE];
	/* net_af_packet: the PMD's sockets and the drops they counted */
	rte_spinlock_t afp_lock;
	unsigned int n_afp;
	int afp_fd[PKT_FDS_MAX];
	uint64_t afp_drops;
};

static struct port_mark marks[RTE_MAX_ETHPORTS];

/* a name among the generic ethdev xstats (rte_eth_stats under other names) */
static int
generic_xstat(const char *n)
{
	static const char *const names[] = {
		"rx_good_packets", "tx_good_packets", "rx_good_bytes", "tx_good_bytes",
		"rx_missed_errors", "rx_errors", "tx_errors", "rx_mbuf_allocation_errors",
	};
	unsigned int i, q;
	char rest[RTE_ETH_XSTATS_NAME_SIZE];

	for (i = 0; i < RTE_DIM(names); i++)
		if (strcmp(n, names[i]) == 0)
			return 1;
	/* per-queue copies: rx_q0_packets, rx_q0_errors, tx_q3_bytes, ... */
	if ((sscanf(n, "rx_q%u_%63s", &q, rest) == 2 || sscanf(n, "tx_q%u_%63s", &q, rest) == 2) &&
	    (strcmp(rest, "packets") == 0 || strcmp(rest, "bytes") == 0 ||
	     strcmp(rest, "errors") == 0))
		return 1;
	return 0;
}

/* a PMD xstat that counts packets lost or refused */
static int
drop_xstat(const char *n)
{
	static const char *const words[] = {
		"drop", "miss", "discard", "error", "nombuf", "no_mbuf", "fail", "full",
		"overrun", "trunc",
	};
	char low[RTE_ETH_XSTATS_NAME_SIZE];
	unsigned int i;

	for (i = 0; n[i] != '\0' && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)n[i]);
	low[i] = '\0';
	for (i = 0; i < RTE_DIM(words); i++)
		if (strstr(low, words[i]) != NULL)
			return !generic_xstat(n);
	return 0;
}

/* the drop xstats of @p port and their values now into @p m */
static void
watch_xstats(uint16_t port, struct port_mark *m)
{
	struct rte_eth_xstat_name *names;
	uint64_t *vals;
	int n, i;

	m->n_watch = 0;
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names != NULL && vals != NULL && rte_eth_xstats_get_names(port, names, n) == n &&
	    rte_eth_xstats_get_by_id(port, NULL, vals, n) == n) {
		for (i = 0; i < n && m->n_watch < WATCH_MAX; i++) {
			if (!drop_xstat(names[i].name))
				continue;
			m->watch_id[m->n_watch] = (uint64_t)i;
			m->watch_base[m->n_watch] = vals[i];
			snprintf(m->watch_name[m->n_watch], sizeof(m->watch_name[0]), "%s",
				 names[i].name);
			m->n_watch++;
		}
	}
	free(names);
	free(vals);
}

/* the frames the kernel dropped for socket @p fd since the last read */
static uint64_t
afp_read(int fd)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0)
		return 0;
	return st.tp_drops;
}

/*
 * net_af_packet port @p port (interface @p ifindex): this process's packet
 * sockets bound to that interface, the PMD's, into @p m; their drop counts
 * reset (read), so that @p m counts from now.
 */
static void
afp_find(int ifindex, struct port_mark *m)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	m->n_afp = 0;
	m->afp_drops = 0;
	rte_spinlock_init(&m->afp_lock);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && m->n_afp < PKT_FDS_MAX) {
		struct sockaddr_ll sll;
		socklen_t len = sizeof(int), alen = sizeof(sll);
		int fd, dom = 0;
		char *end;

		fd = (int)strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || fd == dirfd(d) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) != 0 || dom != AF_PACKET ||
		    getsockname(fd, (struct sockaddr *)&sll, &alen) != 0 ||
		    sll.sll_ifindex != ifindex)
			continue;
		afp_read(fd);
		m->afp_fd[m->n_afp++] = fd;
	}
	closedir(d);
}

static int
is_af_packet(const struct rte_eth_dev_info *info)
{
	return info->driver_name != NULL && strcmp(info->driver_name, "net_af_packet") == 0;
}

int
gpudp_app_port_stats_mark(uint16_t port)
{
	struct rte_eth_dev_info info;
	struct port_mark *m;
	int rc;

	if (!rte_eth_dev_is_valid_port(port))
		return -ENODEV;
	m = &marks[port];
	rc = rte_eth_stats_get(port, &m->base);
	if (rc != 0)
		return rc;
	watch_xstats(port, m);
	m->n_afp = 0;
	if (AFP_UNCOUNTED && rte_eth_dev_info_get(port, &info) == 0 && is_af_packet(&info) &&
	    info.if_index != 0)
		afp_find((int)info.if_index, m);
	m->marked = 1;
	return 0;
}

static uint64_t
since(uint64_t now, uint64_t base)
{
	return now >= base ? now - base : 0;
}

/* the xstats watched on @p m that changed since the mark, into @p s */
static void
xstats_since(uint16_t port, const struct port_mark *m, struct gpudp_app_port_stats *s)
{
	uint64_t vals[WATCH_MAX];
	unsigned int i;

	if (m->n_watch == 0 ||
	    rte_eth_xstats_get_by_id(port, m->watch_id, vals, m->n_watch) != (int)m->n_watch)
		return;
	for (i = 0; i < m->n_watch && s->n_xstats < GPUDP_APP_PORT_XSTATS_MAX; i++) {
		uint64_t v = since(vals[i], m->watch_base[i]);

		if (v == 0)
			continue;
		snprintf(s->xstats[s->n_xstats].name, sizeof(s->xstats[0].name), "%s",
			 m->watch_name[i]);
		s->xstats[s->n_xstats++].value = v;
	}
}

int
gpudp_app_port_stats_get(uint16_t port, struct gpudp_app_port_stats *s)
{
	static const struct port_mark none;
	const struct port_mark *m;
	struct port_mark *am;
	struct rte_eth_stats st;
	unsigned int i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->port = port;
	if (!rte_eth_dev_is_valid_port(port))
		return -ENODEV;
	rc = rte_eth_stats_get(port, &st);
	if (rc != 0)
		return rc;
	am = &marks[port];
	m = am->marked ? am : &none;
	snprintf(s->driver, sizeof(s->driver), "%s", gpudp_app_port_driver(port));
	s->rx_pkts = since(st.ipackets, m->base.ipackets);
	s->rx_bytes = since(st.ibytes, m->base.ibytes);
	s->tx_pkts = since(st.opackets, m->base.opackets);
	s->tx_bytes = since(st.obytes, m->base.obytes);
	s->imissed = since(st.imissed, m->base.imissed);
	s->ierrors = since(st.ierrors, m->base.ierrors);
	s->oerrors = since(st.oerrors, m->base.oerrors);
	s->rx_nombuf = since(st.rx_nombuf, m->base.rx_nombuf);
	if (m->n_afp > 0) {
		rte_spinlock_lock(&am->afp_lock);
		for (i = 0; i < am->n_afp; i++)
			am->afp_drops += afp_read(am->afp_fd[i]);
		s->imissed += am->afp_drops;
		rte_spinlock_unlock(&am->afp_lock);
	}
	xstats_since(port, m, s);
	return 0;
}

static void
tel_member(const char *name, uint64_t value, void *arg)
{
	gpudp_tel_dict_u64(arg, name, value);
}

void
gpudp_app_port_stats_tel(struct rte_tel_data *d, const struct gpudp_app_port_stats *s)
{
	rte_tel_data_add_dict_string(d, "driver", s->driver);
	gpudp_app_port_stats_foreach(s, 1, tel_member, d);
}

void
gpudp_app_port_stats_tel_ports(struct rte_tel_data *d, const uint16_t *ports, unsigned int n)
{
	unsigned int i;

	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		struct gpudp_app_port_stats ps;
		char k[16];

		if (c == NULL)
			break;
		gpudp_app_port_stats_get(ports[i], &ps);
		rte_tel_data_start_dict(c);
		gpudp_app_port_stats_tel(c, &ps);
		snprintf(k, sizeof(k), "port%u", ports[i]);
		if (rte_tel_data_add_dict_container(d, k, c, 0) != 0)
			rte_tel_data_free(c);
	}
}
