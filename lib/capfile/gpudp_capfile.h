/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_capfile: capture file reading (classic pcap and pcapng), without
 * DPDK or libpcap. Its writer of pcapng files is gpudp_pcapng.h.
 *
 * The reader walks a file record by record (gpudp_capfile_open(),
 * gpudp_capfile_next()), honouring the byte order of each pcapng section
 * and the link type, snap length, timestamp resolution and offset of each
 * interface. It gives the records libpcap would give, or refuses the file
 * with the reason: every length is checked in 64-bit arithmetic against
 * what is left of its block and of the file before anything is read or
 * allocated. Mapped pcap files (GPUDP_CAPFILE_MMAP) are also read many
 * records at a time (gpudp_capfile_next_many()), and bytes of a pcap file
 * read elsewhere are described as records (gpudp_capfile_parse_many(),
 * gpudp_capfile_parse_descs()), for readers that share a file between
 * threads or read it in bulk (lib/capture's threaded reader,
 * gpudp_cap_reader.h).
 *
 * gpudp-capture inspects every rx_pcap= file with gpudp_capfile_inspect()
 * before EAL starts, so that empty, corrupt, truncated and non-Ethernet
 * files get a clear error (net_pcap would fail the probe without saying
 * why, or deliver a Linux-cooked header as if it were Ethernet), so that
 * files which libpcap 1.10 (net_pcap's reader) would read differently are
 * refused with the reason, and so that it knows how many packets to expect
 * (net_pcap signals no end of file). Tools read whole files with
 * gpudp_capfile_read_all().
 *
 * A reader is used by one thread at a time; readers of the same file are
 * independent. Errors are negative errno values; the reader keeps the
 * first one (gpudp_capfile_error() says what, where and why) and returns
 * it from every later call that reads.
 */
#ifndef GPUDP_CAPFILE_H
#define GPUDP_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_pkt_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Capture file formats. */
enum gpudp_capfile_format {
	GPUDP_CAPFILE_PCAP = 1,   /**< classic pcap, micro- or nanosecond */
	GPUDP_CAPFILE_PCAPNG,     /**< pcapng */
};

/** LINKTYPE_ETHERNET */
#define GPUDP_CAPFILE_LINKTYPE_ETHERNET 1
/** gpudp_capfile_info.linktype of a pcapng file without an interface */
#define GPUDP_CAPFILE_LINKTYPE_NONE UINT32_MAX
/** Largest record of most link types (Ethernet among them), as libpcap's. */
#define GPUDP_CAPFILE_MAX_SNAPLEN 262144u

/* ------------------------------------------------------------- the reader */

/** A capture file being read (opaque). */
struct gpudp_capfile;

/** gpudp_capfile_open() flag: do not read record data (rec.data may be NULL). */
#define GPUDP_CAPFILE_SKIP_DATA 1u
/**
 * gpudp_capfile_open() flag: map the file into memory instead of reading it
 * through stdio; a pcap record's data then points into the mapping (no
 * copy). A file that shrinks while it is open makes reads of the mapping
 * past its new end fault (SIGBUS): for capture files at rest, or for
 * callers that catch that fault (lib/capture's threaded reader does,
 * gpudp_cap_reader_guarded()).
 */
#define GPUDP_CAPFILE_MMAP 2u

/** One record, as gpudp_capfile_next() returns it. */
struct gpudp_capfile_rec {
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
			       *   GPUDP_CAPFILE_SKIP_DATA on pcap */
};

/**
 * Open a capture file and read its file header (pcap) or first section
 * header (pcapng).
 *
 * @param path    a regular file
 * @param flags   0, or GPUDP_CAPFILE_SKIP_DATA and GPUDP_CAPFILE_MMAP or'ed
 * @param cf      set to the reader on success (NULL on failure)
 * @param err     on failure, a message naming the file and the problem
 * @param errlen  size of @p err
 * @return 0; -ENOENT, -EACCES, ... (cannot open or map: open()'s and
 *   mmap()'s errno), -EISDIR (a directory), -EINVAL (not a regular file,
 *   not pcap or pcapng, corrupt or unsupported header), -ENODATA (an empty
 *   file), -ENOMEM
 */
int gpudp_capfile_open(const char *path, unsigned int flags, struct gpudp_capfile **cf,
		       char *err, size_t errlen);

/**
 * Read the next record.
 *
 * A file that ends inside a record or block is not an error: the records
 * before it are returned, then 0, and gpudp_capfile_truncated() says where.
 * Blocks that carry no packet (pcapng section headers, interface
 * descriptions, statistics, ...) are read and checked on the way.
 *
 * @param cf   the reader
 * @param rec  filled when 1 is returned
 * @return 1 (a record), 0 (the end of the file), or a negative errno
 *   value: -EINVAL (a corrupt or unsupported record or block:
 *   gpudp_capfile_error() says which, where and why), -EIO (a read error),
 *   -ENOMEM. After an error every call returns the same error.
 */
int gpudp_capfile_next(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec);

/**
 * Pcap files: go back or forward to a record header, so that the next
 * gpudp_capfile_next() reads the record at @p offset as record number
 * @p index. Lets several readers of one file share its records.
 *
 * @param cf      the reader
 * @param offset  a gpudp_capfile_rec.offset (or gpudp_capfile_tell()) this
 *                file gave
 * @param index   the record number of the record there
 * @return 0; -ENOTSUP for pcapng (a record's meaning depends on the blocks
 *   before it); -EINVAL for an offset outside the file; -EIO (a seek
 *   error); the reader's error, if it had one
 */
int gpudp_capfile_seek(struct gpudp_capfile *cf, uint64_t offset, uint64_t index);

/**
 * Mapped pcap files (GPUDP_CAPFILE_MMAP): step over up to @p n records by
 * their lengths alone, without returning them (a fast walk). It stops
 * before a record that gpudp_capfile_next() would refuse or find cut
 * short, so that the next gpudp_capfile_next() reports it.
 *
 * @param cf  the reader
 * @param n   most records to step over
 * @return the records stepped over (0 for pcapng, a file not mapped, or a
 *   reader that failed or reached the end)
 */
uint64_t gpudp_capfile_skip(struct gpudp_capfile *cf, uint64_t n);

/** A record of gpudp_capfile_next_many(): what gpudp_capfile_next() gives of it. */
struct gpudp_capfile_mrec {
	const uint8_t *data;  /**< its bytes, in the mapping */
	uint64_t index;       /**< 0-based record number in the file */
	uint64_t offset;      /**< file offset of its record header */
	uint64_t ts_ns;       /**< capture time, ns (ts_sec * 10^9 + ts_nsec) */
	uint32_t caplen;      /**< as gpudp_capfile_next()'s (cut to the snap length) */
	uint32_t wirelen;     /**< as gpudp_capfile_next()'s (as written) */
};

/**
 * Mapped pcap files of Ethernet frames (GPUDP_CAPFILE_MMAP): up to @p n of
 * the next records at once, each as gpudp_capfile_next() would return it,
 * without its per-record checks on the way (a fast read). It stops before
 * a record whose header starts at or past @p end, and before one that
 * gpudp_capfile_next() would refuse, find cut short or report as the end,
 * so that the next gpudp_capfile_next() reports it.
 *
 * @param cf   the reader
 * @param r    filled with the records read
 * @param n    most records to read (entries of @p r)
 * @param end  file offset: no record whose header starts there or later
 *             (UINT64_MAX: none)
 * @return the records read into @p r (0 for pcapng, a file not mapped or
 *   opened with GPUDP_CAPFILE_SKIP_DATA, another link type, a reader that
 *   failed or reached the end, or where gpudp_capfile_next() must be
 *   called)
 */
uint32_t gpudp_capfile_next_many(struct gpudp_capfile *cf, struct gpudp_capfile_mrec *r,
				 uint32_t n, uint64_t end);

/**
 * Pcap files of Ethernet frames: the records among @p len bytes of the file
 * read elsewhere (into @p buf, from file offset @p base), as
 * gpudp_capfile_next_many() reads them from the mapping: up to @p n,
 * before file offset @p end, stopping before a record that
 * gpudp_capfile_next() would refuse or that runs past the @p len bytes.
 * The reader's position does not move.
 *
 * @param cf     the reader (any flags)
 * @param buf    the bytes, starting at a record header
 * @param base   their file offset
 * @param len    how many
 * @param end    file offset: no record whose header starts there or later
 * @param index  the record number of the first
 * @param r      filled with the records (their data point into @p buf)
 * @param n      most records (entries of @p r)
 * @param used   set to the bytes the records take (their headers included)
 * @return the records read into @p r (0 for pcapng, another link type, or
 *   a reader that failed)
 */
uint32_t gpudp_capfile_parse_many(const struct gpudp_capfile *cf, const uint8_t *buf,
				  uint64_t base, uint64_t len, uint64_t end, uint64_t index,
				  struct gpudp_capfile_mrec *r, uint32_t n, uint64_t *used);

/**
 * gpudp_capfile_parse_many() in the form of a batch's descriptors
 * (gpudp_pkt_desc.h): the same records, each described by where its bytes
 * are in @p buf (plus @p off0) rather than by a pointer, its lengths (as
 * gpudp_capfile_next()'s: caplen cut to the snap length, wirelen as
 * written), its time, and a mark of 0 (no record numbers nor file
 * offsets: a reader that stages bytes in bulk needs no more).
 *
 * @param cf     the reader (any flags)
 * @param buf    the bytes, starting at a record header
 * @param base   their file offset
 * @param len    how many
 * @param end    file offset: no record whose header starts there or later
 * @param off0   added to each record's offset in @p buf (its desc.off)
 * @param d      filled with the descriptors
 * @param n      most records (entries of @p d)
 * @param used   set to the bytes the records take (their headers included)
 * @param bytes  set to the sum of their caplen
 * @return the records described in @p d (0 for pcapng, another link type,
 *   or a reader that failed)
 */
uint32_t gpudp_capfile_parse_descs(const struct gpudp_capfile *cf, const uint8_t *buf,
				   uint64_t base, uint64_t len, uint64_t end, uint32_t off0,
				   struct gpudp_pkt_desc *d, uint32_t n, uint64_t *used,
				   uint64_t *bytes);

/**
 * @param cf  the reader
 * @return the 0-based number of the record gpudp_capfile_next() reads next
 */
uint64_t gpudp_capfile_index(const struct gpudp_capfile *cf);

/**
 * Mapped pcap files: the first offset in [@p from, @p to) where a record
 * header plausibly starts: it and the records after it (up to 8, or to the
 * end of the file) have lengths gpudp_capfile_next() accepts, captured
 * lengths no larger than the original ones, sub-second timestamp parts
 * below one second and seconds within a day of the first.
 * A guess, for splitting a file by byte ranges: whoever uses it must check
 * that the ranges join (the record walk of one range ends where the next
 * range's guess starts).
 *
 * @param cf    the reader
 * @param from  first offset looked at
 * @param to    offset past the last
 * @param off   set to the offset found
 * @return 0; -ENOENT (none in the range), -ENOTSUP (pcapng, or a file not
 *   mapped)
 */
int gpudp_capfile_find_record(const struct gpudp_capfile *cf, uint64_t from, uint64_t to,
			      uint64_t *off);

/**
 * @param cf  the reader
 * @return the offset of the next record (pcap) or block (pcapng)
 */
uint64_t gpudp_capfile_tell(const struct gpudp_capfile *cf);

/**
 * @param cf  the reader
 * @return the file's size when gpudp_capfile_open() opened it: the reader
 *   reads no byte past it
 */
uint64_t gpudp_capfile_size(const struct gpudp_capfile *cf);

/**
 * The open file's size now (fstat() of the file the reader opened): another
 * than gpudp_capfile_size() when the file grew or shrank since it was
 * opened.
 *
 * @param cf    the reader
 * @param size  set to the size
 * @return 0, or fstat()'s negative errno value
 */
int gpudp_capfile_size_now(const struct gpudp_capfile *cf, uint64_t *size);

/**
 * Whether the reader found the file ending inside a record or block
 * (gpudp_capfile_next() returned 0 there).
 *
 * @param cf      the reader
 * @param offset  set to where that record or block starts (when 1)
 * @return 1 or 0
 */
int gpudp_capfile_truncated(const struct gpudp_capfile *cf, uint64_t *offset);

/**
 * @param cf  the reader
 * @return the file's format (GPUDP_CAPFILE_PCAP or GPUDP_CAPFILE_PCAPNG)
 */
enum gpudp_capfile_format gpudp_capfile_format_of(const struct gpudp_capfile *cf);

/**
 * @param cf  the reader
 * @return with GPUDP_CAPFILE_MMAP, the file's mapping (a pcap record's
 *   data points into it, valid until gpudp_capfile_close()); else NULL
 */
const uint8_t *gpudp_capfile_map(const struct gpudp_capfile *cf);

/**
 * @param cf  the reader
 * @return the message of its error ("PATH: what, where"), or "" when it
 *   had none
 */
const char *gpudp_capfile_error(const struct gpudp_capfile *cf);

/**
 * Close a reader and free it (and unmap the file).
 *
 * @param cf  the reader, or NULL (nothing is done)
 */
void gpudp_capfile_close(struct gpudp_capfile *cf);

/* ----------------------------------------------------------- inspection */

/**
 * A record whose original length is not its captured length: snapped (above
 * it), or a bogus record (below it, which libpcap and tshark keep as written).
 */
struct gpudp_capfile_snap {
	uint64_t index;    /**< 0-based record number */
	uint32_t wirelen;  /**< its original length */
};

/** Most snapped records listed in gpudp_capfile_info.snaps. */
#define GPUDP_CAPFILE_MAX_SNAPS (1u << 22)

/** What gpudp_capfile_inspect() found (gpudp_capfile_describe() fills the file part). */
struct gpudp_capfile_info {
	enum gpudp_capfile_format format;
	uint32_t linktype;     /**< of the file (pcap) or of the first interface (pcapng);
				*   GPUDP_CAPFILE_LINKTYPE_NONE when there is none */
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
	int changed;           /**< gpudp_capfile_inspect(): the file's size was another
				*   when the walk ended (it grew or shrank while it was
				*   read) */
	uint64_t size_now;     /**< that size (when changed) */
	int mixed_linktypes;   /**< an interface has another link type than the first */
	uint32_t other_linktype;  /**< the first such interface's link type */
	uint32_t other_section;   /**< its section */
	uint32_t other_ifid;      /**< its number in that section */
	uint64_t other_offset;    /**< its block's offset */
	char libpcap_diff[256];   /**< non-empty: why libpcap 1.10 would read this file
				   *   differently (it cannot open it, or stops or skips
				   *   packets where this reader does not) */
	struct gpudp_capfile_snap *snaps; /**< records with caplen != wirelen, in order
					   *   (malloc) */
	size_t n_snaps;
	int snaps_overflow;    /**< more than GPUDP_CAPFILE_MAX_SNAPS such records (list cut) */
};

/**
 * Fill the file part of @p info (format, link type, snap length, sections,
 * interfaces, truncation, mixed link types, libpcap difference) from what
 * the reader has read so far; the packet counts and snaps are left alone.
 * Complete after gpudp_capfile_next() returned 0.
 *
 * @param cf    the reader
 * @param info  filled
 */
void gpudp_capfile_describe(const struct gpudp_capfile *cf, struct gpudp_capfile_info *info);

/**
 * Free what gpudp_capfile_inspect() allocated in @p info (the snaps list).
 *
 * @param info  inspected, or zeroed
 */
void gpudp_capfile_info_free(struct gpudp_capfile_info *info);

/**
 * Inspect a capture file: header, link types, and a walk over every record.
 *
 * @param path      the file
 * @param over_len  records with caplen above this are counted in info->oversize
 * @param info      filled (free it with gpudp_capfile_info_free())
 * @param err       on failure, a message naming the file and the problem
 * @param errlen    size of @p err
 * @return 0 (a truncated final record is not a failure: see
 *   info->truncated; nor are mixed link types, a libpcap difference, or a
 *   file that changed size while it was read: see info); an error of
 *   gpudp_capfile_open() or gpudp_capfile_next(); -ENOMEM (the snaps list)
 */
int gpudp_capfile_inspect(const char *path, uint32_t over_len, struct gpudp_capfile_info *info,
			  char *err, size_t errlen);

/**
 * @param linktype  a link type
 * @return its name ("EN10MB (Ethernet)", "LINUX_SLL (Linux cooked v1)",
 *   ...) or "unknown"
 */
const char *gpudp_capfile_linktype_name(uint32_t linktype);

/* ------------------------------------------------------- whole-file read */

/** One packet read by gpudp_capfile_read_all(). */
struct gpudp_capfile_pkt {
	uint64_t ts_ns;       /**< capture time in ns since the epoch (modulo 2^64) */
	uint32_t caplen;
	uint32_t wirelen;     /**< as written (may be below caplen: libpcap and tshark
			       *   take it so) */
	const uint8_t *data;  /**< points into gpudp_capfile_packets.buf (never NULL) */
};

/** All packets of a file in memory. */
struct gpudp_capfile_packets {
	struct gpudp_capfile_pkt *pkt;
	size_t n;
	uint8_t *buf;
	uint64_t data_bytes; /**< sum of caplen */
};

/**
 * Read every complete packet of an Ethernet capture file into memory.
 *
 * @param path    the file
 * @param out     filled (free it with gpudp_capfile_packets_free())
 * @param err     on failure, a message naming the file and the problem
 * @param errlen  size of @p err
 * @return 0, or a negative errno value with err filled (see
 *   gpudp_capfile_inspect(); a file or record whose link type is not
 *   Ethernet gives -EPROTONOSUPPORT)
 */
int gpudp_capfile_read_all(const char *path, struct gpudp_capfile_packets *out, char *err,
			   size_t errlen);

/**
 * Free what gpudp_capfile_read_all() allocated.
 *
 * @param p  read, or zeroed
 */
void gpudp_capfile_packets_free(struct gpudp_capfile_packets *p);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CAPFILE_H */
