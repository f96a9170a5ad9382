/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The IPFIX exporter (RFC 7011): flow records (gpudp_flow_rec.h) sent as
 * IPFIX messages to collectors over UDP or TCP, written to a file (RFC
 * 5655 style: messages back to back), or handed to a function. Guide, with
 * the templates' elements, the transports and how to point the exporter
 * at nfcapd or nfacctd: doc/flows.md, "IPFIX export".
 *
 * An exporter (gpudp_ipfix_create()) has up to GPUDP_IPFIX_MAX_TARGETS
 * targets (gpudp_ipfix_add_target(), gpudp_ipfix_add_sink()), each a
 * transport session of its own: its own messages, sequence numbers and
 * counters (gpudp_ipfix_stats_get()). gpudp_ipfix_export() adds records
 * to every target's message under construction; a message is sent when
 * the next record would not fit in the configuration's max_msg bytes,
 * when it has been open for max_delay_ms (checked by gpudp_ipfix_export()
 * and gpudp_ipfix_poll()), and on gpudp_ipfix_flush().
 *
 * Messages: version 10; export time in seconds; sequence number: the data
 * records of the earlier messages of the target's session (mod 2^32),
 * records lost on the way included, so that a collector sees a gap where
 * records were lost (a UDP send that failed, a file write that failed);
 * observation domain: the configuration's domain_id. Template sets come
 * before the first data set that uses them: over UDP (and to sinks made
 * with GPUDP_IPFIX_SINK_DATAGRAM) again every refresh_s seconds and every
 * refresh_msgs messages (RFC 7011 section 8.4); over TCP at the start of
 * every connection; in a file at its start.
 *
 * Eight templates, ids 256 to 263: IPv4 or IPv6, with transport ports or
 * with ICMP's type and code (af 4 and proto 1, af 6 and proto 58), one
 * direction or both (GPUDP_FLOW_REC_BIFLOW: RFC 5103 reverse elements,
 * enterprise number 29305). What a record keeps through them: its times
 * in milliseconds (rounded down), its addresses (only the first 4 bytes
 * for af 4), the reverse fields only with GPUDP_FLOW_REC_BIFLOW, sport
 * only with ports (ICMP records carry none), and of flags only
 * GPUDP_FLOW_REC_BIFLOW; every other field as it is. Records whose af is
 * neither 4 nor 6 are not exported: every target counts them as dropped.
 *
 * TCP never blocks the caller: connects are non-blocking, messages wait in
 * a bounded queue (tcp_queue_bytes) that every call empties into the
 * socket as far as the socket takes them without waiting. A message that
 * does not fit in the queue is dropped and its records counted; so are
 * the records given while no connection is being made (after a failed
 * connect or a lost connection, for the backoff time) and the queued ones
 * when a connection is lost. Connects are retried after
 * reconnect_min_ms, doubling up to reconnect_max_ms. UDP sends do not
 * wait either (MSG_DONTWAIT): a message the socket cannot take now is
 * dropped and counted; ECONNREFUSED (a collector not listening: the ICMP
 * error of an earlier datagram) is counted as an error and the message
 * sent again once. No socket send raises SIGPIPE (MSG_NOSIGNAL). A file
 * gets its messages 256 KiB at a time, in plain write(2) calls, and those
 * gathered for max_delay_ms on gpudp_ipfix_poll(), every one on
 * gpudp_ipfix_flush(); its counters count a message once written. Files
 * are regular files (a pipe or FIFO as the file would block at open and
 * raise SIGPIPE when its reader leaves); a failed write is counted, its
 * records dropped, and the next messages are written anyway (the
 * templates again first).
 *
 * An exporter is used by one thread at a time. Errors are negative errno
 * values; functions that can fail for a reason worth a sentence take an
 * error buffer and write it there, naming the value at fault.
 *
 * Pure C11 and POSIX sockets: no DPDK, no CUDA.
 */
#ifndef GPUDP_IPFIX_H
#define GPUDP_IPFIX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gpudp_flow_rec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** IANA's port for IPFIX over UDP and TCP. */
#define GPUDP_IPFIX_PORT 4739
/** Most targets of one exporter. */
#define GPUDP_IPFIX_MAX_TARGETS 16
/** Smallest max_msg accepted: the largest template or record, with the headers. */
#define GPUDP_IPFIX_MSG_MIN 256u
/** Largest max_msg: the message header's 16-bit length. */
#define GPUDP_IPFIX_MSG_MAX 65535u
/** Bytes of gpudp_ipfix_target.name, and of what gpudp_ipfix_target_name() gives. */
#define GPUDP_IPFIX_NAME_MAX 300

