/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of gpudp-capture's capture file reader (app/gpudp-capture/
 * gpudp_capfile.c): lengths that would wrap, zero-length records, what libpcap
 * 1.10 does with snap lengths, versions and options, and pcapng files with
 * several sections and interfaces. Files are built byte by byte below and
 * written to temporary files. Pure C, no DPDK.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_capfile.h"
#include "gpudp_test.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a capture file builder: little- or big-endian fields ---- */

struct fb {
	uint8_t b[1 << 20];
	size_t n;
	int be;
};

static void
put(struct fb *f, const void *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void
put16(struct fb *f, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	if (f->be) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	}
	put(f, x, 2);
}

static void
put32(struct fb *f, uint32_t v)
{
	if (f->be) {
		put16(f, (uint16_t)(v >> 16));
		put16(f, (uint16_t)v);
	} else {
		put16(f, (uint16_t)v);
		put16(f, (uint16_t)(v >> 16));
	}
}

static void
put64(struct fb *f, uint64_t v)
{
	if (f->be) {
		put32(f, (uint32_t)(v >> 32));
		put32(f, (uint32_t)v);
	} else {
		put32(f, (uint32_t)v);
		put32(f, (uint32_t)(v >> 32));
	}
}

static void
pcap_header(struct fb *f, uint32_t magic, uint16_t vmaj, uint16_t vmin, uint32_t snap,
	    uint32_t lt)
{
	put32(f, magic);
	put16(f, vmaj);
	put16(f, vmin);
	put32(f, 0);
	put32(f, 0);
	put32(f, snap);
	put32(f, lt);
}

/* A frame of n bytes whose bytes say which frame it is. */
static void
frame(uint8_t *d, uint32_t n, uint8_t tag)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		d[i] = (uint8_t)(tag + i);
}

static void
pcap_record(struct fb *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t wirelen,
	    uint32_t data_len, uint8_t tag)
{
	put32(f, sec);
	put32(f, frac);
	put32(f, caplen);
	put32(f, wirelen);
	frame(f->b + f->n, data_len, tag);
	f->n += data_len;
}

/* A pcapng block: type, body, padded, with both lengths. */
static void
ng_block(struct fb *f, uint32_t type, const struct fb *body)
{
	uint32_t len = 12 + (uint32_t)((body->n + 3) & ~(size_t)3);

	put32(f, type);
	put32(f, len);
	put(f, body->b, body->n);
	while (f->n % 4)
		f->b[f->n++] = 0;
	put32(f, len);
}

static struct fb scratch;

static void
ng_shb(struct fb *f)
{
	struct fb *b = &scratch;

	b->n = 0;
	b->be = f->be;
	put32(b, 0x1A2B3C4D);
	put16(b, 1);
	put16(b, 0);
	put64(b, UINT64_MAX);
	ng_block(f, 0x0A0D0D0A, b);
}

/* An interface; opts (may be NULL) is appended as its options. */
static void
ng_idb(struct fb *f, uint16_t lt, uint32_t snap, const struct fb *opts)
{
	struct fb *b = &scratch;

	b->n = 0;
	b->be = f->be;
	put16(b, lt);
	put16(b, 0);
	put32(b, snap);
	if (opts != NULL)
		put(b, opts->b, opts->n);
	ng_block(f, 1, b);
}

static void
ng_epb(struct fb *f, uint32_t ifid, uint64_t ts, uint32_t caplen, uint32_t wirelen,
       uint32_t data_len, uint8_t tag)
{
	struct fb *b = &scratch;

	b->n = 0;
	b->be = f->be;
	put32(b, ifid);
	put32(b, (uint32_t)(ts >> 32));
	put32(b, (uint32_t)ts);
	put32(b, caplen);
	put32(b, wirelen);
	frame(b->b + b->n, data_len, tag);
	b->n += data_len;
	ng_block(f, 6, b);
}

static void
opt(struct fb *o, uint16_t code, uint16_t len, const void *val, size_t val_len)
{
	put16(o, code);
	put16(o, len);
	put(o, val, val_len);
	while (o->n % 4)
		o->b[o->n++] = 0;
}

static struct fb file, opts;
static char path[64];

static void
fb_reset(struct fb *f, int be)
{
	f->n = 0;
	f->be = be;
}

/* Write file to a temporary path (path). */
static int
save(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/gpudp-capfile-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, file.b, file.n) != (ssize_t)file.n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int
inspect(struct gpudp_capfile_info *info, char *err, size_t errlen)
{
	int rc;

	if (save() != 0)
		return -EIO;
	rc = gpudp_capfile_inspect(path, 2048, info, err, errlen);
	unlink(path);
	return rc;
}

static int
read_all(struct gpudp_capfile_packets *pk, char *err, size_t errlen)
{
	int rc;

	if (save() != 0)
		return -EIO;
	rc = gpudp_capfile_read_all(path, pk, err, errlen);
	unlink(path);
	return rc;
}

