/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the capture file reader (gpudp_capfile.c: the API and the
 * reading helpers; gpudp_capfile_inspect.c: inspection and whole files;
 * gpudp_capfile_pcap.c; gpudp_capfile_pcapng.c). Not installed.
 */
#ifndef GPUDP_CAPFILE_PVT_H
#define GPUDP_CAPFILE_PVT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpudp_capfile.h"

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

struct gpudp_capfile {
	FILE *fp;
	const uint8_t *map;    /* GPUDP_CAPFILE_MMAP: the whole file, else NULL */
	char *path;
	unsigned int flags;
	uint64_t size;         /* of the file when opened */
	uint64_t pos;          /* offset of the next byte */
	int failed;            /* the error every call returns once one happened */
	int done;              /* end of file or truncation reached */
	char err[640];
	enum gpudp_capfile_format format;
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
	/* what gpudp_capfile_describe() reports */
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

#define NG_AGAIN 2  /* a block without a packet was read */

/* ---- reading helpers (gpudp_capfile.c) ---- */

static inline uint16_t
rd16(int swap, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t
rd32(int swap, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t
rd64(int swap, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* the error every later call returns: "PATH: " and the message in cf->err, @return rc */
int gpudp_cf_fail(struct gpudp_capfile *cf, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* the first way libpcap 1.10 would read the file differently, kept in cf->diff */
void gpudp_cf_diff(struct gpudp_capfile *cf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* the short names the reader's files call them by */
#define cf_fail gpudp_cf_fail
#define cf_diff gpudp_cf_diff
uint64_t gpudp_cf_left(const struct gpudp_capfile *cf);
int gpudp_cf_read(struct gpudp_capfile *cf, void *dst, size_t n);
int gpudp_cf_skip(struct gpudp_capfile *cf, uint64_t n);
int gpudp_cf_reserve(struct gpudp_capfile *cf, size_t n);
int gpudp_cf_truncated(struct gpudp_capfile *cf, uint64_t off);
uint32_t gpudp_cf_lt_max(uint32_t linktype);
uint64_t gpudp_cf_pcap_skip(struct gpudp_capfile *cf, uint64_t n);
uint32_t gpudp_cf_pcap_next_many(struct gpudp_capfile *cf, struct gpudp_capfile_mrec *r, uint32_t n,
				 uint64_t end);
uint32_t gpudp_cf_pcap_parse_many(const struct gpudp_capfile *cf, const uint8_t *buf, uint64_t base,
				  uint64_t len, uint64_t end, uint64_t index,
				  struct gpudp_capfile_mrec *r, uint32_t n, uint64_t *used);
uint32_t gpudp_cf_pcap_parse_descs(const struct gpudp_capfile *cf, const uint8_t *buf,
				   uint64_t base, uint64_t len, uint64_t end, uint32_t off0,
				   struct gpudp_pkt_desc *d, uint32_t n, uint64_t *used,
				   uint64_t *bytes);
int gpudp_cf_pcap_plausible(const struct gpudp_capfile *cf, uint64_t off);
uint32_t gpudp_cf_lt_snaplen(uint32_t linktype, uint32_t snaplen);

/* ---- pcap (gpudp_capfile_pcap.c) ---- */

/* the file header (24 bytes at @p hdr, read): the format, the byte order, the snap length */
int gpudp_cf_pcap_open(struct gpudp_capfile *cf, uint8_t *hdr);
/* the next record, 1; 0 at the end; a negative errno */
int gpudp_cf_pcap_next(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec);

/* ---- pcapng (gpudp_capfile_pcapng.c) ---- */

/* the first section header */
int gpudp_cf_ng_open(struct gpudp_capfile *cf);
/* the next block: 1 with a record, NG_AGAIN for a block without one, 0 at the end,
 * a negative errno */
int gpudp_cf_ng_block(struct gpudp_capfile *cf, struct gpudp_capfile_rec *rec);
/* at the end of the file: what the last section leaves to report */
void gpudp_cf_ng_finish(struct gpudp_capfile *cf);

#endif /* GPUDP_CAPFILE_PVT_H */
