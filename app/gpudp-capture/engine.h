/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Analysis engines of gpudp-capture: where a staged batch of packets is
 * analysed. Each engine fills an ops table; the app (and the benchmark and
 * tests, which do not use DPDK) only call through it.
 *
 * - "cpu": gpudp_analysis_batch() on the calling thread.
 * - "gpu": the staged path: the batch is built in pinned host memory, copied
 *   to device memory on a stream, and the kernel gpudp_capture_analyse runs
 *   after the copy on the same stream; the match bitmap comes back on the
 *   stream too. Several batches are in flight (the app fills the next one
 *   while the GPU works). Flow table and counters stay in device memory and
 *   accumulate over the run; cap_engine_collect() reads them back and merges
 *   them into a struct gpudp_analysis, the same struct the CPU path fills.
 *
 * Batch lifecycle: cap_engine_get_batch() -> cap_batch_alloc() per packet ->
 * cap_engine_submit(). When a batch is done the engine calls conf.done with
 * the batch (packets, data and match bitmap still valid), then reuses it.
 */
#ifndef GPUDP_CAPTURE_ENGINE_H
#define GPUDP_CAPTURE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudp_analysis.h"

/** A staged batch: descriptors and packet bytes, contiguous. */
struct cap_batch {
	struct gpudp_an_pkt_desc *desc; /**< max_pkts descriptors */
	uint8_t *data;                  /**< data_cap bytes */
	uint32_t *match;                /**< filter bitmap, valid in the done callback */
	uint32_t n;                     /**< packets in the batch */
	uint32_t max_pkts;
	uint32_t data_used;
	uint32_t data_cap;
	uint32_t cap_bytes;             /**< sum of the packets' captured lengths */
	uint32_t n_match;               /**< matches, valid in the done callback */
	uint32_t slot;                  /**< engine-private index */
};

struct cap_engine;

/** Called for every finished batch, in submission order. */
typedef void (*cap_batch_done_t)(void *arg, const struct cap_batch *b);

/** Engine configuration. */
struct cap_engine_conf {
	uint32_t batch_pkts;            /**< packets per batch */
	uint32_t batch_bytes;           /**< data bytes per batch */
	uint32_t flow_capacity;         /**< flow table slots (power of two) */
	struct gpudp_filter filter;     /**< compiled filter (n_insn 0: none) */
	int gpu_device;                 /**< CUDA device ordinal (gpu engine) */
	uint32_t inflight;              /**< batches in flight (gpu engine), >= 1 */
	cap_batch_done_t done;          /**< may be NULL */
	void *done_arg;
};

/** What an engine did (for the report's "GPU share"). */
struct cap_engine_stats {
	uint64_t pkts;        /**< packets analysed */
	uint64_t bytes;       /**< captured bytes analysed */
	uint64_t batches;
	uint64_t copy_bytes;  /**< bytes copied host -> device (gpu) */
	double busy_ms;       /**< cpu: time in analysis; gpu: copy + kernel time (events) */
	double kernel_ms;     /**< gpu: kernel time only */
	char device[128];     /**< "CPU" or the GPU's name and PCI address */
};

/** Engine operations. All return 0 or a negative errno value. */
struct cap_engine_ops {
	const char *name;
	int (*init)(struct cap_engine *e, char *err, size_t errlen);
	struct cap_batch *(*get_batch)(struct cap_engine *e);
	int (*submit)(struct cap_engine *e, struct cap_batch *b);
	int (*flush)(struct cap_engine *e);
	int (*collect)(struct cap_engine *e, struct gpudp_analysis *out);
	void (*fini)(struct cap_engine *e);
};

/** An engine instance. */
struct cap_engine {
	const struct cap_engine_ops *ops;
	struct cap_engine_conf conf;
	struct cap_engine_stats st;
	char err[256];    /**< why the last call failed */
	void *priv;
};

extern const struct cap_engine_ops cap_engine_cpu_ops;
#ifdef GPUDP_HAS_CUDA
extern const struct cap_engine_ops cap_engine_gpu_ops;
#endif

/**
 * Create an engine.
 * @param e     filled
 * @param name  "cpu" or "gpu"
 * @param conf  configuration (copied)
 * @param err   message on failure
 * @return 0; -ENOTSUP (unknown name, or "gpu" in a build without CUDA);
 *         -ENODEV (no GPU); -ENOMEM; -EIO (a CUDA call failed)
 */
int cap_engine_create(struct cap_engine *e, const char *name,
		      const struct cap_engine_conf *conf, char *err, size_t errlen);

/** A free batch to fill (waits for the oldest in-flight batch if needed). NULL on error. */
static inline struct cap_batch *
cap_engine_get_batch(struct cap_engine *e)
{
	return e->ops->get_batch(e);
}

/** Hand a filled batch to the engine (an empty batch is returned unused). */
static inline int
cap_engine_submit(struct cap_engine *e, struct cap_batch *b)
{
	return e->ops->submit(e, b);
}

/** Wait until every submitted batch is done (done callbacks called). */
static inline int
cap_engine_flush(struct cap_engine *e)
{
	return e->ops->flush(e);
}

/**
 * Flush, then replace out's counters and flows with the engine's totals.
 * @param out an analysis object with a flow table at least as large as the engine's
 */
static inline int
cap_engine_collect(struct cap_engine *e, struct gpudp_analysis *out)
{
	return e->ops->collect(e, out);
}

/** Free the engine (flushes first). */
void cap_engine_destroy(struct cap_engine *e);

/**
 * Reserve room for one packet in a batch.
 * @return where to write caplen bytes, or NULL if the batch is full
 */
static inline uint8_t *
cap_batch_alloc(struct cap_batch *b, uint32_t caplen, uint32_t wirelen, uint64_t ts_ns)
{
	struct gpudp_an_pkt_desc *d;
	uint32_t off = b->data_used;

	if (b->n == b->max_pkts || caplen > b->data_cap - off)
		return NULL;
	d = &b->desc[b->n++];
	d->off = off;
	d->caplen = caplen;
	d->wirelen = wirelen < caplen ? caplen : wirelen;
	d->pad = 0;
	d->ts_ns = ts_ns;
	b->cap_bytes += caplen;
	/* keep every packet 8-byte aligned */
	b->data_used = off + ((caplen + 7u) & ~7u);
	if (b->data_used > b->data_cap)
		b->data_used = b->data_cap;
	return b->data + off;
}

/** Whether packet i of a finished batch matched the filter. */
static inline int
cap_batch_matched(const struct cap_batch *b, uint32_t i)
{
	return (b->match[i / 32] >> (i % 32)) & 1;
}

#endif /* GPUDP_CAPTURE_ENGINE_H */
