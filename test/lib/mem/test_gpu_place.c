/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU per port (lib/mem/gpudp_mem_place.c): gpudp_mem_gpu_place() on
 * made-up sysfs trees ($GPUDP_SYSFS_ROOT, a fresh temporary directory per
 * case, as test_dpdk.c's pcie_placement_is_classified builds them) and the
 * --gpu-map parser. No EAL, but lib/mem links DPDK: suite dpdk.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include <gpudp_mem.h>
#include <gpudp_test.h>
#include <gpudp_test_fs.h>

#define MAX_ROOTS 16

static char roots[MAX_ROOTS][64];
static unsigned int nb_roots;
static const char *root;

/* a fresh, empty sysfs root for this case */
static int
new_root(void)
{
	char *r;

	if (nb_roots == MAX_ROOTS)
		return -1;
	r = roots[nb_roots];
	snprintf(r, sizeof(roots[0]), "/tmp/gpudp-place-XXXXXX");
	if (mkdtemp(r) == NULL)
		return -1;
	nb_roots++;
	root = r;
	return setenv("GPUDP_SYSFS_ROOT", r, 1);
}

/*
 * A PCI device at devices/<chain>/<bdf>, linked from bus/pci/devices; its
 * numa_node file holds @p numa (none written when numa < -1).
 */
static int
fake_pci(const char *chain, const char *bdf, int numa)
{
	char dev[512], link[512], f[600];
	FILE *fp;

	snprintf(dev, sizeof(dev), "%s/devices/%s/%s", root, chain, bdf);
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", root, bdf);
	snprintf(f, sizeof(f), "%s/bus/pci/devices", root);
	if (gpudp_test_mkpath(dev) != 0 || gpudp_test_mkpath(f) != 0 || symlink(dev, link) != 0)
		return -1;
	if (numa < -1)
		return 0;
	snprintf(f, sizeof(f), "%s/numa_node", dev);
	fp = fopen(f, "w");
	if (fp == NULL)
		return -1;
	fprintf(fp, "%d\n", numa);
	return fclose(fp) == 0 ? 0 : -1;
}

static void
show(const char *const *ports, unsigned int n, const struct gpudp_gpu_place *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("    port %s -> GPU %u [%s]: %s\n", ports[i], out[i].gpu,
		       gpudp_gpu_place_level_name(out[i].level), out[i].reason);
}

/* two switches on one root complex, a GPU and a NIC below each */
static int
place_nic_gets_the_gpu_of_its_switch(void)
{
	const char *gpus[] = { "0000:03:00.0", "0000:07:00.0" };
	/* listed crosswise: the first port is below the second GPU's switch */
	const char *ports[] = { "0000:08:00.0", "0000:04:00.0" };
	struct gpudp_gpu_place out[2];
	int rc, i;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0",
				   gpus[0], 0) == 0, "gpu 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0",
				   ports[1], 0) == 0, "nic 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:02.0/0000:05:00.0/0000:06:00.0",
				   gpus[1], 0) == 0, "gpu 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:02.0/0000:05:00.0/0000:06:01.0",
				   ports[0], 0) == 0, "nic 0");
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[1].gpu == 0, "gpus %u %u",
			  out[0].gpu, out[1].gpu);
	for (i = 0; i < 2; i++) {
		GPUDP_TEST_ASSERT(out[i].level == GPUDP_GPU_PLACE_SWITCH, "port %d level %d",
				  i, out[i].level);
		GPUDP_TEST_ASSERT(out[i].hops == 4 && out[i].tied == 1,
				  "port %d: hops %d tied %u", i, out[i].hops, out[i].tied);
		GPUDP_TEST_ASSERT(out[i].port_numa == 0 && out[i].gpu_numa == 0, "numa %d %d",
				  out[i].port_numa, out[i].gpu_numa);
	}
	GPUDP_TEST_ASSERT(strstr(out[1].reason, "below root port 0000:00:01.0") != NULL &&
			  strstr(out[1].reason, "0000:04:00.0 > 0000:02:01.0 > 0000:01:00.0 < "
				 "0000:02:00.0 < 0000:03:00.0") != NULL,
			  "reason: %s", out[1].reason);
	GPUDP_TEST_ASSERT(strstr(out[0].reason, "0000:08:00.0 > 0000:06:01.0 > 0000:05:00.0 < "
				 "0000:06:00.0 < 0000:07:00.0") != NULL,
			  "reason: %s", out[0].reason);
	/* the other pairs meet at the root complex only: the same sysfs reading */
	GPUDP_TEST_ASSERT(gpudp_mem_pcie_affinity(ports[0], gpus[0]) == 1, "affinity");
	return GPUDP_TEST_PASS;
}

