/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Rotating pcapng output, as dumpcap's ring buffer (`-b filesize:`,
 * `-b duration:`, `-b files:`): packets go to a series of pcapng files,
 * each a complete file of its own (one section header, one Ethernet
 * interface with nanosecond timestamps, as gpudp_pcapng.h writes), a new
 * one started when a condition is met, the oldest deleted beyond a count.
 *
 * Conditions (struct gpudp_pcapng_ring_conf, any subset; 0 turns one off):
 * - filesize: a new file is started when the next packet would make the
 *   current one exceed the limit; a file holds at least one packet, so a
 *   packet larger than the limit has a file of its own;
 * - duration: a new file is started by the first packet whose timestamp is
 *   the limit or more past the first packet of the current file. Time is
 *   the packets' capture time, never the clock: the same packets give the
 *   same files however fast they are written. A packet earlier than the
 *   file's first starts none;
 * - files: at most this many files are kept; when a new file is started
 *   and there would be more, the oldest is deleted first.
 *
 * Names. With a condition, the files are named as dumpcap names them,
 * next to @p path: `<stem>_<index>_<time><ext>`, where `<ext>` is the
 * extension of the last component of @p path (from its last '.', unless
 * that is its first character; ".pcapng" when it has none), `<stem>` the
 * path without it, `<index>` the file's number from 1, at least five
 * digits (`%05`), and `<time>` the UTC time of its first packet as
 * `YYYYmmddHHMMSS`. `out/http.pcapng` gives `out/http_00001_20261122000609.pcapng`,
 * `out/http_00002_20261122000610.pcapng`, ... A file is created when its
 * first packet is written: no packet, no file. Without any condition the
 * writer writes the one file @p path, created by gpudp_pcapng_ring_open()
 * itself, with exactly the bytes gpudp_pcapng.h writes.
 *
 * Write errors (a full disk, a quota, an I/O error) never stop the
 * writer: the current file is cut back to its last complete block, so that
 * it stays a valid pcapng file, closed, and said once (the log callback);
 * its packets that did not reach it, and every later packet until the next
 * file is started, are counted as dropped; the next file (at the next
 * rotation) is tried afresh. A file that cannot be created, or whose
 * header cannot be written, is removed and its packets dropped likewise.
 * Where a rotation happens does not depend on errors: the files are
 * counted in bytes and time as if every packet had been written. Without a
 * condition there is no next file: every packet after an error is dropped.
 *
 * Packets are gathered in a buffer of GPUDP_PCAPNG_RING_BUF bytes and
 * written to the file (write(2)) when it is full, when a file is finished,
 * and by gpudp_pcapng_ring_flush() and gpudp_pcapng_ring_close(); a
 * packet larger than the buffer is written at once. A writer is used by
 * one thread at a time.
 */
#ifndef GPUDP_PCAPNG_RING_H
#define GPUDP_PCAPNG_RING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A rotating pcapng writer (opaque). */
struct gpudp_pcapng_ring;

/** Bytes of packets gathered before they are written to the file. */
#define GPUDP_PCAPNG_RING_BUF (256u * 1024u)

/** Largest filesize condition, in kB (1000 bytes): 2^64 bytes less. */
#define GPUDP_PCAPNG_RING_MAX_KB (UINT64_MAX / 1000u)
/** Largest duration condition, in seconds: 2^64 ns less (about 584 years). */
#define GPUDP_PCAPNG_RING_MAX_S (UINT64_MAX / 1000000000u)
/** Largest files condition (dumpcap's limit too). */
#define GPUDP_PCAPNG_RING_MAX_FILES 100000u

/** Largest captured length gpudp_pcapng_ring_write() takes: a block within
 *  libpcap's 16 MiB. */
#define GPUDP_PCAPNG_RING_MAX_CAPLEN ((16u << 20) - 32u)

/**
 * Called with one line (no newline) when a file cannot be created, its
 * header or packets cannot be written, or an old file cannot be deleted.
 */
typedef void (*gpudp_pcapng_ring_log_t)(void *arg, const char *msg);

/** The conditions and the files' contents. Zeroed: one file, no rotation. */
struct gpudp_pcapng_ring_conf {
	uint64_t filesize_kb; /**< start a new file when the next packet would make the
			       *   current one exceed this many kB (1000 bytes); 0: off */
	uint64_t duration_s;  /**< start a new file with the first packet this many
			       *   seconds or more (capture time) past the current
			       *   file's first; 0: off */
	uint32_t files;       /**< keep at most this many files, deleting the oldest;
			       *   needs filesize_kb or duration_s; 0: keep all */
	const char *appname;  /**< every file's shb_userappl option (NULL: none) */
	const char *ifname;   /**< every file's if_name option (NULL: none) */
	uint32_t snaplen;     /**< the interface's snap length (0: unlimited) */
	gpudp_pcapng_ring_log_t log; /**< errors, once per file (NULL: to stderr) */
	void *log_arg;        /**< passed to @c log */
};

/** What a writer did (gpudp_pcapng_ring_stats()). */
struct gpudp_pcapng_ring_stats {
	uint64_t files;         /**< files created, each with its section header written */
	uint64_t files_removed; /**< of those, deleted by the files condition */
	uint64_t packets;       /**< packets written to the files (write(2) took them) */
	uint64_t pending;       /**< packets in the buffer, not yet written */
	uint64_t dropped;       /**< packets lost to write errors */
	uint64_t bytes;         /**< bytes written to the files, headers included */
	uint64_t failed_files;  /**< files with a write error (or not created) */
	int last_error;         /**< errno of the last write error, 0: none */
};

