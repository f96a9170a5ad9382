/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e2e-fwd: the guest side of the e2e suite (doc/e2e.md).
 *
 * Runs in a QEMU guest on one emulated NIC (e1000 or legacy virtio-net,
 * bound to uio_pci_generic, EAL in IOVA-as-PA mode). Announces itself with
 * HELLO frames, receives the host generator's test frames (e2e_frame.h),
 * checks every byte of each one, swaps the MAC addresses and sends it back.
 * Exits once --frames test frames have arrived, printing its counters on
 * one "E2E-GUEST: counters" line and "E2E-GUEST: PASS" or "E2E-GUEST: FAIL".
 *
 * Pools (--pool): "hugepage" (rte_pktmbuf_pool_create over EAL memory) or
 * "kmod": lib/mem's device pool with the kmod pin backend (or "dmabuf": the
 * same with the dmabuf backend, attaching the simulator's dma-buf export of
 * each chunk for the NIC), over simulated
 * GPU memory (e2e_gpu.h): mbuf data addresses are GPU VAs, the IOVAs the
 * gpudp_pin page table. In kmod mode the payloads are read through the
 * module's CPU mapping, sampled words also through the provider's own kernel
 * mapping (the simulator's PEEK), and the pool is watched for a revoke (the
 * GPU memory freed under the running port, gpudp_pool_check()): the
 * forwarder then stops the port and leaves, passing only with
 * --expect-revoke. Also in kmod mode, lib/mem's registration-cache counters
 * (gpudp_mem_pin_stats()) are sampled once the pool exists and again once
 * every test frame was forwarded: the steady state must pin nothing
 * (--repin-bursts injects the fault that check exists for).
 *
 * Usage: e2e-fwd [EAL options] -- [options]; --help lists them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "e2e_frame.h"
#include <gpudp_mem.h>
#include <gpudp_pin.h>

#include "e2e_gpu.h"

#define BURST		32
#define NB_RXD		256
#define NB_TXD		256
#define DATA_ROOM	RTE_MBUF_DEFAULT_BUF_SIZE	/* 2048 + headroom */
#define HELLO_PERIOD_MS	200
#define QUERY_PERIOD_MS	1
#define DONE_WAIT_MS	5000	/* for the host's DONE after the last frame */
#define MAX_REPORTED	8	/* bad frames described in detail */

enum pool_kind { POOL_HUGEPAGE, POOL_KMOD };

/* Filled once by parse_args(); read-only afterwards. */
struct fwd_conf {
	enum pool_kind pool;
	bool dmabuf;			/* kmod pool, dmabuf pin backend */
	uint32_t frames;
	unsigned int timeout_s;
	unsigned int n_mbufs;
	uint64_t gpu_bytes;
	uint64_t gpu_va;		/* kmod: adopt this allocation */
	bool uva;			/* kmod: CPU mapping at the GPU VA */
	const char *info_file;
	uint32_t mark_after;
	const char *mark_file;
	const char *ready_file;
	bool expect_revoke;
	uint32_t expect_bad;		/* frames the host corrupts on purpose */
	uint32_t check_every;
	uint32_t repin_bursts;		/* kmod: fault injection, see usage() */
	uint32_t expect_repins;		/* pins during forwarding to pass with */
};

struct fwd_stats {
	uint64_t rx;		/* every frame received */
	uint64_t test;		/* test frames among them */
	uint64_t valid;		/* test frames correct in every byte */
	uint64_t bad;		/* test frames with a wrong byte, length, MAC */
	uint64_t dup;		/* test frames seen twice (also counted bad) */
	uint64_t other;		/* frames that are not test frames */
	uint64_t done;		/* DONE frames from the host */
	uint64_t forwarded;	/* test frames the PMD accepted for tx */
	uint64_t tx_dropped;	/* test frames the PMD refused */
	uint64_t hello;		/* HELLO frames sent */
	uint64_t addr_checked;	/* frames whose DMA address was checked */
	uint64_t addr_bad;
	uint64_t peek_checked;	/* kmod: words read back through the provider */
	uint64_t peek_bad;
	uint64_t repins;	/* kmod: bursts that re-registered memory (injected) */
};

static const struct fwd_conf *conf;
static struct fwd_stats st;
static struct rte_ether_addr my_mac;
static uint8_t pattern[E2E_PATTERN_LEN];
static uint8_t *seen;		/* one byte per expected seq */
static volatile sig_atomic_t force_quit;

