/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-fwd's options against each other and against the machine, once
 * fwd_conf.c has parsed each: the rules that name several options, the
 * memory of each mode, the pools. No DPDK calls: it runs before
 * rte_eal_init(). */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "fwd_conf.h"

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
 * The pool against the ring and the bursts: refused (-1, printed) more
 * packets in flight than a pool may hold, a pool smaller than one burst,
 * a default pool larger than a pool may be. @return 0 or -1
 */
static int
pool_size_check(const struct fwd_conf *c)
{
	uint64_t inflight = (uint64_t)c->ring * c->burst, n = fwd_conf_mbufs(c);

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
	return 0;
}

/*
 * The pools of every pipeline in host memory against the machine's
 * memory: refused (-1, printed) when larger than it; a warning for a
 * default pool over a quarter of it. @return 0 or -1
 */
static int
pool_memory_check(const struct fwd_conf *c)
{
	unsigned int pipes = c->queues * (c->nb_ports > 0 ? c->nb_ports : 1u);
	enum gpudp_mem_type mem = fwd_conf_mem(c);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t n = fwd_conf_mbufs(c);
	double bytes = pool_bytes(n, c->data_room) * pipes, ram;

	if (c->check || (mem != GPUDP_MEM_HOST && mem != GPUDP_MEM_PINNED) || pages <= 0 ||
	    psize <= 0)
		return 0;
	ram = (double)pages * (double)psize;
	if (bytes <= ram && (c->mbufs != 0 || bytes <= ram / 4))
		return 0;
	fprintf(stderr, "gpudp-fwd: %s--mbufs %" PRIu64 "%s x --data-room %u: %u pool%s of "
		"about %.1f GB%s, %s this machine's %.1f GB of memory: %s\n",
		bytes > ram ? "" : "warning: ", n,
		c->mbufs != 0 ? "" : " (the default: ring * burst + rxd + 2 * txd + 2048)",
		c->data_room, pipes, pipes == 1 ? "" : "s",
		bytes / pipes / 1e9, pipes == 1 ? "" : " each",
		bytes > ram ? "more than" : "over a quarter of", ram / 1e9,
		c->mbufs != 0 ? "fewer --mbufs or a smaller --data-room" :
		"give --mbufs, or a smaller --ring x --burst or --data-room");
	return bytes > ram ? -1 : 0;
}

/*
 * The pool against the ring, the bursts and the machine, before anything
 * is allocated: refused (-1, printed) what cannot work (pool_size_check(),
 * pool_memory_check()); a warning for a pool smaller than what the ring
 * and the queues can hold. @return 0 or -1
 */
static int
pool_check(const struct fwd_conf *c)
{
	uint64_t hold = (uint64_t)c->ring * c->burst + c->rxd + 2u * c->txd;

	if (pool_size_check(c) != 0 || pool_memory_check(c) != 0)
		return -1;
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

/* cross-option rules, each naming the options involved. @return 0 or -1 (printed) */
static int
cross_check(struct fwd_conf *c)
{
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
	if (c->pollers > c->threads / 32) {
		fprintf(stderr, "gpudp-fwd: --gpu-pollers: %u is more than the %u warps of a "
			"block of --threads %u\n", c->pollers, c->threads / 32, c->threads);
		return -1;
	}
	if (!c->check && !mode_mem_ok[c->mode][fwd_conf_mem(c)]) {
		fprintf(stderr, "gpudp-fwd: --mem: '%s' does not work with --mode %s "
			"(cpu: host or pinned; staged: host, pinned or split; launch, "
			"persistent, graph: pinned, device or split)\n",
			gpudp_mem_type_name(fwd_conf_mem(c)), gpudp_ho_mode_name(c->mode));
		return -1;
	}
	return 0;
}

int
fwd_conf_check(struct fwd_conf *c)
{
	if (cross_check(c) != 0 || pool_check(c) != 0)
		return -1;
	if (c->rx_burst > c->burst)
		c->rx_burst = c->burst;
	return 0;
}
