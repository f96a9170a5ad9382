/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture file reader: classic pcap and pcapng, streaming with stdio.
 *
 * Every length in a capture file is a 32-bit field. The reader does all
 * arithmetic on them in 64 bits and compares each with what is left of its
 * block, and each block or record with what is left of the file, before it
 * reads or allocates anything, so no sum can wrap and no buffer grows beyond
 * the file.
 *
 * It reads what libpcap 1.10 reads (DPDK's net_pcap reads with it):
 *  - pcap: magic a1b2c3d4 (us), a1b23c4d (ns) and a1b2cd34 (24-byte record
 *    headers), either byte order; versions 2.0 to 2.4 and 543.0, whose
 *    captured and original lengths are swapped before 2.3 and in 543.0, and
 *    in 2.3 when the captured one is the larger; the link type is the low 26
 *    bits of its field; a snap length of 0 or above INT_MAX stands for the
 *    link type's largest record (262144 bytes for Ethernet); a longer record
 *    is an error; a record longer than the snap length is cut to it.
 *  - pcapng: blocks of at least 12 bytes, a multiple of 4, with equal leading
 *    and trailing lengths, at most 16 MiB (the first section header 1 MiB);
 *    section headers of version 1.0 or 1.2; interfaces with their options
 *    inside the block, opt_endofopt of length 0, at most one if_tsresol
 *    (length 1, at most 10^-19 or 2^-63) and one if_tsoffset (length 8);
 *    packet blocks (enhanced, simple, obsolete) on an interface of their
 *    section, their data inside the block and within the interface's snap
 *    length. A simple packet block's captured length is its original length
 *    cut to the snap length of interface 0.
 * Unlike libpcap 1.10, it honours each section's byte order and each
 * interface's link type and snap length; where that makes libpcap read a
 * file differently (it cannot open a pcapng file without an interface, and
 * stops at a change of byte order, link type or snap length),
 * gpudp_capfile_describe() says so (libpcap_diff). It also refuses pcapng records
 * above the link type's largest record, which libpcap accepts up to the snap
 * length.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "gpudp_capfile_pvt.h"

/* ------------------------------------------------------------- helpers */

int
gpudp_cf_fail(struct gpudp_capfile *cf, int rc, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(cf->err, sizeof(cf->err), "%s: %s", cf->path, msg);
	cf->failed = rc;
	return rc;
}

/* Note the first way libpcap 1.10 would read the file differently. */
void
gpudp_cf_diff(struct gpudp_capfile *cf, const char *fmt, ...)
{
	va_list ap;

	if (cf->diff[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(cf->diff, sizeof(cf->diff), fmt, ap);
	va_end(ap);
}

uint64_t
gpudp_cf_left(const struct gpudp_capfile *cf)
{
	return cf->size > cf->pos ? cf->size - cf->pos : 0;
}

/* Read n bytes: 0, 1 (the file ended first: it shrank) or -EIO. */
int
gpudp_cf_read(struct gpudp_capfile *cf, void *dst, size_t n)
{
	size_t got;

	if (cf->map != NULL) {
		got = n < gpudp_cf_left(cf) ? n : (size_t)gpudp_cf_left(cf);
		memcpy(dst, cf->map + cf->pos, got);
		cf->pos += got;
		return got == n ? 0 : 1;
	}
	got = n > 0 ? fread(dst, 1, n, cf->fp) : 0;

	cf->pos += got;
	if (got == n)
		return 0;
	if (ferror(cf->fp))
		return cf_fail(cf, -EIO, "read error at offset %llu", (unsigned long long)cf->pos);
	return 1;
}

/* Skip n bytes, n at most gpudp_cf_left(). */
int
gpudp_cf_skip(struct gpudp_capfile *cf, uint64_t n)
{
	if (n == 0)
		return 0;
	if (cf->map != NULL) {
		cf->pos += n;
		return 0;
	}
	if (n > (uint64_t)INT64_MAX || fseeko(cf->fp, (off_t)n, SEEK_CUR) != 0)
		return cf_fail(cf, -EIO, "seek error at offset %llu", (unsigned long long)cf->pos);
	cf->pos += n;
	return 0;
}

int
gpudp_cf_reserve(struct gpudp_capfile *cf, size_t n)
{
	uint8_t *nb;

	if (n <= cf->buf_cap)
		return 0;
	nb = realloc(cf->buf, n);
	if (nb == NULL)
		return cf_fail(cf, -ENOMEM, "out of memory for a %zu-byte block", n);
	cf->buf = nb;
	cf->buf_cap = n;
	return 0;
}

/* The file ends inside the record or block at off. */
int
gpudp_cf_truncated(struct gpudp_capfile *cf, uint64_t off)
{
	cf->truncated = 1;
	cf->trunc_offset = off;
	cf->done = 1;
	return 0;
}

/* libpcap's largest record of a link type (max_snaplen_for_dlt). */
uint32_t
gpudp_cf_lt_max(uint32_t linktype)
{
	switch (linktype) {
	case 231: return 128u << 20;   /* DBUS */
	case 279: return 8u << 20;     /* EBHSCR */
	case 249: return 1u << 20;     /* USBPCAP */
	default: return GPUDP_CAPFILE_MAX_SNAPLEN;
	}
}

/* libpcap's snap length for a stated one (pcap_adjust_snapshot). */
uint32_t
gpudp_cf_lt_snaplen(uint32_t linktype, uint32_t snaplen)
{
	return snaplen == 0 || snaplen > INT_MAX ? gpudp_cf_lt_max(linktype) : snaplen;
}

const char *
gpudp_capfile_linktype_name(uint32_t lt)
{
	switch (lt) {
	case 0: return "NULL (BSD loopback)";
	case 1: return "EN10MB (Ethernet)";
	case 101: return "RAW (raw IP)";
	case 105: return "IEEE802_11";
	case 113: return "LINUX_SLL (Linux cooked v1)";
	case 127: return "IEEE802_11_RADIOTAP";
	case 228: return "IPV4";
	case 229: return "IPV6";
	case 276: return "LINUX_SLL2 (Linux cooked v2)";
	default: return "unknown";
	}
}

/* -------------------------------------------------------------- the API */

static int
cf_open(struct gpudp_capfile *cf)
{
	uint8_t hdr[24];
	uint32_t magic;
	struct stat st;
	int rc;

	cf->fp = fopen(cf->path, "rb");
	if (cf->fp == NULL) {
		rc = errno;
		return cf_fail(cf, -rc, "cannot open: %s", strerror(rc));
	}
	if (fstat(fileno(cf->fp), &st) != 0) {
		rc = errno;
		return cf_fail(cf, -rc, "cannot stat: %s", strerror(rc));
	}
	if (S_ISDIR(st.st_mode))
		return cf_fail(cf, -EISDIR, "is a directory, not a capture file");
	if (!S_ISREG(st.st_mode))
		return cf_fail(cf, -EINVAL, "not a regular file (a capture file is read twice: "
			       "inspected, then replayed)");
	cf->size = (uint64_t)st.st_size;
	if (cf->size == 0)
		return cf_fail(cf, -ENODATA, "empty file (no capture header)");
	if (cf->size < 4)
		return cf_fail(cf, -EINVAL, "not a pcap or pcapng file (%llu bytes)",
			       (unsigned long long)cf->size);
	if ((cf->flags & GPUDP_CAPFILE_MMAP) != 0) {
		void *m = cf->size > SIZE_MAX ? MAP_FAILED :
			mmap(NULL, (size_t)cf->size, PROT_READ, MAP_PRIVATE, fileno(cf->fp), 0);

		if (m == MAP_FAILED) {
			rc = errno;
			return cf_fail(cf, -rc, "cannot map: %s", strerror(rc));
		}
		cf->map = m;
		madvise(m, (size_t)cf->size, MADV_SEQUENTIAL);
	}
	rc = gpudp_cf_read(cf, hdr, 4);
	if (rc != 0)
		return rc < 0 ? rc : cf_fail(cf, -EINVAL, "not a pcap or pcapng file");
	memcpy(&magic, hdr, 4);
	if (magic == NG_SHB)
		return gpudp_cf_ng_open(cf);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_KUZ || magic == PCAP_MAGIC_NS ||
	    magic == __builtin_bswap32(PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_KUZ) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_NS))
		return gpudp_cf_pcap_open(cf, hdr);
	return cf_fail(cf, -EINVAL, "not a pcap or pcapng file (magic number 0x%08x)", magic);
}

int
gpudp_capfile_open(const char *path, unsigned int flags, struct gpudp_capfile **out, char *err,
		   size_t errlen)
{
	struct gpudp_capfile *cf = calloc(1, sizeof(*cf));
	int rc;

	*out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cf == NULL || (cf->path = strdup(path)) == NULL ||
	    (cf->buf = malloc(2048)) == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: out of memory", path);
		gpudp_capfile_close(cf);
		return -ENOMEM;
	}
	cf->buf_cap = 2048;
	cf->flags = flags;
	rc = cf_open(cf);
	if (rc != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", cf->err);
		gpudp_capfile_close(cf);
		return rc;
	}
	*out = cf;
	return 0;
}

