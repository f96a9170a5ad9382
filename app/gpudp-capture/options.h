/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp-capture's options (after EAL's "--"), parsed once into a struct
 * that the rest of the app only reads.
 */
#ifndef GPUDP_CAPTURE_OPTIONS_H
#define GPUDP_CAPTURE_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "gpudp_cap_reader.h"
#include "cap_match.h"
#include "cap_rules.h"
#include "gpudp_analysis.h"
#include "gpudp_pcapng_ring.h"

#define CAP_MAX_PORTS 32
/* --ipfix: collectors */
#define CAP_MAX_IPFIX 8
#define CAP_MAX_PCAP 16
/* --gpu auto, --gpu-map: GPUs (CUDA ordinals 0..31) the ports may go to */
#define CAP_MAX_GPUS 32
/* --data-room: data room plus RTE_PKTMBUF_HEADROOM must fit the mbuf's uint16_t buf_len */
#define CAP_MAX_DATA_ROOM (65535u - RTE_PKTMBUF_HEADROOM)

/** --mem: where received packets land. */
enum cap_conf_mem {
	CAP_CONF_MEM_AUTO = 0,  /**< device on GPUDirect-capable ports with the GPU engine, else staged */
	CAP_CONF_MEM_STAGED,    /**< host mbufs, copied into staged batches */
	CAP_CONF_MEM_PINNED,    /**< mbufs in GPU-registered host memory, analysed in place */
	CAP_CONF_MEM_DEVICE,    /**< mbufs in GPU memory (the NIC DMAs), analysed in place */
};

/** --engine */
enum cap_conf_engine {
	CAP_CONF_ENGINE_AUTO = 0, /**< the GPU if usable, else the CPU */
	CAP_CONF_ENGINE_GPU,      /**< the GPU or exit 77 */
	CAP_CONF_ENGINE_CPU,      /**< the CPU (--cpu) */
};

/** --gpu: how the ports' GPUs are chosen (doc/multi-gpu.md) */
enum cap_conf_gpu_sel {
	CAP_CONF_GPU_DEFAULT = 0, /**< none given: auto with several GPUs (staged memory,
				   *   ports), else GPU 0 */
	CAP_CONF_GPU_ONE,         /**< --gpu N: every port on GPU N */
	CAP_CONF_GPU_AUTO,        /**< --gpu auto: each port on the GPU closest to it */
};

/** --reader: how --pcap files are read */
enum cap_conf_reader {
	CAP_CONF_READER_PMD = 0,  /**< through net_pcap vdevs, packet by packet (mbufs) */
	CAP_CONF_READER_DIRECT,   /**< read straight into batches by --threads threads */
};

/** The longest reason cap_conf_reader_pmd() gives, with its terminating NUL. */
#define CAP_READER_WHY_LEN 160

/** The app's configuration. */
struct cap_conf {
	int force_cpu;            /**< --cpu, --engine cpu */
	enum cap_conf_engine engine; /**< --engine */
	int engine_opt;           /**< the last of --cpu / --engine was --engine */
	enum cap_conf_mem mem;    /**< --mem */
	int pin;                  /**< --pin: enum gpudp_pin_backend */
	int igpu_wc;              /**< --igpu-alloc wc: an integrated GPU's device pool
				   *   write-combined */
	uint32_t gpu;             /**< --gpu N (0 with auto or none) */
	enum cap_conf_gpu_sel gpu_sel; /**< --gpu: N, auto, or not given */
	const char *gpu_map;      /**< --gpu-map PORT:GPU,..., or NULL */
	const char *json;         /**< --json */
	const char *filter_expr;  /**< --filter */
	struct gpudp_filter filter; /**< compiled once the options are read (after --match) */
	struct cap_match match;   /**< --match, --match-scope */
	struct cap_rules rules;   /**< --rules, --rule-vars, --rules-unsupported, --eve */
	const char *filter_out;   /**< --filter-out */
	const char *rotate_spec;  /**< --filter-out-rotate as given, or NULL */
	struct gpudp_pcapng_ring_conf rotate; /**< its conditions (the other fields unset) */
	uint16_t ports[CAP_MAX_PORTS]; /**< --ports */
	uint32_t n_ports;         /**< 0: all ports */
	uint32_t batch_pkts;      /**< --batch */
	uint32_t batch_bytes;     /**< --batch-bytes */
	uint32_t inflight;        /**< --inflight */
	uint32_t flows;           /**< --flows */
	uint32_t burst;           /**< --burst */
	uint32_t mbufs;           /**< --mbufs */
	uint32_t data_room;       /**< --data-room */
	uint32_t rxd;             /**< --rxd */
	uint32_t top;             /**< --top */
	double period_s;          /**< --period */
	double progress_s;        /**< --progress */
	uint32_t idle_ms;         /**< --idle-ms */
	uint64_t max_packets;     /**< --max-packets */
	double duration_s;        /**< --duration */
	int quiet;                /**< --quiet */
	int verify;               /**< --verify */
	const char *pcap[CAP_MAX_PCAP]; /**< --pcap: files opened as net_pcap vdevs */
	uint32_t n_pcap;
	enum cap_conf_reader reader; /**< --reader, or the default chosen for the input */
	int reader_opt;           /**< --reader was given (else the default: direct for --pcap) */
	/** why the default is pmd although --pcap was given (an option that needs
	 *  ports or mbufs, see cap_conf_reader_pmd()); empty: it is not */
	char reader_why[CAP_READER_WHY_LEN];
	const char *pmd_opt;      /**< the first of --burst, --mbufs, --data-room, --rxd,
				   *   --idle-ms, --duration given (options of ports), or NULL */
	const char *pmd_opt_val;  /**< its value */
	uint32_t threads;         /**< --threads (direct reader) */
	/* the flow monitor (flow_opts.c, doc/flows.md): on with any of
	 * --flow-log, --ipfix, --ipfix-file */
	const char *flow_log;     /**< --flow-log FILE or "-", or NULL */
	const char *ipfix[CAP_MAX_IPFIX]; /**< --ipfix [udp:|tcp:]HOST:PORT, checked */
	uint32_t n_ipfix;
	const char *ipfix_file;   /**< --ipfix-file PATH, or NULL */
	const char *metrics;      /**< --metrics [HOST:]PORT, or NULL */
	uint64_t metrics_linger_s; /**< --metrics-linger SEC */
	uint32_t obs_domain;      /**< --observation-domain */
	uint32_t ipfix_mtu;       /**< --ipfix-mtu (0: the exporter's default, 1500) */
	uint64_t idle_timeout_s;  /**< --idle-timeout */
	uint64_t active_timeout_s; /**< --active-timeout */
	int biflow;               /**< --biflow */
};

