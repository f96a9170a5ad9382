/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd option parsing: getopt_long, one table, errors naming the
 * option and the bad value. No DPDK calls: it runs before rte_eal_init(). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpudp_app_gpu.h>
#include <gpudp_app_work.h>
#include <gpudp_opt.h>

#include "fwd_conf.h"

enum {
	OPT_PORTS = 256, OPT_QUEUES, OPT_PIPELINE_LCORES, OPT_PAIRING, OPT_GPU, OPT_GPU_MAP, OPT_MEM,
	OPT_PIN, OPT_MODE, OPT_KERNEL, OPT_LOAD_ROUNDS, OPT_WORK, OPT_WORK_ARG, OPT_BURST, OPT_RX_BURST,
	OPT_FLUSH_US, OPT_RING, OPT_THREADS, OPT_GRAPH_BATCH, OPT_PERSISTENT_BLOCKS, OPT_GPU_POLL_NS,
	OPT_RING_FULL, OPT_MBUFS, OPT_DATA_ROOM, OPT_RXD, OPT_TXD, OPT_STATS,
	OPT_DURATION, OPT_COUNT, OPT_MIN_FORWARDED, OPT_JSON, OPT_CHECK, OPT_QUIET,
	OPT_HELP,
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
"                        resident (default: 512 / --burst, within 4..16\n"
"                        and at most --ring)\n"
"  --gpu-poll-ns NS      persistent mode: GPU sleep between polls of a burst not\n"
"                        ready yet, 0 = spin, 0..%u (default: 0)\n"
"Run and report:\n"
"  --stats S             stats line every S seconds, 0 = off (default: 1)\n"
"  --duration S          stop after S seconds, 0 = until SIGINT/SIGTERM (default: 0)\n"
"  --count N             stop after N received packets, 0 = no limit (default: 0)\n"
"  --min-forwarded N     exit 1 if fewer than N packets were transmitted (default: 0)\n"
"  --json FILE           write the final counters as JSON (default: none)\n"
"  --quiet               no periodic stats lines (default: off)\n"
"  --check               run the deployment checks (GPU, BAR1, IOMMU, PCIe, pin\n"
"                        backend, mlx5) for the chosen ports and memory, and exit\n"
"  --help                this text\n"
"Exit status: 0 ok, 1 failure, 2 bad option or value, 77 GPU needed but none usable.\n",
		prog, (unsigned int)RTE_PKTMBUF_HEADROOM, FWD_MIN_DATA_ROOM, FWD_MAX_DATA_ROOM,
		GPUDP_HO_BURST_MAX, GPUDP_HO_BURST_MAX, GPUDP_HO_RING_MAX, GPUDP_HO_POLL_NS_MAX);
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

#define U_ARG(opt, v, min, max, dst) do { uint64_t x_; \
	if (u64_arg((opt), (v), (min), (max), &x_) != 0) return -1; \
	(dst) = (__typeof__(dst))x_; } while (0)

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

/* --gpu-map's syntax, before EAL (gpudp_app_gpu_map_check()) */
static int
gpu_map_arg(const char *v)
{
	char err[256];

	return gpudp_app_gpu_map_check(v, FWD_MAX_GPUS, err, sizeof(err)) == 0 ? 0 :
		bad("gpu-map", v, err);
}

enum gpudp_mem_type
fwd_conf_mem(const struct fwd_conf *c)
{
	if (c->mem != FWD_MEM_AUTO)
		return (enum gpudp_mem_type)c->mem;
	switch (c->mode) {
	case GPUDP_HO_LAUNCH:
	case GPUDP_HO_PERSISTENT:
	case GPUDP_HO_GRAPH:
		return GPUDP_MEM_DEVICE;
	default:
		return GPUDP_MEM_HOST;
	}
}

uint64_t
fwd_conf_mbufs(const struct fwd_conf *c)
{
	if (c->mbufs != 0)
		return c->mbufs;
	return (uint64_t)c->ring * c->burst + c->rxd + 2u * c->txd + 2048;
}

/* about the bytes of a pool of @p n mbufs of @p room bytes of data: the
 * mempool's object header, the mbuf, its headroom and data room */
static double
pool_bytes(uint64_t n, uint32_t room)
{
	return (double)n * (64 + 128 + RTE_ALIGN_CEIL(room + RTE_PKTMBUF_HEADROOM, 64u));
}

