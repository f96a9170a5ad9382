/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e2e-simctl: guest helper for the e2e suite, driving the TEST-ONLY NV-P2P
 * simulator's control device (/dev/nvidia_p2p_sim) from the guest's /init.
 *
 *   e2e-simctl hold BYTES FILE   fake cudaMalloc; write the GPU VA to FILE,
 *                                then hold the memory until SIGTERM/SIGINT
 *                                (closing the device frees it)
 *   e2e-simctl free VA           fake cudaFree of the allocation at VA
 *   e2e-simctl expect K=V ...    print the counters; exit 1 unless each
 *                                counter K equals V
 *
 * Counters: tables_live dmas_live allocs_live get_pages put_pages
 * callbacks violations dma_maps exports_live dmabuf_maps_live dmabuf_maps
 * move_notifies. Built static: the guest has no libc.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_sim.h"

static volatile sig_atomic_t stop;

static void
on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno != 0 || end == s || *end != '\0' ? -1 : 0;
}

static int
cmd_hold(int fd, const char *bytes, const char *file)
{
	struct sigaction sa;
	uint64_t size, va;
	FILE *f;
	int ret;

	if (parse_u64(bytes, &size) < 0) {
		fprintf(stderr, "e2e-simctl: bad size '%s'\n", bytes);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ret = e2e_sim_alloc(fd, size, &va);
	if (ret < 0) {
		fprintf(stderr, "e2e-simctl: alloc %" PRIu64 ": %s\n", size,
			strerror(-ret));
		return 1;
	}
	f = fopen(file, "w");
	if (f == NULL || fprintf(f, "0x%" PRIx64 "\n", va) < 0 || fclose(f) != 0) {
		fprintf(stderr, "e2e-simctl: cannot write %s\n", file);
		return 1;
	}
	printf("E2E-SIM: holding %" PRIu64 " bytes of simulated GPU memory at 0x%" PRIx64 "\n",
	       size, va);
	fflush(stdout);
	while (!stop)
		pause();
	return 0;	/* close() in main frees it */
}

static int
cmd_free(int fd, const char *s)
{
	uint64_t va;
	int ret;

	if (parse_u64(s, &va) < 0) {
		fprintf(stderr, "e2e-simctl: bad VA '%s'\n", s);
		return 2;
	}
	ret = e2e_sim_free(fd, va);
	printf("E2E-SIM: free 0x%" PRIx64 ": %s\n", va, ret < 0 ? strerror(-ret) : "ok");
	return ret < 0 ? 1 : 0;
}

static int
cmd_expect(int fd, int argc, char **argv)
{
	struct nvp2p_sim_stats s;
	const struct {
		const char *name;
		const __u64 *v;
	} ctr[] = {
		{ "tables_live", &s.tables_live },
		{ "dmas_live", &s.dmas_live },
		{ "allocs_live", &s.allocs_live },
		{ "get_pages", &s.get_pages },
		{ "put_pages", &s.put_pages },
		{ "callbacks", &s.callbacks },
		{ "violations", &s.violations },
		{ "dma_maps", &s.dma_maps },
		{ "exports_live", &s.exports_live },
		{ "dmabuf_maps_live", &s.dmabuf_maps_live },
		{ "dmabuf_maps", &s.dmabuf_maps },
		{ "move_notifies", &s.move_notifies },
	};
	const size_t n = sizeof(ctr) / sizeof(ctr[0]);
	size_t i;
	int a, rc = 0, ret;

	ret = e2e_sim_stats(fd, &s);
	if (ret < 0) {
		fprintf(stderr, "e2e-simctl: stats: %s\n", strerror(-ret));
		return 1;
	}
	printf("E2E-SIM: counters");
	for (i = 0; i < n; i++)
		printf(" %s=%" PRIu64, ctr[i].name, (uint64_t)*ctr[i].v);
	printf("\n");
	for (a = 0; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		uint64_t want;

		for (i = 0; eq != NULL && i < n; i++)
			if (strlen(ctr[i].name) == (size_t)(eq - argv[a]) &&
			    strncmp(ctr[i].name, argv[a], (size_t)(eq - argv[a])) == 0)
				break;
		if (eq == NULL || i == n || parse_u64(eq + 1, &want) < 0) {
			fprintf(stderr, "e2e-simctl: bad expectation '%s'\n", argv[a]);
			return 2;
		}
		if (*ctr[i].v != want) {
			printf("E2E-SIM: FAIL %s is %" PRIu64 ", want %" PRIu64 "\n",
			       ctr[i].name, (uint64_t)*ctr[i].v, want);
			rc = 1;
		}
	}
	return rc;
}

int
main(int argc, char **argv)
{
	int fd, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: e2e-simctl hold BYTES FILE | free VA | expect K=V...\n");
		return 2;
	}
	fd = e2e_sim_open();
	if (fd < 0) {
		fprintf(stderr, "e2e-simctl: open %s: %s\n", NVP2P_SIM_DEVICE_PATH,
			strerror(-fd));
		return 1;
	}
	if (strcmp(argv[1], "hold") == 0 && argc == 4)
		rc = cmd_hold(fd, argv[2], argv[3]);
	else if (strcmp(argv[1], "free") == 0 && argc == 3)
		rc = cmd_free(fd, argv[2]);
	else if (strcmp(argv[1], "expect") == 0)
		rc = cmd_expect(fd, argc - 2, argv + 2);
	else {
		fprintf(stderr, "e2e-simctl: bad command line\n");
		rc = 2;
	}
	close(fd);
	return rc;
}
