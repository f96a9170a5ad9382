/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd option parsing: getopt_long, one table, errors naming the
 * option and the bad value; the options against each other are checked in
 * fwd_conf_check.c. No DPDK calls: it runs before rte_eal_init(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_app_gpu.h>
#include <gpudp_app_work.h>
#include <gpudp_app_metrics.h>
#include <gpudp_opt.h>

#include "fwd_conf.h"

enum {
	OPT_PORTS = 256, OPT_QUEUES, OPT_PIPELINE_LCORES, OPT_PAIRING, OPT_GPU, OPT_GPU_MAP, OPT_MEM,
	OPT_PIN, OPT_MODE, OPT_KERNEL, OPT_LOAD_ROUNDS, OPT_WORK, OPT_WORK_ARG, OPT_BURST, OPT_RX_BURST,
	OPT_FLUSH_US, OPT_RING, OPT_THREADS, OPT_GRAPH_BATCH, OPT_PERSISTENT_BLOCKS, OPT_GPU_POLL_NS,
	OPT_GPU_POLLERS,
	OPT_RING_FULL, OPT_MBUFS, OPT_DATA_ROOM, OPT_RXD, OPT_TXD, OPT_STATS,
	OPT_DURATION, OPT_COUNT, OPT_MIN_FORWARDED, OPT_JSON, OPT_CHECK, OPT_QUIET,
	OPT_HELP, OPT_METRICS, OPT_METRICS_LINGER, OPT_IGPU_ALLOC,
};

static const struct option long_opts[] = {
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "pipeline-lcores", required_argument, NULL, OPT_PIPELINE_LCORES },
	{ "pairing", required_argument, NULL, OPT_PAIRING },
	{ "gpu", required_argument, NULL, OPT_GPU },
	{ "gpu-map", required_argument, NULL, OPT_GPU_MAP },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "pin", required_argument, NULL, OPT_PIN },
	{ "igpu-alloc", required_argument, NULL, OPT_IGPU_ALLOC },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "load-rounds", required_argument, NULL, OPT_LOAD_ROUNDS },
	{ "work", required_argument, NULL, OPT_WORK },
	{ "work-arg", required_argument, NULL, OPT_WORK_ARG },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "rx-burst", required_argument, NULL, OPT_RX_BURST },
	{ "flush-us", required_argument, NULL, OPT_FLUSH_US },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "graph-batch", required_argument, NULL, OPT_GRAPH_BATCH },
	{ "persistent-blocks", required_argument, NULL, OPT_PERSISTENT_BLOCKS },
	{ "gpu-poll-ns", required_argument, NULL, OPT_GPU_POLL_NS },
	{ "gpu-pollers", required_argument, NULL, OPT_GPU_POLLERS },
	{ "ring-full", required_argument, NULL, OPT_RING_FULL },
	{ "mbufs", required_argument, NULL, OPT_MBUFS },
	{ "data-room", required_argument, NULL, OPT_DATA_ROOM },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "txd", required_argument, NULL, OPT_TXD },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "min-forwarded", required_argument, NULL, OPT_MIN_FORWARDED },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "metrics-linger", required_argument, NULL, OPT_METRICS_LINGER },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void
