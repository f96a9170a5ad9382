/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the capture file reader (lib/capfile, gpudp_capfile.h).
 * The input is a capture file, written to a memfd and read through its
 * /proc path, so the reader's stdio, fstat and seeking paths run too.
 * Beyond the sanitizers, it aborts when the reader's three ways of reading
 * a file disagree: gpudp_capfile_inspect(), gpudp_capfile_read_all() and
 * the iterator with and without GPUDP_CAPFILE_SKIP_DATA, and mapped
 * (GPUDP_CAPFILE_MMAP), must give the same records; gpudp_capfile_skip()
 * must step over exactly the records the iterator reads;
 * gpudp_capfile_next_many() (with gpudp_capfile_next() where it reads none)
 * must read the iterator's records and end the same way, and
 * gpudp_capfile_parse_many() over the file's bytes a prefix of them
 * (gpudp_capfile_parse_descs() the same records as batch descriptors);
 * gpudp_capfile_find_record() and a seek to what it finds must stay inside
 * the file (the direct reader's byte ranges).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpudp_capfile.h"

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

/* Walk with the iterator; every record's fields against read_all's
 * packet. @return how it ended (gpudp_capfile_next()'s last code) */
static int
walk(unsigned int flags, const struct gpudp_capfile_packets *pk, uint64_t *n)
{
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	char err[512];
	int rc;

	*n = 0;
	if (gpudp_capfile_open(path, flags, &cf, err, sizeof(err)) != 0)
		return 1;
	while ((rc = gpudp_capfile_next(cf, &rec)) == 1) {
		CHECK(rec.index == *n);
		CHECK(rec.ts_nsec < 1000000000u);
		CHECK(rec.data != NULL || (flags & GPUDP_CAPFILE_SKIP_DATA));
		if (pk != NULL && *n < pk->n) {
			const struct gpudp_capfile_pkt *p = &pk->pkt[*n];

			CHECK(p->caplen == rec.caplen);
			CHECK(rec.data == NULL || memcmp(p->data, rec.data, rec.caplen) == 0);
		}
		(*n)++;
	}
	CHECK(rc <= 0);
	CHECK(gpudp_capfile_next(cf, &rec) == rc);  /* the end, or the error, stays */
	gpudp_capfile_close(cf);
	return rc;
}

/* Record @p i of gpudp_capfile_next_many() or gpudp_capfile_parse_many() against the
 * iterator's (read_all's packet @p pk, when it read the file) */
static void
same_rec(const struct gpudp_capfile_packets *pk, uint64_t i, const struct gpudp_capfile_mrec *r)
{
	CHECK(r->index == i);
	if (pk == NULL || i >= pk->n)
		return;
	CHECK(pk->pkt[i].caplen == r->caplen && pk->pkt[i].wirelen == r->wirelen &&
	      pk->pkt[i].ts_ns == r->ts_ns);
	CHECK(memcmp(pk->pkt[i].data, r->data, r->caplen) == 0);
}

/*
 * A mapped file read by gpudp_capfile_next_many() in bunches of 1..7, stopping
 * every 5 records (its end argument), with gpudp_capfile_next() where it reads
 * none: the iterator's @p n_expected records and its end (@p rc_expected).
 * Then gpudp_capfile_parse_many() over the input's bytes: the records it reads
 * before it first stops are the iterator's first ones.
 */
static void
many(const uint8_t *data, size_t size, const struct gpudp_capfile_packets *pk, uint64_t n_expected,
     int rc_expected)
{
	struct gpudp_capfile_mrec mr[8];
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	uint64_t n = 0, pos, used;
	uint32_t bunch = 1, k, i;
	char err[512];
	int rc;

	if (gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP, &cf, err, sizeof(err)) != 0)
		return;
	pos = gpudp_capfile_tell(cf);
	for (;;) {
		k = gpudp_capfile_next_many(cf, mr, bunch, n % 5 == 4 ? gpudp_capfile_tell(cf) :
					    UINT64_MAX);
		bunch = bunch % 7 + 1;
		for (i = 0; i < k; i++, n++)
			same_rec(pk, n, &mr[i]);
		if (k != 0)
			continue;
		rc = gpudp_capfile_next(cf, &rec);
		if (rc != 1)
			break;
		CHECK(rec.index == n);
		n++;
	}
	CHECK(n == n_expected && rc == rc_expected);
	gpudp_capfile_close(cf);
	if (gpudp_capfile_open(path, 0, &cf, err, sizeof(err)) != 0)
		return;
	n = 0;
	while (pos < size && (k = gpudp_capfile_parse_many(cf, data + pos, pos, size - pos,
							   UINT64_MAX, n, mr, 8, &used)) > 0) {
		struct gpudp_pkt_desc d[8];
		uint64_t dused, dbytes, sum = 0;

		CHECK(used <= size - pos);
		/* the same records as batch descriptors (offsets from 7) */
		CHECK(gpudp_capfile_parse_descs(cf, data + pos, pos, size - pos, UINT64_MAX, 7, d,
						8,
						&dused, &dbytes) == k && dused == used);
		for (i = 0; i < k; i++, n++) {
			CHECK(mr[i].data >= data + pos && mr[i].data + mr[i].caplen <= data + size);
			same_rec(pk, n, &mr[i]);
			CHECK(d[i].off == 7 + (uint64_t)(mr[i].data - (data + pos)) &&
			      d[i].caplen == mr[i].caplen && d[i].ts_ns == mr[i].ts_ns &&
			      d[i].wirelen == mr[i].wirelen && d[i].mark == 0);
			sum += d[i].caplen;
		}
		CHECK(dbytes == sum);
		pos += used;
	}
	CHECK(n <= n_expected);
	gpudp_capfile_close(cf);
}

