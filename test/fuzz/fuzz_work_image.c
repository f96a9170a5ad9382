/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the GPU image format check of a work's descriptor
 * (gpudp_work_image_check(), lib/work/gpudp_work.c), which reads a
 * fatbin's or a cubin's header, or scans PTX text, in whatever a work's
 * shared object points at. Each input is checked
 * - as an image of its real size, in a heap block of exactly that size (the
 *   sanitizers catch any read past it);
 * - NUL-terminated (one byte more), with its real size, and, unless it
 *   starts with a fatbin's or ELF's magic, with size 0, which means "up to
 *   its NUL": the PTX path without a size must not read past the NUL.
 * (With size 0 a fatbin or cubin is trusted to hold what its header says:
 * there is nothing to check that against, so that is not fuzzed.)
 * Every answer is compared with an oracle written here, in 128-bit sums,
 * and a refusal must come with a message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_work.h"
#include "gpudp_work_pvt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what DPDK would give (dpdk_stub/) */
#include "gpudp_fuzz_dpdk.h"

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_work_image: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

typedef unsigned __int128 u128;

static uint64_t
le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int
magic_fatbin(const uint8_t *p, size_t n)
{
	return n >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba;
}

static int
magic_elf(const uint8_t *p, size_t n)
{
	return n >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

/*
 * PTX: ".version" and ".target " both start within the text, which ends
 * at the first NUL or control byte other than tab, CR and LF, at 64 KiB of
 * starts, and where fewer than 9 bytes are left.
 */
static int
ptx_ok(const uint8_t *p, size_t n)
{
	size_t b, starts;

	for (b = 0; b < n; b++)
		if (p[b] == 0 || (p[b] < 0x20 && p[b] != '\t' && p[b] != '\n' && p[b] != '\r'))
			break;
	starts = n > 8 ? n - 8 : 0;
	if (starts > b)
		starts = b;
	if (starts > 65536)
		starts = 65536;
	/* a match starting before @starts lies within the first starts + 7 bytes */
	return starts > 0 && memmem(p, starts + 7, ".version", 8) != NULL &&
	       memmem(p, starts + 7, ".target ", 8) != NULL;
}

/* the answer for the image @p p of size @p have (0: NUL-terminated text) */
static int
expect(const uint8_t *p, size_t have)
{
	size_t n = have != 0 ? have : strlen((const char *)p);

	if (have != 0 && have < 16)
		return -ENOEXEC;
	if (magic_fatbin(p, n)) {
		u128 need = (u128)le(p + 6, 2) + le(p + 8, 8);

		return le(p + 6, 2) >= 16 && need <= have ? 0 : -ENOEXEC;
	}
	if (magic_elf(p, n)) {
		if (have < 64)   /* not even its header */
			return -ENOEXEC;
		return p[4] == 2 && p[5] == 1 && le(p + 18, 2) == 190 &&
		       (u128)le(p + 40, 8) + (u128)le(p + 58, 2) * le(p + 60, 2) <= have ?
		       0 : -ENOEXEC;
	}
	return ptx_ok(p, n) ? 0 : -ENOEXEC;
}

static void
check(const uint8_t *p, size_t have, const char *how)
{
	struct gpudp_work w = { .gpu_image = p, .gpu_image_size = have };
	char err[256], small[8];
	int r, want = expect(p, have);

	memset(err, 0x7f, sizeof(err));
	r = gpudp_work_image_check(&w, err, sizeof(err));
	CHECK(r == want, "%s, size %zu: returned %d, want %d", how, have, r, want);
	if (r != 0) {
		CHECK(memchr(err, '\0', sizeof(err)) != NULL, "%s: message not terminated", how);
		CHECK(strncmp(err, "GPU image", 9) == 0, "%s: message '%s'", how, err);
	}
	/* no message buffer, or a tiny one: the same answer */
	CHECK(gpudp_work_image_check(&w, NULL, 0) == r, "%s: without a message buffer", how);
	memset(small, 0x7f, sizeof(small));
	CHECK(gpudp_work_image_check(&w, small, sizeof(small)) == r &&
	      (r == 0 || memchr(small, '\0', sizeof(small)) != NULL),
	      "%s: with an 8-byte message buffer", how);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img, *txt;

	if (size > 0) {
		img = malloc(size);
		if (img == NULL)
			return 0;
		memcpy(img, data, size);
		check(img, size, "real size");
		free(img);
	}
	txt = malloc(size + 1);
	if (txt == NULL)
		return 0;
	memcpy(txt, data, size);
	txt[size] = '\0';
	check(txt, size + 1, "NUL-terminated, real size");
	if (!magic_fatbin(txt, strlen((char *)txt)) && !magic_elf(txt, strlen((char *)txt)))
		check(txt, 0, "NUL-terminated, size 0");
	free(txt);
	return 0;
}
