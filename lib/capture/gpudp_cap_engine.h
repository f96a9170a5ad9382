/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_capture's engines: where a batch of packets is analysed (the
 * traffic analysis of gpudp_analysis.h). Each engine fills an ops table;
 * callers (gpudp-capture, its benchmark, the threaded reader of
 * gpudp_cap_reader.h, the tests) only call through it. No EAL is needed.
 *
 * - "cpu": gpudp_analysis_batch() on the calling thread.
 * - "gpu" (a build with CUDA): the analysis as a work
 *   (gpudp_analysis_work.h) run by a handoff (gpudp_handoff.h), as
 *   gpudp-fwd runs its works: one burst per batch, the handoff's in-flight
 *   ring, streams and ordering rule. Staged batches are built in pinned
 *   host memory and go through the handoff's staged mode (a gather kernel
 *   copies them into GPU memory, the work's kernel runs after the copy);
 *   in-place batches through its launch mode (the kernel reads each packet
 *   where it is). The filter's verdicts come back as the match bitmap.
 *   Several batches are in flight (the caller fills the next one while the
 *   GPU works). Flow and fragment tables stay in device memory and
 *   accumulate over the run, the counters in the handoff's sums;
 *   gpudp_cap_engine_collect() reads them back and merges them into a
 *   struct gpudp_analysis, the same struct the CPU engine fills.
 *
 * Batch lifecycle: gpudp_cap_engine_get_batch() -> gpudp_cap_batch_alloc()
 * per packet (or the bulk helpers of gpudp_cap_batch.h) ->
 * gpudp_cap_engine_submit().
 * When a batch is done the engine calls conf.done with the batch (packets,
 * data and match bitmap still valid), then reuses it.
 *
 * In-place batches (conf.mem GPUDP_CAP_MEM_HOST or GPUDP_CAP_MEM_DEVICE):
 * no packet is copied. The caller adds, per packet, a reference (struct
 * gpudp_an_pkt_ref: address, lengths, timestamp) and an owner handle (its
 * mbuf) with gpudp_cap_batch_add_ref(); the engine analyses the bytes where
 * they are (the GPU engine's kernel reads only the references over PCIe
 * and each packet in place). After the batch is done (conf.done called),
 * conf.release gets the owners back: only then may the caller free the
 * buffers. Matching packets are host-readable in the done callback through
 * gpudp_cap_batch_pkt(): for device memory the GPU engine copies them out
 * (cuMemcpyDtoHAsync) first, into the batch's data area.
 *
 * An engine is used by one thread at a time. Errors are negative errno
 * values; the engine's err says why in words.
 */
#ifndef GPUDP_CAP_ENGINE_H
#define GPUDP_CAP_ENGINE_H

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "gpudp_analysis.h"
#include "gpudp_cap_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpudp_cap_engine;

/**
 * Called for every finished batch, in submission order.
 *
 * @param arg  conf.done_arg
 * @param b    the batch: its packets, data and match bitmap (valid until
 *             the callback returns)
 */
typedef void (*gpudp_cap_batch_done_t)(void *arg, const struct gpudp_cap_batch *b);

/**
 * In place: give back the owners of a batch's packets (after conf.done, or
 * instead of it when the engine failed): the buffers may be freed now.
 *
 * @param arg    conf.done_arg
 * @param owner  the owners given to gpudp_cap_batch_add_ref(), in order
 * @param n      how many
 */
typedef void (*gpudp_cap_batch_release_t)(void *arg, void **owner, uint32_t n);

/**
 * In place, GPUDP_CAP_MEM_DEVICE on the CPU engine: where the CPU reads
 * device memory.
 *
 * @param arg   conf.view_arg
 * @param addr  a packet's address in device memory
 * @param len   its bytes
 * @return the CPU's address of those bytes, or NULL (the packet is
 *   counted unreadable and not analysed)
 */
typedef const uint8_t *(*gpudp_cap_cpu_view_t)(void *arg, uint64_t addr, uint32_t len);

