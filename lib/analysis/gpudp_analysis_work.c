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

/* the analysis reads its span (the headers) without payload inspection,
 * whole frames with it */
static struct gpudp_work an_works[2] = {
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	  .name = GPUDP_AN_WORK_NAME,
	  .summary = "gpudp-capture's analysis: protocols, sizes, flows, fragments, filter",
	  .span = GPUDP_AN_SPAN, .wspan = 0,
	  .params_size = sizeof(struct gpudp_an_work_params),
	  .n_reasons = 1, .reasons = an_reasons,
	  .n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	  .cpu = an_cpu },
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	  .name = GPUDP_AN_WORK_PAYLOAD_NAME,
	  .summary = "gpudp-capture's analysis with payload inspection (whole frames)",
	  .span = 0, .wspan = 0,
	  .params_size = sizeof(struct gpudp_an_work_params),
	  .n_reasons = 1, .reasons = an_reasons,
	  .n_counters = GPUDP_AN_WORK_COUNTERS, .counters = an_counters,
	  .cpu = an_cpu },
};

/* descriptor @p i, its image set and registered on its first call */
static const struct gpudp_work *
an_work(uint32_t i)
{
	static int done[2];
	struct gpudp_work *w = &an_works[i];
	int rc;

	if (done[i])
		return w;
	w->gpu_image = gpudp_analysis_image_capture.data;
	w->gpu_image_size = gpudp_analysis_image_capture.size;
	rc = gpudp_work_register(w, NULL, 0);
	if (rc != 0 && rc != -EEXIST)
		return NULL;
	done[i] = 1;
	return w;
}

const struct gpudp_work *
gpudp_analysis_work(void)
{
	return an_work(0);
}

const struct gpudp_work *
gpudp_analysis_work_payload(void)
{
	return an_work(1);
}
