/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture's internal header: the application state (struct cap_app)
 * and the steps that the app's source files share. Not a public API.
 *
 *   main.c        arguments, EAL, the sequence and the teardown
 *   app_ports.c   capture files of the EAL arguments, port discovery and set-up
 *   app_mem.c     --mem: the GPU, the memory type, the mbuf pool, CPU mappings
 *   app_engine.c  the analysis engine: its choice and its batch callbacks
 *   app_rx.c      the receive loop: bursts into batches, batches to the engine
 *   app_report.c  the report of the results, --verify's final check
 *   app_gpus.c    --gpu auto, --gpu-map: each port's GPU, one engine per GPU
 */
#ifndef GPUDP_CAPTURE_CAP_APP_H
#define GPUDP_CAPTURE_CAP_APP_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_mempool.h>

#include <gpudp_mem.h>

#include "gpudp_capfile.h"
#include "gpudp_app_gpu.h"
#include "gpudp_cap_engine.h"
#include "gpudp_analysis.h"
#include "gpudp_pcapng_ring.h"
#include "options.h"
#include "report.h"

extern int cap_logtype;
#define CAP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, cap_logtype, "gpudp-capture: " fmt "\n", ## __VA_ARGS__)

#define MAX_VDEV_FILES 64

/* A capture file named in an EAL --vdev net_pcap...,rx_pcap=FILE argument. */
struct vdev_file {
	char vdev[64];
	char path[512];
	int infinite;
	struct gpudp_capfile_info info;
};

#define CAP_MAX_RXQ 16
#define CAP_LINK_WAIT_S 5   /* live ports: how long to wait for the link at start */

/* Original lengths of snapped records of the file an rx queue reads. */
struct cap_rxq {
	const struct gpudp_capfile_snap *snaps;
	size_t n_snaps, next;
	uint64_t count;        /* packets received on the queue */
};

struct cap_port {
	uint16_t id;
	char driver[64];       /* PMD name */
	int rx_kind;           /* how its PMD fills mbufs: enum gpudp_mem_port_rx */
	char rx_why[96];       /* why not by DMA (gpudp_mem_port_rx()) */
	struct cap_rxq rxq[CAP_MAX_RXQ];
	uint16_t nb_rxq;
	char name[64];
	uint64_t ts_mult;      /* ns per timestamp unit; 0: stamp with the host clock */
	uint64_t expected;     /* packets in its files; 0 with live */
	int live;
	uint64_t rx;
	unsigned int gpu;      /* index into cap_app.gpus (0 with one GPU or the CPU) */
	struct gpudp_app_port_gpu place; /* how its GPU was chosen (with several GPUs) */
};

/*
 * A GPU the ports are analysed on (--gpu auto, --gpu-map): its engine and,
 * at each report, what it collected before the results are added up.
 */
struct cap_gpu {
	struct gpudp_app_gpu_info info;
	struct gpudp_cap_engine *eng;         /* &cap_app.eng for the first, else own */
	struct gpudp_analysis *part;    /* the second and later: gpudp_cap_engine_collect()'s */
	unsigned int n_ports;
};

/* The flow records' queue to the outputs (app_flows_q.c) */
/* Outputs of the flow records at most: an IPFIX exporter per target, the log. */
#define CAP_FLOW_OUTS (CAP_MAX_IPFIX + 2)

/* One output's export thread and its place in the queue */
struct app_flows_out {
	pthread_t th;
	pthread_mutex_t io;      /* the output, while written or read */
	struct cap_app *app;
	uint32_t idx;            /* app->ipx[idx], or the flow log past them */
	uint64_t head;           /* records it took out (q.mu) */
	int busy;                /* writing records (q.mu) */
};

struct app_flows_q {
	pthread_mutex_t mu;      /* heads, tail, busy, stop, waits */
	pthread_cond_t more, room, idle;
	struct gpudp_flow_rec *ring;
	struct app_flows_out out[CAP_FLOW_OUTS];
	uint32_t n_out;          /* outputs with a thread (started) */
	uint64_t tail;           /* records put in */
	uint64_t waits;          /* puts that found it full */
	int stop, started;
};

