/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp_work: the registry of works, their validation, the loader of works
 * built outside gpudp, and the built-in works (macswap, ipv4, load here;
 * match in gpudp_work_match.c), which go through the same registration as
 * any other.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "gpudp_errf.h"
#include "gpudp_fwd_pkt.h"
#include "gpudp_work.h"
#include "gpudp_work_match.h"
#include "gpudp_work_rules.h"
#include "gpudp_work_pvt.h"

#ifdef GPUDP_HAS_CUDA
#include "gpudp_work_images.h"
#endif

RTE_LOG_REGISTER(gpudp_work_logtype, gpudp.work, INFO);

/* ---- built-in works ---- */

static const char *const fwd_reasons[GPUDP_FWD_REASONS - 1] = {
	"truncated", "malformed", "not_ipv4", "bad_csum", "ttl",
};

GPUDP_WORK_CPU(macswap_cpu, gpudp_fwd_macswap_pkt)
GPUDP_WORK_CPU(ipv4_cpu, gpudp_fwd_ipv4_pkt)
GPUDP_WORK_CPU(load_cpu, gpudp_fwd_load_pkt)

static int
load_init(const char *arg, void *params, char *err, size_t err_len)
{
	struct gpudp_fwd_load_params *p = params;
	unsigned long v = 0;
	char *end;

	if (arg == NULL || *arg == '\0') {
		p->rounds = 16;
		return 0;
	}
	if (arg[0] < '0' || arg[0] > '9' || (v = strtoul(arg, &end, 10), *end != '\0') ||
	    v > 1000000) {
		snprintf(err, err_len, "hash rounds '%s': want an integer 0..1000000", arg);
		return -EINVAL;
	}
	p->rounds = (uint32_t)v;
	return 0;
}

#define BUILTIN(n, sum, s, ws, rs, ps, fn, in)                                \
	{ .abi = GPUDP_WORK_ABI, .size = sizeof(struct gpudp_work), .name = n,\
	  .summary = sum, .span = s, .wspan = ws, .result_size = rs,          \
	  .params_size = ps, .n_reasons = GPUDP_FWD_REASONS - 1,              \
	  .reasons = fwd_reasons, .cpu = fn, .init = in }
static struct gpudp_work builtins[GPUDP_FWD_K_MAX] = {
	BUILTIN("macswap", "swap the Ethernet destination and source addresses",
		14, 12, 0, 0, macswap_cpu, NULL),
	BUILTIN("ipv4", "IPv4 forwarding: check the header checksum, decrement the TTL",
		GPUDP_FWD_HDR_SPAN, GPUDP_FWD_HDR_SPAN, 0, 0, ipv4_cpu, NULL),
	BUILTIN("load", "macswap plus N rounds of hashing the first 64 bytes "
		"(--work-arg N, 16 by default); result: the hash",
		64, 12, sizeof(uint32_t), sizeof(struct gpudp_fwd_load_params), load_cpu,
		load_init),
};
#undef BUILTIN

/* ---- registry ---- */

#define WORKS_MAX 64
#define ORIGIN_MAX 256

static struct work_ent {
	const struct gpudp_work *w;
	char origin[ORIGIN_MAX];
	void *dl;
} works[WORKS_MAX];
static unsigned int n_works;
static pthread_mutex_t works_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

static int
name_ok(const char *s, size_t max, int dash)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];

		if (i + 1 >= max)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
		      (dash && c == '-')))
			return 0;
	}
	return 1;
}

static uint64_t
rd_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes-- > 0)
		v = v << 8 | p[bytes];
	return v;
}

/*
 * The GPU image's format and size from its header: a fatbin (magic
 * 0xba55ed50, header size, then the size of what follows), a cubin (ELF of
 * machine EM_CUDA, 190: its section headers end it), or PTX (text with
 * .version and .target). The driver checks the rest when it loads it.
 */