/** The first template id; the eight templates are 256..263 (doc/flows.md). */
#define GPUDP_IPFIX_TEMPLATE_FIRST 256
/** Number of templates. */
#define GPUDP_IPFIX_TEMPLATES 8
/** Template id bit: IPv6 (sourceIPv6Address, destinationIPv6Address). */
#define GPUDP_IPFIX_TEMPLATE_V6 0x1
/** Template id bit: ICMP (icmpTypeCodeIPv4 or icmpTypeCodeIPv6 instead of the ports). */
#define GPUDP_IPFIX_TEMPLATE_ICMP 0x2
/** Template id bit: biflow (the RFC 5103 reverse elements). */
#define GPUDP_IPFIX_TEMPLATE_BIFLOW 0x4
/** Enterprise number of RFC 5103's reverse information elements. */
#define GPUDP_IPFIX_REVERSE_PEN 29305u

/** How a target's messages travel. */
enum gpudp_ipfix_transport {
	GPUDP_IPFIX_UDP = 1, /**< one message a datagram, to a connected UDP socket */
	GPUDP_IPFIX_TCP,     /**< a non-blocking TCP connection, reconnected when lost */
	GPUDP_IPFIX_FILE,    /**< a file, messages back to back (RFC 5655) */
	GPUDP_IPFIX_SINK,    /**< a function (gpudp_ipfix_add_sink()) */
};

/**
 * A collector or a file, as gpudp_ipfix_target_parse() or
 * gpudp_ipfix_target_file() fills it.
 */
struct gpudp_ipfix_target {
	enum gpudp_ipfix_transport transport; /**< UDP, TCP or FILE */
	char name[GPUDP_IPFIX_NAME_MAX];      /**< "udp:HOST:PORT", "tcp:[V6]:PORT" or
					       *   "file:PATH": the target as messages
					       *   name it */
	char path[4096];                      /**< FILE: the path */
	struct sockaddr_storage addr;         /**< UDP, TCP: the collector's address */
	socklen_t addrlen;                    /**< its length (0 for FILE) */
};

/**
 * Parse a collector, the argument of gpudp-capture's --ipfix:
 * `[udp:|tcp:]HOST:PORT` (UDP without a prefix), or `file:PATH`. HOST is
 * an IPv4 address, a name (resolved here with getaddrinfo(), the first
 * address taken) or an IPv6 address in brackets (`udp:[::1]:4739`); PORT
 * is a number from 1 to 65535.
 *
 * @param spec    the text
 * @param t       filled on success (untouched on failure)
 * @param err     on failure, a message quoting @p spec and naming what is
 *                wrong in it: an empty target, a prefix other than udp:,
 *                tcp: or file:, a missing host, port or path, a bad port,
 *                an IPv6 address without brackets, a host that does not
 *                resolve (with the resolver's reason)
 * @param errlen  size of @p err
 * @return 0; -EINVAL (a malformed target); -ENOENT (a host that does not
 *   resolve); -ENAMETOOLONG (a host or path too long for @p t)
 */
int gpudp_ipfix_target_parse(const char *spec, struct gpudp_ipfix_target *t,
			     char *err, size_t errlen);

/**
 * A file target, the argument of gpudp-capture's --ipfix-file (the same
 * as gpudp_ipfix_target_parse() of "file:" @p path).
 *
 * @param path    the file: created, or truncated, by gpudp_ipfix_add_target()
 * @param t       filled on success
 * @param err     on failure, a message naming @p path
 * @param errlen  size of @p err
 * @return 0; -EINVAL (an empty path); -ENAMETOOLONG
 */
int gpudp_ipfix_target_file(const char *path, struct gpudp_ipfix_target *t,
			    char *err, size_t errlen);

