/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest tests of the gpudp_pin module against the nvidia_p2p_sim provider.
 * Runs as root inside the QEMU guest (test/kmod/init.sh), static binary.
 * One behaviour per case; every case ends by checking that the provider has
 * no outstanding page table or DMA mapping and saw no API violation.
 *
 * Environment: GPUDP_RACE_LOOPS (default 2000), GPUDP_FUZZ_SECONDS
 * (default 3), GPUDP_FUZZ_SEED (default: time).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpudp_pin_client.h"
#include "gpudp_test.h"
#include "nvidia_p2p_sim_uapi.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GPU_PAGE (64 * KIB)
#define PARAM_CAP "/sys/module/gpudp_pin/parameters/max_pinned_bytes"

#define ASSERT GPUDP_TEST_ASSERT
#define ASSERT_RC(expr, want) do { \
	int rc_ = (expr); \
	ASSERT(rc_ == (want), "%s returned %d (%s), want %d", #expr, rc_, \
	       strerror(rc_ < 0 ? -rc_ : 0), (want)); \
} while (0)

static int sim_fd = -1;

/* ---- provider control ---- */

static int sim_ioctl(unsigned long cmd, void *arg)
{
	return ioctl(sim_fd, cmd, arg) < 0 ? -errno : 0;
}

static uint64_t sim_alloc(uint64_t size)
{
	struct nvp2p_sim_alloc a = { .size = size };

	if (sim_ioctl(NVP2P_SIM_IOC_ALLOC, &a) < 0)
		return 0;
	return a.va;
}

static int sim_free(uint64_t va)
{
	struct nvp2p_sim_va v = { .va = va };

	return sim_ioctl(NVP2P_SIM_IOC_FREE, &v);
}

static int sim_peek(uint64_t va, uint64_t *val)
{
	struct nvp2p_sim_word w = { .va = va };
	int rc = sim_ioctl(NVP2P_SIM_IOC_PEEK, &w);

	*val = w.value;
	return rc;
}

static int sim_poke(uint64_t va, uint64_t val)
{
	struct nvp2p_sim_word w = { .va = va, .value = val };

	return sim_ioctl(NVP2P_SIM_IOC_POKE, &w);
}

static int sim_set_fault(const struct nvp2p_sim_fault *f)
{
	return sim_ioctl(NVP2P_SIM_IOC_FAULT, (void *)f);
}

static int sim_reset_fault(void)
{
	struct nvp2p_sim_fault f = { 0 };

	return sim_set_fault(&f);
}

static struct nvp2p_sim_stats sim_stats(void)
{
	struct nvp2p_sim_stats s;

	memset(&s, 0xff, sizeof(s));
	sim_ioctl(NVP2P_SIM_IOC_STATS, &s);
	return s;
}

/* Every case ends here: nothing outstanding, no contract violation. */
static int expect_clean(void)
{
	struct nvp2p_sim_stats s = sim_stats();

	sim_reset_fault();
	ASSERT(s.tables_live == 0, "%llu page tables outstanding",
	       (unsigned long long)s.tables_live);
	ASSERT(s.dmas_live == 0, "%llu dma mappings outstanding",
	       (unsigned long long)s.dmas_live);
	ASSERT(s.violations == 0, "%llu provider API violations",
	       (unsigned long long)s.violations);
	ASSERT(s.dmabuf_maps_live == 0, "%llu dma-buf mappings outstanding",
	       (unsigned long long)s.dmabuf_maps_live);
	ASSERT(s.exports_live == 0, "%llu dma-bufs not released",
	       (unsigned long long)s.exports_live);
	ASSERT(s.dmabuf_pins_live == 0, "%llu dma-buf pins outstanding",
	       (unsigned long long)s.dmabuf_pins_live);
	return GPUDP_TEST_PASS;
}