static struct e2e_gpu *gpu;		/* the simulated GPU and its CPU mapping */
static struct gpudp_pool *gpool;	/* lib/mem's pool over it */
/* lib/mem's registration cache: once the pool exists, once the frames are through */
static struct gpudp_regcache_stats pin_created, pin_after;
static bool pin_sampled;

/* Payload access can fault once the GPU memory is revoked. */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void
on_sigbus(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
on_quit(int sig)
{
	(void)sig;
	force_quit = 1;
}

static double
guest_uptime(void)
{
	double up = -1;
	FILE *f = fopen("/proc/uptime", "r");

	if (f != NULL) {
		if (fscanf(f, "%lf", &up) != 1)
			up = -1;
		fclose(f);
	}
	return up;
}

#define SAY(...) do { \
	printf("E2E-GUEST: " __VA_ARGS__); \
	putchar('\n'); \
	fflush(stdout); \
} while (0)

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
	       "  --frames N         test frames to receive, then exit (required)\n"
	       "  --pool KIND        hugepage | kmod | dmabuf (default hugepage); dmabuf is a\n"
	       "                     kmod pool pinned by the dmabuf backend\n"
	       "  --timeout S        give up after S seconds (default 60)\n"
	       "  --mbufs N          mbufs in the pool (default 1024)\n"
	       "  --gpu-va VA        kmod: use this simulated GPU allocation instead of\n"
	       "                     allocating (lib/mem's allocator adopts it)\n"
	       "  --gpu-bytes B      kmod: length of the --gpu-va allocation (default 4194304)\n"
	       "  --uva              kmod: map GPU memory for the CPU at the GPU VA itself (for\n"
	       "                     PMDs that touch the buffer, e.g. virtio); default: elsewhere,\n"
	       "                     nothing at the GPU VA\n"
	       "  --info-file PATH   kmod: write \"chunks=N gpu_va=0x... ...\" there once the pool exists\n"
	       "  --mark-after K     create --mark-file once K frames were forwarded\n"
	       "  --mark-file PATH   see --mark-after\n"
	       "  --ready-file PATH  create it once all --frames frames are in and the host\n"
	       "                     has confirmed them (DONE frame)\n"
	       "  --expect-revoke    kmod: after --frames frames keep the port running until the\n"
	       "                     pool is revoked; pass only if it is\n"
	       "  --expect-bad N     pass only if exactly N test frames are wrong (the host\n"
	       "                     corrupts some on purpose to show the check works; default 0)\n"
	       "  --check-every N    check DMA addresses (and kmod: read back through the\n"
	       "                     provider) on every Nth frame (default 1)\n"
	       "  --repin-bursts K   kmod, fault injection: for each of the first K rx bursts,\n"
	       "                     register fresh GPU memory with lib/mem (create and destroy\n"
	       "                     a small pool), as a data path that pinned per burst would\n"
	       "  --expect-repins N  pass only if lib/mem pinned exactly N times while\n"
	       "                     forwarding (default 0: the steady state pins nothing)\n"
	       "  --help             this text\n", prog);
}