/** An exporter's settings; gpudp_ipfix_config_init() gives the defaults. */
struct gpudp_ipfix_config {
	uint32_t domain_id;        /**< observation domain id of every message (default 0) */
	uint32_t mtu;              /**< path MTU to UDP collectors (default 1500) */
	uint32_t max_msg;          /**< most bytes of a message, every transport; 0
				    *   (default): mtu less the IP and UDP headers: 28
				    *   for IPv4 collectors (1472 of 1500), 48 for IPv6
				    *   collectors, files and sinks (1452) */
	uint32_t max_delay_ms;     /**< send a message open this long (default 1000);
				    *   0: only when full or flushed */
	uint32_t refresh_s;        /**< UDP and datagram sinks: templates again after
				    *   this many seconds (default 60); 0: never */
	uint32_t refresh_msgs;     /**< and after this many messages (default 256); 0: never */
	uint32_t tcp_queue_bytes;  /**< TCP: most bytes waiting for the socket (default
				    *   1 MiB, at least max_msg) */
	uint32_t tcp_sndbuf;       /**< TCP: SO_SNDBUF of the socket; 0 (default): the
				    *   kernel's */
	uint32_t reconnect_min_ms; /**< TCP: first wait before a new connect (default 500) */
	uint32_t reconnect_max_ms; /**< TCP: longest wait (default 30000); the wait goes back
				    *   to reconnect_min_ms after a connection that
				    *   lasted this long */
	/**
	 * Clock, for tests: ns since the epoch, used for the export time and
	 * for every timer. NULL (default): CLOCK_REALTIME for the export time,
	 * CLOCK_MONOTONIC for the timers.
	 */
	uint64_t (*clock_ns)(void *arg);
	void *clock_arg;           /**< clock_ns's argument */
};

/**
 * The default settings.
 *
 * @param cfg  filled
 */
void gpudp_ipfix_config_init(struct gpudp_ipfix_config *cfg);

/** An exporter (opaque). */
struct gpudp_ipfix;

/**
 * Make an exporter without targets.
 *
 * @param cfg     settings (NULL: the defaults); copied
 * @param x       set to the exporter on success
 * @param err     on failure, a message naming the setting at fault and its value
 * @param errlen  size of @p err
 * @return 0; -EINVAL (max_msg or the one mtu gives outside
 *   GPUDP_IPFIX_MSG_MIN..GPUDP_IPFIX_MSG_MAX, reconnect_min_ms above
 *   reconnect_max_ms or 0); -ENOMEM
 */
int gpudp_ipfix_create(const struct gpudp_ipfix_config *cfg, struct gpudp_ipfix **x,
		       char *err, size_t errlen);

/**
 * Add a collector or a file. UDP: a socket connected to the collector (so
 * that its ICMP errors are seen); TCP: the first connect is started (the
 * exporter never waits for it); FILE: the file is created or truncated,
 * mode 0644.
 *
 * @param x       the exporter
 * @param t       from gpudp_ipfix_target_parse() or gpudp_ipfix_target_file(); copied
 * @param err     on failure, a message naming the target and the reason
 * @param errlen  size of @p err
 * @return the target's index (0, 1, ... in the order added); -ENOSPC
 *   (GPUDP_IPFIX_MAX_TARGETS already); -EINVAL (@p t's transport is not
 *   UDP, TCP or FILE); socket(), connect() (UDP) or open() errno
 *   (-ENETUNREACH, -EACCES, -ENOENT, ...); -ENOMEM
 */
int gpudp_ipfix_add_target(struct gpudp_ipfix *x, const struct gpudp_ipfix_target *t,
			   char *err, size_t errlen);

/**
 * A sink: called with every message of its target, in order.
 *
 * @param arg  gpudp_ipfix_add_sink()'s @p arg
 * @param msg  the message (its header's length is @p len)
 * @param len  its bytes
 * @return 0 (taken) or a negative errno value (counted as an error, the
 *   message's records as dropped)
 */
typedef int (*gpudp_ipfix_sink_fn)(void *arg, const uint8_t *msg, size_t len);

/** gpudp_ipfix_add_sink() flag: templates as over UDP (refreshed); without it, once. */
#define GPUDP_IPFIX_SINK_DATAGRAM 0x1u

/**
 * Add a function as a target (GPUDP_IPFIX_SINK): a transport of the
 * caller's (a message queue, a test's decoder).
 *
 * @param x      the exporter
 * @param fn     called with each message
 * @param arg    its first argument
 * @param flags  0 or GPUDP_IPFIX_SINK_DATAGRAM
 * @param name   the target's name in gpudp_ipfix_target_name() (NULL: "sink")
 * @return the target's index; -ENOSPC; -EINVAL (@p fn NULL, unknown flags); -ENOMEM
 */
int gpudp_ipfix_add_sink(struct gpudp_ipfix *x, gpudp_ipfix_sink_fn fn, void *arg,
			 unsigned int flags, const char *name);

/** Number of targets. */
unsigned int gpudp_ipfix_target_count(const struct gpudp_ipfix *x);

/**
 * A target's name ("udp:192.0.2.1:4739", "file:flows.ipfix", ...).
 *
 * @param x    the exporter
 * @param idx  its index
 * @return the name, valid while @p x is; NULL for an index out of range
 */
const char *gpudp_ipfix_target_name(const struct gpudp_ipfix *x, unsigned int idx);

