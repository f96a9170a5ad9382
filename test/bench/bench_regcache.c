/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark: what a registration-cache hit costs against what it saves.
 *   hit_ns        gpudp_regcache_acquire + release of a cached region
 *   miss_ns       the same with a fresh region each time (null backend:
 *                 the cache's own bookkeeping, no real pin)
 *   buffer_id_ns  one CU_POINTER_ATTRIBUTE_BUFFER_ID query (needs a GPU)
 *   pin_ns        one gpudp_pin pin + unpin of 2 MiB of GPU memory (needs a
 *                 GPU and the gpudp_pin module over the NVIDIA driver)
 * Unavailable figures are null. JSON goes to the file named by argv[1]
 * (default: stdout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <gpudp_regcache.h>
#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#endif
#include <gpudp_pin_client.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t next_handle;

static int
null_pin(void *ctx, uint64_t va, uint64_t len, uint64_t *handle, uint64_t *tag)
{
	(void)ctx;
	(void)va;
	(void)len;
	*handle = next_handle++;
	*tag = 0;
	return 0;
}

static void
null_unpin(void *ctx, uint64_t handle)
{
	(void)ctx;
	(void)handle;
}

static const struct gpudp_regcache_ops null_ops = { .pin = null_pin, .unpin = null_unpin };

static double
bench_hit(unsigned int regions, unsigned int iters)
{
	struct gpudp_regcache_conf conf = { .ops = &null_ops };
	struct gpudp_regcache *c = gpudp_regcache_create(&conf);
	const struct gpudp_reg *r;
	uint64_t t0, va;
	unsigned int i;

	for (i = 0; i < regions; i++) {
		gpudp_regcache_acquire(c, (uint64_t)i << 24, 1 << 20, &r);
		gpudp_regcache_release(c, r);
	}
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		va = ((uint64_t)(i % regions) << 24) + 4096;
		if (gpudp_regcache_acquire(c, va, 2048, &r) == 0)
			gpudp_regcache_release(c, r);
	}
	t0 = now_ns() - t0;
	gpudp_regcache_destroy(c);
	return (double)t0 / iters;
}

static double
bench_miss(unsigned int iters)
{
	struct gpudp_regcache_conf conf = { .ops = &null_ops, .budget = 64 << 20 };
	struct gpudp_regcache *c = gpudp_regcache_create(&conf);
	const struct gpudp_reg *r;
	unsigned int i;
	uint64_t t0 = now_ns();

	for (i = 0; i < iters; i++)
		if (gpudp_regcache_acquire(c, (uint64_t)i << 20, 1 << 20, &r) == 0)
			gpudp_regcache_release(c, r);
	t0 = now_ns() - t0;
	gpudp_regcache_destroy(c);
	return (double)t0 / iters;
}

static void
put(FILE *f, const char *key, double v, int ok, const char *sep)
{
	if (ok)
		fprintf(f, "  \"%s\": %.1f%s\n", key, v, sep);
	else
		fprintf(f, "  \"%s\": null%s\n", key, sep);
}

int
main(int argc, char **argv)
{
	double hit1, hit1k, miss, bid = 0, pin = 0;
	int have_bid = 0, have_pin = 0;
	char why[160] = "no GPU";
	FILE *f = stdout;

	hit1 = bench_hit(1, 2000000);
	hit1k = bench_hit(1024, 2000000);
	miss = bench_miss(200000);
#ifdef GPUDP_HAS_CUDA
	if (gpudp_cuda_init() == 0) {
		CUcontext ctx;
		CUdevice dev;
		CUdeviceptr d;
		unsigned long long id;
		unsigned int i, n = 200000;
		uint64_t t0;

		gpudp_cu->cuDeviceGet(&dev, 0);
		gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev);
		gpudp_cu->cuCtxSetCurrent(ctx);
		if (gpudp_cu->cuMemAlloc(&d, 2 << 20) == CUDA_SUCCESS) {
			t0 = now_ns();
			for (i = 0; i < n; i++)
				gpudp_cu->cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
								d + (i & 1023) * 2048);
			bid = (double)(now_ns() - t0) / n;
			have_bid = 1;
			int fd = gpudp_pin_open(NULL);

			if (fd >= 0) {
				struct gpudp_pin_pin p;

				n = 200;
				t0 = now_ns();
				for (i = 0; i < n; i++)
					if (gpudp_pin_pin(fd, d, 2 << 20, 0, &p) == 0)
						gpudp_pin_unpin(fd, p.handle);
				pin = (double)(now_ns() - t0) / n;
				have_pin = 1;
				gpudp_pin_close(fd);
			} else {
				snprintf(why, sizeof(why), "gpudp_pin not loaded (%d)", fd);
			}
			gpudp_cu->cuMemFree(d);
		}
	}
#endif
	if (argc > 1) {
		char dir[512], *slash;

		snprintf(dir, sizeof(dir), "%s", argv[1]);
		slash = strrchr(dir, '/');
		if (slash != NULL) {
			*slash = '\0';
			mkdir(dir, 0755);
		}
		f = fopen(argv[1], "w");
	}
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "{\n  \"benchmark\": \"regcache\",\n");
	put(f, "hit_ns_1_region", hit1, 1, ",");
	put(f, "hit_ns_1024_regions", hit1k, 1, ",");
	put(f, "miss_ns_null_backend", miss, 1, ",");
	put(f, "buffer_id_query_ns", bid, have_bid, ",");
	put(f, "pin_unpin_2MiB_ns", pin, have_pin, ",");
	fprintf(f, "  \"pin_unavailable_because\": \"%s\"\n}\n", have_pin ? "" : why);
	if (f != stdout)
		fclose(f);
	fprintf(stderr, "regcache: hit %.1f ns (1 region), %.1f ns (1024 regions), miss %.1f ns\n",
		hit1, hit1k, miss);
	return 0;
}
