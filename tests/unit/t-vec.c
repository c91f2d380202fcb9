/* SPDX-License-Identifier: MIT */
/* Unit tests of vec: doubling from min, every element kept, overflow refused. */
#include <stdint.h>
#include <stdlib.h>

#include "base/vec.h"
#include "tap.h"

int main(void)
{
	long *v = NULL, *q;
	size_t n = 0, cap = 0, grows = 0, last = 0, i;
	int kept = 1;

	for (i = 0; i < 10000; i++) {
		GP_XGROW(v, n, cap, 16);
		if (cap != last)
			grows++, last = cap;
		v[n++] = (long)i * 3;
	}
	for (i = 0; i < n; i++)
		kept &= v[i] == (long)i * 3;
	ok(kept, "10000 pushes kept in order");
	is_int(cap, 16384, "capacity doubles from 16: 16384 for 10000");
	is_int(grows, 11, "11 reallocations (16, 32, ..., 16384)");
	q = gp_grow(v, &cap, 5, sizeof(*v), 16);
	ok(q == v && cap == 16384, "no change when the capacity suffices");
	q = gp_grow(v, &cap, SIZE_MAX / 4, sizeof(*v), 16);
	ok(!q && cap == 16384, "need * size overflow: NULL, capacity unchanged");
	free(v);
	return done_testing();
}
