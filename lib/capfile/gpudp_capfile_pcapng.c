/* SPDX-License-Identifier: BSD-3-Clause */
/* Capture file reader: pcapng (the rules are at the top of gpudp_capfile.c). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_capfile_pvt.h"

static int
ng_shb(struct gpudp_capfile *cf, const uint8_t *b, int swap, uint64_t off)
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

/* the options of an interface description block: if_tsresol, if_tsoffset */
static int
ng_idb_options(struct gpudp_capfile *cf, const uint8_t *b, uint32_t blen, uint64_t off,
	       struct cf_iface *ifc_out)
{
	struct cf_iface ifc = *ifc_out;
	int swap = cf->swap, saw_resol = 0, saw_offset = 0;
	uint32_t p = 8;

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
	*ifc_out = ifc;
	return 0;
}

/* a new interface of the current section: the table, what libpcap would do */
static int
ng_idb_add(struct gpudp_capfile *cf, const struct cf_iface *ifc_in, uint64_t off)
{
	struct cf_iface ifc = *ifc_in;
	uint32_t need;

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
	need = gpudp_cf_lt_max(ifc.linktype) + 131072u + 32u;
	if (need > cf->max_block)
		cf->max_block = need;
	cf->ifs[cf->n_if++] = ifc;
	cf->interfaces++;
	return NG_AGAIN;
}

/* An interface description block of blen bytes (between header and trailer). */
static int
ng_idb(struct gpudp_capfile *cf, const uint8_t *b, uint32_t blen, uint64_t off)
{
	struct cf_iface ifc = { .tsresol = 1000000 };
	int rc;

	if (blen < 8)
		return cf_fail(cf, -EINVAL, "corrupt interface description block at offset %llu: "
			       "%u bytes, below 8", (unsigned long long)off, blen);
	ifc.linktype = rd16(cf->swap, b);
	ifc.snaplen = gpudp_cf_lt_snaplen(ifc.linktype, rd32(cf->swap, b + 4));
	rc = ng_idb_options(cf, b, blen, off, &ifc);
	if (rc != 0)
		return rc;
	return ng_idb_add(cf, &ifc, off);
}

static int
ng_packet(struct gpudp_capfile *cf, uint32_t type, const uint8_t *b, uint32_t blen, uint64_t off,
	  struct gpudp_capfile_rec *rec)
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
	if (caplen > gpudp_cf_lt_max(ifc->linktype))
		return cf_fail(cf, -EINVAL, "corrupt %s at offset %llu: captured length %u exceeds "
			       "%u, the largest record of link type %u", what,
			       (unsigned long long)off, caplen, gpudp_cf_lt_max(ifc->linktype),
			       ifc->linktype);
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

/* A block's leading part: its type and length as read in its section's byte order. */
struct ng_head {
	uint8_t bh[12];        /* type, length, and a section header's byte-order magic */
	int have;              /* bytes of the block after the length already in bh (0 or 4) */
	int swap;              /* the byte order of the block */
	uint32_t type, len;
};

/*
 * Read a block's type and length (and a section header's byte-order magic)
 * and check the length: 1 (h filled), 0 (the file ends inside the block) or
 * an error.
 */
static int
ng_block_head(struct gpudp_capfile *cf, uint64_t off, uint64_t left, struct ng_head *h)
{
	uint32_t type, max;
	int rc;

	h->swap = cf->swap;
	h->have = 0;
	if (left < 8)
		return gpudp_cf_truncated(cf, off);
	rc = gpudp_cf_read(cf, h->bh, 8);
	if (rc != 0)
		return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
	memcpy(&type, h->bh, 4);
	if (type == NG_SHB) {
		uint32_t bom;

		if (left < 12)
			return gpudp_cf_truncated(cf, off);
		rc = gpudp_cf_read(cf, h->bh + 8, 4);
		if (rc != 0)
			return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
		h->have = 4;
		memcpy(&bom, h->bh + 8, 4);
		if (bom == NG_BOM)
			h->swap = 0;
		else if (bom == __builtin_bswap32(NG_BOM))
			h->swap = 1;
		else
			return cf_fail(cf, -EINVAL, "corrupt pcapng section header block at offset "
				       "%llu: byte-order magic 0x%08x", (unsigned long long)off, bom);
	}
	h->type = rd32(h->swap, h->bh);
	h->len = rd32(h->swap, h->bh + 4);
	if (h->len < 12 || h->len % 4 != 0)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: length %u (%s)",
			       (unsigned long long)off, h->len,
			       h->len < 12 ? "below 12" : "not a multiple of 4");
	if (h->type == NG_SHB && h->len < NG_SHB_MIN)
		return cf_fail(cf, -EINVAL, "corrupt pcapng section header block at offset %llu: "
			       "length %u, below %u", (unsigned long long)off, h->len, NG_SHB_MIN);
	max = h->type == NG_SHB && cf->sections == 0 ? NG_SHB_MAX : cf->max_block;
	if (h->len > max)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: length %u exceeds "
			       "%u, libpcap's limit", (unsigned long long)off, h->len, max);
	if (h->len > left)
		return gpudp_cf_truncated(cf, off);
	return 1;
}

