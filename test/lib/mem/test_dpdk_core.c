/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk suite runner: real EAL (no hugepages, no PCI), mempools and ethdev
 * on net_null vdevs. One DPDK-linked executable for the whole suite.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include <gpudp_mem.h>
#include <gpudp_test.h>
#include <gpudp_test_fs.h>
#include <gpudp_test_hostmem.h>

#define NB_MBUF 1024
#define BURST 32
#define EXT_ALIGN (64u << 10)	/* GPU page size, used for host pools too */

static int
eal_sees_vdevs(void)
{
	uint16_t n = rte_eth_dev_count_avail();

	GPUDP_TEST_ASSERT(n == 2, "%u ports, want net_null0 and net_null1", n);
	return GPUDP_TEST_PASS;
}

struct ext_region {
	void *addr;
	size_t len;
};

static int
ext_region_map(struct ext_region *r, size_t len)
{
	r->len = RTE_ALIGN_CEIL(len, EXT_ALIGN);
	r->addr = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->addr == MAP_FAILED)
		return -errno;
	return rte_extmem_register(r->addr, r->len, NULL, 0, 4096);
}

static void
ext_region_unmap(struct ext_region *r)
{
	munmap(r->addr, r->len);
}

static struct rte_mempool *
ext_pool(const char *name, struct ext_region *r, uint16_t room)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_ptr = r->addr,
		.buf_iova = RTE_BAD_IOVA,
		.buf_len = r->len,
		.elt_size = room,
	};

	return rte_pktmbuf_pool_create_extbuf(name, NB_MBUF, 0, 0, room,
					      SOCKET_ID_ANY, &ext, 1);
}

static int
in_region(const struct ext_region *r, const void *p)
{
	return (const char *)p >= (const char *)r->addr &&
	       (const char *)p < (const char *)r->addr + r->len;
}

/* Pool whose data rooms are in memory the app registered, torn down in
 * reverse order; rte_extmem_unregister must then succeed exactly once. */
static int
extbuf_pool_lives_in_registered_memory(void)
{
	struct rte_mbuf *m[NB_MBUF];
	struct ext_region r;
	struct rte_mempool *mp;
	unsigned int i, bad = 0;
	int rc;

	rc = ext_region_map(&r, (size_t)NB_MBUF * 2048);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_register: %s", strerror(rte_errno));
	mp = ext_pool("t_ext", &r, 2048);
	GPUDP_TEST_ASSERT(mp != NULL, "pool: %s", strerror(rte_errno));
	rc = rte_pktmbuf_alloc_bulk(mp, m, NB_MBUF);
	GPUDP_TEST_ASSERT(rc == 0, "could not take all %d mbufs", NB_MBUF);
	for (i = 0; i < NB_MBUF; i++) {
		bad += !in_region(&r, m[i]->buf_addr);
		bad += !RTE_MBUF_HAS_PINNED_EXTBUF(m[i]);
		/* each mbuf owns a distinct, full data room */
		bad += m[i]->buf_len != 2048;
	}
	rte_pktmbuf_free_bulk(m, NB_MBUF);
	GPUDP_TEST_ASSERT(bad == 0, "%u bad mbufs", bad);
	GPUDP_TEST_ASSERT(rte_mempool_avail_count(mp) == NB_MBUF, "leak: %u free",
			  rte_mempool_avail_count(mp));
	rte_mempool_free(mp);
	rc = rte_extmem_unregister(r.addr, r.len);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_unregister: %s", strerror(rte_errno));
	rc = rte_extmem_unregister(r.addr, r.len);
	GPUDP_TEST_ASSERT(rc < 0 && rte_errno == ENOENT, "second unregister: rc %d errno %d",
			  rc, rte_errno);
	ext_region_unmap(&r);
	return GPUDP_TEST_PASS;
}

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = {0};
	int rc;

	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static void
port_stop(uint16_t port)
{
	rte_eth_dev_stop(port);
}