fwd_conf_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [EAL options] -- [options]\n"
"Forward packets between DPDK ports through the CPU-to-GPU handoff: each\n"
"pipeline (one rx queue, one tx queue) has an rx lcore that hands complete\n"
"bursts to the work and a tx lcore that transmits them once done.\n"
"\n"
"Ports and pipelines:\n"
"  --ports LIST          port ids, comma-separated (default: every port)\n"
"  --queues N            queue pairs per port, one pipeline each, 1..16;\n"
"                        RSS over IP when N > 1 (default: 1)\n"
"  --pipeline-lcores N   lcores per pipeline: 2 = rx and tx lcores,\n"
"                        1 = one lcore does both (default: 2)\n"
"  --pairing P           paired: port 2k <-> 2k+1 (odd last port to itself);\n"
"                        same: back out of the receiving port (default: paired)\n"
"Memory:\n"
"  --gpu N|auto          N: every pipeline on GPU N (CUDA ordinal); auto: each\n"
"                        port's pipelines on the GPU closest to the port in\n"
"                        the PCIe tree (default: auto with several GPUs, else 0)\n"
"  --gpu-map MAP         PORT:GPU,... (port ids, CUDA ordinals): those ports'\n"
"                        pipelines on those GPUs, other ports as --gpu auto\n"
"                        (default: none)\n"
"  --mem TYPE            host, pinned, device, or split (headers in host\n"
"                        mbufs, payload in GPU mbufs: none and the GPU\n"
"                        modes)\n"
"                        (default: device for launch, persistent, graph;\n"
"                        host otherwise)\n"
"  --pin B               auto, peermem, kmod, dmabuf: device pools (default: auto)\n"
"  --igpu-alloc A        an integrated GPU's device and split pools (host memory\n"
"                        from cuMemHostAlloc, doc/tegra.md): default, or wc\n"
"                        (write-combined: not cached by the CPU); no effect on\n"
"                        a discrete GPU (default: default)\n"
"  --mbufs N             mbufs per pipeline pool, 1024..16777216, at least\n"
"                        --burst (default: ring * burst + rxd + 2 * txd + 2048)\n"
"  --data-room N         bytes of packet data per mbuf, the %u-byte headroom not\n"
"                        included, %u..%u (default: 2048)\n"
"  --rxd N / --txd N     descriptors per queue, 64..16384 (default: 1024)\n"
"Handoff:\n"
"  --mode M              none, cpu, launch, persistent, graph, staged (default: cpu)\n"
"  --work W              the work: a built-in (macswap, ipv4, load) or the path\n"
"                        of a work built with the SDK, a shared object\n"
"                        (doc/work.md) (default: macswap)\n"
"  --work-arg S          the work's argument, parsed by the work\n"
"  --kernel K            the same as --work K, for a built-in\n"
"  --load-rounds N       the same as --work-arg N for the load work: hash\n"
"                        rounds per packet, 0..1000000 (default: 16)\n"
"  --burst N             packets per handoff burst, 1..%u (default: 64)\n"
"  --rx-burst N          most packets per rx_burst call, 1..%u (default: 32)\n"
"  --flush-us US         submit a partial burst once its first packet waited\n"
"                        US microseconds (checked when an rx_burst returns fewer\n"
"                        packets than asked for); 0 = after every rx_burst,\n"
"                        0..10000000 (default: 20)\n"
"  --ring N              in-flight bursts per pipeline, power of two 2..%u (default: 64)\n"
"  --ring-full P         ring full: wait (stop polling rx: back-pressure to the\n"
"                        port) or drop (receive and drop, counted) (default: wait)\n"
"  --threads N           GPU threads per block, multiple of 32, 32..1024 (default: 256)\n"
"  --graph-batch N       graph mode: bursts per CUDA graph, divides --ring (default: 8)\n"
"  --persistent-blocks N|max persistent mode: worker blocks, 1..--ring, or max:\n"
"                        as many as the GPU keeps resident, shared by its\n"
"                        pipelines, at most --ring; every block must be\n"
"                        resident (default: what 100 Mpps needs, 2..--ring:\n"
"                        19 at --burst 32, 5 at 256, 3 at 1024)\n"
"  --gpu-poll-ns NS      persistent mode: GPU sleep between polls of a burst not\n"
"                        ready yet, 0 = spin, 0..%u (default: 0)\n"
"  --gpu-pollers N       persistent mode: warps that poll the bursts' ready words,\n"
"                        taking turns, 1..%u and at most --threads / 32\n"
"                        (default: 4)\n"
"Run and report:\n"
"  --stats S             stats line every S seconds, 0 = off (default: 1)\n"
"  --duration S          stop after S seconds, 0 = until SIGINT/SIGTERM (default: 0)\n"
"  --count N             stop after N received packets, 0 = no limit (default: 0)\n"
"  --min-forwarded N     exit 1 if fewer than N packets were transmitted (default: 0)\n"
"  --json FILE           write the final counters as JSON (default: none)\n"
"  --metrics [HOST:]PORT serve Prometheus metrics at http://HOST:PORT/metrics\n"
"                        (doc/metrics.md); PORT alone: the loopback (default: none)\n"
"  --metrics-linger SEC  after the run, keep serving the final values for SEC s,\n"
"                        0..3600 (default: 0)\n"
"  --quiet               no periodic stats lines (default: off)\n"
"  --check               run the deployment checks (GPU, BAR1, IOMMU, PCIe, pin\n"
"                        backend, mlx5) for the chosen ports and memory, and exit\n"
"  --help                this text\n"
"Exit status: 0 ok, 1 failure, 2 bad option or value, 77 GPU needed but none usable.\n",
		prog, (unsigned int)RTE_PKTMBUF_HEADROOM, FWD_MIN_DATA_ROOM, FWD_MAX_DATA_ROOM,
		GPUDP_HO_BURST_MAX, GPUDP_HO_BURST_MAX, GPUDP_HO_RING_MAX, GPUDP_HO_POLL_NS_MAX,
		(unsigned int)GPUDP_HO_POLLERS_MAX);
}

