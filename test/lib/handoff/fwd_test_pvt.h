/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to test_gpu_fwd (lib/handoff's modes, kernels and ordering):
 * test_gpu_fwd.c (main, options, packets, a burst runner, the CPU cases),
 * fwd_gpu_cases.c (kernels, GPU modes, ordering, segments),
 * fwd_staged_cases.c (net_pcap payloads through staged mode, the clock
 * model), fwd_bench.c (--bench). The GPU files build with CUDA only.
 */
#ifndef FWD_TEST_PVT_H
#define FWD_TEST_PVT_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include <gpudp_handoff.h>
#include <gpudp_test.h>

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#include <gpudp_gpu.h>
#include <gpudp_mem.h>
#include <gpudp_handoff_dev.h>

#include "fwd_test.h"
#endif

#define STRIDE 2048u
#define MAXPKT 1600u

extern const char *pcap_path;
extern const char *user_work_path;  /* --user-work: the TEST work "probe" */
extern const char *seg_work_path;   /* --seg-work: the TEST work "segsum" */
extern const char *span_work_path;  /* --span-work: the TEST work "span" */
extern const char *state_work_path; /* --state-work: the TEST work "state" */
extern const char *frame_work_path; /* --frame-work: the TEST work "frame" (--bench) */
extern int have_gpu;

/* the built-in works, by enum gpudp_fwd_kernel */
extern const char *const kname[GPUDP_FWD_K_MAX];

struct run {
	enum gpudp_ho_mode mode;
	enum gpudp_fwd_kernel kernel;
	uint32_t burst, ring;
	int gpu_copy;       /* staged: the GPU copies (packets GPU-addressable) */
	uint64_t cu_ctx;
	uint8_t *verdict;   /* per packet */
	uint32_t *aux;
	uint64_t vcount[GPUDP_WORK_VERDICT_MAX];
	uint64_t processed;
};

struct lat;

int verify_swapped(uint8_t *const *view, uint32_t n, const uint8_t (*before)[12]);

#ifdef GPUDP_HAS_CUDA
#define CU_OK(call) do { CUresult r_ = (call); GPUDP_TEST_ASSERT(r_ == CUDA_SUCCESS, \
	"%s: %s", #call, gpudp_cuda_errstr(r_)); } while (0)

extern CUcontext ctx;
extern const enum gpudp_ho_mode gpu_modes[];
#endif

void put16(uint8_t *p, uint32_t v);
void ip_csum_set(uint8_t *h, uint32_t ihl);
uint32_t gen_packet(uint8_t *p, uint32_t i, uint32_t seed);
const char *vname(uint32_t v);
int run_packets(struct run *r, uint8_t *const *data, const uint32_t *len, uint32_t n);
int ttl_incremental_checksum_equals_full_recompute(void);
int ipv4_kernel_gives_each_drop_reason(void);
int check_macswap_once(enum gpudp_ho_mode mode, int gpu_copy, uint64_t cu_ctx,
		   uint8_t *const *data, uint8_t *const *view, uint32_t n, uint32_t burst);
int cpu_modes_process_every_packet_of_any_burst(void);
int full_ring_refuses_then_recovers(void);
int clock_share_refused_without_gpu_modes(void);
int histogram_quantiles_within_a_bucket(void);
int bench(const char *json);

#ifdef GPUDP_HAS_CUDA
int ordering_run(enum gpudp_ho_mode mode, int wrong, uint32_t bursts, uint64_t *stale,
	     int force_flush, const struct gpudp_work *w);
int bench_mode(enum gpudp_ho_mode mode, uint8_t *const *pk, uint32_t np, uint32_t iters,
	   uint32_t pollers, uint32_t poll_ns, struct lat *out);
int bench_comm(uint8_t *const *pk, uint32_t np, uint32_t iters, struct lat *out,
	   struct rte_mbuf **mb);
int gpu_up(void);
CUdeviceptr dev_alloc(size_t len);
int kernels_gpu_match_cpu_byte_for_byte(void);
int gpu_modes_process_every_packet(int pinned);
int gpu_modes_device_memory_every_burst_size(void);
int gpu_modes_pinned_memory_every_burst_size(void);
int ordering_every_mode(const struct gpudp_work *w, uint32_t n);
int ordering_wrong_every_mode(const struct gpudp_work *w, uint32_t n);
int ordering_dependent_kernel_never_reads_stale(void);
int ordering_wrong_variant_is_caught(void);
int ordering_user_work_never_reads_stale(void);
int staged_desc_bursts_give_what_added_packets_give(void);
int ordering_two_gpus_at_once(void);
int split_segments_in_every_gpu_mode(void);
int work_state_in_every_gpu_mode(void);
int persistent_blocks_must_all_be_resident(void);
int eal_up(void);
int staged_path_on_pcap_payloads_matches_cpu(void);
int clock_model_shared_between_handoffs(void);
void json_lat(FILE *f, const char *name, const struct lat *l, const char *sep);
double staged_bw_run(uint8_t *pkts, int gpu_copy, uint32_t np, const struct gpudp_work *w);
int bench_staged_bw(FILE *f, const struct gpudp_work *w);
#endif

#endif /* FWD_TEST_PVT_H */