/* net_null rx into an external-buffer pool, forward to the other port;
 * ethdev counters and the pool must balance. */
static int
null_ports_forward_from_extbuf_pool(void)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_eth_stats st0, st1;
	struct ext_region r;
	struct rte_mempool *mp;
	uint64_t rx = 0, tx = 0;
	uint16_t n, sent, i;
	int rc, it, outside = 0;

	rc = ext_region_map(&r, (size_t)NB_MBUF * 2048);
	GPUDP_TEST_ASSERT(rc == 0, "extmem_register: %s", strerror(rte_errno));
	mp = ext_pool("t_fwd", &r, 2048);
	GPUDP_TEST_ASSERT(mp != NULL, "pool: %s", strerror(rte_errno));
	GPUDP_TEST_ASSERT(port_start(0, mp) == 0, "port 0 start");
	GPUDP_TEST_ASSERT(port_start(1, mp) == 0, "port 1 start");
	rte_eth_stats_reset(0);
	rte_eth_stats_reset(1);
	for (it = 0; it < 1000; it++) {
		n = rte_eth_rx_burst(0, 0, pkts, BURST);
		rx += n;
		for (i = 0; i < n; i++)
			outside += !in_region(&r, pkts[i]->buf_addr);
		sent = rte_eth_tx_burst(1, 0, pkts, n);
		tx += sent;
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	rte_eth_stats_get(0, &st0);
	rte_eth_stats_get(1, &st1);
	port_stop(0);
	port_stop(1);
	GPUDP_TEST_ASSERT(rx == 1000 * BURST, "rx %" PRIu64, rx);
	GPUDP_TEST_ASSERT(outside == 0, "%d mbufs outside the external region", outside);
	GPUDP_TEST_ASSERT(st0.ipackets == rx, "port0 ipackets %" PRIu64 " rx %" PRIu64,
			  st0.ipackets, rx);
	GPUDP_TEST_ASSERT(st1.opackets == tx, "port1 opackets %" PRIu64 " tx %" PRIu64,
			  st1.opackets, tx);
	/* queues hold no mbufs after stop with net_null: all back in the pool */
	GPUDP_TEST_ASSERT(rte_mempool_avail_count(mp) == NB_MBUF, "%u of %d free",
			  rte_mempool_avail_count(mp), NB_MBUF);
	rte_mempool_free(mp);
	GPUDP_TEST_ASSERT(rte_extmem_unregister(r.addr, r.len) == 0, "unregister");
	ext_region_unmap(&r);
	return GPUDP_TEST_PASS;
}


/* ---- lib/mem pools ---- */

/* host_stand_in (gpudp_test_hostmem.h): the device-pool path without a GPU,
 * counting what is outstanding */
static struct gpudp_test_hostmem stand_in_mem;
static const struct gpudp_mem_allocator stand_in = GPUDP_TEST_HOSTMEM_ALLOCATOR(&stand_in_mem);

static const uint16_t both_ports[] = { 0, 1 };

static struct gpudp_pool_conf
pool_conf(const char *name, enum gpudp_mem_type type)
{
	return (struct gpudp_pool_conf){
		.name = name, .type = type, .gpu_id = 0, .ports = both_ports,
		.nb_ports = 2, .nb_mbufs = NB_MBUF, .data_room = 2048,
		.cache_size = 32, .socket_id = SOCKET_ID_ANY, .pin = GPUDP_PIN_PEERMEM,
	};
}

static int
host_pool_is_a_plain_pktmbuf_pool(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_host", GPUDP_MEM_HOST);
	struct gpudp_pool *p = gpudp_pool_create(&conf);
	struct gpudp_pool_info info;

	GPUDP_TEST_ASSERT(p != NULL, "create: %s", strerror(rte_errno));
	gpudp_pool_info_get(p, &info);
	GPUDP_TEST_ASSERT(info.gpu_bytes == 0 && info.chunks == 0, "gpu %zu chunks %u",
			  info.gpu_bytes, info.chunks);
	GPUDP_TEST_ASSERT(rte_pktmbuf_data_room_size(gpudp_pool_mempool(p)) == 2048,
			  "data room %u", rte_pktmbuf_data_room_size(gpudp_pool_mempool(p)));
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	return GPUDP_TEST_PASS;
}

