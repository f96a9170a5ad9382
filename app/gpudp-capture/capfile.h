/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture file reading (classic pcap and pcapng), without DPDK or libpcap.
 *
 * The reader walks a file record by record (capfile_open(), capfile_next()),
 * honouring the byte order of each pcapng section and the link type, snap
 * length, timestamp resolution and offset of each interface. It gives the
 * records libpcap would give, or refuses the file with the reason: every
 * length is checked in 64-bit arithmetic against what is left of its block
 * and of the file before anything is read or allocated.
 *
 * gpudp-capture inspects every rx_pcap= file with capfile_inspect() before
 * EAL starts, so that empty, corrupt, truncated and non-Ethernet files get a
 * clear error (net_pcap would fail the probe without saying why, or deliver
 * a Linux-cooked header as if it were Ethernet), so that files which libpcap
 * 1.10 (net_pcap's reader) would read differently are refused with the
 * reason, and so that it knows how many packets to expect (net_pcap signals
 * no end of file). The benchmark and tests read packets with
 * capfile_read_all().
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

/** LINKTYPE_ETHERNET */
#define CAPFILE_LINKTYPE_ETHERNET 1
/** capfile_info.linktype of a pcapng file without an interface */
#define CAPFILE_LINKTYPE_NONE UINT32_MAX
/** Largest record of most link types (Ethernet among them), as libpcap's. */
#define CAPFILE_MAX_SNAPLEN 262144u

/* ------------------------------------------------------------- the reader */

/** A capture file being read (opaque). */
struct capfile;

/** capfile_open() flag: do not read record data (rec.data may be NULL). */
#define CAPFILE_SKIP_DATA 1u
/**
 * capfile_open() flag: map the file into memory instead of reading it
 * through stdio; a pcap record's data then points into the mapping (no
 * copy). A file that shrinks while it is open makes reads of the mapping
 * past its new end fault (SIGBUS): for capture files at rest, as
 * gpudp-capture's direct reader, which catches that fault (cap_file.c).
 */
#define CAPFILE_MMAP 2u

/** One record, as capfile_next() returns it. */
struct capfile_rec {
	uint64_t index;       /**< 0-based record number in the file */
	uint64_t offset;      /**< file offset of its record header (pcap) or block (pcapng) */
	uint64_t ts_sec;      /**< capture time: seconds (interface offset applied) */
	uint32_t ts_nsec;     /**< and nanoseconds, below 10^9 */
	uint32_t caplen;      /**< bytes captured; pcap: cut to the file's snap length as
			       *   libpcap does */
	uint32_t wirelen;     /**< original length as written (may be below caplen) */
	uint32_t linktype;    /**< of the record's interface (pcap: of the file) */
	uint32_t section;     /**< 0-based pcapng section (0 for pcap) */
	uint32_t ifid;        /**< interface number in its section (0 for pcap) */
	const uint8_t *data;  /**< caplen bytes, valid until the next call; NULL with
			       *   CAPFILE_SKIP_DATA on pcap */
};

/**
 * Open a capture file and read its file header (pcap) or first section
 * header (pcapng).
 *
 * @param path   a regular file
 * @param flags  0 or CAPFILE_SKIP_DATA
 * @param cf     set to the reader on success
 * @param err    on failure, a message naming the file and the problem
 * @param errlen size of err
 * @return 0; -ENOENT/-EACCES/... (cannot open), -EISDIR (a directory),
 *         -EINVAL (not a regular file, not pcap or pcapng, corrupt or
 *         unsupported header), -ENODATA (empty file), -ENOMEM
 */
int capfile_open(const char *path, unsigned int flags, struct capfile **cf,
		 char *err, size_t errlen);

/**
 * Read the next record.
 *
 * A file that ends inside a record or block is not an error: the records
 * before it are returned, then 0, and capfile_describe() reports it as
 * truncated. Blocks that carry no packet (pcapng section headers, interface
 * descriptions, statistics, ...) are read and checked on the way.
 *
 * @param cf  the reader
 * @param rec filled when 1 is returned
 * @return 1 (a record), 0 (end of the file), or a negative errno value:
 *         -EINVAL (a corrupt or unsupported record or block: capfile_error()
 *         says which, where and why), -EIO, -ENOMEM. After an error every
 *         call returns the same error.
 */
int capfile_next(struct capfile *cf, struct capfile_rec *rec);

/**
 * Pcap files: go back or forward to a record header, so that the next
 * capfile_next() reads the record at @p offset (a capfile_rec.offset this
 * file gave) as record number @p index. Lets several readers of one file
 * share its records (gpudp-capture's direct reader).
 * @return 0; -ENOTSUP for pcapng (a record's meaning depends on the blocks
 *   before it); -EINVAL for an offset outside the file; the reader's error
 */
int capfile_seek(struct capfile *cf, uint64_t offset, uint64_t index);

/**
 * Mapped pcap files (CAPFILE_MMAP): step over up to @p n records by their
 * lengths alone, without returning them (a fast walk). It stops before a
 * record that capfile_next() would refuse or find cut short, so that the
 * next capfile_next() reports it.
 * @return the records stepped over (0 for pcapng or a file not mapped)
 */
uint64_t capfile_skip(struct capfile *cf, uint64_t n);

/** A record of capfile_next_many(): what capfile_next() gives of it. */
struct capfile_mrec {
	const uint8_t *data;  /**< its bytes, in the mapping */
	uint64_t index;       /**< 0-based record number in the file */
	uint64_t offset;      /**< file offset of its record header */
	uint64_t ts_ns;       /**< capture time, ns (ts_sec * 10^9 + ts_nsec) */
	uint32_t caplen;      /**< as capfile_next()'s (cut to the snap length) */
	uint32_t wirelen;
};

/**
 * Mapped pcap files of Ethernet frames (CAPFILE_MMAP): up to @p n of the
 * next records at once, each as capfile_next() would return it, without
 * its per-record checks on the way (a fast read). It stops before a record
 * whose header starts at or past @p end, and before one that capfile_next()
 * would refuse, find cut short or report as the end, so that the next
 * capfile_next() reports it.
 * @return the records read into @p r (0 for pcapng, a file not mapped or
 *   opened with CAPFILE_SKIP_DATA, another link type, or where
 *   capfile_next() must be called)
 */
uint32_t capfile_next_many(struct capfile *cf, struct capfile_mrec *r, uint32_t n, uint64_t end);

/**
 * Pcap files of Ethernet frames: the records among @p len bytes of the file
 * read elsewhere (into @p buf, from file offset @p base), as
 * capfile_next_many() reads them from the mapping: up to @p n, before file
 * offset @p end, stopping before a record that capfile_next() would refuse
 * or that runs past the @p len bytes. The reader's position does not move.
 * @param index  the record number of the first
 * @param used   set to the bytes the records take (their headers included)
 * @return the records read into @p r (0 for pcapng or another link type)
 */
uint32_t capfile_parse_many(const struct capfile *cf, const uint8_t *buf, uint64_t base,
			    uint64_t len, uint64_t end, uint64_t index, struct capfile_mrec *r,
			    uint32_t n, uint64_t *used);

/** A record of capfile_parse_descs(): where its bytes are, and their description. */
struct capfile_desc {
	uint32_t off;      /**< its first byte: @p off0 + where it lies in the buffer */
	uint32_t caplen;   /**< as capfile_next()'s (cut to the snap length) */
	uint32_t wirelen;  /**< as capfile_next()'s */
	uint32_t pad;      /**< 0 */
	uint64_t ts_ns;    /**< capture time, ns */
};

/**
 * capfile_parse_many() in the form of a batch's descriptors: the same
 * records, each described by where its bytes are in @p buf (plus @p off0)
 * rather than by a pointer, its lengths and its time (no record numbers
 * nor file offsets: a reader that stages bytes in bulk needs no more).
 * @param off0   added to each record's offset in @p buf
 * @param used   set to the bytes the records take (their headers included)
 * @param bytes  set to the sum of their caplen
 * @return the records described in @p d (0 for pcapng or another link type)
 */
uint32_t capfile_parse_descs(const struct capfile *cf, const uint8_t *buf, uint64_t base,
			     uint64_t len, uint64_t end, uint32_t off0, struct capfile_desc *d,
			     uint32_t n, uint64_t *used, uint64_t *bytes);

/** The 0-based number of the record capfile_next() reads next. */
uint64_t capfile_index(const struct capfile *cf);

/**
 * Mapped pcap files: the first offset in [@p from, @p to) where a record
 * header plausibly starts: it and the records after it (up to 8, or to the
 * end of the file) have lengths capfile_next() accepts, captured lengths
 * no larger than the original ones, sub-second timestamp parts below one
 * second and seconds within a day of the first.
 * A guess, for splitting a file by byte ranges: whoever uses it must check
 * that the ranges join (the record walk of one range ends where the next
 * range's guess starts).
 * @return 0 and @p off set, or -ENOENT (none in the range), -ENOTSUP
 *   (pcapng, or a file not mapped)
 */
int capfile_find_record(const struct capfile *cf, uint64_t from, uint64_t to, uint64_t *off);

/** Offset of the next record (pcap) or block (pcapng). */
uint64_t capfile_tell(const struct capfile *cf);

/** The file's size when capfile_open() opened it: the reader reads no byte past it. */
uint64_t capfile_size(const struct capfile *cf);

/**
 * The open file's size now (fstat() of the file the reader opened): another
 * than capfile_size() when the file grew or shrank since it was opened.
 * @return 0, or a negative errno value
 */
int capfile_size_now(const struct capfile *cf, uint64_t *size);

/**
 * Whether the reader found the file ending inside a record or block
 * (capfile_next() returned 0 there).
 * @param offset  set to where that record or block starts (when 1)
 * @return 1 or 0
 */
int capfile_truncated(const struct capfile *cf, uint64_t *offset);

/** The file's format (CAPFILE_PCAP or CAPFILE_PCAPNG). */
enum capfile_format capfile_format_of(const struct capfile *cf);

/**
 * CAPFILE_MMAP: the file's mapping (a pcap record's data points into it),
 * else NULL.
 */
const uint8_t *capfile_map(const struct capfile *cf);

/** The message of the last error ("PATH: what, where"), or "". */
const char *capfile_error(const struct capfile *cf);

/** Close a reader (NULL is accepted). */
void capfile_close(struct capfile *cf);

/* ----------------------------------------------------------- inspection */

/**
 * A record whose original length is not its captured length: snapped (above
 * it), or a bogus record (below it, which libpcap and tshark keep as written).
 */
struct capfile_snap {
	uint64_t index;    /**< 0-based record number */
	uint32_t wirelen;  /**< its original length */
};

/** Most snapped records listed in capfile_info.snaps. */
#define CAPFILE_MAX_SNAPS (1u << 22)

/** What capfile_inspect() found (capfile_describe() fills the file part). */
struct capfile_info {
	enum capfile_format format;
	uint32_t linktype;     /**< of the file (pcap) or of the first interface (pcapng);
				*   CAPFILE_LINKTYPE_NONE when there is none */
	uint32_t snaplen;      /**< of the file (pcap) or of the first interface, as
				*   libpcap uses it (0 and > INT_MAX: the link type's
				*   largest record) */
	uint32_t sections;     /**< pcapng sections (1 for pcap) */
	uint64_t interfaces;   /**< pcapng interfaces, all sections (1 for pcap) */
	uint64_t packets;      /**< complete packet records */
	uint64_t bytes;        /**< sum of their original lengths */
	uint32_t max_caplen;   /**< largest captured length */
	uint64_t oversize;     /**< records whose captured length exceeds over_len */
	int truncated;         /**< the file ends inside a record or block */
	uint64_t trunc_offset; /**< byte offset of that incomplete record or block */
	uint64_t size;         /**< the file's bytes when it was opened */
	int changed;           /**< capfile_inspect(): the file's size was another when the
				*   walk ended (it grew or shrank while it was read) */
	uint64_t size_now;     /**< that size (when changed) */
	int mixed_linktypes;   /**< an interface has another link type than the first */
	uint32_t other_linktype;  /**< the first such interface's link type */
	uint32_t other_section;   /**< its section */
	uint32_t other_ifid;      /**< its number in that section */
	uint64_t other_offset;    /**< its block's offset */
	char libpcap_diff[256];   /**< non-empty: why libpcap 1.10 would read this file
				   *   differently (it cannot open it, or stops or skips
				   *   packets where this reader does not) */
	struct capfile_snap *snaps; /**< records with caplen != wirelen, in order (malloc) */
	size_t n_snaps;
	int snaps_overflow;    /**< more than CAPFILE_MAX_SNAPS such records (list cut) */
};

/**
 * Fill the file part of info (format, link type, snap length, sections,
 * interfaces, truncation, mixed link types, libpcap difference) from what
 * the reader has read so far; the packet counts and snaps are left alone.
 * Complete after capfile_next() returned 0.
 */
void capfile_describe(const struct capfile *cf, struct capfile_info *info);

/** Free what capfile_inspect() allocated in info (the snaps list). */
void capfile_info_free(struct capfile_info *info);

/**
 * Inspect a capture file: header, link types, and a walk over every record.
 *
 * @param path     the file
 * @param over_len records with caplen above this are counted in info->oversize
 * @param info     filled
 * @param err      on failure, a message naming the file and the problem
 * @param errlen   size of err
 * @return 0 (a truncated final record is not a failure: see info->truncated;
 *         nor are mixed link types, a libpcap difference, or a file that
 *         changed size while it was read: see info);
 *         an error of capfile_open() or capfile_next()
 */
int capfile_inspect(const char *path, uint32_t over_len, struct capfile_info *info,
		    char *err, size_t errlen);

/** Name of a link type ("EN10MB", "LINUX_SLL", ...) or "unknown". */
const char *capfile_linktype_name(uint32_t linktype);

/* ------------------------------------------------------- whole-file read */

/** One packet read by capfile_read_all(). */
struct capfile_pkt {
	uint64_t ts_ns;       /**< capture time in ns since the epoch (modulo 2^64) */
	uint32_t caplen;
	uint32_t wirelen;     /**< as written (may be below caplen: libpcap and tshark
			       *   take it so) */
	const uint8_t *data;  /**< points into capfile_packets.buf (never NULL) */
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
 *         a file or record whose link type is not Ethernet gives
 *         -EPROTONOSUPPORT)
 */
int capfile_read_all(const char *path, struct capfile_packets *out, char *err, size_t errlen);

/** Free what capfile_read_all() allocated. */
void capfile_packets_free(struct capfile_packets *p);

#endif /* GPUDP_CAPFILE_H */
