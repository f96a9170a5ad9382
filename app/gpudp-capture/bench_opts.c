/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture-bench's options (bench.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: gpudp-capture-bench [options] FILE.pcap|FILE.pcapng\n"
		"  --engine LIST     engines to run, comma-separated: cpu,gpu (default: cpu,gpu)\n"
		"  --repeat N        passes over the file per engine (default: 20)\n"
		"  --batch N         packets per batch (default: 8192)\n"
		"  --batch-bytes N   data bytes per batch (default: 16777216)\n"
		"  --flows N         flow table slots, power of two (default: 65536)\n"
		"  --inflight N      GPU batches in flight (default: 3)\n"
		"  --gpu N           CUDA device (default: 0)\n"
		"  --vary N          copy r of the file gets its IP addresses' last two bytes\n"
		"                    XORed with r %% N: up to N times the file's flows (default: 0, off)\n"
		"  --filter EXPR     filter evaluated on every packet (default: none)\n"
		"  --match FILE      payload inspection with the patterns of FILE (default: none)\n"
		"  --match-scope S   payload or frame (default: payload)\n"
		"  --rules FILE      Suricata-style rules of FILE (doc/rules.md); repeatable\n"
		"                    (default: none)\n"
		"  --rule-vars FILE  the rules' variables (default: none)\n"
		"  --threads N       read the file with gpudp-capture's direct reader (N host\n"
		"                    threads with an engine each); each pass is a whole run,\n"
		"                    the best of --repeat is reported (default: 0, the file\n"
		"                    in memory fed by one thread)\n"
		"  --stage S         --threads: how records reach the engine: auto, copy,\n"
		"                    gather or read (doc/capture.md, \"Direct reading\";\n"
		"                    default: auto)\n"
		"  --read-bytes N    --threads: bytes a thread reads at once into a batch\n"
		"                    (4096..67108864; default: 262144)\n"
		"  --memory          --threads: read the file into memory first (registered\n"
		"                    with the GPU for the GPU engine, outside the timed passes);\n"
		"                    each thread describes its records where they are there,\n"
		"                    nothing is read or copied during a pass (pcap files)\n"
		"  --generate N      write N synthetic frames (80..128 bytes, IPv4 and IPv6, TCP\n"
		"                    and UDP, 65536 flows) to FILE as pcap, then exit\n"
		"  --frame-size S    --generate: frames of S bytes (80..9000) with random\n"
		"                    payloads (default: 0, 80..128 bytes)\n"
		"  --json FILE       benchmark result as JSON (default: stdout only)\n"
		"  --report FILE     gpudp-capture JSON report of one pass of the last engine\n"
		"  --help            this text\n");
}

static int
parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *e;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &e, 0);
	if (errno != 0 || *e != '\0' || v[0] == '-' || x < min || x > max) {
		fprintf(stderr, "gpudp-capture-bench: --%s: bad value '%s' (expected %u..%u)\n",
			opt, v, min, max);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

/* One option (getopt_long()'s @p c) into @p bc. @return -1 to go on, else the exit code */
static int
parse_opt(struct bench_conf *bc, int c, uint32_t *gdev)
{
	uint32_t gen = 0;

	switch (c) {
	case 'e': bc->engines = optarg; break;
	case 'r': if (parse_u32("repeat", optarg, 1, 1000000, &bc->repeat)) return 2; break;
	case 'b': if (parse_u32("batch", optarg, 1, 1u << 20, &bc->batch_pkts)) return 2; break;
	case 'B': if (parse_u32("batch-bytes", optarg, 65536, 1u << 30, &bc->batch_bytes))
			return 2;
		break;
	case 'f': if (parse_u32("flows", optarg, 16, GPUDP_AN_MAX_FLOWS, &bc->flows)) return 2;
		if (gpudp_analysis_capacity(bc->flows) != bc->flows) {
			fprintf(stderr, "gpudp-capture-bench: --flows: bad value '%s' "
				"(a power of two)\n", optarg);
			return 2;
		}
		break;
	case 'i': if (parse_u32("inflight", optarg, 1, 16, &bc->inflight)) return 2; break;
	case 'g': if (parse_u32("gpu", optarg, 0, 64, gdev)) return 2; break;
	case 'v': if (parse_u32("vary", optarg, 0, 65536, &bc->vary)) return 2; break;
	case 'F': bc->filter = optarg; break;
	case 'j': bc->json = optarg; break;
	case 'R': bc->report = optarg; break;
	case 'm': bc->match.file = optarg; break;
	case 't': if (parse_u32("threads", optarg, 1, GPUDP_CAP_READER_THREADS_MAX,
				&bc->threads))
			return 2;
		break;
	case 'G': if (parse_u32("generate", optarg, 1, 4000000000u, &gen)) return 2;
		bc->generate = gen;
		break;
	case 'z': if (parse_u32("frame-size", optarg, 80, 9000, &bc->frame_size)) return 2; break;
	case 'Y': if (parse_u32("read-bytes", optarg, 4096, 64u << 20, &bc->read_bytes))
			return 2;
		break;
	case 'S': if (cap_match_scope("gpudp-capture-bench", optarg, &bc->match)) return 2; break;
	case 'T': if (gpudp_cap_reader_stage_parse(optarg, &bc->stage) != 0) {
			fprintf(stderr, "gpudp-capture-bench: --stage: bad value '%s' "
				"(auto, copy, gather or read)\n", optarg);
			return 2;
		}
		break;
	case 'M': bc->memory = 1; break;
	case CAP_RULE_OPT_RULES:
	case CAP_RULE_OPT_VARS:
		if (cap_rules_option("gpudp-capture-bench", &bc->rules, c, optarg) != 0)
			return 2;
		break;
	case 'h': usage(stdout); return 0;
	default: usage(stderr); return 2;
	}
	return -1;
}

int
bench_parse_args(struct bench_conf *out, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "batch-bytes", required_argument, NULL, 'B' },
		{ "flows", required_argument, NULL, 'f' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "vary", required_argument, NULL, 'v' },
		{ "filter", required_argument, NULL, 'F' },
		{ "json", required_argument, NULL, 'j' },
		{ "report", required_argument, NULL, 'R' },
		{ "match", required_argument, NULL, 'm' },
		{ "match-scope", required_argument, NULL, 'S' },
		{ "rules", required_argument, NULL, CAP_RULE_OPT_RULES },
		{ "rule-vars", required_argument, NULL, CAP_RULE_OPT_VARS },
		{ "threads", required_argument, NULL, 't' },
		{ "generate", required_argument, NULL, 'G' },
		{ "frame-size", required_argument, NULL, 'z' },
		{ "read-bytes", required_argument, NULL, 'Y' },
		{ "stage", required_argument, NULL, 'T' },
		{ "memory", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_conf bc = *out;
	uint32_t gdev = 0;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((rc = parse_opt(&bc, c, &gdev)) >= 0)
			return rc;
	bc.gpu = (int)gdev;
	if (optind != argc - 1) {
		fprintf(stderr, "gpudp-capture-bench: expected one capture file\n");
		usage(stderr);
		return 2;
	}
	bc.input = argv[optind];
	if (bc.memory && bc.threads == 0) {
		fprintf(stderr, "gpudp-capture-bench: --memory needs --threads\n");
		return 2;
	}
	if (strstr(bc.engines, "cpu") == NULL && strstr(bc.engines, "gpu") == NULL) {
		fprintf(stderr, "gpudp-capture-bench: --engine: bad value '%s' (cpu, gpu or "
			"cpu,gpu)\n", bc.engines);
		return 2;
	}
	*out = bc;
	return -1;
}