int
gpudp_work_image_check(const struct gpudp_work *w, char *err, size_t err_len)
{
	const uint8_t *p = w->gpu_image;
	size_t have = w->gpu_image_size, need, lead;
	uint64_t off, len;

	if (p == NULL)
		return 0;
	if (have != 0 && have < 16) {
		gpudp_errf(err, err_len, "GPU image of %zu bytes: too short to be one", have);
		return -ENOEXEC;
	}
	/* size 0: a text shorter than a magic is not read past its NUL (no
	 * magic has a NUL byte) */
	lead = have != 0 ? 4 : strnlen((const char *)p, 4);
	if (lead == 4 && rd_le(p, 4) == 0xba55ed50u) {
		off = rd_le(p + 6, 2);
		len = rd_le(p + 8, 8);
		need = len <= SIZE_MAX - off ? (size_t)(off + len) : SIZE_MAX;
		if (off < 16 || need == SIZE_MAX || (have != 0 && need > have)) {
			gpudp_errf(err, err_len, "GPU image: corrupt fatbin header (says %zu bytes%s)",
			     need, have != 0 ? ", has fewer" : "");
			return -ENOEXEC;
		}
		return 0;
	}
	if (lead == 4 && memcmp(p, "\177ELF", 4) == 0) {
		/* the ELF header's fields are read only within the image */
		if (have != 0 && have < 64) {
			gpudp_errf(err, err_len, "GPU image: cubin cut short (%zu of 64 header bytes)",
			     have);
			return -ENOEXEC;
		}
		if (p[4] != 2 || p[5] != 1 || rd_le(p + 18, 2) != 190) {
			gpudp_errf(err, err_len, "GPU image: an ELF file but not a 64-bit CUDA cubin");
			return -ENOEXEC;
		}
		off = rd_le(p + 40, 8);
		len = rd_le(p + 58, 2) * rd_le(p + 60, 2);
		need = off <= SIZE_MAX - len ? (size_t)(off + len) : SIZE_MAX;
		if (need == SIZE_MAX || (have != 0 && need > have)) {
			gpudp_errf(err, err_len, "GPU image: cubin cut short (%zu of %zu bytes)",
			     have, need);
			return -ENOEXEC;
		}
		return 0;
	}
	{
		size_t n = have != 0 ? have : strnlen((const char *)p, 1 << 20);
		const char *t = (const char *)p;
		size_t i;
		int ver = 0, tgt = 0;

		for (i = 0; i + 8 < n && i < 65536; i++) {
			if (t[i] == '\0' || ((unsigned char)t[i] < 0x20 && t[i] != '\n' &&
					     t[i] != '\t' && t[i] != '\r'))
				break;
			ver |= memcmp(t + i, ".version", 8) == 0;
			tgt |= memcmp(t + i, ".target ", 8) == 0;
		}
		if (!ver || !tgt) {
			/* size 0: the bytes up to the NUL, and it */
			size_t k = have != 0 ? 4 : RTE_MIN(n + 1, (size_t)4);
			char hex[16] = "";

			for (i = 0; i < k; i++)
				snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex),
					 i != 0 ? " %02x" : "%02x", p[i]);
			gpudp_errf(err, err_len, "GPU image: not a fatbin, a cubin or PTX "
			     "(first bytes %s)", hex);
			return -ENOEXEC;
		}
	}
	return 0;
}

static int
names_ok(const char *const *names, uint32_t n, const char *what, char *err, size_t len)
{
	uint32_t i, j;

	if (n != 0 && names == NULL) {
		gpudp_errf(err, len, "%u %s but no names", n, what);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!name_ok(names[i], GPUDP_WORK_NAME_MAX, 0) ||
		    strcmp(names[i], "pass") == 0 || strcmp(names[i], "error") == 0) {
			gpudp_errf(err, len, "%s %u: name '%s': want [a-z0-9_], 1..%d bytes, "
			     "not 'pass' or 'error'", what, i, names[i] != NULL ? names[i] : "(null)",
			     GPUDP_WORK_NAME_MAX - 1);
			return 0;
		}
		for (j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0) {
				gpudp_errf(err, len, "%s '%s' named twice", what, names[i]);
				return 0;
			}
	}
	return 1;
}

