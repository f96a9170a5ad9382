/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registration cache (see gpudp_regcache.h and NVIDIA's GPUDirect RDMA
 * guide, "Lazy Unpinning Optimization" and "Registration Cache").
 *
 * Live regions are kept in an array sorted by va, never overlapping, so a
 * lookup is a binary search under one mutex. A region is in exactly one of:
 *  - live, in use (refcnt > 0): in the array;
 *  - live, idle (refcnt == 0): in the array and on the LRU list;
 *  - retired, in use: dropped from the array (merged into a larger region,
 *    or invalidated) but still held; on the retired list until its last
 *    release unpins it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_regcache.h"

struct region {
	struct gpudp_reg pub;   /* first: users get &pub */
	uint32_t refcnt;
	bool live;
	struct region *prev, *next; /* LRU list (idle) or retired list */
};

struct gpudp_regcache {
	pthread_mutex_t lock;
	struct gpudp_regcache_conf conf;
	struct region **v;      /* live regions, sorted by va */
	size_t n, cap;
	struct region lru;      /* sentinel; lru.next is the least recent */
	struct region retired;  /* sentinel */
	struct gpudp_regcache_stats st;
};

static void
list_init(struct region *head)
{
	head->prev = head;
	head->next = head;
}

static void
list_del(struct region *r)
{
	r->prev->next = r->next;
	r->next->prev = r->prev;
	r->prev = r->next = NULL;
}

static void
list_add_tail(struct region *head, struct region *r)
{
	r->prev = head->prev;
	r->next = head;
	head->prev->next = r;
	head->prev = r;
}

static uint64_t
reg_end(const struct region *r)
{
	return r->pub.va + r->pub.len;
}

/* Index of the first live region with va > key (0..n). */
static size_t
upper_bound(const struct gpudp_regcache *c, uint64_t key)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid]->pub.va <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
index_of(const struct gpudp_regcache *c, const struct region *r)
{
	return upper_bound(c, r->pub.va) - 1;
}

static void
array_remove(struct gpudp_regcache *c, size_t i)
{
	memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof(c->v[0]));
	c->n--;
}

static int
array_insert(struct gpudp_regcache *c, struct region *r)
{
	size_t i;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct region **v = realloc(c->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	i = upper_bound(c, r->pub.va);
	memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof(c->v[0]));
	c->v[i] = r;
	c->n++;
	return 0;
}

/* Unpin and free a region that is in no array and no list. */
static void
region_unpin(struct gpudp_regcache *c, struct region *r)
{
	c->conf.ops->unpin(c->conf.ctx, r->pub.handle);
	c->st.unpins++;
	c->st.bytes_pinned -= r->pub.len;
	c->st.regions--;
	free(r);
}

/* Take live region i out of the array: unpin it if idle, else retire it. */
static void
region_drop(struct gpudp_regcache *c, size_t i)
{
	struct region *r = c->v[i];

	array_remove(c, i);
	r->live = false;
	if (r->refcnt == 0) {
		list_del(r);
		region_unpin(c, r);
	} else {
		list_add_tail(&c->retired, r);
	}
}

/* Unpin the least recently used idle region. @return false if none. */
static bool
evict_one(struct gpudp_regcache *c)
{
	struct region *r = c->lru.next;

	if (r == &c->lru)
		return false;
	region_drop(c, index_of(c, r));
	c->st.evictions++;
	return true;
}

