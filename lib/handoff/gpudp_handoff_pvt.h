/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff internals: the handoff object and the per-mode ops table.
 * Each mode fills a struct gpudp_ho_ops; the library dispatches through it
 * and has no per-mode branches of its own.
 */
#ifndef GPUDP_HANDOFF_PVT_H
#define GPUDP_HANDOFF_PVT_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#include "gpudp_handoff.h"
#include "gpudp_handoff_dev.h"
#include "gpudp_log.h"

extern int gpudp_ho_logtype;
/* one line per call: the macro adds the newline, as every gpudp log macro does */
#define HO_LOG(lvl, ...) GPUDP_LOG_LINE(gpudp_ho_logtype, "gpudp.handoff", lvl, __VA_ARGS__)

struct gpudp_handoff;

/** What a mode does; NULL members are no-ops. */
struct gpudp_ho_ops {
	const char *name;
	int gpu;  /**< needs CUDA */
	int no_desc; /**< never reads the per-packet len/addr arrays */
	int own_desc; /**< its setup places addr/len itself (persistent: in
		       *   write-combined memory): none are made in the shared area */
	int whole_frames; /**< reads and writes every byte of a frame from its
			   *   first address (staged): single-segment frames only;
			   *   keeps each packet's CPU address in data[] */
	int gpu_desc;   /**< can take bursts described in one array
			 *   (gpudp_handoff_submit_desc()), given stage_gpu_copy */
	int ready_only; /**< reads only its own ready word (seq and n in it; kernel and
			 *   argument from the kernel arguments): submit writes nothing
			 *   into the CPU-written control line */
	/** After the shared arrays exist: streams, kernels, resident kernel. */
	int (*setup)(struct gpudp_handoff *h);
	/** Start resident GPU work (persistent kernel). */
	int (*start)(struct gpudp_handoff *h);
	/** Stop resident GPU work and wait for everything submitted. */
	void (*stop)(struct gpudp_handoff *h);
	/** Free what setup made (also after a failed setup); stop was called. */
	void (*teardown)(struct gpudp_handoff *h);
	/** Hand the described burst to the work; done is stored when finished. */
	int (*submit)(struct gpudp_handoff *h, struct gpudp_ho_burst *b);
	/** Submit what is held back (graph batches). */
	int (*flush)(struct gpudp_handoff *h);
	/** tx thread, before the verdicts are read (staged: scatter back). */
	void (*complete)(struct gpudp_handoff *h, struct gpudp_ho_burst *b);
	/** gpu_desc: whether the GPU can read @p len bytes at @p p (pinned or
	 *  registered memory), checked before a burst makes it read them */
	int (*readable)(struct gpudp_handoff *h, const void *p, size_t len);
	/** tx thread, while the oldest burst is not done: 0 while the GPU is
	 *  healthy, else a negative errno (the work faulted; logged) */
	int (*check)(struct gpudp_handoff *h);
};

extern const struct gpudp_ho_ops gpudp_ho_ops_none;
extern const struct gpudp_ho_ops gpudp_ho_ops_cpu;
extern const struct gpudp_ho_ops gpudp_ho_ops_launch;
extern const struct gpudp_ho_ops gpudp_ho_ops_persistent;
extern const struct gpudp_ho_ops gpudp_ho_ops_graph;
extern const struct gpudp_ho_ops gpudp_ho_ops_staged;

