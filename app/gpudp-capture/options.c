/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture option parsing. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpudp_app_gpu.h>
#include <gpudp_app_metrics.h>
#include <gpudp_opt.h>

#include "options.h"

enum {
	OPT_CPU = 256, OPT_GPU, OPT_JSON, OPT_FILTER, OPT_FILTER_OUT, OPT_PORTS, OPT_BATCH,
	OPT_BATCH_BYTES, OPT_INFLIGHT, OPT_FLOWS, OPT_BURST, OPT_MBUFS, OPT_DATA_ROOM,
	OPT_RXD, OPT_TOP, OPT_PERIOD, OPT_PROGRESS, OPT_IDLE_MS, OPT_MAX_PACKETS,
	OPT_DURATION, OPT_QUIET, OPT_VERIFY, OPT_PCAP, OPT_MEM, OPT_PIN, OPT_ENGINE, OPT_HELP,
	OPT_MATCH, OPT_MATCH_SCOPE, OPT_READER, OPT_THREADS, OPT_GPU_MAP,
	OPT_FILTER_OUT_ROTATE, OPT_METRICS, OPT_METRICS_LINGER, OPT_IGPU_ALLOC,
};

static const struct option long_opts[] = {
	{ "cpu", no_argument, NULL, OPT_CPU },
	{ "gpu", required_argument, NULL, OPT_GPU },
	{ "gpu-map", required_argument, NULL, OPT_GPU_MAP },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "filter-out", required_argument, NULL, OPT_FILTER_OUT },
	{ "filter-out-rotate", required_argument, NULL, OPT_FILTER_OUT_ROTATE },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ "match-scope", required_argument, NULL, OPT_MATCH_SCOPE },
	{ "reader", required_argument, NULL, OPT_READER },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "batch-bytes", required_argument, NULL, OPT_BATCH_BYTES },
	{ "inflight", required_argument, NULL, OPT_INFLIGHT },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "mbufs", required_argument, NULL, OPT_MBUFS },
	{ "data-room", required_argument, NULL, OPT_DATA_ROOM },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "idle-ms", required_argument, NULL, OPT_IDLE_MS },
	{ "max-packets", required_argument, NULL, OPT_MAX_PACKETS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "pcap", required_argument, NULL, OPT_PCAP },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "pin", required_argument, NULL, OPT_PIN },
	{ "igpu-alloc", required_argument, NULL, OPT_IGPU_ALLOC },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "metrics-linger", required_argument, NULL, OPT_METRICS_LINGER },
	CAP_FLOW_LONG_OPTS,
	CAP_RULE_LONG_OPTS,
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void
cap_conf_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [EAL options] -- [options]\n"
"Analyse packets from DPDK ports (net_pcap rx_pcap= files, tap, af_packet, NICs)\n"
"on the GPU (staged, or in place with --mem pinned/device), or on the CPU when no\n"
"GPU is usable.\n"
"\n"
"Analysis:\n"
"  --engine E          auto, gpu or cpu: where the analysis runs; gpu exits 77 without\n"
"                      a usable GPU (default: auto, the GPU if usable)\n"
"  --cpu               the same as --engine cpu (default: off)\n"
"  --gpu N|auto        N: every port analysed on GPU N (CUDA ordinal, 0..1023); auto:\n"
"                      each port's batches on the GPU closest to the port in the\n"
"                      PCIe tree, the results merged (default: auto with several\n"
"                      GPUs and ports in staged memory, else 0)\n"
"  --gpu-map MAP       PORT:GPU,... (port ids, CUDA ordinals 0..31): those ports on\n"
"                      those GPUs, the other ports as --gpu auto (default: none)\n"
"  --flows N           flow table slots, a power of two, 16..16777216 (default: 65536)\n"
"  --filter EXPR       filter expression, see doc/capture.md (default: none)\n"
"  --filter-out FILE   write packets matching --filter to FILE as pcapng (default: none)\n"
"  --filter-out-rotate SPEC\n"
"                      write --filter-out as a series of files, named as dumpcap's\n"
"                      -b names them (FILE_00001_YYYYmmddHHMMSS.pcapng, ...):\n"
"                      filesize:KB (a new file before one would pass KB kB),\n"
"                      duration:SEC (a new file SEC s of capture time after a file's\n"
"                      first packet), files:N (keep the newest N), comma-separated\n"
"                      (default: none, the one file FILE)\n"
"  --match FILE        payload inspection: count the byte patterns of FILE in every\n"
"                      packet (doc/match.md); --filter may use 'match' and 'match NAME'\n"
"                      (default: none)\n"
"  --match-scope S     payload (the L4 payload) or frame (every captured byte)\n"
"                      (default: payload)\n"
"  --batch N           packets per batch handed to the engine, 1..1048576 (default: 4096)\n"
"  --batch-bytes N     packet bytes per batch, 65536..1073741824 (default: 8388608)\n"
"  --inflight N        GPU batches in flight, 1..16 (default: 3)\n"
"  --verify            also analyse every batch on the CPU and compare with the GPU:\n"
"                      exit 1 on a difference, 77 if no GPU is used (default: off)\n"
"Memory:\n"
"  --mem M             where packets land: staged (host mbufs, copied into batches),\n"
"                      pinned (mbufs in GPU-registered host memory, analysed in place),\n"
"                      device (mbufs in GPU memory, GPUDirect-capable ports only), or\n"
"                      auto: device on such ports with the GPU engine (pinned with\n"
"                      --verify), else staged (default: auto)\n"
"  --pin B             --mem device: auto, peermem, kmod or dmabuf: how the NIC gets\n"
"                      bus addresses of GPU memory (default: auto)\n"
"  --igpu-alloc A      --mem device on an integrated GPU (its pool is host memory\n"
"                      from cuMemHostAlloc, doc/tegra.md): default, or wc\n"
"                      (write-combined: not cached by the CPU, so slow for the CPU\n"
"                      engine); no effect on a discrete GPU (default: default)\n"
"Input:\n"
"  --pcap FILE         read FILE (pcap or pcapng), with the direct reader or through a\n"
"                      net_pcap vdev added to the EAL arguments (--reader); repeatable,\n"
"                      up to 16 (default: none)\n"
"  --reader R          direct: --pcap files read straight into batches without a\n"
"                      PMD (no ports; staged memory; the same results); pmd: through\n"
"                      net_pcap, packet by packet, as a live port (default: direct for\n"
"                      --pcap, pmd when an option needs ports or mbufs: --mem\n"
"                      pinned/device, --pin, --verify, --ports, --burst, --mbufs,\n"
"                      --data-room, --rxd, --idle-ms, --duration, or EAL devices)\n"
"  --threads N         --reader direct: host threads staging batches, each with its\n"
"                      own engine, 1..64 (default: 1)\n"
"  --ports LIST        port ids to read, comma-separated (default: all ports)\n"
"  --burst N           rx burst size, 1..512 (default: 32)\n"
"  --mbufs N           mbufs in the rx pool, 512..4194304 (default: 16383)\n"
"  --data-room N       mbuf data room in bytes, 256..%u (65535 less the mbuf\n"
"                      headroom) (default: 2048)\n"
"  --rxd N             rx descriptors per queue, 32..32768 (default: 1024)\n"
"  --idle-ms MS        capture files: end after MS ms without a packet once all\n"
"                      expected records arrived or none come (default: 1000)\n"
"  --max-packets N     stop after N packets, 0 = no limit (default: 0)\n"
"  --duration S        stop after S seconds, 0 = no limit (default: 0)\n"
"Output:\n"
"  --json FILE         write the report as JSON to FILE (default: none)\n"
"  --top N             rows in the flow and talker tables, 1..100000 (default: 10)\n"
"  --period S          live ports: report every S seconds, 0 = off (default: 10)\n"
"  --progress S        capture files: progress line every S seconds, 0 = off (default: 1)\n"
"  --quiet             no report table on stdout (default: off)\n"
"  --metrics [HOST:]PORT\n"
"                      serve Prometheus metrics at http://HOST:PORT/metrics\n"
"                      (doc/metrics.md); HOST an IPv4 address, localhost, * (every\n"
"                      address) or [IPv6]; PORT alone: the loopback (default: none)\n"
"  --metrics-linger SEC\n"
"                      after the run, keep serving the final values for SEC s,\n"
"                      0..3600, so that a last scrape gets them (default: 0)\n"
"  --help              this text\n", prog, (unsigned int)CAP_MAX_DATA_ROOM);
	cap_flow_usage(f);
	cap_rules_usage(f);
}

