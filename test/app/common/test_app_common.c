/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit: the helpers app/common gives both apps: option values (digits only,
 * ports once each, output files checked before a run) and the reason a
 * failed EAL initialisation prints, on made-up /sys and /proc trees and a
 * real lock held by a child process.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpudp_eal_diag.h"
#include "gpudp_opt.h"
#include "gpudp_test.h"

static char tree[] = "/tmp/gpudp-app-common-XXXXXX";

static int
put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (slash = strchr(path + strlen(tree) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int
integers_are_digits_only(void)
{
	const char *bad[] = { " 5", "+5", "-5", "5 ", "0x10", "", "5k", "99999999999999999999" };
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		GPUDP_TEST_ASSERT(gpudp_opt_u64("t", "batch", bad[i], 0, UINT64_MAX, &v) == -1,
				  "'%s' accepted as %llu", bad[i], (unsigned long long)v);
	GPUDP_TEST_ASSERT(gpudp_opt_u64("t", "batch", "5", 1, 9, &v) == 0 && v == 5, "5");
	GPUDP_TEST_ASSERT(gpudp_opt_u64("t", "batch", "10", 1, 9, &v) == -1, "10 > max 9");
	return GPUDP_TEST_PASS;
}

static int
seconds_are_plain_decimals(void)
{
	const char *bad[] = { " 1", "+1", "-1", "0x1p3", "inf", "nan", "1s", "" };
	double v = -1;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		GPUDP_TEST_ASSERT(gpudp_opt_secs("t", "stats", bad[i], 100, &v) == -1,
				  "'%s' accepted as %g", bad[i], v);
	GPUDP_TEST_ASSERT(gpudp_opt_secs("t", "stats", "0.5", 100, &v) == 0 && v == 0.5, "0.5");
	GPUDP_TEST_ASSERT(gpudp_opt_secs("t", "stats", ".25", 100, &v) == 0 && v == 0.25, ".25");
	return GPUDP_TEST_PASS;
}

static int
ports_are_given_once_each(void)
{
	const char *bad[] = { "0,0", "1,2,1", " 1", "+1", "1,", ",1", "1,,2", "65535", "" };
	uint16_t ports[4];
	unsigned int i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		GPUDP_TEST_ASSERT(gpudp_opt_ports("t", "ports", bad[i], ports, 4, &n) == -1,
				  "'%s' accepted", bad[i]);
	GPUDP_TEST_ASSERT(gpudp_opt_ports("t", "ports", "0,1,2,3,4", ports, 4, &n) == -1,
			  "five ports, at most four");
	GPUDP_TEST_ASSERT(gpudp_opt_ports("t", "ports", "3,0,7", ports, 4, &n) == 0 && n == 3 &&
			  ports[0] == 3 && ports[1] == 0 && ports[2] == 7, "3,0,7");
	return GPUDP_TEST_PASS;
}

static int
output_files_are_checked_before_the_run(void)
{
	char path[512];
	struct stat st;

	GPUDP_TEST_ASSERT(gpudp_opt_out_file("t", "json", "") == -1, "empty name");
	GPUDP_TEST_ASSERT(gpudp_opt_out_file("t", "json", tree) == -1, "a directory");
	snprintf(path, sizeof(path), "%s/no/such/dir/r.json", tree);
	GPUDP_TEST_ASSERT(gpudp_opt_out_file("t", "json", path) == -1, "missing directory");
	snprintf(path, sizeof(path), "%s/r.json", tree);
	GPUDP_TEST_ASSERT(gpudp_opt_out_file("t", "json", path) == 0, "writable directory");
	GPUDP_TEST_ASSERT(stat(path, &st) != 0, "the check left %s behind", path);
	return GPUDP_TEST_PASS;
}

/* a tree with one hugepage size of @p nr pages and /proc/mounts @p mounts */
static void
hp_tree(const char *nr, const char *mounts)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys %s/proc", tree, tree);
	if (system(cmd) != 0)
		return;
	put("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", nr);
	put("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
	put("proc/meminfo", "MemTotal: 1000 kB\nHugepagesize:       2048 kB\n");
	put("proc/mounts", mounts);
}

static int
eal_reason_names_the_hugepage_setup(void)
{
	char buf[512];

	hp_tree("1024\n", "proc /proc proc rw 0 0\n");
	gpudp_eal_why(EACCES, NULL, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, "1024 hugepages of 2048 kB are reserved but no hugetlbfs "
				 "is mounted") && strstr(buf, "--no-huge"), "%s", buf);
	/* a mount of the other size does not count */
	hp_tree("1024\n", "nodev /mnt/h1g hugetlbfs rw,relatime,pagesize=1024M 0 0\n");
	gpudp_eal_why(EACCES, NULL, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, "no hugetlbfs is mounted"), "%s", buf);
	hp_tree("0\n", "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n");
	gpudp_eal_why(EACCES, NULL, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, "no hugepages are reserved") &&
			  strstr(buf, "hugepages-2048kB/nr_hugepages"), "%s", buf);
	/* mounted (default size, no pagesize option) and reserved: EAL's reason */
	hp_tree("1024\n", "hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n");
	gpudp_eal_why(EACCES, NULL, tree, buf, sizeof(buf));
	if (geteuid() == 0)
		GPUDP_TEST_ASSERT(strstr(buf, strerror(EACCES)), "%s", buf);
	/* other errors are not blamed on hugepages */
	hp_tree("1024\n", "proc /proc proc rw 0 0\n");
	gpudp_eal_why(ENODEV, NULL, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, strerror(ENODEV)) && !strstr(buf, "hugetlbfs"), "%s", buf);
	gpudp_eal_why(0, NULL, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strcmp(buf, "see the EAL messages above") == 0, "%s", buf);
	return GPUDP_TEST_PASS;
}

static int
eal_reason_names_another_primary_process(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char dir[512], path[600], buf[1024], want[64];
	int pipefd[2], fd, status;
	pid_t child;

	snprintf(dir, sizeof(dir), "%s/run", tree);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	GPUDP_TEST_ASSERT(fd >= 0 && pipe(pipefd) == 0, "set-up: %s", strerror(errno));
	gpudp_eal_why(0, dir, tree, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(!strstr(buf, "another"), "no lock yet: %s", buf);
	child = fork();
	if (child == 0) {
		char c = 'x';

		if (fcntl(fd, F_SETLK, &fl) != 0)
			_exit(1);
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	{
		char c;

		GPUDP_TEST_ASSERT(read(pipefd[0], &c, 1) == 1, "the child took no lock");
	}
	gpudp_eal_why(0, dir, tree, buf, sizeof(buf));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	close(fd);
	close(pipefd[0]);
	close(pipefd[1]);
	snprintf(want, sizeof(want), "(pid %ld)", (long)child);
	GPUDP_TEST_ASSERT(strstr(buf, "another DPDK primary process") && strstr(buf, want) &&
			  strstr(buf, "--file-prefix") && strstr(buf, path), "%s", buf);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "integers_are_digits_only", integers_are_digits_only },
	{ "seconds_are_plain_decimals", seconds_are_plain_decimals },
	{ "ports_are_given_once_each", ports_are_given_once_each },
	{ "output_files_are_checked_before_the_run", output_files_are_checked_before_the_run },
	{ "eal_reason_names_the_hugepage_setup", eal_reason_names_the_hugepage_setup },
	{ "eal_reason_names_another_primary_process", eal_reason_names_another_primary_process },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char cmd[600];
	int rc;

	if (mkdtemp(tree) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	rc = gpudp_test_run("app_common", cases, argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tree);
	return rc;
}
