/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the GPU engine (gpudp_cap_engine.h): its state.
 *   gpudp_cap_engine_gpu_setup.c  its handoff and batches; host memory registered
 *   gpudp_cap_engine_gpu.c        its batches: submitted, completed, collected
 *   gpudp_cap_engine_gpu_flows.c  the flow monitor's looks at the table
 *   gpudp_cap_engine_gpu_alerts.c the rules' alert records read back
 * Every GPU resource is the handoff's (its context, the work's tables and
 * state, pinned memory, copies out): the engine makes no CUDA call. Not
 * installed.
 */
#ifndef GPUDP_CAP_ENGINE_GPU_PVT_H
#define GPUDP_CAP_ENGINE_GPU_PVT_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include "gpudp_analysis_work.h"
#include "gpudp_handoff.h"
#include "gpudp_thread.h"
#include "gpudp_cap_engine.h"

/* what the kernel reads per packet besides its bytes: address, length, metadata */
#define DESC_BYTES (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(struct gpudp_work_meta))
/* the handoff's GPU clock model is measured again this often (ns) */
#define CLOCK_SYNC_NS 100000000ull

_Static_assert(sizeof(struct gpudp_an_counters) == GPUDP_AN_WORK_COUNTERS * sizeof(uint64_t),
	       "the work's counters are struct gpudp_an_counters");

/*
 * The batch of one slot of the handoff's ring: batch i goes with the
 * handoff's burst in ring slot i, so the ring's order is the batches'.
 */
struct gpu_slot {
	struct gpudp_cap_batch b;
	struct gpudp_ho_burst *hb;  /* the handoff's burst: acquired, then in flight */
	int submitted;              /* hb is in flight (else acquired for this batch) */
	int dead;                   /* its submission failed: the caller freed the packets */
	uint32_t look_op;           /* 0: a batch; else the burst is a pass of a look
				     * (GPUDP_FLOW_SCAN_LOOK_*) into area look_area */
	uint32_t look_area;
};

/* looks in flight, each with an export area of its own */
#define FL_AREAS 2u
/* bursts of a look: its passes */
#define FL_PASSES 3u
/* pseudo-packets of a pass at most: described in one array, or each */
#define FL_CHUNKS_ARRAY 16384u
#define FL_CHUNKS_EACH 4096u
/* bytes of a look's pseudo-packet (struct gpudp_flow_scan, rounded up) */
#define FL_XLEN 128u

/* the flow monitor (gpudp_cap_engine_gpu_flows.c) */
struct gpu_flows {
	uint8_t *x;                 /* the pseudo-packets' bytes, FL_XLEN per ring slot (pinned) */
	struct gpudp_pkt_desc *desc; /* staged: a pass described in one array, every
				      * pseudo-packet the slot's bytes (pinned) */
	struct gpudp_flow_export *area[FL_AREAS]; /* the looks' ended flows (pinned) */
	uint32_t chunks;            /* pseudo-packets of a pass */
	uint32_t pseudo;            /* passes in flight */
	uint64_t looks, taken;      /* looks submitted, and those whose results were taken
				     * (written under mu: the thread below reads it) */
	struct gpudp_flow_life conf; /* conf.life with its defaults */
	uint64_t now;               /* newest packet time seen */
	uint64_t pkts;              /* packets submitted */
	/* the last look whose results were taken: a look may be due when the
	 * rule finds it due from these (the GPU decides from the last one) */
	uint64_t scan_t, pkts_at_scan;
	struct gpudp_flow_life_stats st;
	/* the thread that makes the records of the looks' ended flows and
	 * gives them to conf.flows_out, in the looks' order */
	pthread_t th;
	int th_on, th_stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a look taken, or one given */
	uint64_t given;             /* looks whose records the thread gave */
	struct gpudp_flow_life_stats tst; /* records, packets, ends: the thread's (mu) */
};

/* the rules' alert records (gpudp_cap_engine_gpu_alerts.c) */
struct gpu_alerts {
	int on;                     /* rules with conf.alerts_out */
	uint32_t room;              /* records the area holds */
	uint64_t taken;             /* the work's alerts counter when last read */
};

