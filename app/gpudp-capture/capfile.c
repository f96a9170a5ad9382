/* SPDX-License-Identifier: BSD-3-Clause */
/* Capture file walker: classic pcap and pcapng, streaming with stdio. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capfile.h"

#define MAX_REC_LEN 262144u  /* libpcap's largest snap length for Ethernet */
#define MAX_IFACES 64

struct walker {
	FILE *fp;
	uint64_t size;           /* file size, for skipping records */
	const char *path;
	int swap;
	char *err;
	size_t errlen;
	struct capfile_info *info;
	uint32_t over_len;
	/* pcapng interfaces of the current section */
	uint32_t n_if;
	uint32_t if_link[MAX_IFACES];
	uint32_t if_snap[MAX_IFACES];
	uint64_t if_tsdiv[MAX_IFACES];  /* ticks per second */
	int if_tsshift[MAX_IFACES];     /* 1: ticks are 2^-x */
	/* read_all */
	int (*cb)(struct walker *w, uint64_t ts_ns, uint32_t caplen, uint32_t wirelen,
		  const uint8_t *data);
	uint8_t *pktbuf;
	struct capfile_packets *out;
	size_t out_cap;
	size_t buf_cap;
	size_t buf_used;
};

static int
werr(struct walker *w, int rc, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->err != NULL && w->errlen > 0)
		snprintf(w->err, w->errlen, "%s: %s", w->path, msg);
	return rc;
}

static uint32_t
u32(const struct walker *w, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return w->swap ? __builtin_bswap32(v) : v;
}

