/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's flow monitor options (doc/flows.md): where records go
 * (--flow-log, --ipfix, --ipfix-file), the IPFIX observation domain, the
 * timeouts, biflow records; and their checks against the other options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <gpudp_ipfix.h>
#include <gpudp_opt.h>

#include "options.h"

#define PROG "gpudp-capture"

void
cap_flow_usage(FILE *f)
{
	fprintf(f,
"Flow monitor (doc/flows.md; on with any of the first three; either engine,\n"
"one reader thread):\n"
"  --flow-log FILE     each ended flow's record as a line of JSON (NDJSON) to FILE,\n"
"                      or - for stdout (the report table then on stderr)\n"
"                      (default: none)\n"
"  --ipfix COLLECTOR   [udp:|tcp:]HOST:PORT: IPFIX (RFC 7011) to a collector such\n"
"                      as nfcapd or nfacctd; repeatable, up to 8 (default: none)\n"
"  --ipfix-file PATH   IPFIX messages to PATH (default: none)\n"
"  --observation-domain N\n"
"                      the IPFIX observation domain id, 0..4294967295 (default: 0)\n"
"  --ipfix-mtu BYTES   the path MTU to IPFIX collectors over UDP: messages fit it,\n"
"                      304..9216 (default: 1500)\n"
"  --idle-timeout SEC  a flow with no packet for SEC s ends, 1..86400 (default: 15)\n"
"  --active-timeout SEC\n"
"                      a flow is exported every SEC s it lasts, 1..604800\n"
"                      (default: 1800)\n"
"  --biflow            one record per flow, both directions (RFC 5103)\n"
"                      (default: one per direction)\n");
}

static int
ipfix_arg(struct cap_conf *c, const char *v)
{
	struct gpudp_ipfix_target t;
	char err[256];

	if (c->n_ipfix == CAP_MAX_IPFIX)
		return gpudp_opt_bad(PROG, "ipfix", v, "more than 8 collectors");
	if (gpudp_ipfix_target_parse(v, &t, err, sizeof(err)) != 0)
		return gpudp_opt_bad(PROG, "ipfix", v, err);
	c->ipfix[c->n_ipfix++] = v;
	return 0;
}

int
cap_flow_option(struct cap_conf *c, int o, const char *v)
{
	uint64_t x;

	switch (o) {
	case CAP_FLOW_OPT_LOG:
		c->flow_log = v;
		return 0;
	case CAP_FLOW_OPT_IPFIX:
		return ipfix_arg(c, v);
	case CAP_FLOW_OPT_IPFIX_FILE:
		c->ipfix_file = v;
		return 0;
	case CAP_FLOW_OPT_DOMAIN:
		if (gpudp_opt_u64(PROG, "observation-domain", v, 0, UINT32_MAX, &x) != 0)
			return -1;
		c->obs_domain = (uint32_t)x;
		return 0;
	case CAP_FLOW_OPT_IDLE:
		return gpudp_opt_u64(PROG, "idle-timeout", v, 1, 86400, &c->idle_timeout_s);
	case CAP_FLOW_OPT_ACTIVE:
		return gpudp_opt_u64(PROG, "active-timeout", v, 1, 604800, &c->active_timeout_s);
	case CAP_FLOW_OPT_BIFLOW:
		c->biflow = 1;
		return 0;
	case CAP_FLOW_OPT_MTU:
		if (gpudp_opt_u64(PROG, "ipfix-mtu", v, GPUDP_IPFIX_MSG_MIN + 48, 9216, &x) != 0)
			return -1;
		c->ipfix_mtu = (uint32_t)x;
		return 0;
	default:
		return 1;
	}
}

int
cap_flow_check(struct cap_conf *c)
{
	if (!cap_conf_flows_on(c))
		return 0;
	if (c->batch_pkts > c->flows / 2) {
		fprintf(stderr, "gpudp-capture: --flows: bad value '%u' (the flow monitor "
			"needs at least twice --batch (%u) slots)\n", c->flows, c->batch_pkts);
		return -1;
	}
	if (c->threads > 1) {
		fprintf(stderr, "gpudp-capture: --threads: bad value '%u' (the flow monitor "
			"reads with one thread: a flow's packets are in every thread's share)\n",
			c->threads);
		return -1;
	}
	if (c->verify) {
		fprintf(stderr, "gpudp-capture: --verify: bad value 'on' (it compares whole "
			"analyses; the flow monitor ends flows as it goes)\n");
		return -1;
	}
	return 0;
}
