/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/regcache: the registration cache's logic, against a fake pin
 * backend (fake_bar below) that models a BAR of fixed size, counts every
 * pin and unpin, and can change buffer ID tags. The real backends (the
 * gpudp_pin module, peermem) are tested in the kmod and gpu suites.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <gpudp_regcache.h>
#include <gpudp_test.h>

#define K64 GPUDP_REGCACHE_ALIGN
#define MAXPINS 64

/* fake_bar: a BAR of `capacity` bytes; pin fails with -ENOSPC beyond it */
static struct {
	uint64_t capacity, used;
	unsigned int pins, unpins, live;
	uint64_t next_handle;
	struct { uint64_t handle, va, len; int live; } pin[MAXPINS];
	uint64_t tag_of_va;     /* current tag of all memory */
	int fail_next;          /* errno to fail the next pin with */
} bar;

static int
fake_pin(void *ctx, uint64_t va, uint64_t len, uint64_t *handle, uint64_t *tag)
{
	(void)ctx;
	if (bar.fail_next) {
		int e = bar.fail_next;

		bar.fail_next = 0;
		return -e;
	}
	if (bar.capacity && bar.used + len > bar.capacity)
		return -ENOSPC;
	if (bar.next_handle >= MAXPINS)
		return -ENOMEM;
	bar.used += len;
	bar.pins++;
	bar.live++;
	*handle = bar.next_handle++;
	bar.pin[*handle].handle = *handle;
	bar.pin[*handle].va = va;
	bar.pin[*handle].len = len;
	bar.pin[*handle].live = 1;
	*tag = bar.tag_of_va;
	return 0;
}

static void
fake_unpin(void *ctx, uint64_t handle)
{
	(void)ctx;
	if (handle < MAXPINS && bar.pin[handle].live) {
		bar.pin[handle].live = 0;
		bar.used -= bar.pin[handle].len;
		bar.live--;
	}
	bar.unpins++;
}

static int
fake_tag(void *ctx, uint64_t va, uint64_t *tag)
{
	(void)ctx;
	(void)va;
	*tag = bar.tag_of_va;
	return 0;
}

static const struct gpudp_regcache_ops fake_ops = {
	.pin = fake_pin, .unpin = fake_unpin, .tag = fake_tag,
};

static struct gpudp_regcache *
new_cache(uint64_t budget, uint64_t bar_capacity)
{
	struct gpudp_regcache_conf conf = { .ops = &fake_ops, .budget = budget };

	memset(&bar, 0, sizeof(bar));
	bar.capacity = bar_capacity;
	bar.tag_of_va = 0x1000;
	return gpudp_regcache_create(&conf);
}

#define BASE UINT64_C(0x7f0000000000)

static int
second_acquire_is_a_hit(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *a, *b;
	struct gpudp_regcache_stats st;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 100, 1000, &a) == 0, "acquire");
	gpudp_regcache_release(c, a);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 2000, 5000, &b) == 0, "acquire");
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(a == b, "different regions for the same 64 KiB page");
	GPUDP_TEST_ASSERT(st.hits == 1 && st.misses == 1, "hits %lu misses %lu",
			  (unsigned long)st.hits, (unsigned long)st.misses);
	GPUDP_TEST_ASSERT(bar.pins == 1 && bar.unpins == 0, "pins %u unpins %u",
			  bar.pins, bar.unpins);
	gpudp_regcache_release(c, b);
	gpudp_regcache_destroy(c);
	GPUDP_TEST_ASSERT(bar.live == 0, "%u pins left after destroy", bar.live);
	return GPUDP_TEST_PASS;
}

static int
regions_round_out_to_64k(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *r;

	/* 2 bytes straddling a 64 KiB boundary: two pages */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + K64 - 1, 2, &r) == 0, "acquire");
	GPUDP_TEST_ASSERT(r->va == BASE && r->len == 2 * K64, "va %#lx len %#lx",
			  (unsigned long)r->va, (unsigned long)r->len);
	GPUDP_TEST_ASSERT(bar.pin[r->handle].va == BASE && bar.pin[r->handle].len == 2 * K64,
			  "backend saw va %#lx len %#lx", (unsigned long)bar.pin[r->handle].va,
			  (unsigned long)bar.pin[r->handle].len);
	gpudp_regcache_release(c, r);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