#define PROG "gpudp-fwd"

static int
bad(const char *opt, const char *val, const char *why)
{
	return gpudp_opt_bad(PROG, opt, val, why);
}

static int
u64_arg(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	return gpudp_opt_u64(PROG, opt, v, min, max, out);
}

#define FIELD(f) offsetof(struct fwd_conf, f), sizeof(((struct fwd_conf *)NULL)->f)

/* the options with an integer for a value: its range and its field */
static const struct int_opt {
	int o;
	const char *name;
	uint64_t min, max;
	size_t off, size;
} int_opts[] = {
	{ OPT_QUEUES, "queues", 1, 16, FIELD(queues) },
	{ OPT_PIPELINE_LCORES, "pipeline-lcores", 1, 2, FIELD(pipeline_lcores) },
	{ OPT_BURST, "burst", 1, GPUDP_HO_BURST_MAX, FIELD(burst) },
	{ OPT_RX_BURST, "rx-burst", 1, GPUDP_HO_BURST_MAX, FIELD(rx_burst) },
	{ OPT_FLUSH_US, "flush-us", 0, 10000000, FIELD(flush_us) },
	{ OPT_RING, "ring", 2, GPUDP_HO_RING_MAX, FIELD(ring) },
	{ OPT_THREADS, "threads", 32, 1024, FIELD(threads) },
	{ OPT_GRAPH_BATCH, "graph-batch", 1, GPUDP_HO_RING_MAX, FIELD(graph_batch) },
	{ OPT_PERSISTENT_BLOCKS, "persistent-blocks", 1, GPUDP_HO_RING_MAX,
	  FIELD(persistent_blocks) },
	{ OPT_GPU_POLL_NS, "gpu-poll-ns", 0, GPUDP_HO_POLL_NS_MAX, FIELD(poll_ns) },
	{ OPT_GPU_POLLERS, "gpu-pollers", 1, GPUDP_HO_POLLERS_MAX, FIELD(pollers) },
	{ OPT_MBUFS, "mbufs", FWD_MIN_MBUFS, FWD_MAX_MBUFS, FIELD(mbufs) },
	{ OPT_DATA_ROOM, "data-room", FWD_MIN_DATA_ROOM, FWD_MAX_DATA_ROOM, FIELD(data_room) },
	{ OPT_RXD, "rxd", 64, 16384, FIELD(rxd) },
	{ OPT_TXD, "txd", 64, 16384, FIELD(txd) },
	{ OPT_COUNT, "count", 0, UINT64_MAX, FIELD(count) },
	{ OPT_MIN_FORWARDED, "min-forwarded", 0, UINT64_MAX, FIELD(min_forwarded) },
};

/* an option of int_opts: its value checked and stored in its field.
 * @return 0, -1, or 1 if not one of them */
static int
int_option(struct fwd_conf *c, int o, const char *v)
{
	const struct int_opt *e = NULL;
	unsigned int i;
	char *field;
	uint64_t x;

	for (i = 0; i < RTE_DIM(int_opts) && e == NULL; i++)
		if (int_opts[i].o == o)
			e = &int_opts[i];
	if (e == NULL)
		return 1;
	if (u64_arg(e->name, v, e->min, e->max, &x) != 0)
		return -1;
	field = (char *)c + e->off;
	switch (e->size) {
	case sizeof(uint16_t): *(uint16_t *)field = (uint16_t)x; break;
	case sizeof(uint32_t): *(uint32_t *)field = (uint32_t)x; break;
	default: *(uint64_t *)field = x; break;
	}
	return 0;
}

static int
secs_arg(const char *opt, const char *v, double *out)
{
	return gpudp_opt_secs(PROG, opt, v, 1e7, out);
}

static int
ports_arg(struct fwd_conf *c, const char *v)
{
	unsigned int n = 0;
	int rc = gpudp_opt_ports(PROG, "ports", v, c->ports, FWD_MAX_PORTS, &n);

	c->nb_ports = rc == 0 ? n : 0;
	return rc;
}