/* tables or state tables (@p what): fields inside the parameters, aligned */
static int
fields_ok(const struct gpudp_work *w, const struct gpudp_work_table *t, uint32_t n,
	  const char *what, char *err, size_t len)
{
	uint32_t i;

	for (i = 0; i < n; i++, t++) {
		if (t->ptr_off % 8 != 0 || t->size_off % 8 != 0 ||
		    (uint64_t)t->ptr_off + 8 > w->params_size ||
		    (uint64_t)t->size_off + 8 > w->params_size || t->ptr_off == t->size_off) {
			gpudp_errf(err, len, "%s %u: address at %u and size at %u must be two "
				   "8-byte aligned uint64_t fields inside the %u bytes of parameters",
				   what, i, t->ptr_off, t->size_off, w->params_size);
			return 0;
		}
	}
	return 1;
}

/* the tables: at most GPUDP_WORK_TABLES_MAX, described, and a fini to free
 * them; the state tables: at most as many, described */
static int
tables_ok(const struct gpudp_work *w, char *err, size_t len)
{
	uint32_t ns = gpudp_work_n_states(w);

	if (w->n_tables != 0 &&
	    (w->n_tables > GPUDP_WORK_TABLES_MAX || w->tables == NULL || w->fini == NULL)) {
		gpudp_errf(err, len, "%u tables: at most %d, each described (tables), and a fini "
			   "to free them", w->n_tables, GPUDP_WORK_TABLES_MAX);
		return 0;
	}
	if (ns != 0 && (ns > GPUDP_WORK_TABLES_MAX || w->states == NULL)) {
		gpudp_errf(err, len, "%u state tables: at most %d, each described (states)",
			   ns, GPUDP_WORK_TABLES_MAX);
		return 0;
	}
	return fields_ok(w, w->tables, w->n_tables, "table", err, len) &&
		fields_ok(w, w->states, ns, "state table", err, len);
}

int
gpudp_work_validate(const struct gpudp_work *w, char *err, size_t len)
{
	if (w == NULL) {
		gpudp_errf(err, len, "no descriptor");
		return -EINVAL;
	}
	if (w->abi != GPUDP_WORK_ABI) {
		gpudp_errf(err, len, "built for work ABI %u, this gpudp has ABI %u: rebuild the "
		     "work against this SDK", w->abi, GPUDP_WORK_ABI);
		return -EPROTO;
	}
	if (w->size != sizeof(*w) && w->size != GPUDP_WORK_SIZE_NO_STATE) {
		gpudp_errf(err, len, "descriptor of %u bytes, ABI %u has %zu (or %u without "
			   "state)", w->size, GPUDP_WORK_ABI, sizeof(*w), GPUDP_WORK_SIZE_NO_STATE);
		return -EPROTO;
	}
	if (!name_ok(w->name, GPUDP_WORK_NAME_MAX, 1)) {
		gpudp_errf(err, len, "name '%s': want [a-z0-9_-], 1..%d bytes",
		     w->name != NULL ? w->name : "(null)", GPUDP_WORK_NAME_MAX - 1);
		return -EINVAL;
	}
	if (w->cpu == NULL) {
		gpudp_errf(err, len, "no CPU form (cpu): every work has one (GPUDP_WORK_CPU)");
		return -EINVAL;
	}
	if (w->span != 0 && w->wspan > w->span) {
		gpudp_errf(err, len, "write span %u exceeds span %u", w->wspan, w->span);
		return -EINVAL;
	}
	if (w->result_size > GPUDP_WORK_RESULT_MAX) {
		gpudp_errf(err, len, "result of %u bytes: at most %d", w->result_size,
		     GPUDP_WORK_RESULT_MAX);
		return -EINVAL;
	}
	if (w->params_size > GPUDP_WORK_PARAMS_MAX) {
		gpudp_errf(err, len, "parameters of %u bytes: at most %d", w->params_size,
		     GPUDP_WORK_PARAMS_MAX);
		return -EINVAL;
	}
	if (w->n_reasons > GPUDP_WORK_REASONS_MAX) {
		gpudp_errf(err, len, "%u drop reasons: at most %d", w->n_reasons,
		     GPUDP_WORK_REASONS_MAX);
		return -EINVAL;
	}
	if (w->n_counters > GPUDP_WORK_COUNTERS_MAX) {
		gpudp_errf(err, len, "%u counters: at most %d", w->n_counters,
		     GPUDP_WORK_COUNTERS_MAX);
		return -EINVAL;
	}
	if (!names_ok(w->reasons, w->n_reasons, "reason", err, len) ||
	    !names_ok(w->counters, w->n_counters, "counter", err, len) ||
	    !tables_ok(w, err, len))
		return -EINVAL;
	return gpudp_work_image_check(w, err, len);
}

