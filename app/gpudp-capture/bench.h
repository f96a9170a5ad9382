/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture-bench's parts (bench.c: the runs; bench_opts.c: the
 * options; bench_out.c: the JSON result; bench_gen.c: generated captures).
 */
#ifndef GPUDP_CAPTURE_BENCH_H
#define GPUDP_CAPTURE_BENCH_H

#include <stdint.h>

#include "cap_match.h"
#include "cap_rules.h"
#include "gpudp_cap_engine.h"
#include "gpudp_cap_reader.h"
#include "gpudp_capfile.h"

struct bench_conf {
	const char *input;
	const char *json;
	const char *report;
	const char *filter;
	const char *engines;
	uint32_t repeat;
	uint32_t batch_pkts;
	uint32_t batch_bytes;
	uint32_t flows;
	uint32_t inflight;
	uint32_t vary;
	int gpu;
	struct cap_match match;   /* --match, --match-scope */
	struct cap_rules rules;   /* --rules, --rule-vars */
	uint32_t threads;         /* --threads: 0, the file in memory; else the direct reader */
	uint64_t generate;        /* --generate N: write N frames to the file, then exit */
	uint32_t frame_size;      /* --frame-size: generated frames of this size (0: 80..128) */
	/* --stage: how the direct reader's records reach the engine */
	enum gpudp_cap_reader_stage stage;
	uint32_t read_bytes;      /* --read-bytes: the direct reader's reads (0: its default) */
	int memory;               /* --memory: the direct reader over a copy of the file in memory */
};

struct bench_result {
	int ran;
	char note[256];
	uint64_t pkts;
	double seconds;
	struct gpudp_cap_engine_stats st;
	/* --threads: the best pass's parts (gpudp_cap_reader.h) */
	double read_s, collect_s, merge_s;
	double register_s;
	enum gpudp_cap_reader_stage stage;
	struct gpudp_cap_reader_stats pass[16];     /* --threads: the first passes (pass 0 first) */
	double warmup_s;                    /* --threads: pass 0's (the first in the process) */
	uint32_t n_pass;
	int in_memory;                      /* --memory: the passes read the copy in memory */
};

/* The options into @p bc. @return -1 to go on, else the exit code */
int bench_parse_args(struct bench_conf *bc, int argc, char **argv);

/* The result: to --json FILE, else stdout. @return 0 or -1 */
int bench_write_result(const struct bench_conf *bc, const struct gpudp_capfile_packets *pk,
		       const struct bench_result *cpu, const struct bench_result *gpu,
		       const struct gpudp_cap_reader_mem *m);

/* --generate N: N frames to @p path as pcap (nanosecond timestamps). @return the exit code */
int bench_generate(const char *path, uint64_t n, uint32_t size);

#endif /* GPUDP_CAPTURE_BENCH_H */
