/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to pin_test, the guest tests of gpudp_pin against nvidia_p2p_sim
 * (test/kmod): the fixture of pin_test.c (the provider's control file, the
 * check every case ends with, SIGBUS probing, dma-buf exports), then the
 * cases, one file per behaviour family:
 *   pin_test_ioctl.c   version, PIN argument checks, handles, GET_TABLE, QUERY
 *   pin_test_map.c     mmap, revocation by the free callback, peer maps, lifetime
 *   pin_test_race.c    races looped GPUDP_RACE_LOOPS times, process exit
 *   pin_test_fuzz.c    random ioctl sequences (GPUDP_FUZZ_SECONDS)
 *   pin_test_dmabuf.c  ATTACH_DMABUF on the provider's dma-buf exports, races
 */
#ifndef PIN_TEST_H
#define PIN_TEST_H

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

/* ---- fixture (pin_test.c) ---- */

extern int sim_fd;	/* nvidia_p2p_sim's control file */
/*
 * The NV-P2P API both modules were built for, from GPUDP_PIN_CAP_TEGRA
 * (and the provider's own word for it, which must agree): 1 for Tegra.
 * pin_page is the unit PIN rounds to and tables count in (64 KiB, Tegra
 * 4 KiB); pin_persistent is GPUDP_PIN_F_PERSISTENT where the API has
 * persistent pins, else 0 (for cases that mix both kinds).
 */
extern int tegra;
extern uint64_t pin_page;
extern uint32_t pin_persistent;

/* provider control: the simulator's ioctls, 0 or a negative errno */
int sim_ioctl(unsigned long cmd, void *arg);
uint64_t sim_alloc(uint64_t size);	/* its cudaMalloc: a GPU VA, 0 on error */
int sim_free(uint64_t va);		/* its cudaFree: fires the free callback */
int sim_peek(uint64_t va, uint64_t *val);
int sim_poke(uint64_t va, uint64_t val);
int sim_set_fault(const struct nvp2p_sim_fault *f);
int sim_reset_fault(void);
struct nvp2p_sim_stats sim_stats(void);
/* Every case ends here: nothing outstanding, no contract violation. */
int expect_clean(void);
int set_cap(uint64_t bytes);		/* gpudp_pin's max_pinned_bytes */
long env_long(const char *name, long def);
/* Write then read *p; returns 0 on success, the signal number if any. */
int probe_rw(volatile uint64_t *p, uint64_t val, uint64_t *readback);
int open_pin(void);
/* First PCI function in the guest, as domain/bus/devfn. */
int first_pci_dev(uint32_t *dom, uint8_t *bus, uint8_t *devfn);
/* Run fn(fd, handle) as uid 65534 (no capabilities); 0 when it passed. */
int as_unprivileged(int fd, uint64_t handle,
		    int (*fn)(int fd, uint64_t handle));
void spin(unsigned int n);
/* Fake cuMemGetHandleForAddressRange: a dma-buf fd, or a negative errno. */
int sim_export(uint64_t va, uint64_t len);
/* Attach without a device: CPU physical addresses. */
int attach(int fd, int dfd, uint64_t off, uint64_t len,
	   struct gpudp_pin_dmabuf *d);
/* The provider's own addresses of [va, va + len), through a PIN. */
int provider_table(int fd, uint64_t va, uint64_t len, uint64_t *addrs,
		   uint32_t max);

/* ---- cases of pin_test_ioctl.c ---- */

int version_reports_abi_and_caps(void);
int device_node_is_0600(void);
int ioctl_bad_user_pointer_is_efault(void);
int pin_rounds_unaligned_range(void);
int pin_zero_length_is_einval(void);
int pin_strict_unaligned_is_einval(void);
int pin_unknown_flags_or_pad_is_einval(void);
int pin_wrapping_range_is_eoverflow(void);
int pin_larger_than_cap_is_e2big(void);
int pin_beyond_cumulative_cap_is_enospc(void);
int pin_unknown_gpu_memory_is_einval(void);
int pin_provider_enomem_is_passed_through(void);
int pin_provider_einval_is_passed_through(void);
int pin_incompatible_table_version_is_eproto(void);
int pin_granularity_follows_api(void);
int unpin_unknown_handle_is_enoent(void);
int handle_of_other_file_is_enoent(void);
int get_table_sizes_and_addresses(void);
int get_table_small_buffer_is_erange(void);
int get_table_addresses_need_capability(void);
int query_reports_valid_pin(void);

/* ---- cases of pin_test_map.c ---- */

int mmap_cpu_writes_reach_gpu_memory(void);
int mmap_outside_pin_is_enxio(void);
int mmap_private_is_einval(void);
int mapping_is_not_inherited_by_fork(void);
int free_while_pinned_revokes_and_sigbus(void);
int unpin_zaps_mapping_sigbus(void);
int persistent_pin_blocks_free(void);
int page_table_of_4k_pages(void);
int map_peer_returns_bus_addresses(void);
int map_peer_errors(void);
int free_while_peer_mapped_frees_dma_mapping(void);
int close_releases_all_pins(void);
int put_pages_racing_callback_on_other_thread(void);
int revocation_just_before_put_pages(void);
int unpin_runs_callback_from_put_pages_on_tegra(void);
int mmap_caching_follows_allocation(void);

/* ---- cases of pin_test_race.c ---- */

int race_free_callback_vs_unpin(void);
int race_free_callback_vs_close(void);
int race_free_callback_on_worker_vs_unpin(void);
int race_free_callback_on_worker_vs_close(void);
int race_free_callback_vs_cpu_faults(void);
int race_two_unpins_of_one_handle(void);
int process_exit_releases_in_either_fd_order(void);

/* ---- cases of pin_test_fuzz.c ---- */

int fuzz_random_ioctl_sequences(void);

/* ---- cases of pin_test_dmabuf.c ---- */

int dmabuf_attach_table_matches_provider_pages(void);
int dmabuf_attach_for_pci_device(void);
int dmabuf_attach_bad_fd_is_ebadf(void);
int dmabuf_attach_non_dmabuf_fd_is_ebadfd(void);
int dmabuf_attach_range_and_argument_errors(void);
int dmabuf_revoked_by_free_is_invalidated(void);
int dmabuf_attach_revoked_or_failing_buffer(void);
int dmabuf_unaligned_export_gives_4k_table(void);
int dmabuf_close_without_detach_releases(void);
int dmabuf_same_buffer_twice_gives_two_attachments(void);
int dmabuf_process_exit_detaches(void);
int race_dmabuf_revoke_vs_detach(void);
int race_dmabuf_revoke_vs_close(void);
int race_unpin_of_next_handle_vs_pin_and_attach(void);

#endif /* PIN_TEST_H */