overlapping_regions_merge(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *a, *b, *m;
	struct gpudp_regcache_stats st;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, 2 * K64, &a) == 0, "a");
	gpudp_regcache_release(c, a);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 3 * K64, K64, &b) == 0, "b");
	/* [K64, 4*K64) overlaps both: one region [0, 4*K64) replaces them */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + K64, 3 * K64, &m) == 0, "m");
	GPUDP_TEST_ASSERT(m->va == BASE && m->len == 4 * K64, "merged va %#lx len %#lx",
			  (unsigned long)m->va, (unsigned long)m->len);
	gpudp_regcache_stats(c, &st);
	/* a was idle: unpinned at once; b is in use: still pinned (retired) */
	GPUDP_TEST_ASSERT(bar.unpins == 1 && bar.live == 2, "unpins %u live %u",
			  bar.unpins, bar.live);
	GPUDP_TEST_ASSERT(st.regions == 2 && st.bytes_pinned == 5 * K64,
			  "regions %lu bytes %lu", (unsigned long)st.regions,
			  (unsigned long)st.bytes_pinned);
	gpudp_regcache_release(c, b);  /* last user of the retired region */
	GPUDP_TEST_ASSERT(bar.live == 1, "retired region not unpinned: live %u", bar.live);
	gpudp_regcache_release(c, m);
	gpudp_regcache_destroy(c);
	GPUDP_TEST_ASSERT(bar.live == 0, "%u left", bar.live);
	return GPUDP_TEST_PASS;
}

static int
adjacent_regions_stay_separate(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *a, *b, *again;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &a) == 0, "a");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + K64, K64, &b) == 0, "b");
	GPUDP_TEST_ASSERT(a != b && bar.pins == 2 && bar.unpins == 0,
			  "pins %u unpins %u", bar.pins, bar.unpins);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + K64 + 5, 10, &again) == 0, "again");
	GPUDP_TEST_ASSERT(again == b, "lookup found the wrong neighbour");
	gpudp_regcache_release(c, a);
	gpudp_regcache_release(c, b);
	gpudp_regcache_release(c, again);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
budget_evicts_least_recently_used(void)
{
	struct gpudp_regcache *c = new_cache(3 * K64, 0);
	const struct gpudp_reg *r[4];
	struct gpudp_regcache_stats st;
	int i;

	for (i = 0; i < 3; i++)
		GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 2 * i * K64, K64, &r[i]) == 0,
				  "acquire %d", i);
	/* idle order: 1, 0, 2 (0 is released after 1) */
	gpudp_regcache_release(c, r[1]);
	gpudp_regcache_release(c, r[0]);
	gpudp_regcache_release(c, r[2]);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 10 * K64, K64, &r[3]) == 0, "4th");
	GPUDP_TEST_ASSERT(bar.pin[1].live == 0 && bar.pin[0].live && bar.pin[2].live,
			  "evicted the wrong region: live %d %d %d", bar.pin[0].live,
			  bar.pin[1].live, bar.pin[2].live);
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(st.evictions == 1 && st.bytes_pinned == 3 * K64,
			  "evictions %lu bytes %lu", (unsigned long)st.evictions,
			  (unsigned long)st.bytes_pinned);
	gpudp_regcache_release(c, r[3]);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
budget_full_of_busy_regions_is_enospc(void)
{
	struct gpudp_regcache *c = new_cache(2 * K64, 0);
	const struct gpudp_reg *a, *b, *x = NULL;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &a) == 0, "a");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 4 * K64, K64, &b) == 0, "b");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 8 * K64, K64, &x) == -ENOSPC,
			  "third pin over budget succeeded");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, 3 * K64 + 1, &x) == -E2BIG,
			  "region larger than the budget accepted");
	GPUDP_TEST_ASSERT(bar.pins == 2, "pins %u", bar.pins);
	gpudp_regcache_release(c, a);
	gpudp_regcache_release(c, b);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
