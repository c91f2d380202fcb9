/* SPDX-License-Identifier: MIT */
/* json — typed field access and compact dumping over jansson. */
#include <math.h>
#include <stdlib.h>

#include "io/json.h"

int gp_json_num(const json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return GP_JSON_MISSING;
	if (!json_is_number(v))
		return GP_JSON_TYPE;
	*out = json_number_value(v);
	return 0;
}

int gp_json_int(const json_t *o, const char *key, long long *out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return GP_JSON_MISSING;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d == floor(d) && fabs(d) < 9.0e15) {
			*out = (long long)d;
			return 0;
		}
	}
	return GP_JSON_TYPE;
}

int gp_json_str(const json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return GP_JSON_MISSING;
	if (!json_is_string(v))
		return GP_JSON_TYPE;
	*out = json_string_value(v);
	return 0;
}

int gp_json_bool(const json_t *o, const char *key, int *out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return GP_JSON_MISSING;
	if (!json_is_boolean(v))
		return GP_JSON_TYPE;
	*out = json_is_true(v);
	return 0;
}

double gp_jnum(const json_t *o, const char *key)
{
	double v;

	return o && gp_json_num(o, key, &v) == 0 ? v : NAN;
}

const char *gp_jstr(const json_t *o, const char *key, const char *def)
{
	const char *s;

	return o && gp_json_str(o, key, &s) == 0 ? s : def;
}

int gp_jtri(const json_t *o, const char *key)
{
	int b;

	return o && gp_json_bool(o, key, &b) == 0 ? b : -1;
}

const char *gp_json_type(const json_t *o)
{
	const char *t = NULL;

	return gp_json_str(o, "type", &t) == 0 ? t : NULL;
}

char *gp_json_dump(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY);
}

json_t *gp_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int gp_json_set_real(json_t *o, const char *key, double v)
{
	return json_object_set_new(o, key, gp_json_real(v));
}