static int
data_is(const uint8_t *d, uint32_t n, uint8_t tag)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (d[i] != (uint8_t)(tag + i))
			return 0;
	return 1;
}

/* ---- lengths that wrap, zero lengths ---- */

static int
epb_captured_length_near_2_32_is_refused(void)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	struct fb *b = &scratch;
	char err[512];

	/* issue 15: SHB (28 bytes), IDB (20), EPB of 32 bytes claiming
	 * 0xFFFFFFEC captured bytes: 20 + caplen wraps in 32 bits */
	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	fb_reset(b, 0);
	put32(b, 0);
	put32(b, 0);
	put32(b, 0);
	put32(b, 0xFFFFFFECu);
	put32(b, 0xFFFFFFECu);
	ng_block(&file, 6, b);
	GPUDP_TEST_ASSERT(file.n == 80, "%zu bytes", file.n);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL, "inspect accepted it");
	GPUDP_TEST_ASSERT(strstr(err, "offset 48") && strstr(err, "4294967276"), "%s", err);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == -EINVAL, "read_all accepted it");
	return GPUDP_TEST_PASS;
}

static int
zero_length_records_are_read(void)
{
	struct gpudp_capfile_packets pk;
	char err[512];
	size_t i;

	/* every record empty: no data at all (issue 15 point 3) */
	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 65535, 1);
	for (i = 0; i < 3; i++)
		pcap_record(&file, 1, 0, 0, 60, 0, 0);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 3 && pk.data_bytes == 0 && pk.buf != NULL, "%zu packets", pk.n);
	for (i = 0; i < pk.n; i++)
		GPUDP_TEST_ASSERT(pk.pkt[i].data != NULL && pk.pkt[i].caplen == 0 &&
				  pk.pkt[i].wirelen == 60, "packet %zu", i);
	gpudp_capfile_packets_free(&pk);
	/* an empty record between two others */
	fb_reset(&file, 1);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_epb(&file, 0, 1, 60, 60, 60, 1);
	ng_epb(&file, 0, 2, 0, 60, 0, 0);
	ng_epb(&file, 0, 3, 61, 61, 61, 3);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 3 && pk.pkt[1].caplen == 0 && data_is(pk.pkt[2].data, 61, 3),
			  "%zu packets", pk.n);
	gpudp_capfile_packets_free(&pk);
	return GPUDP_TEST_PASS;
}

static int
lengths_over_every_limit_are_refused(void)
{
	static const uint32_t caplens[] = { 262145, 0x80000000u, 0xFFFFFFF0u, 0xFFFFFFFFu };
	struct gpudp_capfile_info info;
	char err[512];
	unsigned int i;

	for (i = 0; i < DIM(caplens); i++) {
		fb_reset(&file, i % 2);
		pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 1);
		pcap_record(&file, 1, 0, 60, 60, 60, 0);
		pcap_record(&file, 1, 0, caplens[i], 60, 60, 0);
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL,
				  "pcap caplen %u accepted", caplens[i]);
		GPUDP_TEST_ASSERT(strstr(err, "record 2 at offset 100") != NULL, "%s", err);
	}
	/* pcapng: 262145 and 266000 bytes under a snap length of 300000, which
	 * libpcap would accept; over the 262144 the docs promise */
	for (i = 0; i < 2; i++) {
		uint32_t n = i ? 266000 : 262145;

		fb_reset(&file, 0);
		ng_shb(&file);
		ng_idb(&file, 1, 300000, NULL);
		ng_epb(&file, 0, 1, n, n, n, 0);
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL,
				  "pcapng record of %u accepted", n);
		GPUDP_TEST_ASSERT(strstr(err, "exceeds 262144") != NULL, "%s", err);
	}
	/* a block longer than libpcap's 16 MiB */
	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	put32(&file, 0xB0B);
	put32(&file, (16u << 20) + 4);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL &&
			  strstr(err, "exceeds 16777216"), "%s", err);
	return GPUDP_TEST_PASS;
}

/* ---- what libpcap does: snap lengths, versions, options ---- */

static int
pcap_record_over_snaplen_is_cut_like_libpcap(void)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	char err[512];

	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 64, 1);
	pcap_record(&file, 1, 0, 100, 100, 100, 7);
	pcap_record(&file, 2, 0, 50, 50, 50, 9);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(info.packets == 2 && info.snaplen == 64 && info.max_caplen == 64 &&
			  info.bytes == 150 && info.n_snaps == 1 && info.snaps[0].index == 0 &&
			  info.snaps[0].wirelen == 100, "packets %llu, max %u, snaps %zu",
			  (unsigned long long)info.packets, info.max_caplen, info.n_snaps);
	gpudp_capfile_info_free(&info);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 2 && pk.pkt[0].caplen == 64 && pk.pkt[0].wirelen == 100 &&
			  data_is(pk.pkt[0].data, 64, 7) && data_is(pk.pkt[1].data, 50, 9),
			  "records not cut at 64");
	gpudp_capfile_packets_free(&pk);
	return GPUDP_TEST_PASS;
}

