// SPDX-License-Identifier: BSD-3-Clause
// Test-only kernel of test/lib/match/test_gpu_match.c: lib/match's scan
// (gpudp_match.h, the very inline code the CPU runs) in GPU threads, one
// buffer a thread, over a database in GPU memory.
#include <stdint.h>

#include "gpudp_match.h"

extern "C" __global__ void
gpudp_match_test_scan(const struct gpudp_match_db *db, const uint8_t *data,
		      const uint64_t *off, const uint32_t *len, uint32_t n,
		      unsigned long long *occ, unsigned long long *pkts)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		gpudp_match_scan(db, data + off[i], len[i], (uint64_t *)occ, (uint64_t *)pkts);
}
