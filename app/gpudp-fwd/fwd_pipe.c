/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-fwd lcore loops (doc/architecture.md, the data flow):
 *   rx lcore: rte_eth_rx_burst -> 1. the burst is complete w.r.t. this CPU
 *             thread -> gpudp_handoff_submit (2. ordering step, 3. submit)
 *   tx lcore: gpudp_handoff_completed (5. done seen) -> rte_eth_tx_burst
 * Mode none with rx and tx on one lcore needs no handoff (no work, every
 * packet passes): that lcore runs the io loop, rte_eth_rx_burst ->
 * rte_eth_tx_burst, as testpmd's io forwarding.
 * The lcores read the configuration and never parse anything.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_cycles.h>

#include "fwd.h"
#include "gpudp_app_mbuf.h"

volatile sig_atomic_t fwd_quit;
volatile int fwd_gpu_failed;

#define TX_RETRIES 1024     /* zero-progress tx_burst calls before dropping */
#define DRAIN_NS 2000000000ull

static void
rx_submit(struct fwd_pipe *p)
{
	gpudp_handoff_submit(p->ho, p->cur);
	p->cur = NULL;
}

/*
 * Sum of pkt_len: the one per-packet loop of none mode, sixteen frames a
 * step at three instructions a frame (its pointer, pkt_len added from
 * memory, nb_segs ORed from memory: one cache line). *chained is set when
 * any frame has several segments. A step adds its lengths in 32 bits: a
 * single-segment frame holds at most 65535 bytes (data_len), and a burst
 * with a chained frame, whose pkt_len may be anything, is summed again in 64
 * bits by rx_drop_cut().
 */
#define BYTES_STEP 16

static inline uint64_t
burst_bytes(struct rte_mbuf *const *m, unsigned int n, int *chained)
{
	struct rte_mbuf *const *end = m + n;
	uint64_t b = 0;
	uint16_t segs = 0;
	unsigned int j;

	for (; end - m >= BYTES_STEP; m += BYTES_STEP) {
		uint32_t s = 0;

#pragma GCC unroll 16
		for (j = 0; j < BYTES_STEP; j++) {
			s += m[j]->pkt_len;
			segs |= m[j]->nb_segs;
		}
		b += s;
	}
	for (; m < end; m++) {
		b += m[0]->pkt_len;
		segs |= m[0]->nb_segs;
	}
	*chained = segs > 1;
	return b;
}

/*
 * A chained frame whose segments do not hold its pkt_len bytes (see
 * gpudp_mbuf_held()) must never be transmitted or handed to a work: a
 * reader of pkt_len bytes would run past the chain (net_pcap's own tx did).
 */
static int
chain_is_cut(const struct rte_mbuf *m)
{
	int whole;

	gpudp_mbuf_held(m, &whole);
	return !whole;
}

/* Free a cut frame, counted as received and as the pmd_cut drop. */
static void
drop_cut(struct fwd_pipe *p, struct rte_mbuf *m)
{
	p->rx_pkts++;
	p->rx_bytes += m->pkt_len;
	p->drops[FWD_DROP_PMD_CUT]++;
	rte_pktmbuf_free(m);
}

/*
 * Modes without descriptors: take the cut frames out of a burst that has
 * chained ones (cold path). @return the frames kept, their bytes (summed in
 * 64 bits) in *bytes.
 */
static __attribute__((noinline)) unsigned int
rx_drop_cut(struct fwd_pipe *p, struct rte_mbuf **m, unsigned int n, uint64_t *bytes)
{
	unsigned int i, k = 0;

	*bytes = 0;
	for (i = 0; i < n; i++) {
		if (m[i]->nb_segs != 1 && chain_is_cut(m[i])) {
			drop_cut(p, m[i]);
			continue;
		}
		*bytes += m[i]->pkt_len;
		m[k++] = m[i];
	}
	return k;
}

