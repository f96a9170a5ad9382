/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-work-check: prove that a work's GPU form gives what its CPU form
 * gives (doc/work.md, "Checking a work"). Every packet of a capture goes
 * through the work in the cpu mode (the reference) and in each GPU mode on
 * each kind of packet memory; verdicts, results, packet bytes and counters
 * are compared, and the first packet that differs is reported.
 *
 * No DPDK port is involved: the packets are copied into the memory under
 * test (GPU memory, pinned host memory, plain host memory for staged) and
 * handed to a handoff (lib/handoff) directly.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <gpudp_app_work.h>
#include <gpudp_handoff.h>
#include <gpudp_opt.h>

#include "gpudp_capfile.h"
#include "options.h"

#ifdef GPUDP_HAS_CUDA
#include <gpudp_cuda.h>
#endif

#define EXIT_DIFF 1
#define EXIT_NOGPU 77
#define SLOT_ALIGN 64

/* the packets of the capture, laid out one after another */
struct pkts {
	uint32_t n;
	uint32_t *len;
	size_t *off;       /* each packet's offset in the buffer (64-byte aligned) */
	size_t bytes;
	uint8_t *orig;     /* the capture's bytes */
};

/* what one run gave */
struct outcome {
	uint8_t *verdict;
	uint8_t *result;   /* n * result_size */
	uint8_t *bytes;    /* the packets afterwards */
	uint64_t counters[GPUDP_WORK_COUNTERS_MAX];
	uint64_t drops[GPUDP_WORK_VERDICT_MAX];
};

/* the capture's packets (gpudp_capfile_read_all()), laid out 64-byte aligned */
static int
pkts_read(const char *path, uint64_t max, struct pkts *p)
{
	struct gpudp_capfile_packets cp;
	char err[512];
	size_t i, off = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = gpudp_capfile_read_all(path, &cp, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, PROG ": --pcap: %s\n", err);
		return -1;
	}
	p->n = (uint32_t)(max != 0 && max < cp.n ? max : RTE_MIN(cp.n, (size_t)UINT32_MAX));
	if (p->n == 0) {
		fprintf(stderr, PROG ": --pcap: %s has no packet\n", path);
		gpudp_capfile_packets_free(&cp);
		return -1;
	}
	p->len = calloc(p->n, sizeof(*p->len));
	p->off = calloc(p->n, sizeof(*p->off));
	for (i = 0; i < p->n; i++)
		off = RTE_ALIGN_CEIL(off, SLOT_ALIGN) + cp.pkt[i].caplen;
	p->bytes = RTE_ALIGN_CEIL(off, SLOT_ALIGN);
	p->orig = calloc(1, p->bytes);
	if (p->len == NULL || p->off == NULL || p->orig == NULL) {
		fprintf(stderr, PROG ": --pcap: %s: out of memory\n", path);
		gpudp_capfile_packets_free(&cp);
		return -1;
	}
	for (i = 0, off = 0; i < p->n; i++) {
		off = RTE_ALIGN_CEIL(off, SLOT_ALIGN);
		p->len[i] = cp.pkt[i].caplen;
		p->off[i] = off;
		memcpy(p->orig + off, cp.pkt[i].data, cp.pkt[i].caplen);
		off += cp.pkt[i].caplen;
	}
	gpudp_capfile_packets_free(&cp);
	return 0;
}

static void
pkts_free(struct pkts *p)
{
	free(p->len);
	free(p->off);
	free(p->orig);
}

static int
outcome_alloc(struct outcome *o, const struct pkts *p, const struct gpudp_work *w)
{
	memset(o, 0, sizeof(*o));
	o->verdict = calloc(p->n, 1);
	o->result = calloc((size_t)p->n * w->result_size + 1, 1);
	o->bytes = calloc(p->bytes, 1);
	return o->verdict != NULL && o->result != NULL && o->bytes != NULL ? 0 : -ENOMEM;
}

static void
outcome_free(struct outcome *o)
{
	free(o->verdict);
	free(o->result);
	free(o->bytes);
}

/*
 * Every packet through handoff @p h, with the packets at @p base (the
 * address the work uses, of packet memory holding the capture's bytes).
 * Verdicts, results and counters into @p o (bytes are the caller's).
 */