/** Engine configuration. */
struct gpudp_cap_engine_conf {
	uint32_t batch_pkts;            /**< packets per batch */
	uint32_t batch_bytes;           /**< data bytes per batch */
	uint32_t flow_capacity;         /**< flow table slots (power of two) */
	struct gpudp_filter filter;     /**< compiled filter (n_insn 0: none) */
	/** payload inspection: the compiled patterns (kept by the caller while
	 *  the engine lives), or NULL (gpudp_analysis_set_match()) */
	const struct gpudp_match_db *match;
	uint32_t match_flags;           /**< GPUDP_AN_MATCH_FRAME */
	int gpu_device;                 /**< CUDA device ordinal (gpu engine), when cu_ctx is 0 */
	uint64_t cu_ctx;                /**< gpu engine: the CUcontext to run in (gpudev's,
					     *   where the app's pools live); 0: the primary
					     *   context of gpu_device */
	uint32_t inflight;              /**< batches in flight (gpu engine), >= 1 */
	gpudp_cap_batch_done_t done;    /**< may be NULL */
	void *done_arg;
	enum gpudp_cap_mem mem;         /**< staged (default) or in place */
	gpudp_cap_batch_release_t release; /**< in place: required; called with done_arg */
	/**
	 * GPUDP_CAP_MEM_HOST on the GPU engine: 1 to copy each packet into GPU
	 * memory first (the handoff's staged mode: a gather kernel reads
	 * each packet from host memory in one piece, then the analysis runs
	 * on the copy); 0 to let the analysis kernel read the packets where
	 * they are (launch mode). Ignored elsewhere.
	 */
	int gather;
	gpudp_cap_cpu_view_t cpu_view;  /**< GPUDP_CAP_MEM_DEVICE on the CPU engine: required */
	void *view_arg;
	/**
	 * gpu engine: share the analysis tables (flows, fragments, pattern
	 * counts, in GPU memory) of this engine, a gpu engine of the same
	 * context made with the same flow capacity, filter and payload
	 * inspection, which must outlive this one. The kernels of both update
	 * them at once (atomically, as the batches of one engine do). This
	 * engine's gpudp_cap_engine_collect() then gives only its counters (and
	 * no flow, fragment or pattern count); the owner's gives the tables,
	 * so it is called after every sharer's flush. NULL: tables of its own.
	 * Ignored by the cpu engine.
	 */
	const struct gpudp_cap_engine *share;
	/**
	 * The flow monitor (gpudp_analysis_life_start(), doc/flows.md): flows
	 * end as the packets' time goes on and their records go to flows_out
	 * (the CPU engine: on the thread that submits batches; the GPU engine:
	 * on a thread of its own, on conf.cpus; in order, one call at a time,
	 * every record given before gpudp_cap_engine_flush() and
	 * gpudp_cap_engine_end_flows() return); the flow table stays bounded.
	 * Both engines give the same records. It needs flow_capacity >= 2 x
	 * batch_pkts (a look before each batch leaves at most half the table
	 * in use, so a batch of new flows finds room): -EINVAL
	 * otherwise. NULL: flows are kept for the report.
	 */
	const struct gpudp_flow_life *life;
	gpudp_flow_export_fn *flows_out;  /**< with life: required */
	void *flows_arg;                  /**< its first argument */
	/**
	 * Rules (gpudp_analysis_set_rules(), doc/rules.md): the compiled
	 * image, kept by the caller while the engine lives, or NULL. Both
	 * engines give the same counts and the same alert records.
	 */
	const struct gpudp_rules_img *rules;
	/**
	 * With rules: receives the alert records (@p n at @p rec, valid
	 * during the call; @p lost: records that found no room), on the
	 * thread that submits batches, after the batches that made them
	 * completed; NULL: counts only. The GPU engine gives them when it
	 * flushes and when the records made since the last time could fill
	 * half the room; it gives none with share (-ENOTSUP).
	 */
	void (*alerts_out)(void *arg, const struct gpudp_rule_alert *rec, uint32_t n,
			   uint64_t lost);
	void *alerts_arg;                 /**< its first argument */
	uint32_t alert_room;              /**< alert records kept between two calls of
					   *   alerts_out; 0: GPUDP_CAP_ALERT_ROOM */
	/**
	 * The CPUs of the engine's own threads: the GPU engine's flow monitor
	 * makes the records of the flows that end, and calls flows_out, on a
	 * thread of its own. NULL: those of the thread that creates the
	 * engine (an EAL lcore's one CPU: the analysis's).
	 */
	const cpu_set_t *cpus;
};

/** Default alert records an engine keeps between two calls of alerts_out. */
#define GPUDP_CAP_ALERT_ROOM (1u << 18)