/*
 * The pool against the ring, the bursts and the machine, before anything
 * is allocated: refused (-1, printed) what cannot work: more packets in
 * flight than a pool may hold, a pool smaller than one burst, pools in
 * host memory larger than the machine's memory; a warning for a default
 * pool over a quarter of it, and for a pool smaller than what the ring
 * and the queues can hold. @return 0 or -1
 */
static int
pool_check(const struct fwd_conf *c)
{
	uint64_t inflight = (uint64_t)c->ring * c->burst, n = fwd_conf_mbufs(c);
	uint64_t hold = inflight + c->rxd + 2u * c->txd;
	unsigned int pipes = c->queues * (c->nb_ports > 0 ? c->nb_ports : 1u);
	enum gpudp_mem_type mem = fwd_conf_mem(c);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	double bytes = pool_bytes(n, c->data_room) * pipes, ram;
	int host;

	if (inflight > FWD_MAX_MBUFS) {
		fprintf(stderr, "gpudp-fwd: --ring: %u x --burst %u = %" PRIu64 " packets in "
			"flight per pipeline, more than the largest pool holds (--mbufs at most "
			"%u): lower --ring or --burst\n", c->ring, c->burst, inflight,
			FWD_MAX_MBUFS);
		return -1;
	}
	if (c->mbufs != 0 && c->mbufs < c->burst) {
		fprintf(stderr, "gpudp-fwd: --mbufs: bad value '%u' (fewer than one --burst of "
			"%u packets: no burst could ever fill)\n", c->mbufs, c->burst);
		return -1;
	}
	if (n > FWD_MAX_MBUFS) {
		fprintf(stderr, "gpudp-fwd: --ring %u x --burst %u: the default pool (ring * "
			"burst + rxd + 2 * txd + 2048) would be %" PRIu64 " mbufs per pipeline, "
			"more than a pool may have (%u): lower --ring or --burst, or give "
			"--mbufs\n", c->ring, c->burst, n, FWD_MAX_MBUFS);
		return -1;
	}
	host = !c->check && (mem == GPUDP_MEM_HOST || mem == GPUDP_MEM_PINNED) && pages > 0 &&
	       psize > 0;
	ram = host ? (double)pages * (double)psize : 0;
	if (host && (bytes > ram || (c->mbufs == 0 && bytes > ram / 4))) {
		fprintf(stderr, "gpudp-fwd: %s--mbufs %" PRIu64 "%s x --data-room %u: %u pool%s of "
			"about %.1f GB%s, %s this machine's %.1f GB of memory: %s\n",
			bytes > ram ? "" : "warning: ", n,
			c->mbufs != 0 ? "" : " (the default: ring * burst + rxd + 2 * txd + 2048)",
			c->data_room, pipes, pipes == 1 ? "" : "s",
			bytes / pipes / 1e9, pipes == 1 ? "" : " each",
			bytes > ram ? "more than" : "over a quarter of", ram / 1e9,
			c->mbufs != 0 ? "fewer --mbufs or a smaller --data-room" :
			"give --mbufs, or a smaller --ring x --burst or --data-room");
		if (bytes > ram)
			return -1;
	}
	if (c->mbufs != 0 && c->mbufs < hold)
		fprintf(stderr, "gpudp-fwd: warning: --mbufs %u is fewer than the ring and the "
			"queues can hold (--ring %u x --burst %u + --rxd %u + 2 x --txd %u = %"
			PRIu64 "): the pool can run dry before the ring is full, and the port then "
			"drops what it receives (rx_nombuf, or its own counters)\n", c->mbufs,
			c->ring, c->burst, c->rxd, c->txd, hold);
	return 0;
}

/* which memory each mode can work on (the CPU cannot touch device memory,
 * the GPU cannot touch plain host memory) */
static const uint8_t mode_mem_ok[GPUDP_HO_MODE_MAX][GPUDP_MEM_SPLIT + 1] = {
	/* split: headers in GPU-registered host mbufs, payload in GPU mbufs:
	 * every GPU mode sees both segments (staged copies the header segment
	 * and reads the payload in place); the CPU cannot read the payload */
	/*                         host pinned device split */
	[GPUDP_HO_NONE]       = { 1, 1, 1, 1 },
	[GPUDP_HO_CPU]        = { 1, 1, 0, 0 },
	[GPUDP_HO_LAUNCH]     = { 0, 1, 1, 1 },
	[GPUDP_HO_PERSISTENT] = { 0, 1, 1, 1 },
	[GPUDP_HO_GRAPH]      = { 0, 1, 1, 1 },
	[GPUDP_HO_STAGED]     = { 1, 1, 0, 1 },
};

