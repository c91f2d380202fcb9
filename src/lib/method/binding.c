/* SPDX-License-Identifier: MIT */
/* binding — digests that bind verdicts to runs (see binding.h). */
#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "io/json.h"
#include "method/binding.h"

#define CANON (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17))

/* A deep copy with every number a real: 60 and 60.0 are one value (jq, for
 * one, writes the real 60.0 as 60), so they must be one text.  NULL when out
 * of memory. */
static json_t *canon_copy(const json_t *v)
{
	json_t *c, *x;
	const char *k;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		return json_real((double)json_integer_value(v));
	case JSON_OBJECT:
		if (!(c = json_object()))
			return NULL;
		json_object_foreach((json_t *)v, k, x)
			if (json_object_set_new(c, k, canon_copy(x))) {
				json_decref(c);
				return NULL;
			}
		return c;
	case JSON_ARRAY:
		if (!(c = json_array()))
			return NULL;
		json_array_foreach(v, i, x)
			if (json_array_append_new(c, canon_copy(x))) {
				json_decref(c);
				return NULL;
			}
		return c;
	default:
		return json_incref((json_t *)v);
	}
}

/* The canonical text of a record (binding.h); the caller frees. */
static char *canon_text(const json_t *v)
{
	json_t *c = canon_copy(v);
	char *t = c ? json_dumps(c, CANON) : NULL;

	json_decref(c);
	return t;
}

int gp_run_digest_add(struct gp_run_digest *d, const json_t *run_end)
{
	char *t = canon_text(run_end);

	char **g;

	if (!t)
		goto nomem;
	g = d->n < d->cap ? d->texts : gp_grow(d->texts, &d->cap, d->n + 1, sizeof(*d->texts), 4);
	if (!g) {
		free(t);
		goto nomem;
	}
	d->texts = g;
	d->texts[d->n++] = t;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

static int text_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void hex_out(const unsigned char *md, char out[GP_DIGEST_LEN + 1])
{
	static const char hx[] = "0123456789abcdef";

	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++) {
		out[7 + 2 * i] = hx[md[i] >> 4];
		out[8 + 2 * i] = hx[md[i] & 15];
	}
	out[GP_DIGEST_LEN] = 0;
}

/* SHA-256 of the n texts, each followed by "\n".  0, or -1 when libcrypto
 * fails (out of memory: its only failure for an in-memory SHA-256). */
static int sha256_texts(char *const *texts, size_t n, char out[GP_DIGEST_LEN + 1])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);

	for (size_t i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(c, texts[i], strlen(texts[i])) && EVP_DigestUpdate(c, "\n", 1);
	ok = ok && EVP_DigestFinal_ex(c, md, &len) && len == 32;
	EVP_MD_CTX_free(c);
	if (!ok) {
		errno = ENOMEM;
		return -1;
	}
	hex_out(md, out);
	return 0;
}

int gp_run_digest_hex(struct gp_run_digest *d, char out[GP_DIGEST_LEN + 1])
{
	if (d->n > 1)
		qsort(d->texts, d->n, sizeof(*d->texts), text_cmp);
	return sha256_texts(d->texts, d->n, out);
}

void gp_run_digest_release(struct gp_run_digest *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->texts[i]);
	free(d->texts);
	d->texts = NULL;
	d->n = d->cap = 0;
}

int gp_record_digest(const json_t *rec, const char *field, char out[GP_DIGEST_LEN + 1])
{
	int rc;

	/* Through the records' own writer and back: the record as a reader
	 * of the NDJSON line will parse it, whoever computes the digest. */
	char *t = gp_json_dump(rec);
	json_t *c = t ? json_loads(t, 0, NULL) : NULL;

	free(t);
	if (!c) {
		errno = ENOMEM;
		return -1;
	}
	json_object_del(c, field);
	t = canon_text(c);
	json_decref(c);
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	rc = sha256_texts(&t, 1, out);
	free(t);
	return rc;
}
