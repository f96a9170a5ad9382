// SPDX-License-Identifier: BSD-3-Clause
// Test-only kernel of test_gpu_rules.c: lib/rules' image run over a packet
// (gpudp_rules_img.h, the very inline code the CPU runs) in GPU threads,
// one packet a thread, its payload in GPU memory; per-rule counts.
#include <stdint.h>

#include "gpudp_rules_img.h"

extern "C" __global__ void
gpudp_rules_test_run(const struct gpudp_rules_img *img, const uint8_t *data,
		     const uint64_t *off, const uint32_t *len,
		     const struct gpudp_rule_pkt *pkt, uint32_t n, unsigned long long *hits,
		     unsigned long long *total)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
	struct gpudp_rules_out o = { (uint64_t *)hits, 0, 0, 0, 0, 0 };
	uint32_t k;

	if (i >= n)
		return;
	k = gpudp_rules_img_packet(img, &pkt[i], data + off[i], len[i], scratch, &o);
	if (k != 0)
		atomicAdd(total, (unsigned long long)k);
}
