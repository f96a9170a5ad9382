/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-work-check's command line: the work, the capture, the modes and
 * the kinds of packet memory to check, the burst and the GPU.
 */
#ifndef WORK_CHECK_OPTIONS_H
#define WORK_CHECK_OPTIONS_H

#include <stdint.h>

#define PROG "gpudp-work-check"
#define EXIT_USAGE 2

enum mem_kind { MEM_HOST, MEM_PINNED, MEM_DEVICE, MEM_MAX };
extern const char *const mem_names[MEM_MAX];

struct opts {
	const char *work_spec, *work_arg, *pcap;
	uint32_t modes;     /* bit per enum gpudp_ho_mode */
	uint32_t mems;      /* bit per enum mem_kind */
	uint32_t burst;
	uint32_t gpu;
	uint64_t max_pkts;
	int quiet;
};

/**
 * Parse the command line into @p o (defaults first).
 * @return 0, 1 (--help printed: exit 0) or -1 (said why on stderr: exit 2)
 */
int work_check_parse(struct opts *o, int argc, char **argv);

#endif