struct cap_app {
	struct cap_conf conf;
	struct vdev_file files[MAX_VDEV_FILES];
	unsigned int n_files;
	struct cap_port ports[CAP_MAX_PORTS];
	unsigned int n_ports;
	struct rte_mempool *pool;
	struct gpudp_cap_engine eng;
	const char *engine_name;
	char engine_note[320];
	struct gpudp_analysis *result;
	/* the flow monitor (app_flows.c): its settings and outputs */
	struct gpudp_flow_life life;
	struct gpudp_ipfix *ipx[CAP_MAX_IPFIX + 1]; /* an exporter per IPFIX target */
	uint32_t n_ipx;
	struct gpudp_flow_log *flow_log;
	int flow_log_failed;          /* its error was said */
	struct app_flows_q fq;        /* the records' way to those outputs */
	struct gpudp_flow_life_stats flow_st; /* records out: their count, packets,
					       * end reasons (ended[]: records) */
	struct gpudp_flow_life_stats flow_table; /* the direct reader's last run:
						  * the table's looks and slots */
	struct gpudp_pcapng_ring *out;  /* --filter-out (--filter-out-rotate): a write
					 * error is said and counted by the writer */
	uint64_t staging_drops;
	uint64_t multiseg;
	uint64_t pmd_cut;         /* frames whose mbufs hold fewer bytes than pkt_len */
	uint64_t rx_total;
	int ts_off;
	uint64_t ts_flag;
	int file_truncated;
	uint64_t rx_errors;       /* the direct reader's: records it could not read (a cut
				   * last record, as net_pcap counts it in ierrors) */
	uint64_t files_changed;   /* input files whose size changed while they were read */
	uint64_t expected_total;
	int snaps_unreliable;
	int any_live;
	char input_desc[512];
	struct gpudp_analysis *verify;  /* --verify: the CPU's analysis of the same batches */
	uint64_t verify_mismatch;       /* batches whose filter bits differed */
	/* --mem */
	enum gpudp_cap_mem mem;               /* what is used */
	char mem_note[448];             /* why (auto), or empty */
	int16_t gpu_id;                 /* gpudev id of --gpu, -1: none */
	char gpu_why[256];              /* why there is none */
	struct gpudp_pool *gpool;       /* pinned and device pools (lib/mem) */
	struct gpudp_pool_info pinfo;
	uint64_t pins_created;          /* lib/mem's pin counter once the pool exists */
	int cpu_mapped;                 /* device memory mapped for the CPU engine (lib/mem) */
	int chain_warned;
	uint64_t unreadable_written;    /* matches whose bytes the host could not get */
	cpu_set_t cpus;                 /* the CPUs before EAL pinned the main lcore
					 * (--reader direct's threads run on them) */
	int have_cpus;
	/* the GPUs the ports are on: one (n_gpus 1) unless --gpu auto or --gpu-map
	 * put them on several; with the CPU engine, one engine (app->eng) */
	struct cap_gpu gpus[CAP_MAX_GPUS];
	unsigned int n_gpus;            /* 0: no placement (one GPU or the CPU) */
	struct gpudp_cap_engine_stats eng_sum; /* the engines' stats added up (several GPUs) */
	char eal_ports[96];             /* the first port the EAL arguments add (--vdev,
					 * -a), or empty */
};

/* Set by SIGINT and SIGTERM (main.c): stop capturing. */
extern volatile sig_atomic_t app_stop_requested;

/* app_ports.c */
int app_scan_vdevs(struct cap_app *app, int argc, char **argv);
int app_check_files(struct cap_app *app);
/** After net_pcap read the files: those whose size changed since inspected, said and counted. */
void app_check_file_sizes(struct cap_app *app);
int app_collect_ports(struct cap_app *app);
int app_setup_ports(struct cap_app *app);
void app_describe_input(struct cap_app *app);