static int
reg_locked(const struct gpudp_work *w, const char *origin, void *dl, char *err, size_t len)
{
	unsigned int i;
	int ret = gpudp_work_validate(w, err, len);

	if (ret != 0)
		return ret;
	for (i = 0; i < n_works; i++)
		if (strcmp(works[i].w->name, w->name) == 0) {
			gpudp_errf(err, len, "a work named '%s' is already registered (%s)", w->name,
			     works[i].origin);
			return -EEXIST;
		}
	if (n_works == WORKS_MAX) {
		gpudp_errf(err, len, "%d works registered already", WORKS_MAX);
		return -ENOSPC;
	}
	works[n_works].w = w;
	works[n_works].dl = dl;
	snprintf(works[n_works].origin, ORIGIN_MAX, "%s", origin);
	n_works++;
	return 0;
}

static void
builtins_register(void)
{
	char err[160];
	unsigned int i;

#ifdef GPUDP_HAS_CUDA
	{
		const struct gpudp_cuda_image *img[GPUDP_FWD_K_MAX] = {
			&gpudp_work_image_macswap, &gpudp_work_image_ipv4,
			&gpudp_work_image_load,
		};

		for (i = 0; i < GPUDP_FWD_K_MAX; i++) {
			builtins[i].gpu_image = img[i]->data;
			builtins[i].gpu_image_size = img[i]->size;
		}
		gpudp_work_match.gpu_image = gpudp_work_image_match.data;
		gpudp_work_match.gpu_image_size = gpudp_work_image_match.size;
		gpudp_work_rules.gpu_image = gpudp_work_image_rules.data;
		gpudp_work_rules.gpu_image_size = gpudp_work_image_rules.size;
	}
#endif
	pthread_mutex_lock(&works_lock);
	for (i = 0; i < GPUDP_FWD_K_MAX; i++)
		if (reg_locked(&builtins[i], "built-in", NULL, err, sizeof(err)) != 0)
			WORK_LOG(ERR, "built-in work %s: %s", builtins[i].name, err);
	if (reg_locked(&gpudp_work_match, "built-in", NULL, err, sizeof(err)) != 0)
		WORK_LOG(ERR, "built-in work %s: %s", gpudp_work_match.name, err);
	if (reg_locked(&gpudp_work_rules, "built-in", NULL, err, sizeof(err)) != 0)
		WORK_LOG(ERR, "built-in work %s: %s", gpudp_work_rules.name, err);
	pthread_mutex_unlock(&works_lock);
}

int
gpudp_work_register(const struct gpudp_work *w, char *err, size_t err_len)
{
	int ret;

	pthread_once(&builtins_once, builtins_register);
	pthread_mutex_lock(&works_lock);
	ret = reg_locked(w, "registered", NULL, err, err_len);
	pthread_mutex_unlock(&works_lock);
	return ret;
}

static struct work_ent *
find_locked(const struct gpudp_work *w, const char *name)
{
	unsigned int i;

	for (i = 0; i < n_works; i++)
		if (works[i].w == w || (name != NULL && strcmp(works[i].w->name, name) == 0))
			return &works[i];
	return NULL;
}

const struct gpudp_work *
gpudp_work_find(const char *name)
{
	struct work_ent *e;

	if (name == NULL)
		return NULL;
	pthread_once(&builtins_once, builtins_register);
	pthread_mutex_lock(&works_lock);
	e = find_locked(NULL, name);
	pthread_mutex_unlock(&works_lock);
	return e != NULL ? e->w : NULL;
}

const char *
gpudp_work_origin(const struct gpudp_work *w)
{
	struct work_ent *e;

	pthread_once(&builtins_once, builtins_register);
	pthread_mutex_lock(&works_lock);
	e = find_locked(w, NULL);
	pthread_mutex_unlock(&works_lock);
	return e != NULL ? e->origin : "unregistered";
}