/* --gpu auto or N */
static int
gpu_arg(struct fwd_conf *c, const char *v)
{
	uint64_t x;

	if (strcmp(v, "auto") == 0) {
		c->gpu_sel = FWD_GPU_AUTO;
		c->gpu = 0;
		return 0;
	}
	if (v[0] == '\0' || strspn(v, "0123456789") != strlen(v))
		return bad("gpu", v, "expected auto or a GPU number 0..31");
	if (u64_arg("gpu", v, 0, FWD_MAX_GPUS - 1, &x) != 0)
		return -1;
	c->gpu = (int16_t)x;
	c->gpu_sel = FWD_GPU_ONE;
	return 0;
}

/* --gpu-map's syntax, before EAL (gpudp_app_gpu_map_check()) */
static int
gpu_map_arg(struct fwd_conf *c, const char *v)
{
	char err[256];

	if (gpudp_app_gpu_map_check(v, FWD_MAX_GPUS, err, sizeof(err)) != 0)
		return bad("gpu-map", v, err);
	c->gpu_map = v;
	return 0;
}

/* --persistent-blocks N or max */
static int
persistent_blocks_arg(struct fwd_conf *c, const char *v)
{
	if (strcmp(v, "max") == 0) {
		c->persistent_blocks = GPUDP_HO_BLOCKS_FILL;
		return 0;
	}
	if (v[0] < '0' || v[0] > '9')
		return bad("persistent-blocks", v, "expected an integer 1.."
			   RTE_STR(GPUDP_HO_RING_MAX) ", or max");
	return int_option(c, OPT_PERSISTENT_BLOCKS, v);
}

/* --load-rounds N: checked here, parsed by the load work as its --work-arg */
static int
load_rounds_arg(struct fwd_conf *c, const char *v)
{
	uint64_t rounds;

	if (u64_arg("load-rounds", v, 0, 1000000, &rounds) != 0)
		return -1;
	c->work_arg = v;
	return 0;
}

static void
conf_defaults(struct fwd_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->queues = 1;
	c->pipeline_lcores = 2;
	c->pairing = FWD_PAIR_PAIRED;
	c->mem = FWD_MEM_AUTO;
	c->pin = GPUDP_PIN_AUTO;
	c->mode = GPUDP_HO_CPU;
	c->work_spec = "macswap";
	c->burst = 64;
	c->rx_burst = 32;
	c->flush_us = 20;
	c->ring = 64;
	c->threads = 256;
	c->graph_batch = 8;
	c->persistent_blocks = 0;  /* the handoff's default (gpudp_handoff_conf) */
	c->full = FWD_FULL_WAIT;
	c->data_room = 2048;
	c->rxd = 1024;
	c->txd = 1024;
	c->stats_period = 1;
}

/* @return the index of @p v in @p words, or -1 */
static int
word_index(const char *const *words, unsigned int n, const char *v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, words[i]) == 0)
			return (int)i;
	return -1;
}

/* --pairing, --ring-full, --kernel, --mem, --pin, --igpu-alloc, --mode: the words.
 * @return 0, -1, or 1 if not one of them */
static int
word_option(struct fwd_conf *c, int o, const char *v)
{
	static const char *const pairings[] = { "paired", "same" };
	static const enum fwd_pairing pairing_val[] = { FWD_PAIR_PAIRED, FWD_PAIR_SAME };
	static const char *const fulls[] = { "wait", "drop" };
	static const enum fwd_full full_val[] = { FWD_FULL_WAIT, FWD_FULL_DROP };
	static const char *const kernels[] = { "macswap", "ipv4", "load" };
	static const char *const igpu_allocs[] = { "default", "wc" };
	enum gpudp_mem_type t;
	int i;

	switch (o) {
	case OPT_PAIRING:
		if ((i = word_index(pairings, RTE_DIM(pairings), v)) < 0)
			return bad("pairing", v, "expected paired or same");
		c->pairing = pairing_val[i];
		return 0;
	case OPT_RING_FULL:
		if ((i = word_index(fulls, RTE_DIM(fulls), v)) < 0)
			return bad("ring-full", v, "expected wait or drop");
		c->full = full_val[i];
		return 0;
	case OPT_KERNEL:
		if (word_index(kernels, RTE_DIM(kernels), v) < 0)
			return bad("kernel", v, "expected macswap, ipv4 or load");
		c->work_spec = v;
		return 0;
	case OPT_MEM:
		if (gpudp_mem_type_parse(v, &t) != 0 || (unsigned int)t > GPUDP_MEM_SPLIT)
			return bad("mem", v, "expected host, pinned, device or split");
		c->mem = (int)t;
		return 0;
	case OPT_PIN:
		if (gpudp_pin_backend_parse(v, &c->pin) != 0)
			return bad("pin", v, "expected auto, peermem, kmod or dmabuf");
		return 0;
	case OPT_IGPU_ALLOC:
		if ((i = word_index(igpu_allocs, RTE_DIM(igpu_allocs), v)) < 0)
			return bad("igpu-alloc", v, "expected default or wc");
		c->igpu_wc = i;
		return 0;
	case OPT_MODE:
		if (gpudp_ho_mode_parse(v, &c->mode) != 0)
			return bad("mode", v,
				   "expected none, cpu, launch, persistent, graph or staged");
		return 0;
	default:
		return 1;
	}
}

