/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the hand-made GPU placement, --gpu-map PORT:GPU,...
 * (gpudp_mem_gpu_map_parse(), lib/mem/gpudp_mem_place.c). The input, cut
 * at its first NUL, is one map, parsed against several counts of ports and
 * GPUs (1 and 1, a few, thousands, a GPU count of INT_MAX, and the counts
 * it must refuse: 0 ports, 0 GPUs, more than INT_MAX GPUs). Each answer is
 * compared with an oracle written here: entries split at ',', each a
 * decimal PORT and GPU (no sign, no space, any leading zeros) around the
 * first ':', below the counts, no port twice. An accepted map is the
 * oracle's, -1 for a port not named, and comes with no message; a refused
 * one is -EINVAL, leaves the caller's map untouched and says why, cut
 * inside a short message buffer; a NULL buffer is allowed.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_oracle.h"
#include "gpudp_mem.h"
#include "gpudp_mem_pvt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lib/mem's sysfs helpers, which gpudp_mem_place.c's placement (not the
 * parser) calls: the parser must read no file */
const char *
gpudp_mem_sysfs(void)
{
	abort();
}

int
gpudp_mem_read_line(const char *path, char *buf, size_t len)
{
	(void)path, (void)buf, (void)len;
	abort();
}

int
gpudp_mem_pci_path(const char *pci, char *out)
{
	(void)pci, (void)out;
	abort();
}

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_gpu_map: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

#define MAX_PORTS 1024u

/* the oracle: 0 and @p map, or -EINVAL */
static int
oracle(const char *s, unsigned int n_ports, unsigned int n_gpus, int *map)
{
	unsigned long long port, gpu;
	const char *e = s, *colon;
	unsigned int i;
	size_t n;

	if (n_ports == 0 || n_gpus == 0 || n_gpus > INT_MAX || s[0] == '\0')
		return -EINVAL;
	for (i = 0; i < n_ports; i++)
		map[i] = -1;
	for (;;) {
		n = strcspn(e, ",");
		colon = memchr(e, ':', n);
		if (colon == NULL || fuzz_decimal(e, (size_t)(colon - e), &port) != 0 ||
		    fuzz_decimal(colon + 1, n - (size_t)(colon + 1 - e), &gpu) != 0 ||
		    port >= n_ports || gpu >= n_gpus || map[port] >= 0)
			return -EINVAL;
		map[port] = (int)gpu;
		if (e[n] == '\0')
			return 0;
		e += n + 1;
	}
}

static void
check_one(const char *s, unsigned int n_ports, unsigned int n_gpus)
{
	static int want[MAX_PORTS], got[MAX_PORTS + 1];
	char err[512], small[16];
	unsigned int i, n = n_ports < MAX_PORTS ? n_ports : MAX_PORTS;
	int w = oracle(s, n_ports, n_gpus, want);
	int r;

	memset(got, 0x5a, sizeof(got));
	memset(err, 'x', sizeof(err));
	r = gpudp_mem_gpu_map_parse(s, n_ports, n_gpus, got, err, sizeof(err));
	CHECK(r == w, "'%s' (%u ports, %u GPUs): %d, oracle %d (%s)", s, n_ports, n_gpus,
	      r, w, err);
	CHECK(got[n] == 0x5a5a5a5a, "'%s': written past the map", s);
	if (r == 0) {
		CHECK(err[0] == '\0', "'%s': a message on success: %s", s, err);
		for (i = 0; i < n; i++)
			CHECK(got[i] == want[i], "'%s' (%u ports, %u GPUs): port %u on %d, oracle %d",
			      s, n_ports, n_gpus, i, got[i], want[i]);
	} else {
		CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL,
		      "'%s' (%u ports, %u GPUs): no message", s, n_ports, n_gpus);
		for (i = 0; i < n; i++)
			CHECK(got[i] == 0x5a5a5a5a, "'%s': map written on -EINVAL", s);
	}
	memset(small, 'x', sizeof(small));
	r = gpudp_mem_gpu_map_parse(s, n_ports, n_gpus, got, small, 8);
	CHECK(r == w && memchr(small, '\0', 8) != NULL && small[8] == 'x' && small[15] == 'x',
	      "'%s': 8-byte message buffer", s);
	CHECK(gpudp_mem_gpu_map_parse(s, n_ports, n_gpus, got, NULL, 0) == w,
	      "'%s': NULL message buffer", s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int counts[][2] = {
		{ 1, 1 }, { 4, 2 }, { 64, 8 }, { MAX_PORTS, 1000 }, { 2, INT_MAX },
		{ 0, 1 }, { 1, 0 }, { 1, (unsigned int)INT_MAX + 1 }, { 1, UINT_MAX },
	};
	char *s = malloc(size + 1);
	int map[1];
	size_t i;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		check_one(s, counts[i][0], counts[i][1]);
	CHECK(gpudp_mem_gpu_map_parse(s, 1, 1, NULL, NULL, 0) == -EINVAL, "NULL map");
	CHECK(gpudp_mem_gpu_map_parse(NULL, 1, 1, map, NULL, 0) == -EINVAL, "NULL string");
	free(s);
	return 0;
}
