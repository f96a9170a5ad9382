/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the filter compiler (lib/analysis/gpudp_filter.c). The
 * input is an expression. A compiled program is checked (every instruction
 * in range, compiling again gives the same program) and run over a fixed set
 * of frames (IPv4 TCP/UDP/ICMP, IPv6 with extension headers, VLAN and QinQ,
 * fragments, ARP, runts) through the CPU analysis. The same expression is
 * compiled with the names of a small pattern set too ('match NAME'): what
 * compiled without them compiles the same, and the program runs with the
 * frames' payloads scanned for the patterns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_filter: %s\n", #c); abort(); } } while (0)

static const char *const frames_hex[] = {
	/* IPv4 TCP 10.0.0.1:1234 -> 10.0.0.2:8080 */
	"02000000000202000000000108004500002800010000400600000a0000010a00000204d2"
	"1f900000000100000000500203e800000000",
	/* VLAN 100, IPv4 UDP 192.168.1.1:53 -> 192.168.1.2:5353 */
	"020000000002020000000001810000640800450000200001000040110000c0a80101c0a8"
	"0102003514e9000c000061626364",
	/* QinQ 200/300, IPv4 ICMP echo */
	"02000000000202000000000188a800c88100012c08004500002000010000400100000a00"
	"00010a000002080000000001000161626364",
	/* IPv6 hop-by-hop, then UDP fd00::1:1000 -> fd00::2:2000 */
	"02000000000202000000000186dd6000000000100040fd00000000000000000000000000"
	"0001fd000000000000000000000000000002110001040000000003e807d000080000",
	/* IPv4 non-first fragment of UDP */
	"02000000000202000000000108004500002000010020401100000a0000010a0000020000"
	"00000000000000000000",
	/* IPv6 fragment header (first fragment), TCP */
	"02000000000202000000000186dd60000000001c2c40fd00000000000000000000000000"
	"0001fd000000000000000000000000000002060000010000000104d21f90000000010000"
	"0000500203e800000000",
	/* ARP */
	"020000000002020000000001080600010800060400010000000000000a00000100000000"
	"00000a000002",
	/* a runt */
	"0200000000",
};

static uint8_t frames[8][128];
static uint32_t frame_len[8];

static void
load_frames(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(frames_hex) / sizeof(frames_hex[0]); i++) {
		const char *h = frames_hex[i];
		uint32_t n = 0;
		unsigned int v;

		while (*h != '\0') {
			CHECK(sscanf(h, "%2x", &v) == 1 && n < sizeof(frames[i]));
			frames[i][n++] = (uint8_t)v;
			h += 2;
		}
		frame_len[i] = n;
	}
}

/* payload inspection: patterns whose names the filter's 'match NAME' looks up */
static const char patterns_txt[] =
	"http \"HTTP\" nocase\nab-c.d \"\\x00\\x00\"\nx1 \"\\x45\"\n";
static struct gpudp_match_pattern *pats;
static struct gpudp_match_db *db;
static uint32_t n_pats;

static void
load_patterns(void)
{
	char err[200];

	CHECK(gpudp_match_parse(patterns_txt, sizeof(patterns_txt) - 1, &pats, &n_pats, err,
				sizeof(err)) == 0);
	db = gpudp_match_compile(pats, n_pats, err, sizeof(err));
	CHECK(db != NULL);
}

/*
 * The same expression with the pattern names known: what compiled without
 * them compiles to the same program; a 'match' instruction names a pattern
 * of the set; the analysis runs it over the frames with their payloads
 * scanned. @p plain is the program without the names, or NULL.
 */
static void
with_patterns(const char *expr, const struct gpudp_filter *plain)
{
	struct gpudp_filter f;
	struct gpudp_analysis *a;
	unsigned int i;
	uint32_t k;
	int rc = gpudp_filter_compile_match(expr, pats, n_pats, &f, NULL, 0);

	CHECK(rc == 0 || rc == -EINVAL || rc == -E2BIG);
	if (plain != NULL)
		CHECK(rc == 0 && memcmp(plain, &f, sizeof(f)) == 0);
	if (rc != 0)
		return;
	for (k = 0; k < f.n_insn; k++)
		if (f.insn[k].op == GPUDP_FOP_MATCH)
			CHECK(f.insn[k].af == 1 ||
			      ((uint32_t)f.insn[k].lo | (uint32_t)f.insn[k].hi << 16) < n_pats);
	a = gpudp_analysis_create(16, &f);
	CHECK(a != NULL && gpudp_analysis_set_match(a, db, 0) == 0);
	for (i = 0; i < sizeof(frames_hex) / sizeof(frames_hex[0]); i++)
		for (k = 0; k <= frame_len[i]; k += 7)
			(void)gpudp_analysis_packet(a, frames[i], k, frame_len[i], i);
	CHECK(a->ctr.filter_pkts <= a->ctr.pkts && a->ctr.match_pkts <= a->ctr.pkts);
	gpudp_analysis_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int loaded;
	struct gpudp_filter f, g;
	struct gpudp_analysis *a;
	char err[200], *expr;
	unsigned int i;
	uint32_t k;
	int rc;

	if (!loaded) {
		load_frames();
		load_patterns();
		loaded = 1;
	}
	expr = malloc(size + 1);
	CHECK(expr != NULL);
	memcpy(expr, data, size);
	expr[size] = '\0';
	/* a short error buffer as well: messages are cut, never overrun */
	rc = gpudp_filter_compile(expr, &f, err, size % 2 ? 8 : sizeof(err));
	if (rc == 0) {
		CHECK(f.n_insn <= GPUDP_FILTER_MAX_INSN);
		CHECK(gpudp_filter_compile(expr, &g, NULL, 0) == 0);
		CHECK(memcmp(&f, &g, sizeof(f)) == 0);
		a = gpudp_analysis_create(16, &f);
		CHECK(a != NULL);
		for (i = 0; i < sizeof(frames_hex) / sizeof(frames_hex[0]); i++)
			for (k = 0; k <= frame_len[i]; k += 7)
				(void)gpudp_analysis_packet(a, frames[i], k, frame_len[i], i);
		CHECK(a->ctr.filter_pkts <= a->ctr.pkts);
		gpudp_analysis_free(a);
	} else {
		CHECK(rc == -EINVAL || rc == -E2BIG);
	}
	with_patterns(expr, rc == 0 ? &f : NULL);
	free(expr);
	return 0;
}
