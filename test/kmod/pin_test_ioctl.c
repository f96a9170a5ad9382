/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pin_test, the guest tests of gpudp_pin (pin_test.c, pin_test.h):
 * version, PIN argument checks, handles, GET_TABLE, QUERY.
 */
#include "pin_test.h"

/* ---- cases: version and pin argument checks ---- */

int version_reports_abi_and_caps(void)
{
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(fd >= 0, "open: %d", fd);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.abi_major == GPUDP_PIN_ABI_MAJOR, "major %u", v.abi_major);
	/* Tegra: no persistent API (guide, section Porting to Tegra). */
	ASSERT(((v.caps & GPUDP_PIN_CAP_PERSISTENT) == 0) == tegra, "caps 0x%x", v.caps);
	ASSERT(v.caps & GPUDP_PIN_CAP_DMABUF, "caps 0x%x", v.caps);
	ASSERT(v.abi_minor >= 2, "minor %u", v.abi_minor);
	ASSERT(v.max_pinned_bytes > 0, "no cap");
	ASSERT(v.pinned_bytes == 0, "fresh fd has %llu pinned",
	       (unsigned long long)v.pinned_bytes);
	ASSERT(ioctl(fd, _IO(GPUDP_PIN_IOC_MAGIC, 0x7f)) < 0 && errno == ENOTTY,
	       "unknown ioctl: errno %d", errno);
	close(fd);
	return expect_clean();
}

int ioctl_bad_user_pointer_is_efault(void)
{
	static const unsigned long cmds[] = {
		GPUDP_PIN_IOC_VERSION, GPUDP_PIN_IOC_PIN, GPUDP_PIN_IOC_UNPIN,
		GPUDP_PIN_IOC_GET_TABLE, GPUDP_PIN_IOC_QUERY,
		GPUDP_PIN_IOC_MAP_PEER, GPUDP_PIN_IOC_UNMAP_PEER,
		GPUDP_PIN_IOC_ATTACH_DMABUF,
	};
	unsigned int i;
	int fd = open_pin();

	ASSERT(fd >= 0, "setup");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		ASSERT(ioctl(fd, cmds[i], (void *)8) < 0 && errno == EFAULT,
		       "ioctl 0x%lx: errno %d", cmds[i], errno);
	}
	close(fd);
	return expect_clean();
}

int device_node_is_0600(void)
{
	struct stat st;

	ASSERT(stat(GPUDP_PIN_DEVICE_PATH, &st) == 0, "stat: %s", strerror(errno));
	ASSERT((st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	return GPUDP_TEST_PASS;
}

int pin_rounds_unaligned_range(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va + 100, GPU_PAGE, 0, &p), 0);
	ASSERT(p.handle != 0, "handle 0");
	ASSERT(p.aligned_va == va, "aligned_va %llx", (unsigned long long)p.aligned_va);
	/* 64 KiB + 100 bytes: two GPU pages, or 17 Tegra pages */
	ASSERT(p.aligned_len == (GPU_PAGE + 100 + pin_page - 1) / pin_page * pin_page,
	       "aligned_len %llx", (unsigned long long)p.aligned_len);
	ASSERT(p.offset == 100, "offset %llu", (unsigned long long)p.offset);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == p.aligned_len, "pinned_bytes %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 0, "pinned_bytes after unpin");
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

int pin_zero_length_is_einval(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 0, 0, &p), -EINVAL);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_strict_unaligned_is_einval(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va + pin_page / 2, GPU_PAGE, GPUDP_PIN_F_STRICT, &p),
		  -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE + 1, GPUDP_PIN_F_STRICT, &p), -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_STRICT, &p), 0);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_unknown_flags_or_pad_is_einval(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 1U << 31, &p), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.va = va;
	p.len = GPU_PAGE;
	p.pad = 1;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_PIN, &p) < 0 && errno == EINVAL,
	       "pad: errno %d", errno);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_wrapping_range_is_eoverflow(void)
{
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, UINT64_MAX - 4095, 8192, 0, &p), -EOVERFLOW);
	ASSERT_RC(gpudp_pin_pin(fd, UINT64_MAX - 100, 50, 0, &p), -EOVERFLOW);
	close(fd);
	return expect_clean();
}

