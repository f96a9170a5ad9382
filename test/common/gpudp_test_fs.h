/* SPDX-License-Identifier: BSD-3-Clause */
/* Test helpers for made-up file trees (fake sysfs and the like). */
#ifndef GPUDP_TEST_FS_H
#define GPUDP_TEST_FS_H

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/** mkdir -p @p path (mode 0755). @return 0 or a negative errno */
static inline int
gpudp_test_mkpath(const char *path)
{
	char tmp[4096], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

#endif /* GPUDP_TEST_FS_H */