static int set_cap(uint64_t bytes)
{
	char buf[32];
	int fd, n, ok;

	fd = open(PARAM_CAP, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -EIO;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtol(v, NULL, 0) : def;
}

/* ---- SIGBUS probing (per thread) ---- */

static __thread sigjmp_buf probe_jmp;
static __thread volatile int probe_armed;

static void on_sigbus(int sig)
{
	if (probe_armed)
		siglongjmp(probe_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_sigbus_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* Write then read *p; returns 0 on success, the signal number if any. */
static int probe_rw(volatile uint64_t *p, uint64_t val, uint64_t *readback)
{
	int sig;

	sig = sigsetjmp(probe_jmp, 1);
	if (sig != 0) {
		probe_armed = 0;
		return sig;
	}
	probe_armed = 1;
	*p = val;
	if (readback != NULL)
		*readback = *p;
	probe_armed = 0;
	return 0;
}

/* ---- fixtures ---- */

static int open_pin(void)
{
	return gpudp_pin_open(NULL);
}

/* First PCI function in the guest, as domain/bus/devfn. */
static int first_pci_dev(uint32_t *dom, uint8_t *bus, uint8_t *devfn)
{
	unsigned int d, b, s, f;
	FILE *p;
	int ok = 0;

	p = popen("ls /sys/bus/pci/devices | head -n 1", "r");
	if (p == NULL)
		return -1;
	if (fscanf(p, "%x:%x:%x.%x", &d, &b, &s, &f) == 4) {
		*dom = d;
		*bus = (uint8_t)b;
		*devfn = (uint8_t)((s << 3) | f);
		ok = 1;
	}
	pclose(p);
	return ok ? 0 : -1;
}

/* ---- cases: version and pin argument checks ---- */

static int version_reports_abi_and_caps(void)
{
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(fd >= 0, "open: %d", fd);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.abi_major == GPUDP_PIN_ABI_MAJOR, "major %u", v.abi_major);
	ASSERT(v.caps & GPUDP_PIN_CAP_PERSISTENT, "caps 0x%x", v.caps);
	ASSERT(v.caps & GPUDP_PIN_CAP_DMABUF, "caps 0x%x", v.caps);
	ASSERT(v.abi_minor >= 1, "minor %u", v.abi_minor);
	ASSERT(v.max_pinned_bytes > 0, "no cap");
	ASSERT(v.pinned_bytes == 0, "fresh fd has %llu pinned",
	       (unsigned long long)v.pinned_bytes);
	ASSERT(ioctl(fd, _IO(GPUDP_PIN_IOC_MAGIC, 0x7f)) < 0 && errno == ENOTTY,
	       "unknown ioctl: errno %d", errno);
	close(fd);
	return expect_clean();
}

static int ioctl_bad_user_pointer_is_efault(void)
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

static int device_node_is_0600(void)
{
	struct stat st;

	ASSERT(stat(GPUDP_PIN_DEVICE_PATH, &st) == 0, "stat: %s", strerror(errno));
	ASSERT((st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	return GPUDP_TEST_PASS;
}

static int pin_rounds_unaligned_range(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va + 100, GPU_PAGE, 0, &p), 0);
	ASSERT(p.handle != 0, "handle 0");
	ASSERT(p.aligned_va == va, "aligned_va %llx", (unsigned long long)p.aligned_va);
	ASSERT(p.aligned_len == 2 * GPU_PAGE, "aligned_len %llx",
	       (unsigned long long)p.aligned_len);
	ASSERT(p.offset == 100, "offset %llu", (unsigned long long)p.offset);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 2 * GPU_PAGE, "pinned_bytes %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT_RC(gpudp_pin_unpin(fd, p.handle), 0);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 0, "pinned_bytes after unpin");
	close(fd);
	ASSERT_RC(sim_free(va), 0);
	return expect_clean();
}

static int pin_zero_length_is_einval(void)
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

static int pin_strict_unaligned_is_einval(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va + 4096, GPU_PAGE, GPUDP_PIN_F_STRICT, &p), -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE + 1, GPUDP_PIN_F_STRICT, &p), -EINVAL);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_STRICT, &p), 0);
	close(fd);
	sim_free(va);
	return expect_clean();
}

static int pin_unknown_flags_or_pad_is_einval(void)
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

static int pin_wrapping_range_is_eoverflow(void)
{
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, UINT64_MAX - 4095, 8192, 0, &p), -EOVERFLOW);
	ASSERT_RC(gpudp_pin_pin(fd, UINT64_MAX - 100, 50, 0, &p), -EOVERFLOW);
	close(fd);
	return expect_clean();
}

static int pin_larger_than_cap_is_e2big(void)
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

static int pin_beyond_cumulative_cap_is_enospc(void)
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

