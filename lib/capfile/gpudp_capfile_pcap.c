/* SPDX-License-Identifier: BSD-3-Clause */
/* Capture file reader: classic pcap (the rules are at the top of gpudp_capfile.c). */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "gpudp_capfile_pvt.h"

int
gpudp_cf_pcap_open(struct gpudp_capfile *cf, uint8_t *hdr)
{
	uint32_t magic, lt, snap;
	uint16_t vmaj, vmin;
	int rc;

	if (cf->size < 24)
		return cf_fail(cf, -EINVAL, "truncated pcap file header (%llu of 24 bytes)",
			       (unsigned long long)cf->size);
	rc = gpudp_cf_read(cf, hdr + 4, 20);
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
	cf->format = GPUDP_CAPFILE_PCAP;
	cf->nsec = magic == PCAP_MAGIC_NS;
	cf->hdrsize = magic == PCAP_MAGIC_KUZ ? 24 : 16;
	lt = rd32(cf->swap, hdr + 20) & 0x03FFFFFFu;  /* the high 6 bits: FCS length */
	snap = gpudp_cf_lt_snaplen(lt, rd32(cf->swap, hdr + 16));
	/* libpcap: such files may hold cooked captures with a 14-byte fake header */
	if (magic == PCAP_MAGIC_KUZ && lt == GPUDP_CAPFILE_LINKTYPE_ETHERNET)
		snap = snap <= INT_MAX - 14 ? snap + 14 : INT_MAX;
	cf->snaplen = snap;
	cf->sections = 1;
	cf->interfaces = 1;
	cf->have_if = 1;
	cf->first_lt = lt;
	cf->first_snap = snap;
	return 0;
}

/*
 * A record header's captured and original lengths at @p h as libpcap reads
 * them: swapped in the versions that wrote them the other way round
 * (cf->lenswap).
 */
static inline void
pcap_lens(const struct gpudp_capfile *cf, const uint8_t *h, uint32_t *caplen, uint32_t *wirelen)
{
	uint32_t c = rd32(cf->swap, h + 8), w = rd32(cf->swap, h + 12);

	if (cf->lenswap == 1 || (cf->lenswap == 2 && c > w)) {
		*caplen = w;
		*wirelen = c;
	} else {
		*caplen = c;
		*wirelen = w;
	}
}

