/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd: whether a port takes mbufs of --data-room bytes (fwd_room.c). */
#ifndef GPUDP_FWD_ROOM_H
#define GPUDP_FWD_ROOM_H

#include <stddef.h>
#include <stdint.h>

struct rte_eth_dev_info;

/** fwd_room_check(): frames fit one mbuf */
#define FWD_ROOM_FITS 0
/** fwd_room_check(): longer frames come; the port chains them with the
 *  SCATTER rx offload, which gpudp-fwd then asks for */
#define FWD_ROOM_SCATTER 1

/**
 * What port @p port's description (@p info, from rte_eth_dev_info_get(),
 * and its MTU @p mtu) says about mbufs holding @p data_room bytes of data:
 * - fewer bytes than its min_rx_bufsize: refused (ethdev would refuse its
 *   rx queue);
 * - the longest frame it receives (@p *frame: its MTU plus its L2 overhead
 *   for a port that states an MTU limit, else its max_rx_pktlen where it
 *   states one) longer than @p data_room: with the SCATTER rx offload
 *   FWD_ROOM_SCATTER; without it, refused for a port that states an MTU
 *   limit (it cannot take such frames), else FWD_ROOM_FITS (net_memif
 *   chains without the offload; net_af_packet refuses its rx queue, and
 *   gpudp-fwd then says why);
 * - a port that states no limit (net_null, net_ring, net_pcap): FWD_ROOM_FITS,
 *   @p *frame 0.
 * @return FWD_ROOM_FITS, FWD_ROOM_SCATTER, or -EINVAL with the reason in
 *   @p err, naming --data-room and its value, the port and its driver
 */
int fwd_room_check(const struct rte_eth_dev_info *info, uint16_t port, uint16_t mtu,
		   uint32_t data_room, uint32_t *frame, char *err, size_t len);

#endif /* GPUDP_FWD_ROOM_H */
