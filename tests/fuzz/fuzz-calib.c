/* SPDX-License-Identifier: MIT */
/* fuzz-calib — libFuzzer harness: gp-calibrate's protocol file reader. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "method/calib.h"

/*
 * The input is one JSON document read as a protocol file.  A refusal must
 * leave the protocol untouched and say why; an accepted protocol must have
 * every field in range, and must survive the round trip through
 * gp_calib_protocol_json and back unchanged.
 */
static void check_ranges(const struct gp_calib_protocol *p)
{
	size_t n;
	const struct gp_calib_field *f = gp_calib_fields(&n);

	for (size_t i = 0; i < n; i++) {
		const char *at = (const char *)p + f[i].offset;
		double v = f[i].is_long ? (double)*(const long *)(const void *)at
					: *(const double *)(const void *)at;

		if (!isfinite(v) || v < f[i].min || v > f[i].max || (f[i].min_open && v == f[i].min))
			abort();
		if (gp_calib_field(f[i].name) != &f[i])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_calib_protocol p, before, back;
	char err[256];
	json_t *root = json_loadb((const char *)d, n, JSON_DECODE_ANY, NULL), *out;

	if (!root)
		return 0;
	gp_calib_protocol_default(&p);
	before = p;
	if (gp_calib_protocol_from_json(&p, root, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0] || !gp_calib_protocol_equal(&p, &before))
			abort();
		json_decref(root);
		return 0;
	}
	check_ranges(&p);
	out = gp_calib_protocol_json(&p);
	if (!out)
		abort();
	gp_calib_protocol_default(&back);
	if (gp_calib_protocol_from_json(&back, out, err, sizeof(err)) || !gp_calib_protocol_equal(&p, &back))
		abort();
	(void)gp_calib_target_rps(&p, (long)(n % 64));
	(void)gp_calib_hold_s(&p, gp_calib_target_rps(&p, 1));
	json_decref(out);
	json_decref(root);
	return 0;
}