static int
pcapng_record_over_interface_snaplen_is_refused(void)
{
	struct gpudp_capfile_info info;
	char err[512];

	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 64, NULL);
	ng_epb(&file, 0, 1, 64, 100, 64, 0);
	ng_epb(&file, 0, 2, 100, 100, 100, 0);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL, "accepted");
	GPUDP_TEST_ASSERT(strstr(err, "exceeds the snap length 64") != NULL, "%s", err);
	return GPUDP_TEST_PASS;
}

static int
pcap_versions_and_magics_read_like_libpcap(void)
{
	static const uint16_t bad[][2] = { { 2, 99 }, { 2, 5 }, { 1, 0 }, { 3, 0 }, { 543, 1 } };
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	char err[512];
	unsigned int i;

	for (i = 0; i < DIM(bad); i++) {
		fb_reset(&file, 0);
		pcap_header(&file, 0xa1b2c3d4, bad[i][0], bad[i][1], 0, 1);
		pcap_record(&file, 1, 0, 60, 60, 60, 0);
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL,
				  "version %u.%u accepted", bad[i][0], bad[i][1]);
		GPUDP_TEST_ASSERT(strstr(err, "unsupported pcap version") != NULL, "%s", err);
	}
	/* 2.2: captured and original lengths swapped in the record header */
	fb_reset(&file, 1);
	pcap_header(&file, 0xa1b2c3d4, 2, 2, 0, 1);
	pcap_record(&file, 1, 0, 80, 60, 60, 4);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 1 && pk.pkt[0].caplen == 60 && pk.pkt[0].wirelen == 80 &&
			  data_is(pk.pkt[0].data, 60, 4), "2.2 lengths not swapped");
	gpudp_capfile_packets_free(&pk);
	/* a1b2cd34: 24-byte record headers */
	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2cd34, 2, 4, 0, 1);
	pcap_record(&file, 1, 0, 60, 60, 0, 0);
	memset(file.b + file.n, 0xee, 8);
	file.n += 8;
	frame(file.b + file.n, 60, 5);
	file.n += 60;
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 1 && data_is(pk.pkt[0].data, 60, 5), "a1b2cd34 misread");
	gpudp_capfile_packets_free(&pk);
	/* link type: the low 26 bits (the high 6 say the FCS length) */
	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 0x14000001u);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.linktype == 1, "%s", err);
	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 0x10001u);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.linktype == 0x10001,
			  "link type %u", info.linktype);
	return GPUDP_TEST_PASS;
}

static int
pcapng_interface_options_checked_like_libpcap(void)
{
	static const struct {
		uint16_t code, len;
		uint8_t val[8];
		const char *msg;
	} bad[] = {
		{ 9, 1, { 20 }, "10^-20" },
		{ 9, 1, { 0x80 | 64 }, "2^-64" },
		{ 9, 1, { 0xff }, "2^-127" },
		{ 9, 0, { 0 }, "if_tsresol of length" },
		{ 9, 2, { 6, 0 }, "if_tsresol of length" },
		{ 14, 4, { 0 }, "if_tsoffset of length" },
		{ 0, 4, { 0 }, "opt_endofopt of length 4" },
		{ 2, 40, "eth0", "option 2 of length 40 runs past the block" },
	};
	struct gpudp_capfile_info info;
	char err[512];
	unsigned int i;

	for (i = 0; i < DIM(bad); i++) {
		fb_reset(&opts, 0);
		opt(&opts, bad[i].code, bad[i].len, bad[i].val,
		    bad[i].len > 8 ? 4 : bad[i].len);
		fb_reset(&file, 0);
		ng_shb(&file);
		ng_idb(&file, 1, 0, &opts);
		ng_epb(&file, 0, 1, 60, 60, 60, 0);
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL,
				  "option %u length %u accepted", bad[i].code, bad[i].len);
		GPUDP_TEST_ASSERT(strstr(err, bad[i].msg) != NULL, "%s", err);
	}
	/* two if_tsresol */
	fb_reset(&opts, 0);
	opt(&opts, 9, 1, "\x06", 1);
	opt(&opts, 9, 1, "\x09", 1);
	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 0, &opts);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL &&
			  strstr(err, "two if_tsresol"), "%s", err);
	return GPUDP_TEST_PASS;
}

