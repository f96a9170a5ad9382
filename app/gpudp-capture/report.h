/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp-capture's report: a human-readable table and a JSON document
 * (schema in doc/capture.md) built from an analysis object and run counters.
 * No DPDK dependency: the benchmark and tests print the same report.
 */
#ifndef GPUDP_CAPTURE_REPORT_H
#define GPUDP_CAPTURE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cap_match.h"
#include "cap_rules.h"
#include "gpudp_cap_engine.h"
#include "gpudp_analysis.h"
#include "gpudp_app_port_stats.h"
#include "gpudp_pcapng_ring.h"
#include "gpudp_flow_log.h"
#include "gpudp_ipfix.h"
#include "gpudp_json.h"

/** JSON schema version written as "schema". */
#define CAP_REPORT_SCHEMA 1

/** Most ports listed per GPU in a report. */
#define CAP_REPORT_GPU_PORTS 32

/** A GPU the ports were analysed on (the JSON's engine.gpus). */
struct cap_report_gpu {
	int ordinal;                /**< CUDA device ordinal */
	char pci[32];               /**< PCI address, empty if unknown */
	uint16_t ports[CAP_REPORT_GPU_PORTS]; /**< the ports analysed on it */
	unsigned int n_ports;
	uint64_t packets;           /**< packets its engine analysed */
	uint64_t batches;           /**< batches its engine analysed */
};

/** Most IPFIX targets in a report: --ipfix's and --ipfix-file. */
#define CAP_REPORT_IPFIX 9

/** The flow monitor's part of a report (report_flows.c; the JSON's "flow_export"). */
struct cap_report_flows {
	struct gpudp_flow_life_stats life; /**< flows ended, records, packets */
	struct gpudp_flow_life_stats table; /**< the table: looks, evictions, slots */
	unsigned int n_ipfix;
	char ipfix_name[CAP_REPORT_IPFIX][300];
	struct gpudp_ipfix_stats ipfix[CAP_REPORT_IPFIX];
	const char *log_path;              /**< --flow-log, or NULL */
	struct gpudp_flow_log_stats log;
	uint64_t export_waits;             /**< times the analysis waited for room in
					    *   the records' queue to the outputs */
};

/** Records lost on the way to any output (collector or file). */
uint64_t cap_report_flows_dropped(const struct cap_report_flows *f);

/** The flow monitor's lines of the table report. */
void cap_report_flows_table(FILE *f, const struct cap_report_flows *fl);

/** The flow monitor's "flow_export" object of the JSON report. */
void cap_report_flows_json(struct gpudp_json *j, const struct cap_report_flows *fl);

/** Everything a report shows. */
struct cap_report {
	const char *input;          /**< what was read, e.g. "port 0 (net_pcap0)" */
	const char *engine;         /**< "gpu" or "cpu" */
	const char *engine_note;    /**< why this engine (e.g. "no GPU: ..."), may be NULL */
	const struct gpudp_cap_engine_stats *eng;
	const struct gpudp_analysis *a;
	int final;                  /**< 0: periodic report of a live run */
	double elapsed_s;           /**< wall time of the analysis */
	uint64_t rx_pkts;           /**< packets received from the ports */
	uint64_t rx_missed;         /**< port imissed (not received: full rings) */
	uint64_t rx_errors;         /**< port ierrors (e.g. net_pcap: frame too large) */
	uint64_t rx_nombuf;         /**< port rx_nombuf (mbuf pool empty) */
	/** each port's counters since it started (the JSON's "ports"), or NULL */
	const struct gpudp_app_port_stats *ports;
	unsigned int n_ports;
	uint64_t staging_drops;     /**< received but larger than a whole batch: not analysed */
	uint64_t multiseg;          /**< packets longer than the mbuf data room (chained), analysed */
	uint64_t pmd_cut;           /**< packets whose mbufs held fewer bytes than their length
				     *   (net_pcap, records over 65535 bytes): analysed as
				     *   snapped to the bytes that arrived */
	uint64_t expected_pkts;     /**< records in the input files (0: unknown) */
	int file_truncated;         /**< an input file ends inside a record */
	uint64_t files_changed;     /**< input files whose size changed while they were read */
	const char *filter_expr;    /**< NULL: no filter */
	const char *filter_file;    /**< pcapng output, may be NULL */
	uint64_t filter_written;    /**< packets written to filter_file */
	uint64_t filter_unreadable; /**< matches not written: their bytes could not be read
				     *   back from GPU memory */
	uint64_t filter_dropped;    /**< matches not written: write errors (a full disk, ...) */
	uint64_t filter_files;      /**< files written (1 without filter_rotate; with it,
				     *   those deleted by its files condition included) */
	uint64_t filter_files_removed; /**< files deleted by filter_rotate's files condition */
	/** --filter-out-rotate's conditions, or NULL (one file) */
	const struct gpudp_pcapng_ring_conf *filter_rotate;
	/** the flow monitor's outputs and counts, or NULL (off) */
	const struct cap_report_flows *flows;
	uint32_t top_n;             /**< rows of the flow and talker tables */
	/** payload inspection (--match): the pattern set whose counts a->match_*
	 *  hold; NULL or no file: none */
	const struct cap_match *match;
	/** rules (--rules): the rules whose counts a->rule_hits hold; NULL or
	 *  no image: none */
	const struct cap_rules *rules;
	uint64_t eve_written;       /**< alerts written to --eve */
	uint64_t eve_lost;          /**< alerts not written (no room, write errors) */
	/* --mem (NULL mem: no "mem" section, e.g. the benchmark) */
	const char *mem;            /**< "staged", "pinned" or "device" */
	const char *mem_note;       /**< why (--mem auto), may be NULL */
	const char *pin;            /**< pin backend of a device pool, else NULL */
	const char *host_alloc;     /**< a device pool on an integrated GPU: "default" or
				     *   "wc" (its cuMemHostAlloc memory), else NULL (no
				     *   key in the JSON) */
	uint32_t pool_mbufs;        /**< mbufs of the rx pool */
	uint32_t pool_data_room;    /**< their data room (bytes, without headroom) */
	uint64_t pool_gpu_bytes;    /**< GPU memory of a device pool */
	uint64_t pool_host_bytes;   /**< host memory of a lib/mem pool (0: a plain DPDK pool) */
	int64_t pins_created;       /**< lib/mem pins once the pool existed; -1: not a device pool */
	int64_t pins_running;       /**< lib/mem pins since then; -1: not a device pool */
	int cpu_mapped;             /**< device memory read by the CPU through rte_gpu_mem_cpu_map */
	const struct cap_report_gpu *gpus; /**< the GPUs of ports (engine.gpus), or NULL */
	unsigned int n_gpus;
};

/** The rules' lines of the table report (report_rules.c). @return 0 or -ENOMEM */
int cap_report_rules_table(FILE *f, const struct cap_report *r);

/** The rules' "rules" object of the JSON report. */
void cap_report_rules_json(struct gpudp_json *j, const struct cap_report *r);

/** Print the table. @return 0 or -EIO */
int cap_report_table(FILE *f, const struct cap_report *r);

/** Write the JSON document. @return 0, -ENOMEM or -EIO */
int cap_report_json(FILE *f, const struct cap_report *r);

/** Write the JSON document to a file (atomically: temp file + rename). @return 0 or -errno */
int cap_report_json_file(const char *path, const struct cap_report *r);

#endif /* GPUDP_CAPTURE_REPORT_H */
