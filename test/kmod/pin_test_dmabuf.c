/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pin_test, the guest tests of gpudp_pin (pin_test.c, pin_test.h):
 * ATTACH_DMABUF on the provider's dma-buf exports, races.
 */
#include "pin_test.h"

/* ---- dma-buf attachments (ATTACH_DMABUF) over the provider's export ---- */

int dmabuf_attach_table_matches_provider_pages(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE), want[2], got[4];
	struct gpudp_pin_version v;
	struct gpudp_pin_dmabuf d;
	struct gpudp_pin_query q;
	struct gpudp_pin_pin fake;
	uint32_t n = 0, ps = 0;
	int fd = open_pin(), dfd = sim_export(va, 4 * GPU_PAGE);
	void *m;

	ASSERT(va && fd >= 0 && dfd >= 0, "setup: dfd %d", dfd);
	ASSERT_RC(attach(fd, dfd, GPU_PAGE, 2 * GPU_PAGE, &d), 0);
	close(dfd);	/* the module holds its own reference */
	ASSERT(d.handle != 0 && d.entries == 2 && d.page_size == GPU_PAGE &&
	       d.size == 4 * GPU_PAGE, "handle %llu entries %u page %u size %llu",
	       (unsigned long long)d.handle, d.entries, d.page_size,
	       (unsigned long long)d.size);
	ASSERT_RC(gpudp_pin_get_table(fd, d.handle, got, 4, &n, &ps), 0);
	ASSERT(n == 2 && ps == GPU_PAGE, "table %u x %u", n, ps);
	ASSERT_RC(provider_table(fd, va + GPU_PAGE, 2 * GPU_PAGE, want, 2), 0);
	ASSERT(got[0] == want[0] && got[1] == want[1],
	       "dma-buf 0x%llx 0x%llx, provider 0x%llx 0x%llx",
	       (unsigned long long)got[0], (unsigned long long)got[1],
	       (unsigned long long)want[0], (unsigned long long)want[1]);
	ASSERT_RC(gpudp_pin_query(fd, d.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID && q.flags == GPUDP_PIN_QF_DMABUF &&
	       q.aligned_va == GPU_PAGE && q.aligned_len == 2 * GPU_PAGE &&
	       q.entries == 2 && q.page_size == GPU_PAGE && q.mmap_offset == 0,
	       "query state %u flags 0x%x range 0x%llx+0x%llx", q.state, q.flags,
	       (unsigned long long)q.aligned_va, (unsigned long long)q.aligned_len);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 2 * GPU_PAGE, "pinned_bytes %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT(sim_stats().dmabuf_maps_live == 1, "not mapped by the exporter");
	/* No peer mapping (it is one), no CPU mapping. */
	ASSERT_RC(gpudp_pin_map_peer(fd, d.handle, 0, 0, 0, NULL, 0, NULL, NULL),
		  -EOPNOTSUPP);
	ASSERT_RC(gpudp_pin_unmap_peer(fd, d.handle), -EOPNOTSUPP);
	memset(&fake, 0, sizeof(fake));
	fake.aligned_len = 2 * GPU_PAGE;
	ASSERT_RC(gpudp_pin_mmap(fd, &fake, 0, 4096, &m), -ENXIO);
	ASSERT_RC(gpudp_pin_unpin(fd, d.handle), 0);
	ASSERT_RC(gpudp_pin_unpin(fd, d.handle), -ENOENT);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 0, "pinned_bytes %llu after detach",
	       (unsigned long long)v.pinned_bytes);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int dmabuf_attach_for_pci_device(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), a[2], b[2];
	struct gpudp_pin_dmabuf d, e;
	uint32_t dom = 0;
	uint8_t bus = 0, devfn = 0;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE);

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device in the guest");
	ASSERT_RC(gpudp_pin_attach_dmabuf(fd, dfd, 0, 2 * GPU_PAGE, (int32_t)dom,
					  bus, devfn, &d), 0);
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &e), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, d.handle, a, 2, NULL, NULL), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, e.handle, b, 2, NULL, NULL), 0);
	/* The guest has no IOMMU: the device sees physical addresses. */
	ASSERT(a[0] == b[0] && a[1] == b[1], "device 0x%llx, none 0x%llx",
	       (unsigned long long)a[0], (unsigned long long)b[0]);
	ASSERT_RC(gpudp_pin_attach_dmabuf(fd, dfd, 0, GPU_PAGE, 9, bus, devfn, &e),
		  -ENODEV);
	close(dfd);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int dmabuf_attach_bad_fd_is_ebadf(void)
{
	struct gpudp_pin_dmabuf d;
	int fd = open_pin(), gone = dup(fd);

	ASSERT(fd >= 0 && gone >= 0, "setup");
	close(gone);
	ASSERT_RC(attach(fd, -1, 0, GPU_PAGE, &d), -EBADF);
	ASSERT_RC(attach(fd, gone, 0, GPU_PAGE, &d), -EBADF);
	close(fd);
	return expect_clean();
}