/** What an engine did (for the report's "GPU share"). */
struct gpudp_cap_engine_stats {
	uint64_t pkts;        /**< packets analysed */
	uint64_t bytes;       /**< captured bytes analysed */
	uint64_t batches;
	uint64_t copy_bytes;  /**< bytes copied host -> device (gpu; in place: references only) */
	uint64_t copy_out_bytes; /**< in place, device memory: matching packets copied to the host */
	uint64_t unreadable;  /**< in place: packets whose bytes could not be reached (not analysed) */
	double busy_ms;       /**< cpu: time in analysis; gpu: from each batch's submission
			       *   to its kernel's end (copy and kernel) */
	double kernel_ms;     /**< gpu: kernel time only (the kernels' own clock) */
	double wait_ms;       /**< gpu: host time spent waiting for batches in flight to end
			       *   (a free slot, or the flush) */
	double submit_ms;     /**< gpu: host time spent describing and submitting batches */
	char device[128];     /**< "CPU" or the GPU's name and PCI address */
};

/**
 * Engine operations, what the functions below call. Those returning int
 * return 0 or a negative errno value, as the function that calls them.
 */
struct gpudp_cap_engine_ops {
	const char *name;  /**< "cpu" or "gpu" */
	/** set the engine up (e->conf is set): gpudp_cap_engine_create() */
	int (*init)(struct gpudp_cap_engine *e, char *err, size_t errlen);
	/** gpudp_cap_engine_get_batch() */
	struct gpudp_cap_batch *(*get_batch)(struct gpudp_cap_engine *e);
	/** gpudp_cap_engine_submit() */
	int (*submit)(struct gpudp_cap_engine *e, struct gpudp_cap_batch *b);
	/** gpudp_cap_engine_flush() */
	int (*flush)(struct gpudp_cap_engine *e);
	/** gpudp_cap_engine_reap() */
	int (*reap)(struct gpudp_cap_engine *e);
	/** gpudp_cap_engine_collect() */
	int (*collect)(struct gpudp_cap_engine *e, struct gpudp_analysis *out);
	/** free what init made (flushing first): gpudp_cap_engine_destroy() */
	void (*fini)(struct gpudp_cap_engine *e);
	/** optional (NULL: nothing to do): gpudp_cap_engine_host_register() */
	int (*host_register)(struct gpudp_cap_engine *e, const void *addr, size_t len);
	/** optional: gpudp_cap_engine_host_unregister() */
	void (*host_unregister)(struct gpudp_cap_engine *e, const void *addr);
	/** optional (engines with the flow monitor): gpudp_cap_engine_end_flows() */
	int (*end_flows)(struct gpudp_cap_engine *e);
	/** optional: gpudp_cap_engine_flow_stats() */
	void (*flow_stats)(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st);
};

/** An engine instance. */
struct gpudp_cap_engine {
	const struct gpudp_cap_engine_ops *ops;  /**< NULL: not created */
	struct gpudp_cap_engine_conf conf;       /**< its configuration */
	struct gpudp_cap_engine_stats st;        /**< what it did so far */
	char err[256];    /**< why the last call failed */
	void *priv;       /**< the engine's own state */
};

/** The CPU engine's operations ("cpu"). */
extern const struct gpudp_cap_engine_ops gpudp_cap_engine_cpu_ops;
#ifdef GPUDP_HAS_CUDA
/** The GPU engine's operations ("gpu"), in a build with CUDA. */
extern const struct gpudp_cap_engine_ops gpudp_cap_engine_gpu_ops;
#endif

/**
 * Create an engine.
 *
 * @param e       filled (its ops stay NULL on failure)
 * @param name    "cpu" or "gpu"
 * @param conf    configuration (copied)
 * @param err     on failure, why
 * @param errlen  size of @p err
 * @return 0; -ENOTSUP (unknown name, or "gpu" in a build without CUDA, or
 *   a memory type the engine cannot read); -EINVAL (bad configuration);
 *   -ENODEV (no GPU); -ENOMEM; -EIO (a CUDA call failed)
 */
int gpudp_cap_engine_create(struct gpudp_cap_engine *e, const char *name,
			    const struct gpudp_cap_engine_conf *conf, char *err, size_t errlen);

/**
 * A free batch to fill, empty (waits for the oldest in-flight batch when
 * every batch is in flight).
 *
 * @param e  the engine
 * @return the batch, or NULL (the engine failed: e->err says why)
 */
static inline struct gpudp_cap_batch *
gpudp_cap_engine_get_batch(struct gpudp_cap_engine *e)
{
	return e->ops->get_batch(e);
}