bar_exhaustion_evicts_then_retries(void)
{
	/* no budget set, but the (fake) BAR holds only 2 pages */
	struct gpudp_regcache *c = new_cache(0, 2 * K64);
	const struct gpudp_reg *a, *b, *x;
	struct gpudp_regcache_stats st;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &a) == 0, "a");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 4 * K64, K64, &b) == 0, "b");
	gpudp_regcache_release(c, a);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 8 * K64, K64, &x) == 0,
			  "pin after eviction failed");
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(st.pin_failures == 1 && st.evictions == 1 && !bar.pin[0].live,
			  "failures %lu evictions %lu", (unsigned long)st.pin_failures,
			  (unsigned long)st.evictions);
	gpudp_regcache_release(c, x);
	gpudp_regcache_release(c, b);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
other_pin_errors_are_returned(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *a;

	bar.fail_next = EINVAL;
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &a) == -EINVAL, "rc");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &a) == 0, "retry");
	gpudp_regcache_release(c, a);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
bad_ranges_are_rejected(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *a;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, 0, &a) == -EINVAL, "len 0");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, UINT64_MAX - 10, 100, &a) == -EINVAL,
			  "wrapping range");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, 0, GPUDP_REGCACHE_MAX_LEN + 1, &a) == -E2BIG,
			  "over the maximum");
	GPUDP_TEST_ASSERT(bar.pins == 0, "pinned %u", bar.pins);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static int
invalidate_drops_idle_and_busy_regions(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *idle, *busy, *other, *again;
	struct gpudp_regcache_stats st;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &idle) == 0, "idle");
	gpudp_regcache_release(c, idle);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 2 * K64, K64, &busy) == 0, "busy");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 8 * K64, K64, &other) == 0, "other");
	/* free callback for [0, 3 * K64): both the idle and the busy region */
	GPUDP_TEST_ASSERT(gpudp_regcache_invalidate(c, BASE, 3 * K64) == 2, "count");
	GPUDP_TEST_ASSERT(!bar.pin[0].live && bar.pin[1].live, "idle unpinned, busy kept");
	/* never served again */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 2 * K64, K64, &again) == 0, "again");
	GPUDP_TEST_ASSERT(again != busy && bar.pins == 4, "stale region returned");
	gpudp_regcache_release(c, busy);
	GPUDP_TEST_ASSERT(!bar.pin[1].live, "busy region not unpinned at release");
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(st.invalidations == 2 && st.regions == 2, "inv %lu regions %lu",
			  (unsigned long)st.invalidations, (unsigned long)st.regions);
	gpudp_regcache_release(c, again);
	gpudp_regcache_release(c, other);
	gpudp_regcache_destroy(c);
	GPUDP_TEST_ASSERT(bar.live == 0, "%u left", bar.live);
	return GPUDP_TEST_PASS;
}

static int
tag_mismatch_invalidates(void)
{
	struct gpudp_regcache *c = new_cache(0, 0);
	const struct gpudp_reg *r, *again;

	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &r) == 0, "acquire");
	GPUDP_TEST_ASSERT(gpudp_regcache_validate(c, r) == 0, "fresh region invalid");
	/* the memory was freed and reallocated at the same address */
	bar.tag_of_va = 0x2000;
	GPUDP_TEST_ASSERT(gpudp_regcache_validate(c, r) == -ESTALE, "tag change missed");
	GPUDP_TEST_ASSERT(gpudp_regcache_validate(c, r) == -ESTALE, "second validate");
	gpudp_regcache_release(c, r);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &again) == 0, "re-pin");
	GPUDP_TEST_ASSERT(again->tag == 0x2000 && bar.pins == 2 && bar.live == 1,
			  "tag %#lx pins %u live %u", (unsigned long)again->tag, bar.pins,
			  bar.live);
	gpudp_regcache_release(c, again);
	gpudp_regcache_destroy(c);
	return GPUDP_TEST_PASS;
}

static unsigned int stale_calls;

static void
fake_stale(void *ctx, uint64_t va, uint64_t len)
{
	(void)ctx;
	(void)va;
	(void)len;
	stale_calls++;
}

