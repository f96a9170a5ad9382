/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Checks of received mbufs shared by gpudp's apps (header only: the common
 * library itself has no DPDK dependency).
 */
#ifndef GPUDP_APP_MBUF_H
#define GPUDP_APP_MBUF_H

#include <stdint.h>

#include <rte_mbuf.h>

/**
 * The bytes the segments of a frame hold, walking at most nb_segs of them.
 * A PMD may hand over a chain that does not add up: DPDK 22.11's net_pcap
 * copies a capture record over 65535 bytes modulo 65536 yet sets pkt_len
 * to the whole length.
 *
 * @param m      the first segment
 * @param whole  if not NULL, set to 1 when the chain is exactly nb_segs long
 *               and holds exactly pkt_len bytes, else 0
 * @return the sum of the segments' data_len
 */
static inline uint64_t
gpudp_mbuf_held(const struct rte_mbuf *m, int *whole)
{
	const struct rte_mbuf *s = m;
	uint64_t held = 0;
	unsigned int k;

	for (k = 0; k < m->nb_segs && s != NULL; k++, s = s->next)
		held += s->data_len;
	if (whole != NULL)
		*whole = k == m->nb_segs && s == NULL && held == m->pkt_len;
	return held;
}

#endif /* GPUDP_APP_MBUF_H */