/* app_mem.c */
int16_t app_find_gpu(struct cap_app *app);
const char *cap_mem_name(enum gpudp_cap_mem m);
int app_resolve_mem(struct cap_app *app, int gpu_engine);
int app_create_pool(struct cap_app *app);
int app_map_for_cpu(struct cap_app *app);
int app_release_pool(struct cap_app *app);

/* app_engine.c */
void app_batch_release(void *arg, void **owner, uint32_t n);
int app_choose_engine_and_mem(struct cap_app *app);

/* app_gpus.c */
/** --gpu auto, --gpu-map, or the default with several GPUs: each port's GPU,
 *  logged. @return 0, or the exit code */
int app_place_ports(struct cap_app *app);
/** After the first GPU's engine (app->eng) is made: one engine on each other
 *  GPU used, with its configuration. @return 0 or -1 (logged) */
int app_create_gpu_engines(struct cap_app *app);
/** How many engines the ports use (1, or the GPUs of the placement). */
unsigned int app_n_engines(const struct cap_app *app);
/** Engine @p i (0: app->eng). */
struct gpudp_cap_engine *app_engine(struct cap_app *app, unsigned int i);
/** With several engines: every engine's results added into app->result (each
 *  collected into its own analysis object), their stats into app->eng_sum.
 *  @return 0 or a negative errno (the engine's err says why) */
int app_collect_engines(struct cap_app *app);
/** Destroy the engines of the second and later GPUs and their results. */
void app_destroy_gpu_engines(struct cap_app *app);

/* app_report.c */
int app_report(struct cap_app *app, double elapsed, int final);
/** Register /gpudp/capture/ports, the counters of @p app's ports (started). */
void app_report_telemetry(const struct cap_app *app);
int app_verify_results(struct cap_app *app);

/* app_rx.c */
int app_run(struct cap_app *app);

/* app_direct.c */
/** --reader direct: the input's description and expected packets from the files. */
void app_describe_files(struct cap_app *app);
/** --reader direct: every --pcap file analysed, --filter-out written, the report. */
int app_run_direct(struct cap_app *app);

/* app_flows.c: the flow monitor's outputs */
/** Open --flow-log, --ipfix and --ipfix-file (nothing when off). @return 0, or the exit code */
int app_flows_open(struct cap_app *app);
/** The engine's flows_out: records to every output. */
void app_flows_out(void *arg, const struct gpudp_flow_rec *recs, uint32_t n);
/** Live ports: end every flow (forced end) at the end of the run. */
void app_flows_end(struct cap_app *app);
/** Fill the report's flow part from the engine and the outputs; flushes them first when
 *  @p final. @return @p f, or NULL when the monitor is off */
const struct cap_report_flows *app_flows_report(struct cap_app *app, int final,
						struct cap_report_flows *f);
/** Close the outputs. @return 1 if any record was lost (or an output failed), else 0 */
int app_flows_close(struct cap_app *app);

/* app_flows_q.c: the records' queue to the outputs and their export threads */
/** Start the export thread. @return 0, or a negative errno (records are then written
 *  by the engine's thread) */
int app_flows_q_start(struct cap_app *app);
/** @p n records into the queue, in order; waits while it is full */
void app_flows_q_put(struct cap_app *app, const struct gpudp_flow_rec *recs, uint32_t n);
/** Wait until every record put is written. */
void app_flows_q_sync(struct cap_app *app);
/** Hold (@p lock 1) or let go (0) the outputs, to read their counters. */
void app_flows_q_io(struct cap_app *app, int lock);
/** @return the times app_flows_q_put() found the queue full */
uint64_t app_flows_q_waits(struct cap_app *app);
/** Write what is left and end the export thread. */
void app_flows_q_stop(struct cap_app *app);

#endif /* GPUDP_CAPTURE_CAP_APP_H */