static int
forward_burst(struct rte_mempool *mp, int iters, void **lo, void **hi, int *outside)
{
	struct rte_mbuf *pkts[BURST];
	int it, rx = 0;
	uint16_t n, i, sent;

	for (it = 0; it < iters; it++) {
		n = rte_eth_rx_burst(0, 0, pkts, BURST);
		rx += n;
		for (i = 0; i < n; i++) {
			if (pkts[i]->pool != mp || !RTE_MBUF_HAS_PINNED_EXTBUF(pkts[i]))
				(*outside)++;
			if (pkts[i]->buf_addr < *lo)
				*lo = pkts[i]->buf_addr;
			if (pkts[i]->buf_addr > *hi)
				*hi = pkts[i]->buf_addr;
		}
		sent = rte_eth_tx_burst(1, 0, pkts, n);
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	return rx;
}

/* Device pool over several chunks: registered, forwarded through
 * net_null, torn down with nothing left (allocations, extmem). */
static int
device_pool_chunks_forward_and_tear_down(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_dev", GPUDP_MEM_DEVICE);
	struct gpudp_pool_info info;
	struct gpudp_pool *p;
	struct rte_mempool *mp;
	void *lo = (void *)UINTPTR_MAX, *hi = NULL;
	int outside = 0, rx;
	double overhead;

	conf.alloc = &stand_in;
	conf.max_chunk = 256 << 10;
	stand_in_mem.live = 0;
	stand_in_mem.bytes = 0;
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p != NULL, "create: %s", strerror(rte_errno));
	gpudp_pool_info_get(p, &info);
	mp = gpudp_pool_mempool(p);
	/* 1024 x 2048 B = 2 MiB in 256 KiB chunks */
	GPUDP_TEST_ASSERT(info.chunks == 8 && stand_in_mem.live == 8, "chunks %u live %d",
			  info.chunks, stand_in_mem.live);
	GPUDP_TEST_ASSERT(info.gpu_bytes == stand_in_mem.bytes, "gpu_bytes %zu allocated %zu",
			  info.gpu_bytes, stand_in_mem.bytes);
	overhead = (double)(info.gpu_bytes - info.data_bytes) / (double)info.data_bytes;
	GPUDP_TEST_ASSERT(overhead < 0.01, "device memory overhead %.2f%%", overhead * 100);
	/* host memory per mbuf: the mbuf header and DPDK's external-buffer
	 * shared info (no private area), never a data room */
	GPUDP_TEST_ASSERT(mp->elt_size == sizeof(struct rte_mbuf) +
			  sizeof(struct rte_mbuf_ext_shared_info),
			  "mempool element %u B", mp->elt_size);
	printf("    device pool: %zu B device memory for %zu B of buffers (%.3f%% over), "
	       "%zu B host memory (%zu per mbuf), %u chunks, %u extmem segments\n",
	       info.gpu_bytes, info.data_bytes, overhead * 100, info.host_bytes,
	       info.host_bytes / NB_MBUF, info.chunks, info.extmem_segs);
	GPUDP_TEST_ASSERT(info.pin == GPUDP_PIN_PEERMEM, "backend %s",
			  gpudp_pin_backend_name(info.pin));
	GPUDP_TEST_ASSERT(port_start(0, mp) == 0 && port_start(1, mp) == 0, "ports");
	rx = forward_burst(mp, 200, &lo, &hi, &outside);
	port_stop(0);
	port_stop(1);
	GPUDP_TEST_ASSERT(rx == 200 * BURST && outside == 0, "rx %d outside %d", rx, outside);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	GPUDP_TEST_ASSERT(stand_in_mem.live == 0, "%d device allocations leaked", stand_in_mem.live);
	/* extmem was unregistered by destroy: nothing is registered there now */
	GPUDP_TEST_ASSERT(rte_mem_virt2memseg_list(lo) == NULL, "extmem left behind at %p", lo);
	return GPUDP_TEST_PASS;
}

