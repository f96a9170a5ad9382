/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit: app/common's app layer without EAL: the JSON writer (layout,
 * escaping, numbers JSON cannot hold, misuse, a full disk, the temporary
 * file) and the command line split around "--" with --help.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_app.h"
#include "gpudp_json.h"
#include "gpudp_test.h"

static char dir[] = "/tmp/gpudp-app-layer-XXXXXX";

/* the file at @p path, read whole into @p buf */
static int
slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/* how many entries the test directory holds */
static int
entries(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

static int
json_layout_is_one_member_per_line_at_the_top(void)
{
	char path[128], buf[1024];
	struct gpudp_json j;
	const char *want =
		"{\n"
		"  \"a\": 1,\n"
		"  \"o\": {\"x\": -2, \"y\": true, \"z\": null},\n"
		"  \"l\": [\n"
		"    {\"k\": \"v\"},\n"
		"    3\n"
		"  ],\n"
		"  \"e\": [],\n"
		"  \"d\": 1.50\n"
		"}\n";

	snprintf(path, sizeof(path), "%s/layout.json", dir);
	GPUDP_TEST_ASSERT(gpudp_json_open(&j, path) == 0, "open %s", path);
	gpudp_json_obj(&j, NULL);
	gpudp_json_u64(&j, "a", 1);
	gpudp_json_obj(&j, "o");
	gpudp_json_i64(&j, "x", -2);
	gpudp_json_bool(&j, "y", 1);
	gpudp_json_null(&j, "z");
	gpudp_json_end(&j);
	gpudp_json_arr(&j, "l");
	gpudp_json_obj(&j, NULL);
	gpudp_json_str(&j, "k", "v");
	gpudp_json_end(&j);
	gpudp_json_u64(&j, NULL, 3);
	gpudp_json_end(&j);
	gpudp_json_arr(&j, "e");
	gpudp_json_end(&j);
	gpudp_json_dbl(&j, "d", 1.5, 2);
	gpudp_json_end(&j);
	GPUDP_TEST_ASSERT(gpudp_json_close(&j) == 0, "close");
	GPUDP_TEST_ASSERT(slurp(path, buf, sizeof(buf)) == 0, "read back");
	GPUDP_TEST_ASSERT(strcmp(buf, want) == 0, "got:\n%s\nwant:\n%s", buf, want);
	GPUDP_TEST_ASSERT(entries() == 1, "%d entries: the temporary file is left", entries());
	unlink(path);
	return GPUDP_TEST_PASS;
}

static int
json_strings_are_escaped_and_non_finite_numbers_are_null(void)
{
	char buf[512];
	struct gpudp_json j;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	const char *want = "{\n  \"q\\\"k\": \"a\\\\b\\n\\t\\u0001\\u007f\\\"\",\n"
		"  \"nan\": null,\n  \"inf\": null,\n  \"s\": null\n}\n";

	GPUDP_TEST_ASSERT(f != NULL, "fmemopen");
	gpudp_json_init(&j, f);
	gpudp_json_obj(&j, NULL);
	gpudp_json_str(&j, "q\"k", "a\\b\n\t\x01\x7f\"");
	gpudp_json_dbl(&j, "nan", NAN, 3);
	gpudp_json_dbl(&j, "inf", -INFINITY, 3);
	gpudp_json_str(&j, "s", NULL);
	gpudp_json_end(&j);
	GPUDP_TEST_ASSERT(gpudp_json_close(&j) == 0, "close");
	fclose(f);
	GPUDP_TEST_ASSERT(strcmp(buf, want) == 0, "got:\n%s\nwant:\n%s", buf, want);
	return GPUDP_TEST_PASS;
}

/* one misuse: the file is not created and close says -EINVAL */
static int
misuse(int which)
{
	char path[128];
	struct gpudp_json j;
	struct stat st;

	snprintf(path, sizeof(path), "%s/misuse%d.json", dir, which);
	if (gpudp_json_open(&j, path) != 0)
		return -100;
	gpudp_json_obj(&j, NULL);
	switch (which) {
	case 0: /* a member without a key */
		gpudp_json_u64(&j, NULL, 1);
		gpudp_json_end(&j);
		break;
	case 1: /* an array element with a key */
		gpudp_json_arr(&j, "a");
		gpudp_json_u64(&j, "k", 1);
		gpudp_json_end(&j);
		gpudp_json_end(&j);
		break;
	case 2: /* a container left open */
		gpudp_json_obj(&j, "o");
		gpudp_json_end(&j);
		break;
	default: /* one end too many */
		gpudp_json_end(&j);
		gpudp_json_end(&j);
		break;
	}
	return gpudp_json_close(&j) + (stat(path, &st) == 0 ? 1000 : 0);
}

static int
json_misuse_is_an_error_and_writes_no_file(void)
{
	int i, rc;

	for (i = 0; i < 4; i++) {
		rc = misuse(i);
		GPUDP_TEST_ASSERT(rc == -EINVAL, "misuse %d: %d (-EINVAL and no file wanted)", i,
				  rc);
	}
	GPUDP_TEST_ASSERT(entries() == 0, "%d files left behind", entries());
	return GPUDP_TEST_PASS;
}

static int
json_a_full_disk_is_an_error(void)
{
	struct gpudp_json j;
	FILE *f = fopen("/dev/full", "w");
	int i;

	GPUDP_TEST_SKIP_IF(f == NULL, "no /dev/full");
	setvbuf(f, NULL, _IOFBF, 64);
	gpudp_json_init(&j, f);
	gpudp_json_arr(&j, NULL);
	for (i = 0; i < 100; i++)
		gpudp_json_str(&j, NULL, "some text that fills the buffer");
	gpudp_json_end(&j);
	GPUDP_TEST_ASSERT(gpudp_json_close(&j) == -EIO, "a write to /dev/full succeeded");
	fclose(f);
	return GPUDP_TEST_PASS;
}

static int
json_open_fails_in_a_missing_directory(void)
{
	char path[160];
	struct gpudp_json j;

	snprintf(path, sizeof(path), "%s/no/such/dir/r.json", dir);
	GPUDP_TEST_ASSERT(gpudp_json_open(&j, path) == -ENOENT, "opened %s", path);
	return GPUDP_TEST_PASS;
}

/* a path that is not a regular file (here a FIFO; /dev/stdout and
 * /dev/null alike) is written in place, never replaced by a file */
static int
json_to_a_fifo_writes_it_in_place(void)
{
	char path[160], buf[256] = "";
	struct gpudp_json j;
	struct stat st;
	ssize_t n;
	int rd;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	GPUDP_TEST_ASSERT(mkfifo(path, 0600) == 0, "mkfifo %s", path);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	GPUDP_TEST_ASSERT(rd >= 0, "open the reader");
	GPUDP_TEST_ASSERT(gpudp_json_open(&j, path) == 0, "open %s", path);
	gpudp_json_obj(&j, NULL);
	gpudp_json_u64(&j, "packets", 7);
	gpudp_json_end(&j);
	GPUDP_TEST_ASSERT(gpudp_json_close(&j) == 0, "close");
	n = read(rd, buf, sizeof(buf) - 1);
	close(rd);
	GPUDP_TEST_ASSERT(n > 0 && strstr(buf, "\"packets\": 7") != NULL, "read '%s'", buf);
	GPUDP_TEST_ASSERT(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "no longer a FIFO");
	unlink(path);
	return GPUDP_TEST_PASS;
}

static int
args_split_at_the_first_double_dash(void)
{
	char *argv[] = { "app", "-l", "0-1", "--", "--burst", "32", "--", "x", NULL };
	char *none[] = { "app", "--no-huge", NULL };
	struct gpudp_app_args a;

	GPUDP_TEST_ASSERT(gpudp_app_args_split(8, argv, &a) == 0, "split");
	GPUDP_TEST_ASSERT(a.eal_argc == 3 && a.eal_argv == argv, "eal_argc %d", a.eal_argc);
	GPUDP_TEST_ASSERT(a.app_argc == 5 && a.app_argv[0] == argv[0] &&
			  a.app_argv[1] == argv[4] && a.app_argv[3] == argv[6] &&
			  a.app_argv[5] == NULL, "app_argc %d", a.app_argc);
	gpudp_app_args_free(&a);
	GPUDP_TEST_ASSERT(gpudp_app_args_split(2, none, &a) == 0, "split");
	GPUDP_TEST_ASSERT(a.eal_argc == 2 && a.app_argc == 1 && a.app_argv[1] == NULL,
			  "no '--': %d/%d", a.eal_argc, a.app_argc);
	gpudp_app_args_free(&a);
	return GPUDP_TEST_PASS;
}

static int
help_anywhere_and_h_only_after_double_dash(void)
{
	char *h1[] = { "app", "--help", NULL };
	char *h2[] = { "app", "-l", "0", "--", "-h", NULL };
	char *h3[] = { "app", "--", "--json", "--help", NULL };
	char *n1[] = { "app", "-h", "--", "--burst", "4", NULL };
	char *n2[] = { "app", "--", "--burst", "4", NULL };

	GPUDP_TEST_ASSERT(gpudp_app_help_requested(2, h1), "--help before --");
	GPUDP_TEST_ASSERT(gpudp_app_help_requested(5, h2), "-h after --");
	GPUDP_TEST_ASSERT(gpudp_app_help_requested(4, h3), "--help as a value after --");
	GPUDP_TEST_ASSERT(!gpudp_app_help_requested(5, n1), "-h before -- is EAL's");
	GPUDP_TEST_ASSERT(!gpudp_app_help_requested(4, n2), "no help asked");
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "json_layout_is_one_member_per_line_at_the_top",
	  json_layout_is_one_member_per_line_at_the_top },
	{ "json_strings_are_escaped_and_non_finite_numbers_are_null",
	  json_strings_are_escaped_and_non_finite_numbers_are_null },
	{ "json_misuse_is_an_error_and_writes_no_file", json_misuse_is_an_error_and_writes_no_file },
	{ "json_a_full_disk_is_an_error", json_a_full_disk_is_an_error },
	{ "json_open_fails_in_a_missing_directory", json_open_fails_in_a_missing_directory },
	{ "json_to_a_fifo_writes_it_in_place", json_to_a_fifo_writes_it_in_place },
	{ "args_split_at_the_first_double_dash", args_split_at_the_first_double_dash },
	{ "help_anywhere_and_h_only_after_double_dash",
	  help_anywhere_and_h_only_after_double_dash },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	int rc;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	rc = gpudp_test_run("app_layer", cases, argc, argv);
	rmdir(dir);
	return rc;
}
