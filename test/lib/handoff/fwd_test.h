/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark-only: the kernel argument of gpudp_fwd_comm_persistent
 * (test/lib/handoff/fwd_test.cu), shared with test_gpu_fwd.c.
 */
#ifndef GPUDP_FWD_TEST_H
#define GPUDP_FWD_TEST_H

#include <stdint.h>

/**
 * Argument of gpudp_fwd_comm_persistent, a resident block
 * serving DPDK's rte_gpu_comm_list protocol (the l2fwd-nv mechanism) with
 * the same macswap work, so the handoff's latency can be compared with it
 * on the same GPU. Offsets are offsetof() values of struct
 * rte_gpu_comm_list and struct rte_gpu_comm_pkt (the kernel does not
 * include DPDK headers).
 */
struct gpudp_fwd_comm_args {
	uint64_t list;        /**< struct rte_gpu_comm_list[n_items] (GPU-visible) */
	uint64_t tstamp;      /**< uint64_t[n_items]: %globaltimer at item start */
	uint64_t quit;        /**< uint32_t: exit when non-zero */
	uint32_t n_items;
	uint32_t item_size;   /**< sizeof(struct rte_gpu_comm_list) */
	uint32_t off_pkts;    /**< offsetof(..., pkt_list) */
	uint32_t off_num;     /**< offsetof(..., num_pkts) */
	uint32_t off_status_d;/**< offsetof(..., status_d) */
	uint32_t pkt_size;    /**< sizeof(struct rte_gpu_comm_pkt): {addr, size} */
};

#endif /* GPUDP_FWD_TEST_H */