int
fwd_conf_parse(struct fwd_conf *c, int argc, char **argv)
{
	int opt, idx;

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

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
		const char *v = optarg;

		switch (opt) {
		case OPT_PORTS:
			if (ports_arg(c, v) != 0)
				return -1;
			break;
		case OPT_QUEUES:
			U_ARG("queues", v, 1, 16, c->queues);
			break;
		case OPT_PIPELINE_LCORES:
			U_ARG("pipeline-lcores", v, 1, 2, c->pipeline_lcores);
			break;
		case OPT_PAIRING:
			if (strcmp(v, "paired") == 0)
				c->pairing = FWD_PAIR_PAIRED;
			else if (strcmp(v, "same") == 0)
				c->pairing = FWD_PAIR_SAME;
			else
				return bad("pairing", v, "expected paired or same");
			break;
		case OPT_GPU:
			if (strcmp(v, "auto") == 0) {
				c->gpu_sel = FWD_GPU_AUTO;
				c->gpu = 0;
				break;
			}
			if (v[0] == '\0' || strspn(v, "0123456789") != strlen(v))
				return bad("gpu", v, "expected auto or a GPU number 0..31");
			U_ARG("gpu", v, 0, FWD_MAX_GPUS - 1, c->gpu);
			c->gpu_sel = FWD_GPU_ONE;
			break;
		case OPT_GPU_MAP:
			if (gpu_map_arg(v) != 0)
				return -1;
			c->gpu_map = v;
			break;
		case OPT_MEM: {
			enum gpudp_mem_type t;

			if (gpudp_mem_type_parse(v, &t) != 0 || (unsigned int)t > GPUDP_MEM_SPLIT)
				return bad("mem", v, "expected host, pinned, device or split");
			c->mem = (int)t;
			break;
		}
		case OPT_PIN:
			if (gpudp_pin_backend_parse(v, &c->pin) != 0)
				return bad("pin", v, "expected auto, peermem, kmod or dmabuf");
			break;
		case OPT_MODE:
			if (gpudp_ho_mode_parse(v, &c->mode) != 0)
				return bad("mode", v,
					   "expected none, cpu, launch, persistent, graph or staged");
			break;
		case OPT_KERNEL:
			if (strcmp(v, "macswap") != 0 && strcmp(v, "ipv4") != 0 &&
			    strcmp(v, "load") != 0)
				return bad("kernel", v, "expected macswap, ipv4 or load");
			c->work_spec = v;
			break;
		case OPT_WORK:
			c->work_spec = v;
			break;
		case OPT_LOAD_ROUNDS: {
			uint32_t r;

			U_ARG("load-rounds", v, 0, 1000000, r);
			(void)r;
			c->work_arg = v;
			break;
		}
		case OPT_WORK_ARG:
			c->work_arg = v;
			break;
		case OPT_BURST:
			U_ARG("burst", v, 1, GPUDP_HO_BURST_MAX, c->burst);
			break;
		case OPT_RX_BURST:
			U_ARG("rx-burst", v, 1, GPUDP_HO_BURST_MAX, c->rx_burst);
			break;
		case OPT_FLUSH_US:
			U_ARG("flush-us", v, 0, 10000000, c->flush_us);
			break;
		case OPT_RING:
			U_ARG("ring", v, 2, GPUDP_HO_RING_MAX, c->ring);
			if ((c->ring & (c->ring - 1)) != 0)
				return bad("ring", v, "expected a power of two");
			break;
		case OPT_THREADS:
			U_ARG("threads", v, 32, 1024, c->threads);
			if (c->threads % 32 != 0)
				return bad("threads", v, "expected a multiple of 32");
			break;
		case OPT_GRAPH_BATCH:
			U_ARG("graph-batch", v, 1, GPUDP_HO_RING_MAX, c->graph_batch);
			break;
		case OPT_PERSISTENT_BLOCKS:
			if (strcmp(v, "max") == 0)
				c->persistent_blocks = GPUDP_HO_BLOCKS_FILL;
			else if (v[0] < '0' || v[0] > '9')
				return bad("persistent-blocks", v, "expected an integer 1.."
					   RTE_STR(GPUDP_HO_RING_MAX) ", or max");
			else
				U_ARG("persistent-blocks", v, 1, GPUDP_HO_RING_MAX,
				      c->persistent_blocks);
			break;
		case OPT_GPU_POLL_NS:
			U_ARG("gpu-poll-ns", v, 0, GPUDP_HO_POLL_NS_MAX, c->poll_ns);
			break;
		case OPT_RING_FULL:
			if (strcmp(v, "wait") == 0)
				c->full = FWD_FULL_WAIT;
			else if (strcmp(v, "drop") == 0)
				c->full = FWD_FULL_DROP;
			else
				return bad("ring-full", v, "expected wait or drop");
			break;
		case OPT_MBUFS:
			U_ARG("mbufs", v, FWD_MIN_MBUFS, FWD_MAX_MBUFS, c->mbufs);
			break;
		case OPT_DATA_ROOM:
			U_ARG("data-room", v, FWD_MIN_DATA_ROOM, FWD_MAX_DATA_ROOM, c->data_room);
			break;
		case OPT_RXD:
			U_ARG("rxd", v, 64, 16384, c->rxd);
			break;
		case OPT_TXD:
			U_ARG("txd", v, 64, 16384, c->txd);
			break;
		case OPT_STATS:
			if (secs_arg("stats", v, &c->stats_period) != 0)
				return -1;
			break;
		case OPT_DURATION:
			if (secs_arg("duration", v, &c->duration) != 0)
				return -1;
			break;
		case OPT_COUNT:
			U_ARG("count", v, 0, UINT64_MAX, c->count);
			break;
		case OPT_MIN_FORWARDED:
			U_ARG("min-forwarded", v, 0, UINT64_MAX, c->min_forwarded);
			break;
		case OPT_JSON:
			c->json = v;
			if (gpudp_opt_out_file(PROG, "json", v) != 0)
				return -1;
			break;
		case OPT_CHECK:
			c->check = 1;
			break;
		case OPT_QUIET:
			c->quiet = 1;
			break;
		case OPT_HELP:
			fwd_conf_usage(stdout, "gpudp-fwd");
			return 1;
		default:
			if (optopt != 0 && optopt < 256)
				fprintf(stderr, "gpudp-fwd: unknown option '-%c'\n", optopt);
			else if (optopt >= OPT_PORTS)
				fprintf(stderr, "gpudp-fwd: --%s: missing value\n",
					long_opts[optopt - OPT_PORTS].name);
			else
				fprintf(stderr, "gpudp-fwd: unknown option '%s'\n",
					argv[optind - 1]);
			fprintf(stderr, "gpudp-fwd: --help lists the options\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpudp-fwd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	/* cross-option rules, each naming the options involved */
	if (c->gpu_map != NULL && c->gpu_sel == FWD_GPU_ONE) {
		fprintf(stderr, "gpudp-fwd: --gpu-map: '%s' cannot be combined with --gpu %d "
			"(every pipeline on one GPU): leave --gpu out or give --gpu auto\n",
			c->gpu_map, c->gpu);
		return -1;
	}
	if (c->gpu_map != NULL)
		c->gpu_sel = FWD_GPU_MAP;
	if (c->ring % c->graph_batch != 0) {
		fprintf(stderr, "gpudp-fwd: --graph-batch: %u does not divide --ring %u\n",
			c->graph_batch, c->ring);
		return -1;
	}
	if (c->persistent_blocks > c->ring && c->persistent_blocks != GPUDP_HO_BLOCKS_FILL) {
		fprintf(stderr, "gpudp-fwd: --persistent-blocks: %u is more than --ring %u\n",
			c->persistent_blocks, c->ring);
		return -1;
	}
	if (!c->check && !mode_mem_ok[c->mode][fwd_conf_mem(c)]) {
		fprintf(stderr, "gpudp-fwd: --mem: '%s' does not work with --mode %s "
			"(cpu: host or pinned; staged: host, pinned or split; launch, "
			"persistent, graph: pinned, device or split)\n", gpudp_mem_type_name(fwd_conf_mem(c)),
			gpudp_ho_mode_name(c->mode));
		return -1;
	}
	if (pool_check(c) != 0)
		return -1;
	if (c->rx_burst > c->burst)
		c->rx_burst = c->burst;
	/* the work is loaded here, before the EAL: a bad work file is a
	 * usage error (exit 2), and so is an argument it refuses */
	c->work = gpudp_app_work(PROG, c->work_spec, c->work_arg, gpudp_ho_mode_is_gpu(c->mode));
	return c->work != NULL ? 0 : -1;
}
