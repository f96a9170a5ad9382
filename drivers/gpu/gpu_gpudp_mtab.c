/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allocation table of the gpudev driver: see gpu_gpudp_mtab.h.
 * Lock: t->lock protects every field; no function calls out while
 * holding it (no CUDA, no logging), so it is a leaf lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "gpu_gpudp_mtab.h"

#define MTAB_MIN_CAP 64

/* Fibonacci hashing: GPU pointers are 64 KiB aligned, so the low bits of
 * the key carry nothing; the top bits of the product mix all of them. */
static inline size_t
mtab_hash(const struct gpudp_gpu_mtab *t, uintptr_t key)
{
	return (size_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >>
			(64 - __builtin_ctzll(t->cap)));
}

int
gpudp_gpu_mtab_init(struct gpudp_gpu_mtab *t)
{
	size_t k;

	t->cap = MTAB_MIN_CAP;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	if (t->slot == NULL)
		return -ENOMEM;
	for (k = 0; k < 3; k++) {
		t->count[k] = 0;
		t->bytes[k] = 0;
	}
	if (pthread_mutex_init(&t->lock, NULL) != 0) {
		free(t->slot);
		t->slot = NULL;
		return -ENOMEM;
	}
	return 0;
}

void
gpudp_gpu_mtab_fini(struct gpudp_gpu_mtab *t)
{
	if (t->slot == NULL)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->slot);
	t->slot = NULL;
	t->cap = 0;
}

static size_t
mtab_total(const struct gpudp_gpu_mtab *t)
{
	return t->count[GPUDP_GPU_MEM_DEVICE] + t->count[GPUDP_GPU_MEM_HOST];
}

/* Index of key, or cap if absent. Caller holds the lock. */
static size_t
mtab_index(const struct gpudp_gpu_mtab *t, uintptr_t key)
{
	size_t i = mtab_hash(t, key);

	while (t->slot[i] != NULL) {
		if (t->slot[i]->key == key)
			return i;
		i = (i + 1) & (t->cap - 1);
	}
	return t->cap;
}

static void
mtab_place(struct gpudp_gpu_mtab *t, struct gpudp_gpu_mtab_ent *ent)
{
	size_t i = mtab_hash(t, ent->key);

	while (t->slot[i] != NULL)
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = ent;
}

/* Double the capacity (load factor stays <= 1/2). Caller holds the lock. */
static int
mtab_grow(struct gpudp_gpu_mtab *t)
{
	struct gpudp_gpu_mtab_ent **old = t->slot;
	size_t old_cap = t->cap, i;

	t->slot = calloc(old_cap * 2, sizeof(*t->slot));
	if (t->slot == NULL) {
		t->slot = old;
		return -ENOMEM;
	}
	t->cap = old_cap * 2;
	for (i = 0; i < old_cap; i++)
		if (old[i] != NULL)
			mtab_place(t, old[i]);
	free(old);
	return 0;
}

/* Remove slot i, shifting later members of its probe run back so that no
 * lookup ever stops early at the hole (Knuth's algorithm R). */
static void
mtab_delete_at(struct gpudp_gpu_mtab *t, size_t i)
{
	size_t mask = t->cap - 1, j = i, home;

	t->slot[i] = NULL;
	for (;;) {
		j = (j + 1) & mask;
		if (t->slot[j] == NULL)
			return;
		home = mtab_hash(t, t->slot[j]->key);
		/* leave slot j alone if its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		t->slot[i] = t->slot[j];
		t->slot[j] = NULL;
		i = j;
	}
}

int
gpudp_gpu_mtab_insert(struct gpudp_gpu_mtab *t, struct gpudp_gpu_mtab_ent *ent)
{
	int rc = 0;

	if (ent->kind != GPUDP_GPU_MEM_DEVICE && ent->kind != GPUDP_GPU_MEM_HOST)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	if (mtab_index(t, ent->key) != t->cap) {
		rc = -EEXIST;
		goto out;
	}
	if ((mtab_total(t) + 1) * 2 > t->cap) {
		rc = mtab_grow(t);
		if (rc != 0)
			goto out;
	}
	mtab_place(t, ent);
	t->count[ent->kind]++;
	t->bytes[ent->kind] += ent->size;
out:
	pthread_mutex_unlock(&t->lock);
	return rc;
}

struct gpudp_gpu_mtab_ent *
gpudp_gpu_mtab_remove(struct gpudp_gpu_mtab *t, uintptr_t key,
		      enum gpudp_gpu_mem_kind kind,
		      enum gpudp_gpu_mem_kind *found)
{
	struct gpudp_gpu_mtab_ent *ent = NULL;
	size_t i;

	pthread_mutex_lock(&t->lock);
	i = mtab_index(t, key);
	if (found != NULL)
		*found = i == t->cap ? GPUDP_GPU_MEM_NONE : t->slot[i]->kind;
	if (i != t->cap && t->slot[i]->kind == kind) {
		ent = t->slot[i];
		mtab_delete_at(t, i);
		t->count[kind]--;
		t->bytes[kind] -= ent->size;
	}
	pthread_mutex_unlock(&t->lock);
	return ent;
}

struct gpudp_gpu_mtab_ent *
gpudp_gpu_mtab_pop(struct gpudp_gpu_mtab *t)
{
	struct gpudp_gpu_mtab_ent *ent = NULL;
	size_t i;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->cap; i++) {
		if (t->slot[i] != NULL) {
			ent = t->slot[i];
			mtab_delete_at(t, i);
			t->count[ent->kind]--;
			t->bytes[ent->kind] -= ent->size;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ent;
}

struct gpudp_gpu_mtab_ent *
gpudp_gpu_mtab_find_locked(struct gpudp_gpu_mtab *t, uintptr_t key)
{
	size_t i = mtab_index(t, key);

	return i == t->cap ? NULL : t->slot[i];
}

void
gpudp_gpu_mtab_stats(struct gpudp_gpu_mtab *t, enum gpudp_gpu_mem_kind kind,
		     size_t *count, uint64_t *bytes)
{
	pthread_mutex_lock(&t->lock);
	if (count != NULL)
		*count = t->count[kind];
	if (bytes != NULL)
		*bytes = t->bytes[kind];
	pthread_mutex_unlock(&t->lock);
}
