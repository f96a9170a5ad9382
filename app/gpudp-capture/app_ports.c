/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-capture: the capture files named in the EAL arguments (checked
 * before EAL reads them), the selected ports and their set-up.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "cap_app.h"
#include "gpudp_app_port.h"

/* ------------------------------------------------------------ input checks */

/*
 * A capture file's path in a net_pcap device argument (rx_pcap=PATH): DPDK
 * 22.11's kvargs end a value at ',' and take a second '=' as the end of a
 * key, so that net_pcap would be given another key than rx_pcap, fail its
 * probe, and make no port. @return the first such character of @p path, or 0
 */
static char
devarg_unfit(const char *path)
{
	const char *c = strpbrk(path, ",=");

	return c != NULL ? *c : 0;
}

/* --reader pmd: a --pcap path that net_pcap's device argument cannot carry, refused. */
static int
check_pmd_paths(const struct cap_app *app)
{
	unsigned int i;

	if (app->conf.reader == CAP_CONF_READER_DIRECT)
		return 0;   /* the direct reader opens the path itself */
	for (i = 0; i < app->conf.n_pcap; i++) {
		char c = devarg_unfit(app->conf.pcap[i]);

		if (c == 0)
			continue;
		fprintf(stderr, "gpudp-capture: --pcap: bad value '%s' (the path contains '%c', "
			"which net_pcap's device argument rx_pcap=PATH cannot carry: DPDK would "
			"split it there and net_pcap would make no port; the direct reader "
			"(--reader direct) reads it, or give a path without '%c', a link for "
			"example)\n", app->conf.pcap[i], c, c);
		return -1;
	}
	return 0;
}

/* An EAL --vdev's rx_pcap=PATH whose path DPDK cannot pass on whole, refused. */
static int
check_vdev_path(const char *vdev, const char *path)
{
	char c = devarg_unfit(path);

	if (c == 0)
		return 0;
	fprintf(stderr, "gpudp-capture: --vdev '%s': the rx_pcap path '%s' contains '%c', which "
		"a device argument cannot carry (DPDK would split it there and net_pcap would "
		"make no port): give a path without '%c', a link for example, or read the file "
		"with --pcap FILE and the direct reader\n", vdev, path, c, c);
	return -1;
}

/* Capture file @p path of vdev @p vdev (up to its first ',') into app->files. */
static int
add_file(struct cap_app *app, const char *vdev, const char *path, int infinite)
{
	struct vdev_file *f;

	if (app->n_files == MAX_VDEV_FILES) {
		fprintf(stderr, "gpudp-capture: too many rx_pcap files (max %d)\n",
			MAX_VDEV_FILES);
		return -1;
	}
	f = &app->files[app->n_files++];
	snprintf(f->vdev, sizeof(f->vdev), "%.*s", (int)strcspn(vdev, ","), vdev);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->infinite = infinite;
	return 0;
}