/*
 * The documented order, ports closed and then the pool destroyed, unmaps
 * through the devices found at creation: no ethdev lookup of a port that
 * is gone (before, each unmap asked ethdev for the closed port, was told
 * "Invalid port_id" and skipped the unmap). A fresh vdev, so that the
 * shared ports 0 and 1 stay open for the other cases.
 */
static int
pool_destroyed_after_its_port_closed_unmaps_quietly(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_closed", GPUDP_MEM_DEVICE);
	char *log = NULL;
	size_t log_len = 0;
	FILE *f;
	struct gpudp_pool *p;
	uint16_t port;
	int rc;

	GPUDP_TEST_ASSERT(rte_dev_probe("net_null_closed") == 0, "probe a vdev");
	GPUDP_TEST_ASSERT(rte_eth_dev_get_port_by_name("net_null_closed", &port) == 0,
			  "its port");
	conf.ports = &port;
	conf.nb_ports = 1;
	conf.alloc = &stand_in;
	stand_in_mem.live = 0;
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p != NULL, "create: %s", strerror(rte_errno));
	GPUDP_TEST_ASSERT(port_start(port, gpudp_pool_mempool(p)) == 0, "port start");
	port_stop(port);
	GPUDP_TEST_ASSERT(rte_eth_dev_close(port) == 0, "close");
	f = open_memstream(&log, &log_len);
	GPUDP_TEST_ASSERT(f != NULL, "open_memstream");
	rte_openlog_stream(f);
	rc = gpudp_pool_destroy(p);
	rte_openlog_stream(NULL);
	fclose(f);
	GPUDP_TEST_ASSERT(rc == 0 && stand_in_mem.live == 0, "destroy %d, %d allocations left",
			  rc, stand_in_mem.live);
	GPUDP_TEST_ASSERT(log_len == 0, "destroy logged: %s", log);
	free(log);
	GPUDP_TEST_ASSERT(rte_vdev_uninit("net_null_closed") == 0, "remove the vdev");
	/* a pool for a port that does not exist fails at creation, naming it */
	conf.name = "t_noport";
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p == NULL && rte_errno == ENODEV, "pool on a removed port: %s",
			  p == NULL ? strerror(rte_errno) : "created");
	return GPUDP_TEST_PASS;
}

static int
destroy_with_mbufs_out_is_ebusy(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_busy", GPUDP_MEM_DEVICE);
	struct gpudp_pool *p;
	struct rte_mbuf *m;

	conf.alloc = &stand_in;
	conf.nb_ports = 0;
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p != NULL, "create: %s", strerror(rte_errno));
	m = rte_pktmbuf_alloc(gpudp_pool_mempool(p));
	GPUDP_TEST_ASSERT(m != NULL, "alloc");
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == -EBUSY, "destroyed with an mbuf out");
	rte_pktmbuf_free(m);
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	GPUDP_TEST_ASSERT(stand_in_mem.live == 0, "%d leaked", stand_in_mem.live);
	return GPUDP_TEST_PASS;
}

static int
device_alloc_failure_is_enomem_and_clean(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_oom", GPUDP_MEM_DEVICE);

	conf.alloc = &stand_in;
	conf.nb_ports = 0;
	conf.nb_mbufs = UINT32_MAX / 2;   /* ~8 TiB: no allocator has that */
	conf.max_chunk = (size_t)1 << 62;
	GPUDP_TEST_ASSERT(gpudp_pool_create(&conf) == NULL, "created");
	GPUDP_TEST_ASSERT(rte_errno == ENOMEM, "rte_errno %d", rte_errno);
	GPUDP_TEST_ASSERT(stand_in_mem.live == 0, "%d leaked", stand_in_mem.live);
	return GPUDP_TEST_PASS;
}