static int
run_handoff(struct gpudp_handoff *h, const struct pkts *p, uint64_t base, struct outcome *o)
{
	const struct gpudp_work *w = gpudp_handoff_work(h);
	struct gpudp_handoff_stats *st;
	uint32_t next = 0, done = 0, i;
	uint64_t t0 = gpudp_ho_now_ns();

	while (done < p->n) {
		struct gpudp_ho_burst *b;

		while (next < p->n && (b = gpudp_handoff_acquire(h)) != NULL) {
			while (next < p->n && b->n < b->max) {
				gpudp_ho_burst_add(b, (void *)(uintptr_t)(base + p->off[next]),
						   p->len[next], (void *)(uintptr_t)next);
				next++;
			}
			if (gpudp_handoff_submit(h, b) != 0)
				break;
		}
		gpudp_handoff_flush(h);
		while ((b = gpudp_handoff_completed(h)) == NULL) {
			if (gpudp_ho_now_ns() - t0 > 60000000000ull) {
				fprintf(stderr, PROG ": no burst completed in 60 s\n");
				return -ETIMEDOUT;
			}
		}
		for (i = 0; i < b->n; i++) {
			uint32_t k = (uint32_t)(uintptr_t)b->cookie[i];

			o->verdict[k] = b->n_pass == b->n ? GPUDP_WORK_PASS : b->verdict[i];
			if (w->result_size != 0)
				memcpy(o->result + (size_t)k * w->result_size,
				       b->result + (size_t)i * w->result_size, w->result_size);
		}
		done += b->n;
		gpudp_handoff_release(h, b);
		t0 = gpudp_ho_now_ns();
	}
	st = malloc(sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	gpudp_handoff_stats_get(h, st);
	memcpy(o->counters, st->counters, sizeof(o->counters));
	memcpy(o->drops, st->drops, sizeof(o->drops));
	free(st);
	return gpudp_handoff_failed(h);
}

static struct gpudp_handoff *
handoff(const struct opts *o, const struct gpudp_work *w, enum gpudp_ho_mode mode,
	uint64_t ctx, int gpu_copy)
{
	struct gpudp_handoff_conf c;
	struct gpudp_handoff *h;

	memset(&c, 0, sizeof(c));
	c.name = "check";
	c.mode = mode;
	c.work = w;
	c.work_arg = o->work_arg;
	c.burst_max = o->burst;
	c.ring_size = 16;
	c.graph_batch = 4;
	c.stage_bytes = 65535;
	c.stage_gpu_copy = gpu_copy;
	c.cu_ctx = ctx;
	c.cu_dev = (int)o->gpu;
	h = gpudp_handoff_create(&c);
	if (h == NULL)
		fprintf(stderr, PROG ": %s mode: %s\n", gpudp_ho_mode_name(mode),
			strerror(rte_errno));
	return h;
}

static void
summary(const struct opts *o, const char *what, const struct gpudp_work *w,
	const struct outcome *r, uint32_t n)
{
	uint64_t drops = 0;
	uint32_t k;

	if (o->quiet)
		return;
	for (k = 1; k < GPUDP_WORK_VERDICT_MAX; k++)
		drops += r->drops[k];
	printf("%-18s %u packets, %" PRIu64 " dropped", what, n, drops);
	for (k = 0; k < w->n_counters; k++)
		printf(", %s=%" PRIu64, w->counters[k], r->counters[k]);
	printf("\n");
}

#ifdef GPUDP_HAS_CUDA
static const char *
vname(const struct gpudp_work *w, uint8_t v)
{
	const char *n = gpudp_work_verdict_name(w, v);

	return n != NULL ? n : "(unnamed)";
}

static void
hex(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 32; i++)
		fprintf(f, "%02x", p[i]);
	if (n > 32)
		fprintf(f, "...");
}

/* @return 0 when @p got equals @p ref, else 1 (the first difference printed) */
static int
compare(const char *what, const struct gpudp_work *w, const struct pkts *p,
	const struct outcome *ref, const struct outcome *got)
{
	uint32_t i, k;

	for (i = 0; i < p->n; i++) {
		const uint8_t *a = ref->bytes + p->off[i], *b = got->bytes + p->off[i];
		size_t rs = w->result_size;

		if (ref->verdict[i] != got->verdict[i]) {
			printf("DIFF %s: packet %u (%u bytes): verdict cpu '%s', gpu '%s'\n", what,
			       i, p->len[i], vname(w, ref->verdict[i]), vname(w, got->verdict[i]));
			return 1;
		}
		if (rs != 0 && memcmp(ref->result + i * rs, got->result + i * rs, rs) != 0) {
			printf("DIFF %s: packet %u (%u bytes): result cpu ", what, i, p->len[i]);
			hex(stdout, ref->result + i * rs, rs);
			printf(", gpu ");
			hex(stdout, got->result + i * rs, rs);
			printf("\n");
			return 1;
		}
		for (k = 0; k < p->len[i]; k++)
			if (a[k] != b[k]) {
				printf("DIFF %s: packet %u (%u bytes): byte %u cpu 0x%02x, gpu 0x%02x\n",
				       what, i, p->len[i], k, a[k], b[k]);
				return 1;
			}
	}
	for (k = 0; k < w->n_counters; k++)
		if (ref->counters[k] != got->counters[k]) {
			printf("DIFF %s: counter %s: cpu %" PRIu64 ", gpu %" PRIu64 "\n", what,
			       w->counters[k], ref->counters[k], got->counters[k]);
			return 1;
		}
	for (k = 0; k < GPUDP_WORK_VERDICT_MAX; k++)
		if (ref->drops[k] != got->drops[k]) {
			printf("DIFF %s: drops '%s': cpu %" PRIu64 ", gpu %" PRIu64 "\n", what,
			       vname(w, (uint8_t)k), ref->drops[k], got->drops[k]);
			return 1;
		}
	return 0;
}

