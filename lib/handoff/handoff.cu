// SPDX-License-Identifier: BSD-3-Clause
// lib/handoff's own kernels, beside the works' (gpudp_work_dev.h): the
// staged mode's done signal and gather copy, and the clock calibration.
// (The latency benchmark's rte_gpu_comm peer is a test kernel:
// test/lib/handoff/fwd_test.cu.)
#include <stdint.h>

#include "gpudp_handoff_dev.h"
#include "gpudp_pkt_desc.h"
#include "gpudp_work_dev.h"

using gpudp_work_dev::globaltimer;
using gpudp_work_dev::ld_acquire;
using gpudp_work_dev::st_release;

// Staged mode: stored on the stream after the copy back to host memory.
extern "C" __global__ void
gpudp_ho_signal(struct gpudp_ho_kargs a)
{
	volatile struct gpudp_ho_ctl *c = (volatile struct gpudp_ho_ctl *)a.ctl + a.slot;

	c->t_kend = globaltimer();
	__threadfence_system();
	st_release((uint32_t *)&c->done, c->seq);
}

// Staged mode with packets in memory the GPU can address (pinned or
// registered host memory, gpudp_handoff_conf.stage_gpu_copy): the copies
// into the staging buffers (src[i] -> addr[i], len[i] bytes) run on the GPU,
// one warp per packet, on the copy stream, instead of a CPU memcpy. The
// work's kernel that follows copies its write span back (kargs.back).
// Launched after rx_burst returned the burst, like any kernel.
extern "C" __global__ void
gpudp_ho_gather(struct gpudp_ho_kargs a, uint64_t src, uint32_t n)
{
	uint32_t lane = threadIdx.x & 31;
	uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	uint32_t nw = (gridDim.x * blockDim.x) >> 5;
	size_t base = (size_t)a.slot * a.burst_max;
	uint32_t i, j;

	for (i = w; i < n; i += nw) {
		uint8_t *d = (uint8_t *)((const uint64_t *)a.addr)[base + i];
		const uint8_t *s = (const uint8_t *)((const uint64_t *)src)[base + i];
		uint32_t l = ((const uint32_t *)a.len)[base + i], l16;

		l16 = (((uintptr_t)d | (uintptr_t)s) & 15) == 0 ? l & ~15u : 0;
		/* 2 KiB per round, every load issued before any store: one
		 * PCIe round trip per round instead of one per 512 bytes; the
		 * last round also loads the tail (under 16 bytes, one per
		 * lane), so a packet up to 2 KiB costs one round trip */
		if (l16 == 0) {  /* unaligned, or under 16 bytes: bytes */
			for (j = lane; j < l; j += 32)
				d[j] = s[j];
			continue;
		}
		for (j = 0; j < l16; j += 2048) {
			uint4 v[4];
			uint32_t k, o;
			uint8_t t = 0;
			bool last = j + 2048 >= l16 && lane < l - l16;

#pragma unroll
			for (k = 0; k < 4; k++) {
				o = j + (k * 32 + lane) * 16;
				if (o < l16)
					v[k] = *(const uint4 *)(s + o);
			}
			if (last)
				t = s[l16 + lane];
#pragma unroll
			for (k = 0; k < 4; k++) {
				o = j + (k * 32 + lane) * 16;
				if (o < l16)
					*(uint4 *)(d + o) = v[k];
			}
			if (last)
				d[l16 + lane] = t;
		}
	}
}