int
gpudp_cf_pcap_next(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec)
{
	uint8_t rh[24];
	uint64_t off = cf->pos, left = gpudp_cf_left(cf), ns;
	uint32_t caplen, wirelen, keep;
	int rc;

	if (left == 0) {
		cf->done = 1;
		return 0;
	}
	if (left < cf->hdrsize)
		return gpudp_cf_truncated(cf, off);
	rc = gpudp_cf_read(cf, rh, cf->hdrsize);
	if (rc != 0)
		return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
	pcap_lens(cf, rh, &caplen, &wirelen);
	if (caplen > gpudp_cf_lt_max(cf->first_lt))
		return cf_fail(cf, -EINVAL, "corrupt record %llu at offset %llu: captured length %u "
			       "exceeds %u, the largest record of link type %u",
			       (unsigned long long)cf->index + 1, (unsigned long long)off, caplen,
			       gpudp_cf_lt_max(cf->first_lt), cf->first_lt);
	if (caplen > left - cf->hdrsize)
		return gpudp_cf_truncated(cf, off);
	keep = caplen > cf->snaplen ? cf->snaplen : caplen;
	rec->data = NULL;
	if (cf->map != NULL && !(cf->flags & GPUDP_CAPFILE_SKIP_DATA)) {
		/* the record where it lies in the mapping */
		rec->data = cf->map + cf->pos;
		rc = gpudp_cf_skip(cf, caplen);
	} else if (!(cf->flags & GPUDP_CAPFILE_SKIP_DATA)) {
		rc = gpudp_cf_reserve(cf, keep);
		if (rc == 0)
			rc = gpudp_cf_read(cf, cf->buf, keep);
		if (rc != 0)
			return rc < 0 ? rc : gpudp_cf_truncated(cf, off);
		rec->data = cf->buf;
		rc = gpudp_cf_skip(cf, caplen - keep);
	} else {
		rc = gpudp_cf_skip(cf, caplen);
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

/* gpudp_capfile_skip() of a mapped pcap file: the checks of gpudp_cf_pcap_next() on lengths. */
uint64_t
gpudp_cf_pcap_skip(struct gpudp_capfile *cf, uint64_t n)
{
	const uint8_t *m = cf->map;
	uint64_t pos = cf->pos, size = cf->size, done = 0;
	uint32_t hs = cf->hdrsize, max = gpudp_cf_lt_max(cf->first_lt);

	while (done < n && size - pos >= hs) {
		uint32_t caplen, wirelen;

		pcap_lens(cf, m + pos, &caplen, &wirelen);
		if (caplen > max || caplen > size - pos - hs)
			break;
		pos += hs + caplen;
		done++;
	}
	cf->pos = pos;
	cf->index += done;
	return done;
}

/*
 * The record header at @p h (with @p left bytes from it on): its lengths
 * (caplen as in the file) and timestamp, when gpudp_cf_pcap_next()'s checks on
 * lengths pass and its bytes are all there. @return 1, or 0 to stop
 */
static inline int
pcap_hdr(const struct gpudp_capfile *cf, const uint8_t *h, uint64_t left, uint32_t max,
	 uint32_t *caplen, uint32_t *wirelen, uint64_t *ts_ns)
{
	pcap_lens(cf, h, caplen, wirelen);
	if (*caplen > max || *caplen > left - cf->hdrsize)
		return 0;
	*ts_ns = (uint64_t)rd32(cf->swap, h) * NS_PER_S +
		(uint64_t)rd32(cf->swap, h + 4) * (cf->nsec ? 1 : 1000);
	return 1;
}

/*
 * Up to @p n records of a pcap file among @p len of its bytes at @p m (the
 * bytes at file offset @p base), before file offset @p end, with
 * gpudp_cf_pcap_next()'s checks on lengths: it stops before the first record
 * they would not pass, and before one that runs past the bytes (cut short,
 * or read only in part). @return the records; *used: the bytes they take
 */
static uint32_t
pcap_many(const struct gpudp_capfile *cf, const uint8_t *m, uint64_t base, uint64_t len,
	  uint64_t end, uint64_t idx, struct gpudp_capfile_mrec *r, uint32_t n, uint64_t *used)
{
	uint64_t pos = 0;
	uint32_t hs = cf->hdrsize, max = gpudp_cf_lt_max(cf->first_lt), snap = cf->snaplen, k;

	for (k = 0; k < n && base + pos < end && len - pos >= hs; k++) {
		uint32_t caplen, wirelen;

		if (!pcap_hdr(cf, m + pos, len - pos, max, &caplen, &wirelen, &r[k].ts_ns))
			break;
		r[k].data = m + pos + hs;
		r[k].index = idx + k;
		r[k].offset = base + pos;
		r[k].caplen = caplen > snap ? snap : caplen;
		r[k].wirelen = wirelen;
		pos += hs + caplen;
	}
	*used = pos;
	return k;
}

/* Descriptor @p o of a record whose data is at @p off: its lengths cut to
 * the snap length as gpudp_capfile_next() gives them. @return its captured bytes */
static inline uint32_t
desc_set(struct gpudp_pkt_desc *o, uint32_t off, uint32_t caplen, uint32_t wirelen,
	 uint32_t snap, uint64_t ts_ns)
{
	uint32_t keep = caplen > snap ? snap : caplen;

	o->off = off;
	o->caplen = keep;
	o->wirelen = wirelen;
	o->mark = 0;
	o->ts_ns = ts_ns;
	return keep;
}

/*
 * Bytes ahead of the record being read that descs_native() asks the caches
 * for. Records read where they lie in memory (not just copied there, where
 * they are in the cache already) otherwise arrive one at a time, each load
 * waiting for the one before: asking ahead takes the walk from DRAM's
 * latency to its bandwidth. 2 KiB ahead was the fastest of 1, 2 and 4 KiB
 * (doc/capture-files.md, "What reading costs").
 */
#define DESCS_AHEAD 2048

/*
 * gpudp_cf_pcap_parse_descs()'s loop, for files in this host's byte order whose
 * header lengths need no swapping (nearly all): the header's fields read as
 * they are, the reader's settings in registers (stores to @p d could alias
 * the reader's fields). The checks are pcap_hdr()'s.
 */
static uint32_t
descs_native(const uint8_t *buf, uint64_t len, uint64_t lim, uint32_t off0, uint32_t hs,
	     uint32_t max, uint32_t snap, uint64_t mult, struct gpudp_pkt_desc *d, uint32_t n,
	     uint64_t *used, uint64_t *bytes)
{
	struct gpudp_pkt_desc *o = d, *oe = d + n;
	uint64_t pos = 0, sum = 0;

	/* a header starts before both the limit and the last hs bytes */
	if (len < hs)
		lim = 0;
	else if (lim > len - hs + 1)
		lim = len - hs + 1;
	len -= len < hs ? len : hs;   /* the bytes after the last header's start */
	off0 += hs;
	for (; o < oe && pos < lim; o++) {
		uint32_t w[4];

		/* the walk is a chain of loads, each waiting for the one before:
		 * ask for the bytes ahead (the next records' two lines) */
		__builtin_prefetch((const void *)((uintptr_t)buf + pos + DESCS_AHEAD));
		__builtin_prefetch((const void *)((uintptr_t)buf + pos + DESCS_AHEAD + 64));
		memcpy(w, buf + pos, sizeof(w));   /* seconds, fraction, caplen, wirelen */
		if (w[2] > max || w[2] > len - pos)
			break;
		sum += desc_set(o, off0 + (uint32_t)pos, w[2], w[3], snap,
				(uint64_t)w[0] * NS_PER_S + (uint64_t)w[1] * mult);
		pos += hs + w[2];
	}
	*used = pos;
	*bytes = sum;
	return (uint32_t)(o - d);
}

/* gpudp_capfile_parse_descs() of a pcap file */
uint32_t
gpudp_cf_pcap_parse_descs(const struct gpudp_capfile *cf, const uint8_t *buf, uint64_t base,
			  uint64_t len, uint64_t end, uint32_t off0, struct gpudp_pkt_desc *d,
			  uint32_t n, uint64_t *used, uint64_t *bytes)
{
	uint64_t pos = 0, sum = 0;
	uint32_t hs = cf->hdrsize, max = gpudp_cf_lt_max(cf->first_lt), snap = cf->snaplen, k;

	if (!cf->swap && !cf->lenswap)
		return descs_native(buf, len, end > base ? end - base : 0, off0, hs, max, snap,
				    cf->nsec ? 1 : 1000, d, n, used, bytes);
	for (k = 0; k < n && base + pos < end && len - pos >= hs; k++) {
		uint32_t caplen, wirelen;
		uint64_t ts;

		if (!pcap_hdr(cf, buf + pos, len - pos, max, &caplen, &wirelen, &ts))
			break;
		sum += desc_set(&d[k], off0 + (uint32_t)(pos + hs), caplen, wirelen, snap, ts);
		pos += hs + caplen;
	}
	*used = pos;
	*bytes = sum;
	return k;
}

/* gpudp_capfile_next_many() of a mapped pcap file: the records in the mapping */
uint32_t
gpudp_cf_pcap_next_many(struct gpudp_capfile *cf, struct gpudp_capfile_mrec *r, uint32_t n,
			uint64_t end)
{
	uint64_t used;
	uint32_t k = pcap_many(cf, cf->map + cf->pos, cf->pos, cf->size - cf->pos, end,
			       cf->index, r, n, &used);

	cf->pos += used;
	cf->index += k;
	return k;
}

/* gpudp_capfile_parse_many() of a pcap file */
uint32_t
gpudp_cf_pcap_parse_many(const struct gpudp_capfile *cf, const uint8_t *buf, uint64_t base,
			 uint64_t len, uint64_t end, uint64_t index, struct gpudp_capfile_mrec *r,
			 uint32_t n, uint64_t *used)
{
	return pcap_many(cf, buf, base, len, end, index, r, n, used);
}

/*
 * gpudp_capfile_find_record(): up to 8 records from @p off that gpudp_cf_pcap_next()
 * would take, none captured longer than sent, stamped within a day of the
 * first, or at least one and then the end of the file (or a record cut
 * short by it).
 */
int
gpudp_cf_pcap_plausible(const struct gpudp_capfile *cf, uint64_t off)
{
	const uint8_t *m = cf->map;
	uint32_t hs = cf->hdrsize, max = gpudp_cf_lt_max(cf->first_lt), k;
	uint32_t frac_max = cf->nsec ? 1000000000u : 1000000u, sec0 = 0;

	for (k = 0; k < 8; k++) {
		uint32_t caplen, wirelen, sec;

		if (off == cf->size)
			return k > 0;   /* records up to the end of the file */
		if (cf->size - off < hs)
			/* records up to a cut header at the end (gpudp_capfile_next()
			 * stops there) */
			return k > 0;
		pcap_lens(cf, m + off, &caplen, &wirelen);
		sec = rd32(cf->swap, m + off);
		if (k == 0)
			sec0 = sec;
		/* within a day of the first: packets' bytes rarely pass for that;
		 * and no more captured than sent: a header read 4 bytes late (its
		 * fraction as seconds, its lengths one field on, the packet's first
		 * bytes as the original length) would chain through the real
		 * records of a capture whose lengths are equal */
		if (rd32(cf->swap, m + off + 4) >= frac_max || caplen > max || caplen > wirelen ||
		    (sec > sec0 ? sec - sec0 : sec0 - sec) > 86400)
			return 0;
		if (caplen > cf->size - off - hs)
			return k > 0;   /* records up to a record cut at the end */
		off += hs + caplen;
	}
	return 1;
}