/*
 * A NIC on a root port of its own; one GPU on another root port of the
 * same complex, one on the other socket (listed first). Two such ports:
 * both go to the same complex's GPU, the idle one on the other socket
 * notwithstanding (closeness before load).
 */
static int
place_same_root_complex_beats_other_socket(void)
{
	const char *gpus[] = { "0000:81:00.0", "0000:11:00.0" };
	const char *ports[] = { "0000:10:00.0", "0000:12:00.0" };
	struct gpudp_gpu_place out[2];
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:80/0000:80:01.0", gpus[0], 1) == 0, "gpu 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0", gpus[1], 0) == 0, "gpu 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:03.0", ports[0], 0) == 0, "nic 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:04.0", ports[1], 0) == 0, "nic 1");
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[1].gpu == 1, "gpus %u %u",
			  out[0].gpu, out[1].gpu);
	GPUDP_TEST_ASSERT(out[0].level == GPUDP_GPU_PLACE_ROOT &&
			  out[1].level == GPUDP_GPU_PLACE_ROOT, "levels %d %d",
			  out[0].level, out[1].level);
	GPUDP_TEST_ASSERT(out[0].hops == 4 && out[0].tied == 1, "hops %d tied %u",
			  out[0].hops, out[0].tied);
	GPUDP_TEST_ASSERT(strstr(out[0].reason, "root complex") != NULL &&
			  strstr(out[0].reason, "0000:10:00.0 > 0000:00:03.0 > pci0000:00 < "
				 "0000:00:01.0 < 0000:11:00.0") != NULL,
			  "reason: %s", out[0].reason);
	return GPUDP_TEST_PASS;
}

/*
 * Root complexes none of which the NIC shares: the GPU on the NIC's NUMA
 * node wins. A second NIC on a node with no GPU crosses the interconnect
 * either way: the tie goes to the GPU with no port yet. A third one
 * without a numa_node file (node unknown) crosses too, and the tie then
 * goes to the lowest index.
 */
static int
place_same_numa_node_when_no_complex_is_shared(void)
{
	const char *gpus[] = { "0000:81:00.0", "0000:01:00.0" };
	const char *ports[] = { "0000:41:00.0", "0000:c1:00.0", "0000:e1:00.0" };
	struct gpudp_gpu_place out[3];
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:80/0000:80:01.0", gpus[0], 1) == 0, "gpu 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0", gpus[1], 0) == 0, "gpu 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:40/0000:40:01.0", ports[0], 0) == 0, "nic 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:c0/0000:c0:01.0", ports[1], 2) == 0, "nic 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:e0/0000:e0:01.0", ports[2], -2) == 0, "nic 2");
	rc = gpudp_mem_gpu_place(ports, 3, gpus, 2, out);
	show(ports, 3, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[0].level == GPUDP_GPU_PLACE_NUMA,
			  "port 0: gpu %u level %d", out[0].gpu, out[0].level);
	GPUDP_TEST_ASSERT(out[0].port_numa == 0 && out[0].gpu_numa == 0 && out[0].hops == -1,
			  "numa %d %d hops %d", out[0].port_numa, out[0].gpu_numa, out[0].hops);
	GPUDP_TEST_ASSERT(strstr(out[0].reason, "NUMA node 0") != NULL &&
			  strstr(out[0].reason, "on pci0000:40") != NULL &&
			  strstr(out[0].reason, "on pci0000:00") != NULL,
			  "reason: %s", out[0].reason);
	GPUDP_TEST_ASSERT(out[1].gpu == 0 && out[1].level == GPUDP_GPU_PLACE_CROSS &&
			  out[1].tied == 2, "port 1: gpu %u level %d tied %u",
			  out[1].gpu, out[1].level, out[1].tied);
	GPUDP_TEST_ASSERT(strstr(out[1].reason, "NUMA node 2") != NULL &&
			  strstr(out[1].reason, "NUMA node 1") != NULL,
			  "reason: %s", out[1].reason);
	GPUDP_TEST_ASSERT(out[2].gpu == 0 && out[2].level == GPUDP_GPU_PLACE_CROSS &&
			  out[2].port_numa == -1, "port 2: gpu %u level %d numa %d",
			  out[2].gpu, out[2].level, out[2].port_numa);
	GPUDP_TEST_ASSERT(strstr(out[2].reason, "NUMA node unknown") != NULL,
			  "reason: %s", out[2].reason);
	return GPUDP_TEST_PASS;
}