/* A mapped file: gpudp_capfile_skip() in steps of 7 against the iterator's count;
 * a guess of a record in the second half, and a read from it. */
static void
skim(uint64_t n_expected)
{
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	uint64_t n = 0, m, off;
	char err[512];

	if (gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP | GPUDP_CAPFILE_SKIP_DATA, &cf, err,
			       sizeof(err)) != 0)
		return;
	if (gpudp_capfile_format_of(cf) == GPUDP_CAPFILE_PCAP) {
		while ((m = gpudp_capfile_skip(cf, 7)) > 0)
			n += m;
		CHECK(n == n_expected);
		CHECK(gpudp_capfile_next(cf, &rec) <= 0);
	}
	gpudp_capfile_close(cf);
	if (gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP, &cf, err, sizeof(err)) != 0)
		return;
	if (gpudp_capfile_find_record(cf, gpudp_capfile_tell(cf) + 1, UINT64_MAX, &off) == 0 &&
	    gpudp_capfile_seek(cf, off, 0) == 0) {
		while (gpudp_capfile_next(cf, &rec) == 1)
			CHECK(rec.offset >= off && rec.caplen <= 262144);
	}
	gpudp_capfile_close(cf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	char err[512];
	uint64_t n_data, n_skip, n_mmap, sum = 0;
	int irc, rrc, mrc;
	size_t i;

	put_file(data, size);
	irc = gpudp_capfile_inspect(path, 1500, &info, err, sizeof(err));
	CHECK(irc <= 0);
	CHECK(irc == 0 || err[0] != '\0');
	if (irc == 0) {
		CHECK(info.n_snaps <= info.packets);
		CHECK(info.oversize <= info.packets);
		CHECK(info.max_caplen <= (info.packets ? 128u << 20 : 0));
		for (i = 1; i < info.n_snaps; i++)
			CHECK(info.snaps[i].index > info.snaps[i - 1].index);
	}
	rrc = gpudp_capfile_read_all(path, &pk, err, sizeof(err));
	if (irc != 0) {
		/* a file inspection refuses is refused the same way, unless a
		 * record of another link type than Ethernet came first */
		CHECK(rrc == irc || rrc == -EPROTONOSUPPORT);
	} else if (rrc == 0) {
		CHECK(pk.n == info.packets);
		CHECK(pk.buf != NULL);
		for (i = 0; i < pk.n; i++) {
			const struct gpudp_capfile_pkt *p = &pk.pkt[i];
			volatile uint8_t x = 0;
			uint32_t k;

			CHECK(p->data >= pk.buf && p->data + p->caplen <= pk.buf + pk.data_bytes);
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
	walk(GPUDP_CAPFILE_SKIP_DATA, NULL, &n_skip);
	CHECK(n_data == n_skip);
	mrc = walk(GPUDP_CAPFILE_MMAP, rrc == 0 ? &pk : NULL, &n_mmap);
	CHECK(n_data == n_mmap);
	if (mrc != 1)   /* it opened */
		many(data, size, rrc == 0 ? &pk : NULL, n_mmap, mrc);
	skim(n_data);
	if (irc == 0)
		CHECK(n_data == info.packets);
	if (rrc == 0)
		gpudp_capfile_packets_free(&pk);
	if (irc == 0)
		gpudp_capfile_info_free(&info);
	return 0;
}
