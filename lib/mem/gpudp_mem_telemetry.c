/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry of lib/mem:
 *   /gpudp/pools            names of the live pools
 *   /gpudp/pool,<name>      a pool's gpudp_pool_info
 *   /gpudp/regcache         the kmod backend's registration cache counters
 */
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include <gpudp_dpdk_compat.h>

#include <gpudp_regcache.h>

#include "gpudp_mem_pvt.h"

static void
add_name(const struct gpudp_pool *p, void *arg)
{
	rte_tel_data_add_array_string(arg, gpudp_pool_name(p));
}

static int
tel_pools(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	gpudp_pool_foreach(add_name, d);
	return 0;
}

struct find {
	const char *name;
	struct gpudp_pool_info info;
	int found;
};

static void
find_pool(const struct gpudp_pool *p, void *arg)
{
	struct find *f = arg;

	if (strcmp(gpudp_pool_name(p), f->name) == 0) {
		gpudp_pool_info_get(p, &f->info);
		f->found = 1;
	}
}

static int
tel_pool(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct find f = { .name = params };

	RTE_SET_USED(cmd);
	if (params == NULL)
		return -1;
	gpudp_pool_foreach(find_pool, &f);
	if (!f.found)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "type", gpudp_mem_type_name(f.info.type));
	if (f.info.type == GPUDP_MEM_DEVICE || f.info.type == GPUDP_MEM_SPLIT)
		rte_tel_data_add_dict_string(d, "pin", gpudp_pin_backend_name(f.info.pin));
	gpudp_tel_dict_u64(d, "nb_mbufs", f.info.nb_mbufs);
	gpudp_tel_dict_u64(d, "elt_size", f.info.elt_size);
	gpudp_tel_dict_u64(d, "chunks", f.info.chunks);
	gpudp_tel_dict_u64(d, "extmem_segs", f.info.extmem_segs);
	gpudp_tel_dict_u64(d, "data_bytes", f.info.data_bytes);
	gpudp_tel_dict_u64(d, "gpu_bytes", f.info.gpu_bytes);
	gpudp_tel_dict_u64(d, "host_bytes", f.info.host_bytes);
	gpudp_tel_dict_u64(d, "pins", f.info.pins);
	return 0;
}

static int
tel_regcache(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gpudp_regcache_stats st;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	gpudp_mem_pin_stats(&st);
	rte_tel_data_start_dict(d);
	gpudp_tel_dict_u64(d, "hits", st.hits);
	gpudp_tel_dict_u64(d, "misses", st.misses);
	gpudp_tel_dict_u64(d, "pins", st.pins);
	gpudp_tel_dict_u64(d, "pin_failures", st.pin_failures);
	gpudp_tel_dict_u64(d, "unpins", st.unpins);
	gpudp_tel_dict_u64(d, "evictions", st.evictions);
	gpudp_tel_dict_u64(d, "invalidations", st.invalidations);
	gpudp_tel_dict_u64(d, "bytes_pinned", st.bytes_pinned);
	gpudp_tel_dict_u64(d, "regions", st.regions);
	return 0;
}

RTE_INIT(gpudp_mem_telemetry_init)
{
	rte_telemetry_register_cmd("/gpudp/pools", tel_pools,
		"Names of gpudp mbuf pools. Takes no parameters");
	rte_telemetry_register_cmd("/gpudp/pool", tel_pool,
		"A gpudp pool's memory. Parameter: pool name");
	rte_telemetry_register_cmd("/gpudp/regcache", tel_regcache,
		"Registration cache counters of the kmod pin backend. Takes no parameters");
}
