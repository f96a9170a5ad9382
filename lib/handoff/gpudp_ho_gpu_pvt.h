/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_handoff internals shared by the GPU modes (gpudp_handoff_gpu.c:
 * the common set-up, stop, teardown and launch; gpudp_ho_launch.c,
 * gpudp_ho_persistent.c, gpudp_ho_graph.c, gpudp_ho_staged.c: one mode
 * each). A mode's file uses these and its own state in struct ho_gpu, and
 * never another mode's.
 */
#ifndef GPUDP_HO_GPU_PVT_H
#define GPUDP_HO_GPU_PVT_H

#include <gpudp_cuda.h>

#include "gpudp_handoff_pvt.h"

/*
 * staged: consecutive bursts go round this many lanes, each a copy stream
 * and a kernel stream, so that several bursts' copies are in flight at once
 * (more than 8 lanes gave no more bandwidth)
 */
#define STAGE_LANES 8

/* the GPU state of a handoff (h->gpu): the common part, then each mode's */
struct ho_gpu {
	CUcontext ctx;
	CUdevice dev;
	int retained;         /* primary context retained here */
	int registered;       /* shared arrays registered */
	CUmodule mod;         /* lib/handoff's kernels (handoff.cu) */
	CUmodule wmod;        /* the work's image */
	CUfunction f_burst, f_persistent, f_signal, f_clock, f_gather, f_gather_desc;
	CUdeviceptr params;   /* the work's parameter block */
	CUdeviceptr tables[GPUDP_WORK_TABLES_MAX]; /* GPU copies of the work's tables */
	CUdeviceptr dcounters;/* counter sums of multi-block bursts */
	uint32_t *plen;       /* staged: frame lengths (pinned, mapped) */
	CUstream stream;      /* kernels (and staged copy back) */
	CUstream lane[2 * STAGE_LANES]; /* staged: burst of slot s copies on lane[s % L],
					 * its kernels run on lane[L + s % L] */
	CUdeviceptr blocks;
	CUdeviceptr pstate;   /* persistent: struct gpudp_ho_pstate */
	CUstream clk_stream;  /* clock measures, beside a running kernel */
	CUstream out_stream;  /* gpudp_handoff_copy_to_host() (created on first use) */
	void *wc;             /* persistent: addr, len, ready in write-combined memory */
	uint64_t *ready;      /* persistent: the ready words (in wc) */
	int persistent_running;
	uint64_t resident;    /* persistent: the share of the GPU's SMs its blocks
			       * hold (millionths of an SM), in the process's count */
	/* graph */
	CUgraph *graphs;
	CUgraphExec *execs;
	uint32_t n_graphs, pend_first, pend_n;
	/* staged */
	CUevent *copied;      /* per slot: copy finished */
	uint8_t *stage_h;     /* pinned */
	CUdeviceptr stage_d;
	size_t stage_slot;    /* bytes per slot */
	uint32_t *soff;       /* per packet staging offset, UINT32_MAX: not staged */
	uint64_t *src;        /* stage_gpu_copy: per packet source address (pinned) */
	CUdeviceptr src_d;    /* the same array, as the gather kernel sees it */
	/* stage_gpu_copy and meta (gpudp_handoff_submit_desc()): the per-packet
	 * arrays the work reads, in device memory, written by the GPU */
	CUdeviceptr d_desc;   /* one allocation: addr, meta, len, plen (segs 2: xaddr, xlen) */
	struct gpudp_ho_kargs dkargs; /* the kernel arguments that point at them */
	struct { uintptr_t lo, hi; } rd[8]; /* host memory found readable by the GPU */
	uint32_t n_rd;
};

#define GPU(h) ((struct ho_gpu *)(h)->gpu)

/** Log a failed CUDA call @p what, keep it for gpudp_handoff_error(). @return -EIO */
int gpudp_ho_gpu_fail(struct gpudp_handoff *h, const char *what, CUresult r);

#define CU_DO(h, call) do { CUresult r_ = (call); \
	if (r_ != CUDA_SUCCESS) return gpudp_ho_gpu_fail((h), #call, r_); } while (0)

/**
 * A table of the work (@p what and index @p k name it in the log) in GPU
 * memory: @p size bytes at @p d, filled from @p init (NULL: zeroes).
 * @return 0, or -ENOMEM / -EIO (logged)
 */
int gpudp_ho_gpu_table(struct gpudp_handoff *h, const char *what, uint32_t k, const void *init,
		       uint64_t size, CUdeviceptr *d);
/** The work's state tables in GPU memory (gpudp_ho_gpu_mem.c), their addresses
 *  written into @p dev_params. @return 0 or -errno (logged) */
int gpudp_ho_gpu_states(struct gpudp_handoff *h, uint8_t *dev_params);
/** Free the state tables gpudp_ho_gpu_states() allocated. */
void gpudp_ho_gpu_states_free(struct gpudp_handoff *h);

/** Make the handoff's context current on the calling thread. @return 0 or -EIO */
int gpudp_ho_gpu_enter(struct gpudp_handoff *h);
/** Blocks of gpudp_work_burst for a burst of @p n packets. */
uint32_t gpudp_ho_gpu_grid(const struct gpudp_handoff *h, uint32_t n);
/** Launch gpudp_work_burst for slot @p slot (@p n packets; @p signal: store done) on @p st. */
int gpudp_ho_gpu_launch_on(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal,
			   CUstream st);
/** The same with kernel arguments @p a (a copy of h->kargs, some arrays elsewhere). */
int gpudp_ho_gpu_launch_args(struct gpudp_handoff *h, const struct gpudp_ho_kargs *a,
			     uint32_t slot, uint32_t n, uint32_t signal, CUstream st);
/** The same on the handoff's kernel stream. */
int gpudp_ho_gpu_launch(struct gpudp_handoff *h, uint32_t slot, uint32_t n, uint32_t signal);
/** Common set-up of every GPU mode (context, shared arrays, images, kernel arguments, clock). */
int gpudp_ho_gpu_setup(struct gpudp_handoff *h);
/** Stop the persistent kernel if it runs; wait for every stream. */
void gpudp_ho_gpu_stop(struct gpudp_handoff *h);
/** Free the common GPU state (the mode freed its own first). */
void gpudp_ho_gpu_teardown(struct gpudp_handoff *h);
/** tx thread: whether the GPU failed under the work (ops->check). */
int gpudp_ho_gpu_check(struct gpudp_handoff *h);

#endif /* GPUDP_HO_GPU_PVT_H */