/* SPLIT: header pool in host memory, payload pool in (stand-in) device
 * memory; net_null cannot split buffers, so rx setup says so. */
static int
split_pool_has_host_headers_and_device_payload(void)
{
	struct gpudp_pool_conf conf = pool_conf("t_split", GPUDP_MEM_SPLIT);
	struct gpudp_pool_info info;
	struct gpudp_pool *p;
	struct rte_mempool *h, *d;
	struct rte_eth_conf ec = {0};

	conf.alloc = &stand_in;
	conf.hdr_len = 64;
	p = gpudp_pool_create(&conf);
	GPUDP_TEST_ASSERT(p != NULL, "create: %s", strerror(rte_errno));
	h = gpudp_pool_header_mempool(p);
	d = gpudp_pool_mempool(p);
	gpudp_pool_info_get(p, &info);
	GPUDP_TEST_ASSERT(h != NULL && d != NULL && h != d, "pools %p %p", (void *)h, (void *)d);
	GPUDP_TEST_ASSERT(rte_pktmbuf_data_room_size(h) == RTE_PKTMBUF_HEADROOM + 64,
			  "header room %u", rte_pktmbuf_data_room_size(h));
	GPUDP_TEST_ASSERT(info.gpu_bytes >= info.data_bytes && stand_in_mem.live > 0,
			  "payload not in device memory: %zu B", info.gpu_bytes);
	GPUDP_TEST_ASSERT(rte_eth_dev_configure(0, 1, 1, &ec) == 0, "configure");
	GPUDP_TEST_ASSERT(gpudp_pool_rx_queue_setup(p, 0, 0, 256, SOCKET_ID_ANY) == -ENOTSUP,
			  "net_null accepted a buffer split");
	GPUDP_TEST_ASSERT(gpudp_pool_destroy(p) == 0, "destroy");
	GPUDP_TEST_ASSERT(stand_in_mem.live == 0, "%d leaked", stand_in_mem.live);
	return GPUDP_TEST_PASS;
}

static int
bad_pool_configs_are_rejected(void)
{
	struct gpudp_pool_conf c;

#define REJECT(field_change, err) do { \
		c = pool_conf("t_bad", GPUDP_MEM_DEVICE); \
		c.alloc = &stand_in; \
		field_change; \
		GPUDP_TEST_ASSERT(gpudp_pool_create(&c) == NULL && rte_errno == (err), \
				  "%s: rte_errno %d", #field_change, rte_errno); \
	} while (0)
	REJECT(c.nb_mbufs = 0, EINVAL);
	REJECT(c.data_room = 64, EINVAL);
	REJECT(c.cache_size = 100000, EINVAL);
	REJECT(c.name = "", EINVAL);
	REJECT(c.max_chunk = 4096, EINVAL);
	REJECT(c.pin = GPUDP_PIN_DMABUF, ENOTSUP);
	/* no gpudp_pin module here */
	REJECT(c.pin = GPUDP_PIN_KMOD, ENOTSUP);
	/* gpudev allocator and pinned memory need a GPU: none here */
	REJECT(c.alloc = NULL, ENODEV);
	REJECT(c.type = GPUDP_MEM_PINNED, ENODEV);
	REJECT((c.type = GPUDP_MEM_SPLIT, c.hdr_len = 5000), EINVAL);
#undef REJECT
	GPUDP_TEST_ASSERT(stand_in_mem.live == 0, "%d leaked", stand_in_mem.live);
	return GPUDP_TEST_PASS;
}

