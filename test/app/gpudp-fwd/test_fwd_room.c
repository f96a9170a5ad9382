/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit: gpudp-fwd's check of each port against --data-room
 * (app/gpudp-fwd/fwd_room.c) on made-up port descriptions: the ones of
 * net_null, net_pcap, net_af_packet, net_memif and net_tap as DPDK 22.11
 * fills them, and NIC-like ones with and without the SCATTER rx offload
 * and with a min_rx_bufsize. Each refusal names --data-room, its value,
 * the port and its driver, and what would do.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "fwd_room.h"
#include "gpudp_test.h"

/* a description as rte_eth_dev_info_get() leaves it before the PMD fills it */
static struct rte_eth_dev_info
desc(const char *drv, uint32_t max_rx_pktlen, uint16_t max_mtu, uint32_t min_bufsize,
     uint64_t rx_capa)
{
	struct rte_eth_dev_info info;

	memset(&info, 0, sizeof(info));
	info.driver_name = drv;
	info.max_rx_pktlen = max_rx_pktlen;
	info.max_mtu = max_mtu;
	info.min_rx_bufsize = min_bufsize;
	info.rx_offload_capa = rx_capa;
	return info;
}

static int
ports_without_limits_take_any_room(void)
{
	const char *drv[] = { "net_null", "net_pcap", "net_ring" };
	char err[256] = "";
	uint32_t frame = 1;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct rte_eth_dev_info d = desc(drv[i], UINT32_MAX, UINT16_MAX, 0,
						 i == 2 ? RTE_ETH_RX_OFFLOAD_SCATTER : 0);

		GPUDP_TEST_ASSERT(fwd_room_check(&d, 0, 1500, 256, &frame, err, sizeof(err)) ==
				  FWD_ROOM_FITS && frame == 0, "%s: %s, frame %u", drv[i], err, frame);
	}
	return GPUDP_TEST_PASS;
}

static int
default_room_fits_the_software_pmds(void)
{
	/* max_rx_pktlen as net_af_packet, net_memif (1518) and net_tap (1522)
	 * state it; none states an MTU limit */
	struct rte_eth_dev_info afp = desc("net_af_packet", RTE_ETHER_MAX_LEN, UINT16_MAX, 0, 0);
	struct rte_eth_dev_info tap = desc("net_tap", RTE_ETHER_MAX_VLAN_FRAME_LEN, UINT16_MAX, 0,
					   RTE_ETH_RX_OFFLOAD_SCATTER);
	char err[256] = "";
	uint32_t frame = 0;

	GPUDP_TEST_ASSERT(fwd_room_check(&afp, 0, 1500, 2048, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS && frame == 1518, "af_packet: %s, frame %u", err, frame);
	GPUDP_TEST_ASSERT(fwd_room_check(&tap, 1, 1500, 2048, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS && frame == 1522, "tap: %s, frame %u", err, frame);
	return GPUDP_TEST_PASS;
}

static int
longer_frames_ask_for_scatter_where_the_port_has_it(void)
{
	struct rte_eth_dev_info tap = desc("net_tap", RTE_ETHER_MAX_VLAN_FRAME_LEN, UINT16_MAX, 0,
					   RTE_ETH_RX_OFFLOAD_SCATTER);
	/* a NIC: 9600-byte frames, MTU limit 9582 (18 bytes of overhead) */
	struct rte_eth_dev_info nic = desc("net_nic", 9600, 9582, 256,
					   RTE_ETH_RX_OFFLOAD_SCATTER);
	char err[256] = "";
	uint32_t frame = 0;

	GPUDP_TEST_ASSERT(fwd_room_check(&tap, 0, 1500, 256, &frame, err, sizeof(err)) ==
			  FWD_ROOM_SCATTER && frame == 1522, "tap: %s, frame %u", err, frame);
	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 0, 9000, 2048, &frame, err, sizeof(err)) ==
			  FWD_ROOM_SCATTER && frame == 9018, "nic 9000: %s, frame %u", err, frame);
	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 0, 1500, 2048, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS && frame == 1518, "nic 1500: %s, frame %u", err, frame);
	return GPUDP_TEST_PASS;
}

static int
memif_chains_without_the_offload(void)
{
	/* net_memif states neither an MTU limit nor SCATTER, and chains */
	struct rte_eth_dev_info memif = desc("net_memif", RTE_ETHER_MAX_LEN, UINT16_MAX, 0, 0);
	char err[256] = "";
	uint32_t frame = 0;

	GPUDP_TEST_ASSERT(fwd_room_check(&memif, 0, 1500, 256, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS && frame == 1518, "memif: %s, frame %u", err, frame);
	return GPUDP_TEST_PASS;
}

static int
port_that_cannot_chain_is_refused(void)
{
	struct rte_eth_dev_info nic = desc("net_nochain", 9018, 9000, 0, 0);
	const char *want = "--data-room: bad value '2048' (port 3 (net_nochain) receives frames "
		"of up to 9018 bytes at its MTU 9000 and cannot chain them over several mbufs "
		"(no SCATTER rx offload): at least 9018)";
	char err[256] = "";
	uint32_t frame = 0;

	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 3, 9000, 2048, &frame, err, sizeof(err)) ==
			  -EINVAL && strcmp(err, want) == 0, "got '%s'", err);
	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 3, 9000, 9018, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS, "9018 refused: %s", err);
	/* its overhead is its own: max_rx_pktlen - max_mtu */
	nic = desc("net_nochain", 9022, 9000, 0, 0);
	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 3, 1500, 1500, &frame, err, sizeof(err)) ==
			  -EINVAL && frame == 1522 && strstr(err, "at least 1522") != NULL,
			  "overhead 22: '%s', frame %u", err, frame);
	return GPUDP_TEST_PASS;
}

static int
min_rx_bufsize_is_a_lower_bound(void)
{
	struct rte_eth_dev_info nic = desc("net_bigbuf", 9600, 9582, 4096,
					   RTE_ETH_RX_OFFLOAD_SCATTER);
	const char *want = "--data-room: bad value '2048' (port 1 (net_bigbuf) needs mbufs of at "
		"least 4096 bytes of data, its min_rx_bufsize)";
	char err[256] = "";
	uint32_t frame = 0;

	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 1, 1500, 2048, &frame, err, sizeof(err)) ==
			  -EINVAL && strcmp(err, want) == 0, "got '%s'", err);
	GPUDP_TEST_ASSERT(fwd_room_check(&nic, 1, 1500, 4096, &frame, err, sizeof(err)) ==
			  FWD_ROOM_FITS, "4096 refused: %s", err);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "ports_without_limits_take_any_room", ports_without_limits_take_any_room },
	{ "default_room_fits_the_software_pmds", default_room_fits_the_software_pmds },
	{ "longer_frames_ask_for_scatter_where_the_port_has_it",
	  longer_frames_ask_for_scatter_where_the_port_has_it },
	{ "memif_chains_without_the_offload", memif_chains_without_the_offload },
	{ "port_that_cannot_chain_is_refused", port_that_cannot_chain_is_refused },
	{ "min_rx_bufsize_is_a_lower_bound", min_rx_bufsize_is_a_lower_bound },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("fwd_room", cases, argc, argv);
}
