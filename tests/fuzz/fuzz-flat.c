/* SPDX-License-Identifier: MIT */
/*
 * fuzz-flat — differential harness: io/flat's fast reader against jansson.
 * Whenever gp_flat_scan() accepts a line, json_loadb (flags 0, as io/ndjson
 * reads records) must parse it as an object whose named keys have the same
 * kind and value (strings byte for byte, integers exactly, reals bit for bit,
 * numbers through gp_flat_num as gp_json_num reads them); gp_flat_cstr and
 * gp_flat_uncstr must leave the line as it was.  A line it refuses is not a
 * finding (the caller falls back to jansson).  Any disagreement aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "io/flat.h"

static const char *const keys[] = {
	"type", "arm", "rate_rps", "rep", "outcome", "ttft_ms", "tpot_ms", "run", "a", "", "ab",
};
enum { NK = sizeof(keys) / sizeof(keys[0]) };

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	size_t klen[NK];
	struct gp_flat_val v[NK];
	char *line = malloc(n + 1), *copy = malloc(n + 1);
	json_error_t err;
	json_t *o;

	if (!line || !copy)
		abort();
	for (size_t i = 0; i < NK; i++)
		klen[i] = strlen(keys[i]);
	memcpy(line, d, n);
	line[n] = 'x';	/* the scan must not read past n */
	memcpy(copy, line, n + 1);
	if (gp_flat_scan(line, n, keys, klen, NK, v) != 0)
		goto done;
	o = json_loadb(copy, n, 0, &err);
	if (!o || !json_is_object(o))
		abort();	/* accepted what jansson refuses */
	for (size_t i = 0; i < NK; i++) {
		json_t *j = json_object_get(o, keys[i]);
		double x, y;
		long long k;
		char *s;

		switch (v[i].kind) {
		case GP_FLAT_ABSENT:
			if (j)
				abort();
			break;
		case GP_FLAT_STRING:
			if (!json_is_string(j) || json_string_length(j) != v[i].n ||
			    memcmp(json_string_value(j), v[i].p, v[i].n))
				abort();
			s = gp_flat_cstr(&v[i]);
			if (!s || strcmp(s, json_string_value(j)))
				abort();
			gp_flat_uncstr(&v[i]);
			break;
		case GP_FLAT_INT:
			if (!json_is_integer(j) || gp_flat_int(&v[i], &k) || k != json_integer_value(j))
				abort();
			if (gp_flat_num(&v[i], &x) || !same_num(x, (double)json_integer_value(j)))
				abort();
			break;
		case GP_FLAT_REAL:
			if (!json_is_real(j) || gp_flat_num(&v[i], &x) ||
			    !same_num(x, y = json_real_value(j)) || gp_flat_int(&v[i], &k) != -1)
				abort();
			break;
		case GP_FLAT_NULL:
			if (!json_is_null(j) || gp_flat_num(&v[i], &x) || !isnan(x) ||
			    gp_flat_int(&v[i], &k) != 1)
				abort();
			break;
		case GP_FLAT_TRUE:
			if (!json_is_true(j) || gp_flat_num(&v[i], &x) != -1)
				abort();
			break;
		case GP_FLAT_FALSE:
			if (!json_is_false(j))
				abort();
			break;
		}
	}
	if (memcmp(line, copy, n + 1))
		abort();	/* the line was not left as it was */
	json_decref(o);
done:
	free(line);
	free(copy);
	return 0;
}
