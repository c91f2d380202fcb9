/* SPDX-License-Identifier: MIT */
/* models — the OpenAI model list reader (see models.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/buf.h"
#include "wire/models.h"
#include "base/banned.h"

void gp_models_release(struct gp_models *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->id[i]);
	free(m->id);
	free(m->max_model_len);
	m->id = NULL;
	m->max_model_len = NULL;
	m->n = 0;
}

int gp_models_read(const char *body, size_t len, struct gp_models *m)
{
	json_t *o = json_loadb(body ? body : "", body ? len : 0, 0, NULL), *data = json_object_get(o, "data"), *it;
	size_t i, n = json_array_size(data);

	memset(m, 0, sizeof(*m));
	if (!json_is_array(data)) {
		json_decref(o);
		errno = EINVAL;
		return -1;
	}
	if (n) {
		m->id = calloc(n, sizeof(*m->id));
		m->max_model_len = calloc(n, sizeof(*m->max_model_len));
		if (!m->id || !m->max_model_len)
			goto nomem;
	}
	json_array_foreach(data, i, it) {
		const char *id = json_string_value(json_object_get(it, "id"));
		json_t *ml = json_object_get(it, "max_model_len");

		if (!id)
			continue;
		if (!(m->id[m->n] = strdup(id)))
			goto nomem;
		m->max_model_len[m->n++] = json_is_integer(ml) && json_integer_value(ml) > 0 &&
					   json_integer_value(ml) < (json_int_t)1 << 40
					   ? (long)json_integer_value(ml) : -1;
	}
	json_decref(o);
	return 0;
nomem:
	json_decref(o);
	gp_models_release(m);
	errno = ENOMEM;
	return -1;
}

long gp_models_find(const struct gp_models *m, const char *model)
{
	for (size_t i = 0; i < m->n; i++)
		if (!model || !strcmp(m->id[i], model))
			return (long)i;
	return -1;
}

size_t gp_models_shown(const char *id, const char *secret, char *out, size_t cap)
{
	struct gp_buf b = { 0 };
	const char *s = id, *k;
	size_t kl = secret ? strlen(secret) : 0, n;

	if (kl) {
		while ((k = strstr(s, secret))) {
			if (gp_buf_add(&b, s, (size_t)(k - s)) || gp_buf_add(&b, "***", 3))
				break;
			s = k + kl;
		}
		if (gp_buf_add(&b, s, strlen(s))) {
			gp_buf_release(&b);
			snprintf(out, cap, "***");	/* out of memory: show nothing of it */
			return strlen(out);
		}
		s = b.p;
	}
	n = gp_term_escape(out, cap, s, strlen(s));
	gp_buf_release(&b);
	return n;
}

void gp_models_list(const struct gp_models *m, const char *secret, char *out, size_t cap)
{
	size_t o = 0;
	char one[256];

	out[0] = '\0';
	if (!m->n) {
		snprintf(out, cap, "no model");
		return;
	}
	for (size_t i = 0; i < m->n; i++) {
		size_t k = gp_models_shown(m->id[i], secret, one, sizeof(one));

		if (o + k + 8 > cap) {
			snprintf(out + o, cap - o, "%s", o + 6 <= cap ? ", \xe2\x80\xa6" : "");
			return;
		}
		o += (size_t)snprintf(out + o, cap - o, "%s'%s'", i ? ", " : "", one);
	}
}
