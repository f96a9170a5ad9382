/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pin_test, the guest tests of gpudp_pin (pin_test.c, pin_test.h): races
 * looped GPUDP_RACE_LOOPS times, process exit.
 */
#include "pin_test.h"

/* ---- races, looped ---- */

struct racer {
	pthread_barrier_t go;
	uint64_t va;
	int rc;
	volatile uint64_t *map;
	int sigbus;
};

static void *free_racer(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(&r->go);
	spin((unsigned int)rand() % 2000);
	r->rc = sim_free(r->va);
	return NULL;
}

static void *touch_racer(void *arg)
{
	struct racer *r = arg;
	unsigned int i;

	pthread_barrier_wait(&r->go);
	for (i = 0; i < 100000; i++) {
		if (probe_rw(r->map + (i % 16) * 512, i, NULL) == SIGBUS) {
			r->sigbus = 1;
			break;
		}
	}
	return NULL;
}

/* mode 0: unpin vs free, 1: close vs free, 2: fault vs free */
static int race_loop(int mode, int cb_thread)
{
	struct nvp2p_sim_fault f = { .cb_thread = (uint32_t)cb_thread };
	long loops = env_long("GPUDP_RACE_LOOPS", 2000), i;
	struct gpudp_pin_pin p;
	struct racer r;
	pthread_t t, t2;
	int fd = -1, rc;

	ASSERT_RC(sim_set_fault(&f), 0);
	if (mode == 2)
		loops /= 10;
	for (i = 0; i < loops; i++) {
		memset(&r, 0, sizeof(r));
		r.va = sim_alloc(2 * GPU_PAGE);
		ASSERT(r.va, "alloc");
		if (fd < 0 || mode == 1)
			fd = open_pin();
		ASSERT(fd >= 0, "open %d", fd);
		ASSERT_RC(gpudp_pin_pin(fd, r.va, 2 * GPU_PAGE, 0, &p), 0);
		if (mode == 2)
			ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, 2 * GPU_PAGE,
						 (void **)&r.map), 0);
		pthread_barrier_init(&r.go, NULL, mode == 2 ? 3 : 2);
		pthread_create(&t, NULL, free_racer, &r);
		if (mode == 2)
			pthread_create(&t2, NULL, touch_racer, &r);
		pthread_barrier_wait(&r.go);
		spin((unsigned int)rand() % 2000);
		if (mode == 0) {
			rc = gpudp_pin_unpin(fd, p.handle);
			ASSERT(rc == 0, "unpin during free: %d (loop %ld)", rc, i);
		} else if (mode == 1) {
			close(fd);
			fd = -1;
		}
		pthread_join(t, NULL);
		ASSERT(r.rc == 0, "free during unpin/close: %d (loop %ld)", r.rc, i);
		if (mode == 2) {
			pthread_join(t2, NULL);
			ASSERT(probe_rw(r.map, 1, NULL) == SIGBUS,
			       "mapping survived the free (loop %ld)", i);
			munmap((void *)r.map, 2 * GPU_PAGE);
			ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
		}
		pthread_barrier_destroy(&r.go);
	}
	if (fd >= 0)
		close(fd);
	return expect_clean();
}

int race_free_callback_vs_unpin(void)
{
	return race_loop(0, 0);
}

int race_free_callback_vs_close(void)
{
	return race_loop(1, 0);
}

int race_free_callback_on_worker_vs_unpin(void)
{
	return race_loop(0, 1);
}

int race_free_callback_on_worker_vs_close(void)
{
	return race_loop(1, 1);
}

int race_free_callback_vs_cpu_faults(void)
{
	return race_loop(2, 0);
}

struct closer {
	int fd;
	uint64_t handle;
	int rc;
	pthread_barrier_t go;
};

static void *unpin_racer(void *arg)
{
	struct closer *c = arg;

	pthread_barrier_wait(&c->go);
	c->rc = gpudp_pin_unpin(c->fd, c->handle);
	return NULL;
}

int race_two_unpins_of_one_handle(void)
{
	long loops = env_long("GPUDP_RACE_LOOPS", 2000) / 4, i;
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct closer c;
	pthread_t t;
	int fd = open_pin(), rc;

	ASSERT(va && fd >= 0, "setup");
	for (i = 0; i < loops; i++) {
		ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, i & 1 ? pin_persistent : 0, &p), 0);
		c.fd = fd;
		c.handle = p.handle;
		pthread_barrier_init(&c.go, NULL, 2);
		pthread_create(&t, NULL, unpin_racer, &c);
		pthread_barrier_wait(&c.go);
		rc = gpudp_pin_unpin(fd, p.handle);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&c.go);
		ASSERT((rc == 0) + (c.rc == 0) == 1 &&
		       (rc == -ENOENT || c.rc == -ENOENT),
		       "unpins returned %d and %d", rc, c.rc);
	}
	close(fd);
	sim_free(va);
	return expect_clean();
}

/*
 * A process exits holding a pin, its mapping and the allocation: the kernel
 * closes the sim control file (its cudaFree, firing the callback) and the
 * gpudp_pin file in fd order. Both orders, and with the callback on a
 * worker thread.
 */
static int child_exit(int sim_first)
{
	struct gpudp_pin_pin p;
	uint64_t va;
	int s = -1, f = -1;
	void *m;

	if (sim_first)
		s = open(NVP2P_SIM_DEVICE_PATH, O_RDWR);
	f = open_pin();
	if (!sim_first)
		s = open(NVP2P_SIM_DEVICE_PATH, O_RDWR);
	if (s < 0 || f < 0)
		return 2;
	sim_fd = s;
	va = sim_alloc(2 * GPU_PAGE);
	if (!va || gpudp_pin_pin(f, va, 2 * GPU_PAGE, 0, &p) != 0 ||
	    gpudp_pin_mmap(f, &p, 0, 2 * GPU_PAGE, &m) != 0)
		return 3;
	*(volatile uint64_t *)m = 1;
	return 0;	/* exit: everything is released by the kernel */
}

int process_exit_releases_in_either_fd_order(void)
{
	long loops = env_long("GPUDP_RACE_LOOPS", 2000) / 10, i;
	struct nvp2p_sim_fault f = { 0 };
	int status;
	pid_t pid;

	for (i = 0; i < loops; i++) {
		f.cb_thread = (uint32_t)(i & 2) >> 1;
		ASSERT_RC(sim_set_fault(&f), 0);
		pid = fork();
		if (pid == 0)
			_exit(child_exit((int)(i & 1)));
		ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
		ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "child status 0x%x (loop %ld)", status, i);
		ASSERT(sim_stats().allocs_live == 0, "allocation survived exit");
	}
	return expect_clean();
}

