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
#include <sys/stat.h>
#include <sys/types.h>

#include "capfile.h"

#define PCAP_MAGIC_US  0xa1b2c3d4u
#define PCAP_MAGIC_KUZ 0xa1b2cd34u  /* Kuznetzov's: 8 more bytes per record header */
#define PCAP_MAGIC_NS  0xa1b23c4du

#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 1u
#define NG_PB  2u
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_BOM 0x1A2B3C4Du

#define NG_SHB_MIN 28u                 /* header, byte order, version, length, trailer */
#define NG_SHB_MAX (1u << 20)          /* libpcap's limit on the first section header */
#define NG_BLOCK_MAX (16u << 20)       /* libpcap's block limit for most link types */
#define NG_MAX_IFACES (1u << 20)       /* per section */
#define NG_OPT_TSRESOL 9
#define NG_OPT_TSOFFSET 14

#define NS_PER_S 1000000000ull

struct cf_iface {
	uint32_t linktype;
	uint32_t snaplen;      /* as libpcap adjusts it */
	uint64_t tsresol;      /* ticks per second: 10^e or 2^e */
	uint64_t tsoffset;     /* seconds added (a signed value, added modulo 2^64) */
};

struct capfile {
	FILE *fp;
	char *path;
	unsigned int flags;
	uint64_t size;         /* of the file when opened */
	uint64_t pos;          /* offset of the next byte */
	int failed;            /* the error every call returns once one happened */
	int done;              /* end of file or truncation reached */
	char err[640];
	enum capfile_format format;
	int swap;              /* the file (section) is in the other byte order */
	uint64_t index;        /* of the next record */
	uint8_t *buf;          /* record data or the current block */
	size_t buf_cap;
	/* pcap */
	uint32_t hdrsize;      /* 16, or 24 (a1b2cd34) */
	int nsec;
	int lenswap;           /* 0: no, 1: swap caplen and len, 2: swap when caplen > len */
	uint32_t snaplen;      /* adjusted; records above it are cut to it */
	/* pcapng: the current section's interfaces */
	struct cf_iface *ifs;
	uint32_t n_if, cap_if;
	uint32_t max_block;
	int first_swap;
	/* what capfile_describe() reports */
	uint32_t sections;
	uint64_t interfaces;
	int have_if;
	uint32_t first_lt, first_snap;
	int truncated;
	uint64_t trunc_offset;
	int mixed;
	uint32_t other_lt, other_section, other_ifid;
	uint64_t other_offset;
	char diff[256];
};

/* ------------------------------------------------------------- helpers */

