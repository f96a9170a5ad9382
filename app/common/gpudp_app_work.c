/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_app_work.h"
#include "gpudp_opt.h"

const struct gpudp_work *
gpudp_app_work(const char *prog, const char *spec, const char *arg, int gpu)
{
	const struct gpudp_work *w;
	char err[512];
	void *params;
	int ret;

	if (strchr(spec, '/') != NULL) {
		w = gpudp_work_load(spec, err, sizeof(err));
		if (w == NULL) {
			fprintf(stderr, "%s: --work: %s\n", prog, err);
			return NULL;
		}
	} else {
		w = gpudp_work_find(spec);
		if (w == NULL) {
			gpudp_opt_bad(prog, "work", spec, "no such built-in work; give a path "
				      "(with a '/') to load a work's shared object");
			return NULL;
		}
	}
	params = calloc(1, w->params_size + 1);
	if (params == NULL)
		return NULL;
	ret = gpudp_work_params(w, arg, params, err, sizeof(err));
	if (ret == 0)
		gpudp_work_params_release(w, params);
	free(params);
	if (ret != 0) {
		fprintf(stderr, "%s: --work-arg: %s\n", prog, err);
		return NULL;
	}
	if (gpu && w->gpu_image == NULL) {
		fprintf(stderr, "%s: --work: %s (%s) has no GPU image: it runs in --mode cpu "
			"only\n", prog, w->name, gpudp_work_origin(w));
		return NULL;
	}
	return w;
}
