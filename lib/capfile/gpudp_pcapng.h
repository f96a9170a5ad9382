/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Minimal pcapng writer: one section, one Ethernet interface with
 * nanosecond timestamps, Enhanced Packet Blocks. Used to write the packets a
 * filter matched with their original capture timestamps (DPDK 22.11's
 * rte_pcapng takes TSC cycles, not capture times, and its API changed in
 * 23.11, so gpudp writes the format itself).
 */
#ifndef GPUDP_PCAPNG_H
#define GPUDP_PCAPNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An open pcapng output file. */
struct gpudp_pcapng;

/**
 * Create (truncate) a pcapng file and write its section header and the
 * interface description.
 *
 * @param path     file to create
 * @param appname  written as the section's shb_userappl option (may be NULL)
 * @param ifname   written as the interface's if_name option (may be NULL)
 * @param snaplen  the interface's snap length (0: unlimited)
 * @return the writer, or NULL with errno set (from fopen or fwrite)
 */
struct gpudp_pcapng *gpudp_pcapng_open(const char *path, const char *appname,
				       const char *ifname, uint32_t snaplen);

/**
 * Append one packet (Enhanced Packet Block on interface 0).
 *
 * @param w        the writer
 * @param data     captured bytes
 * @param caplen   number of captured bytes
 * @param wirelen  original length (values below caplen are raised to caplen)
 * @param ts_ns    timestamp, ns since the epoch
 * @return 0, or -EIO (the error is also reported by gpudp_pcapng_close())
 */
int gpudp_pcapng_write(struct gpudp_pcapng *w, const uint8_t *data, uint32_t caplen,
		       uint32_t wirelen, uint64_t ts_ns);

/** Packets written so far. */
uint64_t gpudp_pcapng_count(const struct gpudp_pcapng *w);

/**
 * Flush and close the file and free the writer (NULL is accepted).
 * @return 0, or a negative errno value if any write or the close failed
 */
int gpudp_pcapng_close(struct gpudp_pcapng *w);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_PCAPNG_H */