/* two GPUs and four NICs below one switch, all alike: one port per GPU in turn */
static int
place_ties_spread_ports_over_gpus(void)
{
	const char *gpus[] = { "0000:03:00.0", "0000:04:00.0" };
	const char *ports[] = { "0000:05:00.0", "0000:06:00.0", "0000:07:00.0",
				"0000:08:00.0" };
	const char *ds[] = { "0000:02:00.0", "0000:02:01.0", "0000:02:02.0",
			     "0000:02:03.0", "0000:02:04.0", "0000:02:05.0" };
	struct gpudp_gpu_place out[4];
	char chain[128];
	unsigned int i;
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	for (i = 0; i < 6; i++) {
		snprintf(chain, sizeof(chain), "pci0000:00/0000:00:01.0/0000:01:00.0/%s", ds[i]);
		GPUDP_TEST_ASSERT(fake_pci(chain, i < 2 ? gpus[i] : ports[i - 2], 0) == 0,
				  "device %u", i);
	}
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 0 && out[1].gpu == 1, "two ports: gpus %u %u",
			  out[0].gpu, out[1].gpu);
	GPUDP_TEST_ASSERT(out[0].tied == 2 && out[1].tied == 2, "tied %u %u",
			  out[0].tied, out[1].tied);
	GPUDP_TEST_ASSERT(strstr(out[1].reason, "2 GPUs equally close") != NULL,
			  "reason: %s", out[1].reason);
	rc = gpudp_mem_gpu_place(ports, 4, gpus, 2, out);
	show(ports, 4, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	for (i = 0; i < 4; i++)
		GPUDP_TEST_ASSERT(out[i].gpu == i % 2 && out[i].level == GPUDP_GPU_PLACE_SWITCH,
				  "four ports: port %u on gpu %u level %d", i, out[i].gpu,
				  out[i].level);
	return GPUDP_TEST_PASS;
}

/*
 * Below one root port, a GPU behind a second switch level is farther than
 * one beside the NIC: fewer hops win before the load and index rules.
 */
static int
place_fewer_hops_win_below_one_root_port(void)
{
	const char *gpus[] = { "0000:0a:00.0", "0000:03:00.0" };
	const char *ports[] = { "0000:04:00.0" };
	struct gpudp_gpu_place out[1];
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/"
				   "0000:08:00.0/0000:09:00.0", gpus[0], 0) == 0, "far gpu");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0",
				   gpus[1], 0) == 0, "near gpu");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0",
				   ports[0], 0) == 0, "nic");
	rc = gpudp_mem_gpu_place(ports, 1, gpus, 2, out);
	show(ports, 1, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[0].level == GPUDP_GPU_PLACE_SWITCH &&
			  out[0].hops == 4 && out[0].tied == 1, "gpu %u level %d hops %d tied %u",
			  out[0].gpu, out[0].level, out[0].hops, out[0].tied);
	return GPUDP_TEST_PASS;
}

/*
 * Port 0 is as close to both GPUs (root complex); port 1 shares a switch
 * with GPU 0 only. Port 1 chooses first, so port 0 takes GPU 1 instead of
 * piling onto GPU 0 by the index rule.
 */
