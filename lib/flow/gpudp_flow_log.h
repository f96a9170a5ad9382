/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The NDJSON flow log: flow records (gpudp_flow_rec.h) written as
 * newline-delimited JSON, one object per record on one line, to a file or
 * to standard output. Guide, with every field: doc/flows.md, "The NDJSON
 * flow log"; a JSON Schema of a line: doc/flow-log.schema.json.
 *
 * A line's fields, in this order ("ICMP" below: proto 1 or 58):
 *
 * | field | JSON type | what |
 * | --- | --- | --- |
 * | af | number | 4 or 6 |
 * | src, dst | string | addresses as text (inet_ntop(): "192.0.2.1", "2001:db8::1") |
 * | sport, dport | number | the record's ports (ICMP: 0 and type << 8 \| code) |
 * | icmp_type, icmp_code | number | ICMP only: dport's two bytes |
 * | proto | number | IP protocol number |
 * | vlan | number | VLAN ID, 0 untagged |
 * | tos | number | ToS or traffic class |
 * | tcp_flags | number | OR of the TCP flags src sent |
 * | tcp_flags_str | string | the same as letters, GPUDP_FLOW_TCP_FLAGS_LETTERS |
 * | first, last | string | first and last packet's time, RFC 3339 UTC with 9 decimals |
 * | first_ns, last_ns | number | the same, ns since the epoch |
 * | packets, octets, l2_octets | number | what src sent |
 * | biflow | boolean | the reverse fields follow |
 * | rpackets, roctets, rl2_octets, rtcp_flags, rtcp_flags_str | | biflow only: what dst sent |
 * | end_reason | string | "idle", "active", "end", "forced", "lack_of_resources", or "unknown" |
 * | end_reason_id | number | its number, IPFIX flowEndReason (enum gpudp_flow_end) |
 * | community_id | string | the Community ID (gpudp_flow_cid.h), unless GPUDP_FLOW_LOG_NO_COMMUNITY_ID |
 *
 * Numbers are unsigned decimal integers, up to 2^64 - 1 for the 64-bit
 * fields (beyond the 2^53 that a double holds exactly: read them as
 * integers). The record's pad is not written, nor flags but for its
 * GPUDP_FLOW_REC_BIFLOW bit (biflow).
 *
 * A writer (gpudp_flow_log_open()) keeps lines in a buffer and writes them
 * with write(2) when it fills, on gpudp_flow_log_flush() and on
 * gpudp_flow_log_close(). Its first write error (a full disk, a closed
 * pipe, ...) is kept and returned by every later call that writes: the
 * records still buffered then, and every record given afterwards, are
 * dropped and counted (gpudp_flow_log_stats_get()); the file may end with
 * a line cut short, which readers should skip. A closed pipe gives
 * -EPIPE, never SIGPIPE. A writer is used by one thread at a time.
 *
 * Pure C11 and POSIX: no DPDK, no CUDA.
 */
#ifndef GPUDP_FLOW_LOG_H
#define GPUDP_FLOW_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_flow_rec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes that any line (its newline and a terminating NUL included) fits in. */
#define GPUDP_FLOW_LOG_LINE_MAX 1024
/** Longest line gpudp_flow_log_write_line() takes: the writer's buffer. */
#define GPUDP_FLOW_LOG_LINE_BUF (64u * 1024u)

/** gpudp_flow_log_open() flag: append to the file instead of truncating it. */
#define GPUDP_FLOW_LOG_APPEND 0x1u
/** gpudp_flow_log_open() and gpudp_flow_log_format() flag: no community_id field. */
#define GPUDP_FLOW_LOG_NO_COMMUNITY_ID 0x2u

/**
 * tcp_flags_str's letters, from the lowest bit (FIN, 0x01) to the highest
 * (CWR, 0x80): F S R P A U E C. A set flag's letter is written, in this
 * order: SYN and ACK give "SA", none "".
 */
#define GPUDP_FLOW_TCP_FLAGS_LETTERS "FSRPAUEC"
/** Bytes of a buffer for gpudp_flow_tcp_flags_str(): 8 letters and a NUL. */
#define GPUDP_FLOW_TCP_FLAGS_SIZE 9

/** A writer of the flow log (opaque). */
struct gpudp_flow_log;

/** What a writer did, as gpudp_flow_log_stats_get() gives it. */
struct gpudp_flow_log_stats {
	uint64_t records;   /**< records written (their whole line handed to write(2)) */
	uint64_t pending;   /**< records waiting in the buffer */
	uint64_t dropped;   /**< records not written: refused by gpudp_flow_log_write()
			     *   (-EINVAL), or lost to the writer's error */
	uint64_t bytes;     /**< bytes written, a cut line's included */
	int error;          /**< the writer's error, a negative errno value; 0: none */
};