static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
	  uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "e2e-fwd: bad value for --%s: '%s' (%" PRIu64
			"..%" PRIu64 ")\n", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct fwd_conf *c)
{
	static const struct option opts[] = {
		{ "frames", required_argument, NULL, 'f' },
		{ "pool", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "mbufs", required_argument, NULL, 'm' },
		{ "gpu-bytes", required_argument, NULL, 'b' },
		{ "gpu-va", required_argument, NULL, 'v' },
		{ "uva", no_argument, NULL, 'u' },
		{ "info-file", required_argument, NULL, 'i' },
		{ "mark-after", required_argument, NULL, 'k' },
		{ "mark-file", required_argument, NULL, 'K' },
		{ "ready-file", required_argument, NULL, 'R' },
		{ "expect-revoke", no_argument, NULL, 'r' },
		{ "expect-bad", required_argument, NULL, 'x' },
		{ "check-every", required_argument, NULL, 'c' },
		{ "repin-bursts", required_argument, NULL, 'P' },
		{ "expect-repins", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int o;

	*c = (struct fwd_conf){
		.pool = POOL_HUGEPAGE,
		.timeout_s = 60,
		.n_mbufs = 1024,
		.gpu_bytes = 4u << 20,
		.check_every = 1,
	};
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			if (parse_u64("frames", optarg, 1, 1u << 24, &v) < 0)
				return -1;
			c->frames = (uint32_t)v;
			break;
		case 'p':
			if (strcmp(optarg, "hugepage") == 0) {
				c->pool = POOL_HUGEPAGE;
			} else if (strcmp(optarg, "kmod") == 0 ||
				   strcmp(optarg, "dmabuf") == 0) {
				c->pool = POOL_KMOD;
				c->dmabuf = optarg[0] == 'd';
			} else {
				fprintf(stderr, "e2e-fwd: bad value for --pool: '%s' (hugepage, kmod, dmabuf)\n",
					optarg);
				return -1;
			}
			break;
		case 't':
			if (parse_u64("timeout", optarg, 1, 3600, &v) < 0)
				return -1;
			c->timeout_s = (unsigned int)v;
			break;
		case 'm':
			if (parse_u64("mbufs", optarg, NB_RXD + NB_TXD + BURST,
				      1u << 20, &v) < 0)
				return -1;
			c->n_mbufs = (unsigned int)v;
			break;
		case 'b':
			if (parse_u64("gpu-bytes", optarg, 1 << 16, 1ull << 28, &v) < 0)
				return -1;
			c->gpu_bytes = v;
			break;
		case 'v':
			if (parse_u64("gpu-va", optarg, 1, UINT64_MAX, &v) < 0)
				return -1;
			c->gpu_va = v;
			break;
		case 'u':
			c->uva = true;
			break;
		case 'i':
			c->info_file = optarg;
			break;
		case 'k':
			if (parse_u64("mark-after", optarg, 1, UINT32_MAX, &v) < 0)
				return -1;
			c->mark_after = (uint32_t)v;
			break;
		case 'K':
			c->mark_file = optarg;
			break;
		case 'R':
			c->ready_file = optarg;
			break;
		case 'r':
			c->expect_revoke = true;
			break;
		case 'x':
			if (parse_u64("expect-bad", optarg, 0, UINT32_MAX, &v) < 0)
				return -1;
			c->expect_bad = (uint32_t)v;
			break;
		case 'c':
			if (parse_u64("check-every", optarg, 1, UINT32_MAX, &v) < 0)
				return -1;
			c->check_every = (uint32_t)v;
			break;
		case 'P':
			if (parse_u64("repin-bursts", optarg, 0, 8, &v) < 0)
				return -1;
			c->repin_bursts = (uint32_t)v;
			break;
		case 'E':
			if (parse_u64("expect-repins", optarg, 0, UINT32_MAX, &v) < 0)
				return -1;
			c->expect_repins = (uint32_t)v;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "e2e-fwd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (c->frames == 0) {
		fprintf(stderr, "e2e-fwd: --frames is required\n");
		return -1;
	}
	if (c->expect_bad >= c->frames) {
		fprintf(stderr, "e2e-fwd: bad value for --expect-bad: %u (below --frames %u)\n",
			c->expect_bad, c->frames);
		return -1;
	}
	if ((c->mark_after != 0) != (c->mark_file != NULL)) {
		fprintf(stderr, "e2e-fwd: --mark-after and --mark-file go together\n");
		return -1;
	}
	if (c->pool != POOL_KMOD && (c->expect_revoke || c->gpu_va || c->info_file || c->uva ||
				     c->repin_bursts || c->expect_repins)) {
		fprintf(stderr, "e2e-fwd: --expect-revoke, --gpu-va, --uva, --info-file, --repin-bursts"
			" and --expect-repins need --pool kmod\n");
		return -1;
	}
	return 0;
}

static void
touch_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		SAY("cannot create %s: %s", path, strerror(errno));
		return;
	}
	if (text != NULL && write(fd, text, strlen(text)) < 0)
		SAY("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * Where the CPU reads and writes an mbuf's data: in kmod pools the data
 * address is a GPU VA, reached through the module's CPU mapping. NULL if
 * it is outside (then the frame is counted as an address error).
 */
static uint8_t *
data_cpu(const struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	if (gpu != NULL)
		return e2e_gpu_cpu_ptr(gpu, d);
	return d;
}

/*
 * Build the pool with lib/mem: device memory from the simulator (through
 * e2e_gpu's allocator), kmod pin backend, one port. Then check what lib/mem
 * registered against an independent pin of the same memory.
 */
static struct rte_mempool *
kmod_pool_setup(uint16_t port)
{
	struct e2e_gpu_conf gc = {
		.adopt_va = conf->gpu_va,
		.adopt_len = conf->gpu_bytes,
		.uva = conf->uva,
	};
	struct gpudp_pool_conf pc = {
		.name = "e2e_gpu",
		.type = GPUDP_MEM_DEVICE,
		.ports = &port,
		.nb_ports = 1,
		.nb_mbufs = conf->n_mbufs,
		.data_room = DATA_ROOM,
		.socket_id = (int)rte_socket_id(),
		.pin = conf->dmabuf ? GPUDP_PIN_DMABUF : GPUDP_PIN_KMOD,
	};
	struct gpudp_pool_info info;
	uint64_t va[16], len[16], off, iova;
	unsigned int n, k;
	char text[512];
	size_t pos;
	int ret;

	if (rte_eal_iova_mode() != RTE_IOVA_PA) {
		SAY("EAL is not in IOVA-as-PA mode: the kmod page table cannot serve as IOVAs");
		return NULL;
	}
	gpu = e2e_gpu_open(&gc);
	if (gpu == NULL) {
		SAY("opening the simulator and /dev/gpudp_pin: %s", strerror(errno));
		return NULL;
	}
	pc.alloc = e2e_gpu_allocator(gpu);
	gpool = gpudp_pool_create(&pc);
	if (gpool == NULL) {
		SAY("gpudp_pool_create (device, %s): %s", gpudp_pin_backend_name(pc.pin),
		    rte_strerror(rte_errno));
		return NULL;
	}
	gpudp_mem_pin_stats(&pin_created);
	gpudp_pool_info_get(gpool, &info);
	n = e2e_gpu_allocations(gpu, va, len, RTE_DIM(va));
	SAY("lib/mem pool: %u mbufs of %u B in %zu B of GPU memory, %u chunk(s) (first at"
	    " GPU VA 0x%" PRIx64 "), %u extmem segment(s), pin backend %s, CPU mapping %s",
	    info.nb_mbufs, info.elt_size, info.gpu_bytes, info.chunks, va[0],
	    info.extmem_segs, gpudp_pin_backend_name(info.pin),
	    conf->uva ? "at the GPU VA" : "elsewhere");
	if (info.pin != pc.pin) {
		SAY("lib/mem used pin backend %s, not %s", gpudp_pin_backend_name(info.pin),
		    gpudp_pin_backend_name(pc.pin));
		return NULL;
	}
	if (n != info.chunks || n > RTE_DIM(va)) {
		SAY("lib/mem reports %u chunks, the allocator saw %u", info.chunks, n);
		return NULL;
	}

	/* lib/mem's IOVAs (its pin) = our pin's page table, page by page. */
	for (k = 0; k < n; k++) {
		for (off = 0; off < len[k]; off += GPUDP_PIN_GPU_PAGE_SIZE) {
			const void *a = (const void *)(uintptr_t)(va[k] + off);
			const struct rte_memseg *ms = rte_mem_virt2memseg(a, NULL);
			uint64_t reg = ms == NULL ? RTE_BAD_IOVA :
				       ms->iova + (uint64_t)((uintptr_t)a - (uintptr_t)ms->addr);

			if (e2e_gpu_iova(gpu, a, &iova) < 0 || reg != iova) {
				SAY("GPU VA %p: registered IOVA 0x%" PRIx64 ", page table 0x%" PRIx64,
				    a, reg, iova);
				return NULL;
			}
		}
		if (!conf->uva && (msync((void *)(uintptr_t)va[k], 4096, MS_ASYNC) == 0 ||
				   errno != ENOMEM)) {
			SAY("something is mapped at GPU VA 0x%" PRIx64
			    ": the test would not see a PMD touch the buffers", va[k]);
			return NULL;
		}
	}
	ret = e2e_gpu_check_mapping(gpu);
	if (ret < 0) {
		SAY("CPU mapping does not show the provider's pages: %s", strerror(-ret));
		return NULL;
	}
	SAY("registered IOVAs = page table of an independent pin; CPU mapping shows the "
	    "provider's pages%s", conf->uva ? "" : "; nothing mapped at the GPU VAs");
	if (conf->info_file != NULL) {
		pos = (size_t)snprintf(text, sizeof(text), "chunks=%u", n);
		for (k = 0; k < n && pos < sizeof(text); k++)
			pos += (size_t)snprintf(text + pos, sizeof(text) - pos,
						" gpu_va=0x%" PRIx64, va[k]);
		if (pos < sizeof(text))
			snprintf(text + pos, sizeof(text) - pos, "\n");
		touch_file(conf->info_file, text);
	}
	return gpudp_pool_mempool(gpool);
}

/* Read one word of a frame through the provider's kernel mapping. */
static void
kmod_peek_check(const struct rte_mbuf *m, const uint8_t *cpu, uint32_t off)
{
	const uint8_t *va = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	uint64_t kval, uval;

	st.peek_checked++;
	if (e2e_gpu_peek(gpu, va, &kval) < 0) {
		st.peek_bad++;
		return;
	}
	memcpy(&uval, cpu + off, sizeof(uval));
	if (kval != uval) {
		st.peek_bad++;
		if (st.peek_bad <= MAX_REPORTED)
			SAY("GPU VA %p: provider reads 0x%016" PRIx64
			    ", CPU mapping reads 0x%016" PRIx64, (const void *)va, kval, uval);
	}
}

/*
 * Fault injection (--repin-bursts): register fresh GPU memory with lib/mem
 * while forwarding, as a data path that pinned per burst would. A small
 * device pool over a new simulated allocation (never pinned before, so a
 * registration-cache miss) is created and destroyed: one pin.
 */
static void
kmod_repin(uint16_t port)
{
	struct gpudp_pool_conf pc = {
		.name = "e2e_repin",
		.type = GPUDP_MEM_DEVICE,
		.ports = &port,
		.nb_ports = 1,
		.nb_mbufs = 16,
		.data_room = DATA_ROOM,
		.socket_id = (int)rte_socket_id(),
		.pin = conf->dmabuf ? GPUDP_PIN_DMABUF : GPUDP_PIN_KMOD,
		.alloc = e2e_gpu_allocator(gpu),
	};
	struct gpudp_pool *p = gpudp_pool_create(&pc);

	if (p == NULL) {
		SAY("--repin-bursts: gpudp_pool_create: %s", rte_strerror(rte_errno));
		return;
	}
	if (gpudp_pool_destroy(p) == 0)
		st.repins++;
}

/*
 * Second sample of lib/mem's registration-cache counters, once the frames
 * went through (@at: "done", or "mark" for --mark-after, whose run is
 * killed): one line with both samples and the pins in between.
 */
static void
kmod_pin_sample(const char *at)
{
	if (gpool == NULL || pin_sampled)
		return;
	gpudp_mem_pin_stats(&pin_after);
	pin_sampled = true;
	SAY("pin-stats at=%s frames=%" PRIu64 " forwarded=%" PRIu64 " pins_created=%" PRIu64
	    " hits_created=%" PRIu64 " bytes_pinned_created=%" PRIu64 " pins_after=%" PRIu64
	    " hits_after=%" PRIu64 " bytes_pinned_after=%" PRIu64 " unpins_during=%" PRIu64
	    " pins_during=%" PRIu64 " repins_injected=%" PRIu64, at, st.test, st.forwarded,
	    pin_created.pins, pin_created.hits, pin_created.bytes_pinned, pin_after.pins,
	    pin_after.hits, pin_after.bytes_pinned, pin_after.unpins - pin_created.unpins,
	    pin_after.pins - pin_created.pins, st.repins);
	if (pin_after.pins != pin_created.pins)
		SAY("lib/mem pinned %" PRIu64 " time(s) while forwarding: the steady state must"
		    " pin nothing", pin_after.pins - pin_created.pins);
}

/* Destroy the pool (every mbuf must be back) and the GPU memory. */
static int
kmod_teardown(void)
{
	int ret = gpudp_pool_destroy(gpool);

	if (ret < 0)
		SAY("gpudp_pool_destroy: %s", strerror(-ret));
	e2e_gpu_close(gpu);
	return ret;
}

/* Is the DMA address of @m's data the one its CPU address maps? */
static void
check_dma_address(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t want = rte_pktmbuf_iova(m);
	uint64_t have;

	st.addr_checked++;
	if (gpu != NULL) {
		if (e2e_gpu_iova(gpu, d, &have) < 0)
			have = RTE_BAD_IOVA;
	} else {
		have = rte_mem_virt2phy(d);
	}
	if (have != want) {
		st.addr_bad++;
		if (st.addr_bad <= MAX_REPORTED)
			SAY("mbuf data %p: mbuf IOVA 0x%" PRIx64 ", page table / pagemap 0x%" PRIx64,
			    (const void *)d, want, have);
	}
}

/* Returns true for a test frame correct in every byte. */
static bool
check_test_frame(const struct rte_mbuf *m, const uint8_t *d, uint32_t len,
		 uint32_t seq)
{
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)d;
	uint16_t want_len = e2e_frame_len(seq);
	uint16_t field = (uint16_t)(d[22] << 8 | d[23]);
	uint32_t i;

	if (m->nb_segs != 1 || len != want_len || field != want_len) {
		if (st.bad < MAX_REPORTED)
			SAY("frame %u: %u bytes in %u segments, length field %u, want %u",
			    seq, len, m->nb_segs, field, want_len);
		return false;
	}
	if (!rte_is_same_ether_addr(&eh->dst_addr, &my_mac)) {
		if (st.bad < MAX_REPORTED)
			SAY("frame %u: not addressed to this port", seq);
		return false;
	}
	for (i = E2E_HDR_LEN; i < len; i++) {
		if (d[i] != e2e_pattern_byte(pattern, seq, i)) {
			if (st.bad < MAX_REPORTED)
				SAY("frame %u: byte %u is 0x%02x, want 0x%02x", seq,
				    i, d[i], e2e_pattern_byte(pattern, seq, i));
			return false;
		}
	}
	if (seq >= conf->frames || seen[seq]) {
		if (seq < conf->frames)
			st.dup++;
		if (st.bad < MAX_REPORTED)
			SAY("frame %u: duplicate or beyond --frames", seq);
		return false;
	}
	seen[seq] = 1;
	return true;
}

