// SPDX-License-Identifier: BSD-3-Clause
// gpudp-capture's analysis kernels: one thread per packet of a batch,
// running the very per-packet code of the CPU path (gpudp_analysis_pkt.h).
// Global counters are first summed in shared memory per block, then added
// to the accumulated counters in device memory with one atomic per non-zero
// field; flow and fragment slots are updated with atomics directly; filter
// matches set bits of the batch's match bitmap.
//
// gpudp_capture_analyse reads a staged batch (descriptor offsets into the
// batch data area); gpudp_capture_analyse_ref reads each packet where the
// NIC put it (descriptor addresses: device memory, or registered host
// memory through unified addressing).
#include <stdint.h>

#include "gpudp_analysis_pkt.h"

#define GPUDP_AN_NCTR (sizeof(struct gpudp_an_counters) / sizeof(uint64_t))

template <bool REF>
static __device__ __forceinline__ void
analyse(const struct gpudp_an_kernel_args &a)
{
	__shared__ unsigned long long blk[GPUDP_AN_NCTR];
	struct gpudp_an_sink sk;
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, k;

	for (k = threadIdx.x; k < GPUDP_AN_NCTR; k += blockDim.x)
		blk[k] = 0;
	__syncthreads();

	sk.ctr = (struct gpudp_an_counters *)blk;
	sk.flows = (struct gpudp_flow_slot *)a.flows;
	sk.flow_mask = a.flow_mask;
	sk.pad = 0;
	sk.filter = (const struct gpudp_filter *)a.filter;
	sk.frags = (struct gpudp_frag_slot *)a.frags;
	sk.frag_mask = a.frag_mask;
	sk.pad2 = 0;
	if (i < a.n) {
		const uint8_t *p;
		uint32_t caplen, wirelen;
		uint64_t ts;

		if (REF) {
			const struct gpudp_an_pkt_ref *d = (const struct gpudp_an_pkt_ref *)a.desc + i;

			p = (const uint8_t *)d->addr;
			caplen = d->caplen;
			wirelen = d->wirelen;
			ts = d->ts_ns;
		} else {
			const struct gpudp_an_pkt_desc *d = (const struct gpudp_an_pkt_desc *)a.desc + i;

			p = (const uint8_t *)a.data + d->off;
			caplen = d->caplen;
			wirelen = d->wirelen;
			ts = d->ts_ns;
		}
		if (gpudp_an_account(&sk, p, caplen, wirelen, ts))
			atomicOr((unsigned int *)a.match + i / 32, 1u << (i % 32));
	}
	__syncthreads();

	for (k = threadIdx.x; k < GPUDP_AN_NCTR; k += blockDim.x)
		if (blk[k] != 0)
			atomicAdd((unsigned long long *)a.ctr + k, blk[k]);
}

extern "C" __global__ void
gpudp_capture_analyse(struct gpudp_an_kernel_args a)
{
	analyse<false>(a);
}

extern "C" __global__ void
gpudp_capture_analyse_ref(struct gpudp_an_kernel_args a)
{
	analyse<true>(a);
}
