/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture analysis work's descriptor (gpudp_analysis_work.h): its CPU
 * form, its GPU image (capture.cu, embedded as gpudp_analysis_image_capture)
 * and the names of its counters, the fields of struct gpudp_an_counters in
 * order.
 */
#include <errno.h>
#include <stddef.h>

#include "gpudp_analysis_images.h"
#include "gpudp_analysis_work.h"

/* struct gpudp_an_counters, field by field */
static const char *const an_counters[] = {
	"pkts", "bytes", "caplen_bytes", "pkts_eth", "pkts_vlan", "pkts_qinq", "pkts_arp",
	"pkts_ipv4", "pkts_ipv6", "pkts_other_l3", "pkts_ipv6_ext", "pkts_frag",
	"pkts_tcp", "pkts_udp", "pkts_icmp", "pkts_icmpv6", "pkts_other_l4", "bytes_eth",
	"bytes_vlan", "bytes_qinq", "bytes_arp", "bytes_ipv4", "bytes_ipv6",
	"bytes_other_l3", "bytes_ipv6_ext", "bytes_frag", "bytes_tcp", "bytes_udp",
	"bytes_icmp", "bytes_icmpv6", "bytes_other_l4", "size_bucket0", "size_bucket1",
	"size_bucket2", "size_bucket3", "size_bucket4", "size_bucket5", "size_bucket6",
	"size_bucket7", "size_bucket8", "size_bucket9", "drop_truncated", "drop_malformed",
	"drop_flow_full", "drop_frag_full", "snapped", "filter_pkts", "filter_bytes",
	"match_bytes", "match_pkts", "match_occ",
};
_Static_assert(sizeof(an_counters) / sizeof(an_counters[0]) == GPUDP_AN_WORK_COUNTERS,
	       "a name for every field of struct gpudp_an_counters");
_Static_assert(GPUDP_AN_WORK_COUNTERS <= GPUDP_WORK_COUNTERS_MAX,
	       "struct gpudp_an_counters fits the work's counters");
_Static_assert(sizeof(struct gpudp_an_work_params) == 64, "parameter block layout");

static const char *const an_reasons[] = { "unmatched" };

GPUDP_WORK_CPU(an_cpu, gpudp_an_work_pkt)

static struct gpudp_work an_work = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = GPUDP_AN_WORK_NAME,
	.summary = "gpudp-capture's analysis: protocols, sizes, flows, fragments, filter",
	.span = 0, .wspan = 0,
	.params_size = sizeof(struct gpudp_an_work_params),
	.n_reasons = 1, .reasons = an_reasons,
	.n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	.cpu = an_cpu,
};

const struct gpudp_work *
gpudp_analysis_work(void)
{
	static int done;
	int rc;

	if (done)
		return &an_work;
	an_work.gpu_image = gpudp_analysis_image_capture.data;
	an_work.gpu_image_size = gpudp_analysis_image_capture.size;
	rc = gpudp_work_register(&an_work, NULL, 0);
	if (rc != 0 && rc != -EEXIST)
		return NULL;
	done = 1;
	return &an_work;
}