static int
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
static void
cf_diff(struct capfile *cf, const char *fmt, ...)
{
	va_list ap;

	if (cf->diff[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(cf->diff, sizeof(cf->diff), fmt, ap);
	va_end(ap);
}

static uint16_t
rd16(int swap, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static uint32_t
rd32(int swap, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t
rd64(int swap, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint64_t
cf_left(const struct capfile *cf)
{
	return cf->size > cf->pos ? cf->size - cf->pos : 0;
}

/* Read n bytes: 0, 1 (the file ended first: it shrank) or -EIO. */
static int
cf_read(struct capfile *cf, void *dst, size_t n)
{
	size_t got = n > 0 ? fread(dst, 1, n, cf->fp) : 0;

	cf->pos += got;
	if (got == n)
		return 0;
	if (ferror(cf->fp))
		return cf_fail(cf, -EIO, "read error at offset %llu", (unsigned long long)cf->pos);
	return 1;
}

/* Skip n bytes, n at most cf_left(). */
static int
cf_skip(struct capfile *cf, uint64_t n)
{
	if (n == 0)
		return 0;
	if (n > (uint64_t)INT64_MAX || fseeko(cf->fp, (off_t)n, SEEK_CUR) != 0)
		return cf_fail(cf, -EIO, "seek error at offset %llu", (unsigned long long)cf->pos);
	cf->pos += n;
	return 0;
}

static int
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
static int
cf_truncated(struct capfile *cf, uint64_t off)
{
	cf->truncated = 1;
	cf->trunc_offset = off;
	cf->done = 1;
	return 0;
}

/* libpcap's largest record of a link type (max_snaplen_for_dlt). */
static uint32_t
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
static uint32_t
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

/* ------------------------------------------------------------------ pcap */

static int
pcap_open(struct capfile *cf, uint8_t *hdr)
{
	uint32_t magic, lt, snap;
	uint16_t vmaj, vmin;
	int rc;

	if (cf->size < 24)
		return cf_fail(cf, -EINVAL, "truncated pcap file header (%llu of 24 bytes)",
			       (unsigned long long)cf->size);
	rc = cf_read(cf, hdr + 4, 20);
	if (rc != 0)
		return rc < 0 ? rc : cf_fail(cf, -EINVAL, "truncated pcap file header");
	memcpy(&magic, hdr, 4);
	cf->swap = magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_KUZ && magic != PCAP_MAGIC_NS;
	magic = rd32(cf->swap, hdr);
	vmaj = rd16(cf->swap, hdr + 4);
	vmin = rd16(cf->swap, hdr + 6);
	if (!((vmaj == 2 && vmin <= 4) || (vmaj == 543 && vmin == 0)))
		return cf_fail(cf, -EINVAL, "unsupported pcap version %u.%u (libpcap reads 2.0 "
			       "to 2.4)", vmaj, vmin);
	cf->lenswap = vmaj == 543 || vmin < 3 ? 1 : vmin == 3 ? 2 : 0;
	cf->format = CAPFILE_PCAP;
	cf->nsec = magic == PCAP_MAGIC_NS;
	cf->hdrsize = magic == PCAP_MAGIC_KUZ ? 24 : 16;
	lt = rd32(cf->swap, hdr + 20) & 0x03FFFFFFu;  /* the high 6 bits: FCS length */
	snap = lt_snaplen(lt, rd32(cf->swap, hdr + 16));
	/* libpcap: such files may hold cooked captures with a 14-byte fake header */
	if (magic == PCAP_MAGIC_KUZ && lt == CAPFILE_LINKTYPE_ETHERNET)
		snap = snap <= INT_MAX - 14 ? snap + 14 : INT_MAX;
	cf->snaplen = snap;
	cf->sections = 1;
	cf->interfaces = 1;
	cf->have_if = 1;
	cf->first_lt = lt;
	cf->first_snap = snap;
	return 0;
}

static int
pcap_next(struct capfile *cf, struct capfile_rec *rec)
{
	uint8_t rh[24];
	uint64_t off = cf->pos, left = cf_left(cf), ns;
	uint32_t caplen, wirelen, keep;
	int rc;

	if (left == 0) {
		cf->done = 1;
		return 0;
	}
	if (left < cf->hdrsize)
		return cf_truncated(cf, off);
	rc = cf_read(cf, rh, cf->hdrsize);
	if (rc != 0)
		return rc < 0 ? rc : cf_truncated(cf, off);
	caplen = rd32(cf->swap, rh + 8);
	wirelen = rd32(cf->swap, rh + 12);
	if (cf->lenswap == 1 || (cf->lenswap == 2 && caplen > wirelen)) {
		uint32_t t = caplen;

		caplen = wirelen;
		wirelen = t;
	}
	if (caplen > lt_max(cf->first_lt))
		return cf_fail(cf, -EINVAL, "corrupt record %llu at offset %llu: captured length %u "
			       "exceeds %u, the largest record of link type %u",
			       (unsigned long long)cf->index + 1, (unsigned long long)off, caplen,
			       lt_max(cf->first_lt), cf->first_lt);
	if (caplen > left - cf->hdrsize)
		return cf_truncated(cf, off);
	keep = caplen > cf->snaplen ? cf->snaplen : caplen;
	rec->data = NULL;
	if (!(cf->flags & CAPFILE_SKIP_DATA)) {
		rc = cf_reserve(cf, keep);
		if (rc == 0)
			rc = cf_read(cf, cf->buf, keep);
		if (rc != 0)
			return rc < 0 ? rc : cf_truncated(cf, off);
		rec->data = cf->buf;
		rc = cf_skip(cf, caplen - keep);
	} else {
		rc = cf_skip(cf, caplen);
	}
	if (rc != 0)
		return rc;
	ns = (uint64_t)rd32(cf->swap, rh + 4) * (cf->nsec ? 1 : 1000);
	rec->ts_sec = rd32(cf->swap, rh) + ns / NS_PER_S;
	rec->ts_nsec = (uint32_t)(ns % NS_PER_S);
	rec->offset = off;
	rec->caplen = keep;
	rec->wirelen = wirelen;
	rec->linktype = cf->first_lt;
	rec->section = 0;
	rec->ifid = 0;
	return 1;
}

/* ---------------------------------------------------------------- pcapng */

#define NG_AGAIN 2  /* a block without a packet was read */

static int
ng_shb(struct capfile *cf, const uint8_t *b, int swap, uint64_t off)
{
	uint16_t vmaj = rd16(swap, b + 4), vmin = rd16(swap, b + 6);

	if (!(vmaj == 1 && (vmin == 0 || vmin == 2)))
		return cf_fail(cf, -EINVAL, "unsupported pcapng version %u.%u in the section header "
			       "block at offset %llu (libpcap reads 1.0 and 1.2)", vmaj, vmin,
			       (unsigned long long)off);
	if (cf->sections == UINT32_MAX)
		return cf_fail(cf, -EINVAL, "too many sections (section header block at offset %llu)",
			       (unsigned long long)off);
	/* b[0] is the first byte of the byte-order magic 0x1A2B3C4D as written */
	if (cf->sections == 0)
		cf->first_swap = swap;
	else if (swap != cf->first_swap)
		cf_diff(cf, "section %u (offset %llu) is %s-endian and section 0 %s-endian, and "
			"libpcap 1.10 stops at a change of byte order", cf->sections,
			(unsigned long long)off, b[0] == 0x4D ? "little" : "big",
			b[0] == 0x4D ? "big" : "little");
	cf->sections++;
	cf->swap = swap;
	cf->n_if = 0;
	return NG_AGAIN;
}

/* An interface description block of blen bytes (between header and trailer). */
static int
ng_idb(struct capfile *cf, const uint8_t *b, uint32_t blen, uint64_t off)
{
	struct cf_iface ifc = { .tsresol = 1000000 };
	int swap = cf->swap, saw_resol = 0, saw_offset = 0;
	uint32_t p = 8, need;

	if (blen < 8)
		return cf_fail(cf, -EINVAL, "corrupt interface description block at offset %llu: "
			       "%u bytes, below 8", (unsigned long long)off, blen);
	ifc.linktype = rd16(swap, b);
	ifc.snaplen = lt_snaplen(ifc.linktype, rd32(swap, b + 4));
	while (p < blen) {
		uint16_t code, olen;
		uint32_t padded;
		const uint8_t *v;

		if (blen - p < 4)
			return cf_fail(cf, -EINVAL, "corrupt interface description block at offset "
				       "%llu: an option header is cut", (unsigned long long)off);
		code = rd16(swap, b + p);
		olen = rd16(swap, b + p + 2);
		p += 4;
		padded = ((uint32_t)olen + 3u) & ~3u;
		if (padded > blen - p)
			return cf_fail(cf, -EINVAL, "corrupt interface description block at offset "
				       "%llu: option %u of length %u runs past the block",
				       (unsigned long long)off, code, olen);
		v = b + p;
		p += padded;
		if (code == 0) {
			if (olen != 0)
				return cf_fail(cf, -EINVAL, "corrupt interface description block "
					       "at offset %llu: opt_endofopt of length %u",
					       (unsigned long long)off, olen);
			break;
		}
		if (code == NG_OPT_TSRESOL) {
			unsigned int e = v[0] & 0x7fu, i;

			if (olen != 1 || saw_resol)
				return cf_fail(cf, -EINVAL, "corrupt interface description block "
					       "at offset %llu: %s", (unsigned long long)off,
					       saw_resol ? "two if_tsresol options" :
					       "if_tsresol of length other than 1");
			saw_resol = 1;
			if (v[0] & 0x80u) {
				if (e > 63)
					return cf_fail(cf, -EINVAL, "interface description block at "
						       "offset %llu: if_tsresol 2^-%u is finer than "
						       "2^-63 (libpcap refuses it)",
						       (unsigned long long)off, e);
				ifc.tsresol = 1ull << e;
			} else {
				if (e > 19)
					return cf_fail(cf, -EINVAL, "interface description block at "
						       "offset %llu: if_tsresol 10^-%u is finer than "
						       "10^-19 (libpcap refuses it)",
						       (unsigned long long)off, e);
				ifc.tsresol = 1;
				for (i = 0; i < e; i++)
					ifc.tsresol *= 10;
			}
		} else if (code == NG_OPT_TSOFFSET) {
			if (olen != 8 || saw_offset)
				return cf_fail(cf, -EINVAL, "corrupt interface description block "
					       "at offset %llu: %s", (unsigned long long)off,
					       saw_offset ? "two if_tsoffset options" :
					       "if_tsoffset of length other than 8");
			saw_offset = 1;
			ifc.tsoffset = rd64(swap, v);
		}
	}
	if (cf->n_if == NG_MAX_IFACES)
		return cf_fail(cf, -EINVAL, "more than %u interfaces in section %u (block at offset "
			       "%llu)", NG_MAX_IFACES, cf->sections - 1, (unsigned long long)off);
	if (cf->n_if == cf->cap_if) {
		uint32_t nc = cf->cap_if ? cf->cap_if * 2 : 8;
		struct cf_iface *ni = realloc(cf->ifs, (size_t)nc * sizeof(*ni));

		if (ni == NULL)
			return cf_fail(cf, -ENOMEM, "out of memory for %u interfaces", nc);
		cf->ifs = ni;
		cf->cap_if = nc;
	}
	if (!cf->have_if) {
		cf->have_if = 1;
		cf->first_lt = ifc.linktype;
		cf->first_snap = ifc.snaplen;
	} else if (ifc.linktype != cf->first_lt) {
		if (!cf->mixed) {
			cf->mixed = 1;
			cf->other_lt = ifc.linktype;
			cf->other_section = cf->sections - 1;
			cf->other_ifid = cf->n_if;
			cf->other_offset = off;
		}
		cf_diff(cf, "interface %u of section %u (offset %llu) has link type %u, the first "
			"interface %u, and libpcap 1.10 refuses such an interface and its packets",
			cf->n_if, cf->sections - 1, (unsigned long long)off, ifc.linktype,
			cf->first_lt);
	} else if (ifc.snaplen != cf->first_snap) {
		cf_diff(cf, "interface %u of section %u (offset %llu) has snap length %u, the first "
			"interface %u, and libpcap 1.10 refuses such an interface and its packets",
			cf->n_if, cf->sections - 1, (unsigned long long)off, ifc.snaplen,
			cf->first_snap);
	}
	/* libpcap: room for a largest record and 128 KiB of options */
	need = lt_max(ifc.linktype) + 131072u + 32u;
	if (need > cf->max_block)
		cf->max_block = need;
	cf->ifs[cf->n_if++] = ifc;
	cf->interfaces++;
	return NG_AGAIN;
}

static int
ng_packet(struct capfile *cf, uint32_t type, const uint8_t *b, uint32_t blen, uint64_t off,
	  struct capfile_rec *rec)
{
	const char *what = type == NG_EPB ? "enhanced packet block" :
		type == NG_PB ? "packet block" : "simple packet block";
	uint32_t hdr = type == NG_SPB ? 4 : 20, ifid, caplen, wirelen;
	const struct cf_iface *ifc;
	uint64_t t = 0, frac;
	int swap = cf->swap;

	if (blen < hdr)
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: %u bytes, below %u", what,
			       (unsigned long long)off, blen, hdr);
	if (type == NG_SPB) {
		ifid = 0;
		wirelen = rd32(swap, b);
		caplen = cf->n_if > 0 && wirelen > cf->ifs[0].snaplen ? cf->ifs[0].snaplen : wirelen;
	} else {
		ifid = type == NG_EPB ? rd32(swap, b) : rd16(swap, b);
		t = (uint64_t)rd32(swap, b + 4) << 32 | rd32(swap, b + 8);
		caplen = rd32(swap, b + 12);
		wirelen = rd32(swap, b + 16);
	}
	if (ifid >= cf->n_if)
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: interface %u, but section %u "
			       "declares %u", what, (unsigned long long)off, ifid,
			       cf->sections - 1, cf->n_if);
	ifc = &cf->ifs[ifid];
	if (caplen > blen - hdr)
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: captured length %u runs past "
			       "the block (%u bytes of data)", what, (unsigned long long)off, caplen,
			       blen - hdr);
	if (caplen > lt_max(ifc->linktype))
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: captured length %u exceeds "
			       "%u, the largest record of link type %u", what,
			       (unsigned long long)off, caplen, lt_max(ifc->linktype), ifc->linktype);
	if (caplen > ifc->snaplen)
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: captured length %u exceeds "
			       "the snap length %u of interface %u (libpcap refuses such a record)",
			       what, (unsigned long long)off, caplen, ifc->snaplen, ifid);
	frac = t % ifc->tsresol;
	rec->ts_sec = t / ifc->tsresol + ifc->tsoffset;
	rec->ts_nsec = (uint32_t)((unsigned __int128)frac * NS_PER_S / ifc->tsresol);
	rec->offset = off;
	rec->caplen = caplen;
	rec->wirelen = wirelen;
	rec->linktype = ifc->linktype;
	rec->section = cf->sections - 1;
	rec->ifid = ifid;
	rec->data = b + hdr;
	return 1;
}