static int
place_port_with_fewer_choices_chooses_first(void)
{
	const char *gpus[] = { "0000:03:00.0", "0000:05:00.0" };
	const char *ports[] = { "0000:06:00.0", "0000:04:00.0" };
	struct gpudp_gpu_place out[2];
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0",
				   gpus[0], 0) == 0, "gpu 0");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0",
				   ports[1], 0) == 0, "nic 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:02.0", gpus[1], 0) == 0, "gpu 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:00/0000:00:03.0", ports[0], 0) == 0, "nic 0");
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == 0, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[1].gpu == 0 && out[1].level == GPUDP_GPU_PLACE_SWITCH,
			  "port 1: gpu %u level %d", out[1].gpu, out[1].level);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[0].level == GPUDP_GPU_PLACE_ROOT &&
			  out[0].tied == 2, "port 0: gpu %u level %d tied %u",
			  out[0].gpu, out[0].level, out[0].tied);
	return GPUDP_TEST_PASS;
}

/*
 * Devices that are not in sysfs: -ENOENT, every result still filled. A
 * known GPU (even across sockets) beats an unknown one; with nothing
 * known the tie rules spread the ports.
 */
static int
place_device_missing_from_sysfs_is_enoent(void)
{
	const char *gpus[] = { "0000:99:00.0", "0000:81:00.0" };
	const char *ports[] = { "0000:41:00.0", "0000:42:00.0" };
	struct gpudp_gpu_place out[2];
	int rc;

	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:80/0000:80:01.0", gpus[1], 1) == 0, "gpu 1");
	GPUDP_TEST_ASSERT(fake_pci("pci0000:40/0000:40:01.0", ports[0], 0) == 0, "nic 0");
	/* GPU 0 and port 1 missing */
	memset(out, 0xff, sizeof(out));
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == -ENOENT, "rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 1 && out[0].level == GPUDP_GPU_PLACE_CROSS,
			  "known port: gpu %u level %d", out[0].gpu, out[0].level);
	GPUDP_TEST_ASSERT(out[1].level == GPUDP_GPU_PLACE_UNKNOWN && out[1].hops == -1 &&
			  out[1].port_numa == -1 && out[1].tied == 2,
			  "missing port: level %d hops %d numa %d tied %u", out[1].level,
			  out[1].hops, out[1].port_numa, out[1].tied);
	/* GPU 1 already has port 0: the tie gives port 1 GPU 0 */
	GPUDP_TEST_ASSERT(out[1].gpu == 0, "missing port: gpu %u", out[1].gpu);
	GPUDP_TEST_ASSERT(strstr(out[1].reason, "no PCIe path") != NULL &&
			  strstr(out[1].reason,
				 "port 0000:42:00.0 and GPU 0000:99:00.0 are not") != NULL &&
			  strstr(out[1].reason, root) != NULL, "reason: %s", out[1].reason);

	/* an empty sysfs: all unknown, one port per GPU */
	GPUDP_TEST_ASSERT(new_root() == 0, "sysfs root");
	rc = gpudp_mem_gpu_place(ports, 2, gpus, 2, out);
	show(ports, 2, out);
	GPUDP_TEST_ASSERT(rc == -ENOENT, "empty: rc %d", rc);
	GPUDP_TEST_ASSERT(out[0].gpu == 0 && out[1].gpu == 1 &&
			  out[0].level == GPUDP_GPU_PLACE_UNKNOWN &&
			  out[1].level == GPUDP_GPU_PLACE_UNKNOWN, "empty: gpus %u %u levels %d %d",
			  out[0].gpu, out[1].gpu, out[0].level, out[1].level);

	/* only the port missing: the reason names it, not the GPU */
	GPUDP_TEST_ASSERT(fake_pci("pci0000:80/0000:80:01.0", gpus[1], 1) == 0, "gpu 1");
	rc = gpudp_mem_gpu_place(&ports[1], 1, &gpus[1], 1, out);
	show(&ports[1], 1, out);
	GPUDP_TEST_ASSERT(rc == -ENOENT && out[0].gpu == 0, "rc %d gpu %u", rc, out[0].gpu);
	GPUDP_TEST_ASSERT(strstr(out[0].reason, "port 0000:42:00.0 is not a PCI device") != NULL &&
			  strstr(out[0].reason, "GPU") == NULL, "reason: %s", out[0].reason);
	return GPUDP_TEST_PASS;
}