int dmabuf_attach_non_dmabuf_fd_is_ebadfd(void)
{
	struct gpudp_pin_dmabuf d;
	int fd = open_pin(), null = open("/dev/null", O_RDWR);

	ASSERT(fd >= 0 && null >= 0, "setup");
	ASSERT_RC(attach(fd, null, 0, GPU_PAGE, &d), -EBADFD);
	ASSERT_RC(attach(fd, fd, 0, GPU_PAGE, &d), -EBADFD);
	ASSERT_RC(attach(fd, sim_fd, 0, GPU_PAGE, &d), -EBADFD);
	close(null);
	close(fd);
	return expect_clean();
}

static int unpriv_attach(int fd, uint64_t dfd)
{
	struct gpudp_pin_dmabuf d;

	return attach(fd, (int)dfd, 0, GPU_PAGE, &d) == -EPERM ? 0 : 1;
}

int dmabuf_attach_range_and_argument_errors(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_dmabuf d, e;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE), rc1, rc2, rc3;

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	ASSERT_RC(attach(fd, dfd, 4096, GPU_PAGE, &d), -EINVAL);
	ASSERT_RC(attach(fd, dfd, 0, 0, &d), -EINVAL);
	ASSERT_RC(attach(fd, dfd, 0, 4096, &d), -EINVAL);
	ASSERT_RC(attach(fd, dfd, 0, GPU_PAGE + 4096, &d), -EINVAL);
	ASSERT_RC(attach(fd, dfd, GPU_PAGE, 2 * GPU_PAGE, &d), -ENXIO);
	ASSERT_RC(attach(fd, dfd, 2 * GPU_PAGE, GPU_PAGE, &d), -ENXIO);
	ASSERT_RC(attach(fd, dfd, 0, 3 * GPU_PAGE, &d), -ENXIO);
	ASSERT_RC(attach(fd, dfd, 1ULL << 40, GPU_PAGE, &d), -ENXIO);
	ASSERT_RC(attach(fd, dfd, UINT64_MAX - GPU_PAGE + 1, 2 * GPU_PAGE, &d),
		  -EOVERFLOW);
	memset(&d, 0, sizeof(d));
	d.fd = dfd;
	d.len = GPU_PAGE;
	d.flags = 1U << 5;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_ATTACH_DMABUF, &d) < 0 && errno == EINVAL,
	       "unknown flag: errno %d", errno);
	d.flags = 0;
	d.pad0 = 1;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_ATTACH_DMABUF, &d) < 0 && errno == EINVAL,
	       "pad: errno %d", errno);
	d.pad0 = 0;
	d.pci_bus = 1;	/* a device without F_PCI */
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_ATTACH_DMABUF, &d) < 0 && errno == EINVAL,
	       "pci without F_PCI: errno %d", errno);
	ASSERT(as_unprivileged(fd, (uint64_t)dfd, unpriv_attach) == 0, "EPERM");
	/* The fd's budget counts attachments like pins. */
	ASSERT_RC(set_cap(GPU_PAGE), 0);
	rc1 = attach(fd, dfd, 0, 2 * GPU_PAGE, &d);
	rc2 = attach(fd, dfd, 0, GPU_PAGE, &d);
	rc3 = attach(fd, dfd, GPU_PAGE, GPU_PAGE, &e);
	set_cap(16ULL << 30);
	ASSERT(rc1 == -E2BIG && rc2 == 0 && rc3 == -ENOSPC, "cap: %d %d %d",
	       rc1, rc2, rc3);
	ASSERT(sim_stats().dmabuf_maps_live == 1, "a failed attach left a mapping");
	close(dfd);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int dmabuf_revoked_by_free_is_invalidated(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), addrs[2];
	struct nvp2p_sim_stats s0 = sim_stats(), s1;
	struct gpudp_pin_version v;
	struct gpudp_pin_dmabuf d;
	struct gpudp_pin_query q;
	uint32_t n = 7;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE);

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d), 0);
	close(dfd);
	ASSERT(sim_stats().dmabuf_pins > s0.dmabuf_pins, "attachment not pinned");
	ASSERT_RC(sim_free(va), 0);	/* fake cudaFree: move_notify */
	s1 = sim_stats();
	ASSERT(s1.move_notifies == s0.move_notifies + 1, "%llu move_notifies",
	       (unsigned long long)(s1.move_notifies - s0.move_notifies));
	ASSERT(s1.dmabuf_maps_live == 0, "mapping kept after move_notify");
	/* Unmapped, so only the importer's own dma_buf_pin() is left. */
	ASSERT(s1.dmabuf_pins_live == 1, "%llu pins after revocation, want 1",
	       (unsigned long long)s1.dmabuf_pins_live);
	ASSERT_RC(gpudp_pin_query(fd, d.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_REVOKED && (q.flags & GPUDP_PIN_QF_DMABUF) &&
	       q.entries == 0 && q.page_size == 0, "state %u flags 0x%x entries %u",
	       q.state, q.flags, q.entries);
	ASSERT_RC(gpudp_pin_get_table(fd, d.handle, addrs, 2, &n, NULL), -EIDRM);
	ASSERT_RC(gpudp_pin_get_table(fd, d.handle, NULL, 0, &n, NULL), -EIDRM);
	ASSERT_RC(gpudp_pin_map_peer(fd, d.handle, 0, 0, 0, NULL, 0, NULL, NULL),
		  -EIDRM);
	/* Revoked attachments count against the budget until detached. */
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 2 * GPU_PAGE, "pinned %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT_RC(gpudp_pin_unpin(fd, d.handle), 0);
	ASSERT(sim_stats().dmabuf_pins_live == 0, "detach did not unpin");
	close(fd);
	return expect_clean();
}