struct gpudp_regcache *
gpudp_regcache_create(const struct gpudp_regcache_conf *conf)
{
	struct gpudp_regcache *c;

	if (conf == NULL || conf->ops == NULL || conf->ops->pin == NULL ||
	    conf->ops->unpin == NULL ||
	    (conf->budget != 0 && conf->budget < GPUDP_REGCACHE_ALIGN)) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->conf = *conf;
	list_init(&c->lru);
	list_init(&c->retired);
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void
gpudp_regcache_destroy(struct gpudp_regcache *c)
{
	if (c == NULL)
		return;
	while (c->retired.next != &c->retired) {
		struct region *r = c->retired.next;

		list_del(r);
		region_unpin(c, r);
	}
	while (c->n > 0) {
		struct region *r = c->v[c->n - 1];

		c->n--;
		if (r->refcnt == 0)
			list_del(r);
		region_unpin(c, r);
	}
	pthread_mutex_destroy(&c->lock);
	free(c->v);
	free(c);
}

/*
 * With validate_hits: an idle region whose buffer ID tag changed, or whose
 * memory is gone, since it was pinned (its memory freed, and maybe part of
 * it allocated again, possibly on another GPU). A miss must not merge it:
 * the merged pin would cover freed memory, or two allocations. The tag op
 * runs under the lock here, on the miss path only, which pins under the
 * lock anyway.
 */
static bool
idle_and_stale(const struct gpudp_regcache *c, const struct region *r)
{
	uint64_t tag = 0;

	if (!c->conf.validate_hits || c->conf.ops->tag == NULL || r->refcnt != 0 ||
	    r->pub.tag == 0)
		return false;
	return c->conf.ops->tag(c->conf.ctx, r->pub.va, &tag) != 0 || tag != r->pub.tag;
}

static int
acquire_locked(struct gpudp_regcache *c, uint64_t lo, uint64_t hi,
	       const struct gpudp_reg **reg, bool *hit)
{
	struct region *r;
	size_t i;
	int rc;

	/* hit: the live region starting at or before lo covers [lo, hi) */
	i = upper_bound(c, lo);
	if (i > 0 && reg_end(c->v[i - 1]) >= hi) {
		r = c->v[i - 1];
		if (r->refcnt++ == 0)
			list_del(r);
		c->st.hits++;
		*reg = &r->pub;
		*hit = true;
		return 0;
	}

	/* miss: merge every live region overlapping [lo, hi) into the new
	 * one, but for stale idle ones, which are dropped */
	*hit = false;
	c->st.misses++;
	i = (i > 0 && reg_end(c->v[i - 1]) > lo) ? i - 1 : i;
	while (i < c->n && c->v[i]->pub.va < hi) {
		if (idle_and_stale(c, c->v[i])) {
			if (c->conf.ops->stale != NULL)
				c->conf.ops->stale(c->conf.ctx, c->v[i]->pub.va,
						   c->v[i]->pub.len);
			c->st.invalidations++;
			region_drop(c, i);
			continue;
		}
		if (c->v[i]->pub.va < lo)
			lo = c->v[i]->pub.va;
		if (reg_end(c->v[i]) > hi)
			hi = reg_end(c->v[i]);
		region_drop(c, i);
	}
	if (hi - lo > GPUDP_REGCACHE_MAX_LEN ||
	    (c->conf.budget != 0 && hi - lo > c->conf.budget))
		return -E2BIG;
	while (c->conf.budget != 0 && c->st.bytes_pinned + (hi - lo) > c->conf.budget)
		if (!evict_one(c))
			return -ENOSPC;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->pub.va = lo;
	r->pub.len = hi - lo;
	for (;;) {
		rc = c->conf.ops->pin(c->conf.ctx, lo, hi - lo, &r->pub.handle,
				      &r->pub.tag);
		if (rc == 0)
			break;
		c->st.pin_failures++;
		/* out of BAR space: make room and try again */
		if (rc != -ENOSPC || !evict_one(c)) {
			free(r);
			return rc;
		}
	}
	c->st.pins++;
	c->st.bytes_pinned += r->pub.len;
	c->st.regions++;
	r->refcnt = 1;
	r->live = true;
	rc = array_insert(c, r);
	if (rc != 0) {
		region_unpin(c, r);
		return rc;
	}
	*reg = &r->pub;
	return 0;
}

int
gpudp_regcache_acquire(struct gpudp_regcache *c, uint64_t va, uint64_t len,
		       const struct gpudp_reg **reg)
{
	const uint64_t mask = GPUDP_REGCACHE_ALIGN - 1;
	uint64_t lo, hi;
	bool hit;
	int rc;

	if (len == 0 || va + len < va || va + len > UINT64_MAX - mask)
		return -EINVAL;
	lo = va & ~mask;
	hi = (va + len + mask) & ~mask;
	if (hi - lo > GPUDP_REGCACHE_MAX_LEN)
		return -E2BIG;
	pthread_mutex_lock(&c->lock);
	rc = acquire_locked(c, lo, hi, reg, &hit);
	pthread_mutex_unlock(&c->lock);
	/* tag check of a hit (off the data path); the query runs unlocked */
	if (rc == 0 && hit && c->conf.validate_hits && (*reg)->tag != 0 &&
	    gpudp_regcache_validate(c, *reg) != 0) {
		if (c->conf.ops->stale != NULL)
			c->conf.ops->stale(c->conf.ctx, (*reg)->va, (*reg)->len);
		/* invalidated: this release unpins it, the acquire re-pins */
		gpudp_regcache_release(c, *reg);
		pthread_mutex_lock(&c->lock);
		rc = acquire_locked(c, lo, hi, reg, &hit);
		pthread_mutex_unlock(&c->lock);
	}
	return rc;
}

void
gpudp_regcache_release(struct gpudp_regcache *c, const struct gpudp_reg *reg)
{
	struct region *r = (struct region *)(uintptr_t)reg;

	pthread_mutex_lock(&c->lock);
	if (--r->refcnt == 0) {
		if (r->live) {
			list_add_tail(&c->lru, r);
		} else {
			list_del(r);
			region_unpin(c, r);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

int
gpudp_regcache_validate(struct gpudp_regcache *c, const struct gpudp_reg *reg)
{
	struct region *r = (struct region *)(uintptr_t)reg;
	uint64_t tag = 0;
	int rc = 0;

	if (c->conf.ops->tag == NULL)
		return 0;
	/* the driver query runs outside the lock */
	if (c->conf.ops->tag(c->conf.ctx, reg->va, &tag) != 0 || tag != reg->tag)
		rc = -ESTALE;
	pthread_mutex_lock(&c->lock);
	if (!r->live) {
		rc = -ESTALE;
	} else if (rc != 0) {
		c->st.invalidations++;
		region_drop(c, index_of(c, r));
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

unsigned int
gpudp_regcache_invalidate(struct gpudp_regcache *c, uint64_t va, uint64_t len)
{
	uint64_t end = va + len < va ? UINT64_MAX : va + len;
	unsigned int dropped = 0;
	size_t i;

	if (len == 0)
		return 0;
	pthread_mutex_lock(&c->lock);
	i = upper_bound(c, va);
	if (i > 0 && reg_end(c->v[i - 1]) > va)
		i--;
	while (i < c->n && c->v[i]->pub.va < end) {
		region_drop(c, i);
		dropped++;
	}
	c->st.invalidations += dropped;
	pthread_mutex_unlock(&c->lock);
	return dropped;
}

void
gpudp_regcache_stats(struct gpudp_regcache *c, struct gpudp_regcache_stats *st)
{
	pthread_mutex_lock(&c->lock);
	*st = c->st;
	pthread_mutex_unlock(&c->lock);
}
