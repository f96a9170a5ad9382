/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line around "--" (gpudp_app.h): no DPDK, it runs before EAL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_app.h"

int
gpudp_app_help_requested(int argc, char **argv)
{
	int i, after = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0 && !after)
			after = 1;
		else if (strcmp(argv[i], "--help") == 0 || (after && strcmp(argv[i], "-h") == 0))
			return 1;
	}
	return 0;
}

int
gpudp_app_args_split(int argc, char **argv, struct gpudp_app_args *a)
{
	int sep, i;

	for (sep = 1; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	a->eal_argc = sep;
	a->eal_argv = argv;
	a->app_argc = sep < argc ? argc - sep : 1;
	a->app_argv = calloc((size_t)a->app_argc + 1, sizeof(char *));
	if (a->app_argv == NULL)
		return -ENOMEM;
	a->app_argv[0] = argv[0];
	for (i = 1; i < a->app_argc; i++)
		a->app_argv[i] = argv[sep + i];
	return 0;
}

void
gpudp_app_args_free(struct gpudp_app_args *a)
{
	free(a->app_argv);
	a->app_argv = NULL;
	a->app_argc = 0;
}
