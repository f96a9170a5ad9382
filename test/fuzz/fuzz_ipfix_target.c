/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: an IPFIX collector as text, --ipfix
 * `[udp:|tcp:]HOST:PORT` or `file:PATH` (gpudp_ipfix_target_parse(),
 * lib/flow/gpudp_ipfix_target.c). The input, cut at its first NUL, is one
 * target. The resolver is replaced here (no network, no DNS): it knows
 * numeric IPv4 and IPv6 addresses and "localhost" (127.0.0.1), nothing
 * else. Each answer is compared with an oracle written here: "file:" and
 * a path of 1 to 294 bytes (longer: -ENAMETOOLONG); else an optional
 * "udp:" or "tcp:" (UDP without one), then "[V6]:PORT" (V6 a numeric IPv6
 * address) or "HOST:PORT" (HOST without ':', an IPv4 address or a name),
 * PORT 1 to 5 decimal digits (leading zeros count) of value 1..65535, the
 * host under 256 bytes (else -ENAMETOOLONG), a name that does not resolve
 * -ENOENT, anything else malformed -EINVAL. An accepted target is the
 * oracle's: its transport, its address (family, port in network order,
 * address bytes and length) or its path, and its name ("udp:HOST:PORT",
 * "tcp:[V6]:PORT", "file:PATH", the port without leading zeros). A refused
 * one leaves the caller's target untouched and says why, cut inside a
 * short message buffer; a NULL buffer and a length of 0 are allowed. The
 * resolver is asked only about a well-formed host and port, with the
 * port as parsed, and everything it gives is freed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gpudp_ipfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_ipfix_target: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* Longest path and host the parser takes: "file:PATH" within the name,
 * and the host buffer of gpudp_ipfix_target.c. */
#define PATH_MAX_LEN (GPUDP_IPFIX_NAME_MAX - 6)
#define HOST_MAX_LEN 255

/* What the resolver stand-in saw during one parse. */
static unsigned int resolver_calls;
static unsigned int resolver_live;  /* results not yet freed */
static char resolver_host[512];
static unsigned int resolver_port;

/* one result: the addrinfo and its address in one allocation */
struct fake_ai {
	struct addrinfo ai;
	struct sockaddr_storage ss;
};

/*
 * getaddrinfo() and freeaddrinfo(), standing in for the C library's
 * resolver: the target is linked from the sources, so these are the ones
 * the parser calls. They touch no network and no file: numeric IPv4 and
 * IPv6 addresses (inet_pton()), and "localhost" as 127.0.0.1 unless
 * AI_NUMERICHOST; anything else is EAI_NONAME. One result, of the hints'
 * socket type.
 */
int
getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
	    struct addrinfo **res)
{
	int family = hints != NULL ? hints->ai_family : AF_UNSPEC;
	int flags = hints != NULL ? hints->ai_flags : 0;
	struct in6_addr a6;
	struct in_addr a4;
	struct fake_ai *f;
	unsigned long port;
	char *end;
	int af;