static const struct gpudp_regcache_ops fake_ops_stale = {
	.pin = fake_pin, .unpin = fake_unpin, .tag = fake_tag, .stale = fake_stale,
};

/* validate_hits: a hit over reallocated memory (new tag) is re-pinned. */
static int
hit_with_changed_tag_is_repinned(void)
{
	struct gpudp_regcache_conf conf = { .ops = &fake_ops_stale, .validate_hits = 1 };
	const struct gpudp_reg *r, *again, *third;
	struct gpudp_regcache_stats st;
	struct gpudp_regcache *c;

	memset(&bar, 0, sizeof(bar));
	bar.tag_of_va = 0x1000;
	stale_calls = 0;
	c = gpudp_regcache_create(&conf);
	GPUDP_TEST_ASSERT(c != NULL, "create");
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &r) == 0, "acquire");
	gpudp_regcache_release(c, r);
	/* same memory: a plain hit */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &again) == 0, "hit");
	GPUDP_TEST_ASSERT(again == r && bar.pins == 1 && stale_calls == 0, "hit re-pinned");
	gpudp_regcache_release(c, again);
	/* freed and reallocated at the same address: new tag */
	bar.tag_of_va = 0x2000;
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &again) == 0, "stale hit");
	GPUDP_TEST_ASSERT(again->tag == 0x2000 && bar.pins == 2 && bar.live == 1 &&
			  !bar.pin[0].live && stale_calls == 1,
			  "tag %#lx pins %u live %u stale %u", (unsigned long)again->tag,
			  bar.pins, bar.live, stale_calls);
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(st.invalidations == 1 && st.regions == 1, "inv %lu regions %lu",
			  (unsigned long)st.invalidations, (unsigned long)st.regions);
	gpudp_regcache_release(c, again);
	/* tag unknown at pin time (0, no CUDA): not checked, hit as before */
	bar.tag_of_va = 0;
	gpudp_regcache_invalidate(c, BASE, K64);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &r) == 0 && r->tag == 0, "no tag");
	gpudp_regcache_release(c, r);
	bar.tag_of_va = 0x3000;
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, K64, &third) == 0, "untagged hit");
	GPUDP_TEST_ASSERT(third == r && bar.pins == 3 && stale_calls == 1,
			  "untagged region checked: pins %u stale %u", bar.pins, stale_calls);
	gpudp_regcache_release(c, third);
	gpudp_regcache_destroy(c);
	GPUDP_TEST_ASSERT(bar.live == 0, "%u left", bar.live);
	return GPUDP_TEST_PASS;
}

/* per-address tags: memory below bar_gone is gone (the tag op fails),
 * memory from bar_retag on has tag 0x2000, the rest bar.tag_of_va */
static uint64_t bar_gone, bar_retag = UINT64_MAX;

static int
fake_tag_va(void *ctx, uint64_t va, uint64_t *tag)
{
	(void)ctx;
	if (va < bar_gone)
		return -ENOENT;
	*tag = va >= bar_retag ? 0x2000 : bar.tag_of_va;
	return 0;
}

static const struct gpudp_regcache_ops fake_ops_va = {
	.pin = fake_pin, .unpin = fake_unpin, .tag = fake_tag_va, .stale = fake_stale,
};

/*
 * validate_hits: a miss does not merge an idle region whose memory was
 * freed (tag op fails) or freed and allocated again (new tag), as when a
 * pool's memory is freed and the next one (on this GPU or another) is
 * allocated over part of it: the stale region is dropped, and the new pin
 * covers the request alone, not freed memory. A busy overlapping region
 * is still merged.
 */