struct gpu_priv {
	struct gpudp_handoff *ho;
	struct gpu_flows fl;
	struct gpu_alerts al;
	int shared;              /* the state is conf.share's handoff's */
	int staged;              /* the handoff's mode is staged (else launch) */
	uint32_t span;           /* staged: the work's span (the rest of a frame stays put) */
	uint8_t *pinned;         /* staged: the batches' data areas; device: their copy-out
				  * areas (n_data of them, taken in turn) */
	uint32_t n_data;
	uint64_t data_seq;       /* batches begun: the next one takes area data_seq % n_data */
	struct gpudp_pkt_desc *pdesc; /* staged: the slots' descriptors (pinned) */
	uint32_t n_slots;        /* the handoff's ring size */
	uint32_t n_inflight;     /* batches submitted, at most conf.inflight */
	uint64_t clk_t;          /* when the clock model was last measured */
	struct gpu_slot *slots;
};

/* the handoff's last failure as the engine's error, and -EIO */
static inline int
gpu_fail(struct gpudp_cap_engine *e, const char *what)
{
	const struct gpu_priv *p = e->priv;

	snprintf(e->err, sizeof(e->err), "%s: %s", what, gpudp_handoff_error(p->ho));
	return -EIO;
}

/* ---- gpudp_cap_engine_gpu_flows.c ---- */

/* The flow monitor's set-up (nothing without conf.life). */
int gpudp_cap_gpu_flows_setup(struct gpudp_cap_engine *e);
/* After a batch of @p n packets whose newest is @p newest: a look when due. */
int gpudp_cap_gpu_flows_tick(struct gpudp_cap_engine *e, uint64_t newest, uint32_t n);
/* A look's last pass completed (gpu_complete_oldest()): its records out. */
int gpudp_cap_gpu_look_taken(struct gpudp_cap_engine *e, uint32_t area);
/* Every record of the looks taken given to conf.flows_out. */
void gpudp_cap_gpu_flows_drain(struct gpudp_cap_engine *e);
/* The flow monitor's thread stopped (fini; nothing without it). */
void gpudp_cap_gpu_flows_stop(struct gpudp_cap_engine *e);
/* The ops' end_flows and flow_stats. */
int gpudp_cap_gpu_end_flows(struct gpudp_cap_engine *e);
void gpudp_cap_gpu_flow_stats(const struct gpudp_cap_engine *e, struct gpudp_flow_life_stats *st);

/* ---- gpudp_cap_engine_gpu.c ---- */

/* The oldest burst in flight waited for and taken (a batch, or a look's pass). */
int gpudp_cap_gpu_complete_oldest(struct gpudp_cap_engine *e);

/* ---- gpudp_cap_engine_gpu_setup.c ---- */

/* The ops' init: the context, the tables, the handoff, the slots. */
/* the alert records' area made empty, with its room (nothing without them) */
int gpudp_cap_gpu_alerts_setup(struct gpudp_cap_engine *e);
/* whether the records made since the last take could fill half the area */
int gpudp_cap_gpu_alerts_due(struct gpudp_cap_engine *e);
/* with no batch in flight: the records to conf.alerts_out, the area emptied */
int gpudp_cap_gpu_alerts_take(struct gpudp_cap_engine *e);

int gpudp_cap_gpu_init(struct gpudp_cap_engine *e, char *err, size_t errlen);
/* The ops' fini: everything init made (the owners of batches still out go back). */
void gpudp_cap_gpu_fini(struct gpudp_cap_engine *e);
/* gpudp_cap_engine_host_register() */
int gpudp_cap_gpu_host_register(struct gpudp_cap_engine *e, const void *addr, size_t len);
/* gpudp_cap_engine_host_unregister() */
void gpudp_cap_gpu_host_unregister(struct gpudp_cap_engine *e, const void *addr);

#endif /* GPUDP_CAP_ENGINE_GPU_PVT_H */
