/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cuda without a driver: the loader must fail cleanly with a reason
 * naming the library; the embedded test image "probe" (test/common/probe.cu)
 * must be a real fatbin, registered by name; the registry refuses twins.
 * Which pointer of a cuMemHostAlloc allocation an integrated GPU uses.
 * Runs everywhere: GPUDP_LIBCUDA points at a library that cannot exist.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpudp_cuda.h>
#include <gpudp_test.h>

#define MISSING_LIB "/nonexistent/gpudp-test/libcuda.so.1"

static int
init_without_driver_returns_enodev(void)
{
	int rc = gpudp_cuda_init();

	GPUDP_TEST_ASSERT(rc == -ENODEV, "rc %d", rc);
	GPUDP_TEST_ASSERT(gpudp_cu == NULL, "function table set after failure");
	GPUDP_TEST_ASSERT(gpudp_cuda_driver_version() == 0, "driver version %d",
			  gpudp_cuda_driver_version());
	return GPUDP_TEST_PASS;
}

static int
init_failure_names_the_library(void)
{
	gpudp_cuda_init();
	GPUDP_TEST_ASSERT(strstr(gpudp_cuda_last_error(), MISSING_LIB) != NULL,
			  "message '%s'", gpudp_cuda_last_error());
	GPUDP_TEST_ASSERT(strstr(gpudp_cuda_last_error(), "no NVIDIA driver") != NULL,
			  "message '%s'", gpudp_cuda_last_error());
	return GPUDP_TEST_PASS;
}

static int
init_is_idempotent(void)
{
	int a = gpudp_cuda_init(), b = gpudp_cuda_init();

	GPUDP_TEST_ASSERT(a == b, "first %d, second %d", a, b);
	return GPUDP_TEST_PASS;
}

static int
module_load_without_driver_fails(void)
{
	CUmodule mod = NULL;
	int rc = gpudp_cuda_module_load("probe", &mod);

	GPUDP_TEST_ASSERT(rc == -ENODEV, "rc %d", rc);
	GPUDP_TEST_ASSERT(mod == NULL, "module set");
	return GPUDP_TEST_PASS;
}

static int
errstr_before_init_prints_the_number(void)
{
	const char *s = gpudp_cuda_errstr(CUDA_ERROR_OUT_OF_MEMORY);

	GPUDP_TEST_ASSERT(strcmp(s, "CUresult 2") == 0, "'%s'", s);
	return GPUDP_TEST_PASS;
}

static int
fatbin_probe_is_embedded(void)
{
	size_t size = 0;
	const uint8_t *fb = gpudp_cuda_fatbin("probe", &size);
	uint32_t magic;

	GPUDP_TEST_ASSERT(fb != NULL, "no fatbin 'probe'");
	GPUDP_TEST_ASSERT(size > 64, "size %zu", size);
	GPUDP_TEST_ASSERT(((uintptr_t)fb & 63) == 0, "fatbin at %p not 64-byte aligned",
			  (const void *)fb);
	memcpy(&magic, fb, sizeof(magic));
	/* fatbin container header magic, little-endian */
	GPUDP_TEST_ASSERT(magic == 0xBA55ED50u, "magic 0x%08x", magic);
	return GPUDP_TEST_PASS;
}

static int
fatbin_unknown_name_is_null(void)
{
	size_t size = 12345;

	GPUDP_TEST_ASSERT(gpudp_cuda_fatbin("no_such_kernel", &size) == NULL, "found");
	GPUDP_TEST_ASSERT(size == 12345, "size written: %zu", size);
	return GPUDP_TEST_PASS;
}

static int
images_register_once_by_name(void)
{
	static const unsigned char bytes[64] __attribute__((aligned(64))) = { 1 };
	static const struct gpudp_cuda_image mine = { "test_image", bytes, sizeof(bytes) };
	static const struct gpudp_cuda_image twin = { "test_image", bytes, sizeof(bytes) };
	static const struct gpudp_cuda_image empty = { "empty", bytes, 0 };
	CUmodule mod;

	GPUDP_TEST_ASSERT(gpudp_cuda_image_find("test_image") == NULL, "before registration");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_register(&mine) == 0, "register");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_register(&mine) == 0, "the same image again");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_register(&twin) == -EEXIST, "another of that name");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_register(&empty) == -EINVAL, "size 0");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_register(NULL) == -EINVAL, "NULL");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_find("test_image") == &mine, "found");
	GPUDP_TEST_ASSERT(gpudp_cuda_image_find("probe") != NULL, "the embedded probe");
	GPUDP_TEST_ASSERT(gpudp_cuda_module_load("no_such_image", &mod) == -ENOENT, "unknown");
	GPUDP_TEST_ASSERT(gpudp_cuda_module_load_image(NULL, &mod) == -EINVAL, "NULL image");
	GPUDP_TEST_ASSERT(gpudp_cuda_module_load_image(&mine, &mod) == -ENODEV, "no driver");
	return GPUDP_TEST_PASS;
}

