/* SPDX-License-Identifier: BSD-3-Clause */
/* The threaded reader: a pcap file read into memory beforehand (gpudp_cap_reader_mem_load()). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudp_cap_reader.h"

/* the copy's mapping: room past the file's end for 16-byte reads, in 2 MiB pages */
#define MEM_ALIGN (2u << 20)

int
gpudp_cap_reader_mem_load(struct gpudp_cap_reader_mem *m, const char *path, char *err,
			  size_t errlen)
{
	double t0 = gpudp_cap_now_s();
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	struct stat st;
	uint64_t got = 0;
	void *p;

	memset(m, 0, sizeof(*m));
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	m->len = (uint64_t)st.st_size;
	m->alloc = (size_t)((m->len + 16 + MEM_ALIGN - 1) & ~(uint64_t)(MEM_ALIGN - 1));
	p = mmap(NULL, m->alloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: no memory for its %llu bytes", path,
			 (unsigned long long)m->len);
		close(fd);
		return -ENOMEM;
	}
	m->buf = p;
	madvise(p, m->alloc, MADV_HUGEPAGE);   /* fewer pages to register; a hint */
	while (got < m->len) {
		ssize_t r = pread(fd, m->buf + got, m->len - got < (1u << 30) ? m->len - got :
				  (1u << 30), (off_t)got);

		if (r <= 0) {
			snprintf(err, errlen, "reading %s: %s", path,
				 r < 0 ? strerror(errno) : "it shrank");
			close(fd);
			gpudp_cap_reader_mem_free(m);
			return -EIO;
		}
		got += (uint64_t)r;
	}
	close(fd);
	m->load_s = gpudp_cap_now_s() - t0;
	return 0;
}

int
gpudp_cap_reader_mem_register(struct gpudp_cap_reader_mem *m, int gpu_device, char *err,
			      size_t errlen)
{
	struct gpudp_cap_engine_conf ec = {
		.batch_pkts = 64, .batch_bytes = 65536, .flow_capacity = 1024,
		.gpu_device = gpu_device, .inflight = 1,
	};
	double t0 = gpudp_cap_now_s();
	int rc = gpudp_cap_engine_create(&m->reg, "gpu", &ec, err, errlen);

	if (rc != 0)
		return rc;   /* m->reg.ops is NULL */
	rc = gpudp_cap_engine_host_register(&m->reg, m->buf, m->alloc);
	if (rc != 0) {
		snprintf(err, errlen, "registering the copy in memory: %.200s", m->reg.err);
		gpudp_cap_engine_destroy(&m->reg);
		return rc;
	}
	m->register_s = gpudp_cap_now_s() - t0;
	return 0;
}

void
gpudp_cap_reader_mem_free(struct gpudp_cap_reader_mem *m)
{
	if (m->reg.ops != NULL) {
		gpudp_cap_engine_host_unregister(&m->reg, m->buf);
		gpudp_cap_engine_destroy(&m->reg);
	}
	if (m->buf != NULL)
		munmap(m->buf, m->alloc);
	memset(m, 0, sizeof(*m));
}
