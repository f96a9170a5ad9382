/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd: pipelines, ports and counters shared by main.c and the lcores. */
#ifndef GPUDP_FWD_H
#define GPUDP_FWD_H

#include <signal.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#include <gpudp_handoff.h>
#include <gpudp_log.h>
#include <gpudp_mem.h>

#include "fwd_conf.h"

extern int fwd_logtype;
/* one line per call: the macro adds the newline, as every gpudp log macro does */
/* how long a port's link may take to come up after its start */
#define FWD_LINK_WAIT_S 5

#define FWD_LOG(lvl, ...) GPUDP_LOG_LINE(fwd_logtype, "gpudp-fwd", lvl, __VA_ARGS__)

/** Drop reasons of the app itself (the handoff counts the per-packet verdicts). */
enum fwd_drop {
	FWD_DROP_RING_FULL = 0, /**< --ring-full drop: received while the ring was full */
	FWD_DROP_TX_FULL,       /**< the tx queue did not take them */
	FWD_DROP_SHUTDOWN,      /**< in flight when the drain timed out */
	FWD_DROP_SEGMENTED,     /**< multi-segment frame the work cannot see whole: its
				 *   first segment is shorter than the work's span, or
				 *   staged mode (which copies one contiguous frame) */
	FWD_DROP_PMD_CUT,       /**< chained frame whose segments do not hold its
				 *   pkt_len bytes (DPDK 22.11's net_pcap on capture
				 *   records over 65535 bytes) */
	FWD_DROP_MAX
};

/**
 * One pipeline: an rx queue, a handoff, a tx queue. In mode none with rx
 * and tx on one lcore (io) the lcore forwards each rx burst straight to the
 * tx queue, as testpmd's io forwarding does, and the handoff stays unused.
 */
struct fwd_pipe {
	unsigned int id;
	uint16_t rx_port, rx_queue, tx_port, tx_queue;
	unsigned int rx_lcore, tx_lcore;
	struct gpudp_pool *pool;
	struct gpudp_handoff *ho;
	const struct fwd_conf *conf;
	unsigned int gpu;         /* index in fwd_run.gpus; FWD_NO_GPU: no GPU used */
	int io;                   /* io forwarding: mode none, rx and tx on one lcore */
	int io_chained;           /* io: the rx queue may deliver chained frames, so
				   * each burst is checked for cut ones (pmd_cut) */
	uint16_t io_rx_burst;     /* io: most packets per rte_eth_rx_burst */
	/* io: the ports' ethdev byte counters at the start (fwd_io_start()),
	 * kept on the pipeline of queue 0 (fwd_totals_get()) */
	uint64_t io_ibytes0, io_obytes0;
	/* rx lcore */
	struct gpudp_ho_burst *cur;
	uint64_t flush_tsc;       /* --flush-us in TSC cycles; 0: submit after every rx */
	uint64_t first_tsc;       /* TSC when cur got its first packets */
	int desc;                 /* the mode reads per-packet descriptors */
	int whole;                /* the mode needs single-segment frames (staged) */
	uint32_t span;            /* the work's span (UINT32_MAX: the whole frame) */
	uint32_t segs;            /* segments described per packet (split pools: > 1) */
	uint64_t rx_pkts, rx_bytes;   /* io: rx_bytes unused (the port's counter) */
	uint64_t ring_full_waits;
	volatile int rx_stopped;
	/* tx lcore */
	uint64_t tx_pkts __attribute__((aligned(64)));
	uint64_t tx_bytes;            /* io: unused (the port's counter) */
	uint64_t drops[FWD_DROP_MAX];
};

/** Totals over every pipeline. */
struct fwd_totals {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	uint64_t drops[FWD_DROP_MAX];
	uint64_t verdict_drops[GPUDP_WORK_VERDICT_MAX];
	uint64_t work_counters[GPUDP_WORK_COUNTERS_MAX];
	uint64_t ring_full, flushes, in_flight, ring_slots;
	uint64_t gpu_polls;       /* persistent: the pollers' reads of host memory */
	struct gpudp_ho_hist lat_kstart, lat_kend, lat_done;
};

/* Most pipelines: every port's queues (16 at most per port). */
#define FWD_MAX_PIPES (FWD_MAX_PORTS * 16)

/* fwd_pipe.gpu of a run on host memory without a GPU */
#define FWD_NO_GPU UINT32_MAX

/** A GPU the run uses: its pipelines' pools, handoffs and kernels. */
struct fwd_gpu {
	int ordinal;              /* CUDA ordinal (--gpu, --gpu-map), or another
				   * driver's gpudev id */
	int16_t id;               /* gpudev device */
	uint64_t ctx;             /* its CUDA context: the handoffs run in it */
	char pci[32];             /* PCI address ("" for another driver's device) */
	unsigned int nb_ports;    /* ports placed on it */
};

