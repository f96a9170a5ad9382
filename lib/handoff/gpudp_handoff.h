/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_handoff: hands bursts that are complete with respect to the CPU to
 * a work (gpudp_work.h: the user's per-packet code, or a built-in one) on
 * the GPU or the CPU, and hands the verdicts and results back. The data
 * flow and the ordering rules it keeps are in doc/architecture.md (the
 * design reference) and doc/ordering.md (the rule per mode).
 *
 * One handoff serves one pipeline: one producer thread (the rx lcore) and
 * one consumer thread (the tx lcore). It is a ring of ring_size in-flight
 * bursts; each burst holds up to burst_max packets:
 *
 *   rx:  b = gpudp_handoff_acquire(h)          NULL: ring full (counted);
 *        gpudp_ho_burst_add(b, data, len, mbuf) ... for each packet
 *          (gpudp_ho_burst_seg() for its further segments, when conf.segs > 1)
 *          (or, in bulk: receive straight into gpudp_ho_burst_room(),
 *          gpudp_ho_burst_desc() for each packet when
 *          gpudp_handoff_needs_desc(h), then gpudp_ho_burst_commit())
 *        gpudp_handoff_submit(h, b)            ordering step + GPU submission
 *   tx:  b = gpudp_handoff_completed(h)        oldest burst, once its done
 *                                              word says so; NULL otherwise
 *        b->n_pass == b->n: every packet passed, b->cookie can go out as
 *        it is (b->verdict is not written then); else use b->verdict[i]
 *        (GPUDP_WORK_PASS: transmit), then
 *        gpudp_handoff_release(h, b)           counts verdicts, frees the slot
 *
 * Modes (an ops table, gpudp_handoff_pvt.h; ordering model: doc/ordering.md):
 * - none:       no work, every packet passes (I/O baseline);
 * - cpu:        the work's CPU form runs on the rx thread in
 *               gpudp_handoff_submit();
 * - launch:     one kernel (the work's GPU form) per burst, launched after the
 *               burst is complete
 *               with respect to the CPU (NVIDIA, "GPUDirect RDMA", "Synchronization and Memory
 *               Ordering": a CPU-initiated work submission orders the NIC's
 *               writes before the kernel's reads);
 * - persistent: a resident kernel polls each slot's ready word with acquire
 *               semantics; the CPU calls cuFlushGPUDirectRDMAWrites before
 *               storing it, unless the device reports
 *               GPU_DIRECT_RDMA_WRITES_ORDERING >= OWNER;
 * - graph:      as launch, graph_batch consecutive bursts per CUDA graph;
 * - staged:     packets in host memory are gathered into a pinned staging
 *               area (the work's span of each), copied to GPU memory on a
 *               copy stream, and the kernel is ordered after the copy on the
 *               GPU (event wait); the work's write span is copied back into
 *               the packets before done.
 *               With conf.stage_gpu_copy (packets in pinned memory) a gather
 *               kernel on the copy stream copies them from the packets into
 *               GPU memory and another copies the headers back: no CPU copy.
 *
 * The packet addresses given to gpudp_ho_burst_add() must be readable and
 * writable by the GPU in launch/persistent/graph modes (GPU memory, or host
 * memory registered with the GPU with the same address, as gpudev and
 * gpudp_mem's pinned pools do) and by the CPU in cpu/staged modes.
 *
 * Log type gpudp.handoff. Errors: negative errno, rte_errno set.
 */
#ifndef GPUDP_HANDOFF_H
#define GPUDP_HANDOFF_H

#include <errno.h>
#include <stdint.h>

#include "gpudp_fwd_pkt.h"
#include "gpudp_handoff_dev.h"
#include "gpudp_pkt_desc.h"
#include "gpudp_work.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Handoff modes. */
enum gpudp_ho_mode {
	GPUDP_HO_NONE = 0,
	GPUDP_HO_CPU,
	GPUDP_HO_LAUNCH,
	GPUDP_HO_PERSISTENT,
	GPUDP_HO_GRAPH,
	GPUDP_HO_STAGED,
	GPUDP_HO_MODE_MAX
};

/** Largest burst of the persistent mode, and of a forwarding pipeline. */
#define GPUDP_HO_BURST_MAX GPUDP_HO_BURST_MAX_DEV
/**
 * Largest burst of the other modes (none, cpu, launch, graph, staged): a
 * batch of a capture analysis; the GPU spreads it over several blocks.
 */
#define GPUDP_HO_BATCH_MAX (1u << 20)
/** Largest staged packet, and staging area per burst (stage_bytes, stage_burst_bytes). */
#define GPUDP_HO_STAGE_MAX (1u << 30)
/** Largest ring. */
#define GPUDP_HO_RING_MAX 65536
/** gpudp_handoff_conf.persistent_blocks: as many as the GPU keeps resident */
#define GPUDP_HO_BLOCKS_FILL UINT32_MAX
/*
 * The default persistent_blocks: the blocks that keep up with
 * GPUDP_HO_PIPE_MPPS million packets per second when a block holds a burst
 * of b packets GPUDP_HO_BLOCK_NS + b * GPUDP_HO_BLOCK_PKT_NS nanoseconds
 * (from ticket to done: the descriptors read over PCIe, the work, the
 * system fence and done; measured on an H200 with the built-in macswap,
 * doc/fwd.md, "Sizing a persistent pipeline"). More than one lcore
 * forwards: the lcore, not the GPU, sets a pipeline's rate.
 */
#define GPUDP_HO_PIPE_MPPS 100u
#define GPUDP_HO_BLOCK_NS 5300u
#define GPUDP_HO_BLOCK_PKT_NS 22u
/** gpudp_handoff_conf.persistent_pollers: most poller warps */
#define GPUDP_HO_POLLERS_MAX GPUDP_HO_POLLERS_MAX_DEV
/** Largest persistent-mode poll interval (ns). */
#define GPUDP_HO_POLL_NS_MAX 100000

/** Parameters of gpudp_handoff_create(). Zero fields take the defaults. */
struct gpudp_handoff_conf {
	const char *name;           /**< for logs and telemetry */
	enum gpudp_ho_mode mode;
	const struct gpudp_work *work; /**< the work (gpudp_work_find(), gpudp_work_load());
					*   NULL: the built-in macswap */
	const char *work_arg;       /**< the work's argument (its init parses it), or NULL */
	const void *params;         /**< the work's parameter block itself (params_size
				     *   bytes, copied), for a caller that builds it (e.g.
				     *   device addresses of its tables): work_arg and the
				     *   work's init are not used then. NULL: from work_arg */
	int meta;                   /**< 1: each packet carries a struct gpudp_work_meta
				     *   (gpudp_ho_burst.meta) that the work sees as
				     *   gpudp_work_pkt.meta; 0: none (meta is NULL) */
	uint32_t segs;              /**< segments described per packet, 1..GPUDP_WORK_SEGS_MAX
				     *   (1): gpudp_ho_burst_seg() describes segments 1..segs-1
				     *   (header/data split). staged mode copies the first
				     *   segment only: the others must be GPU-readable */
	uint32_t ring_size;         /**< in-flight bursts, power of two 2..65536 (64) */
	uint32_t burst_max;         /**< packets per burst, 1..GPUDP_HO_BURST_MAX (4096) in
				     *   persistent mode, 1..GPUDP_HO_BATCH_MAX in the others
				     *   (1024) */
	uint32_t threads;           /**< GPU threads per block, 32..1024, multiple of 32 (256) */
	uint32_t graph_batch;       /**< graph: bursts per graph, divides ring_size (8) */
	uint32_t persistent_blocks; /**< persistent: resident worker blocks, <= ring_size
				     *   (what GPUDP_HO_PIPE_MPPS needs, 2..ring_size:
				     *   19 at bursts of 32, 5 at 256, 3 at 1024);
				     *   one more block dispatches. GPUDP_HO_BLOCKS_FILL:
				     *   as many as the GPU keeps resident at once, shared
				     *   by persistent_share handoffs, at most ring_size.
				     *   The worker blocks and the dispatcher must all be
				     *   resident together with the other persistent
				     *   handoffs of the process on the same GPU, or
				     *   gpudp_handoff_create() fails (ENOSPC) */
	uint32_t persistent_share;  /**< persistent, GPUDP_HO_BLOCKS_FILL: persistent
				     *   handoffs that will share the GPU (0: 1) */
	uint32_t poll_ns;           /**< persistent: GPU sleep after a round of polls that
				     *   found no burst ready, 0..100000 ns (0: spin) */
	uint32_t persistent_pollers; /**< persistent: warps that read the ready words
				     *   in host memory, taking turns, 1..GPUDP_HO_POLLERS_MAX
				     *   and at most threads / 32 (4): a burst waits for
				     *   the next read about a PCIe round trip / pollers;
				     *   each poller makes about one read of up to 32
				     *   ready words per round trip (doc/fwd.md) */
	uint32_t stage_bytes;       /**< staged: most bytes per packet, 64..GPUDP_HO_STAGE_MAX
				     *   (2048); a longer packet is not staged (the work sees
				     *   an empty first segment) */
	uint32_t stage_burst_bytes; /**< staged: staging bytes per burst, each packet taking
				     *   its bytes rounded up to 64, 64..GPUDP_HO_STAGE_MAX;
				     *   0: burst_max x stage_bytes (rounded up to 64).
				     *   Packets past it are not staged: a caller with
				     *   packets of very different sizes (a capture) sets it
				     *   and ends each burst before it is full */
	int stage_gpu_copy;         /**< staged: packets are in memory the GPU can address
				     *   (pinned or CUDA-registered host memory): the copies
				     *   into and out of the staging buffers run on the GPU
				     *   (a gather kernel on the copy stream) instead of a CPU
				     *   memcpy. 0: CPU copies (any host memory). */
	uint64_t cu_ctx;            /**< CUcontext for GPU modes; 0: primary context of cu_dev */
	int cu_dev;                 /**< CUDA ordinal when cu_ctx is 0 */
	int force_flush;            /**< persistent: flush even when the device orders writes */
	uint32_t lat_sample;        /**< latency histograms: time one burst in lat_sample (the
				     *   1st, then every lat_sample-th), a power of two 1..65536;
				     *   0 = 1, every burst. Counters are exact either way. */
	const struct gpudp_handoff *state_from; /**< run the work on this handoff's
				     *   state (gpudp_work.h, "state") instead of
				     *   tables of its own: the same work, a mode of
				     *   the same kind (CPU or GPU), the same GPU, and
				     *   state tables of the same sizes. It must be
				     *   destroyed after this one. NULL: own state */
	int ordered;                /**< staged: the work of each burst runs after the
				     *   work of every burst submitted before it (one
				     *   stream), so that a burst may act on the state the
				     *   earlier ones left (the capture's flow monitor looks
				     *   at its table so, without waiting for the batches
				     *   in flight); the copies into staging still overlap
				     *   the work. Launch mode is always ordered. 0: the
				     *   work of consecutive bursts may overlap */
};

/**
 * Deprecated: a packet of a burst submitted in one piece
 * (gpudp_handoff_submit_desc()) is described by struct gpudp_pkt_desc
 * (gpudp_pkt_desc.h: off, caplen, wirelen, mark, ts_ns), the one type of
 * the capture file reader, the analysis and the handoff; struct
 * gpudp_ho_desc and its field names len and wire_len still compile.
 */
#define gpudp_ho_desc gpudp_pkt_desc

/** One burst in a ring slot. Fields are read-only for users except via the helpers. */
struct gpudp_ho_burst {
	uint32_t n;          /**< packets added */
	uint32_t max;        /**< burst_max */
	uint32_t slot;       /**< ring slot */
	uint32_t seq;        /**< sequence number (gpudp_handoff_dev.h) */
	uint32_t n_pass;     /**< packets whose verdict is GPUDP_WORK_PASS, once completed;
			      *   when it equals n, verdict[] was not written (all passed) */
	uint32_t pad_;
	uint64_t t_first;    /**< ns (gpudp_ho_now_ns) when gpudp_ho_burst_add() added the first
			      *   packet; gpudp_ho_burst_commit() does not set it */
	uint64_t t_submit;   /**< ns when submitted: the burst was complete w.r.t. the CPU;
			      *   0 when the burst is not timed (conf lat_sample) */
	uint64_t udata;      /**< the caller's (e.g. the burst's bytes); the handoff never
			      *   touches it */
	void **cookie;       /**< per packet, given to gpudp_ho_burst_add (e.g. the mbuf) */
	void **data;         /**< internal (staged mode): per packet, the CPU's address of its
			      *   first byte, kept there when addr is rewritten to the staging
			      *   buffer; the burst's own descriptors are addr and len */
	uint32_t *len;       /**< per packet length */
	uint64_t *addr;      /**< per packet, the address the work uses (shared array) */
	const uint8_t *verdict; /**< per packet verdict (GPUDP_WORK_PASS or a drop reason),
				 *   once completed and only when n_pass != n (else every
				 *   packet passed) */
	const uint8_t *result;  /**< per packet result, result_size bytes each (the
				 *   work's), once completed; NULL when result_size is 0 */
	uint32_t result_size;
	uint32_t segs;          /**< conf.segs */
	const uint64_t *counters; /**< the work's counters for this burst, once completed */
	uint64_t *xaddr;        /**< segments 1..segs-1 of packet i at [i * (segs - 1) + k - 1] */
	uint32_t *xlen;         /**< their lengths (0 ends the packet's segments) */
	struct gpudp_work_meta *meta; /**< conf.meta: packet i's metadata at meta[i],
				       *   written by the rx thread before submit;
				       *   NULL otherwise */
	/* internal: gpudp_handoff_submit_desc()'s arguments while it submits */
	const struct gpudp_pkt_desc *desc_;
	uint64_t desc_data_;
	uint32_t desc_len_;
	uint32_t desc_pad_;
};

/** Monotonic time in ns (CLOCK_MONOTONIC): the clock of every timestamp here. */
uint64_t gpudp_ho_now_ns(void);

/**
 * Add a packet to a burst being filled (rx thread).
 * @return 0, or -ENOSPC when the burst already holds burst_max packets.
 */
static inline int
gpudp_ho_burst_add(struct gpudp_ho_burst *b, void *data, uint32_t len, void *cookie)
{
	if (b->n >= b->max)
		return -ENOSPC;
	if (b->n == 0)
		b->t_first = gpudp_ho_now_ns();
	b->cookie[b->n] = cookie;
	b->len[b->n] = len;
	b->addr[b->n] = (uint64_t)(uintptr_t)data;
	if (b->segs > 1)
		b->xlen[(size_t)b->n * (b->segs - 1)] = 0;
	b->n++;
	return 0;
}

/**
 * Describe segment @p k (1..segs-1) of packet @p i of a burst being filled,
 * after the packet itself (gpudp_ho_burst_add() or gpudp_ho_burst_desc()
 * gave its first segment). Segments are described in order; the work sees
 * the packet as them (struct gpudp_work_pkt).
 * @return 0, or -EINVAL when k is out of 1..segs-1
 */
static inline int
gpudp_ho_burst_seg(struct gpudp_ho_burst *b, uint32_t i, uint32_t k, void *data, uint32_t len)
{
	size_t x;

	if (k == 0 || k >= b->segs)
		return -EINVAL;
	x = (size_t)i * (b->segs - 1) + k - 1;
	b->xaddr[x] = (uint64_t)(uintptr_t)data;
	b->xlen[x] = len;
	if (k + 1 < b->segs)
		b->xlen[x + 1] = 0;
	return 0;
}

/**
 * Bulk filling (rx thread): the free cookie slots of a burst, from b->n on,
 * so a driver can receive straight into them (rte_eth_rx_burst() on
 * (struct rte_mbuf **)room). Up to *room entries may be written; then
 * describe them (gpudp_ho_burst_desc()) if the handoff needs descriptors,
 * and account them with gpudp_ho_burst_commit().
 * @param room  set to the number of free slots (b->max - b->n)
 * @return &b->cookie[b->n]
 */
static inline void **
gpudp_ho_burst_room(struct gpudp_ho_burst *b, uint32_t *room)
{
	*room = b->max - b->n;
	return b->cookie + b->n;
}

/**
 * Describe packet @p i of a burst filled through gpudp_ho_burst_room()
 * (b->n <= i < b->n + the count about to be committed): its CPU address and
 * length, as gpudp_ho_burst_add() would. Needed only when
 * gpudp_handoff_needs_desc() says so (every mode but none).
 */
static inline void
gpudp_ho_burst_desc(struct gpudp_ho_burst *b, uint32_t i, void *data, uint32_t len)
{
	b->len[i] = len;
	b->addr[i] = (uint64_t)(uintptr_t)data;
	if (b->segs > 1)
		b->xlen[(size_t)i * (b->segs - 1)] = 0;
}

/**
 * Account @p k packets written into gpudp_ho_burst_room() (and described,
 * where needed). No timestamp is taken: b->t_first is left as it is.
 * @return 0, or -ENOSPC when k exceeds the room (nothing is accounted).
 */
static inline int
gpudp_ho_burst_commit(struct gpudp_ho_burst *b, uint32_t k)
{
	if (k > b->max - b->n)
		return -ENOSPC;
	b->n += k;
	return 0;
}

/** Latency histogram: log-linear buckets (16 per power of two), ns. */
#define GPUDP_HO_HIST_BUCKETS (16 * 44)
struct gpudp_ho_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t b[GPUDP_HO_HIST_BUCKETS];
};

/** Record a value (single writer). */
void gpudp_ho_hist_add(struct gpudp_ho_hist *h, uint64_t ns);
/** The @p q quantile (0..1) in ns, 0 if empty (bucket upper bound, <= 6.25% high). */
uint64_t gpudp_ho_hist_quantile(const struct gpudp_ho_hist *h, double q);
/** Add @p src into @p dst. */
void gpudp_ho_hist_merge(struct gpudp_ho_hist *dst, const struct gpudp_ho_hist *src);
/**
 * The largest value bucket @p i counts (every value in b[i] is at most
 * this), in ns; for the last bucket, UINT64_MAX (it also counts the values
 * past the others).
 */
uint64_t gpudp_ho_hist_bucket_max(unsigned int i);

/** Counters of one handoff (gpudp_handoff_stats_get()). */
struct gpudp_handoff_stats {
	uint64_t bursts_submitted;  /**< rx thread */
	uint64_t pkts_submitted;
	uint64_t ring_full;         /**< gpudp_handoff_acquire() found no free slot */
	uint64_t flushes;           /**< cuFlushGPUDirectRDMAWrites calls */
	uint64_t graphs;            /**< graph launches (graph mode) */
	uint64_t bursts_done;       /**< tx thread */
	uint64_t pkts_done;
	uint64_t pkts_pass;
	uint64_t drops[GPUDP_WORK_VERDICT_MAX]; /**< per verdict; [PASS] unused; names:
						 *   gpudp_work_verdict_name() */
	uint64_t counters[GPUDP_WORK_COUNTERS_MAX]; /**< the work's counters, summed */
	uint32_t in_flight;         /**< bursts submitted and not released */
	uint64_t gpu_polls;         /**< persistent: reads of the ready words in host
				     *   memory the pollers made (known after
				     *   gpudp_handoff_stop(); 0 before) */
	struct gpudp_ho_hist lat_kstart; /**< submit -> kernel start (timed bursts) */
	struct gpudp_ho_hist lat_kend;   /**< submit -> kernel end, before done (timed bursts) */
	struct gpudp_ho_hist lat_done;   /**< submit -> completion seen by the tx thread (timed) */
};

struct gpudp_handoff;

/**
 * Create a handoff. The work's argument is parsed (its init) and its
 * parameters kept. GPU modes need CUDA (gpudp_cuda_init()), load the
 * work's GPU image and lib/handoff's own kernels into the context, and
 * copy the parameters to GPU memory. Logs why it failed.
 * @return the handoff, or NULL with rte_errno set: EINVAL (bad conf, or
 *   the work refused its argument), ENOTSUP (GPU mode without CUDA, or a
 *   work without a GPU image), ENOEXEC (the GPU refused the work's image:
 *   corrupt, no code for this GPU and no PTX, wrong ABI, no kernels; the
 *   log names the work's file), ENODEV (no GPU), ENOMEM, EIO (a CUDA call
 *   failed), ENOSPC (persistent: its blocks and dispatcher would not all be
 *   resident beside the other persistent handoffs of the process on that
 *   GPU), ENOTSUP also for GPUDP_HO_BLOCKS_FILL where the driver gives no
 *   occupancy.
 */
struct gpudp_handoff *gpudp_handoff_create(const struct gpudp_handoff_conf *conf);

/**
 * Start the mode's resident GPU work: the persistent kernel (a no-op in
 * other modes). Call it once every handoff and every GPU pool of the
 * process exists: while a resident kernel runs, CUDA calls that
 * synchronise the device (cuMemAlloc, cuMemFree, setting SYNC_MEMOPS,
 * cuMemHostRegister, module loads) wait for it, i.e. forever. The first
 * gpudp_handoff_submit() starts a handoff that was not started.
 * @return 0, or -EIO (the launch failed; logged).
 */
int gpudp_handoff_start(struct gpudp_handoff *h);

/**
 * Stop the resident GPU work (the persistent kernel is told to quit) and
 * wait for everything submitted to the GPU. Call it on every handoff of a
 * GPU before destroying any of them or freeing GPU memory (see
 * gpudp_handoff_start()). Idempotent; NULL is a no-op.
 */
void gpudp_handoff_stop(struct gpudp_handoff *h);

/**
 * Stop (gpudp_handoff_stop()) and free everything. Bursts not released are dropped silently (their
 * cookies are the caller's to free). NULL is a no-op.
 */
void gpudp_handoff_destroy(struct gpudp_handoff *h);

/**
 * Next free slot for the rx thread to fill; the same one until submitted.
 * @return the burst (n == 0), or NULL when every slot is in flight (the
 *   ring_full counter is incremented): the caller applies back-pressure or
 *   drops, and tries again later.
 */
struct gpudp_ho_burst *gpudp_handoff_acquire(struct gpudp_handoff *h);

/**
 * Submit the acquired burst (rx thread). A burst with n == 0 is not
 * submitted and stays acquired.
 * @return 0, or -EIO when the GPU submission failed: the burst still
 *   completes, with every packet's verdict GPUDP_WORK_DROP_ERROR, so the
 *   tx side frees and counts it; the error is logged.
 */
int gpudp_handoff_submit(struct gpudp_handoff *h, struct gpudp_ho_burst *b);

/**
 * Submit an acquired, empty burst of @p n packets described by one array
 * (rx thread), in place of gpudp_ho_burst_add() for each packet and
 * gpudp_handoff_submit(): the GPU reads the descriptors and gathers the
 * packets itself, so the CPU writes nothing per packet. For a producer that
 * lays a burst's packets out in one buffer (a capture file read in bulk).
 *
 * Only in staged mode with stage_gpu_copy and meta set, segs 1 or 2, and
 * a work that writes nothing back (write span 0). With segs 2, a packet
 * cut to the work's span has a second segment: the rest of it, where it
 * lies in @p data (the GPU reads it there, over PCIe, only if the work
 * does), so that the work can read past its span where it must.
 * @p data and @p desc must be memory the GPU can read (pinned with
 * cuMemAllocHost(), or registered), left untouched until the burst
 * completes. Packet i is desc[i].caplen bytes at data + desc[i].off, its
 * metadata (struct gpudp_work_meta) desc[i].wirelen, mark and ts_ns; the GPU
 * copies the work's span of it (all of it for a span of 0) to the same
 * offset of the burst's staging area, reading whole 16-byte blocks (so
 * @p data is 16-byte aligned and @p data_len a multiple of 16, at most
 * the staging area of a burst, conf.stage_burst_bytes). A packet that does
 * not lie within data_len, or longer than conf.stage_bytes after the
 * span, is not staged: the work sees an empty first segment, as in
 * gpudp_handoff_submit(). The burst's cookies, len and addr are not
 * filled; verdicts, results and counters are, as for any burst.
 * @return 0; -EIO as gpudp_handoff_submit() (the burst still completes,
 *   with every verdict GPUDP_WORK_DROP_ERROR); -EINVAL (bad arguments) or
 *   -ENOTSUP (another mode or configuration): nothing was submitted, the
 *   burst stays acquired and empty
 */
int gpudp_handoff_submit_desc(struct gpudp_handoff *h, struct gpudp_ho_burst *b,
			      const void *data, uint32_t data_len,
			      const struct gpudp_pkt_desc *desc, uint32_t n);

/**
 * Submit what a mode holds back (graph mode: a partial batch). Call it
 * from the rx thread when the flush timeout expires. A no-op elsewhere.
 */
int gpudp_handoff_flush(struct gpudp_handoff *h);

/**
 * The oldest submitted burst if it is complete (tx thread), else NULL.
 * Returns the same burst until it is released.
 */
struct gpudp_ho_burst *gpudp_handoff_completed(struct gpudp_handoff *h);

/**
 * Whether the GPU failed under this handoff (a work faulted: illegal
 * address, trap, ...): the CUDA context is lost. gpudp_handoff_completed()
 * checks the GPU while it waits for a burst and, once it failed, completes
 * every burst in flight with GPUDP_WORK_DROP_ERROR verdicts; later submits
 * fail them too. The app stops its pipeline and exits.
 * @return 0, or the negative errno (-EIO) with the error logged once
 */
int gpudp_handoff_failed(const struct gpudp_handoff *h);

/**
 * The last CUDA failure of this handoff, as "call: error" (also logged),
 * for callers that report errors themselves; "" when none. Read it from
 * the thread that saw the failure (a failed submit, or a completion after
 * gpudp_handoff_failed()).
 */
const char *gpudp_handoff_error(const struct gpudp_handoff *h);

/** The work the handoff runs. */
const struct gpudp_work *gpudp_handoff_work(const struct gpudp_handoff *h);

/**
 * Account the burst's verdicts (b->n_pass at once when every packet passed)
 * and, if the burst was timed, its latencies; free its slot (tx thread).
 */
void gpudp_handoff_release(struct gpudp_handoff *h, struct gpudp_ho_burst *b);

/** Snapshot the counters (any thread; values are read without locks). */
void gpudp_handoff_stats_get(const struct gpudp_handoff *h, struct gpudp_handoff_stats *s);

/*
 * The work's state (gpudp_work.h, "state"): tables the work writes and
 * keeps across bursts, allocated by the handoff where its mode runs the
 * work (GPU memory in its CUDA context, host memory in the CPU modes).
 * These calls run on the control thread; a read while bursts are in flight
 * sees what the completed ones wrote and some of what the others write. In
 * the persistent mode the resident kernel holds every copy of GPU memory
 * up: the state is read and written after gpudp_handoff_stop() (of every
 * handoff of the context that runs persistent), and these calls answer
 * -EBUSY before.
 */

/**
 * Bytes of state table @p k.
 * @return its size, or 0 when it does not exist (k out of range, size 0)
 */
uint64_t gpudp_handoff_state_size(const struct gpudp_handoff *h, uint32_t k);

/**
 * Copy @p len bytes at offset @p off of state table @p k into @p dst
 * (host memory).
 * @return 0; -EINVAL (no such table, or the range is outside it); -EBUSY
 *   (the persistent mode's kernel runs); -EIO (a CUDA failure:
 *   gpudp_handoff_error() says which)
 */
int gpudp_handoff_state_read(struct gpudp_handoff *h, uint32_t k, uint64_t off, void *dst,
			     uint64_t len);

/**
 * Write @p len bytes from @p src (host memory; NULL: zeroes) at offset
 * @p off of state table @p k, e.g. to clear what the caller has taken.
 * @return 0, -EINVAL, -EBUSY or -EIO as gpudp_handoff_state_read()
 */
int gpudp_handoff_state_write(struct gpudp_handoff *h, uint32_t k, uint64_t off,
			      const void *src, uint64_t len);

/**
 * Merge the work's state into the caller's result: every state table is
 * read into host memory and the work's collect hook (struct
 * gpudp_work.collect) is called with them and @p arg. Handoffs that share
 * one state (gpudp_handoff_conf.state_from) collect it once, through any
 * of them.
 * @return the hook's return value; -ENOTSUP (the work has no collect
 *   hook); -EBUSY (a burst is submitted and not released, or the
 *   persistent mode's kernel runs); -ENOMEM; -EIO (reading the state failed)
 */
int gpudp_handoff_collect(struct gpudp_handoff *h, void *arg);

/*
 * The GPU modes' memory services, in the handoff's CUDA context, so that a
 * caller needs no CUDA of its own. In the CPU modes there is nothing to
 * register or copy: they answer as said.
 */

/**
 * Register host memory that the GPU will read in place, read-only (a
 * capture file's mapping whose packets the work reads where they lie).
 * @return 0; -ENOTSUP (a CPU mode, or a GPU that cannot register
 *   read-only host memory: gpudp_handoff_error() says so); -EIO
 */
int gpudp_handoff_host_register(struct gpudp_handoff *h, const void *addr, size_t len);

/**
 * Allocate @p len bytes of host memory that the GPU reads and writes
 * (pinned, mapped: cuMemAllocHost() in the handoff's context; 64-byte
 * aligned host memory in the CPU modes), for buffers the work or the
 * handoff's copies use in place.
 * @return the memory, or NULL (out of memory; gpudp_handoff_error() says why)
 */
void *gpudp_handoff_host_alloc(struct gpudp_handoff *h, size_t len);

/** Free what gpudp_handoff_host_alloc() gave (NULL is accepted). */
void gpudp_handoff_host_free(struct gpudp_handoff *h, void *p);

/** Undo gpudp_handoff_host_register() for the memory at @p addr. */
void gpudp_handoff_host_unregister(struct gpudp_handoff *h, const void *addr);

/**
 * Start copying @p len bytes of GPU memory at @p src into host memory at
 * @p dst, on a stream of the handoff's own (apart from the work's kernels):
 * done once gpudp_handoff_copy_wait() returns. For packets the work ran on
 * where they lie in GPU memory that the CPU must then read.
 * @return 0; -ENOTSUP (a CPU mode); -EIO
 */
int gpudp_handoff_copy_to_host(struct gpudp_handoff *h, void *dst, uint64_t src, size_t len);

/** Wait for the copies gpudp_handoff_copy_to_host() started. @return 0 or -EIO */
int gpudp_handoff_copy_wait(struct gpudp_handoff *h);

/**
 * Describe the device that runs the work, "GPU N: name (PCI bus id)", or
 * "CPU" in the CPU modes, into @p buf (@p len bytes).
 * @return 0 or -EIO
 */
int gpudp_handoff_device_name(struct gpudp_handoff *h, char *buf, size_t len);

/**
 * Whether the GPU reads registered host memory at its host address
 * (unified addressing and host pointers for registered memory): what a
 * work that reads packets in place in pinned host memory needs.
 * @param why  set to the reason when it does not (@p len bytes)
 * @return 1 (it does, and in the CPU modes), 0 (it does not), -EIO
 */
int gpudp_handoff_reads_host(struct gpudp_handoff *h, char *why, size_t len);

/**
 * Whether the mode reads the per-packet descriptors (addr, len) that
 * gpudp_ho_burst_desc() writes: 0 in none mode (only cookies are kept),
 * 1 in every other mode.
 */
int gpudp_handoff_needs_desc(const struct gpudp_handoff *h);

/**
 * Whether the mode copies each frame's span from the address given with it,
 * so that a frame must lie in one segment unless its further segments are
 * described (conf.segs > 1, GPU-readable: they are read in place): 1 in
 * staged mode (the work's span of the first segment is copied to GPU
 * memory and its write span back), 0 in the others, where the work reads
 * the packets where they are (segment by segment, with conf.segs). With
 * conf.segs 1 the caller drops (and counts) multi-segment frames when it
 * is 1.
 */
int gpudp_handoff_needs_whole_frames(const struct gpudp_handoff *h);

/** The configuration in force (defaults filled in). */
const struct gpudp_handoff_conf *gpudp_handoff_conf_get(const struct gpudp_handoff *h);

/**
 * Whether the persistent mode flushes before each ready store: 1 yes, 0
 * no (device orders writes to OWNER or stronger), -1 not persistent.
 */
int gpudp_handoff_flushes(const struct gpudp_handoff *h);

/**
 * Measure the GPU's clock against gpudp_ho_now_ns() again (GPU modes; 0 and
 * nothing done otherwise). The latency histograms map the kernels'
 * %globaltimer stamps onto the CPU clock with an offset and a drift rate
 * (the rate over the time since the first measure, made at create): the
 * two clocks drift apart by tens of microseconds per second on some hosts,
 * so a user that runs for more than a fraction of a second calls this now
 * and then (gpudp-fwd: every 100 ms) from a control thread, never from two
 * threads at once. Runs a one-thread kernel on a stream of its own for 64
 * PCIe round trips (a fraction of a millisecond), beside the data path.
 * @return 0, or a negative errno (the GPU did not answer: the model is kept)
 */
int gpudp_handoff_clock_sync(struct gpudp_handoff *h);

/**
 * Give @p h the clock model @p from measured last (control thread, as
 * gpudp_handoff_clock_sync()): handoffs on one GPU share its clock, so one
 * measure serves them all (gpudp-fwd measures the first pipeline's and
 * shares it with the others, instead of one ping-pong kernel per pipeline).
 * @return 0; -EINVAL if either is not a GPU mode handoff set up on a GPU,
 *         or they are on different GPUs, or @p from has no measure yet
 */
int gpudp_handoff_clock_share(struct gpudp_handoff *h, const struct gpudp_handoff *from);

/**
 * A kernel's %globaltimer stamp @p gpu_ns as gpudp_ho_now_ns() time, with
 * the model of gpudp_handoff_clock_sync() at CPU time @p near (any time
 * within a few milliseconds of the stamp). Identity in modes that are not
 * GPU modes. Lock-free; any thread.
 */
uint64_t gpudp_handoff_gpu_to_cpu_ns(const struct gpudp_handoff *h, uint64_t gpu_ns,
				     uint64_t near);

/** "none", "cpu", "launch", "persistent", "graph", "staged"; NULL if out of range. */
const char *gpudp_ho_mode_name(enum gpudp_ho_mode m);
/** Parse a mode name. @return 0 or -EINVAL. */
int gpudp_ho_mode_parse(const char *s, enum gpudp_ho_mode *m);
/** Whether a mode runs on the GPU. */
int gpudp_ho_mode_is_gpu(enum gpudp_ho_mode m);

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_HANDOFF_H */
