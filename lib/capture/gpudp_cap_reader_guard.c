/* SPDX-License-Identifier: BSD-3-Clause */
/* The threaded reader: reads of a mapped capture file that fault (gpudp_cap_reader_pvt.h). */
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "gpudp_cap_reader_pvt.h"

/*
 * A file that shrinks while it is read: the pages of its mapping past its
 * new end fault (SIGBUS). While a thread reads through
 * gpudp_cap_rd_bus_guarded(), such a fault returns there instead, and the
 * thread reads no more (the file changed: gpudp_cap_reader_stats.changed).
 * gpudp_cap_reader_run() installs the handler for its run; any other
 * SIGBUS goes to the handler there was before.
 */
static _Thread_local sigjmp_buf *bus_jmp;
static struct sigaction bus_prev;

static void
bus_handler(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *j = bus_jmp;

	(void)uc;
	if (j != NULL) {
		bus_jmp = NULL;
		siglongjmp(*j, 1);
	}
	/* not a read of a capture file: the previous handler takes it, on the
	 * fault again (or now, for a signal sent) */
	sigaction(SIGBUS, &bus_prev, NULL);
	if (si == NULL || si->si_code <= 0)
		raise(sig);
}

void
gpudp_cap_rd_bus_install(int on)
{
	struct sigaction sa;

	if (!on) {
		sigaction(SIGBUS, &bus_prev, NULL);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = bus_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &bus_prev);
}

int
gpudp_cap_rd_bus_guarded(int (*fn)(void *), void *arg, int *rc)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 1) != 0)
		return 1;
	bus_jmp = &jb;
	*rc = fn(arg);
	bus_jmp = NULL;
	return 0;
}

int
gpudp_cap_reader_guarded(int (*fn)(void *), void *arg, int *rc)
{
	int faulted;

	gpudp_cap_rd_bus_install(1);
	faulted = gpudp_cap_rd_bus_guarded(fn, arg, rc);
	gpudp_cap_rd_bus_install(0);
	return faulted;
}
