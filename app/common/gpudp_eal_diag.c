/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudp_eal_diag.h"

#define MAX_SIZES 8

/* hugepage sizes (kB) with their reserved count, from sysfs */
struct hp_sizes {
	unsigned long kb[MAX_SIZES];
	unsigned long nr[MAX_SIZES];
	unsigned int n;
};

/* pid of the process holding a lock on @p path, 0 if none (or no file) */
static long
lock_holder(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) != 0)
		fl.l_type = F_UNLCK;
	close(fd);
	return fl.l_type == F_UNLCK ? 0 : (fl.l_pid > 0 ? fl.l_pid : -1);
}

static void
hp_sizes_read(const char *root, struct hp_sizes *hs)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	hs->n = 0;
	snprintf(path, sizeof(path), "%s/sys/kernel/mm/hugepages", root);
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && hs->n < MAX_SIZES) {
		unsigned long kb, nr = 0;
		FILE *f;

		if (sscanf(de->d_name, "hugepages-%lukB", &kb) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/sys/kernel/mm/hugepages/%s/nr_hugepages", root,
			 de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &nr) != 1)
			nr = 0;
		fclose(f);
		hs->kb[hs->n] = kb;
		hs->nr[hs->n++] = nr;
	}
	closedir(d);
}

/* the default hugepage size (kB) from meminfo, 0 if unknown */
static unsigned long
default_hp_kb(const char *root)
{
	unsigned long kb = 0;
	char path[4096], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* the page size (kB) of a hugetlbfs mount's options ("rw,pagesize=2M") */
static unsigned long
mount_kb(const char *opts, unsigned long dflt)
{
	const char *p = strstr(opts, "pagesize=");
	unsigned long v;
	char *e;

	if (p == NULL)
		return dflt;
	v = strtoul(p + 9, &e, 10);
	switch (*e) {
	case 'G': return v << 20;
	case 'M': return v << 10;
	case 'K': return v;
	default: return v >> 10;
	}
}

/* 1 if a hugetlbfs of @p kb pages is mounted */
static int
mounted(const char *root, unsigned long kb, unsigned long dflt)
{
	char path[4096], line[1024], dev[256], dir[1024], type[64], opts[512];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/mounts", root);
	f = fopen(path, "r");
	if (f == NULL)
		return 1; /* unknown: do not blame the mounts */
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%255s %1023s %63s %511s", dev, dir, type, opts) == 4 &&
		    strcmp(type, "hugetlbfs") == 0 && mount_kb(opts, dflt) == kb)
			found = 1;
	fclose(f);
	return found;
}

/* hugepage set-up problems; 0 if none was found */
static int
hugepage_why(const char *root, char *buf, size_t len)
{
	unsigned long dflt = default_hp_kb(root), total = 0;
	struct hp_sizes hs;
	unsigned int i;

	hp_sizes_read(root, &hs);
	for (i = 0; i < hs.n; i++)
		total += hs.nr[i];
	if (hs.n > 0 && total == 0) {
		snprintf(buf, len, "no hugepages are reserved: reserve some (echo 1024 > "
			 "/sys/kernel/mm/hugepages/hugepages-%lukB/nr_hugepages) or run "
			 "with --no-huge", dflt ? dflt : 2048);
		return 1;
	}
	for (i = 0; i < hs.n; i++) {
		if (hs.nr[i] == 0 || mounted(root, hs.kb[i], dflt))
			continue;
		snprintf(buf, len, "%lu hugepages of %lu kB are reserved but no hugetlbfs is "
			 "mounted for that size: mount one (mount -t hugetlbfs -o pagesize=%luK "
			 "nodev /dev/hugepages) or run with --no-huge", hs.nr[i], hs.kb[i],
			 hs.kb[i]);
		return 1;
	}
	if (geteuid() != 0) {
		snprintf(buf, len, "hugepages need root (or write access to the hugetlbfs "
			 "mount): run as root, or with --no-huge");
		return 1;
	}
	return 0;
}

const char *
gpudp_eal_why(int eal_errno, const char *runtime_dir, const char *root, char *buf, size_t len)
{
	char path[4096];
	long pid;

	if (len == 0)
		return buf;
	if (runtime_dir != NULL && runtime_dir[0] != '\0') {
		snprintf(path, sizeof(path), "%s/config", runtime_dir);
		pid = lock_holder(path);
		if (pid != 0) {
			snprintf(buf, len, "another DPDK primary process (pid %ld) holds %s: give "
				 "each run its own --file-prefix NAME, or run with --in-memory",
				 pid, path);
			return buf;
		}
	}
	if ((eal_errno == EACCES || eal_errno == ENOMEM) && hugepage_why(root, buf, len))
		return buf;
	if (eal_errno != 0)
		snprintf(buf, len, "%s (the EAL messages above say more)", strerror(eal_errno));
	else
		snprintf(buf, len, "see the EAL messages above");
	return buf;
}
