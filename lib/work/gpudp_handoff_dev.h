/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Memory layout shared by the handoff's CPU side and the kernels (a work's
 * kernel shapes, gpudp_work_dev.h; lib/handoff/handoff.cu). Plain fixed-width
 * data; included by C11 code and by nvcc. Users include gpudp_handoff.h or
 * gpudp_work_dev.h, not this file.
 *
 * Each ring slot has a control block and per-packet arrays, all in host
 * memory that is registered with the GPU (mapped, so kernels read and
 * write it over PCIe). Sequence numbers make the flags ABA-free: the n-th
 * burst submitted into the ring (n from 1) carries seq = n, so slot s on
 * lap L carries seq = L * ring_size + s + 1 (mod 2^32).
 */
#ifndef GPUDP_HANDOFF_DEV_H
#define GPUDP_HANDOFF_DEV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Largest burst one GPU block works on alone (GPUDP_HO_BURST_MAX of
 * gpudp_handoff.h, for the kernels): every burst of the persistent mode,
 * and a launched burst that fits one block. Larger bursts (up to
 * GPUDP_HO_BATCH_MAX) are spread over several blocks.
 */
#define GPUDP_HO_BURST_MAX_DEV 4096

/**
 * Persistent mode's ready word of a slot (gpudp_ho_kargs.ready): seq |
 * (uint64_t)(n | timed) << 32, stored by the CPU after the burst is
 * described (and flushed); timed is this flag when the burst's kernel
 * timestamps (t_kstart, t_kend) are wanted.
 */
#define GPUDP_HO_READY_TIMED 0x80000000u

/** Most poller warps of a persistent kernel (gpudp_ho_kargs.pollers). */
#define GPUDP_HO_POLLERS_MAX_DEV 8

/**
 * Words between two pollers' copies of the ready words: the CPU writes each
 * burst's ready word once per poller, poller w reads copy w at
 * kargs.ready + w * GPUDP_HO_READY_STRIDE(ring_size) words. Copies on lines
 * of their own: reads of one line are served one after the other, so
 * pollers reading the same words would wait for each other's reads.
 */
#define GPUDP_HO_READY_STRIDE(ring_size) (((ring_size) + 15u) & ~15u)

/**
 * Persistent mode's state in device memory. Poller warps (block 0's first
 * kargs.pollers warps) read the ready words of the next bursts in host
 * memory (one PCIe read per slot, up to 32 slots per round trip), each its
 * own copy of them; the first to see a burst claims its slot and publishes it here.
 * Several pollers, each one read in flight at its own phase, see a burst
 * sooner after its ready word lands than one does: a burst waits for the
 * next read to start, about a round trip divided by the pollers. Worker
 * blocks take the next burst by ticket and wait on its slot's pub word in
 * GPU memory, not on host memory.
 */
struct gpudp_ho_pstate {
	uint32_t head;     /**< highest seq a poller published (a hint for the
			    *   others: where to read next) */
	uint32_t next;     /**< tickets taken by workers (ticket t serves seq t + 1) */
	uint32_t stop;     /**< a poller saw quit: pollers and workers return */
	uint32_t pad;
	uint64_t polls;    /**< reads of the ready words the pollers made (rounds,
			    *   summed when they return) */
	uint64_t pad2;
	struct {
		uint64_t ready;   /**< the ready word the poller read */
		uint64_t t_seen;  /**< %globaltimer when it saw it (timed bursts): the
				   *   burst's kernel start, as the rte_gpu_comm
				   *   kernel stamps when it sees READY */
		uint32_t claim;   /**< seq of the last burst a poller claimed here */
		uint32_t pub;     /**< seq of the last burst published here (release,
				   *   GPU scope, after ready and t_seen) */
		uint64_t pad;
	} slot[];
};

/**
 * One ring slot's control block: two 64-byte lines, so that what the CPU
 * writes (line 1) and what the work writes (line 2) never share a line: a
 * GPU write into a line the rx thread is writing, or a GPU poll of a line
 * the work wrote, would bounce it between the CPU's cache and PCIe.
 */
struct gpudp_ho_ctl {
	/* line 1: written by the rx thread, read by the work */
	uint32_t seq;      /**< this burst's seq (every mode) */
	uint32_t n;        /**< packets in the burst (0: empty slot, just complete it) */
	uint32_t pad0[14];
	/* line 2: written by the work (GPU or CPU), read by the tx thread */
	uint32_t done;     /**< seq, stored after every result is visible system-wide */
	uint32_t n_pass;   /**< packets whose verdict is PASS; when it equals n the
			    *   verdicts were not written (no drop: nothing to read).
			    *   The persistent kernel stores done and n_pass as one
			    *   8-byte release store */
	uint64_t t_kstart; /**< kernel start, GPU %globaltimer ns (CPU ns in cpu mode) */
	uint64_t t_kend;   /**< kernel end, just before done is stored (same clock) */
	uint64_t pad2[5];
};