/* Collect rx_pcap= files from the EAL part of argv (before "--"). */
int
app_scan_vdevs(struct cap_app *app, int argc, char **argv)
{
	int i;

	if (check_pmd_paths(app) != 0)
		return -1;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *v = NULL;
		char buf[1024], *tok, *save = NULL, *name;

		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			v = argv[i] + 7;
		if (v == NULL || strncmp(v, "net_pcap", 8) != 0)
			continue;
		if (strncmp(v, "net_pcap_gpudp", 14) == 0 && strstr(v, ",rx_pcap=") != NULL) {
			/* a --pcap file's (init_eal()): its one argument is the
			 * whole path, commas too (check_pmd_paths() refused
			 * those for the PMD; the direct reader reads them) */
			if (add_file(app, v, strstr(v, ",rx_pcap=") + 9, 0) != 0)
				return -1;
			continue;
		}
		snprintf(buf, sizeof(buf), "%s", v);
		name = strtok_r(buf, ",", &save);
		while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
			if (strncmp(tok, "rx_pcap=", 8) != 0)
				continue;
			if (check_vdev_path(v, tok + 8) != 0 ||
			    add_file(app, name, tok + 8, strstr(v, "infinite_rx=1") != NULL) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * What the inspection found that the run counts: a cut last record, a file
 * that changed size while it was inspected, records longer than the mbuf
 * data room (net_pcap, staged: chained mbufs; in place the data room is
 * raised to the largest record, and the direct reader has no mbufs: it
 * reads every record whole into a batch, so nothing is said then).
 */
static void
file_notes(struct cap_app *app, const struct vdev_file *f)
{
	const struct cap_conf *c = &app->conf;

	if (f->info.truncated) {
		fprintf(stderr, "gpudp-capture: warning: %s is truncated: the record at offset %"
			PRIu64 " is incomplete; the %" PRIu64 " complete packets before it are "
			"read, the incomplete record is counted in rx_errors\n", f->path,
			f->info.trunc_offset, f->info.packets);
		app->file_truncated = 1;
	}
	if (f->info.changed) {
		fprintf(stderr, "gpudp-capture: warning: %s changed size while it was inspected "
			"(%" PRIu64 " bytes, then %" PRIu64 "): the report covers what is read of "
			"it (input_file.changed_while_read); exit status 1\n", f->path,
			f->info.size, f->info.size_now);
		app->files_changed++;
	}
	if (f->info.oversize && c->reader != CAP_CONF_READER_DIRECT &&
	    c->mem != CAP_CONF_MEM_PINNED && c->mem != CAP_CONF_MEM_DEVICE)
		fprintf(stderr, "gpudp-capture: note: %s has %" PRIu64 " packets longer than "
			"the %u-byte mbuf data room (largest %u): they arrive as chained mbufs "
			"and are analysed whole (counted as multi_segment)%s\n", f->path,
			f->info.oversize, c->data_room, f->info.max_caplen,
			f->info.max_caplen > 65535 ? ", but for those over 65535 bytes, which "
			"net_pcap cuts (counted as pmd_cut)" : "");
}

/* Inspect each file: clear errors for what net_pcap would mishandle. */
int
app_check_files(struct cap_app *app)
{
	unsigned int i;
	char err[512];

	for (i = 0; i < app->n_files; i++) {
		struct vdev_file *f = &app->files[i];
		const struct gpudp_capfile_info *in = &f->info;
		int rc = gpudp_capfile_inspect(f->path, app->conf.data_room, &f->info, err,
					       sizeof(err));

		if (rc != 0) {
			fprintf(stderr, "gpudp-capture: input error: %s\n", err);
			return -1;
		}
		if (in->mixed_linktypes) {
			fprintf(stderr, "gpudp-capture: input error: %s: interfaces of different link "
				"types: interface %u of section %u (block at offset %" PRIu64 ") has "
				"link type %u (%s), the first interface %u (%s); gpudp-capture "
				"analyses Ethernet frames only, and libpcap (net_pcap's reader) reads "
				"one link type per file\n", f->path, in->other_ifid,
				in->other_section, in->other_offset, in->other_linktype,
				gpudp_capfile_linktype_name(in->other_linktype), in->linktype,
				gpudp_capfile_linktype_name(in->linktype));
			return -1;
		}
		if (in->linktype != GPUDP_CAPFILE_LINKTYPE_ETHERNET &&
		    in->linktype != GPUDP_CAPFILE_LINKTYPE_NONE) {
			fprintf(stderr, "gpudp-capture: input error: %s: link type %u (%s) is not "
				"Ethernet; gpudp-capture analyses Ethernet frames only\n", f->path,
				in->linktype, gpudp_capfile_linktype_name(in->linktype));
			return -1;
		}
		if (in->libpcap_diff[0] != '\0') {
			fprintf(stderr, "gpudp-capture: input error: %s: %s; gpudp-capture reads "
				"capture files through net_pcap, which uses libpcap%s\n", f->path,
				in->libpcap_diff, in->packets > 0 ? " (a copy written by "
				"'editcap -F pcap' is read whole)" : "");
			return -1;
		}
		file_notes(app, f);
	}
	return 0;
}

/*
 * After net_pcap read the capture files: each whose size is no longer the
 * one inspected (it changed while net_pcap read it: its packets need not be
 * those counted), said and counted in input_file.changed_while_read.
 */
void
app_check_file_sizes(struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_files; i++) {
		const struct vdev_file *f = &app->files[i];
		struct stat st;

		if (f->info.changed || stat(f->path, &st) != 0 ||
		    (uint64_t)st.st_size == f->info.size)
			continue;
		CAP_LOG(WARNING, "%s changed size while it was read: %" PRIu64 " bytes when "
			"inspected, %" PRIu64 " at the end; its %" PRIu64 " packets inspected need "
			"not be those read. The report covers what was read "
			"(input_file.changed_while_read); exit status 1", f->path, f->info.size,
			(uint64_t)st.st_size, f->info.packets);
		app->files_changed++;
	}
}

/* ------------------------------------------------------------------ ports */

/* Whether --ports selects port @p id (all ports without --ports). */
static int
port_selected(const struct cap_conf *c, uint16_t id)
{
	uint32_t i;

	if (c->n_ports == 0)
		return 1;
	for (i = 0; i < c->n_ports; i++)
		if (c->ports[i] == id)
			return 1;
	return 0;
}

/*
 * net_pcap: one rx queue per rx_pcap file of the port, microsecond
 * timestamps, and the packets expected; live if a file is read forever.
 */
static void
pcap_queues(struct cap_app *app, struct cap_port *p, const struct rte_eth_dev_info *info)
{
	int files = 0, infinite = 0;
	unsigned int i;

	p->ts_mult = 1000;
	for (i = 0; i < app->n_files; i++) {
		if (strcmp(app->files[i].vdev, p->name) != 0)
			continue;
		if (files < CAP_MAX_RXQ) {
			p->rxq[files].snaps = app->files[i].info.snaps;
			p->rxq[files].n_snaps = app->files[i].info.n_snaps;
		}
		files++;
		infinite |= app->files[i].infinite;
		p->expected += app->files[i].info.packets;
	}
	if (files > 0) {
		p->nb_rxq = (uint16_t)RTE_MIN(RTE_MIN((unsigned int)files,
					      (unsigned int)info->max_rx_queues), (unsigned int)CAP_MAX_RXQ);
		p->live = infinite;
	}
	if (p->live)
		p->expected = 0;
}

/* Configure the port and set up its queues (rx from the pool). */
static int
configure_port(struct cap_app *app, struct cap_port *p)
{
	struct gpudp_pool *pools[CAP_MAX_RXQ];
	struct gpudp_app_port_conf pc = {
		.nb_rxq = p->nb_rxq, .nb_txq = p->nb_rxq,
		.nb_rxd = (uint16_t)app->conf.rxd, .nb_txd = 64,
		.mp = app->pool,
	};
	char err[256];
	uint16_t q;
	int rc;

	/* in place, a packet must be one buffer: no scatter (the data room is
	 * raised for capture files instead, see app_create_pool) */
	if (app->mem == GPUDP_CAP_MEM_STAGED)
		pc.rx_offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	if (app->gpool != NULL) {
		for (q = 0; q < p->nb_rxq; q++)
			pools[q] = app->gpool;
		pc.pools = pools;
	}
	rc = gpudp_app_port_setup(p->id, &pc, err, sizeof(err));
	if (rc != 0)
		CAP_LOG(ERR, "%s", err);
	/* a PMD that copies each frame into one mbuf refuses a queue whose
	 * mbufs are too small with ENOMEM (net_af_packet: framesz less 32) */
	if (rc == -ENOMEM && strstr(err, " rx queue ") != NULL)
		CAP_LOG(ERR, "port %u may want more bytes of data per mbuf than --data-room %u "
			"(net_af_packet: its framesz less 32, 2016 by default; its log line above "
			"says how many): raise --data-room", p->id, app->conf.data_room);
	return rc;
}

/* Set up and start a port: its queues, promiscuous mode, its link. */
static int
setup_port(struct cap_app *app, struct cap_port *p)
{
	struct rte_eth_dev_info info;
	char err[256];
	int rc;

	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0) {
		CAP_LOG(ERR, "port %u: cannot get device info: %s", p->id, rte_strerror(-rc));
		return rc;
	}
	p->nb_rxq = 1;
	p->live = 1;
	if (strcmp(info.driver_name, "net_pcap") == 0)
		pcap_queues(app, p, &info);
	rc = configure_port(app, p);
	if (rc != 0)
		return rc;
	rc = gpudp_app_port_start(p->id, err, sizeof(err));
	if (rc != 0) {
		CAP_LOG(ERR, "%s", err);
		return rc;
	}
	/* a live port drops what arrives before its link is up */
	if (p->live && !gpudp_app_link_wait(p->id, CAP_LINK_WAIT_S, &app_stop_requested))
		CAP_LOG(WARNING, "port %u (%s): link still down after %d s; capturing anyway",
			p->id, p->name, CAP_LINK_WAIT_S);
	CAP_LOG(INFO, "port %u (%s, %s): %u rx queue%s, %s", p->id, p->name, info.driver_name,
		p->nb_rxq, p->nb_rxq == 1 ? "" : "s",
		p->live ? "live" : "capture file");
	return 0;
}

