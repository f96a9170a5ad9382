/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture-e2e: gpudp-capture (its library, gpudp_capture_main()) with
 * the TEST-ONLY gpudev driver gpu_e2e_sim (gpu_e2e_sim.c) linked in, whose
 * GPU memory is the NV-P2P simulator's. The driver registers itself at
 * load; nothing here differs from the installed binary otherwise.
 */
#include <gpudp_capture.h>

int
main(int argc, char **argv)
{
	return gpudp_capture_main(argc, argv);
}
