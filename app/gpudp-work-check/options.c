/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpudp-work-check's options (doc/work.md, "Checking a work"): defaults,
 * then each option, then the checks across them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <gpudp_handoff.h>
#include <gpudp_opt.h>

#include "options.h"

const char *const mem_names[MEM_MAX] = { "host", "pinned", "device" };


static void
usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " --work W [--work-arg S] --pcap FILE [options]\n"
"Run a work over a capture on the CPU (the reference) and in GPU modes, and\n"
"report the first packet whose verdict, result or bytes differ, or a counter\n"
"that differs.\n"
"  --work W        a built-in work (macswap, ipv4, load) or a work's shared\n"
"                  object (a path with a '/')\n"
"  --work-arg S    the work's argument\n"
"  --pcap FILE     the capture (pcap or pcapng, Ethernet)\n"
"  --modes LIST    GPU modes to check: launch, persistent, graph, staged, or\n"
"                  all (default: all)\n"
"  --mem LIST      packet memory: device, pinned, host, or all; a mode is run\n"
"                  on each kind it can read (launch/persistent/graph: device,\n"
"                  pinned; staged: host, pinned) (default: all)\n"
"  --burst N       packets per burst, 1..%u (default: 256)\n"
"  --gpu N         CUDA device ordinal (default: 0)\n"
"  --max-packets N check the first N packets only (default: all)\n"
"  --quiet         print only differences and the summary\n"
"  --help          this text\n"
"Exit status: 0 identical, 1 a difference (printed), 2 bad option, work or\n"
"capture, 77 no usable GPU (the CPU form was run alone).\n", GPUDP_HO_BURST_MAX);
}

static int
list_arg(const char *opt, const char *v, const char *const *names, unsigned int n,
	 uint32_t all, uint32_t *out)
{
	char buf[256], *save = NULL, *t;
	unsigned int i;

	if (strcmp(v, "all") == 0) {
		*out = all;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	*out = 0;
	for (t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n; i++)
			if (names[i] != NULL && strcmp(t, names[i]) == 0)
				break;
		if (i == n || !(all & (1u << i)))
			return gpudp_opt_bad(PROG, opt, t, "not one of the choices (--help)");
		*out |= 1u << i;
	}
	return *out != 0 ? 0 : gpudp_opt_bad(PROG, opt, v, "empty list");
}

/* the names --modes takes (every mode's), and the GPU modes among them */
struct mode_choices {
	const char *names[GPUDP_HO_MODE_MAX];
	uint32_t gpu;       /* bit per enum gpudp_ho_mode */
};

static void
mode_choices_get(struct mode_choices *mc)
{
	int i;

	mc->gpu = 0;
	for (i = 0; i < GPUDP_HO_MODE_MAX; i++) {
		mc->names[i] = gpudp_ho_mode_name((enum gpudp_ho_mode)i);
		if (gpudp_ho_mode_is_gpu((enum gpudp_ho_mode)i))
			mc->gpu |= 1u << i;
	}
}

/* the options that take a list or a number; @return 0 or -1 (said why) */
static int
parse_value(struct opts *o, int c, const char *v, const struct mode_choices *mc)
{
	uint64_t n;

	switch (c) {
	case 'm':
		return list_arg("modes", v, mc->names, GPUDP_HO_MODE_MAX, mc->gpu, &o->modes);
	case 'k':
		return list_arg("mem", v, mem_names, MEM_MAX, (1u << MEM_MAX) - 1, &o->mems);
	case 'b':
		if (gpudp_opt_u64(PROG, "burst", v, 1, GPUDP_HO_BURST_MAX, &n) != 0)
			return -1;
		o->burst = (uint32_t)n;
		return 0;
	case 'g':
		if (gpudp_opt_u64(PROG, "gpu", v, 0, 63, &n) != 0)
			return -1;
		o->gpu = (uint32_t)n;
		return 0;
	default: /* 'n' */
		return gpudp_opt_u64(PROG, "max-packets", v, 1, UINT32_MAX, &o->max_pkts);
	}
}

/* one option getopt_long() returned; @return 0, 1 (--help printed) or -1 */
static int
parse_option(struct opts *o, int c, char **argv, const struct mode_choices *mc)
{
	switch (c) {
	case 'w':
		o->work_spec = optarg;
		return 0;
	case 'a':
		o->work_arg = optarg;
		return 0;
	case 'p':
		o->pcap = optarg;
		return 0;
	case 'm': case 'k': case 'b': case 'g': case 'n':
		return parse_value(o, c, optarg, mc) != 0 ? -1 : 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	default:
		fprintf(stderr, PROG ": unknown option or missing value '%s' (--help)\n",
			argv[optind - 1]);
		return -1;
	}
}

/* @return 0, 1 (--help printed: exit 0) or -1 (said why: exit 2) */
int
work_check_parse(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "work", required_argument, NULL, 'w' },
		{ "work-arg", required_argument, NULL, 'a' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "modes", required_argument, NULL, 'm' },
		{ "mem", required_argument, NULL, 'k' },
		{ "burst", required_argument, NULL, 'b' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "max-packets", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mode_choices mc;
	int c, ret;

	mode_choices_get(&mc);
	memset(o, 0, sizeof(*o));
	o->modes = mc.gpu;
	o->mems = (1u << MEM_MAX) - 1;
	o->burst = 256;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1)
		if ((ret = parse_option(o, c, argv, &mc)) != 0)
			return ret;
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->work_spec == NULL || o->pcap == NULL) {
		fprintf(stderr, PROG ": --work and --pcap are required (--help)\n");
		return -1;
	}
	return 0;
}