int pin_larger_than_cap_is_e2big(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();
	int rc;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(set_cap(2 * GPU_PAGE), 0);
	rc = gpudp_pin_pin(fd, va, 3 * GPU_PAGE, 0, &p);
	set_cap(16ULL << 30);
	ASSERT(rc == -E2BIG, "rc %d", rc);
	/* Far beyond any cap, not just this one. */
	ASSERT_RC(gpudp_pin_pin(fd, va, 1ULL << 62, 0, &p), -E2BIG);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_beyond_cumulative_cap_is_enospc(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE);
	struct gpudp_pin_pin a, b, c;
	int fd = open_pin();
	int rc1, rc2, rc3;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(set_cap(3 * GPU_PAGE), 0);
	rc1 = gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &a);
	rc2 = gpudp_pin_pin(fd, va + 2 * GPU_PAGE, 2 * GPU_PAGE, 0, &b);
	if (rc1 == 0)
		gpudp_pin_unpin(fd, a.handle);
	rc3 = gpudp_pin_pin(fd, va + 2 * GPU_PAGE, 2 * GPU_PAGE, 0, &c);
	set_cap(16ULL << 30);
	ASSERT(rc1 == 0, "first pin %d", rc1);
	ASSERT(rc2 == -ENOSPC, "second pin %d", rc2);
	ASSERT(rc3 == 0, "pin after unpin %d", rc3);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_unknown_gpu_memory_is_einval(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	/* Crosses the end of the allocation into the simulator's hole. */
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, 0, &p), -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, 0x1000000, GPU_PAGE, 0, &p), -EINVAL);
	close(fd);
	sim_free(va);
	return expect_clean();
}

static int provider_error(int err)
{
	/* Tegra: the persistent pin fails before get_pages. */
	struct nvp2p_sim_fault f = { .get_pages_err = err, .fail_count = tegra ? 1 : 2 };
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), err);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p),
		  tegra ? -EOPNOTSUPP : err);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 0, "failed pins still count %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int pin_provider_enomem_is_passed_through(void)
{
	return provider_error(-ENOMEM);
}

int pin_provider_einval_is_passed_through(void)
{
	return provider_error(-EINVAL);
}

int pin_incompatible_table_version_is_eproto(void)
{
	struct nvp2p_sim_fault f = { .bad_version = 1 };
	uint64_t va;
	struct gpudp_pin_pin p;
	int fd;

	GPUDP_TEST_SKIP_IF(tegra, "Tegra page tables carry no version word");
	va = sim_alloc(GPU_PAGE);
	fd = open_pin();
	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), -EPROTO);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p), -EPROTO);
	ASSERT(sim_stats().tables_live == 0, "rejected tables were not put");
	close(fd);
	sim_free(va);
	return expect_clean();
}

/*
 * PIN's unit is the API's: 64 KiB GPU pages, or 4 KiB on Tegra (guide,
 * section Porting to Tegra: address and length multiples of 4 KB).
 */
int pin_granularity_follows_api(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE), got[2], want[1];
	struct gpudp_pin_pin p, s;
	uint32_t n = 0, ps = 0;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	/* one 4 KiB page inside the first GPU page, exactly */
	ASSERT_RC(gpudp_pin_pin(fd, va + 4096, 4096, GPUDP_PIN_F_STRICT, &s),
		  tegra ? 0 : -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, va + 2048, 4096, GPUDP_PIN_F_STRICT, &s), -EINVAL);
	/* 10 bytes at 4 KiB + 1: rounded out to one unit */
	ASSERT_RC(gpudp_pin_pin(fd, va + 4097, 10, 0, &p), 0);
	ASSERT(p.aligned_va == (tegra ? va + 4096 : va) && p.aligned_len == pin_page &&
	       p.offset == va + 4097 - p.aligned_va, "rounded to 0x%llx + 0x%llx",
	       (unsigned long long)(p.aligned_va - va), (unsigned long long)p.aligned_len);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, got, 2, &n, &ps), 0);
	ASSERT(n == 1 && ps == pin_page, "table %u x %u", n, ps);
	ASSERT_RC(provider_table(fd, va, GPU_PAGE, want, 1), 0);
	ASSERT(got[0] == want[0] + (p.aligned_va - va), "page at 0x%llx, GPU page at 0x%llx",
	       (unsigned long long)got[0], (unsigned long long)want[0]);
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

/* ---- handles ---- */

