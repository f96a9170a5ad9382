/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The start and the end of a gpudp app, the same in every app:
 *
 *   app [EAL options] -- [app options]
 *
 * The app options are parsed first, without EAL, so that `--help` and bad
 * values answer at once (exit 0 and 2, see enum gpudp_app_exit); then EAL
 * starts with the arguments before `--`. SIGINT and SIGTERM ask the run to
 * stop: the app drains, prints its final counters and exits 0; a second
 * signal ends the process at once (the default action), for a drain that
 * does not end.
 */
#ifndef GPUDP_APP_H
#define GPUDP_APP_H

#include <signal.h>
#include <stdio.h>

/** The command line split around the first `--`. */
struct gpudp_app_args {
	int eal_argc;      /**< the arguments before `--`, program name included */
	char **eal_argv;   /**< the caller's argv (not a copy) */
	int app_argc;      /**< the program name and the arguments after `--` */
	char **app_argv;   /**< a new array (NULL-terminated) of the caller's strings */
};

/**
 * Whether the app's usage should be printed: `--help` anywhere, or `-h`
 * after `--` (before it, `-h` is EAL's own help).
 * @return 1 or 0
 */
int gpudp_app_help_requested(int argc, char **argv);

/**
 * Split @p argv at the first `--`. The app's array is new (getopt may
 * reorder it without touching @p argv); its strings are @p argv's.
 * @return 0, or -ENOMEM
 */
int gpudp_app_args_split(int argc, char **argv, struct gpudp_app_args *a);

/** Free what gpudp_app_args_split() allocated. */
void gpudp_app_args_free(struct gpudp_app_args *a);

/**
 * rte_eal_init() on @p argc / @p argv; on failure one line on stderr,
 * "PROG: EAL initialisation failed: WHY", with the likely cause (another
 * primary process, no hugepages, no permission...).
 * @return 0, or GPUDP_EXIT_FAILURE
 */
int gpudp_app_eal_init(const char *prog, int argc, char **argv);

/** rte_eal_cleanup(), after every port, pool and GPU resource is released. */
void gpudp_app_eal_cleanup(void);

/**
 * SIGINT and SIGTERM set *@p stop to 1 (the app polls it); the handler
 * then goes back to the default action, so a second signal ends the
 * process. Calling it again replaces the flag.
 */
void gpudp_app_signals(volatile sig_atomic_t *stop);

#endif /* GPUDP_APP_H */