#define PROG "gpudp-capture"

static int
metrics_arg(struct cap_conf *c, const char *v)
{
	if (gpudp_app_metrics_arg(PROG, v) != 0)
		return -1;
	c->metrics = v;
	return 0;
}

const char *
cap_conf_mem_name(enum cap_conf_mem m)
{
	static const char *const names[] = { "auto", "staged", "pinned", "device" };

	return (unsigned int)m < 4 ? names[m] : "?";
}

const char *
cap_conf_reader_name(enum cap_conf_reader r)
{
	return r == CAP_CONF_READER_DIRECT ? "direct" : "pmd";
}

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

static int
u32_arg(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t x;

	if (u64_arg(opt, v, min, max, &x) != 0)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static int
secs_arg(const char *opt, const char *v, double *out)
{
	return gpudp_opt_secs(PROG, opt, v, 1e9, out);
}

static int
ports_arg(struct cap_conf *c, const char *v)
{
	unsigned int n = 0;
	int rc = gpudp_opt_ports(PROG, "ports", v, c->ports, CAP_MAX_PORTS, &n);

	c->n_ports = rc == 0 ? n : 0;
	return rc;
}

static void
conf_defaults(struct cap_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->batch_pkts = 4096;
	c->batch_bytes = 8u << 20;
	c->inflight = 3;
	c->flows = GPUDP_AN_DEFAULT_FLOWS;
	c->burst = 32;
	c->mbufs = 16383;
	c->data_room = 2048;
	c->rxd = 1024;
	c->top = 10;
	c->period_s = 10;
	c->progress_s = 1;
	c->idle_ms = 1000;
	c->threads = 1;
	c->idle_timeout_s = 15;
	c->active_timeout_s = 1800;
}

/* --mem, --pin, --igpu-alloc, --engine, --cpu: the words. @return 0, -1, or 1 if not one of them */
static int
word_option(struct cap_conf *c, int o, const char *v)
{
	static const char *const mems[] = { "auto", "staged", "pinned", "device" };
	static const int mem_val[] = { CAP_CONF_MEM_AUTO, CAP_CONF_MEM_STAGED,
		CAP_CONF_MEM_PINNED, CAP_CONF_MEM_DEVICE };
	static const char *const engines[] = { "auto", "gpu", "cpu" };
	static const int engine_val[] = { CAP_CONF_ENGINE_AUTO, CAP_CONF_ENGINE_GPU,
		CAP_CONF_ENGINE_CPU };
	enum gpudp_pin_backend b;
	unsigned int i;

	switch (o) {
	case OPT_CPU:
		c->engine_opt = 0;
		c->force_cpu = 1;
		c->engine = CAP_CONF_ENGINE_CPU;
		return 0;
	case OPT_MEM:
		for (i = 0; i < RTE_DIM(mems); i++)
			if (strcmp(v, mems[i]) == 0) {
				c->mem = mem_val[i];
				return 0;
			}
		return bad("mem", v, "expected auto, staged, pinned or device");
	case OPT_PIN:
		if (gpudp_pin_backend_parse(v, &b) != 0)
			return bad("pin", v, "expected auto, peermem, kmod or dmabuf");
		c->pin = (int)b;
		return 0;
	case OPT_IGPU_ALLOC:
		if (strcmp(v, "default") != 0 && strcmp(v, "wc") != 0)
			return bad("igpu-alloc", v, "expected default or wc");
		c->igpu_wc = strcmp(v, "wc") == 0;
		return 0;
	case OPT_READER:
		if (strcmp(v, "pmd") == 0 || strcmp(v, "direct") == 0) {
			c->reader_opt = 1;
			c->reader = strcmp(v, "pmd") == 0 ? CAP_CONF_READER_PMD :
				    CAP_CONF_READER_DIRECT;
			return 0;
		}
		return bad("reader", v, "expected pmd or direct");
	case OPT_ENGINE:
		c->engine_opt = 1;
		for (i = 0; i < RTE_DIM(engines); i++)
			if (strcmp(v, engines[i]) == 0) {
				c->engine = engine_val[i];
				c->force_cpu = c->engine == CAP_CONF_ENGINE_CPU;
				return 0;
			}
		return bad("engine", v, "expected auto, gpu or cpu");
	default:
		return 1;
	}
}

/* --filter-out-rotate: dumpcap's conditions (gpudp_pcapng_ring_parse()) */
static int
rotate_arg(struct cap_conf *c, const char *v)
{
	char err[160];

	c->rotate_spec = v;
	return gpudp_pcapng_ring_parse(v, &c->rotate, err, sizeof(err)) == 0 ? 0 :
		bad("filter-out-rotate", v, err);
}

/* --gpu-map's syntax, before EAL (gpudp_app_gpu_map_check()) */
static int
gpu_map_arg(struct cap_conf *c, const char *v)
{
	char err[256];

	c->gpu_map = v;
	return gpudp_app_gpu_map_check(v, CAP_MAX_GPUS, err, sizeof(err)) == 0 ? 0 :
		bad("gpu-map", v, err);
}

/* An option of ports and mbufs (cap_conf.pmd_opt): remember the first given. */
static void
note_pmd_opt(struct cap_conf *c, int o, const char *v)
{
	static const struct { int o; const char *name; } pmd_opts[] = {
		{ OPT_BURST, "--burst" }, { OPT_MBUFS, "--mbufs" },
		{ OPT_DATA_ROOM, "--data-room" }, { OPT_RXD, "--rxd" },
		{ OPT_IDLE_MS, "--idle-ms" }, { OPT_DURATION, "--duration" },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(pmd_opts) && c->pmd_opt == NULL; i++)
		if (pmd_opts[i].o == o) {
			c->pmd_opt = pmd_opts[i].name;
			c->pmd_opt_val = v;
		}
}

/* the options with a number (or a file) for a value. @return 0, -1, or 1 if not one */
static int
value_option(struct cap_conf *c, int o, const char *v)
{
	int rc;

	note_pmd_opt(c, o, v);
	switch (o) {
	case OPT_GPU:
		if (strcmp(v, "auto") == 0) {
			c->gpu_sel = CAP_CONF_GPU_AUTO;
			c->gpu = 0;
			return 0;
		}
		c->gpu_sel = CAP_CONF_GPU_ONE;
		return u32_arg("gpu", v, 0, 1023, &c->gpu);
	case OPT_GPU_MAP: return gpu_map_arg(c, v);
	case OPT_JSON:
		c->json = v;
		return gpudp_opt_out_file(PROG, "json", v);
	case OPT_FILTER: c->filter_expr = v; return 0;
	case OPT_MATCH: c->match.file = v; return 0;
	case OPT_THREADS: return u32_arg("threads", v, 1, GPUDP_CAP_READER_THREADS_MAX,
					 &c->threads);
	case OPT_MATCH_SCOPE: return cap_match_scope(PROG, v, &c->match);
	case OPT_FILTER_OUT: c->filter_out = v; return 0;
	case OPT_FILTER_OUT_ROTATE: return rotate_arg(c, v);
	case OPT_PORTS: return ports_arg(c, v);
	case OPT_BATCH: return u32_arg("batch", v, 1, 1u << 20, &c->batch_pkts);
	case OPT_BATCH_BYTES: return u32_arg("batch-bytes", v, 65536, 1u << 30, &c->batch_bytes);
	case OPT_INFLIGHT: return u32_arg("inflight", v, 1, 16, &c->inflight);
	case OPT_FLOWS:
		rc = u32_arg("flows", v, 16, GPUDP_AN_MAX_FLOWS, &c->flows);
		if (rc == 0 && gpudp_analysis_capacity(c->flows) != c->flows)
			rc = bad("flows", v, "expected a power of two");
		return rc;
	case OPT_BURST: return u32_arg("burst", v, 1, 512, &c->burst);
	case OPT_MBUFS: return u32_arg("mbufs", v, 512, 1u << 22, &c->mbufs);
	/* the mbuf's buffer (data room + headroom) is a uint16_t */
	case OPT_DATA_ROOM: return u32_arg("data-room", v, 256, CAP_MAX_DATA_ROOM, &c->data_room);
	case OPT_RXD: return u32_arg("rxd", v, 32, 32768, &c->rxd);
	case OPT_TOP: return u32_arg("top", v, 1, 100000, &c->top);
	case OPT_PERIOD: return secs_arg("period", v, &c->period_s);
	case OPT_METRICS: return metrics_arg(c, v);
	case OPT_METRICS_LINGER:
		return gpudp_opt_u64(PROG, "metrics-linger", v, 0, 3600, &c->metrics_linger_s);
	case OPT_PROGRESS: return secs_arg("progress", v, &c->progress_s);
	case OPT_IDLE_MS: return u32_arg("idle-ms", v, 1, 3600000, &c->idle_ms);
	case OPT_MAX_PACKETS: return u64_arg("max-packets", v, 0, UINT64_MAX, &c->max_packets);
	case OPT_DURATION: return secs_arg("duration", v, &c->duration_s);
	case OPT_PCAP:
		if (c->n_pcap == CAP_MAX_PCAP)
			return bad("pcap", v, "more than 16 files");
		c->pcap[c->n_pcap++] = v;
		return 0;
	default:
		return 1;
	}
}

int
cap_conf_reader_pmd(const struct cap_conf *c, char *why, size_t why_len)
{
	char buf[CAP_READER_WHY_LEN];

	if (c->mem == CAP_CONF_MEM_PINNED || c->mem == CAP_CONF_MEM_DEVICE)
		snprintf(buf, sizeof(buf), "--mem %s analyses the mbufs of ports in place",
			 cap_conf_mem_name(c->mem));
	else if (c->pin != GPUDP_PIN_AUTO)
		snprintf(buf, sizeof(buf), "--pin %s is for mbufs in GPU memory (--mem device)",
			 gpudp_pin_backend_name((enum gpudp_pin_backend)c->pin));
	else if (c->igpu_wc)
		snprintf(buf, sizeof(buf), "--igpu-alloc wc is for mbufs in GPU memory "
			 "(--mem device)");
	else if (c->verify)
		snprintf(buf, sizeof(buf), "--verify analyses the batches of ports twice");
	else if (c->n_ports != 0)
		snprintf(buf, sizeof(buf), "--ports selects ports");
	else if (c->gpu_map != NULL)
		snprintf(buf, sizeof(buf), "--gpu-map places ports on GPUs");
	else if (c->gpu_sel == CAP_CONF_GPU_AUTO)
		snprintf(buf, sizeof(buf), "--gpu auto places ports on GPUs");
	else if (c->pmd_opt != NULL)
		snprintf(buf, sizeof(buf), "%s %s is an option of ports and their mbufs",
			 c->pmd_opt, c->pmd_opt_val);
	else
		return 0;
	if (why != NULL && why_len > 0)
		snprintf(why, why_len, "%s", buf);
	return 1;
}

/*
 * --reader: the default (direct for --pcap files, unless an option needs
 * ports; main.c also takes pmd when the EAL arguments add ports); with
 * --reader direct, the options it cannot serve; --threads.
 * @return 0 or -1 (printed)
 */
static int
reader_check(struct cap_conf *c)
{
	char why[CAP_READER_WHY_LEN];

	if (!c->reader_opt) {
		c->reader = CAP_CONF_READER_PMD;
		if (c->n_pcap > 0 && !cap_conf_reader_pmd(c, c->reader_why,
							  sizeof(c->reader_why)))
			c->reader = CAP_CONF_READER_DIRECT;
	}
	if (c->reader != CAP_CONF_READER_DIRECT) {
		if (c->threads > 1) {
			fprintf(stderr, "gpudp-capture: --threads: bad value '%u' (only with "
				"--reader direct%s%s)\n", c->threads,
				c->reader_why[0] ? "; the default is pmd here: " : "", c->reader_why);
			return -1;
		}
		return 0;
	}
	if (c->n_pcap == 0)
		return bad("reader", "direct", "needs --pcap FILE");
	if (c->mem != CAP_CONF_MEM_AUTO && c->mem != CAP_CONF_MEM_STAGED)
		return bad("reader", "direct", "the direct reader stages packets: --mem staged "
			   "or auto");
	if (c->verify)
		return bad("reader", "direct", "--verify works on ports: use --reader pmd");
	if (c->n_ports != 0)
		return bad("reader", "direct", "no ports are read: drop --ports");
	if (cap_conf_reader_pmd(c, why, sizeof(why))) {
		fprintf(stderr, "gpudp-capture: --reader: bad value 'direct' (%s: use --reader "
			"pmd)\n", why);
		return -1;
	}
	return 0;
}

/*
 * The rx pool in host memory (staged and pinned; a device pool is in GPU
 * memory) against the machine's memory: a pool larger than it cannot be
 * made. About the bytes of the pool: each mbuf's header, headroom and data.
 * @return 0 or -1 (printed)
 */
static int
pool_check(const struct cap_conf *c)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	double bytes = (double)c->mbufs * (64 + 128 + RTE_ALIGN_CEIL(c->data_room +
			RTE_PKTMBUF_HEADROOM, 64u));
	double ram = (double)pages * (double)psize;

	if (c->reader == CAP_CONF_READER_DIRECT || c->mem == CAP_CONF_MEM_DEVICE ||
	    pages <= 0 || psize <= 0 || bytes <= ram)
		return 0;
	fprintf(stderr, "gpudp-capture: --mbufs %u x --data-room %u: a pool of about %.1f GB, "
		"more than this machine's %.1f GB of memory: fewer --mbufs or a smaller "
		"--data-room\n", c->mbufs, c->data_room, bytes / 1e9, ram / 1e9);
	return -1;
}