/** Whether the flow monitor is on (--flow-log, --ipfix or --ipfix-file). */
static inline int
cap_conf_flows_on(const struct cap_conf *c)
{
	return c->flow_log != NULL || c->n_ipfix > 0 || c->ipfix_file != NULL;
}

/**
 * The flow monitor's option @p o (flow_opts.c: its own enum values, from
 * CAP_FLOW_OPT_FIRST), with value @p v.
 * @return 0, -1 (printed), or 1 if not one of them
 */
int cap_flow_option(struct cap_conf *c, int o, const char *v);

/** The flow monitor's options against the others. @return 0 or -1 (printed) */
int cap_flow_check(struct cap_conf *c);

/** --help's lines for the flow monitor's options. */
void cap_flow_usage(FILE *f);

/** The flow monitor's option ids (getopt_long's values) and names. */
enum {
	CAP_FLOW_OPT_FIRST = 512,
	CAP_FLOW_OPT_LOG = CAP_FLOW_OPT_FIRST, CAP_FLOW_OPT_IPFIX, CAP_FLOW_OPT_IPFIX_FILE,
	CAP_FLOW_OPT_DOMAIN, CAP_FLOW_OPT_IDLE, CAP_FLOW_OPT_ACTIVE, CAP_FLOW_OPT_BIFLOW,
	CAP_FLOW_OPT_MTU,
};
#define CAP_FLOW_LONG_OPTS \
	{ "flow-log", required_argument, NULL, CAP_FLOW_OPT_LOG }, \
	{ "ipfix", required_argument, NULL, CAP_FLOW_OPT_IPFIX }, \
	{ "ipfix-file", required_argument, NULL, CAP_FLOW_OPT_IPFIX_FILE }, \
	{ "observation-domain", required_argument, NULL, CAP_FLOW_OPT_DOMAIN }, \
	{ "idle-timeout", required_argument, NULL, CAP_FLOW_OPT_IDLE }, \
	{ "active-timeout", required_argument, NULL, CAP_FLOW_OPT_ACTIVE }, \
	{ "biflow", no_argument, NULL, CAP_FLOW_OPT_BIFLOW }, \
	{ "ipfix-mtu", required_argument, NULL, CAP_FLOW_OPT_MTU }

/**
 * Parse the app's arguments (argv[0] is the program name).
 * @return 0; 1 if --help was printed (exit 0); -1 on an error already
 *         printed to stderr naming the option and value (exit 2)
 */
int cap_conf_parse(struct cap_conf *c, int argc, char **argv);

/**
 * Whether an option given needs the PMD path (net_pcap ports, mbufs), so
 * that --pcap files cannot go through the direct reader: --mem pinned or
 * device, --pin other than auto, --verify, --ports, --gpu auto, --gpu-map,
 * or one of the port and mbuf options (--burst, --mbufs, --data-room,
 * --rxd, --idle-ms, --duration).
 * @param why     the option and why it needs ports, e.g. "--verify analyses
 *                the batches of ports twice" (may be NULL)
 * @param why_len size of @p why (CAP_READER_WHY_LEN is enough)
 * @return 1 if one does (the first found is named in @p why), else 0
 */
int cap_conf_reader_pmd(const struct cap_conf *c, char *why, size_t why_len);

/** "pmd" or "direct". */
const char *cap_conf_reader_name(enum cap_conf_reader r);

/** Free what cap_conf_parse() allocated (the --match patterns). */
void cap_conf_free(struct cap_conf *c);

/** Print --help to f. */
void cap_conf_usage(FILE *f, const char *prog);

/** "auto", "staged", "pinned", "device". */
const char *cap_conf_mem_name(enum cap_conf_mem m);

#endif /* GPUDP_CAPTURE_OPTIONS_H */