/*
 * Check, swap and queue for tx every frame of a burst. Touches payload,
 * so it runs under the SIGBUS guard. Each mbuf taken from @rx is set to
 * NULL there, and *@ntx counts those put in @tx (volatile: both must be
 * right after a siglongjmp out of here).
 */
static void
process_burst(struct rte_mbuf **rx, uint16_t n, struct rte_mbuf **tx,
	      volatile uint16_t *ntx)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		uint8_t *d = data_cpu(m);
		uint32_t len = rte_pktmbuf_pkt_len(m), seq;
		struct rte_ether_hdr *eh = (struct rte_ether_hdr *)d;
		struct rte_ether_addr tmp;

		rx[i] = NULL;
		st.rx++;
		if (d == NULL) {
			st.addr_bad++;	/* data outside the CPU mapping */
			rte_pktmbuf_free(m);
			continue;
		}
		if (len < E2E_HDR_LEN ||
		    eh->ether_type != rte_cpu_to_be_16(E2E_ETHERTYPE) ||
		    memcmp(d + 14, E2E_MAGIC_TEST, 4) != 0) {
			if (len >= E2E_HDR_LEN &&
			    eh->ether_type == rte_cpu_to_be_16(E2E_ETHERTYPE) &&
			    memcmp(d + 14, E2E_MAGIC_DONE, 4) == 0 &&
			    rte_is_same_ether_addr(&eh->dst_addr, &my_mac))
				st.done++;
			else
				st.other++;
			rte_pktmbuf_free(m);
			continue;
		}
		st.test++;
		seq = (uint32_t)d[18] << 24 | (uint32_t)d[19] << 16 |
		      (uint32_t)d[20] << 8 | d[21];
		if (st.test % conf->check_every == 1 || conf->check_every == 1) {
			check_dma_address(m);
			if (gpu != NULL) {
				kmod_peek_check(m, d, 16);
				kmod_peek_check(m, d, (len - 8) & ~7u);
			}
		}
		if (!check_test_frame(m, d, len, seq)) {
			st.bad++;
			rte_pktmbuf_free(m);
			continue;
		}
		st.valid++;
		rte_ether_addr_copy(&eh->dst_addr, &tmp);
		rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
		rte_ether_addr_copy(&tmp, &eh->src_addr);
		tx[*ntx] = m;
		*ntx = *ntx + 1;
	}
}

