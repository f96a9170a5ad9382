/* SPDX-License-Identifier: BSD-3-Clause */
/* The start and the end of a gpudp app: see gpudp_app.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "gpudp_app.h"
#include "gpudp_app_gpu.h"
#include "gpudp_eal_diag.h"

int
gpudp_app_eal_init(const char *prog, int argc, char **argv)
{
	char why[512];

	/*
	 * CUDA loads every kernel of a module when the module is loaded, not
	 * at its first launch (CUDA's lazy loading): the first bursts and
	 * batches do not wait for it, on any thread (gpudp-capture's direct
	 * reader threads each waited for it). Set before EAL, whose
	 * gpu_cuda driver may initialise CUDA; an environment that sets
	 * CUDA_MODULE_LOADING keeps its value.
	 */
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);
	if (rte_eal_init(argc, argv) >= 0)
		return 0;
	fprintf(stderr, "%s: EAL initialisation failed: %s\n", prog,
		gpudp_eal_why(rte_errno, rte_eal_get_runtime_dir(), "", why, sizeof(why)));
	return GPUDP_EXIT_FAILURE;
}

void
gpudp_app_eal_cleanup(void)
{
	rte_eal_cleanup();
}

static volatile sig_atomic_t *stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	if (stop_flag != NULL)
		*stop_flag = 1;
}

void
gpudp_app_signals(volatile sig_atomic_t *stop)
{
	struct sigaction sa;

	stop_flag = stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