int dmabuf_attach_revoked_or_failing_buffer(void)
{
	struct nvp2p_sim_fault f = { .map_err = -EIO };
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_dmabuf d;
	int fd = open_pin(), dfd = sim_export(va, GPU_PAGE);

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	/* The exporter's errors are passed through. */
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(attach(fd, dfd, 0, GPU_PAGE, &d), -EIO);
	ASSERT_RC(sim_reset_fault(), 0);
	ASSERT_RC(sim_free(va), 0);
	/* Memory freed before the attach: the exporter refuses to map. */
	ASSERT_RC(attach(fd, dfd, 0, GPU_PAGE, &d), -EIDRM);
	ASSERT_RC(gpudp_pin_version(fd, &(struct gpudp_pin_version){ 0 }), 0);
	close(dfd);
	close(fd);
	return expect_clean();
}

int dmabuf_unaligned_export_gives_4k_table(void)
{
	uint64_t va = sim_alloc(3 * GPU_PAGE), want[48], got[32];
	struct gpudp_pin_dmabuf d;
	uint32_t n = 0, ps = 0, i;
	int fd = open_pin(), dfd = sim_export(va + 4096, 2 * GPU_PAGE);

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	/* Each 64 KiB of this buffer straddles two provider chunks. */
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d), 0);
	ASSERT(d.page_size == 4096 && d.entries == 32, "table %u x %u",
	       d.entries, d.page_size);
	ASSERT_RC(gpudp_pin_get_table(fd, d.handle, got, 32, &n, &ps), 0);
	ASSERT_RC(provider_table(fd, va, 3 * GPU_PAGE, want, 3), 0);
	for (i = 0; i < 32; i++) {
		uint64_t off = 4096 + (uint64_t)i * 4096;
		uint64_t exp = want[off / GPU_PAGE] + off % GPU_PAGE;

		ASSERT(got[i] == exp, "page %u: 0x%llx, want 0x%llx", i,
		       (unsigned long long)got[i], (unsigned long long)exp);
	}
	close(dfd);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int dmabuf_close_without_detach_releases(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_dmabuf d, e;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE);

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	ASSERT_RC(attach(fd, dfd, 0, GPU_PAGE, &d), 0);
	ASSERT_RC(attach(fd, dfd, GPU_PAGE, GPU_PAGE, &e), 0);
	ASSERT(sim_stats().dmabuf_maps_live == 2, "two mappings");
	close(fd);
	ASSERT(sim_stats().dmabuf_maps_live == 0, "close left mappings");
	ASSERT(sim_stats().exports_live == 1, "the buffer is still ours");
	close(dfd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int dmabuf_same_buffer_twice_gives_two_attachments(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), a[2], b[2];
	struct nvp2p_sim_stats s0 = sim_stats(), s1;
	struct gpudp_pin_dmabuf d[3];
	struct gpudp_pin_query q;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE);
	int dfd2 = sim_export(va, 2 * GPU_PAGE), i;

	ASSERT(va && fd >= 0 && dfd >= 0 && dfd2 >= 0, "setup");
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d[0]), 0);
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d[1]), 0);
	ASSERT_RC(attach(fd, dfd2, 0, 2 * GPU_PAGE, &d[2]), 0);	/* 2nd export */
	ASSERT(d[0].handle != d[1].handle && d[1].handle != d[2].handle,
	       "handles not distinct");
	ASSERT_RC(gpudp_pin_get_table(fd, d[0].handle, a, 2, NULL, NULL), 0);
	for (i = 1; i < 3; i++) {
		ASSERT_RC(gpudp_pin_get_table(fd, d[i].handle, b, 2, NULL, NULL), 0);
		ASSERT(a[0] == b[0] && a[1] == b[1], "attachment %d differs", i);
	}
	ASSERT(sim_stats().dmabuf_maps_live == 3, "three mappings");
	/* One detach leaves the other attachments alone. */
	ASSERT_RC(gpudp_pin_unpin(fd, d[1].handle), 0);
	ASSERT_RC(gpudp_pin_query(fd, d[0].handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID, "state %u", q.state);
	ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d[1]), 0);
	close(dfd);
	close(dfd2);
	ASSERT_RC(sim_free(va), 0);
	s1 = sim_stats();
	ASSERT(s1.move_notifies == s0.move_notifies + 2, "%llu buffers revoked",
	       (unsigned long long)(s1.move_notifies - s0.move_notifies));
	for (i = 0; i < 3; i++) {
		ASSERT_RC(gpudp_pin_query(fd, d[i].handle, &q), 0);
		ASSERT(q.state == GPUDP_PIN_STATE_REVOKED, "attachment %d: state %u",
		       i, q.state);
	}
	close(fd);
	return expect_clean();
}

