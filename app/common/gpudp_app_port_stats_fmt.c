/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port counters in text and JSON (gpudp_app_port_stats.h), without DPDK:
 * gpudp-capture's report, which needs no EAL, writes them too.
 */
#include <inttypes.h>

#include "gpudp_app_port_stats.h"
#include "gpudp_json.h"

uint64_t
gpudp_app_port_stats_drops(const struct gpudp_app_port_stats *s)
{
	return s->imissed + s->ierrors + s->rx_nombuf + s->oerrors;
}

void
gpudp_app_port_stats_print(FILE *f, const char *prefix, const struct gpudp_app_port_stats *s)
{
	unsigned int i;

	fprintf(f, "%sport %u (%s): rx %" PRIu64 " pkts %" PRIu64 " bytes tx %" PRIu64 " pkts %"
		PRIu64 " bytes imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
		" rx_nombuf %" PRIu64, prefix, s->port, s->driver, s->rx_pkts, s->rx_bytes,
		s->tx_pkts, s->tx_bytes, s->imissed, s->ierrors, s->oerrors, s->rx_nombuf);
	for (i = 0; i < s->n_xstats; i++)
		fprintf(f, " %s=%" PRIu64, s->xstats[i].name, s->xstats[i].value);
	fputc('\n', f);
}

void
gpudp_app_port_stats_foreach(const struct gpudp_app_port_stats *s, int xstats,
			     void (*fn)(const char *name, uint64_t value, void *arg), void *arg)
{
	const struct {
		const char *name;
		uint64_t value;
	} c[] = {
		{ "rx_pkts", s->rx_pkts }, { "rx_bytes", s->rx_bytes },
		{ "tx_pkts", s->tx_pkts }, { "tx_bytes", s->tx_bytes },
		{ "imissed", s->imissed }, { "ierrors", s->ierrors },
		{ "oerrors", s->oerrors }, { "rx_nombuf", s->rx_nombuf },
		{ "drops", gpudp_app_port_stats_drops(s) },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		fn(c[i].name, c[i].value, arg);
	for (i = 0; xstats && i < s->n_xstats; i++)
		fn(s->xstats[i].name, s->xstats[i].value, arg);
}

static void
json_member(const char *name, uint64_t value, void *arg)
{
	gpudp_json_u64(arg, name, value);
}

void
gpudp_app_port_stats_json(struct gpudp_json *j, const struct gpudp_app_port_stats *s)
{
	unsigned int i;

	gpudp_json_obj(j, NULL);
	gpudp_json_u64(j, "port", s->port);
	gpudp_json_str(j, "driver", s->driver);
	gpudp_app_port_stats_foreach(s, 0, json_member, j);
	gpudp_json_obj(j, "xstats");
	for (i = 0; i < s->n_xstats; i++)
		gpudp_json_u64(j, s->xstats[i].name, s->xstats[i].value);
	gpudp_json_end(j);
	gpudp_json_end(j);
}

uint64_t
gpudp_app_port_stats_warn(const char *app, const struct gpudp_app_port_stats *s)
{
	uint64_t lost = gpudp_app_port_stats_drops(s);
	unsigned int i;

	if (lost == 0 && s->n_xstats == 0)
		return 0;
	fprintf(stderr, "%s: WARNING: port %u (%s) lost %" PRIu64 " packets that %s never "
		"saw or could not send: imissed %" PRIu64 " (no room to receive) ierrors %"
		PRIu64 " rx_nombuf %" PRIu64 " (no mbuf) oerrors %" PRIu64, app, s->port,
		s->driver, lost, app, s->imissed, s->ierrors, s->rx_nombuf, s->oerrors);
	for (i = 0; i < s->n_xstats; i++)
		fprintf(stderr, " %s=%" PRIu64, s->xstats[i].name, s->xstats[i].value);
	fputc('\n', stderr);
	return lost;
}