static int pin_unknown_gpu_memory_is_einval(void)
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
	struct nvp2p_sim_fault f = { .get_pages_err = err, .fail_count = 2 };
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_version v;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), err);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p), err);
	ASSERT_RC(gpudp_pin_version(fd, &v), 0);
	ASSERT(v.pinned_bytes == 0, "failed pins still count %llu",
	       (unsigned long long)v.pinned_bytes);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), 0);
	close(fd);
	sim_free(va);
	return expect_clean();
}

static int pin_provider_enomem_is_passed_through(void)
{
	return provider_error(-ENOMEM);
}

static int pin_provider_einval_is_passed_through(void)
{
	return provider_error(-EINVAL);
}

static int pin_incompatible_table_version_is_eproto(void)
{
	struct nvp2p_sim_fault f = { .bad_version = 1 };
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(sim_set_fault(&f), 0);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, 0, &p), -EPROTO);
	ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p), -EPROTO);
	ASSERT(sim_stats().tables_live == 0, "rejected tables were not put");
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* ---- handles ---- */

static int unpin_unknown_handle_is_enoent(void)
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

static int handle_of_other_file_is_enoent(void)
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

static int get_table_sizes_and_addresses(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE), addrs[8], tmp, mark;
	uint32_t n = 0, ps = 0, i;
	struct gpudp_pin_pin p;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 3 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, NULL, 0, &n, &ps), 0);
	ASSERT(n == 3 && ps == GPU_PAGE, "entries %u page_size %u", n, ps);
	memset(addrs, 0, sizeof(addrs));
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, addrs, 8, &n, &ps), 0);
	for (i = 0; i < n; i++) {
		ASSERT(addrs[i] != 0 && addrs[i] % GPU_PAGE == 0,
		       "entry %u = 0x%llx", i, (unsigned long long)addrs[i]);
	}
	/* The addresses are the pages the provider backs the VA with: mark
	 * each GPU page and check it through a mapping of the pin. */
	for (i = 0; i < n; i++)
		ASSERT_RC(sim_poke(va + i * GPU_PAGE, 0x1000 + i), 0);
	(void)tmp;
	mark = 0;
	for (i = 0; i < n; i++) {
		uint64_t *m;

		ASSERT_RC(gpudp_pin_mmap(fd, &p, i * GPU_PAGE, 4096, (void **)&m), 0);
		mark += (*m == 0x1000 + i);
		munmap(m, 4096);
	}
	ASSERT(mark == n, "%llu of %u pages seen through mmap",
	       (unsigned long long)mark, n);
	close(fd);
	sim_free(va);
	return expect_clean();
}

static int get_table_small_buffer_is_erange(void)
{
	uint64_t va = sim_alloc(4 * GPU_PAGE), addrs[2];
	struct gpudp_pin_pin p;
	struct gpudp_pin_table t;
	uint32_t n = 0;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 4 * GPU_PAGE, 0, &p), 0);
	ASSERT_RC(gpudp_pin_get_table(fd, p.handle, addrs, 2, &n, NULL), -ERANGE);
	ASSERT(n == 4, "entries on ERANGE: %u", n);
	memset(&t, 0, sizeof(t));
	t.handle = p.handle;
	t.pad = 7;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_GET_TABLE, &t) < 0 && errno == EINVAL,
	       "pad: errno %d", errno);
	t.pad = 0;
	t.addrs = 8;	/* unmapped user address */
	t.max_entries = 4;
	ASSERT(ioctl(fd, GPUDP_PIN_IOC_GET_TABLE, &t) < 0 && errno == EFAULT,
	       "bad buffer: errno %d", errno);
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* Run fn(fd, handle) as uid 65534 (no capabilities); 0 when it passed. */
static int as_unprivileged(int fd, uint64_t handle,
			   int (*fn)(int fd, uint64_t handle))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		_exit(fn(fd, handle));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int unpriv_table(int fd, uint64_t handle)
{
	uint64_t addrs[4];
	uint32_t n = 0;

	if (gpudp_pin_get_table(fd, handle, addrs, 4, &n, NULL) != -EPERM)
		return 1;
	/* Sizes stay available. */
	if (gpudp_pin_get_table(fd, handle, NULL, 0, &n, NULL) != 0 || n != 1)
		return 3;
	return 0;
}

static int get_table_addresses_need_capability(void)
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