/* Options that only make sense together; the reader. @return 0 or -1 (printed) */
static int
conf_check(struct cap_conf *c)
{
	if (c->verify && c->force_cpu) {
		fprintf(stderr, "gpudp-capture: --verify: bad value 'on' (needs the GPU: drop --cpu)\n");
		return -1;
	}
	if (c->verify && c->mem == CAP_CONF_MEM_DEVICE) {
		fprintf(stderr, "gpudp-capture: --verify: bad value 'on' (it analyses every batch "
			"on the CPU too, which cannot read --mem device packets: use --mem pinned "
			"or staged)\n");
		return -1;
	}
	if (c->gpu_map != NULL && c->gpu_sel == CAP_CONF_GPU_ONE) {
		fprintf(stderr, "gpudp-capture: --gpu-map: bad value '%s' (not with --gpu %u: "
			"that puts every port on one GPU)\n", c->gpu_map, c->gpu);
		return -1;
	}
	if (c->pin != GPUDP_PIN_AUTO && c->mem != CAP_CONF_MEM_DEVICE &&
	    c->mem != CAP_CONF_MEM_AUTO) {
		fprintf(stderr, "gpudp-capture: --pin: bad value '%s' (only for --mem device or "
			"auto)\n", gpudp_pin_backend_name((enum gpudp_pin_backend)c->pin));
		return -1;
	}
	if (c->igpu_wc && c->mem != CAP_CONF_MEM_DEVICE && c->mem != CAP_CONF_MEM_AUTO) {
		fprintf(stderr, "gpudp-capture: --igpu-alloc: bad value 'wc' (only for --mem "
			"device or auto)\n");
		return -1;
	}
	if (reader_check(c) != 0)
		return -1;
	if (c->filter_expr != NULL && c->filter.n_insn == 0)
		return bad("filter", c->filter_expr, "empty expression");
	if (c->filter_out != NULL && c->filter_expr == NULL) {
		fprintf(stderr, "gpudp-capture: --filter-out: bad value '%s' (needs --filter)\n",
			c->filter_out);
		return -1;
	}
	if (c->rotate_spec != NULL && c->filter_out == NULL) {
		fprintf(stderr, "gpudp-capture: --filter-out-rotate: bad value '%s' (needs "
			"--filter-out)\n", c->rotate_spec);
		return -1;
	}
	if (pool_check(c) != 0 || cap_flow_check(c) != 0)
		return -1;
	if ((uint64_t)c->data_room + 128 > c->batch_bytes) {
		fprintf(stderr, "gpudp-capture: --batch-bytes: bad value '%u' (smaller than "
			"one packet of --data-room)\n", c->batch_bytes);
		return -1;
	}
	return 0;
}