/**
 * Open a flow log for writing.
 *
 * @param path   a file, created (mode 0666 less the umask) or truncated, or
 *               "-" for standard output (file descriptor 1, which
 *               gpudp_flow_log_close() leaves open; do not write to it
 *               through stdio meanwhile, or fflush(stdout) first)
 * @param flags  0, or GPUDP_FLOW_LOG_APPEND and GPUDP_FLOW_LOG_NO_COMMUNITY_ID
 *               or'ed
 * @param seed   the Community ID's seed (gpudp_flow_community_id()); 0 is
 *               the specification's default
 * @param log    set to the writer on success, NULL on failure
 * @return 0; -EINVAL (@p path or @p log NULL, an empty path, an unknown
 *   flag); -ENOENT, -EACCES, -EISDIR, ... (open(2)'s errno); -EBADF ("-"
 *   while standard output is closed); -ENOMEM
 */
int gpudp_flow_log_open(const char *path, unsigned int flags, uint16_t seed,
			struct gpudp_flow_log **log);

/**
 * Write one record (to the buffer; to the file when the buffer is full).
 *
 * @param log  the writer
 * @param rec  the record
 * @return 0 (written or buffered); -EINVAL when @p log is NULL, or when
 *   @p rec is NULL or its af is neither 4 nor 6 (the record is dropped
 *   and counted; the writer goes on); the writer's error (-ENOSPC, -EIO,
 *   -EPIPE, -EFBIG, ...: write(2)'s errno) when it has one, now or from
 *   an earlier call: the record is dropped and counted
 */
int gpudp_flow_log_write(struct gpudp_flow_log *log, const struct gpudp_flow_rec *rec);

/**
 * Append a line formatted elsewhere (another kind of NDJSON record, such
 * as an EVE alert, gpudp_rules_eve.h): @p len bytes at @p line, ending in
 * its only newline, at most GPUDP_FLOW_LOG_LINE_BUF bytes. Counted and
 * dropped as gpudp_flow_log_write() does.
 * @return 0; -EINVAL (not one line, or too long: dropped); the writer's
 *   first write error
 */
int gpudp_flow_log_write_line(struct gpudp_flow_log *log, const char *line, size_t len);

/**
 * Write the buffered lines to the file (write(2); no fsync).
 *
 * @param log  the writer
 * @return 0; -EINVAL when @p log is NULL; the writer's error, now or from
 *   an earlier call (the buffered records are then dropped and counted)
 */
int gpudp_flow_log_flush(struct gpudp_flow_log *log);

/**
 * What the writer did so far.
 *
 * @param log  the writer
 * @param st   filled (all zero when @p log is NULL)
 */
void gpudp_flow_log_stats_get(const struct gpudp_flow_log *log,
			      struct gpudp_flow_log_stats *st);

/**
 * Flush, close the file (not standard output) and free the writer.
 *
 * @param log  the writer, or NULL (nothing is done)
 * @return 0; the writer's error, now or from an earlier call; close(2)'s
 *   errno (-EIO, ...). The writer is freed in every case.
 */
int gpudp_flow_log_close(struct gpudp_flow_log *log);

/**
 * One record's line, as a writer writes it, into a buffer.
 *
 * @param rec    the record; its af must be 4 or 6
 * @param flags  0 or GPUDP_FLOW_LOG_NO_COMMUNITY_ID (other bits are ignored)
 * @param seed   the Community ID's seed (0: the default)
 * @param buf    set to the line, its newline included, NUL-terminated; on
 *               failure to "" when @p len is not 0
 * @param len    size of @p buf; GPUDP_FLOW_LOG_LINE_MAX is always enough
 * @return the line's length (its newline included, the NUL not); -EINVAL
 *   (@p rec or @p buf NULL, af neither 4 nor 6); -ENOSPC (@p len too small)
 */
int gpudp_flow_log_format(const struct gpudp_flow_rec *rec, unsigned int flags,
			  uint16_t seed, char *buf, size_t len);

/**
 * The name of a flow end reason, as the log's end_reason field writes it.
 *
 * @param reason  an enum gpudp_flow_end value
 * @return "idle", "active", "end", "forced" or "lack_of_resources"
 *   (static strings); "unknown" for any other value
 */
const char *gpudp_flow_end_name(uint8_t reason);

/**
 * TCP flags as letters, as the log's tcp_flags_str field writes them
 * (GPUDP_FLOW_TCP_FLAGS_LETTERS).
 *
 * @param flags  the TCP header's low 8 flag bits
 * @param buf    at least GPUDP_FLOW_TCP_FLAGS_SIZE bytes; set to the
 *               letters, NUL-terminated
 * @return @p buf
 */
char *gpudp_flow_tcp_flags_str(uint8_t flags, char buf[GPUDP_FLOW_TCP_FLAGS_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_FLOW_LOG_H */