static uint16_t
u16(const struct walker *w, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return w->swap ? __builtin_bswap16(v) : v;
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

/* One complete record. data is NULL when only inspecting. */
static int
record(struct walker *w, uint64_t ts_ns, uint32_t caplen, uint32_t wirelen,
       const uint8_t *data)
{
	struct capfile_info *i = w->info;

	i->packets++;
	i->bytes += wirelen < caplen ? caplen : wirelen;
	if (caplen > i->max_caplen)
		i->max_caplen = caplen;
	if (caplen > w->over_len)
		i->oversize++;
	if (wirelen > caplen && w->cb == NULL) {
		if (i->n_snaps == CAPFILE_MAX_SNAPS) {
			i->snaps_overflow = 1;
		} else {
			if ((i->n_snaps & (i->n_snaps - 1)) == 0) {
				size_t cap = i->n_snaps ? i->n_snaps * 2 : 64;
				struct capfile_snap *ns = realloc(i->snaps, cap * sizeof(*ns));

				if (ns == NULL)
					return -ENOMEM;
				i->snaps = ns;
			}
			i->snaps[i->n_snaps].index = i->packets - 1;
			i->snaps[i->n_snaps].wirelen = wirelen;
			i->n_snaps++;
		}
	}
	return w->cb != NULL ? w->cb(w, ts_ns, caplen, wirelen, data) : 0;
}

/* Read or skip n bytes of record data; 1 if the file ended first. */
static int
body(struct walker *w, uint32_t n, uint8_t **data)
{
	*data = NULL;
	if (w->cb == NULL) {
		long here = ftell(w->fp);

		if (here < 0 || (uint64_t)here + n > w->size)
			return 1;
		return fseek(w->fp, n, SEEK_CUR) != 0;
	}
	if (fread(w->pktbuf, 1, n, w->fp) != n)
		return 1;
	*data = w->pktbuf;
	return 0;
}

static int
walk_pcap(struct walker *w, const uint8_t *hdr)
{
	uint32_t magic, nsec;
	uint8_t rh[16];
	int rc;

	memcpy(&magic, hdr, 4);
	w->swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
	magic = u32(w, hdr);
	nsec = magic == 0xa1b23c4du;
	if (u16(w, hdr + 4) != 2)
		return werr(w, -EINVAL, "unsupported pcap version %u.%u",
			    u16(w, hdr + 4), u16(w, hdr + 6));
	w->info->format = CAPFILE_PCAP;
	w->info->snaplen = u32(w, hdr + 16);
	w->info->linktype = u32(w, hdr + 20) & 0xffff;
	for (;;) {
		long off = ftell(w->fp);
		size_t got = fread(rh, 1, sizeof(rh), w->fp);
		uint32_t caplen, wirelen;
		uint8_t *data;

		if (got == 0)
			return 0;
		if (got < sizeof(rh)) {
			w->info->truncated = 1;
			w->info->trunc_offset = (uint64_t)off;
			return 0;
		}
		caplen = u32(w, rh + 8);
		wirelen = u32(w, rh + 12);
		if (caplen > MAX_REC_LEN)
			return werr(w, -EINVAL,
				    "corrupt record %llu at offset %ld: captured length %u "
				    "exceeds %u", (unsigned long long)w->info->packets + 1,
				    off, caplen, MAX_REC_LEN);
		if (body(w, caplen, &data) != 0) {
			w->info->truncated = 1;
			w->info->trunc_offset = (uint64_t)off;
			return 0;
		}
		rc = record(w, (uint64_t)u32(w, rh) * 1000000000ull +
			    (uint64_t)u32(w, rh + 4) * (nsec ? 1 : 1000), caplen, wirelen, data);
		if (rc != 0)
			return rc;
	}
}

static uint64_t
ts_to_ns(const struct walker *w, uint32_t ifid, uint64_t t)
{
	if (w->if_tsshift[ifid]) {
		/* 2^-x units */
		unsigned __int128 v = (unsigned __int128)t * 1000000000u;

		return (uint64_t)(v >> w->if_tsdiv[ifid]);
	}
	if (w->if_tsdiv[ifid] == 1000000000ull)
		return t;
	if (w->if_tsdiv[ifid] < 1000000000ull)
		return t * (1000000000ull / w->if_tsdiv[ifid]);
	return t / (w->if_tsdiv[ifid] / 1000000000ull);
}

static int
walk_pcapng(struct walker *w)
{
	uint8_t bh[8];
	uint8_t *blk = NULL;
	size_t blk_cap = 0;
	int rc = 0, first = 1;

	w->info->format = CAPFILE_PCAPNG;
	for (;;) {
		long off = ftell(w->fp);
		size_t got = fread(bh, 1, 8, w->fp);
		uint32_t type, len, blen;

		if (got == 0)
			break;
		if (got < 8) {
			w->info->truncated = 1;
			w->info->trunc_offset = (uint64_t)off;
			break;
		}
		memcpy(&type, bh, 4);
		if (type == 0x0A0D0D0Au) {
			uint32_t bom;

			if (fread(&bom, 1, 4, w->fp) != 4) {
				w->info->truncated = 1;
				w->info->trunc_offset = (uint64_t)off;
				break;
			}
			if (bom == 0x1A2B3C4Du)
				w->swap = 0;
			else if (bom == 0x4D3C2B1Au)
				w->swap = 1;
			else {
				rc = werr(w, -EINVAL, "corrupt pcapng section header at offset %ld", off);
				break;
			}
			fseek(w->fp, -4, SEEK_CUR);
			w->n_if = 0;
		} else if (first) {
			rc = werr(w, -EINVAL, "not a pcapng file");
			break;
		}
		first = 0;
		type = u32(w, bh);
		len = u32(w, bh + 4);
		if (len < 12 || len % 4 != 0 || len > MAX_REC_LEN + 4096) {
			rc = werr(w, -EINVAL, "corrupt pcapng block at offset %ld: length %u", off, len);
			break;
		}
		blen = len - 8;
		if (blen > blk_cap) {
			uint8_t *nb = realloc(blk, blen);

			if (nb == NULL) {
				rc = -ENOMEM;
				break;
			}
			blk = nb;
			blk_cap = blen;
		}
		if (fread(blk, 1, blen, w->fp) != blen) {
			w->info->truncated = 1;
			w->info->trunc_offset = (uint64_t)off;
			break;
		}
		if (u32(w, blk + blen - 4) != len) {
			rc = werr(w, -EINVAL, "corrupt pcapng block at offset %ld: trailing length", off);
			break;
		}
		if (type == 1) { /* interface description */
			uint32_t o = 8, k;

			if (blen < 12 || w->n_if >= MAX_IFACES) {
				rc = werr(w, -EINVAL, "bad interface block at offset %ld", off);
				break;
			}
			k = w->n_if++;
			w->if_link[k] = u16(w, blk);
			w->if_snap[k] = u32(w, blk + 4);
			w->if_tsdiv[k] = 1000000;
			w->if_tsshift[k] = 0;
			while (o + 4 <= blen - 4) {
				uint16_t code = u16(w, blk + o), olen = u16(w, blk + o + 2);

				if (code == 0 || o + 4 + olen > blen - 4)
					break;
				if (code == 9 && olen >= 1) {
					uint8_t r = blk[o + 4];
					uint64_t d = 1;
					unsigned int e;

					if (r & 0x80) {
						w->if_tsshift[k] = 1;
						w->if_tsdiv[k] = r & 0x7f;
					} else {
						for (e = 0; e < r && e < 19; e++)
							d *= 10;
						w->if_tsdiv[k] = d;
					}
				}
				o += 4 + ((olen + 3u) & ~3u);
			}
			if (k == 0) {
				w->info->linktype = w->if_link[0];
				w->info->snaplen = w->if_snap[0];
			} else if (w->if_link[k] != w->info->linktype) {
				w->info->mixed_linktypes = 1;
			}
		} else if (type == 6 || type == 2 || type == 3) {
			uint32_t ifid, caplen, wirelen, hdr;
			uint64_t ts;

			if (type == 3) {
				ifid = 0;
				wirelen = u32(w, blk);
				caplen = blen - 8;
				if (caplen > wirelen)
					caplen = wirelen;
				ts = 0;
				hdr = 4;
			} else {
				if (blen < 24) {
					rc = werr(w, -EINVAL, "short packet block at offset %ld", off);
					break;
				}
				ifid = type == 6 ? u32(w, blk) : u16(w, blk);
				ts = ((uint64_t)u32(w, blk + 4) << 32) | u32(w, blk + 8);
				caplen = u32(w, blk + 12);
				wirelen = u32(w, blk + 16);
				hdr = 20;
			}
			if (ifid >= w->n_if) {
				rc = werr(w, -EINVAL, "packet block at offset %ld names interface %u "
					  "of %u", off, ifid, w->n_if);
				break;
			}
			if (hdr + caplen > blen - 4) {
				rc = werr(w, -EINVAL, "corrupt packet block at offset %ld: captured "
					  "length %u", off, caplen);
				break;
			}
			if (w->cb != NULL)
				memcpy(w->pktbuf, blk + hdr, caplen);
			rc = record(w, ts_to_ns(w, ifid, ts), caplen, wirelen,
				    w->cb != NULL ? w->pktbuf : NULL);
			if (rc != 0)
				break;
		}
	}
	free(blk);
	return rc;
}

static int
walk(struct walker *w)
{
	uint8_t hdr[24];
	uint32_t magic;
	size_t got;
	int rc;

	w->fp = fopen(w->path, "rb");
	if (w->fp == NULL) {
		rc = -errno;
		return werr(w, rc, "cannot open: %s", strerror(-rc));
	}
	{
		struct stat st;

		w->size = fstat(fileno(w->fp), &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
	}
	got = fread(hdr, 1, sizeof(hdr), w->fp);
	memcpy(&magic, hdr, 4);
	if (got == 0) {
		rc = werr(w, -ENODATA, "empty file (no capture header)");
	} else if (got >= 4 && magic == 0x0A0D0D0Au) {
		fseek(w->fp, 0, SEEK_SET);
		rc = walk_pcapng(w);
	} else if (got >= 4 && (magic == 0xa1b2c3d4u || magic == 0xd4c3b2a1u ||
				magic == 0xa1b23c4du || magic == 0x4d3cb2a1u)) {
		if (got < sizeof(hdr))
			rc = werr(w, -EINVAL, "truncated pcap file header (%zu of 24 bytes)", got);
		else
			rc = walk_pcap(w, hdr);
	} else {
		rc = werr(w, -EINVAL, "not a pcap or pcapng file (magic number 0x%08x)",
			  got >= 4 ? magic : 0);
	}
	fclose(w->fp);
	return rc;
}

int
capfile_inspect(const char *path, uint32_t over_len, struct capfile_info *info,
		char *err, size_t errlen)
{
	struct walker w = {
		.path = path, .err = err, .errlen = errlen, .info = info,
		.over_len = over_len,
	};

	int rc;

	memset(info, 0, sizeof(*info));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	rc = walk(&w);
	if (rc != 0)
		capfile_info_free(info);
	return rc;
}

void
capfile_info_free(struct capfile_info *info)
{
	free(info->snaps);
	info->snaps = NULL;
	info->n_snaps = 0;
}

static int
collect(struct walker *w, uint64_t ts_ns, uint32_t caplen, uint32_t wirelen,
	const uint8_t *data)
{
	struct capfile_packets *o = w->out;

	if (o->n == w->out_cap) {
		size_t nc = w->out_cap ? w->out_cap * 2 : 1024;
		struct capfile_pkt *np = realloc(o->pkt, nc * sizeof(*np));

		if (np == NULL)
			return -ENOMEM;
		o->pkt = np;
		w->out_cap = nc;
	}
	if (w->buf_used + caplen > w->buf_cap) {
		size_t nc = w->buf_cap ? w->buf_cap * 2 : 1 << 20;
		uint8_t *nb;

		while (nc < w->buf_used + caplen)
			nc *= 2;
		nb = realloc(o->buf, nc);
		if (nb == NULL)
			return -ENOMEM;
		o->buf = nb;
		w->buf_cap = nc;
	}
	memcpy(o->buf + w->buf_used, data, caplen);
	o->pkt[o->n].ts_ns = ts_ns;
	o->pkt[o->n].caplen = caplen;
	o->pkt[o->n].wirelen = wirelen < caplen ? caplen : wirelen;
	o->pkt[o->n].data = (const uint8_t *)(uintptr_t)w->buf_used; /* fixed below */
	o->n++;
	w->buf_used += caplen;
	o->data_bytes += caplen;
	return 0;
}

int
capfile_read_all(const char *path, struct capfile_packets *out, char *err, size_t errlen)
{
	struct capfile_info info;
	struct walker w = {
		.path = path, .err = err, .errlen = errlen, .info = &info,
		.over_len = UINT32_MAX, .cb = collect, .out = out,
	};
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&info, 0, sizeof(info));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	w.pktbuf = malloc(MAX_REC_LEN + 4096);
	if (w.pktbuf == NULL)
		return -ENOMEM;
	rc = walk(&w);
	free(w.pktbuf);
	if (rc == 0 && info.linktype != CAPFILE_LINKTYPE_ETHERNET)
		rc = werr(&w, -EPROTONOSUPPORT, "link type %u (%s) is not Ethernet",
			  info.linktype, capfile_linktype_name(info.linktype));
	if (rc != 0) {
		capfile_packets_free(out);
		return rc;
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
