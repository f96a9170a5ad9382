/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit suite: the gpudev driver's allocation table (drivers/gpu/
 * gpu_gpudp_mtab.c), which needs neither CUDA nor DPDK. It is what makes
 * mem_free of an unknown or already-freed pointer an error instead of a
 * second cuMemFree, also when two threads race to free the same pointer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_test.h>
#include <gpu_gpudp_mtab.h>

#define KEY(i) ((uintptr_t)(0x7f0000000000ULL + ((uint64_t)(i) << 16)))

static struct gpudp_gpu_mtab_ent *
ent_new(uintptr_t key, enum gpudp_gpu_mem_kind kind, size_t size)
{
	struct gpudp_gpu_mtab_ent *e = calloc(1, sizeof(*e));

	if (e != NULL) {
		e->key = key;
		e->kind = kind;
		e->size = size;
	}
	return e;
}

static int
insert_remove_and_kinds(void)
{
	struct gpudp_gpu_mtab t;
	struct gpudp_gpu_mtab_ent *a = ent_new(KEY(1), GPUDP_GPU_MEM_DEVICE, 100);
	struct gpudp_gpu_mtab_ent *b = ent_new(KEY(2), GPUDP_GPU_MEM_HOST, 7);
	struct gpudp_gpu_mtab_ent *dup = ent_new(KEY(1), GPUDP_GPU_MEM_HOST, 1);
	enum gpudp_gpu_mem_kind found;
	size_t n;
	uint64_t bytes;

	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_init(&t) == 0, "init");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&t, a) == 0, "insert a");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&t, b) == 0, "insert b");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&t, dup) == -EEXIST,
			  "a key present with another kind must be refused");
	gpudp_gpu_mtab_stats(&t, GPUDP_GPU_MEM_DEVICE, &n, &bytes);
	GPUDP_TEST_ASSERT(n == 1 && bytes == 100, "device stats %zu/%llu", n,
			  (unsigned long long)bytes);
	/* wrong kind: nothing removed, the kind found is reported */
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_remove(&t, KEY(2), GPUDP_GPU_MEM_DEVICE,
						&found) == NULL, "free of a registration");
	GPUDP_TEST_ASSERT(found == GPUDP_GPU_MEM_HOST, "found %d", found);
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_remove(&t, KEY(1) + 0x700,
						GPUDP_GPU_MEM_DEVICE, &found) == NULL &&
			  found == GPUDP_GPU_MEM_NONE, "interior pointer");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_remove(&t, KEY(1), GPUDP_GPU_MEM_DEVICE,
						NULL) == a, "remove a");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_remove(&t, KEY(1), GPUDP_GPU_MEM_DEVICE,
						&found) == NULL && found == GPUDP_GPU_MEM_NONE,
			  "second remove (double free) must find nothing");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_pop(&t) == b, "pop b");
	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_pop(&t) == NULL, "empty");
	gpudp_gpu_mtab_fini(&t);
	free(a);
	free(b);
	free(dup);
	return GPUDP_TEST_PASS;
}

/* Random inserts and removes over a small key universe (long probe runs,
 * many wrap-arounds), checked against a reference array after each step. */
static int
matches_reference_under_churn(void)
{
	enum { U = 3000, STEPS = 200000 };
	static struct gpudp_gpu_mtab_ent *ref[U];
	struct gpudp_gpu_mtab t;
	unsigned int seed = 12345;
	size_t live = 0, n, i;
	int step;

	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_init(&t) == 0, "init");
	memset(ref, 0, sizeof(ref));
	for (step = 0; step < STEPS; step++) {
		unsigned int k = (unsigned int)rand_r(&seed) % U;

		if (ref[k] == NULL) {
			ref[k] = ent_new(KEY(k), GPUDP_GPU_MEM_DEVICE, k);
			GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&t, ref[k]) == 0,
					  "insert %u at step %d", k, step);
			live++;
		} else {
			GPUDP_TEST_ASSERT(gpudp_gpu_mtab_remove(&t, KEY(k),
				GPUDP_GPU_MEM_DEVICE, NULL) == ref[k],
				"remove %u at step %d", k, step);
			free(ref[k]);
			ref[k] = NULL;
			live--;
		}
		if (step % 5000 == 0) {
			pthread_mutex_lock(&t.lock);
			for (i = 0; i < U; i++) {
				if (gpudp_gpu_mtab_find_locked(&t, KEY(i)) != ref[i]) {
					pthread_mutex_unlock(&t.lock);
					GPUDP_TEST_ASSERT(0, "key %zu wrong at step %d", i, step);
				}
			}
			pthread_mutex_unlock(&t.lock);
		}
	}
	gpudp_gpu_mtab_stats(&t, GPUDP_GPU_MEM_DEVICE, &n, NULL);
	GPUDP_TEST_ASSERT(n == live, "count %zu, live %zu", n, live);
	for (i = 0; i < U; i++)
		free(ref[i]);
	gpudp_gpu_mtab_fini(&t);
	return GPUDP_TEST_PASS;
}

