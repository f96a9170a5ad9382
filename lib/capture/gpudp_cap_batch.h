/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gpudp_capture's batches: the packets an engine (gpudp_cap_engine.h)
 * analyses at once. A staged batch holds its packets' bytes in its data
 * area and describes each one (struct gpudp_pkt_desc, gpudp_pkt_desc.h:
 * where its bytes are, its lengths and time); an in-place batch refers to each packet
 * where it is (struct gpudp_an_pkt_ref) and holds an owner handle for it.
 * The functions here are the fast path, inline: filling a batch one packet
 * at a time or in bulk, and reading a finished one in the engine's done
 * callback. A batch comes from gpudp_cap_engine_get_batch() and goes back
 * with gpudp_cap_engine_submit().
 */
#ifndef GPUDP_CAP_BATCH_H
#define GPUDP_CAP_BATCH_H

#include <stdint.h>

#include "gpudp_analysis.h"
#include "gpudp_pkt_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where the packets of a batch are (struct gpudp_cap_engine_conf.mem). */
enum gpudp_cap_mem {
	/** Staged: the caller copies packets into the batch (gpudp_cap_batch_alloc()). */
	GPUDP_CAP_MEM_STAGED = 0,
	/**
	 * In place, in host memory the CPU can read (pinned mbufs); the GPU
	 * engine's kernel reads it through unified addressing.
	 */
	GPUDP_CAP_MEM_HOST,
	/**
	 * In place, in GPU memory. The GPU engine reads it directly; the CPU
	 * engine only through conf.cpu_view (a CPU mapping of the memory).
	 */
	GPUDP_CAP_MEM_DEVICE,
};

/** A batch: staged (descriptors and packet bytes) or in place (references). */
struct gpudp_cap_batch {
	struct gpudp_pkt_desc *desc;    /**< staged: max_pkts descriptors */
	uint8_t *data;                  /**< staged: data_cap bytes; in place: copied-out matches */
	uint32_t *match;                /**< filter bitmap, valid in the done callback */
	uint32_t n;                     /**< packets in the batch */
	uint32_t max_pkts;
	uint32_t data_used;
	uint32_t data_cap;
	uint32_t cap_bytes;             /**< sum of the packets' captured lengths */
	uint32_t n_match;               /**< matches, valid in the done callback */
	uint32_t slot;                  /**< engine-private index */
	int inplace;                    /**< 1: ref/owner/view are used, desc is not */
	struct gpudp_an_pkt_ref *ref;   /**< in place: max_pkts references */
	void **owner;                   /**< in place: the caller's handle per packet */
	const uint8_t **view;           /**< in place: host-readable bytes of packet i, or
	                                     NULL (valid in the done callback) */
	uint8_t *own_data;              /**< staged, while gpudp_cap_batch_lend() lent the
	                                     batch other bytes: its own data area (else
	                                     NULL) */
	uint32_t own_cap;               /**< and its size */
};

/**
 * Staged batches filled in bulk: the caller writes bytes at
 * gpudp_cap_batch_tail() (up to gpudp_cap_batch_tail_room() of them),
 * describes the packets among them with gpudp_cap_batch_describe() (or
 * writes their descriptors at b->desc + b->n itself, adding to b->n and
 * b->cap_bytes), then gives the bytes to the batch with
 * gpudp_cap_batch_take(). Packets need no alignment and may have other
 * bytes between them (the GPU engine copies each packet's bytes alone).
 *
 * @param b  a staged batch
 * @return where the batch's next bytes go
 */
static inline uint8_t *
gpudp_cap_batch_tail(struct gpudp_cap_batch *b)
{
	return b->data + b->data_used;
}

/**
 * @param b  a staged batch
 * @return the bytes free at gpudp_cap_batch_tail() (0 when the batch is
 *   full of packets)
 */
static inline uint32_t
gpudp_cap_batch_tail_room(const struct gpudp_cap_batch *b)
{
	return b->n == b->max_pkts ? 0 : b->data_cap - b->data_used;
}

/**
 * @param b  a batch
 * @return the packets it can still take
 */
static inline uint32_t
gpudp_cap_batch_pkt_room(const struct gpudp_cap_batch *b)
{
	return b->max_pkts - b->n;
}

/**
 * Describe a packet of @p caplen bytes at b->data + @p off, written at
 * gpudp_cap_batch_tail() (the caller keeps to gpudp_cap_batch_pkt_room()
 * packets).
 *
 * @param b        a staged batch
 * @param off      where the packet's first byte is in the batch's data
 * @param caplen   its bytes there
 * @param wirelen  its original length
 * @param ts_ns    its capture time, ns since the epoch
 */
static inline void
gpudp_cap_batch_describe(struct gpudp_cap_batch *b, uint32_t off, uint32_t caplen,
			 uint32_t wirelen, uint64_t ts_ns)
{
	struct gpudp_pkt_desc *d = &b->desc[b->n++];

	d->off = off;
	d->caplen = caplen;
	d->wirelen = wirelen;
	d->mark = 0;
	d->ts_ns = ts_ns;
	b->cap_bytes += caplen;
}

/**
 * The @p n bytes written at gpudp_cap_batch_tail() are the batch's now.
 *
 * @param b  a staged batch
 * @param n  bytes (at most gpudp_cap_batch_tail_room())
 */
static inline void
gpudp_cap_batch_take(struct gpudp_cap_batch *b, uint32_t n)
{
	b->data_used += n;
}

