/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pin_test, the guest tests of gpudp_pin (pin_test.c, pin_test.h): mmap,
 * revocation by the free callback, peer maps, lifetime.
 */
#include "pin_test.h"

/* ---- mmap ---- */

int mmap_cpu_writes_reach_gpu_memory(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), got, i;
	volatile uint64_t *m;
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, 2 * GPU_PAGE, (void **)&m), 0);
	for (i = 0; i < 2 * GPU_PAGE / 8; i += 509)
		m[i] = 0xabc0000000000000ULL + i;
	for (i = 0; i < 2 * GPU_PAGE / 8; i += 509) {
		ASSERT_RC(sim_peek(va + i * 8, &got), 0);
		ASSERT(got == 0xabc0000000000000ULL + i, "word %llu: 0x%llx",
		       (unsigned long long)i, (unsigned long long)got);
	}
	ASSERT_RC(sim_poke(va + GPU_PAGE + 64, 0x5151), 0);
	ASSERT(m[(GPU_PAGE + 64) / 8] == 0x5151, "GPU write not seen by CPU");
	munmap((void *)m, 2 * GPU_PAGE);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int mmap_outside_pin_is_enxio(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();
	void *m;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	/* Longer than the pin. */
	m = mmap(NULL, 2 * GPU_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)p.mmap_offset);
	ASSERT(m == MAP_FAILED && errno == ENXIO, "too long: errno %d", errno);
	/* Starting past the pin's end. */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		 (off_t)(p.mmap_offset + GPU_PAGE));
	ASSERT(m == MAP_FAILED && errno == ENXIO, "past end: errno %d", errno);
	/* No pin at all. */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT(m == MAP_FAILED && errno == ENXIO, "offset 0: errno %d", errno);
	/* Inside: fine. */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		 (off_t)(p.mmap_offset + GPU_PAGE - 4096));
	ASSERT(m != MAP_FAILED, "last page: errno %d", errno);
	munmap(m, 4096);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int mmap_private_is_einval(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();
	void *m;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	m = mmap(NULL, GPU_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 (off_t)p.mmap_offset);
	ASSERT(m == MAP_FAILED && errno == EINVAL, "errno %d", errno);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int mapping_is_not_inherited_by_fork(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	volatile uint64_t *m;
	struct gpudp_pin_pin p;
	int fd = open_pin(), status;
	pid_t pid;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, (void **)&m), 0);
	m[0] = 1;
	pid = fork();
	if (pid == 0) {
		m[0] = 2;	/* VM_DONTCOPY: nothing mapped here */
		_exit(0);
	}
	ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	       "child status 0x%x", status);
	ASSERT(m[0] == 1, "child wrote through the mapping");
	munmap((void *)m, GPU_PAGE);
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* ---- revocation (free callback) ---- */

int free_while_pinned_revokes_and_sigbus(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), got = 0;
	volatile uint64_t *m;
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	struct nvp2p_sim_stats s0 = sim_stats(), s1;
	void *m2;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, 2 * GPU_PAGE, (void **)&m), 0);
	ASSERT(probe_rw(m, 42, &got) == 0 && got == 42, "mapping works");
	ASSERT_RC(sim_free(va), 0);		/* cudaFree: callback fires */
	s1 = sim_stats();
	ASSERT(s1.callbacks == s0.callbacks + 1, "callbacks %llu -> %llu",
	       (unsigned long long)s0.callbacks, (unsigned long long)s1.callbacks);
	ASSERT(s1.tables_live == 0, "callback did not free the table");
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_REVOKED, "state %u", q.state);
	ASSERT(q.entries == 0 && q.page_size == 0, "revoked table sizes");
	ASSERT(probe_rw(m, 43, NULL) == SIGBUS, "old mapping did not SIGBUS");
	ASSERT(probe_rw(m + GPU_PAGE / 8, 43, NULL) == SIGBUS, "second page");
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, NULL, 0, NULL, NULL), -EIDRM);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, &m2), -EIDRM);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), -ENOENT);
	munmap((void *)m, 2 * GPU_PAGE);
	close(fd);
	return expect_clean();
}

int unpin_zaps_mapping_sigbus(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	volatile uint64_t *m;
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, (void **)&m), 0);
	ASSERT(probe_rw(m, 1, NULL) == 0, "mapping works");
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT(probe_rw(m, 2, NULL) == SIGBUS, "no SIGBUS after unpin");
	munmap((void *)m, GPU_PAGE);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int persistent_pin_blocks_free(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p), 0);
	ASSERT_RC(sim_free(va), -EBUSY);
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID, "state %u", q.state);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT_RC(sim_free(va), 0);
	close(fd);
	return expect_clean();
}

int page_table_of_4k_pages(void)
{
	struct nvp2p_sim_fault f = { .page_4k = 1 };
	uint64_t va = sim_alloc(GPU_PAGE), got;
	volatile uint64_t *m;
	struct gpudp_pin_pin p;
	uint32_t n = 0, ps = 0;
	uint32_t dom;
	uint8_t bus, devfn;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, NULL, 0, &n, &ps), 0);
	ASSERT(n == 16 && ps == 4096, "entries %u page_size %u", n, ps);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, (void **)&m), 0);
	m[GPU_PAGE / 8 - 1] = 77;
	ASSERT_RC(sim_peek(va + GPU_PAGE - 8, &got), 0);
	ASSERT(got == 77, "last word 0x%llx", (unsigned long long)got);
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), -EOPNOTSUPP);
	munmap((void *)m, GPU_PAGE);
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* ---- peer DMA mapping ---- */