// Staged mode, gpudp_handoff_submit_desc(): the CPU wrote only the
// descriptors (struct gpudp_pkt_desc: off, caplen, wirelen, mark, ts_ns). A
// warp takes 32 packets: each lane reads one descriptor, writes that
// packet's entries of the arrays the work reads, and counts the 16-byte
// blocks of data that hold its span; then the warp copies all of its
// packets' blocks, 4 per lane per round with every load issued before any
// store (one PCIe round trip per round). A packet's blocks keep their
// offset (stage + off mirrors data + off). Two neighbours may share a block:
// both copy the same 16 bytes to the same place.
extern "C" __global__ void
gpudp_ho_gather_desc(struct gpudp_ho_kargs a, struct gpudp_ho_gather_args g)
{
	const uint32_t full = 0xffffffffu;
	uint32_t lane = threadIdx.x & 31;
	uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	uint32_t nw = (gridDim.x * blockDim.x) >> 5;
	size_t base = (size_t)a.slot * a.burst_max;
	const uint4 *src = (const uint4 *)g.data;
	uint4 *dst = (uint4 *)g.stage;
	uint32_t p0, c0, s, k;

	for (p0 = w * 32; p0 < g.n; p0 += nw * 32) {  /* the same for every lane */
		uint32_t i = p0 + lane, first = 0, cnt = 0, pre, total;

		if (i < g.n) {
			struct gpudp_pkt_desc d = ((const struct gpudp_pkt_desc *)g.desc)[i];
			uint32_t off = d.off, len = d.caplen;
			uint32_t l = g.span != 0 && len > g.span ? g.span : len;
			bool ok = off <= g.data_len && len <= g.data_len - off &&
				  l <= g.stage_bytes;

			if (!ok)
				l = 0;
			((uint64_t *)g.addr)[base + i] = g.stage + (ok ? off : 0);
			((uint32_t *)g.len)[base + i] = l;
			((uint32_t *)g.plen)[base + i] = len;
			((uint64_t *)g.meta)[2 * (base + i)] = d.ts_ns;
			((uint64_t *)g.meta)[2 * (base + i) + 1] =   /* wire_len, mark */
				(uint64_t)d.mark << 32 | d.wirelen;
			if (g.xaddr != 0) {  /* the rest past the span, where it lies */
				((uint64_t *)g.xaddr)[base + i] = g.data + off + l;
				((uint32_t *)g.xlen)[base + i] = ok ? len - l : 0;
			}
			if (l > 0) {
				first = off >> 4;
				cnt = ((off + l + 15) >> 4) - first;
			}
		}
		pre = cnt;  /* inclusive prefix sum of the blocks over the lanes */
		for (s = 1; s < 32; s <<= 1) {
			uint32_t v = __shfl_up_sync(full, pre, s);

			if (lane >= s)
				pre += v;
		}
		total = __shfl_sync(full, pre, 31);
		for (c0 = 0; c0 < total; c0 += 128) {
			uint4 v[4];
			uint32_t at[4];

#pragma unroll
			for (k = 0; k < 4; k++) {
				uint32_t c = c0 + k * 32 + lane, q = 0, qpre, qcnt, qfirst;

				/* its packet: the first lane whose prefix passes c */
				for (s = 16; s > 0; s >>= 1)
					if (__shfl_sync(full, pre, q + s - 1) <= c)
						q += s;
				qpre = __shfl_sync(full, pre, q);
				qcnt = __shfl_sync(full, cnt, q);
				qfirst = __shfl_sync(full, first, q);
				at[k] = c < total ? qfirst + c - (qpre - qcnt) : UINT32_MAX;
				if (at[k] != UINT32_MAX)
					v[k] = src[at[k]];
			}
#pragma unroll
			for (k = 0; k < 4; k++)
				if (at[k] != UINT32_MAX)
					dst[at[k]] = v[k];
		}
	}
}

// Clock calibration: ping-pong through mapped host memory. For round
// i = 1..rounds the CPU stores flag = i; the kernel, spinning on it, reads
// %globaltimer, stores it and then ack = i. A round trip over PCIe is a
// few microseconds (a launch and a synchronize are tens), which bounds the
// error of the CPU's midpoint estimate. Gives up after one second without
// a flag (the CPU stopped).
extern "C" __global__ void
gpudp_ho_clock(uint64_t base, uint32_t rounds)
{
	uint32_t *flag = (uint32_t *)base + 4, *ack = (uint32_t *)base + 6;
	volatile uint64_t *tm = (volatile uint64_t *)base + 4;
	uint64_t t = globaltimer();
	uint32_t i;

	for (i = 1; i <= rounds; i++) {
		while (ld_acquire(flag) != i)
			if (globaltimer() - t > 1000000000ull)
				return;
		*tm = globaltimer();
		st_release(ack, i);
		t = globaltimer();
	}
}