static int
build_version_is_cuda_12_or_newer(void)
{
	GPUDP_TEST_ASSERT(gpudp_cuda_build_version() >= 12000, "%d",
			  gpudp_cuda_build_version());
	return GPUDP_TEST_PASS;
}

/* Which pointer of a cuMemHostAlloc allocation the GPU uses (CUDA's
 * cuMemHostAlloc: write-combined memory only through
 * cuMemHostGetDevicePointer, even with unified addressing). */
static int
host_ptr_direct_follows_the_attributes(void)
{
	const unsigned int map = CU_MEMHOSTALLOC_DEVICEMAP;
	const unsigned int wc = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
	struct gpudp_cuda_mem_caps uva = { 1, 1, 1, 0 }, reg = { 1, 1, 0, 1 };
	struct gpudp_cuda_mem_caps none = { 1, 1, 0, 0 }, both = { 1, 1, 1, 1 };

	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&uva, map) == 1, "UVA, default");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&uva, 0) == 1, "UVA maps every allocation");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&reg, map) == 1, "host pointer attribute");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&reg, 0) == 0, "not mapped, no UVA");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&none, map) == 0, "neither attribute");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&both, wc) == 0, "write-combined");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(&uva, wc) == 0, "write-combined, UVA");
	GPUDP_TEST_ASSERT(gpudp_cuda_host_ptr_direct(NULL, map) == 0, "no facts");
	return GPUDP_TEST_PASS;
}

static int
mem_caps_without_driver_fail_and_describe(void)
{
	struct gpudp_cuda_mem_caps c = { 1, 1, 0, 1 };
	char buf[256];

	GPUDP_TEST_ASSERT(gpudp_cuda_mem_caps_get(0, &c) == -ENODEV, "no driver");
	GPUDP_TEST_ASSERT(gpudp_cuda_mem_caps_get(0, NULL) == -EINVAL, "NULL");
	gpudp_cuda_mem_caps_str(&c, CU_MEMHOSTALLOC_DEVICEMAP, buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, "integrated 1") != NULL &&
			  strstr(buf, "unified addressing 0") != NULL &&
			  strstr(buf, "default allocations used through the host pointer") != NULL,
			  "'%s'", buf);
	gpudp_cuda_mem_caps_str(&c, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED,
				buf, sizeof(buf));
	GPUDP_TEST_ASSERT(strstr(buf, "write-combined allocations used through the device "
				 "pointer (cuMemHostGetDevicePointer)") != NULL, "'%s'", buf);
	return GPUDP_TEST_PASS;
}

static const struct gpudp_test_case cases[] = {
	{ "init_without_driver_returns_enodev", init_without_driver_returns_enodev },
	{ "init_failure_names_the_library", init_failure_names_the_library },
	{ "init_is_idempotent", init_is_idempotent },
	{ "module_load_without_driver_fails", module_load_without_driver_fails },
	{ "errstr_before_init_prints_the_number", errstr_before_init_prints_the_number },
	{ "fatbin_probe_is_embedded", fatbin_probe_is_embedded },
	{ "fatbin_unknown_name_is_null", fatbin_unknown_name_is_null },
	{ "images_register_once_by_name", images_register_once_by_name },
	{ "build_version_is_cuda_12_or_newer", build_version_is_cuda_12_or_newer },
	{ "host_ptr_direct_follows_the_attributes", host_ptr_direct_follows_the_attributes },
	{ "mem_caps_without_driver_fail_and_describe", mem_caps_without_driver_fail_and_describe },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	setenv("GPUDP_LIBCUDA", MISSING_LIB, 1);
	return gpudp_test_run("cuda_loader", cases, argc, argv);
}
