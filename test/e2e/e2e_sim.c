/* SPDX-License-Identifier: BSD-3-Clause */
/* Client of /dev/nvidia_p2p_sim: see e2e_sim.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "e2e_sim.h"

static int
sim_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int
e2e_sim_open(void)
{
	int fd = open(NVP2P_SIM_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int
e2e_sim_alloc(int fd, uint64_t size, uint64_t *va)
{
	struct nvp2p_sim_alloc a = { .size = size };
	int ret = sim_ioctl(fd, NVP2P_SIM_IOC_ALLOC, &a);

	if (ret == 0)
		*va = a.va;
	return ret;
}

int
e2e_sim_free(int fd, uint64_t va)
{
	struct nvp2p_sim_va a = { .va = va };

	return sim_ioctl(fd, NVP2P_SIM_IOC_FREE, &a);
}

int
e2e_sim_export_dmabuf(int fd, uint64_t va, uint64_t len)
{
	struct nvp2p_sim_export e = { .va = va, .len = len };
	int ret = sim_ioctl(fd, NVP2P_SIM_IOC_EXPORT_DMABUF, &e);

	return ret < 0 ? ret : e.fd;
}

int
e2e_sim_peek(int fd, uint64_t va, uint64_t *value)
{
	struct nvp2p_sim_word w = { .va = va };
	int ret = sim_ioctl(fd, NVP2P_SIM_IOC_PEEK, &w);

	if (ret == 0)
		*value = w.value;
	return ret;
}

int
e2e_sim_stats(int fd, struct nvp2p_sim_stats *s)
{
	memset(s, 0, sizeof(*s));
	return sim_ioctl(fd, NVP2P_SIM_IOC_STATS, s);
}