static int
pcapng_timestamps_per_interface(void)
{
	struct gpudp_capfile_packets pk;
	char err[512];
	int64_t off = -3600;

	fb_reset(&file, 0);
	ng_shb(&file);
	fb_reset(&opts, 0);
	opt(&opts, 9, 1, "\x09", 1);                  /* ns */
	ng_idb(&file, 1, 0, &opts);
	fb_reset(&opts, 0);
	opt(&opts, 9, 1, "\x8a", 1);                  /* 2^-10 s */
	opt(&opts, 14, 8, &off, 8);                   /* one hour earlier */
	ng_idb(&file, 1, 0, &opts);
	ng_idb(&file, 1, 0, NULL);                    /* us */
	ng_epb(&file, 0, 1700000000123456789ull, 60, 60, 60, 0);
	ng_epb(&file, 1, (1700003600ull << 10) | 512, 60, 60, 60, 0);
	ng_epb(&file, 2, 1700000000654321ull, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 3, "%zu", pk.n);
	GPUDP_TEST_ASSERT(pk.pkt[0].ts_ns == 1700000000123456789ull, "ns: %llu",
			  (unsigned long long)pk.pkt[0].ts_ns);
	GPUDP_TEST_ASSERT(pk.pkt[1].ts_ns == 1700000000500000000ull, "2^-10 and offset: %llu",
			  (unsigned long long)pk.pkt[1].ts_ns);
	GPUDP_TEST_ASSERT(pk.pkt[2].ts_ns == 1700000000654321000ull, "us: %llu",
			  (unsigned long long)pk.pkt[2].ts_ns);
	gpudp_capfile_packets_free(&pk);
	return GPUDP_TEST_PASS;
}

/* ---- sections and interfaces ---- */

static int
pcapng_sections_keep_their_byte_order(void)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	char err[512];
	int be;

	fb_reset(&file, 0);
	for (be = 0; be < 2; be++) {
		file.be = be;
		ng_shb(&file);
		ng_idb(&file, 1, 0, NULL);
		ng_epb(&file, 0, 1, 60 + be, 60 + be, 60 + be, (uint8_t)(10 * be));
		ng_epb(&file, 0, 2, 70 + be, 70 + be, 70 + be, (uint8_t)(10 * be + 1));
	}
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(pk.n == 4 && pk.pkt[2].caplen == 61 && data_is(pk.pkt[2].data, 61, 10) &&
			  pk.pkt[3].caplen == 71 && data_is(pk.pkt[3].data, 71, 11),
			  "%zu packets", pk.n);
	gpudp_capfile_packets_free(&pk);
	/* libpcap 1.10 stops at the second section: the app must know */
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.packets == 4 &&
			  info.sections == 2, "%s", err);
	GPUDP_TEST_ASSERT(strstr(info.libpcap_diff, "byte order") != NULL, "diff '%s'",
			  info.libpcap_diff);
	gpudp_capfile_info_free(&info);
	return GPUDP_TEST_PASS;
}

static int
pcapng_link_type_is_per_interface(void)
{
	struct gpudp_capfile_packets pk;
	struct gpudp_capfile_info info;
	char err[512];

	/* a Linux-cooked section, then an Ethernet one: the cooked frame must
	 * never be analysed as Ethernet */
	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 113, 0, NULL);
	ng_epb(&file, 0, 1, 60, 60, 60, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_epb(&file, 0, 2, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == -EPROTONOSUPPORT, "read as Ethernet");
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(info.linktype == 113 && info.mixed_linktypes, "link type %u, mixed %d",
			  info.linktype, info.mixed_linktypes);
	GPUDP_TEST_ASSERT(info.other_linktype == 1 && info.other_section == 1 &&
			  info.other_ifid == 0 && info.other_offset == 168, "other %u %u %u %llu",
			  info.other_linktype, info.other_section, info.other_ifid,
			  (unsigned long long)info.other_offset);
	gpudp_capfile_info_free(&info);
	/* an unused cooked interface beside an Ethernet one: read_all reads the
	 * Ethernet packets; the inspection flags the mix (libpcap refuses it) */
	fb_reset(&file, 1);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_idb(&file, 113, 0, NULL);
	ng_epb(&file, 0, 1, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(read_all(&pk, err, sizeof(err)) == 0 && pk.n == 1, "%s", err);
	gpudp_capfile_packets_free(&pk);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.mixed_linktypes &&
			  info.libpcap_diff[0] != '\0', "mix not flagged");
	gpudp_capfile_info_free(&info);
	return GPUDP_TEST_PASS;
}

