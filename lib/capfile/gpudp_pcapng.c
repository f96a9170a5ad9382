/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng writer (format: IETF draft-ietf-opsawg-pcapng), native byte order:
 * the blocks, encoded in memory (gpudp_pcapng_pvt.h, also used by the
 * rotating writer, gpudp_pcapng_ring.c), and the one-file writer on stdio.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_pcapng.h"
#include "gpudp_pcapng_pvt.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define OPT_END 0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_TSRESOL 9
#define LINKTYPE_ETHERNET 1

struct gpudp_pcapng {
	FILE *fp;
	int err;
	uint64_t count;
};

static uint32_t
pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* ---- blocks in memory ---- */

static uint8_t *
enc(uint8_t *p, const void *v, size_t n)
{
	if (n > 0)
		memcpy(p, v, n);
	return p + n;
}

static uint8_t *
enc32(uint8_t *p, uint32_t v)
{
	return enc(p, &v, 4);
}

static uint8_t *
enc_opt(uint8_t *p, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];
	uint16_t h[2] = { code, len };

	p = enc(p, h, 4);
	p = enc(p, v, len);
	return enc(p, zero, pad4(len) - len);
}

static uint32_t
opt_size(const char *s)
{
	return s != NULL ? 4 + pad4((uint32_t)strlen(s)) : 0;
}

size_t
pcapng_head_encode(uint8_t *buf, const char *appname, const char *ifname, uint32_t snaplen)
{
	uint8_t *p = buf;
	uint32_t len;
	uint16_t v16[2];
	int64_t section_len = -1;
	uint8_t tsresol = 9;

	if (appname != NULL && strlen(appname) > PCAPNG_OPT_MAX)
		appname = NULL;
	if (ifname != NULL && strlen(ifname) > PCAPNG_OPT_MAX)
		ifname = NULL;
	/* section header block */
	len = 28 + opt_size(appname) + (appname != NULL ? 4 : 0);
	p = enc32(p, BT_SHB);
	p = enc32(p, len);
	p = enc32(p, 0x1A2B3C4Du);
	v16[0] = 1;
	v16[1] = 0;
	p = enc(p, v16, 4);
	p = enc(p, &section_len, 8);
	if (appname != NULL) {
		p = enc_opt(p, OPT_SHB_USERAPPL, appname, (uint16_t)strlen(appname));
		p = enc_opt(p, OPT_END, NULL, 0);
	}
	p = enc32(p, len);
	/* interface description block */
	len = 20 + opt_size(ifname) + 8 + 4;
	p = enc32(p, BT_IDB);
	p = enc32(p, len);
	v16[0] = LINKTYPE_ETHERNET;
	v16[1] = 0;
	p = enc(p, v16, 4);
	p = enc32(p, snaplen);
	if (ifname != NULL)
		p = enc_opt(p, OPT_IF_NAME, ifname, (uint16_t)strlen(ifname));
	p = enc_opt(p, OPT_IF_TSRESOL, &tsresol, 1);
	p = enc_opt(p, OPT_END, NULL, 0);
	p = enc32(p, len);
	return (size_t)(p - buf);
}

void
pcapng_epb_encode(uint8_t *hdr, uint32_t caplen, uint32_t wirelen, uint64_t ts_ns)
{
	uint8_t *p = hdr;

	if (wirelen < caplen)
		wirelen = caplen;
	p = enc32(p, BT_EPB);
	p = enc32(p, (uint32_t)pcapng_epb_len(caplen));
	p = enc32(p, 0);
	p = enc32(p, (uint32_t)(ts_ns >> 32));
	p = enc32(p, (uint32_t)ts_ns);
	p = enc32(p, caplen);
	enc32(p, wirelen);
}

size_t
pcapng_epb_tail(uint8_t *tail, uint32_t caplen)
{
	size_t pad = pad4(caplen) - caplen;

	memset(tail, 0, pad);
	enc32(tail + pad, (uint32_t)pcapng_epb_len(caplen));
	return pad + 4;
}

/* ---- the one-file writer ---- */

static void
put(struct gpudp_pcapng *w, const void *p, size_t n)
{
	if (w->err == 0 && n > 0 && fwrite(p, 1, n, w->fp) != n)
		w->err = errno ? errno : EIO;
}

struct gpudp_pcapng *
gpudp_pcapng_open(const char *path, const char *appname, const char *ifname, uint32_t snaplen)
{
	uint8_t head[PCAPNG_HEAD_MAX];
	struct gpudp_pcapng *w;

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->fp = fopen(path, "wb");
	if (w->fp == NULL) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	put(w, head, pcapng_head_encode(head, appname, ifname, snaplen));
	if (w->err != 0) {
		int e = w->err;

		fclose(w->fp);
		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

int
gpudp_pcapng_write(struct gpudp_pcapng *w, const uint8_t *data, uint32_t caplen,
		   uint32_t wirelen, uint64_t ts_ns)
{
	uint8_t hdr[PCAPNG_EPB_HDR], tail[8];

	pcapng_epb_encode(hdr, caplen, wirelen, ts_ns);
	put(w, hdr, sizeof(hdr));
	put(w, data, caplen);
	put(w, tail, pcapng_epb_tail(tail, caplen));
	if (w->err != 0)
		return -EIO;
	w->count++;
	return 0;
}

uint64_t
gpudp_pcapng_count(const struct gpudp_pcapng *w)
{
	return w->count;
}

int
gpudp_pcapng_close(struct gpudp_pcapng *w)
{
	int rc;

	if (w == NULL)
		return 0;
	rc = w->err;
	if (fclose(w->fp) != 0 && rc == 0)
		rc = errno ? errno : EIO;
	free(w);
	return -rc;
}