static int
grows_past_100k_entries(void)
{
	enum { N = 100000 };
	struct gpudp_gpu_mtab t;
	struct gpudp_gpu_mtab_ent *e;
	size_t i, n;

	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_init(&t) == 0, "init");
	for (i = 0; i < N; i++)
		GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&t,
			ent_new(KEY(i), GPUDP_GPU_MEM_DEVICE, 1)) == 0, "insert %zu", i);
	GPUDP_TEST_ASSERT(t.cap >= 2 * N, "capacity %zu for %d entries", t.cap, N);
	for (i = 0; i < N; i += 2) {
		e = gpudp_gpu_mtab_remove(&t, KEY(i), GPUDP_GPU_MEM_DEVICE, NULL);
		GPUDP_TEST_ASSERT(e != NULL && e->key == KEY(i), "remove %zu", i);
		free(e);
	}
	n = 0;
	while ((e = gpudp_gpu_mtab_pop(&t)) != NULL) {
		GPUDP_TEST_ASSERT(((e->key - KEY(0)) >> 16) % 2 == 1, "popped a removed key");
		free(e);
		n++;
	}
	GPUDP_TEST_ASSERT(n == N / 2, "popped %zu", n);
	gpudp_gpu_mtab_fini(&t);
	return GPUDP_TEST_PASS;
}

/* Several threads free the same pointers at once: each pointer must be
 * handed to exactly one of them (one cuMemFree, the others get errors). */
enum { RACE_N = 20000, RACE_THREADS = 4 };
static struct gpudp_gpu_mtab race_t;
static int race_won[RACE_THREADS];

static void *
race_remover(void *arg)
{
	int id = (int)(intptr_t)arg, i;
	struct gpudp_gpu_mtab_ent *e;

	for (i = 0; i < RACE_N; i++) {
		e = gpudp_gpu_mtab_remove(&race_t, KEY(i), GPUDP_GPU_MEM_DEVICE, NULL);
		if (e != NULL) {
			race_won[id]++;
			free(e);
		}
		/* and some churn of private keys meanwhile */
		e = ent_new(KEY(1000000 + id * RACE_N + i), GPUDP_GPU_MEM_HOST, 1);
		if (e == NULL || gpudp_gpu_mtab_insert(&race_t, e) != 0) {
			free(e);
			continue;
		}
		free(gpudp_gpu_mtab_remove(&race_t, KEY(1000000 + id * RACE_N + i),
					   GPUDP_GPU_MEM_HOST, NULL));
	}
	return NULL;
}

static int
concurrent_double_free_hands_out_once(void)
{
	pthread_t th[RACE_THREADS];
	int i, total = 0;
	size_t n;

	GPUDP_TEST_ASSERT(gpudp_gpu_mtab_init(&race_t) == 0, "init");
	for (i = 0; i < RACE_N; i++)
		GPUDP_TEST_ASSERT(gpudp_gpu_mtab_insert(&race_t,
			ent_new(KEY(i), GPUDP_GPU_MEM_DEVICE, 1)) == 0, "insert");
	for (i = 0; i < RACE_THREADS; i++)
		pthread_create(&th[i], NULL, race_remover, (void *)(intptr_t)i);
	for (i = 0; i < RACE_THREADS; i++) {
		pthread_join(th[i], NULL);
		total += race_won[i];
	}
	GPUDP_TEST_ASSERT(total == RACE_N, "%d removals succeeded for %d entries",
			  total, RACE_N);
	gpudp_gpu_mtab_stats(&race_t, GPUDP_GPU_MEM_DEVICE, &n, NULL);
	GPUDP_TEST_ASSERT(n == 0, "%zu device entries left", n);
	gpudp_gpu_mtab_stats(&race_t, GPUDP_GPU_MEM_HOST, &n, NULL);
	GPUDP_TEST_ASSERT(n == 0, "%zu host entries left", n);
	gpudp_gpu_mtab_fini(&race_t);
	return GPUDP_TEST_PASS;
}

int
main(int argc, char **argv)
{
	static const struct gpudp_test_case cases[] = {
		{ "insert_remove_and_kinds", insert_remove_and_kinds },
		{ "matches_reference_under_churn", matches_reference_under_churn },
		{ "grows_past_100k_entries", grows_past_100k_entries },
		{ "concurrent_double_free_hands_out_once", concurrent_double_free_hands_out_once },
		{ NULL, NULL },
	};

	return gpudp_test_run("gpudev_mtab", cases, argc, argv);
}
