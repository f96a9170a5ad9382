/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The apps' --work option: a registered work's name, or the path of a
 * work's shared object (doc/work.md), and its --work-arg.
 */
#ifndef GPUDP_APP_WORK_H
#define GPUDP_APP_WORK_H

#include <gpudp_work.h>

/**
 * Resolve --work @p spec: a path (it has a '/') is loaded with
 * gpudp_work_load(), anything else is looked up among the registered
 * works. Then its argument @p arg is parsed once (the work's init), and a
 * work without a GPU image is refused when @p gpu is set. Each failure is
 * printed as "PROG: --work...: why".
 * @return the work, or NULL (a usage error: exit 2)
 */
const struct gpudp_work *gpudp_app_work(const char *prog, const char *spec, const char *arg,
					int gpu);

#endif /* GPUDP_APP_WORK_H */
