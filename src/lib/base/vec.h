/* SPDX-License-Identifier: MIT */
/*
 * vec — growing a plain C array (pointer + count + capacity), once.  The
 * array stays the caller's: a struct with `T *v; size_t n, cap;` or three
 * variables.  Capacity doubles from `min`, so n pushes cost O(n).
 *
 *   GP_XGROW(d->v, d->n, d->cap, 1024);  d->v[d->n++] = x;   (tool code)
 *
 * gp_grow is for the library (returns NULL, p and *cap unchanged, when
 * memory runs out or need * size overflows); gp_xgrow and GP_XGROW are for
 * tools (gp_die_nomem(): "out of memory", exit 70).
 */
#ifndef GP_VEC_H
#define GP_VEC_H

#include <stddef.h>
#include <string.h>

/* p reallocated to hold at least need elements of size bytes; *cap updated. */
void *gp_grow(void *p, size_t *cap, size_t need, size_t size, size_t min);
void *gp_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min);

/* Room for one more element at index n of p. */
#define GP_XGROW(p, n, cap, min) do { \
	if ((n) >= (cap)) \
		(p) = gp_xgrow((p), &(cap), (size_t)(n) + 1, sizeof(*(p)), (min)); \
} while (0)

/* The same, the new tail (from the old capacity on) zeroed. */
#define GP_XGROW0(p, n, cap, min) do { \
	size_t was_ = (cap); \
	GP_XGROW((p), (n), (cap), (min)); \
	if ((cap) > was_) \
		memset((p) + was_, 0, ((cap) - was_) * sizeof(*(p))); \
} while (0)

#endif