static int
stale_idle_region_is_not_merged(void)
{
	struct gpudp_regcache_conf conf = { .ops = &fake_ops_va, .validate_hits = 1 };
	const struct gpudp_reg *a, *b, *busy, *m;
	struct gpudp_regcache_stats st;
	struct gpudp_regcache *c;

	memset(&bar, 0, sizeof(bar));
	bar.tag_of_va = 0x1000;
	bar_gone = 0;
	bar_retag = UINT64_MAX;
	stale_calls = 0;
	c = gpudp_regcache_create(&conf);
	GPUDP_TEST_ASSERT(c != NULL, "create");
	/* [0, 2) pinned and idle; then its first page is freed */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE, 2 * K64, &a) == 0, "a");
	gpudp_regcache_release(c, a);
	bar_gone = BASE + K64;
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + K64, 2 * K64, &b) == 0, "b");
	GPUDP_TEST_ASSERT(b->va == BASE + K64 && b->len == 2 * K64,
			  "merged with freed memory: [%#lx, +%#lx)", (unsigned long)b->va,
			  (unsigned long)b->len);
	GPUDP_TEST_ASSERT(!bar.pin[0].live && bar.live == 1 && stale_calls == 1,
			  "stale region kept: live %u stale %u", bar.live, stale_calls);
	gpudp_regcache_release(c, b);
	/* [4, 6) idle, [6, 7) busy; [4, 6) reallocated (new tag): a request
	 * over [5, 7) drops the first and merges the busy one */
	bar_gone = 0;
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 4 * K64, 2 * K64, &a) == 0, "a2");
	gpudp_regcache_release(c, a);
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 6 * K64, K64, &busy) == 0, "busy");
	bar_retag = BASE + 4 * K64;
	bar.tag_of_va = 0x2000;   /* the busy one too: busy regions are not checked */
	GPUDP_TEST_ASSERT(gpudp_regcache_acquire(c, BASE + 5 * K64, 2 * K64, &m) == 0, "m");
	GPUDP_TEST_ASSERT(m->va == BASE + 5 * K64 && m->len == 2 * K64,
			  "got [%#lx, +%#lx)", (unsigned long)(m->va - BASE),
			  (unsigned long)m->len);
	GPUDP_TEST_ASSERT(stale_calls == 2, "stale calls %u", stale_calls);
	gpudp_regcache_stats(c, &st);
	GPUDP_TEST_ASSERT(st.invalidations == 2, "invalidations %lu",
			  (unsigned long)st.invalidations);
	gpudp_regcache_release(c, m);
	gpudp_regcache_release(c, busy);
	gpudp_regcache_destroy(c);
	GPUDP_TEST_ASSERT(bar.live == 0, "%u left", bar.live);
	bar_gone = 0;
	bar_retag = UINT64_MAX;
	return GPUDP_TEST_PASS;
}

static int
create_rejects_bad_config(void)
{
	struct gpudp_regcache_conf conf = { .ops = NULL };

	GPUDP_TEST_ASSERT(gpudp_regcache_create(&conf) == NULL && errno == EINVAL, "no ops");
	conf.ops = &fake_ops;
	conf.budget = 4096;
	GPUDP_TEST_ASSERT(gpudp_regcache_create(&conf) == NULL && errno == EINVAL,
			  "budget under 64 KiB");
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "second_acquire_is_a_hit", second_acquire_is_a_hit },
	{ "regions_round_out_to_64k", regions_round_out_to_64k },
	{ "overlapping_regions_merge", overlapping_regions_merge },
	{ "adjacent_regions_stay_separate", adjacent_regions_stay_separate },
	{ "budget_evicts_least_recently_used", budget_evicts_least_recently_used },
	{ "budget_full_of_busy_regions_is_enospc", budget_full_of_busy_regions_is_enospc },
	{ "bar_exhaustion_evicts_then_retries", bar_exhaustion_evicts_then_retries },
	{ "other_pin_errors_are_returned", other_pin_errors_are_returned },
	{ "bad_ranges_are_rejected", bad_ranges_are_rejected },
	{ "invalidate_drops_idle_and_busy_regions", invalidate_drops_idle_and_busy_regions },
	{ "tag_mismatch_invalidates", tag_mismatch_invalidates },
	{ "hit_with_changed_tag_is_repinned", hit_with_changed_tag_is_repinned },
	{ "stale_idle_region_is_not_merged", stale_idle_region_is_not_merged },
	{ "create_rejects_bad_config", create_rejects_bad_config },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return gpudp_test_run("regcache", cases, argc, argv);
}