static int query_reports_valid_pin(void)
{
	uint64_t va = sim_alloc(2 * GPU_PAGE);
	struct gpudp_pin_pin p;
	struct gpudp_pin_query q;
	int fd = open_pin();

	ASSERT(va && fd >= 0, "setup");
	ASSERT_RC(gpudp_pin_pin(fd, va, 2 * GPU_PAGE, GPUDP_PIN_F_PERSISTENT, &p), 0);
	ASSERT_RC(gpudp_pin_query(fd, p.handle, &q), 0);
	ASSERT(q.state == GPUDP_PIN_STATE_VALID, "state %u", q.state);
	ASSERT(q.flags == GPUDP_PIN_F_PERSISTENT, "flags 0x%x", q.flags);
	ASSERT(q.aligned_va == va && q.aligned_len == 2 * GPU_PAGE, "range");
	ASSERT(q.mmap_offset == p.mmap_offset, "mmap_offset");
	ASSERT(q.page_size == GPU_PAGE && q.entries == 2, "table %u x %u",
	       q.entries, q.page_size);
	close(fd);
	sim_free(va);
	return expect_clean();
}

/* ---- mmap ---- */

static int mmap_cpu_writes_reach_gpu_memory(void)
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

static int mmap_outside_pin_is_enxio(void)
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

static int mmap_private_is_einval(void)
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

static int mapping_is_not_inherited_by_fork(void)
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

static int free_while_pinned_revokes_and_sigbus(void)
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

static int unpin_zaps_mapping_sigbus(void)
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

static int persistent_pin_blocks_free(void)
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

static int page_table_of_4k_pages(void)
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

static int map_peer_returns_bus_addresses(void)
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

static int map_peer_errors(void)
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

static int free_while_peer_mapped_frees_dma_mapping(void)
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

static int close_releases_all_pins(void)
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

static int put_pages_racing_callback_on_other_thread(void)
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

/* ---- races, looped ---- */

struct racer {
	pthread_barrier_t go;
	uint64_t va;
	int rc;
	volatile uint64_t *map;
	int sigbus;
};

static void spin(unsigned int n)
{
	volatile unsigned int i;

	for (i = 0; i < n; i++)
		;
}

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

static int race_free_callback_vs_unpin(void)
{
	return race_loop(0, 0);
}

static int race_free_callback_vs_close(void)
{
	return race_loop(1, 0);
}

static int race_free_callback_on_worker_vs_unpin(void)
{
	return race_loop(0, 1);
}

static int race_free_callback_on_worker_vs_close(void)
{
	return race_loop(1, 1);
}

static int race_free_callback_vs_cpu_faults(void)
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