/* Read one block: 1 (a packet in rec), NG_AGAIN, 0 (end) or an error. */
static int
ng_block(struct capfile *cf, struct capfile_rec *rec)
{
	uint64_t off = cf->pos, left = cf_left(cf);
	uint32_t type, len, blen, max, trail;
	uint8_t bh[12];
	int swap = cf->swap, rc, have = 0;

	if (left == 0) {
		cf->done = 1;
		return 0;
	}
	if (left < 8)
		return cf_truncated(cf, off);
	rc = cf_read(cf, bh, 8);
	if (rc != 0)
		return rc < 0 ? rc : cf_truncated(cf, off);
	memcpy(&type, bh, 4);
	if (type == NG_SHB) {
		uint32_t bom;

		if (left < 12)
			return cf_truncated(cf, off);
		rc = cf_read(cf, bh + 8, 4);
		if (rc != 0)
			return rc < 0 ? rc : cf_truncated(cf, off);
		have = 4;
		memcpy(&bom, bh + 8, 4);
		if (bom == NG_BOM)
			swap = 0;
		else if (bom == __builtin_bswap32(NG_BOM))
			swap = 1;
		else
			return cf_fail(cf, -EINVAL, "corrupt pcapng section header block at offset "
				       "%llu: byte-order magic 0x%08x", (unsigned long long)off, bom);
	}
	type = rd32(swap, bh);
	len = rd32(swap, bh + 4);
	if (len < 12 || len % 4 != 0)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: length %u (%s)",
			       (unsigned long long)off, len,
			       len < 12 ? "below 12" : "not a multiple of 4");
	if (type == NG_SHB && len < NG_SHB_MIN)
		return cf_fail(cf, -EINVAL, "corrupt pcapng section header block at offset %llu: "
			       "length %u, below %u", (unsigned long long)off, len, NG_SHB_MIN);
	max = type == NG_SHB && cf->sections == 0 ? NG_SHB_MAX : cf->max_block;
	if (len > max)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: length %u exceeds "
			       "%u, libpcap's limit", (unsigned long long)off, len, max);
	if (len > left)
		return cf_truncated(cf, off);
	blen = len - 12;
	if (type == NG_SHB || type == NG_IDB || type == NG_EPB || type == NG_PB ||
	    type == NG_SPB) {
		rc = cf_reserve(cf, (size_t)len - 8);
		if (rc == 0) {
			memcpy(cf->buf, bh + 8, (size_t)have);
			rc = cf_read(cf, cf->buf + have, (size_t)len - 8 - (size_t)have);
		}
		if (rc != 0)
			return rc < 0 ? rc : cf_truncated(cf, off);
		trail = rd32(swap, cf->buf + blen);
	} else {
		uint8_t t4[4];

		rc = cf_skip(cf, blen);
		if (rc == 0)
			rc = cf_read(cf, t4, 4);
		if (rc != 0)
			return rc < 0 ? rc : cf_truncated(cf, off);
		trail = rd32(swap, t4);
	}
	if (trail != len)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: trailing length %u, "
			       "leading length %u", (unsigned long long)off, trail, len);
	switch (type) {
	case NG_SHB:
		return ng_shb(cf, cf->buf, swap, off);
	case NG_IDB:
		return ng_idb(cf, cf->buf, blen, off);
	case NG_EPB:
	case NG_PB:
	case NG_SPB:
		return ng_packet(cf, type, cf->buf, blen, off, rec);
	default:
		return NG_AGAIN;
	}
}

