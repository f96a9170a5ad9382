/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: gpudp-capture's capture file reader (app/gpudp-capture/
 * capfile.c). The input is a capture file, written to a memfd and read
 * through its /proc path, so the reader's stdio, fstat and seeking paths run
 * too. Beyond the sanitizers, it aborts when the reader's three ways of
 * reading a file disagree: capfile_inspect(), capfile_read_all() and the
 * iterator with and without CAPFILE_SKIP_DATA, and mapped (CAPFILE_MMAP),
 * must give the same records; capfile_skip() must step over exactly the
 * records the iterator reads; capfile_find_record() and a seek to what it
 * finds must stay inside the file (the direct reader's byte ranges).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_capfile: %s\n", #c); abort(); } } while (0)

static char path[64];

static void
put_file(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-capfile", 0);
		CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
}

/* Walk with the iterator; every record's fields against read_all's packet. */
static void
walk(unsigned int flags, const struct capfile_packets *pk, uint64_t *n)
{
	struct capfile_rec rec;
	struct capfile *cf;
	char err[512];
	int rc;

	*n = 0;
	if (capfile_open(path, flags, &cf, err, sizeof(err)) != 0)
		return;
	while ((rc = capfile_next(cf, &rec)) == 1) {
		CHECK(rec.index == *n);
		CHECK(rec.ts_nsec < 1000000000u);
		CHECK(rec.data != NULL || (flags & CAPFILE_SKIP_DATA));
		if (pk != NULL && *n < pk->n) {
			const struct capfile_pkt *p = &pk->pkt[*n];

			CHECK(p->caplen == rec.caplen);
			CHECK(rec.data == NULL || memcmp(p->data, rec.data, rec.caplen) == 0);
		}
		(*n)++;
	}
	CHECK(rc <= 0);
	CHECK(capfile_next(cf, &rec) == rc);  /* the end, or the error, stays */
	capfile_close(cf);
}

/* A mapped file: capfile_skip() in steps of 7 against the iterator's count;
 * a guess of a record in the second half, and a read from it. */
static void
skim(uint64_t n_expected)
{
	struct capfile_rec rec;
	struct capfile *cf;
	uint64_t n = 0, m, off;
	char err[512];

	if (capfile_open(path, CAPFILE_MMAP | CAPFILE_SKIP_DATA, &cf, err, sizeof(err)) != 0)
		return;
	if (capfile_format_of(cf) == CAPFILE_PCAP) {
		while ((m = capfile_skip(cf, 7)) > 0)
			n += m;
		CHECK(n == n_expected);
		CHECK(capfile_next(cf, &rec) <= 0);
	}
	capfile_close(cf);
	if (capfile_open(path, CAPFILE_MMAP, &cf, err, sizeof(err)) != 0)
		return;
	if (capfile_find_record(cf, capfile_tell(cf) + 1, UINT64_MAX, &off) == 0 &&
	    capfile_seek(cf, off, 0) == 0) {
		while (capfile_next(cf, &rec) == 1)
			CHECK(rec.offset >= off && rec.caplen <= 262144);
	}
	capfile_close(cf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capfile_packets pk;
	struct capfile_info info;
	char err[512];
	uint64_t n_data, n_skip, n_mmap, sum = 0;
	int irc, rrc;
	size_t i;

	put_file(data, size);
	irc = capfile_inspect(path, 1500, &info, err, sizeof(err));
	CHECK(irc <= 0);
	CHECK(irc == 0 || err[0] != '\0');
	if (irc == 0) {
		CHECK(info.n_snaps <= info.packets);
		CHECK(info.oversize <= info.packets);
		CHECK(info.max_caplen <= (info.packets ? 128u << 20 : 0));
		for (i = 1; i < info.n_snaps; i++)
			CHECK(info.snaps[i].index > info.snaps[i - 1].index);
	}
	rrc = capfile_read_all(path, &pk, err, sizeof(err));
	if (irc != 0) {
		/* a file inspection refuses is refused the same way, unless a
		 * record of another link type than Ethernet came first */
		CHECK(rrc == irc || rrc == -EPROTONOSUPPORT);
	} else if (rrc == 0) {
		CHECK(pk.n == info.packets);
		CHECK(pk.buf != NULL);
		for (i = 0; i < pk.n; i++) {
			const struct capfile_pkt *p = &pk.pkt[i];
			volatile uint8_t x = 0;
			uint32_t k;

			CHECK(p->data >= pk.buf && p->data + p->caplen <= pk.buf + pk.data_bytes);
			CHECK(p->wirelen >= p->caplen);
			for (k = 0; k < p->caplen; k++)
				x ^= p->data[k];
			(void)x;
			sum += p->caplen;
		}
		CHECK(sum == pk.data_bytes);
	} else {
		CHECK(rrc == -EPROTONOSUPPORT || rrc == -ENOMEM);
	}
	walk(0, rrc == 0 ? &pk : NULL, &n_data);
	walk(CAPFILE_SKIP_DATA, NULL, &n_skip);
	CHECK(n_data == n_skip);
	walk(CAPFILE_MMAP, rrc == 0 ? &pk : NULL, &n_mmap);
	CHECK(n_data == n_mmap);
	skim(n_data);
	if (irc == 0)
		CHECK(n_data == info.packets);
	if (rrc == 0)
		capfile_packets_free(&pk);
	if (irc == 0)
		capfile_info_free(&info);
	return 0;
}
