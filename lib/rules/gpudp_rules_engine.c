/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine of a rule set (gpudp_rules_engine.h): the set's image
 * (gpudp_rules_img.h) run over each packet, its matches put in the set's
 * order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudp_rules_engine.h"
#include "gpudp_rules_img.h"

struct gpudp_rules_engine {
	struct gpudp_rules_img *img;
	uint32_t *list;              /* this packet's matches */
	uint32_t scratch[GPUDP_RULES_SCRATCH_WORDS];
};

struct gpudp_rules_engine *
gpudp_rules_engine_create(const struct gpudp_rules *rs, char *err, size_t errlen)
{
	struct gpudp_rules_engine *e = calloc(1, sizeof(*e));

	if (errlen > 0)
		err[0] = 0;
	if (e == NULL) {
		snprintf(err, errlen, "out of memory for the rules' engine");
		return NULL;
	}
	e->list = calloc((size_t)rs->n_rule + 1, sizeof(uint32_t));
	if (e->list == NULL) {
		snprintf(err, errlen, "out of memory for the rules' engine");
		gpudp_rules_engine_free(e);
		return NULL;
	}
	e->img = gpudp_rules_img_build(rs, err, errlen);
	if (e->img == NULL) {
		gpudp_rules_engine_free(e);
		return NULL;
	}
	return e;
}

void
gpudp_rules_engine_free(struct gpudp_rules_engine *e)
{
	if (e == NULL)
		return;
	free(e->img);
	free(e->list);
	free(e);
}

static int
by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t
gpudp_rules_engine_packet(struct gpudp_rules_engine *e, const struct gpudp_rule_pkt *k,
			  const uint8_t *p, uint32_t len, void (*fn)(void *arg, uint32_t rule),
			  void *arg)
{
	struct gpudp_rules_out o = { .list = e->list, .list_max = e->img->n_rule };
	uint32_t n, i;

	n = gpudp_rules_img_packet(e->img, k, p, len, e->scratch, &o);
	qsort(e->list, n, sizeof(uint32_t), by_index);
	if (fn != NULL)
		for (i = 0; i < n; i++)
			fn(arg, e->list[i]);
	return n;
}

void
gpudp_rules_engine_info(const struct gpudp_rules_engine *e, uint32_t *patterns, uint32_t *always)
{
	*patterns = e->img->n_pat;
	*always = e->img->n_always;
}

const struct gpudp_rules_img *
gpudp_rules_engine_img(const struct gpudp_rules_engine *e)
{
	return e->img;
}
