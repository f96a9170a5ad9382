/* SPDX-License-Identifier: BSD-3-Clause */
/* gpudp-capture-bench --generate: a capture of synthetic frames (bench.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* --generate: one synthetic frame of flow f (xorshift state *x) at @p b; its length */
static uint32_t
gen_frame(uint8_t *b, uint32_t f, uint64_t *x, uint32_t size)
{
	int v6 = (f & 3) == 3, tcp = (f % 5) < 3;
	uint32_t l3 = v6 ? 40 : 20, l4 = tcp ? 20 : 8, len, pay;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	len = size != 0 ? size : 80 + (uint32_t)(*x % 49);
	pay = len - 14 - l3 - l4;
	memset(b, 0, len);
	for (uint32_t k = 14 + l3 + l4; size != 0 && k + 8 <= len; k += 8) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		memcpy(b + k, x, 8);
	}
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	b[12] = v6 ? 0x86 : 0x08;
	b[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		b[14] = 0x60;
		b[18] = (uint8_t)((l4 + pay) >> 8);
		b[19] = (uint8_t)(l4 + pay);
		b[20] = tcp ? 6 : 17;
		b[21] = 64;
		b[22] = 0xfd;
		b[37] = (uint8_t)(f >> 8);
		b[38] = 0xfd;
		b[53] = (uint8_t)f;
	} else {
		b[14] = 0x45;
		b[16] = (uint8_t)((l3 + l4 + pay) >> 8);
		b[17] = (uint8_t)(l3 + l4 + pay);
		b[22] = 64;
		b[23] = tcp ? 6 : 17;
		b[26] = 10;
		b[28] = (uint8_t)(f >> 8);
		b[29] = (uint8_t)f;
		b[30] = 10;
		b[31] = 200;
	}
	b += 14 + l3;
	b[0] = (uint8_t)((1024 + f % 4096) >> 8);
	b[1] = (uint8_t)(1024 + f % 4096);
	b[2] = (uint8_t)((80 + f % 7) >> 8);
	b[3] = (uint8_t)(80 + f % 7);
	if (tcp)
		b[12] = 0x50;
	else
		b[5] = (uint8_t)(l4 + pay);
	return len;
}

int
bench_generate(const char *path, uint64_t n, uint32_t size)
{
	static const uint32_t fh[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 262144, 1 };
	FILE *f = fopen(path, "wb");
	uint64_t i, x = 88172645463325252ull, ts = 1795305973000000000ull;
	static uint8_t rec[16 + 9000];

	if (f == NULL) {
		fprintf(stderr, "gpudp-capture-bench: --generate: cannot create '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 22);
	fwrite(fh, sizeof(fh), 1, f);
	for (i = 0; i < n; i++, ts += 100) {
		uint32_t len = gen_frame(rec + 16, (uint32_t)(i * 2654435761u % 65536), &x, size);
		uint32_t h[4] = { (uint32_t)(ts / 1000000000), (uint32_t)(ts % 1000000000), len,
				  len };

		memcpy(rec, h, sizeof(h));
		fwrite(rec, 16 + len, 1, f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "gpudp-capture-bench: --generate: write error on '%s'\n", path);
		return 1;
	}
	printf("%s: %llu frames\n", path, (unsigned long long)n);
	return 0;
}
