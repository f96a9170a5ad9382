/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the metrics endpoint's address, --metrics [HOST:]PORT
 * (gpudp_metrics_parse_listen(), lib/metrics/gpudp_metrics_http.c). The
 * input, cut at its first NUL, is one address. Each answer is compared
 * with an oracle written here: "[V6]:PORT" (V6 up to the first ']', a
 * numeric IPv6 address), or "HOST:PORT" split at the last ':' (HOST without
 * ':', an IPv4 address, "localhost" or "*"), or PORT alone (the loopback);
 * HOST under 64 bytes; PORT 1 to 5 decimal digits of value 0..65535. An
 * accepted address is the oracle's: family, port in network order, address
 * bytes and length. A refused one is -EINVAL with a message that quotes
 * the input, cut inside a short buffer; a NULL buffer is allowed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_oracle.h"
#include "gpudp_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_metrics_listen: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* the oracle: 0 and the address in @p want, or -EINVAL */
static int
oracle(const char *s, struct sockaddr_storage *want)
{
	char host[64] = "127.0.0.1";
	const char *port = s, *c;
	unsigned long long p;
	size_t hl = 0;
	int v6 = 0;

	if (s[0] == '\0')
		return -EINVAL;
	if (s[0] == '[') {
		c = strchr(s, ']');
		if (c == NULL || c[1] != ':')
			return -EINVAL;
		hl = (size_t)(c - s - 1);
		port = c + 2;
		v6 = 1;
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl);
		host[hl] = '\0';
	} else if ((c = strrchr(s, ':')) != NULL) {
		hl = (size_t)(c - s);
		if (memchr(s, ':', hl) != NULL || hl == 0 || hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, hl);
		host[hl] = '\0';
		port = c + 1;
	}
	if (strlen(port) > 5 || fuzz_decimal(port, strlen(port), &p) != 0 || p > 65535)
		return -EINVAL;
	memset(want, 0, sizeof(*want));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)want;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)want;

		if (strcmp(host, "*") == 0)
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (strcmp(host, "localhost") == 0)
			a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage got, want;
	char spec[600], err[1024], small[8];
	socklen_t len = 0;
	size_t n = strnlen((const char *)data, size < sizeof(spec) - 1 ? size : sizeof(spec) - 1);
	int rc, o;

	memcpy(spec, data, n);
	spec[n] = '\0';
	memset(&got, 0x5a, sizeof(got));
	err[0] = '\0';
	rc = gpudp_metrics_parse_listen(spec, &got, &len, err, sizeof(err));
	o = oracle(spec, &want);
	CHECK(rc == o, "'%s': %d, oracle %d (%s)", spec, rc, o, err);
	if (rc == 0) {
		socklen_t wl = want.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			       sizeof(struct sockaddr_in);

		CHECK(len == wl && memcmp(&got, &want, wl) == 0, "'%s': another address", spec);
	} else {
		char quoted[620];

		snprintf(quoted, sizeof(quoted), "'%s': ", spec);
		CHECK(strncmp(err, quoted, strlen(quoted)) == 0 && err[strlen(quoted)] != '\0',
		      "'%s': message '%s'", spec, err);
		memset(small, 0x7e, sizeof(small));
		CHECK(gpudp_metrics_parse_listen(spec, &got, &len, small, 4) == -EINVAL &&
		      strnlen(small, 4) < 4 && small[4] == 0x7e, "'%s': past a 4-byte buffer", spec);
		CHECK(gpudp_metrics_parse_listen(spec, &got, &len, NULL, 0) == -EINVAL,
		      "'%s': NULL buffer", spec);
	}
	return 0;
}