static int
place_bad_arguments_are_einval(void)
{
	const char *gpus[] = { "0000:03:00.0" };
	const char *ports[] = { "0000:04:00.0" };
	const char *null_port[] = { NULL };
	const char *empty[] = { "" };
	const char *escape[] = { "../../../etc" };
	struct gpudp_gpu_place out[1];

	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(NULL, 1, gpus, 1, out) == -EINVAL, "no ports");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(ports, 1, NULL, 1, out) == -EINVAL, "no gpus");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(ports, 1, gpus, 1, NULL) == -EINVAL, "no out");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(ports, 0, gpus, 1, out) == -EINVAL, "0 ports");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(ports, 1, gpus, 0, out) == -EINVAL, "0 gpus");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(null_port, 1, gpus, 1, out) == -EINVAL,
			  "NULL address");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(ports, 1, empty, 1, out) == -EINVAL,
			  "empty address");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_place(escape, 1, gpus, 1, out) == -EINVAL,
			  "address with a slash");
	return GPUDP_TEST_PASS;
}

static int
place_level_names(void)
{
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(GPUDP_GPU_PLACE_SWITCH),
				 "switch") == 0, "switch");
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(GPUDP_GPU_PLACE_ROOT),
				 "root-complex") == 0, "root");
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(GPUDP_GPU_PLACE_NUMA),
				 "numa") == 0, "numa");
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(GPUDP_GPU_PLACE_CROSS),
				 "cross") == 0, "cross");
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(GPUDP_GPU_PLACE_UNKNOWN),
				 "unknown") == 0, "unknown");
	GPUDP_TEST_ASSERT(strcmp(gpudp_gpu_place_level_name(
				 (enum gpudp_gpu_place_level)99), "?") == 0, "out of range");
	return GPUDP_TEST_PASS;
}

static int
gpu_map_good_maps_parse(void)
{
	char err[128] = "stale";
	int map[8];
	int rc;

	rc = gpudp_mem_gpu_map_parse("0:1,1:0", 2, 2, map, err, sizeof(err));
	GPUDP_TEST_ASSERT(rc == 0 && map[0] == 1 && map[1] == 0, "rc %d map %d %d (%s)",
			  rc, map[0], map[1], err);
	GPUDP_TEST_ASSERT(err[0] == '\0', "err not cleared: %s", err);
	/* ports not named stay -1 */
	rc = gpudp_mem_gpu_map_parse("1:3", 3, 4, map, err, sizeof(err));
	GPUDP_TEST_ASSERT(rc == 0 && map[0] == -1 && map[1] == 3 && map[2] == -1,
			  "rc %d map %d %d %d (%s)", rc, map[0], map[1], map[2], err);
	/* several ports on one GPU, any order, leading zeros */
	rc = gpudp_mem_gpu_map_parse("7:0,0:0,03:2", 8, 3, map, NULL, 0);
	GPUDP_TEST_ASSERT(rc == 0 && map[7] == 0 && map[0] == 0 && map[3] == 2 &&
			  map[1] == -1, "rc %d map %d %d %d %d", rc, map[7], map[0], map[3],
			  map[1]);
	return GPUDP_TEST_PASS;
}