/**
 * Kernel argument of a work's kernels (gpudp_work_dev.h: gpudp_work_burst,
 * gpudp_work_persistent) and of lib/handoff's own (handoff.cu), passed by
 * value. Pointers are device addresses; "mapped" arrays are host memory
 * registered with the GPU. Part of the work ABI (GPUDP_WORK_ABI).
 */
struct gpudp_ho_kargs {
	uint64_t ctl;       /**< mapped struct gpudp_ho_ctl[ring_size] */
	uint64_t addr;      /**< mapped uint64_t[ring_size][burst_max]: first segments */
	uint64_t len;       /**< mapped uint32_t[ring_size][burst_max]: their lengths */
	uint64_t verdict;   /**< mapped uint8_t[ring_size][burst_max]: verdicts */
	uint64_t result;    /**< mapped uint8_t[ring_size][burst_max][result_size] */
	uint64_t counters;  /**< mapped uint64_t[ring_size][GPUDP_WORK_COUNTERS_MAX] */
	uint64_t blocks;    /**< device uint32_t[2][ring_size]: finished blocks, drops */
	uint64_t dcounters; /**< device uint64_t[ring_size][GPUDP_WORK_COUNTERS_MAX]:
			     *   counter sums of a burst spread over several blocks */
	uint64_t quit;      /**< mapped uint32_t: persistent kernel exits when non-zero */
	uint64_t params;    /**< device: the work's parameter block */
	uint64_t xaddr;     /**< mapped uint64_t[ring_size][burst_max][segs - 1]:
			     *   further segments (0 when segs is 1) */
	uint64_t xlen;      /**< mapped uint32_t[...]: their lengths, 0 = none */
	uint64_t plen;      /**< staged: mapped uint32_t[ring_size][burst_max], the
			     *   frames' lengths (only the span was copied); else 0 */
	uint32_t ring_size;
	uint32_t burst_max;
	uint32_t slot;      /**< gpudp_work_burst: the slot to process */
	uint32_t signal;    /**< gpudp_work_burst: 1 = store done (0: staged with CPU
			     *   copies, a later gpudp_ho_signal on the stream does it) */
	uint32_t n;         /**< gpudp_work_burst: packets; 0 = read the slot's ctl n
			     *   (graphs, built once for every burst of a slot) */
	uint32_t segs;      /**< segments described per packet, 1..GPUDP_WORK_SEGS_MAX */
	uint32_t result_size; /**< bytes of result per packet */
	uint32_t n_reasons; /**< verdicts above it become GPUDP_WORK_DROP_ERROR */
	uint32_t n_counters;/**< the work's counters */
	uint32_t wspan;     /**< staged: bytes copied back per packet */
	uint32_t poll_ns;   /**< persistent: __nanosleep between polls of a ready word
			     *   that is not set yet (0: spin) */
	uint32_t pollers;   /**< persistent: poller warps, 1..GPUDP_HO_POLLERS_MAX_DEV */
	uint64_t pstate;    /**< persistent: struct gpudp_ho_pstate in device memory */
	uint64_t ready;     /**< persistent: uint64_t[pollers][GPUDP_HO_READY_STRIDE(ring_size)],
			     *   the ready words, a copy per poller
			     *   (GPUDP_HO_READY_TIMED), in write-combined host memory
			     *   with addr and len */
	uint64_t back;      /**< staged with GPU copies: uint64_t[ring_size][burst_max],
			     *   the packets the staging buffers were copied from; the
			     *   kernel copies each one's write span back (0 in other
			     *   modes) */
	uint64_t meta;      /**< mapped struct gpudp_work_meta[ring_size][burst_max], or 0
			     *   (no metadata: gpudp_work_pkt.meta is NULL) */
};

/**
 * Arguments of the staged mode's descriptor gather (gpudp_ho_gather_desc,
 * for gpudp_handoff_submit_desc()): it reads struct gpudp_pkt_desc[n] from
 * desc, copies each packet's span from data + off to stage + off in whole
 * 16-byte blocks, and writes the per-packet arrays the work reads (device
 * memory, [ring_size][burst_max] like the kernel arguments' own).
 */
struct gpudp_ho_gather_args {
	uint64_t data;        /**< the burst's data area (host memory the GPU reads) */
	uint64_t desc;        /**< its descriptors, 24 bytes each */
	uint64_t stage;       /**< the slot's staging area (device memory) */
	uint64_t addr;        /**< device uint64_t[][]: staged address of each packet */
	uint64_t len;         /**< device uint32_t[][]: bytes staged (0: not staged) */
	uint64_t plen;        /**< device uint32_t[][]: the frame's length */
	uint64_t meta;        /**< device struct gpudp_work_meta[][] */
	uint64_t xaddr;       /**< segs 2: device uint64_t[][], the rest of each
			       *   packet past its span, in data; else 0 */
	uint64_t xlen;        /**< segs 2: device uint32_t[][], its length (0: none) */
	uint32_t data_len;    /**< bytes of data (a multiple of 16) */
	uint32_t n;           /**< packets */
	uint32_t span;        /**< the work's span (0: whole frames) */
	uint32_t stage_bytes; /**< longest packet staged (after the span) */
};

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_HANDOFF_DEV_H */
