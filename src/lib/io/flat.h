/* SPDX-License-Identifier: MIT */
/*
 * flat — the fast reader of flat JSON records: one line scanned as a JSON
 * object whose values are all scalars (string, number, true, false, null),
 * without building a tree, and the values of a few named keys taken out.
 *
 * It is a fast path beside jansson, never instead of it: gp_flat_scan()
 * accepts a line only when jansson (json_loadb, flags 0, as io/ndjson reads
 * records) would parse it as an object whose named keys have the same kinds
 * and values; for anything it is not sure of it returns -1 and the caller
 * parses the line with jansson, which accepts it or words the error.  Not
 * sure: a nested object or array, an escape (\), a byte >= 0x80 or NUL, an
 * integer literal of more than 18 digits (jansson refuses past 64 bits), a
 * real that would overflow, a syntax error.  A repeated key: the last wins,
 * as in jansson.  tests/fuzz/fuzz-flat.c checks this against jansson.
 *
 * Values point into the caller's line (borrowed).  A string's bytes are
 * p[0..n), its closing quote at p[n]: gp_flat_cstr() NUL-terminates it in
 * place over that quote, gp_flat_uncstr() puts the quote back (so a line can
 * be written out whole after its fields were used as C strings).
 */
#ifndef GP_FLAT_H
#define GP_FLAT_H

#include <stddef.h>

enum gp_flat_kind {
	GP_FLAT_ABSENT = 0, GP_FLAT_STRING, GP_FLAT_INT, GP_FLAT_REAL, GP_FLAT_NULL,
	GP_FLAT_TRUE, GP_FLAT_FALSE
};

struct gp_flat_val {
	char *p;		/* the string's bytes, or the number's text */
	size_t n;
	enum gp_flat_kind kind;
};

/*
 * Scan line[0..len) (the bytes after it are not read) for the nkeys keys of
 * keys[] (NUL-terminated; klen[i] = strlen(keys[i])): out[i] is the value of
 * keys[i], GP_FLAT_ABSENT when the object has no such key.  0 when the line
 * is a flat object jansson would read alike, -1 otherwise (out[] is then
 * unspecified).
 */
int gp_flat_scan(char *line, size_t len, const char *const *keys, const size_t *klen,
		 size_t nkeys, struct gp_flat_val *out);

/* A number's value: 0 with *out (NaN when absent or null), -1 when another
 * kind.  Integers and reals alike, as gp_json_num. */
int gp_flat_num(const struct gp_flat_val *v, double *out);
/* An integer's value: 0 with *out, 1 when absent or null, -1 when another
 * kind (a real is another kind, as in gp_json_int). */
int gp_flat_int(const struct gp_flat_val *v, long long *out);
/* Is v the string s? */
int gp_flat_is(const struct gp_flat_val *v, const char *s);
/* A string value as a C string (NUL over its closing quote); NULL when v is
 * not a string. */
char *gp_flat_cstr(struct gp_flat_val *v);
/* Undo gp_flat_cstr(): the closing quote back.  No-op when not a string. */
void gp_flat_uncstr(struct gp_flat_val *v);

#endif
