/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture file inspection and reading (classic pcap and pcapng), without
 * DPDK or libpcap. gpudp-capture inspects every rx_pcap= file before EAL
 * starts, so that empty, corrupt, truncated and non-Ethernet files get a
 * clear error (net_pcap would fail the probe without saying why, or deliver
 * a Linux-cooked header as if it were Ethernet), and so that it knows how
 * many packets to expect (net_pcap signals no end of file). The benchmark and
 * tests read packets with capfile_read_all().
 */
#ifndef GPUDP_CAPFILE_H
#define GPUDP_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

/** Capture file formats. */
enum capfile_format {
	CAPFILE_PCAP = 1,   /**< classic pcap, micro- or nanosecond */
	CAPFILE_PCAPNG,     /**< pcapng */
};

/** A record whose captured length is below its original length. */
struct capfile_snap {
	uint64_t index;    /**< 0-based record number */
	uint32_t wirelen;  /**< its original length */
};

/** Most snapped records listed in capfile_info.snaps. */
#define CAPFILE_MAX_SNAPS (1u << 22)

/** What capfile_inspect() found. */
struct capfile_info {
	enum capfile_format format;
	uint32_t linktype;     /**< of the file (pcap) or of the first interface (pcapng) */
	uint32_t snaplen;      /**< 0 if not stated */
	uint64_t packets;      /**< complete packet records */
	uint64_t bytes;        /**< sum of their original lengths */
	uint32_t max_caplen;   /**< largest captured length */
	uint64_t oversize;     /**< records whose captured length exceeds over_len */
	int truncated;         /**< the file ends inside a record (after `packets`) */
	uint64_t trunc_offset; /**< byte offset of that incomplete record */
	int mixed_linktypes;   /**< pcapng with interfaces of different link types */
	struct capfile_snap *snaps; /**< records with caplen < wirelen, in order (malloc) */
	size_t n_snaps;
	int snaps_overflow;    /**< more than CAPFILE_MAX_SNAPS such records (list cut) */
};

/** Free what capfile_inspect() allocated in info (the snaps list). */
void capfile_info_free(struct capfile_info *info);

/** LINKTYPE_ETHERNET */
#define CAPFILE_LINKTYPE_ETHERNET 1

/**
 * Inspect a capture file: header, link type, and a walk over every record.
 *
 * @param path     the file
 * @param over_len records with caplen above this are counted in info->oversize
 * @param info     filled
 * @param err      on failure, a message naming the file and the problem
 * @param errlen   size of err
 * @return 0 (a truncated final record is not a failure: see info->truncated);
 *         -ENOENT/-EACCES/... (cannot open), -ENODATA (empty file),
 *         -EINVAL (not pcap or pcapng, or a corrupt header or record)
 */
int capfile_inspect(const char *path, uint32_t over_len, struct capfile_info *info,
		    char *err, size_t errlen);

/** Name of a link type ("EN10MB", "LINUX_SLL", ...) or "unknown". */
const char *capfile_linktype_name(uint32_t linktype);

/** One packet read by capfile_read_all(). */
struct capfile_pkt {
	uint64_t ts_ns;
	uint32_t caplen;
	uint32_t wirelen;
	const uint8_t *data;  /**< points into capfile_packets.buf */
};

/** All packets of a file in memory. */
struct capfile_packets {
	struct capfile_pkt *pkt;
	size_t n;
	uint8_t *buf;
	uint64_t data_bytes; /**< sum of caplen */
};

/**
 * Read every complete packet of an Ethernet capture file into memory.
 * @return 0, or a negative errno value with err filled (see capfile_inspect;
 *         a non-Ethernet link type gives -EPROTONOSUPPORT)
 */
int capfile_read_all(const char *path, struct capfile_packets *out, char *err, size_t errlen);

/** Free what capfile_read_all() allocated. */
void capfile_packets_free(struct capfile_packets *p);

#endif /* GPUDP_CAPFILE_H */