struct gpudp_handoff {
	struct gpudp_handoff_conf conf;
	const struct gpudp_ho_ops *ops;
	const struct gpudp_work *work;
	void *params;        /* the work's parameter block (params_size bytes) */
	int params_owned;    /* filled by the work's init here: its fini at destroy */
	/* the work's state (gpudp_ho_state.c): where the work sees each table
	 * (device addresses in the GPU modes, host in the CPU modes) */
	struct ho_state {
		uint32_t n;
		int own;           /* allocated here, not conf.state_from's */
		uint64_t size[GPUDP_WORK_TABLES_MAX];
		uint64_t addr[GPUDP_WORK_TABLES_MAX];
		void *run_params;  /* CPU modes: the block the CPU form reads; NULL: params */
	} st;
	uint32_t mask;
	uint32_t lat_mask;   /* a burst is timed when (seq - 1) & lat_mask == 0 */
	/* shared arrays (host memory; registered with the GPU in GPU modes) */
	struct gpudp_ho_ctl *ctl;
	uint64_t *addr;
	uint32_t *len;
	uint8_t *verdict;
	uint8_t *result;     /* [ring][burst_max][result_size] */
	uint64_t *counters;  /* [ring][GPUDP_WORK_COUNTERS_MAX] */
	uint64_t *xaddr;     /* [ring][burst_max][segs - 1] (segs > 1) */
	uint32_t *xlen;
	struct gpudp_work_meta *meta; /* [ring][burst_max] (conf.meta) */
	uint32_t *quit;
	void *shared;        /* one allocation holding all of the above */
	size_t shared_len;
	/* host-only per-slot state */
	struct gpudp_ho_burst *bursts;
	void **cookies;
	void **data;
	/* ring indices: head (bursts submitted) by rx, tail (released) by tx */
	uint64_t head __attribute__((aligned(64)));
	int acquired;
	struct gpudp_handoff_stats rx __attribute__((aligned(64)));
	uint64_t tail __attribute__((aligned(64)));
	struct gpudp_handoff_stats tx __attribute__((aligned(64)));
	/* GPU state of the mode (gpudp_handoff_gpu.c) */
	void *gpu;
	struct gpudp_ho_kargs kargs;   /* template: device addresses */
	/* GPU %globaltimer -> CPU ns (gpudp_handoff_clock_sync()): at CPU time
	 * t, cpu = gpu - (off + rate * (t - t_ref)). Two entries: the writer
	 * fills the one not in use, then publishes its index. */
	struct gpudp_ho_clk {
		uint64_t t_ref;
		int64_t off;
		double rate;
	} clk[2];
	uint32_t clk_cur;
	uint64_t clk_t0;               /* first measure: the drift's baseline */
	int64_t clk_off0;
	int flush_needed;
	int started;
	int start_failed;
	int failed;          /* the GPU failed (ops->check): every burst is an error */
	uint64_t check_t;    /* tx thread: when ops->check last ran */
	char err[192];       /* the last CUDA failure (gpudp_handoff_error()) */
};

/** Publish clock model @p e (control thread): the entry of h->clk not in use
 *  is filled, then made current (readers: gpudp_handoff_gpu_to_cpu_ns()). */
void gpudp_ho_clk_publish(struct gpudp_handoff *h, const struct gpudp_ho_clk *e);
/** GPU modes: measure the GPU clock again and update h->clk (gpudp_handoff_clock_sync). */
int gpudp_ho_gpu_clock_sync(struct gpudp_handoff *h);
/** GPU modes: whether @p a and @p b run on the same GPU (gpudp_handoff_clock_share). */
int gpudp_ho_gpu_same_device(const struct gpudp_handoff *a, const struct gpudp_handoff *b);
/**
 * The work's state tables' sizes and initial contents from the parameter
 * block, checked (gpudp_ho_state.c). @return 0, or -E2BIG with the table logged
 */
int gpudp_ho_state_sizes(struct gpudp_handoff *h);
/** CPU modes: the state in host memory, and the block the CPU form reads. @return 0 or -errno */
int gpudp_ho_state_cpu(struct gpudp_handoff *h);
/** Free what gpudp_ho_state_cpu() allocated. */
void gpudp_ho_state_cpu_free(struct gpudp_handoff *h);
/** conf.state_from's state, when it can be shared (same work, mode kind, GPU). @return 0, -EINVAL */
int gpudp_ho_state_from(struct gpudp_handoff *h);
/** GPU modes: copy @p len bytes of state table @p k at @p off to (@p to_host) or from
 *  host memory @p host (NULL: zeroes). @return 0 or -EIO */
int gpudp_ho_gpu_state_copy(struct gpudp_handoff *h, uint32_t k, uint64_t off, void *host,
			    uint64_t len, int to_host);

/* the kernel-start timestamp, on timed bursts only (conf lat_sample) */
static inline uint64_t
cpu_kstart(const struct gpudp_ho_burst *b)
{
	return b->t_submit != 0 ? gpudp_ho_now_ns() : 0;
}

/** Mark every packet of @p b dropped with @p v and store done (error paths). */
void gpudp_ho_fail_burst(struct gpudp_handoff *h, struct gpudp_ho_burst *b, uint8_t v);

#endif /* GPUDP_HANDOFF_PVT_H */
