/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd: a port's needs against --data-room (fwd_room.h). No DPDK
 * calls: it reads the port's description only, so a unit test gives it
 * made-up ones. */
#include <errno.h>
#include <stdio.h>

#include <rte_ethdev.h>

#include "fwd_room.h"

int
fwd_room_check(const struct rte_eth_dev_info *info, uint16_t port, uint16_t mtu,
	       uint32_t data_room, uint32_t *frame, char *err, size_t len)
{
	const char *drv = info->driver_name != NULL ? info->driver_name : "?";
	uint32_t f = 0, overhead;

	if (info->min_rx_bufsize > data_room) {
		snprintf(err, len, "--data-room: bad value '%u' (port %u (%s) needs mbufs of "
			 "at least %u bytes of data, its min_rx_bufsize)", data_room, port, drv,
			 info->min_rx_bufsize);
		return -EINVAL;
	}
	if (info->max_mtu != UINT16_MAX) {
		overhead = info->max_rx_pktlen > info->max_mtu ?
			info->max_rx_pktlen - info->max_mtu : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
		f = (uint32_t)mtu + overhead;
		if (f > info->max_rx_pktlen)
			f = info->max_rx_pktlen;
	} else if (info->max_rx_pktlen != UINT32_MAX) {
		f = info->max_rx_pktlen;
	}
	*frame = f;
	if (f <= data_room)
		return FWD_ROOM_FITS;
	if ((info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) != 0)
		return FWD_ROOM_SCATTER;
	if (info->max_mtu != UINT16_MAX) {
		snprintf(err, len, "--data-room: bad value '%u' (port %u (%s) receives frames "
			 "of up to %u bytes at its MTU %u and cannot chain them over several "
			 "mbufs (no SCATTER rx offload): at least %u)", data_room, port, drv, f,
			 mtu, f);
		return -EINVAL;
	}
	return FWD_ROOM_FITS;
}
