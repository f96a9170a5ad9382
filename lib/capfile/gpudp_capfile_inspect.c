/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture file reader: a file inspected record by record
 * (gpudp_capfile_inspect()) and read whole into memory
 * (gpudp_capfile_read_all()), through the reader of gpudp_capfile.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_capfile_pvt.h"

/* ----------------------------------------------------------- inspection */

static int
note_snap(struct gpudp_capfile_info *i, const struct gpudp_capfile_rec *r)
{
	if (i->n_snaps == GPUDP_CAPFILE_MAX_SNAPS) {
		i->snaps_overflow = 1;
		return 0;
	}
	if ((i->n_snaps & (i->n_snaps - 1)) == 0) {
		size_t cap = i->n_snaps ? i->n_snaps * 2 : 64;
		struct gpudp_capfile_snap *ns = realloc(i->snaps, cap * sizeof(*ns));

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
gpudp_capfile_inspect(const char *path, uint32_t over_len, struct gpudp_capfile_info *info,
		      char *err, size_t errlen)
{
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = gpudp_capfile_open(path, GPUDP_CAPFILE_SKIP_DATA, &cf, err, errlen);
	if (rc != 0)
		return rc;
	while ((rc = gpudp_capfile_next(cf, &rec)) == 1) {
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
		gpudp_capfile_describe(cf, info);
		/* a file that grew or shrank while it was walked */
		info->changed = gpudp_capfile_size_now(cf, &info->size_now) == 0 &&
				info->size_now != cf->size;
	} else {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", gpudp_capfile_error(cf));
		gpudp_capfile_info_free(info);
	}
	gpudp_capfile_close(cf);
	return rc;
}

void
gpudp_capfile_info_free(struct gpudp_capfile_info *info)
{
	free(info->snaps);
	info->snaps = NULL;
	info->n_snaps = 0;
}

/* ------------------------------------------------------- whole-file read */

struct collector {
	struct gpudp_capfile_packets *out;
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
collect(struct collector *c, const struct gpudp_capfile_rec *r)
{
	struct gpudp_capfile_packets *o = c->out;
	size_t used = (size_t)o->data_bytes;
	struct gpudp_capfile_pkt *p;

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
gpudp_capfile_read_all(const char *path, struct gpudp_capfile_packets *out, char *err,
		       size_t errlen)
{
	struct collector c = { .out = out };
	struct gpudp_capfile_info info;
	struct gpudp_capfile_rec rec;
	struct gpudp_capfile *cf;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = gpudp_capfile_open(path, 0, &cf, err, errlen);
	if (rc != 0)
		return rc;
	while ((rc = gpudp_capfile_next(cf, &rec)) == 1) {
		if (rec.linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET &&
		    rec.linktype == cf->first_lt) {
			break;  /* the file's link type: said below */
		} else if (rec.linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET) {
			rc = cf_fail(cf, -EPROTONOSUPPORT, "record %llu (offset %llu) has link type "
				     "%u (%s), which is not Ethernet",
				     (unsigned long long)rec.index + 1,
				     (unsigned long long)rec.offset, rec.linktype,
				     gpudp_capfile_linktype_name(rec.linktype));
			break;
		}
		if (collect(&c, &rec) != 0) {
			rc = cf_fail(cf, -ENOMEM, "out of memory after %zu packets", out->n);
			break;
		}
	}
	memset(&info, 0, sizeof(info));
	gpudp_capfile_describe(cf, &info);
	if (rc >= 0 && info.linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET &&
	    info.linktype != GPUDP_CAPFILE_LINKTYPE_NONE)
		rc = cf_fail(cf, -EPROTONOSUPPORT, "link type %u (%s) is not Ethernet",
			     info.linktype, gpudp_capfile_linktype_name(info.linktype));
	if (rc != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s", gpudp_capfile_error(cf));
		gpudp_capfile_close(cf);
		gpudp_capfile_packets_free(out);
		return rc;
	}
	gpudp_capfile_close(cf);
	if (out->buf == NULL && grow((void **)&out->buf, &c.buf_cap, 1, 1, 1) != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: out of memory", path);
		gpudp_capfile_packets_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < out->n; i++)
		out->pkt[i].data = out->buf + (uintptr_t)out->pkt[i].data;
	return 0;
}

void
gpudp_capfile_packets_free(struct gpudp_capfile_packets *p)
{
	free(p->pkt);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
