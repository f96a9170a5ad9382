/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Prometheus metrics (doc/metrics.md): the text exposition format
 * (version 0.0.4) written into a buffer, and an HTTP endpoint that serves
 * it through libmicrohttpd, on a thread of its own.
 *
 * The endpoint never touches the data path: for each scrape it calls the
 * application's collect function on its own thread, which writes the
 * families from a snapshot the data path published (the applications keep
 * one behind a sequence counter). A slow or abusive client costs the
 * endpoint's thread only: connections time out, their number is bounded
 * (in all and from one address), a request's headers have a memory bound
 * (more: HTTP 431), a path other than /metrics gets 404 and a method other
 * than GET or HEAD 405.
 *
 * No DPDK, no CUDA. Built without libmicrohttpd, the writer works and
 * gpudp_metrics_start() fails with -ENOTSUP.
 */
#ifndef GPUDP_METRICS_H
#define GPUDP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A metric family's type (the `# TYPE` line). */
enum gpudp_metrics_type {
	GPUDP_METRICS_COUNTER,
	GPUDP_METRICS_GAUGE,
	GPUDP_METRICS_HISTOGRAM,
};

/** A text exposition being written: a growing buffer and its first error. */
struct gpudp_metrics_text {
	char *buf;      /**< NUL-terminated text (NULL before the first write) */
	size_t len;     /**< its length */
	size_t cap;     /**< the buffer's size */
	int err;        /**< 0, or the first error: -ENOMEM, -EINVAL (a bad name) */
};

/**
 * Start a family: its `# HELP` and `# TYPE` lines.
 *
 * @param t     the text
 * @param name  the metric name, [a-zA-Z_:][a-zA-Z0-9_:]* (else t->err is
 *              -EINVAL and nothing is written)
 * @param type  its type
 * @param help  one line of help (backslashes and newlines escaped)
 */
void gpudp_metrics_family(struct gpudp_metrics_text *t, const char *name,
			  enum gpudp_metrics_type type, const char *help);

/**
 * One sample with an integer value: `name{k="v",...} value`.
 *
 * @param t       the text
 * @param name    the sample's name (the family's, or with _total for a counter)
 * @param labels  label names and values, alternating, ending with NULL; or
 *                NULL for none. Names are [a-zA-Z_][a-zA-Z0-9_]* (else
 *                t->err is -EINVAL and nothing is written); values are
 *                escaped (backslash, double quote, newline)
 * @param v       the value
 */
void gpudp_metrics_u64(struct gpudp_metrics_text *t, const char *name,
		       const char *const *labels, uint64_t v);

/** The same with a floating value (%.17g; NaN and infinities as Prometheus writes them). */
void gpudp_metrics_f64(struct gpudp_metrics_text *t, const char *name,
		       const char *const *labels, double v);

/**
 * A histogram's samples: `name_bucket{...,le="B"}` for each bound, in
 * increasing order, then le="+Inf", `name_sum` and `name_count`.
 *
 * @param t       the text
 * @param name    the family's name
 * @param labels  as gpudp_metrics_u64(), without "le"
 * @param le      @p n upper bounds, increasing
 * @param counts  @p n + 1 counts: counts[i] observations in
 *                (le[i - 1], le[i]], counts[n] those above le[n - 1]
 *                (made cumulative here)
 * @param n       bounds
 * @param sum     the observations' sum
 */
void gpudp_metrics_histogram(struct gpudp_metrics_text *t, const char *name,
			     const char *const *labels, const double *le,
			     const uint64_t *counts, unsigned int n, double sum);

/** Free the text's buffer; the struct may be written again from zero. */
void gpudp_metrics_text_free(struct gpudp_metrics_text *t);

/**
 * Writes a scrape's families into @p t; called on the endpoint's thread,
 * one scrape at a time.
 */
typedef void gpudp_metrics_collect_fn(void *arg, struct gpudp_metrics_text *t);

/** The endpoint's settings (0: the default). */
struct gpudp_metrics_conf {
	const char *listen;      /**< [HOST:]PORT, parsed as gpudp_metrics_parse_listen() */
	gpudp_metrics_collect_fn *collect; /**< required */
	void *arg;               /**< its first argument */
	unsigned int timeout_s;  /**< an idle connection is closed after it (default 10) */
	unsigned int max_conns;  /**< connections at once (default 16) */
	unsigned int max_per_ip; /**< from one address (default 4) */
	size_t header_bytes;     /**< memory for a request's headers (default 8192:
				  *   larger headers get HTTP 431) */
};

/** What the endpoint answered. */
struct gpudp_metrics_stats {
	uint64_t scrapes;      /**< 200 on /metrics */
	uint64_t not_found;    /**< 404: another path */
	uint64_t bad_method;   /**< 405: not GET or HEAD */
	uint64_t failed;       /**< 500: the text could not be made (out of memory) */
};

struct gpudp_metrics_server;

/**
 * Parse the endpoint's address: `PORT` (the loopback, 127.0.0.1),
 * `HOST:PORT` with HOST an IPv4 address, `localhost` or `*` (every
 * address), or `[V6]:PORT`; PORT 0..65535 (0: any free port). No name
 * is resolved.
 *
 * @param spec    the text
 * @param ss      filled on success
 * @param len     its length
 * @param err     on failure, why, quoting @p spec
 * @param errlen  size of @p err
 * @return 0, or -EINVAL
 */
int gpudp_metrics_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
			       char *err, size_t errlen);

/**
 * Start serving /metrics on conf->listen, on a thread of the endpoint.
 *
 * @param conf    the settings
 * @param out     the endpoint
 * @param err     on failure, why (the address, the system's reason)
 * @param errlen  size of @p err
 * @return 0; -EINVAL (a bad address or setting); -ENOTSUP (built without
 *   libmicrohttpd); -EADDRINUSE or another negative errno (the socket);
 *   -ENOMEM
 */
int gpudp_metrics_start(const struct gpudp_metrics_conf *conf, struct gpudp_metrics_server **out,
			char *err, size_t errlen);

/** @return the port the endpoint listens on (the one chosen for port 0) */
uint16_t gpudp_metrics_port(const struct gpudp_metrics_server *s);

/** Its answers so far into @p st. */
void gpudp_metrics_stats_get(const struct gpudp_metrics_server *s, struct gpudp_metrics_stats *st);

/** Stop serving (open connections are closed) and free @p s; NULL is allowed. */
void gpudp_metrics_stop(struct gpudp_metrics_server *s);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_METRICS_H */
