/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPFIX targets as text: `[udp:|tcp:]HOST:PORT` and `file:PATH`
 * (gpudp_ipfix_target_parse(), gpudp_ipfix_target_file()).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gpudp_errf.h"
#include "gpudp_ipfix.h"

int
gpudp_ipfix_target_file(const char *path, struct gpudp_ipfix_target *t, char *err, size_t errlen)
{
	size_t n = path != NULL ? strlen(path) : 0;

	if (n == 0) {
		gpudp_errf(err, errlen, "IPFIX file: empty path");
		return -EINVAL;
	}
	if (n >= sizeof(t->path) || n + 5 >= sizeof(t->name)) {
		gpudp_errf(err, errlen, "IPFIX file '%.64s...': path too long (%zu bytes)", path, n);
		return -ENAMETOOLONG;
	}
	memset(t, 0, sizeof(*t));
	t->transport = GPUDP_IPFIX_FILE;
	memcpy(t->path, path, n + 1);
	snprintf(t->name, sizeof(t->name), "file:%s", path);
	return 0;
}

/* PORT: 1..65535, decimal digits only */
static int
parse_port(const char *s, unsigned int *port)
{
	unsigned long v = 0;
	const char *p;

	if (*s == '\0' || strlen(s) > 5)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = (unsigned int)v;
	return 0;
}

int
gpudp_ipfix_target_parse(const char *spec, struct gpudp_ipfix_target *t, char *err, size_t errlen)
{
	enum gpudp_ipfix_transport tr = GPUDP_IPFIX_UDP;
	const char *rest, *colon, *hs, *he, *ps;
	char host[256], portstr[16];
	struct addrinfo hints, *res = NULL;
	unsigned int port;
	size_t hl;
	int rc;

	if (spec == NULL || *spec == '\0') {
		gpudp_errf(err, errlen, "IPFIX target '': empty (expected [udp:|tcp:]HOST:PORT "
			   "or file:PATH)");
		return -EINVAL;
	}
	rest = spec;
	colon = strchr(spec, ':');
	if (strncmp(spec, "file:", 5) == 0)
		return gpudp_ipfix_target_file(spec + 5, t, err, errlen);
	if (strncmp(spec, "udp:", 4) == 0) {
		rest = spec + 4;
	} else if (strncmp(spec, "tcp:", 4) == 0) {
		tr = GPUDP_IPFIX_TCP;
		rest = spec + 4;
	} else if (spec[0] != '[' && colon != NULL && strchr(colon + 1, ':') != NULL &&
		   strchr(colon + 1, ']') == NULL) {
		/* WORD:...:...: a prefix, or an IPv6 address without brackets */
		int word = colon > spec;
		const char *c;

		for (c = spec; c < colon; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
				word = 0;
		if (colon[1] == ':')
			word = 0; /* "::" */
		if (word)
			gpudp_errf(err, errlen, "IPFIX target '%s': unknown prefix '%.*s:' "
				   "(udp:, tcp: or file:)", spec, (int)(colon - spec), spec);
		else
			gpudp_errf(err, errlen, "IPFIX target '%s': an IPv6 address needs "
				   "brackets ([ADDR]:PORT)", spec);
		return -EINVAL;
	} else if (spec[0] != '[' && colon != NULL && strchr(colon + 1, '[') != NULL) {
		gpudp_errf(err, errlen, "IPFIX target '%s': unknown prefix '%.*s:' "
			   "(udp:, tcp: or file:)", spec, (int)(colon - spec), spec);
		return -EINVAL;
	}

	/* rest: HOST:PORT or [V6]:PORT */
	if (*rest == '\0') {
		gpudp_errf(err, errlen, "IPFIX target '%s': missing HOST:PORT after '%.4s'",
			   spec, spec);
		return -EINVAL;
	}
	if (rest[0] == '[') {
		hs = rest + 1;
		he = strchr(hs, ']');
		if (he == NULL) {
			gpudp_errf(err, errlen, "IPFIX target '%s': no ']' after the IPv6 address",
				   spec);
			return -EINVAL;
		}
		if (he[1] == '\0') {
			gpudp_errf(err, errlen, "IPFIX target '%s': missing port ([ADDR]:PORT)",
				   spec);
			return -EINVAL;
		}
		if (he[1] != ':') {
			gpudp_errf(err, errlen, "IPFIX target '%s': expected ':PORT' after ']', "
				   "found '%s'", spec, he + 1);
			return -EINVAL;
		}
		ps = he + 2;
	} else {
		hs = rest;
		he = strrchr(rest, ':');
		if (he == NULL) {
			gpudp_errf(err, errlen, "IPFIX target '%s': missing port (HOST:PORT)", spec);
			return -EINVAL;
		}
		if (memchr(hs, ':', (size_t)(he - hs)) != NULL) {
			gpudp_errf(err, errlen, "IPFIX target '%s': an IPv6 address needs "
				   "brackets ([ADDR]:PORT)", spec);
			return -EINVAL;
		}
		ps = he + 1;
	}
	hl = (size_t)(he - hs);
	if (hl == 0) {
		gpudp_errf(err, errlen, "IPFIX target '%s': missing host", spec);
		return -EINVAL;
	}
	if (*ps == '\0') {
		gpudp_errf(err, errlen, "IPFIX target '%s': missing port after ':'", spec);
		return -EINVAL;
	}
	if (parse_port(ps, &port) != 0) {
		gpudp_errf(err, errlen, "IPFIX target '%s': bad port '%s' (1 to 65535)", spec, ps);
		return -EINVAL;
	}
	if (hl >= sizeof(host)) {
		gpudp_errf(err, errlen, "IPFIX target '%.64s...': host too long (%zu bytes)", spec,
			   hl);
		return -ENAMETOOLONG;
	}
	memcpy(host, hs, hl);
	host[hl] = '\0';
	snprintf(portstr, sizeof(portstr), "%u", port);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = rest[0] == '[' ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = tr == GPUDP_IPFIX_TCP ? SOCK_STREAM : SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (rest[0] == '[')
		hints.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0 || res == NULL) {
		if (rest[0] == '[')
			gpudp_errf(err, errlen, "IPFIX target '%s': bad IPv6 address '%s'",
				   spec, host);
		else
			gpudp_errf(err, errlen, "IPFIX target '%s': cannot resolve host '%s': %s",
				   spec, host, rc == EAI_SYSTEM ? strerror(errno) :
				   gai_strerror(rc));
		if (res != NULL)
			freeaddrinfo(res);
		return rest[0] == '[' ? -EINVAL : -ENOENT;
	}
	memset(t, 0, sizeof(*t));
	t->transport = tr;
	memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
	t->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	snprintf(t->name, sizeof(t->name), "%s:%s%s%s:%u", tr == GPUDP_IPFIX_TCP ? "tcp" : "udp",
		 rest[0] == '[' ? "[" : "", host, rest[0] == '[' ? "]" : "", port);
	return 0;
}