int map_peer_returns_bus_addresses(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), phys[2], bus_addrs[2];
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	uint32_t n = 0, ps = 0, dom;
	uint8_t bus, devfn;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, phys, 2, NULL, NULL), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, bus_addrs,
				     2, &n, &ps), 0);
	ASSERT(n == 2 && ps == GPU_PAGE, "entries %u page_size %u", n, ps);
	ASSERT(bus_addrs[0] == phys[0] + NVP2P_SIM_DMA_BIAS &&
	       bus_addrs[1] == phys[1] + NVP2P_SIM_DMA_BIAS,
	       "bus addresses are not the provider's DMA mapping");
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), 0);
	ASSERT(q.flags & GPUDP_PIN_QF_PEER_MAPPED, "flags 0x%x", q.flags);
	ASSERT(sim_stats().dmas_live == 1, "dma mapping count");
	ASSERT_RC(gpudp_pin_unmap_peer(fd, p.handle), 0);
	ASSERT(sim_stats().dmas_live == 0, "unmap did not free the mapping");
	/* Unpin with a live mapping unmaps it too. */
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), 0);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	close(fd);
	sim_free(va);
	return expect_clean();
}

static int unpriv_map(int fd, uint64_t handle)
{
	uint32_t dom;
	uint8_t bus, devfn;

	if (first_pci_dev(&dom, &bus, &devfn) != 0)
		return 2;
	return gpudp_pin_map_peer(fd, handle, dom, bus, devfn, NULL, 0, NULL,
				  NULL) == -EPERM ? 0 : 1;
}

int map_peer_errors(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), addrs[1];
	struct gpudp_pin_pin p;
	struct gpudp_pin_map_peer mp;
	uint32_t n = 0, dom;
	uint8_t bus, devfn;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, 0x7777, 0, 0, NULL, 0, NULL,
				     NULL), -ENODEV);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, addrs, 1,
				     &n, NULL), -ERANGE);
	ASSERT(n == 2, "entries on ERANGE %u", n);
	ASSERT(sim_stats().dmas_live == 0, "ERANGE must not map");
	ASSERT_RC(gpudp_pin_unmap_peer(fd, p.handle), -EINVAL);
	ASSERT(as_unprivileged(fd, p.handle, unpriv_map) == 0, "EPERM");
	memset(&mp, 0, sizeof(mp));
	mp.handle = p.handle;
	mp.pad0 = 1;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_MAP_PEER, &mp) < 0 && errno == EINVAL,
	       "pad: errno %d", errno);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), -EBUSY);
	close(fd);	/* close with a live peer mapping */
	sim_free(va);
	return expect_clean();
}

int free_while_peer_mapped_frees_dma_mapping(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	uint32_t dom;
	uint8_t bus, devfn;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), 0);
	ASSERT_RC(sim_free(va), 0);
	ASSERT(sim_stats().dmas_live == 0, "callback left the dma mapping");
	ASSERT_RC(gpudp_pin_unmap_peer(fd, p.handle), -EIDRM);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), -EIDRM);
	close(fd);
	return expect_clean();
}

/* ---- lifetime ---- */

int close_releases_all_pins(void)
{
	uint64_t va = sim_alloc(8 * GPU_PAGE);
	struct gpudp_pin_pin p;
	void *m;
	int fd = open_pin(), i;

	ASSERT(va && fd >= 0, "setup");
	for (i = 0; i < 4; i++)
		ASSERT_RC(gpudp_pin_pin(fd, va + i * 2 * GPU_PAGE, 2 * GPU_PAGE,
					i & 1 ? GPUDP_PIN_F_PERSISTENT : 0, &p), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, &m), 0);
	ASSERT(sim_stats().tables_live == 4, "4 tables");
	close(fd);
	/* The mapping keeps the file open: nothing released yet. */
	ASSERT(sim_stats().tables_live == 4, "released while mapped");
	munmap(m, GPU_PAGE);
	ASSERT(sim_stats().tables_live == 0, "close did not release");
	sim_free(va);
	return expect_clean();
}

int put_pages_racing_callback_on_other_thread(void)
{
	struct nvp2p_sim_fault f = { .race_put = 1, .cb_delay_us = 200 };
	uint64_t va = sim_alloc(GPU_PAGE);
	struct nvp2p_sim_stats s0 = sim_stats();
	struct gpudp_pin_pin p;
	volatile uint64_t *m;
	int fd = open_pin(), i;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	for (i = 0; i < 50; i++) {
		ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
		ASSERT_RC(gpudp_pin_mmap(fd, &p, 0, GPU_PAGE, (void **)&m), 0);
		m[0] = (uint64_t)i;
		ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
		ASSERT(probe_rw(m, 1, NULL) == SIGBUS, "mapping survived");
		munmap((void *)m, GPU_PAGE);
	}
	/* Same through close. */
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	close(fd);
	ASSERT(sim_stats().callbacks == s0.callbacks + 51, "callbacks %llu",
	       (unsigned long long)(sim_stats().callbacks - s0.callbacks));
	sim_free(va);
	return expect_clean();
}

