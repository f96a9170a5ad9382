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
	if (tegra) {
		/* No persistent API on Tegra (guide, section Porting to Tegra). */
		ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p),
			  -EOPNOTSUPP);
		ASSERT_RC(sim_free(va), 0);
		close(fd);
		return expect_clean();
	}
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
	/* Desktop dma_map_pages takes 64 KiB pages only; Tegra's 4 KiB ones. */
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), tegra ? 0 : -EOPNOTSUPP);
	munmap((void *)m, GPU_PAGE);
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* ---- peer DMA mapping ---- */

int map_peer_returns_bus_addresses(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), phys[32], bus_addrs[32];
	uint32_t want = (uint32_t)(2 * GPU_PAGE / pin_page), n = 0, ps = 0, dom, i;
	struct nvp2p_sim_stats s0 = sim_stats();
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	uint8_t bus, devfn;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, phys, 32, NULL, NULL), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p.handle, dom, bus, devfn, bus_addrs,
				     32, &n, &ps), 0);
	/* 2 GPU pages; Tegra: 32 pages, from the provider's segments */
	ASSERT(n == want && ps == pin_page, "entries %u page_size %u", n, ps);
	for (i = 0; i < n; i++)
		ASSERT(bus_addrs[i] == phys[i] + NVP2P_SIM_DMA_BIAS,
		       "page %u: bus address is not the provider's DMA mapping", i);
	/* For the PCI function (Tegra: its struct device), both directions. */
	ASSERT(sim_stats().dma_maps_bidirectional == s0.dma_maps_bidirectional + 1,
	       "mapping not DMA_BIDIRECTIONAL");
	ASSERT(sim_stats().dma_last_peer == ((uint64_t)dom << 16 | (uint64_t)bus << 8 | devfn),
	       "mapped for PCI function 0x%llx, not the one asked for",
	       (unsigned long long)sim_stats().dma_last_peer);
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
	ASSERT(n == 2 * GPU_PAGE / pin_page, "entries on ERANGE %u", n);
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

/* Pin one GPU page at @va and map it for the guest's first PCI function. */
static int pin_peer_mapped(int fd, uint64_t va, struct gpudp_pin_pin *p)
{
	uint32_t dom;
	uint8_t bus, devfn;

	ASSERT(first_pci_dev(&dom, &bus, &devfn) == 0, "no PCI device");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, p), 0);
	ASSERT_RC(gpudp_pin_map_peer(fd, p->handle, dom, bus, devfn, NULL, 0,
				     NULL, NULL), 0);
	return GPUDP_TEST_PASS;
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
	ASSERT(pin_peer_mapped(fd, va, &p) == GPUDP_TEST_PASS, "pin and map");
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
					i & 1 ? pin_persistent : 0, &p), 0);
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

/*
 * A revocation racing the unpin, its callback on another thread: with
 * @race_put 1 while put_pages runs, with 2 before it was called. On Tegra
 * that callback must leave the table to the unpin (which passes it to
 * put_pages, then frees it), never free it itself.
 */
static int unpin_racing_callback(uint32_t race_put)
{
	struct nvp2p_sim_fault f = { .race_put = race_put, .cb_delay_us = 200 };
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

int put_pages_racing_callback_on_other_thread(void)
{
	return unpin_racing_callback(1);
}

int revocation_just_before_put_pages(void)
{
	return unpin_racing_callback(2);
}

/*
 * Tegra: put_pages always runs the free callback, on the unpinning thread
 * (guide, section Porting to Tegra); gpudp_pin frees the table there, once,
 * and the pin is released, not revoked. Desktop: put_pages runs none. The
 * same through close, for a pin mapped for a peer (unmapped first).
 */
int unpin_runs_callback_from_put_pages_on_tegra(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), cb = tegra ? 1 : 0;
	struct nvp2p_sim_stats a, b;
	struct gpudp_pin_pin p, pm;
	struct gpudp_pin_query q;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT(pin_peer_mapped(fd, va + GPU_PAGE, &pm) == GPUDP_TEST_PASS, "pin and map");
	a = sim_stats();
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	b = sim_stats();
	ASSERT(b.put_pages == a.put_pages + 1, "put_pages not called");
	ASSERT(b.put_callbacks == a.put_callbacks + cb &&
	       b.callbacks == a.callbacks + cb, "%llu callbacks from put_pages, %llu in all",
	       (unsigned long long)(b.put_callbacks - a.put_callbacks),
	       (unsigned long long)(b.callbacks - a.callbacks));
	ASSERT(b.tables_live == a.tables_live - 1, "table not freed");
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), -ENOENT);
	ASSERT_RC(gpudp_pin_query(fd, pm.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID, "other pin state %u", q.state);
	close(fd);
	a = sim_stats();
	ASSERT(a.put_callbacks == b.put_callbacks + cb && a.dmas_live == 0 &&
	       a.tables_live == 0, "close: %llu callbacks from put_pages",
	       (unsigned long long)(a.put_callbacks - b.put_callbacks));
	ASSERT_RC(sim_free(va), 0);
	ASSERT(sim_stats().callbacks == a.callbacks, "free ran a callback of a released pin");
	return expect_clean();
}

/* How the sim sees the caller's mapping at @addr (NVP2P_SIM_PROT_*). */
static int prot_of(volatile void *addr)
{
	struct nvp2p_sim_prot p = { .addr = (uintptr_t)addr };
	int rc = sim_ioctl(NVP2P_SIM_IOC_PROT, &p);

	return rc < 0 ? rc : (int)p.prot;
}

/*
 * GPU memory behind a BAR is mapped write-combined. Tegra: the mapping
 * must match the allocation (guide, section Porting to Tegra): memory
 * allocated write-combined (GPUDP_PIN_F_WC) mapped write-combined, default
 * memory with vm_page_prot untouched.
 */
int mmap_caching_follows_allocation(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), got;
	volatile uint64_t *d, *w;
	struct gpudp_pin_pin pd, pw;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &pd), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va + GPU_PAGE, GPU_PAGE, GPUDP_PIN_F_WC, &pw), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &pd, 0, GPU_PAGE, (void **)&d), 0);
	ASSERT_RC(gpudp_pin_mmap(fd, &pw, 0, GPU_PAGE, (void **)&w), 0);
	ASSERT(prot_of(d) == (tegra ? NVP2P_SIM_PROT_DEFAULT : NVP2P_SIM_PROT_WC),
	       "default allocation mapped as %d", prot_of(d));
	ASSERT(prot_of(w) == NVP2P_SIM_PROT_WC, "write-combined allocation mapped as %d",
	       prot_of(w));
	d[1] = 11;
	w[1] = 22;
	ASSERT_RC(sim_peek(va + 8, &got), 0);
	ASSERT(got == 11, "default mapping wrote 0x%llx", (unsigned long long)got);
	ASSERT_RC(sim_peek(va + GPU_PAGE + 8, &got), 0);
	ASSERT(got == 22, "write-combined mapping wrote 0x%llx", (unsigned long long)got);
	munmap((void *)d, GPU_PAGE);
	munmap((void *)w, GPU_PAGE);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}