/*
 * The capture's packets in memory of kind @p mk: GPU memory at *@p d, or
 * pinned or plain host memory at *@p hp; *@p base the address the work uses.
 * @return 0, -EIO (a CUDA call failed) or -ENOMEM; what was had stays set
 * for pkt_mem_free().
 */
static int
pkt_mem_alloc(const struct pkts *p, enum mem_kind mk, CUdeviceptr *d, void **hp,
	      uint64_t *base)
{
	int ret;

	if (mk == MEM_DEVICE) {
		ret = gpudp_cu->cuMemAlloc(d, p->bytes) == CUDA_SUCCESS &&
		      gpudp_cu->cuMemcpyHtoD(*d, p->orig, p->bytes) == CUDA_SUCCESS ? 0 : -EIO;
		*base = *d;
	} else if (mk == MEM_PINNED) {
		ret = gpudp_cu->cuMemHostAlloc(hp, p->bytes, CU_MEMHOSTALLOC_DEVICEMAP |
					       CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS ? 0 : -EIO;
		if (ret == 0)
			memcpy(*hp, p->orig, p->bytes);
		*base = (uint64_t)(uintptr_t)*hp;  /* unified addressing: the same address */
	} else {
		*hp = malloc(p->bytes);
		ret = *hp != NULL ? 0 : -ENOMEM;
		if (ret == 0)
			memcpy(*hp, p->orig, p->bytes);
		*base = (uint64_t)(uintptr_t)*hp;
	}
	return ret;
}

static void
pkt_mem_free(enum mem_kind mk, CUdeviceptr d, void *hp)
{
	if (d != 0)
		gpudp_cu->cuMemFree(d);
	if (hp != NULL && mk == MEM_PINNED)
		gpudp_cu->cuMemFreeHost(hp);
	else
		free(hp);
}

/* one GPU mode on one kind of memory; @return 0 same, 1 differs, <0 error */
static int
check_gpu(const struct opts *o, const struct gpudp_work *w, const struct pkts *p,
	  const struct outcome *ref, CUcontext ctx, enum gpudp_ho_mode mode, enum mem_kind mk)
{
	struct gpudp_handoff *h = NULL;
	struct outcome got;
	CUdeviceptr d = 0;
	void *hp = NULL;
	uint64_t base;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "%s/%s", gpudp_ho_mode_name(mode), mem_names[mk]);
	if (outcome_alloc(&got, p, w) != 0)
		return -ENOMEM;
	/* the packet memory first: while a persistent kernel runs, allocations wait */
	ret = pkt_mem_alloc(p, mk, &d, &hp, &base);
	if (ret != 0) {
		fprintf(stderr, PROG ": %s: packet memory of %zu bytes: %s\n", what, p->bytes,
			gpudp_cuda_last_error());
		goto out;
	}
	h = handoff(o, w, mode, (uint64_t)(uintptr_t)ctx, mk == MEM_PINNED);
	if (h == NULL || gpudp_handoff_start(h) != 0) {
		ret = -EIO;
		goto out;
	}
	ret = run_handoff(h, p, base, &got);
	gpudp_handoff_stop(h);
	if (ret != 0) {
		fprintf(stderr, PROG ": %s: the work failed on the GPU (%s)\n", what, strerror(-ret));
		printf("DIFF %s: the GPU run failed\n", what);
		ret = 1;
		goto out;
	}
	if (mk == MEM_DEVICE)
		ret = gpudp_cu->cuMemcpyDtoH(got.bytes, d, p->bytes) == CUDA_SUCCESS ? 0 : -EIO;
	else
		memcpy(got.bytes, hp, p->bytes);
	if (ret == 0) {
		ret = compare(what, w, p, ref, &got);
		if (ret == 0)
			summary(o, what, w, &got, p->n);
	}
out:
	gpudp_handoff_destroy(h);
	pkt_mem_free(mk, d, hp);
	outcome_free(&got);
	return ret;
}
/* the GPU modes and memory kinds asked for, each against the reference
 * @p ref; @return the exit status */