/*
 * process_burst() under a SIGBUS guard: -EFAULT when the pool's CPU mapping
 * went away (revoked) while reading a frame. Every mbuf of the burst is
 * then either still in @rx or among the first *@ntx of @tx.
 */
static int
process_guarded(struct rte_mbuf **rx, uint16_t n, struct rte_mbuf **tx,
		volatile uint16_t *ntx)
{
	*ntx = 0;
	if (sigsetjmp(bus_jmp, 1) != 0) {
		bus_armed = 0;
		return -EFAULT;
	}
	bus_armed = 1;
	process_burst(rx, n, tx, ntx);
	bus_armed = 0;
	return 0;
}

static void
transmit(uint16_t port, struct rte_mbuf **tx, uint16_t n)
{
	uint16_t done = 0;
	unsigned int tries;

	for (tries = 0; done < n && tries < 100000; tries++)
		done += rte_eth_tx_burst(port, 0, tx + done, n - done);
	st.forwarded += done;
	st.tx_dropped += n - done;
	rte_pktmbuf_free_bulk(tx + done, n - done);
}

static void
send_hello(uint16_t port, struct rte_mempool *mp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	uint8_t *d;

	if (m == NULL)
		return;
	if (rte_pktmbuf_append(m, E2E_LEN_MIN) == NULL ||
	    (d = data_cpu(m)) == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(d, 0, E2E_LEN_MIN);
	eh = (struct rte_ether_hdr *)d;
	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	rte_ether_addr_copy(&my_mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(E2E_ETHERTYPE);
	memcpy(d + 14, E2E_MAGIC_HELLO, 4);
	d[22] = 0;
	d[23] = E2E_LEN_MIN;
	if (rte_eth_tx_burst(port, 0, &m, 1) == 1)
		st.hello++;
	else
		rte_pktmbuf_free(m);
}

static int
port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf pc;
	struct rte_eth_link link;
	uint16_t nb_rxd = NB_RXD, nb_txd = NB_TXD;
	unsigned int i;
	int ret;

	memset(&pc, 0, sizeof(pc));
	ret = rte_eth_dev_configure(port, 1, 1, &pc);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd,
					     rte_eth_dev_socket_id(port), NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_txd,
					     rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_macaddr_get(port, &my_mac);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0) {
		SAY("port %u setup: %s", port, rte_strerror(-ret));
		return ret;
	}
	for (i = 0; i < 50; i++) {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			break;
		rte_delay_ms(100);
	}
	SAY("port %u up: " RTE_ETHER_ADDR_PRT_FMT ", link %s, %u rx / %u tx descriptors",
	    port, RTE_ETHER_ADDR_BYTES(&my_mac),
	    link.link_status == RTE_ETH_LINK_UP ? "up" : "DOWN", nb_rxd, nb_txd);
	return 0;
}

