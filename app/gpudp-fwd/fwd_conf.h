/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd configuration: filled once by fwd_conf_parse(), read-only after. */
#ifndef GPUDP_FWD_CONF_H
#define GPUDP_FWD_CONF_H

#include <stdint.h>
#include <stdio.h>

#include <rte_config.h>

#include <gpudp_handoff.h>
#include <gpudp_mem.h>

#define FWD_MAX_PORTS 32
/* --data-room: bytes of packet data per mbuf; the mbuf's buffer is that
 * plus RTE_PKTMBUF_HEADROOM, and its length is a uint16_t (as gpudp-capture's) */
#define FWD_MIN_DATA_ROOM 256u
#define FWD_MAX_DATA_ROOM (65535u - RTE_PKTMBUF_HEADROOM)
/* --mbufs: the largest pool of one pipeline, also the most packets a
 * pipeline may hold in flight (--ring x --burst) */
#define FWD_MIN_MBUFS 1024u
#define FWD_MAX_MBUFS 16777216u
/* GPUs: --gpu N and the GPU of a --gpu-map entry are CUDA ordinals below it */
#define FWD_MAX_GPUS 32

enum fwd_mem { FWD_MEM_AUTO = -1 };
enum fwd_pairing { FWD_PAIR_PAIRED, FWD_PAIR_SAME };
enum fwd_full { FWD_FULL_WAIT, FWD_FULL_DROP };
/* how each port's GPU is chosen (doc/multi-gpu.md) */
enum fwd_gpu_sel {
	FWD_GPU_DEFAULT, /* no --gpu: auto when CUDA reports several GPUs, else GPU 0 */
	FWD_GPU_ONE,     /* --gpu N: every port on GPU N */
	FWD_GPU_AUTO,    /* --gpu auto: each port on the GPU closest in the PCIe tree */
	FWD_GPU_MAP,     /* --gpu-map: the ports it names by hand, the others auto */
};

struct fwd_conf {
	uint16_t ports[FWD_MAX_PORTS];
	uint16_t nb_ports;          /* 0: every port */
	uint16_t queues;            /* queue pairs per port: one pipeline each */
	unsigned int pipeline_lcores; /* 2: rx and tx lcores; 1: one lcore does both */
	enum fwd_pairing pairing;
	int16_t gpu;                /* --gpu N: CUDA ordinal (or another driver's gpudev id) */
	enum fwd_gpu_sel gpu_sel;
	const char *gpu_map;        /* --gpu-map PORT:GPU,... (syntax checked), or NULL */
	int mem;                    /* enum gpudp_mem_type or FWD_MEM_AUTO */
	enum gpudp_pin_backend pin;
	int igpu_wc;                /* --igpu-alloc wc: integrated GPUs' pools write-combined */
	enum gpudp_ho_mode mode;
	const char *work_spec;      /* --work/--kernel: a registered name or a path */
	const struct gpudp_work *work; /* resolved (and loaded) by fwd_conf_parse() */
	const char *work_arg;       /* --work-arg (or --load-rounds), or NULL */
	uint32_t burst;             /* packets per handoff burst */
	uint32_t rx_burst;          /* most packets per rte_eth_rx_burst call */
	uint32_t flush_us;
	uint32_t ring;
	uint32_t threads;
	uint32_t graph_batch;
	uint32_t persistent_blocks; /* 0: the handoff's default */
	uint32_t poll_ns;
	uint32_t pollers;           /* 0: the handoff's default */
	enum fwd_full full;
	uint32_t mbufs;             /* per pipeline pool; 0: computed (fwd_conf_mbufs()) */
	uint16_t data_room;         /* bytes of packet data per mbuf (headroom not included) */
	uint16_t rxd, txd;
	double stats_period;        /* s, 0: off */
	double duration;            /* s, 0: until a signal */
	uint64_t count;             /* stop after this many received packets, 0: no limit */
	uint64_t min_forwarded;     /* exit 1 if fewer packets were transmitted */
	const char *json;           /* final counters as JSON, or NULL */
	const char *metrics;        /* --metrics [HOST:]PORT, or NULL */
	uint64_t metrics_linger_s;  /* --metrics-linger */
	int check;                  /* --check: deployment checks, then exit */
	int quiet;                  /* no periodic stats lines */
};

/** Fill @p c from the application arguments (after EAL's "--").
 *  @return 0; 1 after --help (printed); -1 after an error (printed). */
int fwd_conf_parse(struct fwd_conf *c, int argc, char **argv);
void fwd_conf_usage(FILE *f, const char *prog);
/** The options against each other and the machine (fwd_conf_check.c), after
 *  each was parsed: --gpu-map (then FWD_GPU_MAP), --graph-batch,
 *  --persistent-blocks, --mem against --mode, the pools; --rx-burst cut to
 *  --burst. @return 0, or -1 after an error (printed; warnings printed too) */
int fwd_conf_check(struct fwd_conf *c);
/** The memory type in force: --mem, or the mode's default. */
enum gpudp_mem_type fwd_conf_mem(const struct fwd_conf *c);
/** Mbufs per pipeline pool: --mbufs, or ring * burst + rxd + 2 * txd + 2048. */
uint64_t fwd_conf_mbufs(const struct fwd_conf *c);

#endif /* GPUDP_FWD_CONF_H */