static int
pcapng_more_than_64_interfaces(void)
{
	struct gpudp_capfile_info info;
	char err[512];
	unsigned int i;

	fb_reset(&file, 0);
	ng_shb(&file);
	for (i = 0; i < 100; i++)
		ng_idb(&file, 1, 0, NULL);
	ng_epb(&file, 99, 1, 60, 60, 60, 0);
	ng_epb(&file, 70, 1, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(info.packets == 2 && info.interfaces == 100 &&
			  info.libpcap_diff[0] == '\0', "packets %llu", (unsigned long long)info.packets);
	gpudp_capfile_info_free(&info);
	/* a packet on interface 100 of 100 */
	ng_epb(&file, 100, 1, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL &&
			  strstr(err, "interface 100, but section 0 declares 100"), "%s", err);
	return GPUDP_TEST_PASS;
}

static int
pcapng_interface_snaplens_must_agree_for_libpcap(void)
{
	struct gpudp_capfile_info info;
	char err[512];

	fb_reset(&file, 0);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_idb(&file, 1, 262144, NULL);    /* 0 means 262144 for libpcap: the same */
	ng_idb(&file, 1, 65535, NULL);
	ng_epb(&file, 2, 1, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.packets == 1, "%s", err);
	GPUDP_TEST_ASSERT(strstr(info.libpcap_diff, "interface 2 of section 0") &&
			  strstr(info.libpcap_diff, "snap length 65535"), "diff '%s'",
			  info.libpcap_diff);
	gpudp_capfile_info_free(&info);
	return GPUDP_TEST_PASS;
}

static int
pcapng_without_a_complete_interface_is_reported(void)
{
	struct gpudp_capfile_info info;
	char err[512];
	size_t cut;

	/* a section header only: no interface, libpcap cannot open it */
	fb_reset(&file, 0);
	ng_shb(&file);
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0, "%s", err);
	GPUDP_TEST_ASSERT(info.linktype == GPUDP_CAPFILE_LINKTYPE_NONE && info.packets == 0 &&
			  strstr(info.libpcap_diff, "no interface description block"),
			  "link type %u, diff '%s'", info.linktype, info.libpcap_diff);
	gpudp_capfile_info_free(&info);
	/* cut inside the first interface */
	ng_idb(&file, 1, 0, NULL);
	file.n -= 6;
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.truncated &&
			  strstr(info.libpcap_diff, "first interface description block"),
			  "diff '%s'", info.libpcap_diff);
	gpudp_capfile_info_free(&info);
	/* cut inside the section header: at every length */
	fb_reset(&file, 0);
	ng_shb(&file);
	for (cut = 4; cut < 28; cut++) {
		file.n = cut;
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == -EINVAL &&
				  strstr(err, "section header block"), "cut at %zu: %s", cut, err);
	}
	return GPUDP_TEST_PASS;
}

static int
truncation_in_every_field_keeps_complete_records(void)
{
	struct gpudp_capfile_info info;
	char err[512];
	size_t full, cut;

	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 1);
	pcap_record(&file, 1, 0, 60, 60, 60, 0);
	pcap_record(&file, 2, 0, 70, 70, 70, 0);
	full = file.n;
	for (cut = 24 + 76 + 1; cut < full; cut++) {
		file.n = cut;
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.packets == 1 &&
				  info.truncated && info.trunc_offset == 100, "pcap cut at %zu", cut);
	}
	fb_reset(&file, 1);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_epb(&file, 0, 1, 60, 60, 60, 0);
	cut = file.n;
	ng_epb(&file, 0, 1, 70, 70, 70, 0);
	full = file.n;
	for (file.n = cut + 1; file.n < full; file.n++) {
		GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.packets == 1 &&
				  info.truncated && info.trunc_offset == cut, "pcapng cut at %zu",
				  file.n);
	}
	return GPUDP_TEST_PASS;
}

/*
 * A reader tells the size it opened, the size now (a file that grew or
 * shrank since), and where it found the file cut (nowhere before it read
 * there); gpudp_capfile_inspect() the size it walked and no change.
 */
static int
reader_tells_its_size_and_where_the_file_is_cut(void)
{
	static const unsigned int modes[] = { 0, GPUDP_CAPFILE_MMAP };
	struct gpudp_capfile_info info;
	struct gpudp_capfile_rec r;
	struct gpudp_capfile *cf;
	uint64_t size, now, off;
	char err[512];
	unsigned int m;
	int fd;

	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 1);
	pcap_record(&file, 1, 0, 60, 60, 60, 0);
	pcap_record(&file, 2, 0, 70, 70, 30, 0);   /* cut: 30 of its 70 bytes */
	size = file.n;
	GPUDP_TEST_ASSERT(inspect(&info, err, sizeof(err)) == 0 && info.size == size &&
			  !info.changed && info.truncated && info.trunc_offset == 100, "%s", err);
	for (m = 0; m < DIM(modes); m++) {
		GPUDP_TEST_ASSERT(save() == 0, "write %s", path);
		GPUDP_TEST_ASSERT(gpudp_capfile_open(path, modes[m], &cf, err, sizeof(err)) == 0,
				  "%s", err);
		off = 1;
		GPUDP_TEST_ASSERT(gpudp_capfile_size(cf) == size &&
				  gpudp_capfile_truncated(cf, &off) == 0 &&
				  off == 1, "mode %u: size %llu, before reading", modes[m],
				  (unsigned long long)gpudp_capfile_size(cf));
		GPUDP_TEST_ASSERT(gpudp_capfile_next(cf, &r) == 1 &&
				  gpudp_capfile_next(cf, &r) == 0 &&
				  gpudp_capfile_truncated(cf, &off) == 1 && off == 100,
				  "mode %u: cut at %llu", modes[m], (unsigned long long)off);
		GPUDP_TEST_ASSERT(gpudp_capfile_size_now(cf, &now) == 0 && now == size, "mode %u",
				  modes[m]);
		fd = open(path, O_WRONLY | O_APPEND);
		GPUDP_TEST_ASSERT(fd >= 0 && write(fd, file.b, 40) == 40 && close(fd) == 0,
				  "append to %s", path);
		GPUDP_TEST_ASSERT(gpudp_capfile_size_now(cf, &now) == 0 && now == size + 40 &&
				  gpudp_capfile_size(cf) == size, "mode %u: grown to %llu",
				  modes[m], (unsigned long long)now);
		GPUDP_TEST_ASSERT(truncate(path, 50) == 0 &&
				  gpudp_capfile_size_now(cf, &now) == 0 && now == 50 &&
				  gpudp_capfile_size(cf) == size, "mode %u: shrunk to %llu",
				  modes[m], (unsigned long long)now);
		gpudp_capfile_close(cf);
		unlink(path);
	}
	return GPUDP_TEST_PASS;
}