static int race_two_unpins_of_one_handle(void)
{
	long loops = env_long("GPUDP_RACE_LOOPS", 2000) / 4, i;
	uint64_t va = sim_alloc(GPU_PAGE);
	struct gpudp_pin_pin p;
	struct closer c;
	pthread_t t;
	int fd = open_pin(), rc;

	ASSERT(va && fd >= 0, "setup");
	for (i = 0; i < loops; i++) {
		ASSERT_RC(gpudp_pin_pin(fd, va, GPU_PAGE, i & 1 ? GPUDP_PIN_F_PERSISTENT : 0, &p), 0);
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

static int process_exit_releases_in_either_fd_order(void)
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

/* ---- fuzzer ---- */

#define FZ_ALLOCS 3
#define FZ_FDS 2
#define FZ_HANDLES 16

static int sim_export(uint64_t va, uint64_t len);
static int attach(int fd, int dfd, uint64_t off, uint64_t len,
		  struct gpudp_pin_dmabuf *d);

static int errno_in(int rc, const int *ok)
{
	for (; *ok != 1; ok++)
		if (rc == *ok)
			return 1;
	return 0;
}

static int fuzz_random_ioctl_sequences(void)
{
	long secs = env_long("GPUDP_FUZZ_SECONDS", 3);
	unsigned int seed = (unsigned int)env_long("GPUDP_FUZZ_SEED",
						   (long)time(NULL));
	uint64_t allocs[FZ_ALLOCS] = { 0 };
	struct gpudp_pin_pin handles[FZ_HANDLES];
	int hfd[FZ_HANDLES];
	int fds[FZ_FDS] = { -1, -1 };
	uint64_t ops = 0, addrs[64], pins_ok = 0, maps_ok = 0, mmaps_ok = 0;
	uint64_t attaches_ok = 0;
	struct nvp2p_sim_stats s0 = sim_stats(), s1;
	time_t end = time(NULL) + secs;
	uint32_t dom = 0;
	uint8_t bus = 0, devfn = 0;
	int i, rc, nh = 0;

	static const int ok_pin[] = { 0, -EINVAL, -EOVERFLOW, -E2BIG, -ENOSPC,
				      -ENOMEM, -EPROTO, 1 };
	static const int ok_handle[] = { 0, -ENOENT, -EIDRM, 1 };
	static const int ok_table[] = { 0, -ENOENT, -EIDRM, -ERANGE, 1 };
	static const int ok_map[] = { 0, -ENOENT, -EIDRM, -ERANGE, -EBUSY,
				      -EOPNOTSUPP, -ENODEV, 1 };
	static const int ok_unmap[] = { 0, -ENOENT, -EIDRM, -EINVAL,
					-EOPNOTSUPP, 1 };
	static const int ok_mmap[] = { 0, -ENXIO, -EIDRM, -EINVAL, 1 };
	static const int ok_free[] = { 0, -EBUSY, -ENOENT, 1 };
	static const int ok_attach[] = { 0, -EINVAL, -ENXIO, -E2BIG, -ENOSPC,
					 -EIDRM, -EIO, -ENOMEM, 1 };

	printf("    fuzz: seed %u, %ld s\n", seed, secs);
	srand(seed);
	first_pci_dev(&dom, &bus, &devfn);
	memset(handles, 0, sizeof(handles));
	for (i = 0; i < FZ_HANDLES; i++)
		hfd[i] = 0;
	while (time(NULL) < end) {
		int op = rand() % 14, a = rand() % FZ_ALLOCS, f = rand() % FZ_FDS;
		struct gpudp_pin_dmabuf dh;
		int dfd;
		int h = rand() % FZ_HANDLES;
		struct gpudp_pin_query q;
		struct nvp2p_sim_fault fl;
		uint64_t va, len;
		void *m;

		ops++;
		if (fds[f] < 0)
			fds[f] = open_pin();
		ASSERT(fds[f] >= 0, "open: %d", fds[f]);
		switch (op) {
		case 0:	/* alloc */
			if (!allocs[a])
				allocs[a] = sim_alloc((uint64_t)(1 + rand() % 8) * GPU_PAGE);
			break;
		case 1:	/* free */
			if (allocs[a]) {
				rc = sim_free(allocs[a]);
				ASSERT(errno_in(rc, ok_free), "free: %d (op %llu)", rc,
				       (unsigned long long)ops);
				if (rc == 0)
					allocs[a] = 0;
			}
			break;
		case 2: case 3:	/* pin, mostly sane arguments */
			va = allocs[a] ? allocs[a] : (uint64_t)rand() << 16;
			va += (uint64_t)(rand() % 4) * GPU_PAGE + (rand() % 3 ? 0 : (uint64_t)rand() % 4096);
			len = rand() % 5 ? (uint64_t)(1 + rand() % 4) * GPU_PAGE :
			      rand() % 2 ? (uint64_t)rand() : UINT64_MAX - (uint64_t)rand();
			rc = gpudp_pin_pin(fds[f], va, len,
					   (uint32_t)(rand() % 8) & (GPUDP_PIN_F_ALL | 4),
					   &handles[nh % FZ_HANDLES]);
			ASSERT(errno_in(rc, ok_pin), "pin: %d (op %llu)", rc,
			       (unsigned long long)ops);
			if (rc == 0) {
				hfd[nh++ % FZ_HANDLES] = f;
				pins_ok++;
			}
			break;
		case 4:	/* unpin, through the fd that made the pin if still open */
			if (fds[hfd[h]] < 0)
				break;
			rc = gpudp_pin_unpin(fds[hfd[h]], handles[h].handle);
			ASSERT(errno_in(rc, ok_handle), "unpin: %d", rc);
			break;
		case 5:	/* get table */
			rc = gpudp_pin_get_table(fds[f], handles[h].handle,
						 rand() % 2 ? addrs : NULL,
						 (uint32_t)(rand() % 65), NULL, NULL);
			ASSERT(errno_in(rc, ok_table), "get_table: %d", rc);
			break;
		case 6:	/* query */
			rc = gpudp_pin_query(fds[f], handles[h].handle, &q);
			ASSERT(errno_in(rc, ok_handle), "query: %d", rc);
			break;
		case 7:	/* map peer */
			rc = gpudp_pin_map_peer(fds[f], handles[h].handle,
						rand() % 8 ? dom : 9, bus, devfn,
						rand() % 2 ? addrs : NULL,
						(uint32_t)(rand() % 65), NULL, NULL);
			ASSERT(errno_in(rc, ok_map), "map_peer: %d", rc);
			maps_ok += rc == 0;
			break;
		case 8:	/* unmap peer */
			rc = gpudp_pin_unmap_peer(fds[f], handles[h].handle);
			ASSERT(errno_in(rc, ok_unmap), "unmap_peer: %d", rc);
			break;
		case 9:	/* mmap, touch, unmap */
			len = (uint64_t)(1 + rand() % 32) * 4096;
			rc = gpudp_pin_mmap(fds[f], &handles[h],
					    (uint64_t)(rand() % 32) * 4096,
					    (size_t)len, &m);
			ASSERT(errno_in(rc, ok_mmap), "mmap: %d", rc);
			if (rc == 0) {
				mmaps_ok++;
				probe_rw(m, ops, NULL);
				probe_rw((uint64_t *)((char *)m + len - 8), ops, NULL);
				munmap(m, (size_t)len);
			}
			break;
		case 10:	/* close and reopen later */
			if (rand() % 8 == 0) {
				close(fds[f]);
				fds[f] = -1;
			}
			break;
		case 12:	/* export a dma-buf, attach part of it */
			if (!allocs[a])
				break;
			dfd = sim_export(allocs[a], (uint64_t)(1 + rand() % 2) * GPU_PAGE);
			if (dfd < 0) {
				ASSERT(dfd == -ENOENT, "export: %d", dfd);
				break;
			}
			rc = attach(fds[f], dfd, (uint64_t)(rand() % 3) * GPU_PAGE +
				    (rand() % 4 ? 0 : 4096), (uint64_t)(rand() % 3) * GPU_PAGE,
				    &dh);
			close(dfd);
			ASSERT(errno_in(rc, ok_attach), "attach: %d (op %llu)", rc,
			       (unsigned long long)ops);
			if (rc == 0) {
				memset(&handles[nh % FZ_HANDLES], 0, sizeof(handles[0]));
				handles[nh % FZ_HANDLES].handle = dh.handle;
				hfd[nh++ % FZ_HANDLES] = f;
				attaches_ok++;
			}
			break;
		case 11:	/* fault injection */
			memset(&fl, 0, sizeof(fl));
			if (rand() % 3 == 0) {
				fl.get_pages_err = rand() % 2 ? -ENOMEM : -EINVAL;
				fl.fail_count = (uint32_t)(rand() % 3);
				fl.page_4k = rand() % 4 == 0;
				fl.race_put = rand() % 3 == 0;
				fl.cb_thread = rand() % 3 == 0;
				fl.bad_version = rand() % 16 == 0;
				fl.map_err = rand() % 4 == 0 ? -EIO : 0;
			}
			ASSERT_RC(sim_set_fault(&fl), 0);
			break;
		default:	/* version */
			ASSERT_RC(gpudp_pin_version(fds[f], &(struct gpudp_pin_version){ 0 }), 0);
		}
	}
	for (i = 0; i < FZ_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	sim_reset_fault();
	for (i = 0; i < FZ_ALLOCS; i++)
		if (allocs[i])
			ASSERT_RC(sim_free(allocs[i]), 0);
	s1 = sim_stats();
	printf("    fuzz: %llu operations: %llu pins, %llu peer maps, %llu mmaps, %llu callbacks, "
	       "%llu dma-buf attachments, %llu move_notifies\n",
	       (unsigned long long)ops, (unsigned long long)pins_ok,
	       (unsigned long long)maps_ok, (unsigned long long)mmaps_ok,
	       (unsigned long long)(s1.callbacks - s0.callbacks),
	       (unsigned long long)attaches_ok,
	       (unsigned long long)(s1.move_notifies - s0.move_notifies));
	ASSERT(pins_ok > 0 && (secs < 2 || (maps_ok > 0 && mmaps_ok > 0 &&
					    attaches_ok > 0)),
	       "the fuzzer did not exercise the module");
	return expect_clean();
}

/* ---- dma-buf attachments (ATTACH_DMABUF) over the provider's export ---- */

/* Fake cuMemGetHandleForAddressRange: a dma-buf fd, or a negative errno. */
static int sim_export(uint64_t va, uint64_t len)
{
	struct nvp2p_sim_export e = { .va = va, .len = len };
	int rc = sim_ioctl(NVP2P_SIM_IOC_EXPORT_DMABUF, &e);

	return rc < 0 ? rc : e.fd;
}

/* Attach without a device: CPU physical addresses. */
static int attach(int fd, int dfd, uint64_t off, uint64_t len,
		  struct gpudp_pin_dmabuf *d)
{
	return gpudp_pin_attach_dmabuf(fd, dfd, off, len, -1, 0, 0, d);
}

/* The provider's own addresses of [va, va + len), through a PIN. */
static int provider_table(int fd, uint64_t va, uint64_t len, uint64_t *addrs,
			  uint32_t max)
{
	struct gpudp_pin_pin p;
	int rc = gpudp_pin_pin(fd, va, len, GPUDP_PIN_F_STRICT, &p);

	if (rc == 0)
		rc = gpudp_pin_get_table(fd, p.handle, addrs, max, NULL, NULL);
	gpudp_pin_unpin(fd, p.handle);
	return rc;
}

static int dmabuf_attach_table_matches_provider_pages(void)
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

static int dmabuf_attach_for_pci_device(void)
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

static int dmabuf_attach_bad_fd_is_ebadf(void)
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

static int dmabuf_attach_non_dmabuf_fd_is_ebadfd(void)
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

static int dmabuf_attach_range_and_argument_errors(void)
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

static int dmabuf_revoked_by_free_is_invalidated(void)
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

static int dmabuf_attach_revoked_or_failing_buffer(void)
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

static int dmabuf_unaligned_export_gives_4k_table(void)
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

static int dmabuf_close_without_detach_releases(void)
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

static int dmabuf_same_buffer_twice_gives_two_attachments(void)
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

static int dmabuf_process_exit_detaches(void)
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

static int race_dmabuf_revoke_vs_detach(void)
{
	return dmabuf_race_loop(0);
}

static int race_dmabuf_revoke_vs_close(void)
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
static int race_unpin_of_next_handle_vs_pin_and_attach(void)
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
			ASSERT(rc == 0 && p.handle == h + 1 && p.aligned_va == va &&
			       p.aligned_len == GPU_PAGE && p.offset == 4096,
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

/* ---- leak check, run after rmmod gpudp_pin ---- */

static int provider_has_nothing_outstanding(void)
{
	struct nvp2p_sim_stats s = sim_stats();

	ASSERT(s.allocs_live == 0, "%llu allocations left",
	       (unsigned long long)s.allocs_live);
	ASSERT(s.get_pages > 0, "no page table was ever handed out");
	ASSERT(s.dmabuf_maps > 0, "no dma-buf was ever mapped");
	return expect_clean();
}

static const struct gpudp_test_case cases[] = {
	{ "version_reports_abi_and_caps", version_reports_abi_and_caps },
	{ "device_node_is_0600", device_node_is_0600 },
	{ "ioctl_bad_user_pointer_is_efault", ioctl_bad_user_pointer_is_efault },
	{ "pin_rounds_unaligned_range", pin_rounds_unaligned_range },
	{ "pin_zero_length_is_einval", pin_zero_length_is_einval },
	{ "pin_strict_unaligned_is_einval", pin_strict_unaligned_is_einval },
	{ "pin_unknown_flags_or_pad_is_einval", pin_unknown_flags_or_pad_is_einval },
	{ "pin_wrapping_range_is_eoverflow", pin_wrapping_range_is_eoverflow },
	{ "pin_larger_than_cap_is_e2big", pin_larger_than_cap_is_e2big },
	{ "pin_beyond_cumulative_cap_is_enospc", pin_beyond_cumulative_cap_is_enospc },
	{ "pin_unknown_gpu_memory_is_einval", pin_unknown_gpu_memory_is_einval },
	{ "pin_provider_enomem_is_passed_through", pin_provider_enomem_is_passed_through },
	{ "pin_provider_einval_is_passed_through", pin_provider_einval_is_passed_through },
	{ "pin_incompatible_table_version_is_eproto", pin_incompatible_table_version_is_eproto },
	{ "unpin_unknown_handle_is_enoent", unpin_unknown_handle_is_enoent },
	{ "handle_of_other_file_is_enoent", handle_of_other_file_is_enoent },
	{ "get_table_sizes_and_addresses", get_table_sizes_and_addresses },
	{ "get_table_small_buffer_is_erange", get_table_small_buffer_is_erange },
	{ "get_table_addresses_need_capability", get_table_addresses_need_capability },
	{ "query_reports_valid_pin", query_reports_valid_pin },
	{ "mmap_cpu_writes_reach_gpu_memory", mmap_cpu_writes_reach_gpu_memory },
	{ "mmap_outside_pin_is_enxio", mmap_outside_pin_is_enxio },
	{ "mmap_private_is_einval", mmap_private_is_einval },
	{ "mapping_is_not_inherited_by_fork", mapping_is_not_inherited_by_fork },
	{ "free_while_pinned_revokes_and_sigbus", free_while_pinned_revokes_and_sigbus },
	{ "unpin_zaps_mapping_sigbus", unpin_zaps_mapping_sigbus },
	{ "persistent_pin_blocks_free", persistent_pin_blocks_free },
	{ "page_table_of_4k_pages", page_table_of_4k_pages },
	{ "map_peer_returns_bus_addresses", map_peer_returns_bus_addresses },
	{ "map_peer_errors", map_peer_errors },
	{ "free_while_peer_mapped_frees_dma_mapping", free_while_peer_mapped_frees_dma_mapping },
	{ "close_releases_all_pins", close_releases_all_pins },
	{ "put_pages_racing_callback_on_other_thread", put_pages_racing_callback_on_other_thread },
	{ "race_free_callback_vs_unpin", race_free_callback_vs_unpin },
	{ "race_free_callback_vs_close", race_free_callback_vs_close },
	{ "race_free_callback_on_worker_vs_unpin", race_free_callback_on_worker_vs_unpin },
	{ "race_free_callback_on_worker_vs_close", race_free_callback_on_worker_vs_close },
	{ "race_free_callback_vs_cpu_faults", race_free_callback_vs_cpu_faults },
	{ "race_two_unpins_of_one_handle", race_two_unpins_of_one_handle },
	{ "process_exit_releases_in_either_fd_order", process_exit_releases_in_either_fd_order },
	{ "dmabuf_attach_table_matches_provider_pages", dmabuf_attach_table_matches_provider_pages },
	{ "dmabuf_attach_for_pci_device", dmabuf_attach_for_pci_device },
	{ "dmabuf_attach_bad_fd_is_ebadf", dmabuf_attach_bad_fd_is_ebadf },
	{ "dmabuf_attach_non_dmabuf_fd_is_ebadfd", dmabuf_attach_non_dmabuf_fd_is_ebadfd },
	{ "dmabuf_attach_range_and_argument_errors", dmabuf_attach_range_and_argument_errors },
	{ "dmabuf_revoked_by_free_is_invalidated", dmabuf_revoked_by_free_is_invalidated },
	{ "dmabuf_attach_revoked_or_failing_buffer", dmabuf_attach_revoked_or_failing_buffer },
	{ "dmabuf_unaligned_export_gives_4k_table", dmabuf_unaligned_export_gives_4k_table },
	{ "dmabuf_close_without_detach_releases", dmabuf_close_without_detach_releases },
	{ "dmabuf_same_buffer_twice_gives_two_attachments", dmabuf_same_buffer_twice_gives_two_attachments },
	{ "dmabuf_process_exit_detaches", dmabuf_process_exit_detaches },
	{ "race_dmabuf_revoke_vs_detach", race_dmabuf_revoke_vs_detach },
	{ "race_dmabuf_revoke_vs_close", race_dmabuf_revoke_vs_close },
	{ "race_unpin_of_next_handle_vs_pin_and_attach", race_unpin_of_next_handle_vs_pin_and_attach },
	{ "fuzz_random_ioctl_sequences", fuzz_random_ioctl_sequences },
	{ NULL, NULL },
};

/* Run after gpudp_pin is unloaded: separate entry point. */
static const struct gpudp_test_case leak_cases[] = {
	{ "provider_has_nothing_outstanding", provider_has_nothing_outstanding },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_fd = open(NVP2P_SIM_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (sim_fd < 0) {
		perror(NVP2P_SIM_DEVICE_PATH);
		return 1;
	}
	install_sigbus_handler();
	srand((unsigned int)time(NULL));
	if (argc > 1 && strcmp(argv[1], "--leak-check") == 0)
		return gpudp_test_run("kmod", leak_cases, argc - 1, argv + 1);
	return gpudp_test_run("kmod", cases, argc, argv);
}