/* ring full with --ring-full drop: receive and drop, counted (cold path) */
static __attribute__((noinline)) unsigned int
rx_drop(struct fwd_pipe *p)
{
	struct rte_mbuf *m[GPUDP_HO_BURST_MAX];
	unsigned int n = rte_eth_rx_burst(p->rx_port, p->rx_queue, m, p->conf->rx_burst);
	uint64_t bytes = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	p->rx_bytes += bytes;
	p->rx_pkts += n;
	p->drops[FWD_DROP_RING_FULL] += n;
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

/*
 * A multi-segment frame: freed and counted as pmd_cut when its chain does
 * not hold pkt_len bytes; with split pools (p->segs > 1) described as its
 * segments (returns -1); else kept when its first segment holds the bytes
 * the work reads (min(frame, its span)) and the mode does not copy frames
 * (staged), to be described as one segment of pkt_len bytes whose span
 * lies in the first (0); else freed and counted as segmented, and as
 * received (1).
 */
static __attribute__((noinline)) int
rx_segmented(struct fwd_pipe *p, struct rte_mbuf *m, struct gpudp_ho_burst *b, uint32_t idx)
{
	if (chain_is_cut(m)) {
		drop_cut(p, m);
		return 1;
	}
	if (p->segs > 1 && m->nb_segs <= p->segs) {
		/* split pools: the work sees the frame as its segments */
		const struct rte_mbuf *s = m->next;
		uint32_t k;

		gpudp_ho_burst_desc(b, idx, rte_pktmbuf_mtod(m, void *), m->data_len);
		for (k = 1; s != NULL; k++, s = s->next)
			gpudp_ho_burst_seg(b, idx, k, rte_pktmbuf_mtod(s, void *), s->data_len);
		return -1;
	}
	if (p->segs == 1 && !p->whole && m->data_len >= RTE_MIN(m->pkt_len, p->span))
		return 0;
	p->rx_pkts++;
	p->rx_bytes += m->pkt_len;
	p->drops[FWD_DROP_SEGMENTED]++;
	rte_pktmbuf_free(m);
	return 1;
}

/*
 * Packets are received straight into the burst's cookie slots (no copy of
 * the mbuf pointers); descriptors are written only for modes that read
 * them. The flush clock (the TSC, no mapping to other clocks needed) is read
 * once per burst that the poll which started it left partial and, for the
 * --flush-us check, only on polls that find the queue drained (fewer packets
 * than asked for): while polls keep returning full rx bursts the burst fills
 * within burst / rx-burst of them. Inlined into the loop of an lcore with
 * one pipeline (fwd_lcore_main()), as tx_step() is: no call frame per poll.
 */
static __rte_always_inline unsigned int
rx_step(struct fwd_pipe *p)
{
	const struct fwd_conf *c = p->conf;
	struct gpudp_ho_burst *b = p->cur;
	struct rte_mbuf **slot;
	unsigned int n, i, want;
	uint32_t room;
	uint64_t bytes;

	if (unlikely(b == NULL)) {
		b = p->cur = gpudp_handoff_acquire(p->ho);
		if (b == NULL) {
			/* ring full: back-pressure (leave the packets in the
			 * port's queue) or receive and drop them, counted */
			p->ring_full_waits++;
			return c->full == FWD_FULL_WAIT ? 0 : rx_drop(p);
		}
	}
	slot = (struct rte_mbuf **)gpudp_ho_burst_room(b, &room);
	want = RTE_MIN(c->rx_burst, room);
	n = rte_eth_rx_burst(p->rx_port, p->rx_queue, slot, (uint16_t)want);
	if (n > 0) {
		int first = b->n == 0;

		if (p->desc) {
			unsigned int k = 0;

			/* the work gets the frame length and the first byte's
			 * address: it reads and writes only its span, which
			 * must then lie in the first segment (rx_segmented()
			 * drops the rest, counted) */
			for (bytes = 0, i = 0; i < n; i++) {
				struct rte_mbuf *m = slot[i];

				int seg = unlikely(m->nb_segs != 1) ?
					rx_segmented(p, m, b, b->n + k) : 0;

				if (seg > 0)
					continue;
				slot[k] = m;
				if (seg == 0)
					gpudp_ho_burst_desc(b, b->n + k, rte_pktmbuf_mtod(m, void *),
							    m->pkt_len);
				bytes += m->pkt_len;
				k++;
			}
			n = k;
		} else {
			int chained;

			bytes = burst_bytes(slot, n, &chained);
			if (unlikely(chained))
				n = rx_drop_cut(p, slot, n, &bytes);
		}
		gpudp_ho_burst_commit(b, n);
		/* the flush clock starts with the burst's first packets, read
		 * only if they leave it partial: under load a burst fills in
		 * one poll and no TSC read is made */
		if (first && b->n < b->max && p->flush_tsc != 0)
			p->first_tsc = rte_rdtsc();
		b->udata += bytes;   /* the burst's bytes, for tx */
		p->rx_bytes += bytes;
		p->rx_pkts += n;
	}
	if (b->n == b->max) {
		rx_submit(p);
	} else if (b->n > 0 && (p->flush_tsc == 0 ||
				(n < want && rte_rdtsc() - p->first_tsc >= p->flush_tsc))) {
		rx_submit(p);
		gpudp_handoff_flush(p->ho);
	} else if (n == 0) {
		gpudp_handoff_flush(p->ho);  /* idle: nothing held back */
	}
	return n;
}

unsigned int
fwd_rx_step(struct fwd_pipe *p)
{
	return rx_step(p);
}

/*
 * The tx queue took @p sent of the @p k mbufs of @p out: call it again
 * while it makes progress (up to TX_RETRIES calls in a row without any),
 * then free what it did not take, counted as tx_full and taken out of
 * *bytes unless @p bytes is NULL (the io loop's) (cold path). @return the
 * mbufs sent
 */
static __rte_noinline unsigned int
tx_rest(struct fwd_pipe *p, struct rte_mbuf **out, unsigned int k, unsigned int sent,
	uint64_t *bytes)
{
	unsigned int i, tries = sent == 0;

	while (sent < k && tries < TX_RETRIES) {
		uint16_t r = rte_eth_tx_burst(p->tx_port, p->tx_queue, out + sent,
					      (uint16_t)RTE_MIN(k - sent, 65535u));

		sent += r;
		tries = r == 0 ? tries + 1 : 0;
	}
	if (sent < k) {
		for (i = sent; i < k && bytes != NULL; i++)
			*bytes -= out[i]->pkt_len;
		rte_pktmbuf_free_bulk(out + sent, k - sent);
		p->drops[FWD_DROP_TX_FULL] += k - sent;
	}
	return sent;
}

/* transmit the @p k mbufs of @p out (@p bytes bytes), counted */
static __rte_always_inline unsigned int
tx_send(struct fwd_pipe *p, struct rte_mbuf **out, unsigned int k, uint64_t bytes)
{
	/* k <= GPUDP_HO_BURST_MAX: one call takes them all when there is room */
	unsigned int sent = rte_eth_tx_burst(p->tx_port, p->tx_queue, out, (uint16_t)k);

	if (unlikely(sent < k))
		sent = tx_rest(p, out, k, sent, &bytes);
	p->tx_pkts += sent;
	p->tx_bytes += bytes;
	return sent;
}

/*
 * A burst some packets of which were dropped by the work (or failed): free
 * those, transmit the rest (cold path for none mode). A GPU that failed
 * (a work faulted, logged by the handoff) fails every burst in flight, so
 * the first such burst stops gpudp-fwd.
 */
static __rte_noinline unsigned int
tx_some(struct fwd_pipe *p, struct gpudp_ho_burst *b)
{
	struct rte_mbuf *out[GPUDP_HO_BURST_MAX];
	unsigned int i, k = 0;
	uint64_t bytes = 0;

	if (unlikely(gpudp_handoff_failed(p->ho) != 0) && !fwd_gpu_failed) {
		/* every burst in flight comes back as 'error' drops; stop */
		fwd_gpu_failed = 1;
		fwd_quit = 1;
	}
	for (i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->cookie[i];

		if (b->verdict[i] == GPUDP_WORK_PASS) {
			out[k++] = m;
			bytes += m->pkt_len;
		} else {
			rte_pktmbuf_free(m);
		}
	}
	return tx_send(p, out, k, bytes);
}

static __rte_always_inline unsigned int
tx_step(struct fwd_pipe *p)
{
	struct gpudp_ho_burst *b = gpudp_handoff_completed(p->ho);
	unsigned int sent;

	if (b == NULL)
		return 0;
	if (likely(b->n_pass == b->n))
		/* every packet passed: transmit the burst's own array, its
		 * bytes counted by the rx lcore */
		sent = tx_send(p, (struct rte_mbuf **)b->cookie, b->n, b->udata);
	else
		sent = tx_some(p, b);
	b->udata = 0;   /* before release: the slot goes back to the rx lcore */
	gpudp_handoff_release(p->ho, b);
	return sent;
}

unsigned int
fwd_tx_step(struct fwd_pipe *p)
{
	return tx_step(p);
}

/*
 * The io loop: a burst with chained frames (io_chained ports only): free
 * the cut ones, counted as pmd_cut (they were counted as received), keep
 * the rest in order (cold path). @return the frames kept
 */
static __rte_noinline unsigned int
io_drop_cut(struct fwd_pipe *p, struct rte_mbuf **m, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (m[i]->nb_segs != 1 && chain_is_cut(m[i])) {
			p->drops[FWD_DROP_PMD_CUT]++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		m[k++] = m[i];
	}
	return k;
}

/* 1 if any of the @p n frames of @p m has several segments */
static inline int
io_chained(struct rte_mbuf *const *m, unsigned int n)
{
	uint16_t segs = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		segs |= m[i]->nb_segs;
	return segs > 1;
}

/*
 * One poll of an io pipeline (mode none, rx and tx on this lcore): what
 * testpmd's io forwarding does per burst. rte_eth_rx_burst into @p m,
 * rte_eth_tx_burst of the same array, the two packet counters; what the tx
 * queue did not take goes to tx_rest() (retries, then tx_full drops). No
 * byte sum: rx_bytes and tx_bytes are the ports' own counters
 * (fwd_totals_get()). Chained frames are looked for only when @p chained
 * (the port may deliver them: p->io_chained; a constant where inlined), and
 * whole ones forwarded as in mode none through the handoff: only cut ones
 * are dropped (pmd_cut). @return packets transmitted
 */
static __rte_always_inline unsigned int
io_step(struct fwd_pipe *p, struct rte_mbuf **m, int chained)
{
	unsigned int n = rte_eth_rx_burst(p->rx_port, p->rx_queue, m, p->io_rx_burst);
	unsigned int sent;

	if (n == 0)
		return 0;
	p->rx_pkts += n;
	if (chained && unlikely(io_chained(m, n)))
		n = io_drop_cut(p, m, n);
	sent = rte_eth_tx_burst(p->tx_port, p->tx_queue, m, (uint16_t)n);
	if (unlikely(sent < n))
		sent = tx_rest(p, m, n, sent, NULL);
	p->tx_pkts += sent;
	return sent;
}

/*
 * The loop of an lcore with one io pipeline and nothing else, until
 * fwd_quit. Nothing is held between polls (each rx burst is transmitted or
 * dropped in the same poll), so there is nothing to drain after it.
 * Flattened: GCC leaves rte_eth_rx_burst() and rte_eth_tx_burst() out of
 * line otherwise, a call frame each per poll (the cold paths stay out of
 * line: noinline).
 */
static __rte_noinline __attribute__((flatten)) void
io_loop(struct fwd_pipe *p)
{
	struct rte_mbuf *m[GPUDP_HO_BURST_MAX];

	if (p->io_chained)
		while (!fwd_quit)
			io_step(p, m, 1);
	else
		while (!fwd_quit)
			io_step(p, m, 0);
}

/* rx side of shutdown: hand over what was received, release held work */
static void
rx_stop(struct fwd_pipe *p)
{
	if (p->cur != NULL && p->cur->n > 0)
		rx_submit(p);
	gpudp_handoff_flush(p->ho);
	p->rx_stopped = 1;
}

/* tx side of shutdown: transmit until nothing is in flight, or give up */
static void
tx_drain(struct fwd_pipe *p)
{
	struct gpudp_handoff_stats *s = malloc(sizeof(*s));
	uint64_t t0 = gpudp_ho_now_ns();

	if (s == NULL)
		return;
	for (;;) {
		fwd_tx_step(p);
		if (!p->rx_stopped)
			continue;
		gpudp_handoff_stats_get(p->ho, s);
		if (s->in_flight == 0 || gpudp_ho_now_ns() - t0 > DRAIN_NS)
			break;
	}
	if (s->in_flight != 0) {
		p->drops[FWD_DROP_SHUTDOWN] += s->pkts_submitted - s->pkts_done;
		FWD_LOG(ERR, "pipeline %u: %u bursts (%" PRIu64 " packets) still in flight "
			"after the drain", p->id, s->in_flight,
			s->pkts_submitted - s->pkts_done);
	}
	free(s);
}

/*
 * The loop of an lcore with several pipelines, until fwd_quit: a poll of
 * each in turn (rx steps, tx steps, io steps).
 */
static __rte_noinline void
multi_loop(struct fwd_pipe *const *rx, unsigned int nrx, struct fwd_pipe *const *tx,
	   unsigned int ntx, struct fwd_pipe *const *io, unsigned int nio)
{
	struct rte_mbuf *m[GPUDP_HO_BURST_MAX];
	unsigned int i;

	while (!fwd_quit) {
		for (i = 0; i < nrx; i++)
			fwd_rx_step(rx[i]);
		for (i = 0; i < ntx; i++)
			fwd_tx_step(tx[i]);
		for (i = 0; i < nio; i++)
			io_step(io[i], m, io[i]->io_chained);
	}
}

/* arg: the pipelines table; each lcore serves the roles it was given */
int
fwd_lcore_main(void *arg)
{
	struct fwd_pipe *const *pipes = arg;
	struct fwd_pipe *rx[64], *tx[64], *io[64];
	unsigned int lc = rte_lcore_id(), nrx = 0, ntx = 0, nio = 0, i;

	for (i = 0; pipes[i] != NULL; i++) {
		if (pipes[i]->io) {
			/* rx and tx on this one lcore, no handoff */
			if (pipes[i]->rx_lcore == lc && nio < 64)
				io[nio++] = pipes[i];
			continue;
		}
		if (pipes[i]->rx_lcore == lc && nrx < 64)
			rx[nrx++] = pipes[i];
		if (pipes[i]->tx_lcore == lc && ntx < 64)
			tx[ntx++] = pipes[i];
	}
	if (nrx + ntx + nio == 0)
		return 0;
	FWD_LOG(INFO, "lcore %u: %u rx, %u tx, %u io pipelines", lc, nrx, ntx, nio);
	if (nio == 1 && nrx + ntx == 0) {
		/* mode none on one lcore per pipeline: the I/O baseline */
		io_loop(io[0]);
	} else if (nio == 0 && nrx <= 1 && ntx <= 1) {
		/* the usual case: one pipeline's rx and/or tx, inlined */
		struct fwd_pipe *r = nrx != 0 ? rx[0] : NULL, *t = ntx != 0 ? tx[0] : NULL;

		while (!fwd_quit) {
			if (r != NULL)
				rx_step(r);
			if (t != NULL)
				tx_step(t);
		}
	} else {
		multi_loop(rx, nrx, tx, ntx, io, nio);
	}
	for (i = 0; i < nio; i++)
		io[i]->rx_stopped = 1;   /* nothing held: no drain */
	for (i = 0; i < nrx; i++)
		rx_stop(rx[i]);
	for (i = 0; i < ntx; i++)
		tx_drain(tx[i]);
	return 0;
}