static int
directory_is_refused_as_such(void)
{
	struct gpudp_capfile_info info;
	char err[512];

	GPUDP_TEST_ASSERT(gpudp_capfile_inspect("/tmp", 2048, &info, err, sizeof(err)) == -EISDIR,
			  "%s", err);
	GPUDP_TEST_ASSERT(strstr(err, "is a directory") != NULL, "%s", err);
	GPUDP_TEST_ASSERT(gpudp_capfile_inspect("/dev/null", 2048, &info, err,
						sizeof(err)) == -EINVAL,
			  "%s", err);
	GPUDP_TEST_ASSERT(strstr(err, "not a regular file") != NULL, "%s", err);
	return GPUDP_TEST_PASS;
}

static int
iterator_gives_each_record_its_interface(void)
{
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	char err[512];
	int rc, n = 0;

	fb_reset(&file, 1);
	ng_shb(&file);
	ng_idb(&file, 1, 0, NULL);
	ng_idb(&file, 1, 0, NULL);
	ng_epb(&file, 1, 1000001, 60, 1500, 60, 1);
	file.be = 0;
	ng_shb(&file);
	ng_idb(&file, 113, 0, NULL);
	ng_epb(&file, 0, 2000002, 61, 61, 61, 2);
	GPUDP_TEST_ASSERT(save() == 0, "save");
	rc = gpudp_capfile_open(path, 0, &cf, err, sizeof(err));
	unlink(path);
	GPUDP_TEST_ASSERT(rc == 0, "%s", err);
	while ((rc = gpudp_capfile_next(cf, &rec)) == 1) {
		if (n == 0)
			GPUDP_TEST_ASSERT(rec.index == 0 && rec.section == 0 && rec.ifid == 1 &&
					  rec.linktype == 1 && rec.caplen == 60 &&
					  rec.wirelen == 1500 && rec.ts_sec == 1 &&
					  rec.ts_nsec == 1000 && data_is(rec.data, 60, 1), "record 0");
		else
			GPUDP_TEST_ASSERT(rec.index == 1 && rec.section == 1 && rec.ifid == 0 &&
					  rec.linktype == 113 && rec.caplen == 61 &&
					  rec.ts_sec == 2 && rec.ts_nsec == 2000 &&
					  data_is(rec.data, 61, 2), "record 1");
		n++;
	}
	GPUDP_TEST_ASSERT(rc == 0 && n == 2, "rc %d, %d records: %s", rc, n,
			  gpudp_capfile_error(cf));
	GPUDP_TEST_ASSERT(gpudp_capfile_next(cf, &rec) == 0, "end is sticky");
	gpudp_capfile_close(cf);
	return GPUDP_TEST_PASS;
}

/* ---- gpudp_capfile_next_many(): the records gpudp_capfile_next() gives ---- */

/* What the record-by-record reader gives of a record. */
struct seen {
	uint64_t index, offset, ts_ns;
	uint32_t caplen, wirelen;
	uint64_t sum;    /* of its bytes, by position (the mapping goes with the reader) */
};

static uint64_t
bytes_sum(const uint8_t *d, uint32_t n)
{
	uint64_t h = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = h * 31 + d[i] + 1;
	return h;
}

/*
 * Read the saved file record by record (@p many 0), or with
 * gpudp_capfile_next_many() in bunches of 1..7 and stops at the byte offsets of
 * @p ends (each used once, then none) with gpudp_capfile_next() where it gives
 * none. @return the records (up to max) in s, the last call's code in *rc,
 * its error text in err; -1 when the file does not open or map
 */
