// SPDX-License-Identifier: BSD-3-Clause
// Test-only kernels of the handoff's ordering test (test/gpu/test_gpu_fwd.c).
#include <stdint.h>

// Spin for ns nanoseconds: holds back the "independent writer" copy queued
// behind it on the same stream, so a kernel handed off too early runs first.
extern "C" __global__ void
gpudp_fwd_test_delay(uint64_t ns)
{
	uint64_t t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}