/**
 * Staged batches whose packets are already in memory (a capture file read
 * into memory before the analysis): the batch, empty, describes packets in
 * the @p len bytes at @p data instead of its own area, and nothing is
 * copied. The caller describes the packets as after gpudp_cap_batch_tail()
 * (then gpudp_cap_batch_take() of the bytes they span, from @p data on).
 * @p data is 16-byte aligned and stays unchanged until the batch is done;
 * the GPU engine reads it in 16-byte blocks, up to data_used rounded up to
 * 16, so those bytes must be readable (pinned, or registered with
 * gpudp_cap_engine_host_register()). The batch gets its own area back
 * from gpudp_cap_engine_get_batch(), or here with @p data NULL.
 *
 * @param b     a staged batch (emptied)
 * @param data  the bytes it describes packets in, or NULL: its own area back
 * @param len   how many
 */
static inline void
gpudp_cap_batch_lend(struct gpudp_cap_batch *b, const uint8_t *data, uint32_t len)
{
	if (b->own_data != NULL) {
		b->data = b->own_data;
		b->data_cap = b->own_cap;
		b->own_data = NULL;
	}
	b->n = 0;
	b->data_used = 0;
	b->cap_bytes = 0;
	if (data == NULL)
		return;
	b->own_data = b->data;
	b->own_cap = b->data_cap;
	b->data = (uint8_t *)(uintptr_t)data;
	b->data_cap = len;
}

/**
 * For engines: an empty batch, with its own data area
 * (gpudp_cap_engine_get_batch()).
 *
 * @param b  the batch
 */
static inline void
gpudp_cap_batch_reset(struct gpudp_cap_batch *b)
{
	gpudp_cap_batch_lend(b, NULL, 0);
	b->n_match = 0;
}

/**
 * Reserve room for one packet in a staged batch, 16-byte aligned.
 *
 * @param b        the batch
 * @param caplen   the packet's captured bytes
 * @param wirelen  its original length
 * @param ts_ns    its capture time, ns since the epoch
 * @return where to write its @p caplen bytes, or NULL if the batch is full
 */
static inline uint8_t *
gpudp_cap_batch_alloc(struct gpudp_cap_batch *b, uint32_t caplen, uint32_t wirelen,
		      uint64_t ts_ns)
{
	uint32_t off = b->data_used;

	if (b->n == b->max_pkts || caplen > b->data_cap - off)
		return NULL;
	gpudp_cap_batch_describe(b, off, caplen, wirelen, ts_ns);
	/* keep every packet 16-byte aligned (the GPU engine copies 16 bytes
	 * at a time) */
	b->data_used = off + ((caplen + 15u) & ~15u);
	if (b->data_used > b->data_cap)
		b->data_used = b->data_cap;
	return b->data + off;
}

/**
 * In place: add one packet by reference.
 *
 * @param b        an in-place batch
 * @param addr     where its caplen bytes are (see enum gpudp_cap_mem)
 * @param caplen   the packet's captured bytes
 * @param wirelen  its original length
 * @param ts_ns    its capture time, ns since the epoch
 * @param owner    the caller's handle, given back through conf.release
 * @return 0, or 1 if the batch is full (packets or data_cap bytes)
 */
static inline int
gpudp_cap_batch_add_ref(struct gpudp_cap_batch *b, uint64_t addr, uint32_t caplen,
			uint32_t wirelen, uint64_t ts_ns, void *owner)
{
	struct gpudp_an_pkt_ref *r;

	if (b->n == b->max_pkts || caplen > b->data_cap - b->cap_bytes)
		return 1;
	r = &b->ref[b->n];
	r->addr = addr;
	r->caplen = caplen;
	r->wirelen = wirelen;
	r->ts_ns = ts_ns;
	b->owner[b->n++] = owner;
	b->cap_bytes += caplen;
	return 0;
}

/**
 * Packet i of a batch in the done callback: its lengths and timestamp, and
 * its bytes if the host can read them (always for staged batches and host
 * memory; for device memory only the matching packets).
 *
 * @param b        the batch
 * @param i        the packet, below b->n
 * @param caplen   set to its captured bytes
 * @param wirelen  set to its original length
 * @param ts_ns    set to its capture time
 * @return its bytes, or NULL where the host cannot read them
 */
static inline const uint8_t *
gpudp_cap_batch_pkt(const struct gpudp_cap_batch *b, uint32_t i, uint32_t *caplen,
		    uint32_t *wirelen, uint64_t *ts_ns)
{
	if (b->inplace) {
		*caplen = b->ref[i].caplen;
		*wirelen = b->ref[i].wirelen;
		*ts_ns = b->ref[i].ts_ns;
		return b->view[i];
	}
	*caplen = b->desc[i].caplen;
	*wirelen = b->desc[i].wirelen;
	*ts_ns = b->desc[i].ts_ns;
	return b->data + b->desc[i].off;
}

/**
 * @param b  a finished batch (in the done callback)
 * @param i  a packet, below b->n
 * @return whether packet @p i matched the filter (1 or 0)
 */
static inline int
gpudp_cap_batch_matched(const struct gpudp_cap_batch *b, uint32_t i)
{
	return (b->match[i / 32] >> (i % 32)) & 1;
}

/** The newest packet time of batch @p b (ns; 0 when empty): the flow monitor's clock. */
static inline uint64_t
gpudp_cap_batch_newest(const struct gpudp_cap_batch *b)
{
	uint64_t t = 0, ts;
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		ts = b->inplace ? b->ref[i].ts_ns : b->desc[i].ts_ns;
		if (ts > t)
			t = ts;
	}
	return t;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUDP_CAP_BATCH_H */
