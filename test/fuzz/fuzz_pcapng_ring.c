/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the rotating pcapng writer's conditions, dumpcap's
 * `-b filesize:KB,duration:SEC,files:N` (gpudp_pcapng_ring_parse(),
 * lib/capfile/gpudp_pcapng_ring.c), and the names of its files
 * (gpudp_pcapng_ring_name()). The input, cut at its first NUL, is one
 * spec; what follows the NUL, up to the next one, is an output path (a
 * fixed one when the input has no NUL). Each answer is compared with an
 * oracle written here: conditions split at ',', each a key (filesize,
 * duration or files, exactly) and a value after the first ':', 1 to 23
 * decimal digits (no sign, no space, leading zeros count), of value 1 to
 * GPUDP_PCAPNG_RING_MAX_KB, _MAX_S or _MAX_FILES; no key twice, no empty
 * spec or condition; files only with filesize or duration. An accepted
 * spec sets the three conditions to the oracle's (0: not given), leaves
 * the conf's other fields alone, and gpudp_pcapng_ring_rotates() says 1
 * exactly when filesize or duration is set; a refused one is -EINVAL,
 * leaves the conf untouched and says why, cut inside a short message
 * buffer; a NULL buffer and a length of 0 are allowed. For an accepted
 * spec, the name of a few files (indexes and times from the conditions
 * and the input) is `<stem>_<index, %05>_<UTC YYYYmmddHHMMSS><ext>` as the
 * header documents, and never more than the buffer it is given: one byte
 * short gives -ENAMETOOLONG and an empty string, nothing written past it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_oracle.h"
#include "gpudp_pcapng_ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_pcapng_ring: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* Most digits of a value: the parser's number buffer. */
#define VALUE_MAX_DIGITS 23
/* Names are checked in a buffer of this many bytes, a guard after it. */
#define NAME_BUF (PATH_MAX + 64)
#define GUARD 16

/* the oracle: 0 and the three conditions in @p val, or -EINVAL */
static int
oracle(const char *s, uint64_t val[3])
{
	static const char *const keys[3] = { "filesize", "duration", "files" };
	static const uint64_t max[3] = {
		GPUDP_PCAPNG_RING_MAX_KB, GPUDP_PCAPNG_RING_MAX_S, GPUDP_PCAPNG_RING_MAX_FILES,
	};
	const char *e = s, *colon;
	unsigned long long v;
	unsigned int k;
	size_t n, kl;

	val[0] = val[1] = val[2] = 0;
	if (s[0] == '\0')
		return -EINVAL;
	for (;;) {
		n = strcspn(e, ",");
		colon = memchr(e, ':', n);
		if (colon == NULL)
			return -EINVAL;
		kl = (size_t)(colon - e);
		for (k = 0; k < 3; k++)
			if (kl == strlen(keys[k]) && memcmp(e, keys[k], kl) == 0)
				break;
		if (k == 3 || val[k] != 0)
			return -EINVAL;
		if (n - kl - 1 > VALUE_MAX_DIGITS || fuzz_decimal(colon + 1, n - kl - 1, &v) != 0 ||
		    v < 1 || v > max[k])
			return -EINVAL;
		val[k] = v;
		if (e[n] == '\0')
			break;
		e += n + 1;
	}
	if (val[2] != 0 && val[0] == 0 && val[1] == 0)
		return -EINVAL;
	return 0;
}

/* @p path as the header names its files: the stem's length and the extension */
static void
stem_ext(const char *path, size_t *stem, const char **ext)
{
	const char *last = strrchr(path, '/');
	const char *dot;

	last = last != NULL ? last + 1 : path;
	dot = strrchr(last, '.');
	if (dot != NULL && dot != last) {
		*stem = (size_t)(dot - path);
		*ext = dot;
	} else {
		*stem = strlen(path);
		*ext = ".pcapng";
	}
}

/* whether the @p n bytes at @p p are still the 'x' they were filled with */
static int
untouched(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 'x')
			return 0;
	return 1;
}