/**
 * Hand a filled batch to the engine (an empty batch is returned unused).
 *
 * @param e  the engine
 * @param b  the batch gpudp_cap_engine_get_batch() gave, filled
 * @return 0; -EIO (the engine failed: e->err says why); -EINVAL (the GPU
 *   engine: a batch lent bytes the GPU cannot read, gpudp_cap_batch_lend();
 *   nothing was submitted)
 */
static inline int
gpudp_cap_engine_submit(struct gpudp_cap_engine *e, struct gpudp_cap_batch *b)
{
	return e->ops->submit(e, b);
}

/**
 * Wait until every submitted batch is done (done callbacks called).
 *
 * @param e  the engine
 * @return 0, or -EIO (the engine failed: e->err says why)
 */
static inline int
gpudp_cap_engine_flush(struct gpudp_cap_engine *e)
{
	return e->ops->flush(e);
}

/**
 * Finish the oldest batch in flight, if any (done and release callbacks
 * called): in place, this gives buffers back when the caller runs short.
 *
 * @param e  the engine
 * @return 1 if a batch was finished, 0 if none was in flight, or -EIO (the
 *   engine failed: e->err says why)
 */
static inline int
gpudp_cap_engine_reap(struct gpudp_cap_engine *e)
{
	return e->ops->reap(e);
}

/**
 * Flush, then replace out's counters, flows, fragment table and (when out
 * has payload inspection on, with the engine's database) per-pattern counts
 * with the engine's totals (raw: gpudp_analysis_counters() and
 * gpudp_analysis_flows() resolve the fragments). An engine that shares
 * another's tables (conf.share) gives its counters only, and the owner the
 * tables everyone filled (see gpudp_cap_engine_conf.share).
 *
 * @param e    the engine
 * @param out  an analysis object with a flow table at least as large as
 *             the engine's
 * @return 0; -EIO (the engine failed: e->err says why); -ENOMEM; -ENOSPC
 *   (flows that did not fit @p out, counted as drops)
 */
static inline int
gpudp_cap_engine_collect(struct gpudp_cap_engine *e, struct gpudp_analysis *out)
{
	return e->ops->collect(e, out);
}

/**
 * Make @p len bytes of host memory at @p addr, which the caller keeps
 * mapped and unchanged while they are registered (a mapped capture file),
 * readable by the engine for GPUDP_CAP_MEM_HOST batches. The GPU engine pins
 * them read-only for every context (cuMemHostRegister with
 * CU_MEMHOSTREGISTER_READ_ONLY and _PORTABLE): one registration serves
 * every GPU engine of the process on that GPU. The CPU engine needs none.
 *
 * @param e     the engine
 * @param addr  the memory
 * @param len   its bytes
 * @return 0; -ENOTSUP (the GPU cannot read registered read-only memory),
 *   -EIO (the driver refused: e->err says why). The caller then stages
 *   copies instead.
 */
static inline int
gpudp_cap_engine_host_register(struct gpudp_cap_engine *e, const void *addr, size_t len)
{
	return e->ops->host_register != NULL ? e->ops->host_register(e, addr, len) : 0;
}

/**
 * Undo gpudp_cap_engine_host_register() (after every batch that reads the
 * memory is done).
 *
 * @param e     the engine that registered it
 * @param addr  the address given to gpudp_cap_engine_host_register()
 */
static inline void
gpudp_cap_engine_host_unregister(struct gpudp_cap_engine *e, const void *addr)
{
	if (e->ops->host_unregister != NULL)
		e->ops->host_unregister(e, addr);
}

/**
 * With the flow monitor (conf.life): end every flow (forced end, at the end
 * of the input or at shutdown), their records to conf.flows_out, after
 * flushing the batches in flight.
 * @return 0, or a negative errno (the engine's error)
 */
int gpudp_cap_engine_end_flows(struct gpudp_cap_engine *e);

/** The flow monitor's counters (zero without it). */
void gpudp_cap_engine_flow_stats(const struct gpudp_cap_engine *e,
				 struct gpudp_flow_life_stats *st);

/**
 * Free the engine, flushing first (in place, the owners of batches still
 * out go back through conf.release).
 *
 * @param e  the engine (its ops NULL: nothing is done)
 */
void gpudp_cap_engine_destroy(struct gpudp_cap_engine *e);

/**
 * @return monotonic time in seconds (CLOCK_MONOTONIC): the clock of the
 *   engines' and the threaded reader's times
 */
