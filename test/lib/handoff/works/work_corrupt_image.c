/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST: a work whose GPU image is garbage (neither a fatbin, a cubin nor
 * PTX): the loader refuses it with ENOEXEC.
 */
#include <gpudp_work.h>

GPUDP_WORK_FN uint32_t
pass_pkt(struct gpudp_work_pkt *p)
{
	(void)p;
	return GPUDP_WORK_PASS;
}

GPUDP_WORK_CPU(pass_cpu, pass_pkt)

static const unsigned char garbage[64] = {
	0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
};

static const struct gpudp_work corrupt = {
	.abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work),
	.name = "unit_corrupt_image", .cpu = pass_cpu,
	.gpu_image = garbage, .gpu_image_size = sizeof(garbage),
};

GPUDP_WORK_EXPORT(corrupt)
