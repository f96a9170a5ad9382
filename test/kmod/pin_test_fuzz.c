/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pin_test, the guest tests of gpudp_pin (pin_test.c, pin_test.h): random
 * ioctl sequences (GPUDP_FUZZ_SECONDS).
 */
#include "pin_test.h"

/* ---- fuzzer ---- */

#define FZ_ALLOCS 3
#define FZ_FDS 2
#define FZ_HANDLES 16

static int errno_in(int rc, const int *ok)
{
	for (; *ok != 1; ok++)
		if (rc == *ok)
			return 1;
	return 0;
}

int fuzz_random_ioctl_sequences(void)
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

	static const int ok_pin[] = { 0, -EINVAL, -EOVERFLOW, -E2BIG, -ENOSPC, -EOPNOTSUPP,
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
				fl.race_put = rand() % 3 == 0 ? 1 + (uint32_t)(rand() % 2) : 0;
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

