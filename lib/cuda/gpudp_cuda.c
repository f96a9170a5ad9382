/* SPDX-License-Identifier: BSD-3-Clause */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_cuda.h"

const struct gpudp_cuda_fns *gpudp_cu;

static struct gpudp_cuda_fns fns;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_rc;
static char init_msg[256];
static int driver_version;
static _Thread_local char last_msg[256];

/* cuGetProcAddress as exported since CUDA 11.3 (four arguments). */
typedef CUresult (*get_proc_fn)(const char *symbol, void **pfn, int version,
				cuuint64_t flags);

static void
set_error(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(last_msg), fmt, ap);
	va_end(ap);
}

static int
load(void)
{
	const char *path = getenv("GPUDP_LIBCUDA");
	get_proc_fn get_proc;
	CUresult res;
	int count = 0;
	void *lib;

	if (path == NULL || path[0] == '\0')
		path = "libcuda.so.1";
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		set_error(init_msg, "no NVIDIA driver: cannot load %s (%s)",
			  path, dlerror());
		return -ENODEV;
	}
	get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress");
	if (get_proc == NULL) {
		set_error(init_msg, "%s has no cuGetProcAddress: driver older than CUDA 11.3",
			  path);
		return -ENOSYS;
	}

#define GPUDP_CUDA_FN(name, ver, req) \
	do { \
		void *p = NULL; \
		res = get_proc(#name, &p, ver, CU_GET_PROC_ADDRESS_DEFAULT); \
		if (res != CUDA_SUCCESS || p == NULL) { \
			if (req) { \
				set_error(init_msg, \
					  "driver lacks %s (ABI %d): error %d; update the NVIDIA driver", \
					  #name, ver, (int)res); \
				return -ENOSYS; \
			} \
			p = NULL; \
		} \
		memcpy(&fns.name, &p, sizeof(p)); \
	} while (0);
#include "gpudp_cuda_fns.h"
#undef GPUDP_CUDA_FN

	res = fns.cuInit(0);
	if (res != CUDA_SUCCESS) {
		set_error(init_msg, "cuInit failed: %s", gpudp_cuda_errstr(res));
		return -ENODEV;
	}
	if (fns.cuDriverGetVersion(&driver_version) != CUDA_SUCCESS)
		driver_version = 0;
	res = fns.cuDeviceGetCount(&count);
	if (res != CUDA_SUCCESS || count == 0) {
		set_error(init_msg, "no CUDA device found (driver %d.%d)",
			  driver_version / 1000, driver_version % 1000 / 10);
		return -ENODEV;
	}
	/* the library stays loaded for the life of the process */
	return 0;
}

static void
init_once_fn(void)
{
	init_rc = load();
	if (init_rc == 0)
		gpudp_cu = &fns;
	else
		driver_version = 0;
}

int
gpudp_cuda_init(void)
{
	pthread_once(&init_once, init_once_fn);
	if (init_rc != 0)
		snprintf(last_msg, sizeof(last_msg), "%s", init_msg);
	return init_rc;
}

const char *
gpudp_cuda_last_error(void)
{
	return last_msg;
}

int
gpudp_cuda_driver_version(void)
{
	return gpudp_cu != NULL ? driver_version : 0;
}

int
gpudp_cuda_build_version(void)
{
	return CUDA_VERSION;
}

const char *
gpudp_cuda_errstr(CUresult res)
{
	static _Thread_local char buf[160];
	const char *name = NULL, *desc = NULL;

	if (fns.cuGetErrorName != NULL)
		fns.cuGetErrorName(res, &name);
	if (fns.cuGetErrorString != NULL)
		fns.cuGetErrorString(res, &desc);
	if (name != NULL)
		snprintf(buf, sizeof(buf), "%s: %s", name,
			 desc != NULL ? desc : "?");
	else
		snprintf(buf, sizeof(buf), "CUresult %d", (int)res);
	return buf;
}

/* the registry of GPU images (constructors fill it before main) */
static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct gpudp_cuda_image *images[GPUDP_CUDA_IMAGES_MAX];
static unsigned int n_images;

/* images_lock held */
static const struct gpudp_cuda_image *
image_find_locked(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_images; i++)
		if (strcmp(images[i]->name, name) == 0)
			return images[i];
	return NULL;
}

int
gpudp_cuda_image_register(const struct gpudp_cuda_image *img)
{
	const struct gpudp_cuda_image *old;
	int rc = 0;

	if (img == NULL || img->name == NULL || img->data == NULL || img->size == 0)
		return -EINVAL;
	pthread_mutex_lock(&images_lock);
	old = image_find_locked(img->name);
	if (old != NULL)
		rc = old == img ? 0 : -EEXIST;
	else if (n_images == GPUDP_CUDA_IMAGES_MAX)
		rc = -ENOSPC;
	else
		images[n_images++] = img;
	pthread_mutex_unlock(&images_lock);
	return rc;
}

const struct gpudp_cuda_image *
gpudp_cuda_image_find(const char *name)
{
	const struct gpudp_cuda_image *img;

	/* "fwd": lib/handoff's kernels' name before they were "handoff" */
	if (name != NULL && strcmp(name, "fwd") == 0)
		name = "handoff";
	pthread_mutex_lock(&images_lock);
	img = name != NULL ? image_find_locked(name) : NULL;
	pthread_mutex_unlock(&images_lock);
	return img;
}

const void *
gpudp_cuda_fatbin(const char *name, size_t *size)
{
	const struct gpudp_cuda_image *img = gpudp_cuda_image_find(name);

	if (img != NULL && size != NULL)
		*size = img->size;
	return img != NULL ? img->data : NULL;
}

int
gpudp_cuda_module_load_image(const struct gpudp_cuda_image *img, CUmodule *mod)
{
	CUresult res;

	if (img == NULL)
		return -EINVAL;
	if (gpudp_cu == NULL) {
		set_error(last_msg, "CUDA not initialised: %s", init_msg);
		return -ENODEV;
	}
	res = fns.cuModuleLoadData(mod, img->data);
	if (res != CUDA_SUCCESS) {
		set_error(last_msg, "cuModuleLoadData(%s): %s", img->name,
			  gpudp_cuda_errstr(res));
		return -EIO;
	}
	return 0;
}

int
gpudp_cuda_module_load(const char *name, CUmodule *mod)
{
	const struct gpudp_cuda_image *img = gpudp_cuda_image_find(name);

	if (img == NULL) {
		set_error(last_msg, "no GPU image '%s' is registered (built without nvcc, "
			  "or its library not linked in?)", name);
		return -ENOENT;
	}
	return gpudp_cuda_module_load_image(img, mod);
}