int dmabuf_process_exit_detaches(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	int status, maps;
	pid_t pid;

	ASSERT(va, "setup");
	pid = fork();
	if (pid == 0) {
		struct gpudp_pin_dmabuf d;
		int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE);

		if (fd < 0 || dfd < 0 || attach(fd, dfd, 0, 2 * GPU_PAGE, &d) != 0)
			_exit(1);
		_exit(0);	/* nothing closed by hand */
	}
	ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed");
	maps = (int)sim_stats().dmabuf_maps_live;
	ASSERT(maps == 0, "%d mappings left by the dead process", maps);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

struct dmabuf_racer {
	uint64_t va;
	int rc;
	pthread_barrier_t go;
};

static void *dmabuf_free_racer(void *arg)
{
	struct dmabuf_racer *r = arg;

	pthread_barrier_wait(&r->go);
	r->rc = sim_free(r->va);
	return NULL;
}

/* move_notify (simulated cudaFree) against detach: mode 0 unpin, 1 close. */
static int dmabuf_race_loop(int mode)
{
	long loops = env_long("GPUDP_RACE_LOOPS", 2000) / 4, i;
	struct gpudp_pin_dmabuf d;
	struct dmabuf_racer r;
	pthread_t t;
	int fd = -1, dfd, rc;

	for (i = 0; i < loops; i++) {
		memset(&r, 0, sizeof(r));
		r.va = sim_alloc(2 * GPU_PAGE);
		ASSERT(r.va, "alloc");
		if (fd < 0)
			fd = open_pin();
		dfd = sim_export(r.va, 2 * GPU_PAGE);
		ASSERT(fd >= 0 && dfd >= 0, "open %d export %d", fd, dfd);
		ASSERT_RC(attach(fd, dfd, 0, 2 * GPU_PAGE, &d), 0);
		close(dfd);
		pthread_barrier_init(&r.go, NULL, 2);
		pthread_create(&t, NULL, dmabuf_free_racer, &r);
		pthread_barrier_wait(&r.go);
		spin((unsigned int)rand() % 2000);
		if (mode == 0) {
			rc = gpudp_pin_unpin(fd, d.handle);
			ASSERT(rc == 0, "detach during free: %d (loop %ld)", rc, i);
		} else {
			close(fd);
			fd = -1;
		}
		pthread_join(t, NULL);
		ASSERT(r.rc == 0, "free during detach: %d (loop %ld)", r.rc, i);
		pthread_barrier_destroy(&r.go);
	}
	if (fd >= 0)
		close(fd);
	return expect_clean();
}