int
gpudp_work_foreach(int (*fn)(const struct gpudp_work *w, void *arg), void *arg)
{
	unsigned int i, n;
	int ret = 0;

	pthread_once(&builtins_once, builtins_register);
	pthread_mutex_lock(&works_lock);
	n = n_works;
	pthread_mutex_unlock(&works_lock);
	/* entries are only appended: the first n stay as they are */
	for (i = 0; i < n && ret == 0; i++)
		ret = fn(works[i].w, arg);
	return ret;
}

const struct gpudp_work *
gpudp_work_load(const char *path, char *err, size_t err_len)
{
	const struct gpudp_work *(*entry)(void);
	const struct gpudp_work *w;
	char why[200];
	struct stat st;
	void *dl;
	int ret;

	pthread_once(&builtins_once, builtins_register);
	if (path == NULL || stat(path, &st) != 0) {
		gpudp_errf(err, err_len, "work %s: %s", path != NULL ? path : "(null)",
		     strerror(errno));
		rte_errno = ENOENT;
		return NULL;
	}
	/* dlopen() searches the library path for a name without '/' */
	if (strchr(path, '/') == NULL) {
		gpudp_errf(err, err_len, "work %s: give a path (./%s), not a bare name", path, path);
		rte_errno = ENOENT;
		return NULL;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		gpudp_errf(err, err_len, "work %s: not a loadable shared object: %s", path, dlerror());
		rte_errno = ENOEXEC;
		return NULL;
	}
	*(void **)&entry = dlsym(dl, GPUDP_WORK_ENTRY);
	if (entry == NULL) {
		gpudp_errf(err, err_len, "work %s: no entry point %s (export the descriptor with "
		     "GPUDP_WORK_EXPORT)", path, GPUDP_WORK_ENTRY);
		rte_errno = ENOEXEC;
		goto fail;
	}
	w = entry();
	if (w == NULL) {
		gpudp_errf(err, err_len, "work %s: %s returned no descriptor", path, GPUDP_WORK_ENTRY);
		rte_errno = ENOEXEC;
		goto fail;
	}
	pthread_mutex_lock(&works_lock);
	ret = reg_locked(w, path, dl, why, sizeof(why));
	pthread_mutex_unlock(&works_lock);
	if (ret != 0) {
		gpudp_errf(err, err_len, "work %s: %s", path, why);
		rte_errno = ret == -EPROTO || ret == -ENOEXEC || ret == -EEXIST ||
			    ret == -ENOSPC ? -ret : EINVAL;
		goto fail;
	}
	WORK_LOG(INFO, "work %s from %s (span %u, result %u bytes, %u reasons, %u counters, %s)",
	       w->name, path, w->span, w->result_size, w->n_reasons, w->n_counters,
	       w->gpu_image != NULL ? "GPU image" : "CPU only");
	return w;
fail:
	dlclose(dl);
	return NULL;
}

int
gpudp_work_params(const struct gpudp_work *w, const char *arg, void *params,
		  char *err, size_t err_len)
{
	char why[200] = "";
	int ret;

	if (w->params_size != 0)
		memset(params, 0, w->params_size);
	if (w->init == NULL) {
		if (arg != NULL && arg[0] != '\0') {
			gpudp_errf(err, err_len, "work %s takes no argument (got '%s')", w->name, arg);
			return -EINVAL;
		}
		return 0;
	}
	ret = w->init(arg, params, why, sizeof(why));
	if (ret != 0) {
		gpudp_errf(err, err_len, "work %s: %s", w->name, why[0] != '\0' ? why :
		     "its argument was refused");
		return ret < 0 ? ret : -EINVAL;
	}
	return 0;
}

void
gpudp_work_params_release(const struct gpudp_work *w, void *params)
{
	if (w != NULL && w->fini != NULL && params != NULL)
		w->fini(params);
}

const char *
gpudp_work_verdict_name(const struct gpudp_work *w, uint32_t v)
{
	if (v == GPUDP_WORK_PASS)
		return "pass";
	if (v == GPUDP_WORK_DROP_ERROR)
		return "error";
	if (w != NULL && v <= w->n_reasons)
		return w->reasons[v - 1];
	return NULL;
}