double gpudp_cap_now_s(void);

/** The alert records an engine of @p c keeps between two calls of alerts_out. */
static inline uint32_t
gpudp_cap_alert_room(const struct gpudp_cap_engine_conf *c)
{
	return c->alert_room != 0 ? c->alert_room : GPUDP_CAP_ALERT_ROOM;
}

/**
 * Add one engine's counts and times into another's (device name aside).
 *
 * @param dst  added to
 * @param src  added
 */
void gpudp_cap_engine_stats_add(struct gpudp_cap_engine_stats *dst,
				const struct gpudp_cap_engine_stats *src);

/**
 * For engines: allocate a batch's host arrays for @p c (staged: desc and
 * data; in place: ref, owner and view) and its match bitmap.
 *
 * @param b     the batch (zeroed)
 * @param c     the engine's configuration (mem, batch_pkts, batch_bytes)
 * @param data  staged: the data area (c->batch_bytes), or NULL to allocate one
 * @param desc  staged: the descriptors (c->batch_pkts), or NULL to allocate
 *              them; both given or both allocated
 * @return 0 or -ENOMEM (free what was allocated with gpudp_cap_batch_arrays_free)
 */
int gpudp_cap_batch_arrays_alloc(struct gpudp_cap_batch *b, const struct gpudp_cap_engine_conf *c,
				 uint8_t *data, struct gpudp_pkt_desc *desc);

/**
 * Free what gpudp_cap_batch_arrays_alloc() allocated.
 *
 * @param b          the batch
 * @param free_data  also the data area and the descriptors (those it
 *                   allocated itself)
 */
void gpudp_cap_batch_arrays_free(struct gpudp_cap_batch *b, int free_data);

/**
 * Room for one packet of @p caplen bytes in the batch @p *b, a staged one:
 * when it is full, it is submitted and *b becomes the next free batch.
 *
 * @param e        the engine
 * @param b        the batch being filled; the next one after a submission
 * @param caplen   the packet's captured bytes
 * @param wirelen  its original length
 * @param ts_ns    its capture time, ns since the epoch
 * @param dst      set to where the packet's bytes go
 * @return 0; -EIO (the engine failed: e->err says why; *b may be NULL);
 *   -E2BIG (the packet alone is larger than a batch)
 */
static inline int
gpudp_cap_engine_room(struct gpudp_cap_engine *e, struct gpudp_cap_batch **b, uint32_t caplen,
		      uint32_t wirelen, uint64_t ts_ns, uint8_t **dst)
{
	*dst = gpudp_cap_batch_alloc(*b, caplen, wirelen, ts_ns);
	if (*dst != NULL)
		return 0;
	if (gpudp_cap_engine_submit(e, *b) != 0)
		return -EIO;
	*b = gpudp_cap_engine_get_batch(e);
	if (*b == NULL)
		return -EIO;
	*dst = gpudp_cap_batch_alloc(*b, caplen, wirelen, ts_ns);
	return *dst != NULL ? 0 : -E2BIG;
}

/**
 * In place: add one packet by reference to the batch @p *b: when it is
 * full, it is submitted and *b becomes the next free batch (the owner is
 * NULL: for callers whose memory outlives the engine).
 *
 * @param e        the engine
 * @param b        the batch being filled; the next one after a submission
 * @param addr     where the packet's caplen bytes are
 * @param caplen   its captured bytes
 * @param wirelen  its original length
 * @param ts_ns    its capture time, ns since the epoch
 * @return 0; -EIO (the engine failed: e->err says why; *b may be NULL);
 *   -E2BIG (the packet alone is larger than a batch)
 */
static inline int
gpudp_cap_engine_room_ref(struct gpudp_cap_engine *e, struct gpudp_cap_batch **b, uint64_t addr,
			  uint32_t caplen, uint32_t wirelen, uint64_t ts_ns)
{
	if (gpudp_cap_batch_add_ref(*b, addr, caplen, wirelen, ts_ns, NULL) == 0)
		return 0;
	if (gpudp_cap_engine_submit(e, *b) != 0)
		return -EIO;
	*b = gpudp_cap_engine_get_batch(e);
	if (*b == NULL)
		return -EIO;
	return gpudp_cap_batch_add_ref(*b, addr, caplen, wirelen, ts_ns, NULL) == 0 ? 0 : -E2BIG;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CAP_ENGINE_H */