/** Where one port's pipelines run, and why (fwd_gpus_choose()). */
struct fwd_port_gpu {
	unsigned int gpu;         /* index in fwd_run.gpus */
	const char *how;          /* "--gpu N", "--gpu auto", "--gpu-map", ... */
	struct gpudp_gpu_place place;  /* level and PCIe path to that GPU */
};

/**
 * The run: what main.c (the sequence), fwd_setup.c (ports, pools,
 * handoffs) and fwd_report.c (telemetry, stats, final report) share.
 */
struct fwd_run {
	struct fwd_conf conf;
	struct fwd_pipe *pipes[FWD_MAX_PIPES + 1];  /* NULL-terminated for the lcores */
	unsigned int nb_pipes;
	/* pipelines fully set up: what the telemetry thread may read (0
	 * outside the run, so a query during setup or teardown sees no
	 * half-made one) */
	unsigned int nb_ready;
	int ports_started;
	uint64_t run_t0;      /* gpudp_ho_now_ns() when the lcores started */
	/* the GPUs in use (ordinal order) and each port's (index as cf->ports);
	 * nb_gpus 0: host memory and no GPU mode, or not chosen yet */
	struct fwd_gpu gpus[FWD_MAX_GPUS];
	unsigned int nb_gpus;
	struct fwd_port_gpu port_gpu[FWD_MAX_PORTS];
};

extern struct fwd_run fwd_run;

/* fwd_gpu.c */
/**
 * The GPU of every port (--gpu N, --gpu auto, --gpu-map; doc/multi-gpu.md)
 * into fwd_run.gpus and fwd_run.port_gpu, each choice logged with its
 * reason. @return 0, or the exit code: GPUDP_EXIT_USAGE (a --gpu-map port
 * that is not forwarded), GPUDP_EXIT_NO_GPU (no such GPU), printed
 */
int fwd_gpus_choose(void);
/** --check: the deployment checks per GPU and each port's placement,
 *  printed. @return the exit code */
int fwd_run_check(void);
/** After teardown: drop each GPU's cached pins (gpudp_mem_pin_gpu_release()),
 *  log what each GPU still holds; forget the GPUs. */
void fwd_gpus_release(void);

/* fwd_setup.c */
/** The ports: --ports checked, or every port EAL made. @return 0 or -1 (printed) */
int fwd_ports_check(void);
/** Pools, handoffs and ports of every pipeline, started, each pipeline on
 *  its port's GPU. @return 0 or a negative errno */
int fwd_pipes_create(void);
/** Reverse of fwd_pipes_create(), whatever it reached. */
void fwd_teardown(void);

/* fwd_report.c */
/** Register the telemetry commands /gpudp/fwd/{stats,latency,config}. */
void fwd_report_telemetry(void);
/** One periodic stats line over the last @p dt seconds; @p prev is updated. */
void fwd_report_stats_line(struct fwd_totals *prev, double dt);
/** The final counters, printed and written to --json. @return 0 or -1 */
int fwd_report_final(double secs);
/** Sum the counters of the pipelines of fwd_run.gpus[@p gpu] among the
 *  first @p n pipelines. */
void fwd_gpu_totals_get(unsigned int gpu, unsigned int n, struct fwd_totals *t);

extern volatile sig_atomic_t fwd_quit;   /* 1: stop receiving, drain, exit the lcores */
extern volatile int fwd_gpu_failed; /* a handoff's GPU failed: stop, exit 1 */

/** The lcore function: rx, tx, or both for the pipelines given to this lcore. */
int fwd_lcore_main(void *arg);
/** One rx poll of a pipeline; returns packets received. */
unsigned int fwd_rx_step(struct fwd_pipe *p);
/** One tx poll of a pipeline; returns packets transmitted. */
unsigned int fwd_tx_step(struct fwd_pipe *p);

/* fwd_metrics.c */
/** --metrics: serve /metrics (the pipelines made). @return 0 or -1 (logged) */
int fwd_metrics_start(void);
/** The run is over: --metrics-linger, then stop serving (before the teardown). */
void fwd_metrics_end(void);

/* fwd_totals.c */
/** io pipeline @p p: note its ports' byte counters, once the ports have
 *  started and before the lcores run (rx_bytes and tx_bytes count from there). */
void fwd_io_start(struct fwd_pipe *p);
/** Sum the counters of @p n pipelines. */
void fwd_totals_get(struct fwd_pipe *const *pipes, unsigned int n, struct fwd_totals *t);
const char *fwd_drop_name(enum fwd_drop d);

#endif /* GPUDP_FWD_H */