/*
 * Read the rest of a block (into cf->buf for the blocks this reader uses,
 * skipped for the others) and check its trailing length: 1, 0 (the file
 * ends inside the block) or an error.
 */
static int
ng_block_body(struct gpudp_capfile *cf, const struct ng_head *h, uint64_t off)
{
	uint32_t type = h->type, len = h->len, blen = len - 12, trail;
	int rc;

	if (type == NG_SHB || type == NG_IDB || type == NG_EPB || type == NG_PB ||
	    type == NG_SPB) {
		rc = gpudp_cf_reserve(cf, (size_t)len - 8);
		if (rc == 0) {
			memcpy(cf->buf, h->bh + 8, (size_t)h->have);
			rc = gpudp_cf_read(cf, cf->buf + h->have,
					   (size_t)len - 8 - (size_t)h->have);
		}
		if (rc != 0)
			return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
		trail = rd32(h->swap, cf->buf + blen);
	} else {
		uint8_t t4[4];

		rc = gpudp_cf_skip(cf, blen);
		if (rc == 0)
			rc = gpudp_cf_read(cf, t4, 4);
		if (rc != 0)
			return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
		trail = rd32(h->swap, t4);
	}
	if (trail != len)
		return cf_fail(cf, -EINVAL, "corrupt pcapng block at offset %llu: trailing length %u, "
			       "leading length %u", (unsigned long long)off, trail, len);
	return 1;
}

/* Read one block: 1 (a packet in rec), NG_AGAIN, 0 (end) or an error. */
int
gpudp_cf_ng_block(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec)
{
	uint64_t off = cf->pos, left = gpudp_cf_left(cf);
	struct ng_head h;
	uint32_t blen;
	int rc;

	if (left == 0) {
		cf->done = 1;
		return 0;
	}
	rc = ng_block_head(cf, off, left, &h);
	if (rc != 1)
		return rc;
	rc = ng_block_body(cf, &h, off);
	if (rc != 1)
		return rc;
	blen = h.len - 12;
	switch (h.type) {
	case NG_SHB:
		return ng_shb(cf, cf->buf, h.swap, off);
	case NG_IDB:
		return ng_idb(cf, cf->buf, blen, off);
	case NG_EPB:
	case NG_PB:
	case NG_SPB:
		return ng_packet(cf, h.type, cf->buf, blen, off, rec);
	default:
		return NG_AGAIN;
	}
}

/* The end (or truncation) of a pcapng file was reached. */
void
gpudp_cf_ng_finish(struct gpudp_capfile *cf)
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

int
gpudp_cf_ng_open(struct gpudp_capfile *cf)
{
	struct gpudp_capfile_rec rec;
	int rc;

	cf->format = GPUDP_CAPFILE_PCAPNG;
	cf->max_block = NG_BLOCK_MAX;
	if (fseeko(cf->fp, 0, SEEK_SET) != 0)
		return cf_fail(cf, -EIO, "seek error");
	cf->pos = 0;
	rc = gpudp_cf_ng_block(cf, &rec);
	if (rc < 0)
		return rc;
	if (cf->truncated)
		return cf_fail(cf, -EINVAL, "the file ends inside its pcapng section header block "
			       "(%llu bytes)", (unsigned long long)cf->size);
	return 0;
}