/* the name of file @p index at @p ts_ns for @p path, checked in buffers of several sizes */
static void
check_name(const char *spec, const char *path, uint64_t index, uint64_t ts_ns)
{
	static char want[NAME_BUF], buf[NAME_BUF + GUARD];
	time_t secs = (time_t)(ts_ns / 1000000000u);
	size_t stem, need, lens[4], i;
	const char *ext;
	char when[32];
	struct tm tm;
	int n;

	if (path[0] == '\0') {
		CHECK(gpudp_pcapng_ring_name(path, index, ts_ns, buf, sizeof(buf)) == -EINVAL,
		      "'%s': an empty path named", spec);
		return;
	}
	CHECK(gmtime_r(&secs, &tm) != NULL && strftime(when, sizeof(when), "%Y%m%d%H%M%S",
						       &tm) == 14,
	      "%" PRIu64 " ns: no UTC time", ts_ns);
	stem_ext(path, &stem, &ext);
	n = snprintf(want, sizeof(want), "%.*s_%05" PRIu64 "_%s%s", (int)stem, path, index,
		     when, ext);
	CHECK(n > 0 && (size_t)n < sizeof(want), "'%s': name of %d bytes", path, n);
	need = (size_t)n;

	lens[0] = NAME_BUF;
	lens[1] = need + 1;
	lens[2] = need;
	lens[3] = 1 + index % (need + 1);
	for (i = 0; i < 4; i++) {
		size_t len = lens[i];

		memset(buf, 'x', sizeof(buf));
		n = gpudp_pcapng_ring_name(path, index, ts_ns, buf, len);
		CHECK(untouched(buf + len, GUARD), "'%s': index %" PRIu64 ", %" PRIu64
		      " ns: written past a buffer of %zu bytes", path, index, ts_ns, len);
		if (len > need) {
			CHECK(n == (int)need && strcmp(buf, want) == 0, "'%s': index %" PRIu64
			      ", %" PRIu64 " ns, %zu bytes: '%.*s' (%d), expected '%s'", path, index,
			      ts_ns, len, (int)len, buf, n, want);
		} else {
			CHECK(n == -ENAMETOOLONG && buf[0] == '\0', "'%s': index %" PRIu64 ", %zu "
			      "bytes for a name of %zu: %d", path, index, len, need, n);
		}
	}
	CHECK(gpudp_pcapng_ring_name(path, index, ts_ns, buf, 0) == -EINVAL &&
	      gpudp_pcapng_ring_name(path, index, ts_ns, NULL, 16) == -EINVAL &&
	      gpudp_pcapng_ring_name(NULL, index, ts_ns, buf, sizeof(buf)) == -EINVAL,
	      "'%s': no buffer or no path", path);
}

/* an arbitrary number from the input's bytes (FNV-1a) */
static uint64_t
input_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

static void
conf_fill(struct gpudp_pcapng_ring_conf *c)
{
	static int arg;

	memset(c, 0x5a, sizeof(*c));
	c->appname = "app";
	c->ifname = "if";
	c->snaplen = 1234;
	c->log = NULL;
	c->log_arg = &arg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpudp_pcapng_ring_conf c, before;
	const char *nul = memchr(data, '\0', size);
	const char *path = "out/ring.pcapng";
	uint64_t want[3], h = input_hash(data, size);
	char err[512], small[16];
	char *s = malloc(size + 1);
	int w, r;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (nul != NULL)
		path = s + (nul - (const char *)data) + 1;
	w = oracle(s, want);

	conf_fill(&c);
	memcpy(&before, &c, sizeof(c));
	memset(err, 'x', sizeof(err));
	r = gpudp_pcapng_ring_parse(s, &c, err, sizeof(err));
	CHECK(r == w, "'%s': %d, oracle %d (%.*s)", s, r, w, r != 0 ? 400 : 0, err);
	if (r == 0) {
		CHECK(c.filesize_kb == want[0] && c.duration_s == want[1] && c.files == want[2],
		      "'%s': %" PRIu64 " kB, %" PRIu64 " s, %u files, oracle %" PRIu64 ", %"
		      PRIu64 ", %" PRIu64, s, c.filesize_kb, c.duration_s, c.files, want[0],
		      want[1], want[2]);
		CHECK(c.appname == before.appname && c.ifname == before.ifname &&
		      c.snaplen == before.snaplen && c.log == before.log &&
		      c.log_arg == before.log_arg, "'%s': other fields changed", s);
		CHECK(gpudp_pcapng_ring_rotates(&c) == (want[0] != 0 || want[1] != 0),
		      "'%s': rotates %d", s, gpudp_pcapng_ring_rotates(&c));
	} else {
		CHECK(memcmp(&c, &before, sizeof(c)) == 0, "'%s': conf written on %d", s, r);
		CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL,
		      "'%s': no message", s);
	}

	/* a short message buffer, none, and one of length 0 */
	conf_fill(&c);
	memset(small, 'x', sizeof(small));
	r = gpudp_pcapng_ring_parse(s, &c, small, 8);
	CHECK(r == w && small[8] == 'x' && small[15] == 'x', "'%s': 8-byte message buffer", s);
	if (r != 0)
		CHECK(small[0] != '\0' && memchr(small, '\0', 8) != NULL,
		      "'%s': 8-byte message buffer not a message", s);
	conf_fill(&c);
	memset(small, 'x', sizeof(small));
	CHECK(gpudp_pcapng_ring_parse(s, &c, small, 0) == w && small[0] == 'x',
	      "'%s': message buffer of length 0", s);
	conf_fill(&c);
	CHECK(gpudp_pcapng_ring_parse(s, &c, NULL, 0) == w, "'%s': NULL message buffer", s);

	/* the files' names, for accepted conditions (a path within PATH_MAX) */
	if (w == 0 && strlen(path) < PATH_MAX) {
		check_name(s, path, 1, want[1] * 1000000000u);
		check_name(s, path, want[2] != 0 ? want[2] : 99999, h);
		check_name(s, path, want[2] + 1, want[0]);
		check_name(s, path, 100000, UINT64_MAX);
		check_name(s, path, h, h >> 1);
		check_name(s, path, UINT64_MAX, 0);
	}
	free(s);

	conf_fill(&c);
	memcpy(&before, &c, sizeof(c));
	CHECK(gpudp_pcapng_ring_parse(NULL, &c, err, sizeof(err)) == -EINVAL &&
	      memcmp(&c, &before, sizeof(c)) == 0 && err[0] != '\0', "NULL spec");
	CHECK(gpudp_pcapng_ring_rotates(NULL) == 0, "rotates(NULL)");
	return 0;
}