static int
check_all_gpu(const struct opts *o, const struct gpudp_work *w, const struct pkts *p,
	      const struct outcome *ref, CUcontext ctx)
{
	int m, k, ret, n_diff = 0, n_run = 0;

	for (m = 0; m < GPUDP_HO_MODE_MAX; m++) {
		int staged = m == GPUDP_HO_STAGED;

		if (!(o->modes & (1u << m)) || !gpudp_ho_mode_is_gpu((enum gpudp_ho_mode)m))
			continue;
		for (k = 0; k < MEM_MAX; k++) {
			if (!(o->mems & (1u << k)) || (staged && k == MEM_DEVICE) ||
			    (!staged && k == MEM_HOST))
				continue;
			ret = check_gpu(o, w, p, ref, ctx, (enum gpudp_ho_mode)m, (enum mem_kind)k);
			n_run++;
			if (ret != 0)
				n_diff++;
			if (ret < 0)
				printf("DIFF %s/%s: could not run (%s)\n",
				       gpudp_ho_mode_name((enum gpudp_ho_mode)m), mem_names[k],
				       strerror(-ret));
		}
	}
	printf("%d of %d GPU runs identical to the CPU form\n", n_run - n_diff, n_run);
	return n_diff != 0 ? EXIT_DIFF : n_run == 0 ? EXIT_USAGE : 0;
}
#endif

/* the GPU runs in the primary context of --gpu; @return the exit status */
static int
check_on_gpu(const struct opts *o, const struct gpudp_work *w, const struct pkts *p,
	     const struct outcome *ref)
{
#ifdef GPUDP_HAS_CUDA
	CUcontext ctx = NULL;
	CUdevice dev;
	int rc;

	if (gpudp_cuda_init() != 0 ||
	    gpudp_cu->cuDeviceGet(&dev, (int)o->gpu) != CUDA_SUCCESS ||
	    gpudp_cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
	    gpudp_cu->cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		printf("no usable GPU %u (%s): only the CPU form ran\n", o->gpu,
		       gpudp_cuda_last_error());
		return EXIT_NOGPU;
	}
	rc = check_all_gpu(o, w, p, ref, ctx);
	gpudp_cu->cuDevicePrimaryCtxRelease(dev);
	return rc;
#else
	(void)o;
	(void)w;
	(void)p;
	(void)ref;
	printf("built without CUDA: only the CPU form ran\n");
	return EXIT_NOGPU;
#endif
}

/* the reference: the CPU form over a copy of the packets in host memory,
 * into @p ref; @return 0 or the exit status */
static int
run_reference(const struct opts *o, const struct gpudp_work *w, const struct pkts *p,
	      struct outcome *ref)
{
	struct gpudp_handoff *h;
	int ret;

	memcpy(ref->bytes, p->orig, p->bytes);
	h = handoff(o, w, GPUDP_HO_CPU, 0, 0);
	if (h == NULL)
		return EXIT_USAGE;
	ret = run_handoff(h, p, (uint64_t)(uintptr_t)ref->bytes, ref);
	gpudp_handoff_destroy(h);
	return ret != 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const struct gpudp_work *w;
	struct outcome ref;
	struct pkts p;
	struct opts o;
	int rc;

	rc = work_check_parse(&o, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : EXIT_USAGE;
	w = gpudp_app_work(PROG, o.work_spec, o.work_arg, 0);
	if (w == NULL)
		return EXIT_USAGE;
	if (pkts_read(o.pcap, o.max_pkts, &p) != 0)
		return EXIT_USAGE;
	if (outcome_alloc(&ref, &p, w) != 0)
		return 1;
	rc = run_reference(&o, w, &p, &ref);
	if (rc != 0)
		goto out;
	if (!o.quiet)
		printf("work %s (%s) over %s\n", w->name, gpudp_work_origin(w), o.pcap);
	summary(&o, "cpu/host", w, &ref, p.n);
	if (w->gpu_image == NULL) {
		printf("work %s has no GPU image: only its CPU form ran\n", w->name);
		rc = EXIT_NOGPU;
		goto out;
	}
	rc = check_on_gpu(&o, w, &p, &ref);
out:
	outcome_free(&ref);
	pkts_free(&p);
	return rc;
}
