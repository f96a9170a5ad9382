// SPDX-License-Identifier: BSD-3-Clause
// Probe kernel: proves that the embedded fatbin loads and runs on this GPU.
// Each thread writes a value that depends on its global index and the seed,
// so a wrong launch shape or a stale buffer shows up as a mismatch.
#include <stdint.h>

extern "C" __global__ void gpudp_probe_fill(uint32_t *out, uint32_t n, uint32_t seed)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = (i * 2654435761u) ^ seed;
}
