/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST ONLY: a stand-in for the gpudp_pin module, linked into a test in
 * place of lib/pin (fake_pin_client.c defines every function of
 * gpudp_pin_client.h, so the client library's object is not linked). It
 * "pins" CUDA device memory (the fake libcuda's, or a real GPU's) and
 * remembers which CUDA context each pin's memory belongs to, so that a
 * test can check that pins are made, kept and dropped per GPU; a pin whose
 * allocation was freed (or whose address now belongs to another context)
 * reads as revoked, as the module's free callback makes it. Attachments of
 * dma-bufs take the stand-in fds of gpudp_test_fakepin_export().
 */
#ifndef GPUDP_TEST_FAKEPIN_H
#define GPUDP_TEST_FAKEPIN_H

#include <stddef.h>
#include <stdint.h>

/** What the stand-in module holds or did for the memory of one context. */
struct gpudp_test_fakepin_ctx {
	unsigned int pins;       /**< pins made (kmod pins and attachments) */
	unsigned int live;       /**< pins not unpinned yet */
	unsigned int dmabufs;    /**< of the pins made, dma-buf attachments */
};

/** Counters of the pins made on memory of CUDA context @p ctx. */
void gpudp_test_fakepin_ctx_get(uint64_t ctx, struct gpudp_test_fakepin_ctx *out);

/** Page-table reads and checks of pins that were revoked (the caller
 *  held a region of freed memory). */
unsigned int gpudp_test_fakepin_revoked_reads(void);

/** Pins not unpinned yet, every context. */
unsigned int gpudp_test_fakepin_live(void);

/**
 * The lowest and highest-ending address of the live pins on context
 * @p ctx ([*lo, *hi); both 0 if none).
 */
void gpudp_test_fakepin_span(uint64_t ctx, uint64_t *lo, uint64_t *hi);

/**
 * A dma-buf stand-in for [va, va + len) of CUDA device memory: a file
 * descriptor (of /dev/null) that gpudp_pin_attach_dmabuf() maps back to
 * the range. @return the fd (the caller closes it), or a negative errno.
 */
int gpudp_test_fakepin_export(void *va, size_t len);

#endif /* GPUDP_TEST_FAKEPIN_H */
