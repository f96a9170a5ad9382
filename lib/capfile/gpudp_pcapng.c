/* SPDX-License-Identifier: BSD-3-Clause */
/* pcapng writer (format: IETF draft-ietf-opsawg-pcapng), native byte order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_pcapng.h"

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

static void
put(struct gpudp_pcapng *w, const void *p, size_t n)
{
	if (w->err == 0 && n > 0 && fwrite(p, 1, n, w->fp) != n)
		w->err = errno ? errno : EIO;
}

static void
put32(struct gpudp_pcapng *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put_opt(struct gpudp_pcapng *w, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];
	uint16_t h[2] = { code, len };

	put(w, h, 4);
	put(w, v, len);
	put(w, zero, pad4(len) - len);
}

static uint32_t
opt_size(const char *s)
{
	return s != NULL ? 4 + pad4((uint32_t)strlen(s)) : 0;
}

struct gpudp_pcapng *
gpudp_pcapng_open(const char *path, const char *appname, const char *ifname, uint32_t snaplen)
{
	struct gpudp_pcapng *w;
	uint32_t len;
	uint16_t v16[2];
	int64_t section_len = -1;
	uint8_t tsresol = 9;

	if (appname != NULL && strlen(appname) > 256)
		appname = NULL;
	if (ifname != NULL && strlen(ifname) > 256)
		ifname = NULL;
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
	/* section header block */
	len = 28 + opt_size(appname) + (appname != NULL ? 4 : 0);
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, 0x1A2B3C4Du);
	v16[0] = 1;
	v16[1] = 0;
	put(w, v16, 4);
	put(w, &section_len, 8);
	if (appname != NULL) {
		put_opt(w, OPT_SHB_USERAPPL, appname, (uint16_t)strlen(appname));
		put_opt(w, OPT_END, NULL, 0);
	}
	put32(w, len);
	/* interface description block */
	len = 20 + opt_size(ifname) + 8 + 4;
	put32(w, BT_IDB);
	put32(w, len);
	v16[0] = LINKTYPE_ETHERNET;
	v16[1] = 0;
	put(w, v16, 4);
	put32(w, snaplen);
	if (ifname != NULL)
		put_opt(w, OPT_IF_NAME, ifname, (uint16_t)strlen(ifname));
	put_opt(w, OPT_IF_TSRESOL, &tsresol, 1);
	put_opt(w, OPT_END, NULL, 0);
	put32(w, len);
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
	static const uint8_t zero[4];
	uint32_t len = 32 + pad4(caplen);

	if (wirelen < caplen)
		wirelen = caplen;
	put32(w, BT_EPB);
	put32(w, len);
	put32(w, 0);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, caplen);
	put32(w, wirelen);
	put(w, data, caplen);
	put(w, zero, pad4(caplen) - caplen);
	put32(w, len);
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