int
cap_conf_parse(struct cap_conf *c, int argc, char **argv)
{
	int o, rc = 0;

	conf_defaults(c);
	optind = 1;
	opterr = 0;
	while (rc == 0 && (o = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		if (o == OPT_HELP) {
			cap_conf_usage(stdout, "gpudp-capture");
			return 1;
		} else if (o == OPT_QUIET) {
			c->quiet = 1;
		} else if (o == OPT_VERIFY) {
			c->verify = 1;
		} else if (o == ':') {
			fprintf(stderr, "gpudp-capture: option '%s' needs a value\n",
				argv[optind - 1]);
			rc = -1;
		} else if ((rc = value_option(c, o, optarg)) == 1 &&
			   (rc = word_option(c, o, optarg)) == 1 &&
			   (rc = cap_flow_option(c, o, optarg)) == 1 &&
			   (rc = cap_rules_option(PROG, &c->rules, o, optarg)) == 1) {
			fprintf(stderr, "gpudp-capture: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			rc = -1;
		}
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "gpudp-capture: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		rc = -1;
	}
	/* the filter once the pattern names are known: a bad pattern file or
	 * expression is a usage error */
	if (rc == 0)
		rc = cap_rules_prepare(PROG, &c->rules);
	if (rc == 0)
		rc = cap_match_prepare(PROG, &c->match, c->rules.img, c->filter_expr, &c->filter);
	if (rc == 0)
		rc = conf_check(c);
	if (rc != 0)
		cap_conf_free(c);
	return rc;
}

void
cap_conf_free(struct cap_conf *c)
{
	cap_match_free(&c->match);
	cap_rules_free(&c->rules);
}