static int
mem_names_parse_both_ways(void)
{
	enum gpudp_mem_type t;
	enum gpudp_pin_backend b;

	GPUDP_TEST_ASSERT(gpudp_mem_type_parse("device", &t) == 0 && t == GPUDP_MEM_DEVICE, "device");
	GPUDP_TEST_ASSERT(gpudp_mem_type_parse("gpu", &t) == -EINVAL, "gpu accepted");
	GPUDP_TEST_ASSERT(gpudp_mem_type_parse("split", &t) == 0 && t == GPUDP_MEM_SPLIT, "split");
	GPUDP_TEST_ASSERT(gpudp_pin_backend_parse("kmod", &b) == 0 && b == GPUDP_PIN_KMOD, "kmod");
	GPUDP_TEST_ASSERT(gpudp_pin_backend_parse(NULL, &b) == -EINVAL, "NULL accepted");
	GPUDP_TEST_ASSERT(strcmp(gpudp_pin_backend_name(GPUDP_PIN_PEERMEM), "peermem") == 0,
			  "name");
	return GPUDP_TEST_PASS;
}

/* ---- deployment checks over a fake sysfs tree ---- */

static char sysroot[] = "/tmp/gpudp-sysfs-XXXXXX";

/* a PCI device at sysfs path devices/<chain>/<bdf>, linked from bus/pci/devices */
static int
fake_pci(const char *chain, const char *bdf, const char *iommu_type)
{
	char dev[512], link[512], grp[512], f[600];
	FILE *fp;

	snprintf(dev, sizeof(dev), "%s/devices/%s/%s", sysroot, chain, bdf);
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", sysroot, bdf);
	if (gpudp_test_mkpath(dev) != 0 || gpudp_test_mkpath(sysroot) != 0)
		return -1;
	snprintf(f, sizeof(f), "%s/bus/pci/devices", sysroot);
	gpudp_test_mkpath(f);
	if (symlink(dev, link) != 0)
		return -1;
	if (iommu_type != NULL) {
		snprintf(grp, sizeof(grp), "%s/kernel/iommu_groups/%s", sysroot, bdf);
		gpudp_test_mkpath(grp);
		snprintf(f, sizeof(f), "%s/type", grp);
		fp = fopen(f, "w");
		if (fp == NULL)
			return -1;
		fprintf(fp, "%s\n", iommu_type);
		fclose(fp);
		snprintf(f, sizeof(f), "%s/iommu_group", dev);
		if (symlink(grp, f) != 0)
			return -1;
	}
	return 0;
}

struct findings {
	int fail, warn, ok, skip;
	char last_fail[512];
};

static void
collect(enum gpudp_check_level lvl, const char *check, const char *msg, void *arg)
{
	struct findings *f = arg;

	printf("    [%s] %s: %s\n", gpudp_check_level_name(lvl), check, msg);
	if (lvl == GPUDP_CHECK_FAIL) {
		f->fail++;
		snprintf(f->last_fail, sizeof(f->last_fail), "%s", msg);
	}
	f->warn += lvl == GPUDP_CHECK_WARN;
	f->ok += lvl == GPUDP_CHECK_OK;
	f->skip += lvl == GPUDP_CHECK_SKIP;
}

static int
pcie_placement_is_classified(void)
{
	const char *sw = "pci0000:00/0000:00:01.0/0000:01:00.0";

	GPUDP_TEST_ASSERT(mkdtemp(sysroot) != NULL, "mkdtemp");
	setenv("GPUDP_SYSFS_ROOT", sysroot, 1);
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0",
				   "0000:03:00.0", "DMA") == 0, "gpu");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0",
				   "0000:04:00.0", "identity") == 0, "nic under the switch");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:02.0", "0000:05:00.0", NULL) == 0,
			  "nic on another root port");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:80/0000:80:01.0", "0000:81:00.0", NULL) == 0,
			  "nic on another root complex");
	(void)sw;
	GPUDP_TEST_ASSERT(gpudp_mem_pcie_affinity("0000:03:00.0", "0000:04:00.0") == 2,
			  "same switch: %d", gpudp_mem_pcie_affinity("0000:03:00.0", "0000:04:00.0"));
	GPUDP_TEST_ASSERT(gpudp_mem_pcie_affinity("0000:03:00.0", "0000:05:00.0") == 1,
			  "root complex: %d", gpudp_mem_pcie_affinity("0000:03:00.0", "0000:05:00.0"));
	GPUDP_TEST_ASSERT(gpudp_mem_pcie_affinity("0000:03:00.0", "0000:81:00.0") == 0,
			  "other socket: %d", gpudp_mem_pcie_affinity("0000:03:00.0", "0000:81:00.0"));
	GPUDP_TEST_ASSERT(gpudp_mem_pcie_affinity("0000:03:00.0", "0000:99:00.0") == -1,
			  "unknown device");
	return GPUDP_TEST_PASS;
}

