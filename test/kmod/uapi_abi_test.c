/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gpudp_pin ABI is frozen: struct sizes, field offsets and ioctl
 * numbers may only change with GPUDP_PIN_ABI_MAJOR. Also checks that the
 * client library reports a missing device node as -ENOENT.
 */
#include <errno.h>
#include <stddef.h>

#include "gpudp_pin_client.h"
#include "gpudp_test.h"
#include "nvidia_p2p_sim_uapi.h"

static int struct_layout_is_frozen(void)
{
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_version) == 32, "version");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_pin) == 64, "pin");
	GPUDP_TEST_ASSERT(offsetof(struct gpudp_pin_pin, handle) == 24, "handle");
	GPUDP_TEST_ASSERT(offsetof(struct gpudp_pin_pin, mmap_offset) == 56, "mmap_offset");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_handle) == 8, "handle");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_table) == 32, "table");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_map_peer) == 40, "map_peer");
	GPUDP_TEST_ASSERT(offsetof(struct gpudp_pin_map_peer, pci_bus) == 20, "pci_bus");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_query) == 48, "query");
	GPUDP_TEST_ASSERT(sizeof(struct gpudp_pin_dmabuf) == 56, "dmabuf");
	GPUDP_TEST_ASSERT(offsetof(struct gpudp_pin_dmabuf, pci_bus) == 28, "dmabuf pci_bus");
	GPUDP_TEST_ASSERT(offsetof(struct gpudp_pin_dmabuf, handle) == 40, "dmabuf handle");
	GPUDP_TEST_ASSERT(sizeof(struct nvp2p_sim_fault) == 32, "sim fault");
	return GPUDP_TEST_PASS;
}

static int ioctl_numbers_are_frozen(void)
{
	GPUDP_TEST_ASSERT(GPUDP_PIN_IOC_VERSION == 0x8020d500UL, "0x%lx",
			  (unsigned long)GPUDP_PIN_IOC_VERSION);
	GPUDP_TEST_ASSERT(GPUDP_PIN_IOC_PIN == 0xc040d501UL, "0x%lx",
			  (unsigned long)GPUDP_PIN_IOC_PIN);
	GPUDP_TEST_ASSERT(GPUDP_PIN_IOC_UNPIN == 0x4008d502UL, "0x%lx",
			  (unsigned long)GPUDP_PIN_IOC_UNPIN);
	GPUDP_TEST_ASSERT(GPUDP_PIN_IOC_MAP_PEER == 0xc028d505UL, "0x%lx",
			  (unsigned long)GPUDP_PIN_IOC_MAP_PEER);
	GPUDP_TEST_ASSERT(GPUDP_PIN_IOC_ATTACH_DMABUF == 0xc038d507UL, "0x%lx",
			  (unsigned long)GPUDP_PIN_IOC_ATTACH_DMABUF);
	return GPUDP_TEST_PASS;
}

static int open_missing_node_is_enoent(void)
{
	int fd = gpudp_pin_open("/nonexistent/gpudp_pin");

	GPUDP_TEST_ASSERT(fd == -ENOENT, "open returned %d", fd);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "struct_layout_is_frozen", struct_layout_is_frozen },
	{ "ioctl_numbers_are_frozen", ioctl_numbers_are_frozen },
	{ "open_missing_node_is_enoent", open_missing_node_is_enoent },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return gpudp_test_run("kmod_uapi", cases, argc, argv);
}