int
gpudp_capfile_next(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec)
{
	int rc;

	if (cf->failed)
		return cf->failed;
	if (cf->done)
		return 0;
	if (cf->format == GPUDP_CAPFILE_PCAP) {
		rc = gpudp_cf_pcap_next(cf, rec);
	} else {
		do {
			rc = gpudp_cf_ng_block(cf, rec);
		} while (rc == NG_AGAIN);
		if (rc == 0)
			gpudp_cf_ng_finish(cf);
	}
	if (rc == 1)
		rec->index = cf->index++;
	return rc;
}

int
gpudp_capfile_seek(struct gpudp_capfile *cf, uint64_t offset, uint64_t index)
{
	if (cf->failed)
		return cf->failed;
	if (cf->format != GPUDP_CAPFILE_PCAP)
		return -ENOTSUP;
	if (offset > cf->size || offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (cf->map == NULL && fseeko(cf->fp, (off_t)offset, SEEK_SET) != 0)
		return cf_fail(cf, -EIO, "seek error at offset %llu", (unsigned long long)offset);
	cf->pos = offset;
	cf->index = index;
	cf->done = 0;
	return 0;
}

uint64_t
gpudp_capfile_skip(struct gpudp_capfile *cf, uint64_t n)
{
	if (cf->failed || cf->done || cf->map == NULL || cf->format != GPUDP_CAPFILE_PCAP)
		return 0;
	return gpudp_cf_pcap_skip(cf, n);
}

uint32_t
gpudp_capfile_next_many(struct gpudp_capfile *cf, struct gpudp_capfile_mrec *r, uint32_t n,
			uint64_t end)
{
	if (cf->failed || cf->done || cf->format != GPUDP_CAPFILE_PCAP || cf->map == NULL ||
	    (cf->flags & GPUDP_CAPFILE_SKIP_DATA) ||
	    cf->first_lt != GPUDP_CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	return gpudp_cf_pcap_next_many(cf, r, n, end);
}

uint32_t
gpudp_capfile_parse_many(const struct gpudp_capfile *cf, const uint8_t *buf, uint64_t base,
			 uint64_t len, uint64_t end, uint64_t index, struct gpudp_capfile_mrec *r,
			 uint32_t n, uint64_t *used)
{
	*used = 0;
	if (cf->failed || cf->format != GPUDP_CAPFILE_PCAP ||
	    cf->first_lt != GPUDP_CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	return gpudp_cf_pcap_parse_many(cf, buf, base, len, end, index, r, n, used);
}

uint32_t
gpudp_capfile_parse_descs(const struct gpudp_capfile *cf, const uint8_t *buf, uint64_t base,
			  uint64_t len, uint64_t end, uint32_t off0, struct gpudp_pkt_desc *d,
			  uint32_t n, uint64_t *used, uint64_t *bytes)
{
	*used = 0;
	*bytes = 0;
	if (cf->failed || cf->format != GPUDP_CAPFILE_PCAP ||
	    cf->first_lt != GPUDP_CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	if (len > UINT32_MAX - off0)  /* every offset fits its 32 bits */
		len = UINT32_MAX - off0;
	return gpudp_cf_pcap_parse_descs(cf, buf, base, len, end, off0, d, n, used, bytes);
}

uint64_t
gpudp_capfile_index(const struct gpudp_capfile *cf)
{
	return cf->index;
}

int
gpudp_capfile_find_record(const struct gpudp_capfile *cf, uint64_t from, uint64_t to, uint64_t *off)
{
	uint64_t p;

	if (cf->map == NULL || cf->format != GPUDP_CAPFILE_PCAP)
		return -ENOTSUP;
	for (p = from; p < to && p < cf->size; p++)
		if (gpudp_cf_pcap_plausible(cf, p)) {
			*off = p;
			return 0;
		}
	return -ENOENT;
}

uint64_t
gpudp_capfile_tell(const struct gpudp_capfile *cf)
{
	return cf->pos;
}

uint64_t
gpudp_capfile_size(const struct gpudp_capfile *cf)
{
	return cf->size;
}

int
gpudp_capfile_size_now(const struct gpudp_capfile *cf, uint64_t *size)
{
	struct stat st;

	if (fstat(fileno(cf->fp), &st) != 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

int
gpudp_capfile_truncated(const struct gpudp_capfile *cf, uint64_t *offset)
{
	if (cf->truncated)
		*offset = cf->trunc_offset;
	return cf->truncated;
}

enum gpudp_capfile_format
gpudp_capfile_format_of(const struct gpudp_capfile *cf)
{
	return cf->format;
}

const uint8_t *
gpudp_capfile_map(const struct gpudp_capfile *cf)
{
	return cf->map;
}

const char *
gpudp_capfile_error(const struct gpudp_capfile *cf)
{
	return cf->err;
}

void
gpudp_capfile_close(struct gpudp_capfile *cf)
{
	if (cf == NULL)
		return;
	if (cf->map != NULL)
		munmap((void *)(uintptr_t)cf->map, (size_t)cf->size);
	if (cf->fp != NULL)
		fclose(cf->fp);
	free(cf->ifs);
	free(cf->buf);
	free(cf->path);
	free(cf);
}

void
gpudp_capfile_describe(const struct gpudp_capfile *cf, struct gpudp_capfile_info *info)
{
	info->format = cf->format;
	info->linktype = cf->have_if ? cf->first_lt : GPUDP_CAPFILE_LINKTYPE_NONE;
	info->snaplen = cf->have_if ? cf->first_snap : 0;
	info->sections = cf->sections;
	info->interfaces = cf->interfaces;
	info->truncated = cf->truncated;
	info->trunc_offset = cf->trunc_offset;
	info->size = cf->size;
	info->mixed_linktypes = cf->mixed;
	info->other_linktype = cf->other_lt;
	info->other_section = cf->other_section;
	info->other_ifid = cf->other_ifid;
	info->other_offset = cf->other_offset;
	snprintf(info->libpcap_diff, sizeof(info->libpcap_diff), "%s", cf->diff);
}