/**
 * Whether @p conf asks for rotation (a filesize or duration condition).
 *
 * @param conf  the conditions, or NULL
 * @return 1 or 0
 */
int gpudp_pcapng_ring_rotates(const struct gpudp_pcapng_ring_conf *conf);

/**
 * Parse dumpcap's conditions: comma-separated `filesize:KB`,
 * `duration:SEC` and `files:N` (any subset, each at most once, decimal
 * digits only), into @p conf's condition fields; its other fields are left
 * alone.
 *
 * @param spec    e.g. "filesize:1000,files:10"
 * @param conf    its filesize_kb, duration_s and files set (all three: a
 *                condition not given is 0); untouched on failure
 * @param err     on failure, why, naming the condition and its value, e.g.
 *                "filesize:0: expected an integer 1..18446744073709551"
 * @param errlen  size of @p err
 * @return 0, or -EINVAL (an unknown or repeated condition, a value out of
 *   range or not a number, an empty spec or condition, files without
 *   filesize or duration)
 */
int gpudp_pcapng_ring_parse(const char *spec, struct gpudp_pcapng_ring_conf *conf,
			    char *err, size_t errlen);

/**
 * The name of file @p index (1-based) whose first packet is at @p ts_ns,
 * for the output @p path (see the file comment).
 *
 * @param path   as given to gpudp_pcapng_ring_open()
 * @param index  the file's number, from 1
 * @param ts_ns  its first packet's capture time, ns since the epoch
 * @param buf    the name
 * @param len    size of @p buf
 * @return the name's length, or -ENAMETOOLONG (it does not fit @p buf;
 *   @p buf is then an empty string), -EINVAL (@p path empty or NULL, or
 *   @p len 0)
 */
int gpudp_pcapng_ring_name(const char *path, uint64_t index, uint64_t ts_ns, char *buf,
			   size_t len);

/**
 * Make a writer. Without a condition it creates (truncates) @p path and
 * writes its section header and interface description at once, as
 * gpudp_pcapng_open() does; with one, files are created as packets come,
 * and this only checks that files can be created in the directory of
 * @p path.
 *
 * @param path  the output, or the name the files are named after
 * @param conf  the conditions and contents (NULL: all zero); copied (the
 *              header every file starts with is made here)
 * @return the writer, or NULL with errno set: EINVAL (@p path empty, files
 *   without filesize or duration, a condition above its maximum), ENOMEM,
 *   ENAMETOOLONG (a file name would not fit PATH_MAX), and open()'s,
 *   write()'s or access()'s errno (ENOENT, EACCES, ENOSPC, ...)
 */
struct gpudp_pcapng_ring *gpudp_pcapng_ring_open(const char *path,
						 const struct gpudp_pcapng_ring_conf *conf);

/**
 * Append one packet (an Enhanced Packet Block on interface 0), starting a
 * new file first if a condition says so.
 *
 * @param r        the writer
 * @param data     captured bytes (may be NULL when @p caplen is 0)
 * @param caplen   number of captured bytes, at most GPUDP_PCAPNG_RING_MAX_CAPLEN
 * @param wirelen  original length (values below caplen are raised to caplen)
 * @param ts_ns    capture timestamp, ns since the epoch
 * @return 0 (written, or in the buffer to be written); -EIO (dropped: the
 *   current file had a write error, counted in
 *   gpudp_pcapng_ring_stats.dropped; a packet in the buffer that a later
 *   write fails to write is counted there too); -EINVAL (@p caplen above
 *   the limit, or @p data NULL with @p caplen > 0: not written, not
 *   counted)
 */
int gpudp_pcapng_ring_write(struct gpudp_pcapng_ring *r, const uint8_t *data,
			    uint32_t caplen, uint32_t wirelen, uint64_t ts_ns);

/**
 * Write the buffered packets to the current file (then stats.pending is 0
 * and the figures are final for what was given so far).
 *
 * @param r  the writer
 * @return 0, or -EIO (they were dropped: a write error, said and counted)
 */
int gpudp_pcapng_ring_flush(struct gpudp_pcapng_ring *r);

/**
 * What the writer did so far.
 *
 * @param r   the writer
 * @param st  filled
 */
void gpudp_pcapng_ring_stats(const struct gpudp_pcapng_ring *r,
			     struct gpudp_pcapng_ring_stats *st);

/**
 * The current file's name (the one the next packet goes to, unless it
 * starts a new one), or NULL before the first file.
 *
 * @param r  the writer
 * @return a string owned by the writer, valid until the next call on it
 */
const char *gpudp_pcapng_ring_current(const struct gpudp_pcapng_ring *r);

/**
 * Flush and close the current file and free the writer (NULL is accepted).
 *
 * @param r  the writer
 * @return 0 if every packet given was written and every file closed
 *   cleanly; else the negative errno of the last write (or close(2))
 *   error: the packets lost are counted in the stats (read them before
 *   closing)
 */
int gpudp_pcapng_ring_close(struct gpudp_pcapng_ring *r);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_PCAPNG_RING_H */