int race_dmabuf_revoke_vs_detach(void)
{
	return dmabuf_race_loop(0);
}

int race_dmabuf_revoke_vs_close(void)
{
	return dmabuf_race_loop(1);
}

struct handle_guesser {
	int fd;
	volatile uint64_t next;		/* handle to unpin; 0: stop */
	volatile int stop;
	long won;
};

/* Unpin the handle the next PIN or ATTACH_DMABUF will publish, in a loop. */
static void *handle_guesser(void *arg)
{
	struct handle_guesser *g = arg;
	uint64_t h;

	while (!g->stop) {
		h = g->next;
		if (h && gpudp_pin_unpin(g->fd, h) == 0)
			g->won++;
	}
	return NULL;
}

/*
 * Handles are predictable: another thread may unpin a pin (and free it) as
 * soon as PIN or ATTACH_DMABUF publishes it, before the ioctl has written
 * its reply. The reply must still be right (and KASAN must stay quiet on
 * the debug kernel).
 */
int race_unpin_of_next_handle_vs_pin_and_attach(void)
{
	long loops = env_long("GPUDP_RACE_LOOPS", 2000) / 2, i;
	uint64_t va = sim_alloc(2 * GPU_PAGE), h;
	struct handle_guesser g = { 0 };
	struct gpudp_pin_dmabuf d;
	struct gpudp_pin_pin p;
	pthread_t t;
	int fd = open_pin(), dfd = sim_export(va, 2 * GPU_PAGE), rc;

	ASSERT(va && fd >= 0 && dfd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	h = p.handle;
	g.fd = fd;
	g.next = h + 1;
	pthread_create(&t, NULL, handle_guesser, &g);
	for (i = 0; i < loops; i++) {
		if (i & 1) {
			rc = attach(fd, dfd, 0, 2 * GPU_PAGE, &d);
			ASSERT(rc == 0 && d.handle == h + 1 && d.entries == 2 &&
			       d.page_size == GPU_PAGE && d.size == 2 * GPU_PAGE,
			       "attach %d: handle %llu (want %llu) entries %u page %u size %llu",
			       rc, (unsigned long long)d.handle,
			       (unsigned long long)(h + 1), d.entries,
			       d.page_size, (unsigned long long)d.size);
			h = d.handle;
		} else {
			rc = gpudp_pin_pin(fd, va + 4096, 4096, 0, &p);
			/* one GPU page, or (Tegra) the one 4 KiB page */
			ASSERT(rc == 0 && p.handle == h + 1 &&
			       p.aligned_va == ((va + 4096) & ~(pin_page - 1)) &&
			       p.aligned_len == pin_page &&
			       p.offset == va + 4096 - p.aligned_va,
			       "pin %d: handle %llu (want %llu) va 0x%llx len 0x%llx",
			       rc, (unsigned long long)p.handle,
			       (unsigned long long)(h + 1),
			       (unsigned long long)p.aligned_va,
			       (unsigned long long)p.aligned_len);
			h = p.handle;
		}
		g.next = h + 1;
		rc = gpudp_pin_unpin(fd, h);
		ASSERT(rc == 0 || rc == -ENOENT, "unpin %d", rc);
	}
	g.stop = 1;
	pthread_join(t, NULL);
	printf("    %ld of %ld handles unpinned by the other thread first\n",
	       g.won, loops);
	close(dfd);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