/* The end (or truncation) of a pcapng file was reached. */
static void
ng_finish(struct capfile *cf)
{
	if (cf->have_if)
		return;
	if (cf->truncated)
		cf_diff(cf, "the file ends (offset %llu) before its first interface description "
			"block is complete, and libpcap 1.10 cannot open such a file",
			(unsigned long long)cf->trunc_offset);
	else
		cf_diff(cf, "the file has no interface description block, and libpcap 1.10 cannot "
			"open such a file");
}

static int
ng_open(struct capfile *cf)
{
	struct capfile_rec rec;
	int rc;

	cf->format = CAPFILE_PCAPNG;
	cf->max_block = NG_BLOCK_MAX;
	if (fseeko(cf->fp, 0, SEEK_SET) != 0)
		return cf_fail(cf, -EIO, "seek error");
	cf->pos = 0;
	rc = ng_block(cf, &rec);
	if (rc < 0)
		return rc;
	if (cf->truncated)
		return cf_fail(cf, -EINVAL, "the file ends inside its pcapng section header block "
			       "(%llu bytes)", (unsigned long long)cf->size);
	return 0;
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
	rc = cf_read(cf, hdr, 4);
	if (rc != 0)
		return rc < 0 ? rc : cf_fail(cf, -EINVAL, "not a pcap or pcapng file");
	memcpy(&magic, hdr, 4);
	if (magic == NG_SHB)
		return ng_open(cf);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_KUZ || magic == PCAP_MAGIC_NS ||
	    magic == __builtin_bswap32(PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_KUZ) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_NS))
		return pcap_open(cf, hdr);
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
		rc = pcap_next(cf, rec);
	} else {
		do {
			rc = ng_block(cf, rec);
		} while (rc == NG_AGAIN);
		if (rc == 0)
			ng_finish(cf);
	}
	if (rc == 1)
		rec->index = cf->index++;
	return rc;
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
		info->bytes += rec.wirelen < rec.caplen ? rec.caplen : rec.wirelen;
		if (rec.caplen > info->max_caplen)
			info->max_caplen = rec.caplen;
		if (rec.caplen > over_len)
			info->oversize++;
		if (rec.wirelen > rec.caplen && note_snap(info, &rec) != 0) {
			rc = cf_fail(cf, -ENOMEM, "out of memory for the list of snapped records");
			break;
		}
	}
	if (rc == 0) {
		capfile_describe(cf, info);
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
	p->wirelen = r->wirelen < r->caplen ? r->caplen : r->wirelen;
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