static int
read_recs(int many, const uint64_t *ends, uint32_t n_ends, struct seen *s, uint32_t max,
	  int *rc, char *err, size_t errlen)
{
	struct gpudp_capfile_mrec mr[8];
	struct gpudp_capfile_rec r;
	struct gpudp_capfile *cf;
	uint32_t n = 0, e = 0, k, i, bunch = 1, fast = 0;

	if (gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP, &cf, err, errlen) != 0 ||
	    gpudp_capfile_map(cf) == NULL)
		return -1;
	for (;;) {
		uint64_t end = e < n_ends ? ends[e] : UINT64_MAX;

		k = many ? gpudp_capfile_next_many(cf, mr, bunch, end) : 0;
		bunch = bunch % 7 + 1;
		if (k > 0) {
			for (i = 0; i < k && n < max; i++, n++)
				s[n] = (struct seen){ mr[i].index, mr[i].offset, mr[i].ts_ns,
						      mr[i].caplen, mr[i].wirelen,
						      bytes_sum(mr[i].data, mr[i].caplen) };
			fast += k;
			continue;
		}
		if (many && e < n_ends) {
			e++;      /* at that end: on past it */
			continue;
		}
		*rc = gpudp_capfile_next(cf, &r);
		if (*rc != 1)
			break;
		if (n < max)
			s[n++] = (struct seen){ r.index, r.offset, r.ts_sec * 1000000000ull + r.ts_nsec,
						r.caplen, r.wirelen, bytes_sum(r.data, r.caplen) };
	}
	snprintf(err, errlen, "%s", gpudp_capfile_error(cf));
	gpudp_capfile_close(cf);
	return (int)(many && fast == 0 ? -2 : (int)n);
}

/*
 * gpudp_capfile_find_record() on a nanosecond capture whose packets are 100 ns
 * apart with equal captured and original lengths: read 4 bytes late, each
 * header passes for one (its fraction as seconds, its lengths one field on)
 * and chains through the real records. Every guess must be a real record.
 */
static int
find_record_is_not_fooled_by_a_late_header(void)
{
	uint64_t starts[400], off;
	struct gpudp_capfile *cf;
	char err[256];
	uint32_t i, k = 0, j;

	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b23c4d, 2, 4, 0, 1);
	for (i = 0; i < 400; i++) {
		uint32_t len = 80 + (i * 7) % 48;

		starts[i] = file.n;
		pcap_record(&file, 1700000000, 153850400 + 100 * i, len, len, len, (uint8_t)i);
		file.b[file.n - len] = 2;   /* frames that start 02 00 00 00 */
		file.b[file.n - len + 1] = 0;
		file.b[file.n - len + 2] = 0;
		file.b[file.n - len + 3] = 0;
	}
	GPUDP_TEST_ASSERT(save() == 0, "save");
	GPUDP_TEST_ASSERT(gpudp_capfile_open(path, GPUDP_CAPFILE_MMAP, &cf, err, sizeof(err)) == 0,
			  "%s", err);
	for (off = 25; off < starts[390]; off += 37) {
		uint64_t got;

		GPUDP_TEST_ASSERT(gpudp_capfile_find_record(cf, off, file.n, &got) == 0,
				  "nothing found from %llu", (unsigned long long)off);
		for (j = 0; j < 400 && starts[j] != got; j++)
			;
		GPUDP_TEST_ASSERT(j < 400, "from %llu: %llu is not a record",
				  (unsigned long long)off, (unsigned long long)got);
		k++;
	}
	gpudp_capfile_close(cf);
	unlink(path);
	GPUDP_TEST_ASSERT(k > 100, "%u guesses", k);
	return GPUDP_TEST_PASS;
}