	CHECK(node != NULL && service != NULL && res != NULL, "resolver called without a "
	      "host, a port or a result");
	resolver_calls++;
	snprintf(resolver_host, sizeof(resolver_host), "%s", node);
	CHECK(flags & AI_NUMERICSERV, "'%s': port '%s' not numeric-only", node, service);
	port = strtoul(service, &end, 10);
	CHECK(*end == '\0' && service[0] >= '1' && service[0] <= '9' && port <= 65535,
	      "'%s': port '%s'", node, service);
	resolver_port = (unsigned int)port;
	*res = NULL;
	if ((family == AF_UNSPEC || family == AF_INET) && inet_pton(AF_INET, node, &a4) == 1)
		af = AF_INET;
	else if ((family == AF_UNSPEC || family == AF_INET6) &&
		 inet_pton(AF_INET6, node, &a6) == 1)
		af = AF_INET6;
	else if ((family == AF_UNSPEC || family == AF_INET) && !(flags & AI_NUMERICHOST) &&
		 strcmp(node, "localhost") == 0) {
		af = AF_INET;
		a4.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		return EAI_NONAME;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return EAI_MEMORY;
	f->ai.ai_family = af;
	f->ai.ai_socktype = hints != NULL ? hints->ai_socktype : 0;
	f->ai.ai_addr = (struct sockaddr *)&f->ss;
	if (af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&f->ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		sin->sin_addr = a4;
		f->ai.ai_addrlen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&f->ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		sin6->sin6_addr = a6;
		f->ai.ai_addrlen = sizeof(*sin6);
	}
	resolver_live++;
	*res = &f->ai;
	return 0;
}

void
freeaddrinfo(struct addrinfo *res)
{
	if (res == NULL)
		return;
	CHECK(resolver_live > 0, "freeaddrinfo() of nothing given");
	resolver_live--;
	free((struct fake_ai *)res);
}

/* What the oracle expects. */
struct want {
	int rc;
	int resolves;          /* the resolver must be asked */
	enum gpudp_ipfix_transport tr;
	int family;            /* AF_INET, AF_INET6; FILE: 0 */
	unsigned int port;
	struct in_addr a4;
	struct in6_addr a6;
	char host[HOST_MAX_LEN + 1];
	char name[GPUDP_IPFIX_NAME_MAX + 64];
	const char *path;
};

/* PORT: 1 to 5 decimal digits, 1..65535; -1 not one */
static int
port_of(const char *s, unsigned int *port)
{
	size_t n = strlen(s), i;
	unsigned int v = 0;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

/* the oracle: w->rc 0 and the target, or the negative errno */
static void
oracle(const char *s, struct want *w)
{
	const char *rest, *hs, *ps, *close;
	int v6;
	size_t hl;

	memset(w, 0, sizeof(*w));
	w->rc = -EINVAL;
	if (s[0] == '\0')
		return;
	if (strncmp(s, "file:", 5) == 0) {
		size_t n = strlen(s + 5);

		if (n == 0)
			return;
		if (n > PATH_MAX_LEN) {
			w->rc = -ENAMETOOLONG;
			return;
		}
		w->rc = 0;
		w->tr = GPUDP_IPFIX_FILE;
		w->path = s + 5;
		snprintf(w->name, sizeof(w->name), "file:%s", s + 5);
		return;
	}
	w->tr = GPUDP_IPFIX_UDP;
	rest = s;
	if (strncmp(s, "udp:", 4) == 0) {
		rest = s + 4;
	} else if (strncmp(s, "tcp:", 4) == 0) {
		w->tr = GPUDP_IPFIX_TCP;
		rest = s + 4;
	}
	v6 = rest[0] == '[';
	if (v6) {
		/* [V6]:PORT, V6 up to the first ']' */
		hs = rest + 1;
		close = strchr(hs, ']');
		if (close == NULL || close[1] != ':')
			return;
		hl = (size_t)(close - hs);
		ps = close + 2;
	} else {
		/* HOST:PORT, HOST without ':' */
		close = strrchr(rest, ':');
		if (close == NULL)
			return;
		hs = rest;
		hl = (size_t)(close - hs);
		if (memchr(hs, ':', hl) != NULL)
			return;
		ps = close + 1;
	}
	if (hl == 0 || port_of(ps, &w->port) != 0)
		return;
	if (hl > HOST_MAX_LEN) {
		w->rc = -ENAMETOOLONG;
		return;
	}
	memcpy(w->host, hs, hl);
	w->host[hl] = '\0';
	w->resolves = 1;
	if (v6) {
		if (inet_pton(AF_INET6, w->host, &w->a6) != 1)
			return;
		w->family = AF_INET6;
	} else if (inet_pton(AF_INET, w->host, &w->a4) == 1) {
		w->family = AF_INET;
	} else if (strcmp(w->host, "localhost") == 0) {
		w->family = AF_INET;
		w->a4.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		w->rc = -ENOENT;
		return;
	}
	w->rc = 0;
	snprintf(w->name, sizeof(w->name), "%s:%s%s%s:%u",
		 w->tr == GPUDP_IPFIX_TCP ? "tcp" : "udp", v6 ? "[" : "", w->host,
		 v6 ? "]" : "", w->port);
}

/* an accepted target is the oracle's */
static void
check_target(const char *s, const struct gpudp_ipfix_target *t, const struct want *w)
{
	CHECK(t->transport == w->tr, "'%s': transport %d, oracle %d", s, (int)t->transport,
	      (int)w->tr);
	CHECK(memchr(t->name, '\0', sizeof(t->name)) != NULL, "'%s': name not terminated", s);
	CHECK(strcmp(t->name, w->name) == 0, "'%s': name '%s', oracle '%s'", s, t->name,
	      w->name);
	if (w->tr == GPUDP_IPFIX_FILE) {
		CHECK(strcmp(t->path, w->path) == 0 && t->addrlen == 0,
		      "'%s': path '%s' (addrlen %u)", s, t->path, (unsigned int)t->addrlen);
		return;
	}
	CHECK(t->path[0] == '\0', "'%s': a path for a collector", s);
	CHECK(t->addr.ss_family == w->family, "'%s': family %d, oracle %d", s,
	      (int)t->addr.ss_family, w->family);
	if (w->family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&t->addr;

		CHECK(t->addrlen == sizeof(*sin) && sin->sin_port == htons((uint16_t)w->port) &&
		      sin->sin_addr.s_addr == w->a4.s_addr, "'%s': IPv4 address %08x port %u "
		      "(addrlen %u), oracle %08x %u", s, ntohl(sin->sin_addr.s_addr),
		      ntohs(sin->sin_port), (unsigned int)t->addrlen, ntohl(w->a4.s_addr),
		      w->port);
	} else {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&t->addr;

		CHECK(t->addrlen == sizeof(*sin6) &&
		      sin6->sin6_port == htons((uint16_t)w->port) &&
		      memcmp(&sin6->sin6_addr, &w->a6, sizeof(w->a6)) == 0,
		      "'%s': IPv6 port %u (addrlen %u), oracle port %u", s,
		      ntohs(sin6->sin6_port), (unsigned int)t->addrlen, w->port);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpudp_ipfix_target t, before;
	static struct want w;
	char err[512], small[16];
	char *s = malloc(size + 1);
	int r;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	oracle(s, &w);

	memset(&t, 0x5a, sizeof(t));
	memcpy(&before, &t, sizeof(t));
	memset(err, 'x', sizeof(err));
	resolver_calls = 0;
	r = gpudp_ipfix_target_parse(s, &t, err, sizeof(err));
	CHECK(resolver_live == 0, "'%s': %u resolver results not freed", s, resolver_live);
	CHECK(r == w.rc, "'%s': %d, oracle %d (%.*s)", s, r, w.rc, r != 0 ? 400 : 0, err);
	CHECK(resolver_calls == (unsigned int)w.resolves, "'%s': resolver asked %u times, "
	      "oracle %d", s, resolver_calls, w.resolves);
	if (w.resolves)
		CHECK(strcmp(resolver_host, w.host) == 0 && resolver_port == w.port,
		      "'%s': resolver asked for '%s' port %u, oracle '%s' %u", s, resolver_host,
		      resolver_port, w.host, w.port);
	if (r == 0) {
		check_target(s, &t, &w);
	} else {
		CHECK(memcmp(&t, &before, sizeof(t)) == 0, "'%s': target written on %d", s, r);
		CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL,
		      "'%s': no message for %d", s, r);
	}

	/* a short message buffer, none, and one of length 0 */
	memset(&t, 0x5a, sizeof(t));
	memset(small, 'x', sizeof(small));
	r = gpudp_ipfix_target_parse(s, &t, small, 8);
	CHECK(r == w.rc && small[8] == 'x' && small[15] == 'x', "'%s': 8-byte message buffer",
	      s);
	if (r != 0)
		CHECK(small[0] != '\0' && memchr(small, '\0', 8) != NULL,
		      "'%s': 8-byte message buffer not a message", s);
	memset(&t, 0x5a, sizeof(t));
	memset(small, 'x', sizeof(small));
	CHECK(gpudp_ipfix_target_parse(s, &t, small, 0) == w.rc && small[0] == 'x',
	      "'%s': message buffer of length 0", s);
	memset(&t, 0x5a, sizeof(t));
	CHECK(gpudp_ipfix_target_parse(s, &t, NULL, 0) == w.rc, "'%s': NULL message buffer", s);
	CHECK(resolver_live == 0, "'%s': resolver results not freed", s);
	free(s);

	memset(&t, 0x5a, sizeof(t));
	CHECK(gpudp_ipfix_target_parse(NULL, &t, err, sizeof(err)) == -EINVAL &&
	      memcmp(&t, &before, sizeof(t)) == 0, "NULL target text");
	return 0;
}