static int
iommu_translation_fails_kmod_backend(void)
{
	struct findings f = {0};
	const uint16_t port0 = 0;
	int fails;

	GPUDP_TEST_SKIP_IF(getenv("GPUDP_SYSFS_ROOT") == NULL, "needs pcie_placement_is_classified");
	setenv("GPUDP_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	/* the GPU's IOMMU group translates ("DMA"): kmod's physical addresses break */
	fails = gpudp_mem_check("0000:03:00.0", &port0, 1, 1 << 20, GPUDP_PIN_KMOD, collect, &f);
	GPUDP_TEST_ASSERT(fails == 1 && f.fail == 1, "fails %d", fails);
	GPUDP_TEST_ASSERT(strstr(f.last_fail, "iommu=pt") != NULL, "advice missing: %s",
			  f.last_fail);
	/* BAR1 (no NVML) and the net_null port's placement cannot be checked */
	GPUDP_TEST_ASSERT(f.skip == 2, "skips %d", f.skip);
	memset(&f, 0, sizeof(f));
	fails = gpudp_mem_check("0000:03:00.0", &port0, 1, 1 << 20, GPUDP_PIN_PEERMEM,
				collect, &f);
	GPUDP_TEST_ASSERT(fails == 0 && f.warn == 1, "peermem: fails %d warns %d", fails, f.warn);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "eal_sees_vdevs", eal_sees_vdevs },
	{ "extbuf_pool_lives_in_registered_memory", extbuf_pool_lives_in_registered_memory },
	{ "null_ports_forward_from_extbuf_pool", null_ports_forward_from_extbuf_pool },
	{ "host_pool_is_a_plain_pktmbuf_pool", host_pool_is_a_plain_pktmbuf_pool },
	{ "device_pool_chunks_forward_and_tear_down", device_pool_chunks_forward_and_tear_down },
	{ "destroy_with_mbufs_out_is_ebusy", destroy_with_mbufs_out_is_ebusy },
	{ "pool_destroyed_after_its_port_closed_unmaps_quietly",
	  pool_destroyed_after_its_port_closed_unmaps_quietly },
	{ "device_alloc_failure_is_enomem_and_clean", device_alloc_failure_is_enomem_and_clean },
	{ "split_pool_has_host_headers_and_device_payload",
	  split_pool_has_host_headers_and_device_payload },
	{ "bad_pool_configs_are_rejected", bad_pool_configs_are_rejected },
	{ "mem_names_parse_both_ways", mem_names_parse_both_ways },
	{ "pcie_placement_is_classified", pcie_placement_is_classified },
	{ "iommu_translation_fails_kmod_backend", iommu_translation_fails_kmod_backend },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char *eal_argv[] = {
		argv[0], "-l", "0", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--log-level=*:warning",
		"--vdev", "net_null0", "--vdev", "net_null1", NULL,
	};
	int rc;

	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", strerror(rte_errno));
		return 1;
	}
	rc = gpudp_test_run("dpdk", cases, argc, argv);
	if (strcmp(sysroot + strlen(sysroot) - 6, "XXXXXX") != 0) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysroot);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", sysroot);
	}
	rte_eal_cleanup();
	return rc;
}
