/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the pcapng writers (gpudp_pcapng.c, gpudp_pcapng_ring.c): the
 * blocks they write, encoded in memory, so that both write the same bytes.
 * Not installed.
 */
#ifndef GPUDP_PCAPNG_PVT_H
#define GPUDP_PCAPNG_PVT_H

#include <stddef.h>
#include <stdint.h>

/* The longest option value written (shb_userappl, if_name); longer ones are left out. */
#define PCAPNG_OPT_MAX 256u
/* The longest section header plus interface description: with both options
 * (the fixed parts, shb_userappl and opt_endofopt; if_name, if_tsresol and
 * opt_endofopt). */
#define PCAPNG_HEAD_MAX ((28u + 4u + PCAPNG_OPT_MAX + 4u) + (20u + 4u + PCAPNG_OPT_MAX + 8u + 4u))
/* An Enhanced Packet Block's fixed part before the data, and after it (its length). */
#define PCAPNG_EPB_HDR 28u
#define PCAPNG_EPB_TRAILER 4u

/* The length of an Enhanced Packet Block of @p caplen bytes of data (padded to 4). */
static inline uint64_t
pcapng_epb_len(uint32_t caplen)
{
	return PCAPNG_EPB_HDR + (((uint64_t)caplen + 3) & ~(uint64_t)3) + PCAPNG_EPB_TRAILER;
}

/*
 * The section header block (shb_userappl @p appname) and the interface
 * description block (Ethernet, @p snaplen, if_name @p ifname, if_tsresol
 * 9), native byte order, into @p buf (PCAPNG_HEAD_MAX bytes). A name
 * longer than PCAPNG_OPT_MAX bytes, or NULL, is left out.
 * @return the bytes written
 */
size_t pcapng_head_encode(uint8_t *buf, const char *appname, const char *ifname,
			  uint32_t snaplen);

/*
 * An Enhanced Packet Block's first PCAPNG_EPB_HDR bytes into @p hdr: type,
 * length, interface 0, the timestamp in ns, @p caplen, @p wirelen (raised
 * to @p caplen if below). The data follows, padded with zeros to 4 bytes,
 * then the length again (pcapng_epb_tail()). @p caplen must leave the
 * block length within 32 bits.
 */
void pcapng_epb_encode(uint8_t *hdr, uint32_t caplen, uint32_t wirelen, uint64_t ts_ns);

/*
 * What follows the data of an Enhanced Packet Block of @p caplen bytes:
 * its padding and trailing length, into @p tail (7 bytes at most).
 * @return the bytes written
 */
size_t pcapng_epb_tail(uint8_t *tail, uint32_t caplen);

#endif /* GPUDP_PCAPNG_PVT_H */