static int
gpu_map_errors_name_the_token(void)
{
	static const struct {
		const char *s;
		unsigned int n_ports, n_gpus;
		const char *want;   /* in the message */
	} bad[] = {
		{ "", 2, 2, "empty GPU map" },
		{ "0:1,,1:0", 2, 2, "empty entry at offset 4 of '0:1,,1:0'" },
		{ "0:1,", 2, 2, "empty entry at offset 4" },
		{ ",0:1", 2, 2, "empty entry at offset 0" },
		{ "0-1", 2, 2, "'0-1': want PORT:GPU" },
		{ "0:1,1", 2, 2, "'1': want PORT:GPU" },
		{ "x:1", 2, 2, "'x:1': port 'x' is not a decimal number" },
		{ ":1", 2, 2, "':1': port '' is not a decimal number" },
		{ "-1:0", 2, 2, "'-1:0': port '-1' is not" },
		{ " 0:1", 2, 2, "' 0:1': port ' 0' is not" },
		{ "0:1z", 2, 2, "'0:1z': GPU '1z' is not a decimal number" },
		{ "0:", 2, 2, "'0:': GPU '' is not" },
		{ "0:1:2", 2, 2, "'0:1:2': GPU '1:2' is not" },
		{ "0:+1", 2, 2, "'0:+1': GPU '+1' is not" },
		{ "2:0", 2, 2, "'2:0': port 2 out of range (2 ports: 0..1)" },
		{ "99999999999:0", 2, 2, "port 99999999999 out of range" },
		{ "0:2", 2, 2, "'0:2': GPU 2 out of range (2 GPUs: 0..1)" },
		{ "1:0,0:99999999999", 2, 2, "GPU 99999999999 out of range" },
		{ "1:0,0:1,1:1", 2, 2, "'1:1': port 1 given twice (already on GPU 0)" },
	};
	char err[160];
	int map[2];
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(bad); i++) {
		map[0] = map[1] = 42;
		err[0] = '\0';
		rc = gpudp_mem_gpu_map_parse(bad[i].s, bad[i].n_ports, bad[i].n_gpus, map,
					     err, sizeof(err));
		printf("    '%s': %s\n", bad[i].s, err);
		GPUDP_TEST_ASSERT(rc == -EINVAL, "'%s': rc %d", bad[i].s, rc);
		GPUDP_TEST_ASSERT(strstr(err, bad[i].want) != NULL, "'%s': message '%s', want '%s'",
				  bad[i].s, err, bad[i].want);
		GPUDP_TEST_ASSERT(map[0] == 42 && map[1] == 42, "'%s': map written (%d %d)",
				  bad[i].s, map[0], map[1]);
	}
	/* bad arguments */
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_map_parse(NULL, 2, 2, map, err, sizeof(err)) == -EINVAL,
			  "NULL map string");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_map_parse("0:0", 2, 2, NULL, err, sizeof(err)) == -EINVAL,
			  "NULL map");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_map_parse("0:0", 0, 2, map, err, sizeof(err)) == -EINVAL,
			  "no ports");
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_map_parse("0:0", 2, 0, map, err, sizeof(err)) == -EINVAL,
			  "no GPUs");
	/* a short message buffer: cut, terminated; none at all: still -EINVAL */
	memset(err, 'x', sizeof(err));
	rc = gpudp_mem_gpu_map_parse("0:9", 2, 2, map, err, 8);
	GPUDP_TEST_ASSERT(rc == -EINVAL && strlen(err) == 7, "short buffer: rc %d len %zu",
			  rc, strnlen(err, sizeof(err)));
	GPUDP_TEST_ASSERT(gpudp_mem_gpu_map_parse("0:9", 2, 2, map, NULL, 0) == -EINVAL,
			  "no message buffer");
	return GPUDP_TEST_PASS;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static const struct gpudp_test_case cases[] = {
	{ "place_nic_gets_the_gpu_of_its_switch", place_nic_gets_the_gpu_of_its_switch },
	{ "place_same_root_complex_beats_other_socket",
	  place_same_root_complex_beats_other_socket },
	{ "place_same_numa_node_when_no_complex_is_shared",
	  place_same_numa_node_when_no_complex_is_shared },
	{ "place_ties_spread_ports_over_gpus", place_ties_spread_ports_over_gpus },
	{ "place_fewer_hops_win_below_one_root_port", place_fewer_hops_win_below_one_root_port },
	{ "place_port_with_fewer_choices_chooses_first",
	  place_port_with_fewer_choices_chooses_first },
	{ "place_device_missing_from_sysfs_is_enoent", place_device_missing_from_sysfs_is_enoent },
	{ "place_bad_arguments_are_einval", place_bad_arguments_are_einval },
	{ "place_level_names", place_level_names },
	{ "gpu_map_good_maps_parse", gpu_map_good_maps_parse },
	{ "gpu_map_errors_name_the_token", gpu_map_errors_name_the_token },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	unsigned int i;
	int rc;

	rc = gpudp_test_run("gpu_place", cases, argc, argv);
	for (i = 0; i < nb_roots; i++)
		if (nftw(roots[i], rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			fprintf(stderr, "could not remove %s\n", roots[i]);
	return rc;
}