static int
next_many_gives_what_next_gives(void)
{
	/* magic, version, snap length, link type, record header bytes */
	static const struct { uint32_t magic; uint16_t vmin; uint32_t snap, lt; int be; } f[] = {
		{ 0xa1b2c3d4, 4, 0, 1, 0 }, { 0xa1b2c3d4, 4, 0, 1, 1 },
		{ 0xa1b23c4d, 4, 0, 1, 0 }, { 0xa1b2c3d4, 2, 0, 1, 0 },
		{ 0xa1b2c3d4, 3, 0, 1, 1 }, { 0xa1b2c3d4, 4, 64, 1, 0 },
		{ 0xa1b2cd34, 4, 0, 1, 0 },
	};
	/* and how each file ends */
	enum { END_CLEAN, END_CUT_DATA, END_CUT_HEADER, END_CORRUPT, END_KINDS };
	static struct seen a[64], b[64];
	uint64_t ends[4];
	char ea[512], eb[512];
	uint32_t i, j, end;
	int ra = 0, rb = 0, na, nb;

	for (i = 0; i < DIM(f); i++)
		for (end = 0; end < END_KINDS; end++) {
			uint32_t hs = f[i].magic == 0xa1b2cd34 ? 24 : 16;

			fb_reset(&file, f[i].be);
			pcap_header(&file, f[i].magic, 2, f[i].vmin, f[i].snap, f[i].lt);
			for (j = 0; j < 20; j++) {
				uint32_t len = 40 + j * 7, wire;

				if (j == 3)
					len = 0;
				if (j == 6)
					ends[0] = file.n;
				if (j == 13)
					ends[1] = file.n + 1;   /* inside a header */
				/* a few above their original length, but in 2.3 (where
				 * the header swaps them then, so none can be) */
				wire = j % 4 == 1 && f[i].vmin != 3 ? len - 1 : len + 3;
				/* 2.2 headers: original length first */
				pcap_record(&file, 1000 + j, j == 5 ? 1999999 : j * 1000,
					    f[i].vmin == 2 ? wire : len, f[i].vmin == 2 ? len : wire,
					    0, (uint8_t)j);
				if (hs == 24) {
					memset(file.b + file.n, 0xee, 8);
					file.n += 8;
				}
				frame(file.b + file.n, len, (uint8_t)j);
				file.n += len;
			}
			ends[2] = 24;
			ends[3] = file.n - 5;
			if (end == END_CUT_DATA)
				pcap_record(&file, 5, 0, 100, 100, 40, 1);
			else if (end == END_CUT_HEADER)
				put32(&file, 7);
			else if (end == END_CORRUPT)
				pcap_record(&file, 5, 0, 300000, 300000, hs - 16 + 4, 1);
			GPUDP_TEST_ASSERT(save() == 0, "save");
			na = read_recs(0, NULL, 0, a, DIM(a), &ra, ea, sizeof(ea));
			nb = read_recs(1, ends, DIM(ends), b, DIM(b), &rb, eb, sizeof(eb));
			unlink(path);
			GPUDP_TEST_ASSERT(na == 20 && nb == 20, "file %u end %u: %d and %d records (%s)",
					  i, end, na, nb, ea);
			GPUDP_TEST_ASSERT(ra == rb && strcmp(ea, eb) == 0,
					  "file %u end %u: %d '%s' against %d '%s'", i, end, ra, ea,
					  rb, eb);
			GPUDP_TEST_ASSERT((end == END_CORRUPT) == (ra < 0), "file %u end %u: %d",
					  i, end, ra);
			for (j = 0; j < 20; j++)
				GPUDP_TEST_ASSERT(a[j].index == b[j].index && a[j].offset == b[j].offset &&
						  a[j].ts_ns == b[j].ts_ns &&
						  a[j].caplen == b[j].caplen &&
						  a[j].wirelen == b[j].wirelen &&
						  a[j].sum == b[j].sum &&
						  b[j].index == j,
						  "file %u end %u record %u: caplen %u/%u ts %llu/%llu",
						  i, end, j, a[j].caplen, b[j].caplen,
						  (unsigned long long)a[j].ts_ns,
						  (unsigned long long)b[j].ts_ns);
		}
	/* another link type: none at once, gpudp_capfile_next() gives them */
	fb_reset(&file, 0);
	pcap_header(&file, 0xa1b2c3d4, 2, 4, 0, 113);
	pcap_record(&file, 1, 0, 60, 60, 60, 0);
	GPUDP_TEST_ASSERT(save() == 0, "save");
	nb = read_recs(1, NULL, 0, b, DIM(b), &rb, eb, sizeof(eb));
	unlink(path);
	GPUDP_TEST_ASSERT(nb == -2, "link type 113 read at once (%d)", nb);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "epb_captured_length_near_2_32_is_refused", epb_captured_length_near_2_32_is_refused },
	{ "zero_length_records_are_read", zero_length_records_are_read },
	{ "lengths_over_every_limit_are_refused", lengths_over_every_limit_are_refused },
	{ "pcap_record_over_snaplen_is_cut_like_libpcap",
	  pcap_record_over_snaplen_is_cut_like_libpcap },
	{ "pcapng_record_over_interface_snaplen_is_refused",
	  pcapng_record_over_interface_snaplen_is_refused },
	{ "pcap_versions_and_magics_read_like_libpcap", pcap_versions_and_magics_read_like_libpcap },
	{ "pcapng_interface_options_checked_like_libpcap",
	  pcapng_interface_options_checked_like_libpcap },
	{ "pcapng_timestamps_per_interface", pcapng_timestamps_per_interface },
	{ "pcapng_sections_keep_their_byte_order", pcapng_sections_keep_their_byte_order },
	{ "pcapng_link_type_is_per_interface", pcapng_link_type_is_per_interface },
	{ "pcapng_more_than_64_interfaces", pcapng_more_than_64_interfaces },
	{ "pcapng_interface_snaplens_must_agree_for_libpcap",
	  pcapng_interface_snaplens_must_agree_for_libpcap },
	{ "pcapng_without_a_complete_interface_is_reported",
	  pcapng_without_a_complete_interface_is_reported },
	{ "truncation_in_every_field_keeps_complete_records",
	  truncation_in_every_field_keeps_complete_records },
	{ "directory_is_refused_as_such", directory_is_refused_as_such },
	{ "reader_tells_its_size_and_where_the_file_is_cut",
	  reader_tells_its_size_and_where_the_file_is_cut },
	{ "iterator_gives_each_record_its_interface", iterator_gives_each_record_its_interface },
	{ "next_many_gives_what_next_gives", next_many_gives_what_next_gives },
	{ "find_record_is_not_fooled_by_a_late_header", find_record_is_not_fooled_by_a_late_header },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("capture_capfile", cases, argc, argv);
}