/** gpudp_ipfix_stats.state */
enum gpudp_ipfix_state {
	GPUDP_IPFIX_STATE_UP = 0,     /**< taking records (UDP, FILE, SINK always) */
	GPUDP_IPFIX_STATE_CONNECTING, /**< TCP: a connect under way; records are queued */
	GPUDP_IPFIX_STATE_DOWN,       /**< TCP: waiting before the next connect; records
				       *   are dropped */
};

/** A target's counters since it was added. */
struct gpudp_ipfix_stats {
	uint64_t messages;   /**< messages that left whole (sent, written, taken by the
			      *   sink; TCP: written to the socket entirely) */
	uint64_t records;    /**< data records in them */
	uint64_t dropped;    /**< records lost: a send or write that failed, a TCP
			      *   queue that was full or lost with its connection,
			      *   no connection, af neither 4 nor 6 */
	uint64_t errors;     /**< failed sends, writes, connects, lost connections
			      *   (ECONNREFUSED over UDP among them) */
	uint64_t bytes;      /**< bytes that left (TCP: written to the socket) */
	uint64_t template_msgs; /**< messages that carried the templates */
	uint64_t connects;   /**< TCP: connections made */
	uint32_t queued;     /**< TCP: bytes waiting in the queue now */
	int last_error;      /**< errno of the latest error (0: none) */
	enum gpudp_ipfix_state state; /**< now */
};

/**
 * A target's counters.
 *
 * @param x    the exporter
 * @param idx  the target's index
 * @param st   filled
 * @return 0; -EINVAL (index out of range)
 */
int gpudp_ipfix_stats_get(const struct gpudp_ipfix *x, unsigned int idx,
			  struct gpudp_ipfix_stats *st);

/**
 * Export records to every target: add them to the targets' messages,
 * sending each message when it is full (and one open longer than
 * max_delay_ms), then move what the TCP queues hold into their sockets as
 * far as they take it. Never waits. What cannot be sent is counted
 * (gpudp_ipfix_stats_get()), never returned as an error.
 *
 * @param x     the exporter
 * @param recs  the records
 * @param n     how many
 */
void gpudp_ipfix_export(struct gpudp_ipfix *x, const struct gpudp_flow_rec *recs, size_t n);

/**
 * Timers and TCP, without waiting: send messages open longer than
 * max_delay_ms, templates due by refresh_s with no record to carry them
 * (UDP), finish connects and start new ones after their backoff, notice
 * collectors that closed the connection, move TCP queues into their
 * sockets. Call it every few milliseconds to a second while records are
 * rare.
 *
 * @param x  the exporter
 */
void gpudp_ipfix_poll(struct gpudp_ipfix *x);

/**
 * Send every message under construction now, then move the TCP queues
 * into their sockets as far as they take them without waiting.
 *
 * @param x  the exporter
 * @return 0 (nothing left waiting); -EAGAIN (bytes left in a TCP queue,
 *   waiting for the socket or for a connect under way: gpudp_ipfix_poll()
 *   or gpudp_ipfix_drain() goes on)
 */
int gpudp_ipfix_flush(struct gpudp_ipfix *x);

/**
 * gpudp_ipfix_flush(), then wait up to @p timeout_ms for the TCP queues to
 * empty into their sockets (and for connects under way). The exporter
 * stays usable.
 *
 * @param x           the exporter
 * @param timeout_ms  longest wait
 * @return 0 (everything left); -ETIMEDOUT (bytes still queued)
 */
int gpudp_ipfix_drain(struct gpudp_ipfix *x, unsigned int timeout_ms);

/**
 * gpudp_ipfix_drain(), then close every target and free the exporter.
 * Records still queued are dropped.
 *
 * @param x           the exporter (NULL: nothing)
 * @param timeout_ms  longest wait for the TCP queues
 * @return as gpudp_ipfix_drain()
 */
int gpudp_ipfix_close(struct gpudp_ipfix *x, unsigned int timeout_ms);

/**
 * The template a record is exported with.
 *
 * @param rec  the record
 * @return its template id (GPUDP_IPFIX_TEMPLATE_FIRST + the
 *   GPUDP_IPFIX_TEMPLATE_* bits); 0 when its af is neither 4 nor 6
 */
uint16_t gpudp_ipfix_template_of(const struct gpudp_flow_rec *rec);

/**
 * Bytes of a data record of a template.
 *
 * @param tid  a template id, 256..263
 * @return its length; 0 for another id
 */
uint32_t gpudp_ipfix_record_len(uint16_t tid);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_IPFIX_H */