/* the options with a value other than a word (word_option()): integers
 * (int_opts), GPUs, files, seconds. @return 0, -1, or 1 if not one of them */
static int
value_option(struct fwd_conf *c, int o, const char *v)
{
	int rc;

	switch (o) {
	case OPT_PORTS: return ports_arg(c, v);
	case OPT_GPU: return gpu_arg(c, v);
	case OPT_GPU_MAP: return gpu_map_arg(c, v);
	case OPT_WORK: c->work_spec = v; return 0;
	case OPT_WORK_ARG: c->work_arg = v; return 0;
	case OPT_LOAD_ROUNDS: return load_rounds_arg(c, v);
	case OPT_PERSISTENT_BLOCKS: return persistent_blocks_arg(c, v);
	case OPT_STATS: return secs_arg("stats", v, &c->stats_period);
	case OPT_DURATION: return secs_arg("duration", v, &c->duration);
	case OPT_JSON:
		c->json = v;
		return gpudp_opt_out_file(PROG, "json", v);
	case OPT_METRICS:
		c->metrics = v;
		return gpudp_app_metrics_arg(PROG, v);
	case OPT_METRICS_LINGER:
		return gpudp_opt_u64(PROG, "metrics-linger", v, 0, 3600, &c->metrics_linger_s);
	default:
		break;
	}
	rc = int_option(c, o, v);
	if (rc == 0 && o == OPT_RING && (c->ring & (c->ring - 1)) != 0)
		rc = bad("ring", v, "expected a power of two");
	if (rc == 0 && o == OPT_THREADS && c->threads % 32 != 0)
		rc = bad("threads", v, "expected a multiple of 32");
	return rc;
}

/* getopt_long's '?': an unknown option, or one without its value */
static int
option_error(char **argv)
{
	const struct option *lo = long_opts;

	while (lo->name != NULL && lo->val != optopt)
		lo++;
	if (optopt != 0 && optopt < 256)
		fprintf(stderr, "gpudp-fwd: unknown option '-%c'\n", optopt);
	else if (optopt >= OPT_PORTS && lo->name != NULL)
		fprintf(stderr, "gpudp-fwd: --%s: missing value\n", lo->name);
	else
		fprintf(stderr, "gpudp-fwd: unknown option '%s'\n", argv[optind - 1]);
	fprintf(stderr, "gpudp-fwd: --help lists the options\n");
	return -1;
}

int
fwd_conf_parse(struct fwd_conf *c, int argc, char **argv)
{
	int o, rc = 0;

	conf_defaults(c);
	optind = 1;
	opterr = 0;
	while (rc == 0 && (o = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (o == OPT_HELP) {
			fwd_conf_usage(stdout, "gpudp-fwd");
			return 1;
		} else if (o == OPT_CHECK) {
			c->check = 1;
		} else if (o == OPT_QUIET) {
			c->quiet = 1;
		} else if ((rc = value_option(c, o, optarg)) == 1 &&
			   (rc = word_option(c, o, optarg)) == 1) {
			rc = option_error(argv);
		}
	}
	if (rc != 0)
		return -1;
	if (optind < argc) {
		fprintf(stderr, "gpudp-fwd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (fwd_conf_check(c) != 0)
		return -1;
	/* the work is loaded here, before the EAL: a bad work file is a
	 * usage error (exit 2), and so is an argument it refuses */
	c->work = gpudp_app_work(PROG, c->work_spec, c->work_arg, gpudp_ho_mode_is_gpu(c->mode));
	return c->work != NULL ? 0 : -1;
}
