/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest tests of the gpudp_pin module against the nvidia_p2p_sim provider.
 * Runs as root inside the QEMU guest (test/kmod/init.sh), static binary.
 * One behaviour per case; every case ends by checking that the provider has
 * no outstanding page table or DMA mapping and saw no API violation.
 *
 * Environment: GPUDP_RACE_LOOPS (default 2000), GPUDP_FUZZ_SECONDS
 * (default 3), GPUDP_FUZZ_SEED (default: time).
 *
 * This file: the fixture, the table of cases and main(); the cases are in
 * pin_test_*.c, one file per behaviour family (pin_test.h).
 */
#include "pin_test.h"

int sim_fd = -1;
int tegra;
uint64_t pin_page = GPU_PAGE;
uint32_t pin_persistent = GPUDP_PIN_F_PERSISTENT;

/* ---- provider control ---- */

int sim_ioctl(unsigned long cmd, void *arg)
{
	return ioctl(sim_fd, cmd, arg) < 0 ? -errno : 0;
}

uint64_t sim_alloc(uint64_t size)
{
	struct nvp2p_sim_alloc a = { .size = size };

	if (sim_ioctl(NVP2P_SIM_IOC_ALLOC, &a) < 0)
		return 0;
	return a.va;
}

int sim_free(uint64_t va)
{
	struct nvp2p_sim_va v = { .va = va };

	return sim_ioctl(NVP2P_SIM_IOC_FREE, &v);
}

int sim_peek(uint64_t va, uint64_t *val)
{
	struct nvp2p_sim_word w = { .va = va };
	int rc = sim_ioctl(NVP2P_SIM_IOC_PEEK, &w);

	*val = w.value;
	return rc;
}

int sim_poke(uint64_t va, uint64_t val)
{
	struct nvp2p_sim_word w = { .va = va, .value = val };

	return sim_ioctl(NVP2P_SIM_IOC_POKE, &w);
}

int sim_set_fault(const struct nvp2p_sim_fault *f)
{
	return sim_ioctl(NVP2P_SIM_IOC_FAULT, (void *)f);
}

int sim_reset_fault(void)
{
	struct nvp2p_sim_fault f = { 0 };

	return sim_set_fault(&f);
}

struct nvp2p_sim_stats sim_stats(void)
{
	struct nvp2p_sim_stats s;

	memset(&s, 0xff, sizeof(s));
	sim_ioctl(NVP2P_SIM_IOC_STATS, &s);
	return s;
}

/* Every case ends here: nothing outstanding, no contract violation. */
int expect_clean(void)
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

int set_cap(uint64_t bytes)
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

long env_long(const char *name, long def)
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
int probe_rw(volatile uint64_t *p, uint64_t val, uint64_t *readback)
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

int open_pin(void)
{
	return gpudp_pin_open(NULL);
}

/* First PCI function in the guest, as domain/bus/devfn. */
int first_pci_dev(uint32_t *dom, uint8_t *bus, uint8_t *devfn)
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

/* Run fn(fd, handle) as uid 65534 (no capabilities); 0 when it passed. */
int as_unprivileged(int fd, uint64_t handle,
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

void spin(unsigned int n)
{
	volatile unsigned int i;

	for (i = 0; i < n; i++)
		;
}


/* Fake cuMemGetHandleForAddressRange: a dma-buf fd, or a negative errno. */
int sim_export(uint64_t va, uint64_t len)
{
	struct nvp2p_sim_export e = { .va = va, .len = len };
	int rc = sim_ioctl(NVP2P_SIM_IOC_EXPORT_DMABUF, &e);

	return rc < 0 ? rc : e.fd;
}

/* Attach without a device: CPU physical addresses. */
int attach(int fd, int dfd, uint64_t off, uint64_t len,
		  struct gpudp_pin_dmabuf *d)
{
	return gpudp_pin_attach_dmabuf(fd, dfd, off, len, -1, 0, 0, d);
}

/*
 * The provider's own addresses of [va, va + len), through a PIN: one per
 * 64 KiB GPU page (the first of its pin pages where those are smaller).
 */
int provider_table(int fd, uint64_t va, uint64_t len, uint64_t *addrs,
			  uint32_t max)
{
	uint32_t per = (uint32_t)(GPU_PAGE / pin_page), i;
	uint64_t *all = calloc((size_t)max * per, sizeof(*all));
	struct gpudp_pin_pin p;
	int rc = all ? gpudp_pin_pin(fd, va, len, GPUDP_PIN_F_STRICT, &p) : -ENOMEM;

	if (rc == 0) {
		rc = gpudp_pin_get_table(fd, p.handle, all, max * per, NULL, NULL);
		gpudp_pin_unpin(fd, p.handle);
	}
	for (i = 0; rc == 0 && i < max; i++)
		addrs[i] = all[(size_t)i * per];
	free(all);
	return rc;
}

/* Which API the modules were built for (tegra, pin_page, pin_persistent). */
static int find_personality(void)
{
	struct gpudp_pin_version v;
	struct nvp2p_sim_stats s = sim_stats();
	int fd = open_pin(), rc;

	if (fd < 0)
		return fd;
	rc = gpudp_pin_version(fd, &v);
	close(fd);
	if (rc < 0)
		return rc;
	tegra = (v.caps & GPUDP_PIN_CAP_TEGRA) != 0;
	if ((uint64_t)tegra != s.tegra) {
		fprintf(stderr, "gpudp_pin says tegra=%d, nvidia_p2p_sim %llu: built for different APIs\n",
			tegra, (unsigned long long)s.tegra);
		return -EPROTO;
	}
	if (tegra) {
		pin_page = GPUDP_PIN_TEGRA_PAGE_SIZE;
		pin_persistent = 0;
	}
	printf("# NV-P2P API: %s (pins in %llu KiB pages)\n",
	       tegra ? "Tegra" : "desktop", (unsigned long long)(pin_page / KIB));
	return 0;
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
	{ "pin_granularity_follows_api", pin_granularity_follows_api },
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
	{ "revocation_just_before_put_pages", revocation_just_before_put_pages },
	{ "unpin_runs_callback_from_put_pages_on_tegra", unpin_runs_callback_from_put_pages_on_tegra },
	{ "mmap_caching_follows_allocation", mmap_caching_follows_allocation },
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
	if (find_personality() < 0)
		return 1;
	return gpudp_test_run("kmod", cases, argc, argv);
}
