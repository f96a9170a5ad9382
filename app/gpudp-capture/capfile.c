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
 * capfile_describe() says so (libpcap_diff). It also refuses pcapng records
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

#include "capfile_pvt.h"

/* ------------------------------------------------------------- helpers */

int
cf_fail(struct capfile *cf, int rc, const char *fmt, ...)
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
cf_diff(struct capfile *cf, const char *fmt, ...)
{
	va_list ap;

	if (cf->diff[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(cf->diff, sizeof(cf->diff), fmt, ap);
	va_end(ap);
}

uint64_t
cf_left(const struct capfile *cf)
{
	return cf->size > cf->pos ? cf->size - cf->pos : 0;
}

/* Read n bytes: 0, 1 (the file ended first: it shrank) or -EIO. */
int
cf_read(struct capfile *cf, void *dst, size_t n)
{
	size_t got;

	if (cf->map != NULL) {
		got = n < cf_left(cf) ? n : (size_t)cf_left(cf);
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

/* Skip n bytes, n at most cf_left(). */
int
cf_skip(struct capfile *cf, uint64_t n)
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
cf_reserve(struct capfile *cf, size_t n)
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
cf_truncated(struct capfile *cf, uint64_t off)
{
	cf->truncated = 1;
	cf->trunc_offset = off;
	cf->done = 1;
	return 0;
}

/* libpcap's largest record of a link type (max_snaplen_for_dlt). */
uint32_t
lt_max(uint32_t linktype)
{
	switch (linktype) {
	case 231: return 128u << 20;   /* DBUS */
	case 279: return 8u << 20;     /* EBHSCR */
	case 249: return 1u << 20;     /* USBPCAP */
	default: return CAPFILE_MAX_SNAPLEN;
	}
}

/* libpcap's snap length for a stated one (pcap_adjust_snapshot). */
uint32_t
lt_snaplen(uint32_t linktype, uint32_t snaplen)
{
	return snaplen == 0 || snaplen > INT_MAX ? lt_max(linktype) : snaplen;
}

const char *
capfile_linktype_name(uint32_t lt)
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
cf_open(struct capfile *cf)
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
	if ((cf->flags & CAPFILE_MMAP) != 0) {
		void *m = cf->size > SIZE_MAX ? MAP_FAILED :
			mmap(NULL, (size_t)cf->size, PROT_READ, MAP_PRIVATE, fileno(cf->fp), 0);

		if (m == MAP_FAILED) {
			rc = errno;
			return cf_fail(cf, -rc, "cannot map: %s", strerror(rc));
		}
		cf->map = m;
		madvise(m, (size_t)cf->size, MADV_SEQUENTIAL);
	}
	rc = cf_read(cf, hdr, 4);
	if (rc != 0)
		return rc < 0 ? rc : cf_fail(cf, -EINVAL, "not a pcap or pcapng file");
	memcpy(&magic, hdr, 4);
	if (magic == NG_SHB)
		return cf_ng_open(cf);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_KUZ || magic == PCAP_MAGIC_NS ||
	    magic == __builtin_bswap32(PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_KUZ) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_NS))
		return cf_pcap_open(cf, hdr);
	return cf_fail(cf, -EINVAL, "not a pcap or pcapng file (magic number 0x%08x)", magic);
}

int
capfile_open(const char *path, unsigned int flags, struct capfile **out, char *err,
	     size_t errlen)
{
	struct capfile *cf = calloc(1, sizeof(*cf));
	int rc;

	*out = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cf == NULL || (cf->path = strdup(path)) == NULL ||
	    (cf->buf = malloc(2048)) == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: out of memory", path);
		capfile_close(cf);
		return -ENOMEM;
	}
	cf->buf_cap = 2048;
	cf->flags = flags;
	rc = cf_open(cf);
	if (rc != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", cf->err);
		capfile_close(cf);
		return rc;
	}
	*out = cf;
	return 0;
}

int
capfile_next(struct capfile *cf, struct capfile_rec *rec)
{
	int rc;

	if (cf->failed)
		return cf->failed;
	if (cf->done)
		return 0;
	if (cf->format == CAPFILE_PCAP) {
		rc = cf_pcap_next(cf, rec);
	} else {
		do {
			rc = cf_ng_block(cf, rec);
		} while (rc == NG_AGAIN);
		if (rc == 0)
			cf_ng_finish(cf);
	}
	if (rc == 1)
		rec->index = cf->index++;
	return rc;
}