/* Set up and start every selected port. */
int
app_setup_ports(struct cap_app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_ports; i++)
		if (setup_port(app, &app->ports[i]) != 0)
			return -1;
	return 0;
}

/* The selected ports, their drivers, and the input description. */
int
app_collect_ports(struct cap_app *app)
{
	uint16_t id;
	unsigned int i;

	RTE_ETH_FOREACH_DEV(id) {
		struct cap_port *p = &app->ports[app->n_ports];
		struct rte_eth_dev_info info;
		int rc;

		if (!port_selected(&app->conf, id))
			continue;
		if (app->n_ports == CAP_MAX_PORTS)
			break;
		p->id = id;
		rte_eth_dev_get_name_by_port(id, p->name);
		rc = rte_eth_dev_info_get(id, &info);
		if (rc != 0) {
			CAP_LOG(ERR, "port %u: cannot get device info: %s", id, rte_strerror(-rc));
			return -1;
		}
		snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
		p->rx_kind = gpudp_mem_port_rx(id, p->rx_why, sizeof(p->rx_why));
		app->n_ports++;
	}
	for (i = 0; i < app->conf.n_ports; i++) {
		if (!rte_eth_dev_is_valid_port(app->conf.ports[i])) {
			fprintf(stderr, "gpudp-capture: --ports: bad value '%u' (no such port; %u "
				"available)\n", app->conf.ports[i], rte_eth_dev_count_avail());
			return -2;
		}
	}
	if (app->n_ports == 0) {
		fprintf(stderr, "gpudp-capture: no ports: give one with EAL options, e.g. "
			"--vdev 'net_pcap0,rx_pcap=test/data/sample.pcap'\n");
		return -2;
	}
	return 0;
}

/* After setup_ports: what is expected, and the input description. */
void
app_describe_input(struct cap_app *app)
{
	unsigned int i;
	size_t off = 0;

	for (i = 0; i < app->n_ports; i++) {
		struct cap_port *p = &app->ports[i];

		app->expected_total += p->expected;
		app->any_live |= p->live;
		off += snprintf(app->input_desc + off, off < sizeof(app->input_desc) ?
				sizeof(app->input_desc) - off : 0, "%sport %u (%s)",
				i ? ", " : "", p->id, p->name);
		if (off >= sizeof(app->input_desc))
			off = sizeof(app->input_desc) - 1;
	}
	if (app->n_files > 0 && off < sizeof(app->input_desc)) {
		for (i = 0; i < app->n_files && off < sizeof(app->input_desc); i++)
			off += snprintf(app->input_desc + off, sizeof(app->input_desc) - off,
					"%s%s", i ? ", " : ": ", app->files[i].path);
	}
}
