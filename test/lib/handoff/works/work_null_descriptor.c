/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST: a shared object whose entry point returns no descriptor (NULL):
 * the loader refuses it with ENOEXEC.
 */
#include <stddef.h>

#include <gpudp_work.h>

__attribute__((visibility("default"))) const struct gpudp_work *gpudp_work_entry(void);
__attribute__((visibility("default"))) const struct gpudp_work *
gpudp_work_entry(void)
{
	return NULL;
}