int
capfile_seek(struct capfile *cf, uint64_t offset, uint64_t index)
{
	if (cf->failed)
		return cf->failed;
	if (cf->format != CAPFILE_PCAP)
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
capfile_skip(struct capfile *cf, uint64_t n)
{
	if (cf->failed || cf->done || cf->map == NULL || cf->format != CAPFILE_PCAP)
		return 0;
	return cf_pcap_skip(cf, n);
}

uint32_t
capfile_next_many(struct capfile *cf, struct capfile_mrec *r, uint32_t n, uint64_t end)
{
	if (cf->failed || cf->done || cf->format != CAPFILE_PCAP || cf->map == NULL ||
	    (cf->flags & CAPFILE_SKIP_DATA) || cf->first_lt != CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	return cf_pcap_next_many(cf, r, n, end);
}

uint32_t
capfile_parse_many(const struct capfile *cf, const uint8_t *buf, uint64_t base, uint64_t len,
		   uint64_t end, uint64_t index, struct capfile_mrec *r, uint32_t n,
		   uint64_t *used)
{
	*used = 0;
	if (cf->failed || cf->format != CAPFILE_PCAP ||
	    cf->first_lt != CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	return cf_pcap_parse_many(cf, buf, base, len, end, index, r, n, used);
}

uint32_t
capfile_parse_descs(const struct capfile *cf, const uint8_t *buf, uint64_t base, uint64_t len,
		    uint64_t end, uint32_t off0, struct capfile_desc *d, uint32_t n,
		    uint64_t *used, uint64_t *bytes)
{
	*used = 0;
	*bytes = 0;
	if (cf->failed || cf->format != CAPFILE_PCAP ||
	    cf->first_lt != CAPFILE_LINKTYPE_ETHERNET)
		return 0;
	if (len > UINT32_MAX - off0)  /* every offset fits its 32 bits */
		len = UINT32_MAX - off0;
	return cf_pcap_parse_descs(cf, buf, base, len, end, off0, d, n, used, bytes);
}

uint64_t
capfile_index(const struct capfile *cf)
{
	return cf->index;
}

int
capfile_find_record(const struct capfile *cf, uint64_t from, uint64_t to, uint64_t *off)
{
	uint64_t p;

	if (cf->map == NULL || cf->format != CAPFILE_PCAP)
		return -ENOTSUP;
	for (p = from; p < to && p < cf->size; p++)
		if (cf_pcap_plausible(cf, p)) {
			*off = p;
			return 0;
		}
	return -ENOENT;
}

uint64_t
capfile_tell(const struct capfile *cf)
{
	return cf->pos;
}

uint64_t
capfile_size(const struct capfile *cf)
{
	return cf->size;
}

int
capfile_size_now(const struct capfile *cf, uint64_t *size)
{
	struct stat st;

	if (fstat(fileno(cf->fp), &st) != 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

int
capfile_truncated(const struct capfile *cf, uint64_t *offset)
{
	if (cf->truncated)
		*offset = cf->trunc_offset;
	return cf->truncated;
}

enum capfile_format
capfile_format_of(const struct capfile *cf)
{
	return cf->format;
}

const uint8_t *
capfile_map(const struct capfile *cf)
{
	return cf->map;
}

const char *
capfile_error(const struct capfile *cf)
{
	return cf->err;
}

void
capfile_close(struct capfile *cf)
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
capfile_describe(const struct capfile *cf, struct capfile_info *info)
{
	info->format = cf->format;
	info->linktype = cf->have_if ? cf->first_lt : CAPFILE_LINKTYPE_NONE;
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

/* ----------------------------------------------------------- inspection */

static int
note_snap(struct capfile_info *i, const struct capfile_rec *r)
{
	if (i->n_snaps == CAPFILE_MAX_SNAPS) {
		i->snaps_overflow = 1;
		return 0;
	}
	if ((i->n_snaps & (i->n_snaps - 1)) == 0) {
		size_t cap = i->n_snaps ? i->n_snaps * 2 : 64;
		struct capfile_snap *ns = realloc(i->snaps, cap * sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		i->snaps = ns;
	}
	i->snaps[i->n_snaps].index = r->index;
	i->snaps[i->n_snaps].wirelen = r->wirelen;
	i->n_snaps++;
	return 0;
}

int
capfile_inspect(const char *path, uint32_t over_len, struct capfile_info *info,
		char *err, size_t errlen)
{
	struct capfile_rec rec;
	struct capfile *cf;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = capfile_open(path, CAPFILE_SKIP_DATA, &cf, err, errlen);
	if (rc != 0)
		return rc;
	while ((rc = capfile_next(cf, &rec)) == 1) {
		info->packets++;
		info->bytes += rec.wirelen;
		if (rec.caplen > info->max_caplen)
			info->max_caplen = rec.caplen;
		if (rec.caplen > over_len)
			info->oversize++;
		if (rec.wirelen != rec.caplen && note_snap(info, &rec) != 0) {
			rc = cf_fail(cf, -ENOMEM, "out of memory for the list of snapped records");
			break;
		}
	}
	if (rc == 0) {
		capfile_describe(cf, info);
		/* a file that grew or shrank while it was walked */
		info->changed = capfile_size_now(cf, &info->size_now) == 0 &&
				info->size_now != cf->size;
	} else {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", capfile_error(cf));
		capfile_info_free(info);
	}
	capfile_close(cf);
	return rc;
}

void
capfile_info_free(struct capfile_info *info)
{
	free(info->snaps);
	info->snaps = NULL;
	info->n_snaps = 0;
}

/* ------------------------------------------------------- whole-file read */

struct collector {
	struct capfile_packets *out;
	size_t pkt_cap;
	size_t buf_cap;
};

static int
grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t nc = *cap ? *cap : first;
	void *np;

	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -ENOMEM;
		nc *= 2;
	}
	if (nc > SIZE_MAX / elem)
		return -ENOMEM;
	np = realloc(*p, nc * elem);
	if (np == NULL)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

static int
collect(struct collector *c, const struct capfile_rec *r)
{
	struct capfile_packets *o = c->out;
	size_t used = (size_t)o->data_bytes;
	struct capfile_pkt *p;

	if (o->n == c->pkt_cap &&
	    grow((void **)&o->pkt, &c->pkt_cap, o->n + 1, sizeof(*o->pkt), 1024) != 0)
		return -ENOMEM;
	/* the buffer exists even when every record is empty: data is never NULL */
	if ((o->buf == NULL || r->caplen > c->buf_cap - used) &&
	    grow((void **)&o->buf, &c->buf_cap, used + r->caplen, 1, 1 << 20) != 0)
		return -ENOMEM;
	if (r->caplen > 0)
		memcpy(o->buf + used, r->data, r->caplen);
	p = &o->pkt[o->n++];
	p->ts_ns = r->ts_sec * NS_PER_S + r->ts_nsec;  /* modulo 2^64 */
	p->caplen = r->caplen;
	p->wirelen = r->wirelen;
	p->data = (const uint8_t *)(uintptr_t)used;  /* an offset until the end */
	o->data_bytes += r->caplen;
	return 0;
}

int
capfile_read_all(const char *path, struct capfile_packets *out, char *err, size_t errlen)
{
	struct collector c = { .out = out };
	struct capfile_info info;
	struct capfile_rec rec;
	struct capfile *cf;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = capfile_open(path, 0, &cf, err, errlen);
	if (rc != 0)
		return rc;
	while ((rc = capfile_next(cf, &rec)) == 1) {
		if (rec.linktype != CAPFILE_LINKTYPE_ETHERNET && rec.linktype == cf->first_lt) {
			break;  /* the file's link type: said below */
		} else if (rec.linktype != CAPFILE_LINKTYPE_ETHERNET) {
			rc = cf_fail(cf, -EPROTONOSUPPORT, "record %llu (offset %llu) has link type "
				     "%u (%s), which is not Ethernet",
				     (unsigned long long)rec.index + 1,
				     (unsigned long long)rec.offset, rec.linktype,
				     capfile_linktype_name(rec.linktype));
			break;
		}
		if (collect(&c, &rec) != 0) {
			rc = cf_fail(cf, -ENOMEM, "out of memory after %zu packets", out->n);
			break;
		}
	}
	memset(&info, 0, sizeof(info));
	capfile_describe(cf, &info);
	if (rc >= 0 && info.linktype != CAPFILE_LINKTYPE_ETHERNET &&
	    info.linktype != CAPFILE_LINKTYPE_NONE)
		rc = cf_fail(cf, -EPROTONOSUPPORT, "link type %u (%s) is not Ethernet",
			     info.linktype, capfile_linktype_name(info.linktype));
	if (rc != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", capfile_error(cf));
		capfile_close(cf);
		capfile_packets_free(out);
		return rc;
	}
	capfile_close(cf);
	if (out->buf == NULL && grow((void **)&out->buf, &c.buf_cap, 1, 1, 1) != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: out of memory", path);
		capfile_packets_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < out->n; i++)
		out->pkt[i].data = out->buf + (uintptr_t)out->pkt[i].data;
	return 0;
}

void
capfile_packets_free(struct capfile_packets *p)
{
	free(p->pkt);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
