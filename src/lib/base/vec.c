/* SPDX-License-Identifier: MIT */
/* vec — growing a plain C array (see vec.h). */
#include <stdint.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/vec.h"
#include "base/banned.h"

void *gp_grow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t c = *cap ? *cap : (min ? min : 1), bytes;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return NULL;
	bytes = c * size;
	q = realloc(p, bytes ? bytes : 1);
	if (!q)
		return NULL;
	*cap = c;
	return q;
}

void *gp_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	void *q = gp_grow(p, cap, need, size, min);

	if (!q)
		gp_die_nomem();
	return q;
}