/* The forwarding loop. Returns 1 if the pool was revoked, 0 otherwise. */
static int
forward(uint16_t port, struct rte_mempool *mp)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t start = rte_get_timer_cycles();
	const uint64_t deadline = start + conf->timeout_s * hz;
	uint64_t now, next_hello = start, next_query = start, first_at = 0;
	uint64_t all_in_at = 0;
	struct rte_mbuf *rx[BURST], *tx[BURST];
	bool marked = false, all_in = false, ready = false;
	volatile uint16_t ntx;
	uint16_t n, i;

	while (!force_quit) {
		now = rte_get_timer_cycles();
		if (now > deadline) {
			SAY("timeout after %u s: %" PRIu64 " of %u test frames",
			    conf->timeout_s, st.test, conf->frames);
			return 0;
		}
		if (gpool != NULL && now >= next_query) {
			next_query = now + hz * QUERY_PERIOD_MS / 1000;
			if (gpudp_pool_check(gpool) == -EIDRM)
				return 1;
		}
		if (st.test == 0 && now >= next_hello) {
			send_hello(port, mp);
			next_hello = now + hz * HELLO_PERIOD_MS / 1000;
		}
		n = rte_eth_rx_burst(port, 0, rx, BURST);
		if (n != 0) {
			if (first_at == 0) {
				first_at = now;
				SAY("first frame at guest uptime %.2f s", guest_uptime());
			}
			if (process_guarded(rx, n, tx, &ntx) < 0) {
				SAY("SIGBUS reading a frame: the pool's memory is gone");
				for (i = 0; i < n; i++)
					rte_pktmbuf_free(rx[i]);
				rte_pktmbuf_free_bulk(tx, ntx);
				return 1;
			}
			transmit(port, tx, ntx);
			if (st.repins < conf->repin_bursts && gpool != NULL)
				kmod_repin(port);
		}
		if (conf->mark_after && !marked && st.forwarded >= conf->mark_after) {
			kmod_pin_sample("mark");
			touch_file(conf->mark_file, NULL);
			marked = true;
		}
		if (!all_in && st.test >= conf->frames) {
			all_in = true;
			all_in_at = now;
			SAY("all %u test frames in after %.3f s of traffic (guest uptime %.2f s)",
			    conf->frames, (double)(now - first_at) / hz, guest_uptime());
		}
		/* Then wait for the host's DONE: our last frames are out. */
		if (all_in && !ready &&
		    (st.done > 0 || now - all_in_at > hz * DONE_WAIT_MS / 1000)) {
			ready = true;
			if (st.done == 0)
				SAY("no DONE from the host within %u ms", DONE_WAIT_MS);
			kmod_pin_sample("done");
			if (conf->ready_file != NULL)
				touch_file(conf->ready_file, NULL);
			if (!conf->expect_revoke)
				return 0;
			SAY("waiting for the pool to be revoked, port still running");
		}
	}
	SAY("interrupted");
	return 0;
}