int unpin_unknown_handle_is_enoent(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_unpin(fd, 0), -ENOENT);
	ASSERT_RC(gpudp_pin_unpin(fd, 0xdeadbeef), -ENOENT);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), -ENOENT);
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), -ENOENT);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, NULL, 0, NULL, NULL), -ENOENT);
	ASSERT_RC(gpudp_pin_unmap_peer(fd, p.handle), -ENOENT);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int handle_of_other_file_is_enoent(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	int a = open_pin(), b = open_pin();
	void *m;

	ASSERT(va && a >= 0 && b >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(a, va, GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_query(b, p.handle, &q), -ENOENT);
	ASSERT_RC(gpudp_pin_unpin(b, p.handle), -ENOENT);
	ASSERT_RC(gpudp_pin_get_table(b, p.handle, NULL, 0, NULL, NULL), -ENOENT);
	ASSERT_RC(gpudp_pin_mmap(b, &p, 0, GPU_PAGE, &m), -ENXIO);
	ASSERT_RC(gpudp_pin_query(a, p.handle, &q), 0);
	close(b);
	close(a);
	sim_free(va);
	return expect_clean();
}

/* ---- page table, query ---- */

int get_table_sizes_and_addresses(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE), addrs[48], mark;
	uint32_t n = 0, ps = 0, i;
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 3 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, NULL, 0, &n, &ps), 0);
	/* 3 GPU pages, or 48 Tegra pages */
	ASSERT(n == 3 * GPU_PAGE / pin_page && ps == pin_page,
	       "entries %u page_size %u", n, ps);
	memset(addrs, 0, sizeof(addrs));
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, addrs, 48, &n, &ps), 0);
	for (i = 0; i < n; i++) {
		ASSERT(addrs[i] != 0 && addrs[i] % pin_page == 0,
		       "entry %u = 0x%llx", i, (unsigned long long)addrs[i]);
	}
	/* The addresses are the pages the provider backs the VA with: mark
	 * each page and check it through a mapping of the pin. */
	for (i = 0; i < n; i++)
		ASSERT_RC(sim_poke(va + i * pin_page, 0x1000 + i), 0);
	mark = 0;
	for (i = 0; i < n; i++) {
		uint64_t *m;

		ASSERT_RC(gpudp_pin_mmap(fd, &p, i * pin_page, 4096, (void **)&m), 0);
		mark += (*m == 0x1000 + i);
		munmap(m, 4096);
	}
	ASSERT(mark == n, "%llu of %u pages seen through mmap",
	       (unsigned long long)mark, n);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int get_table_small_buffer_is_erange(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE), addrs[2];
	struct gpudp_pin_pin p;
	struct gpudp_pin_table t;
	uint32_t n = 0;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 4 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, addrs, 2, &n, NULL), -ERANGE);
	ASSERT(n == 4 * GPU_PAGE / pin_page, "entries on ERANGE: %u", n);
	memset(&t, 0, sizeof(t));
	t.handle = p.handle;
	t.pad = 7;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_GET_TABLE, &t) < 0 && errno == EINVAL,
	       "pad: errno %d", errno);
	t.pad = 0;
	t.addrs = 8;	/* unmapped user address */
	t.max_entries = n;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_GET_TABLE, &t) < 0 && errno == EFAULT,
	       "bad buffer: errno %d", errno);
	close(fd);
	sim_free(va);
	return expect_clean();
}


static int unpriv_table(int fd, uint64_t handle)
{
	uint64_t addrs[4];
	uint32_t n = 0;

	if (gpudp_pin_get_table(fd, handle, addrs, 4, &n, NULL) != -EPERM)
		return 1;
	/* Sizes stay available. */
	if (gpudp_pin_get_table(fd, handle, NULL, 0, &n, NULL) != 0 ||
	    n != GPU_PAGE / pin_page)
		return 3;
	return 0;
}

int get_table_addresses_need_capability(void)
{
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin(), rc;

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	rc = as_unprivileged(fd, p.handle, unpriv_table);
	ASSERT(rc == 0, "unprivileged child: %d", rc);
	close(fd);
	sim_free(va);
	return expect_clean();
}

int query_reports_valid_pin(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, pin_persistent | GPUDP_PIN_F_WC, &p), 0);
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID, "state %u", q.state);
	ASSERT(q.flags == (pin_persistent | GPUDP_PIN_F_WC), "flags 0x%x", q.flags);
	ASSERT(q.aligned_va == va && q.aligned_len == 2 * GPU_PAGE, "range");
	ASSERT(q.mmap_offset == p.mmap_offset, "mmap_offset");
	ASSERT(q.page_size == pin_page && q.entries == 2 * GPU_PAGE / pin_page,
	       "table %u x %u", q.entries, q.page_size);
	close(fd);
	sim_free(va);
	return expect_clean();
}

