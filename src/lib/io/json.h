/* SPDX-License-Identifier: MIT */
/*
 * json — small helpers over jansson for reading record fields and writing
 * records.  Values returned through `const char **` are borrowed from the
 * object and live as long as it does.
 *
 * Accessors return 0 (found, right type), GP_JSON_MISSING (absent or null) or
 * GP_JSON_TYPE (present with another type).  Numbers accept JSON integers and
 * reals alike.
 * Nothing here prints or exits (the dying gp_need_* are cli/cli.h's).
 */
#ifndef GP_JSON_H
#define GP_JSON_H

#include <jansson.h>

enum { GP_JSON_MISSING = -1, GP_JSON_TYPE = -2 };

int gp_json_num(const json_t *o, const char *key, double *out);
int gp_json_int(const json_t *o, const char *key, long long *out);
int gp_json_str(const json_t *o, const char *key, const char **out);
int gp_json_bool(const json_t *o, const char *key, int *out);
/* The field as a value, with a default for absent, null or mistyped (and
 * for o NULL): the number or NaN; the string or def; the boolean as 1 or 0,
 * or -1. */
double gp_jnum(const json_t *o, const char *key);
const char *gp_jstr(const json_t *o, const char *key, const char *def);
int gp_jtri(const json_t *o, const char *key);
/* The record's "type", or NULL. */
const char *gp_json_type(const json_t *o);

/* Compact one-line dump (insertion order kept, reals with 15 significant
 * digits so 0.1 prints as 0.1).  Caller frees.  NULL on failure. */
char *gp_json_dump(const json_t *v);
/* A real, or JSON null when v is NaN or infinite (records never hold NaN). */
json_t *gp_json_real(double v);
/* Set key to gp_json_real(v). 0 or -1. */
int gp_json_set_real(json_t *o, const char *key, double v);


#endif