int
main(int argc, char **argv)
{
	static struct fwd_conf c;
	struct rte_eth_stats es;
	struct rte_mempool *mp = NULL;
	uint16_t port = 0;
	int ret, revoked = 0, pass, teardown = 0, pins_ok = 1;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "e2e-fwd: EAL init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse_args(argc, argv, &c) < 0)
		return 2;
	conf = &c;
	signal(SIGINT, on_quit);
	signal(SIGTERM, on_quit);
	signal(SIGBUS, on_sigbus);
	SAY("EAL up at guest uptime %.2f s, IOVA mode %s, %u port(s)",
	    guest_uptime(), rte_eal_iova_mode() == RTE_IOVA_PA ? "PA" : "VA",
	    rte_eth_dev_count_avail());
	if (rte_eth_dev_count_avail() != 1) {
		SAY("FAIL: want exactly one port");
		return 1;
	}
	e2e_pattern_init(pattern);
	seen = calloc(c.frames, 1);
	if (seen == NULL)
		return 1;

	if (c.pool == POOL_HUGEPAGE) {
		mp = rte_pktmbuf_pool_create("e2e_host", c.n_mbufs, 0, 0, DATA_ROOM,
					     rte_socket_id());
		if (mp == NULL)
			SAY("hugepage pool: %s", rte_strerror(rte_errno));
	} else {
		mp = kmod_pool_setup(port);
	}
	if (mp == NULL || port_setup(port, mp) < 0) {
		SAY("FAIL: setup");
		return 1;
	}
	revoked = forward(port, mp);
	if (revoked)
		SAY("pool revoked (GPU memory freed under the running port) after %"
		    PRIu64 " test frames: stopping port %u, no more buffers are used",
		    st.test, port);

	memset(&es, 0, sizeof(es));
	rte_eth_stats_get(port, &es);
	ret = rte_eth_dev_stop(port);
	if (ret < 0)
		SAY("stopping port %u: %s", port, rte_strerror(-ret));
	rte_eth_dev_close(port);
	if (c.pool == POOL_HUGEPAGE)
		rte_mempool_free(mp);
	else
		teardown = kmod_teardown();
	if (c.pool == POOL_KMOD)
		pins_ok = pin_sampled && pin_created.pins > 0 &&
			  pin_after.pins - pin_created.pins == c.expect_repins &&
			  st.repins == c.repin_bursts;
	SAY("counters pool=%s rx=%" PRIu64 " test=%" PRIu64 " valid=%" PRIu64
	    " bad=%" PRIu64 " dup=%" PRIu64 " other=%" PRIu64 " done=%" PRIu64
	    " forwarded=%" PRIu64
	    " tx_dropped=%" PRIu64 " hello=%" PRIu64 " addr_checked=%" PRIu64
	    " addr_bad=%" PRIu64 " peek_checked=%" PRIu64 " peek_bad=%" PRIu64
	    " revoked=%d port_ipackets=%" PRIu64 " port_opackets=%" PRIu64
	    " port_imissed=%" PRIu64 " port_ierrors=%" PRIu64 " pins_ok=%d",
	    c.pool == POOL_KMOD ? (c.dmabuf ? "dmabuf" : "kmod") : "hugepage", st.rx, st.test, st.valid,
	    st.bad, st.dup, st.other, st.done, st.forwarded, st.tx_dropped, st.hello,
	    st.addr_checked, st.addr_bad, st.peek_checked, st.peek_bad, revoked,
	    es.ipackets, es.opackets, es.imissed, es.ierrors, pins_ok);

	pass = st.valid == c.frames - c.expect_bad && st.bad == c.expect_bad &&
	       st.forwarded == st.valid &&
	       st.tx_dropped == 0 && st.addr_checked > 0 && st.addr_bad == 0 &&
	       st.peek_bad == 0 && revoked == c.expect_revoke && !force_quit &&
	       es.imissed == 0 && teardown == 0 && st.done == 1 && pins_ok &&
	       (c.pool != POOL_KMOD || st.peek_checked > 0);
	SAY("%s", pass ? "PASS" : "FAIL");
	free(seen);
	rte_eal_cleanup();
	return pass ? 0 : 1;
}
