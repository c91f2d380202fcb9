/* SPDX-License-Identifier: MIT */
/*
 * models — the one reader of an OpenAI model list (GET /v1/models), for
 * gp-replay (does the server serve --model? its context length) and
 * gp-health (the backend_models check).
 *
 *   {"object":"list","data":[{"id":"m","object":"model","max_model_len":8192},…]}
 *
 * A list is a JSON object whose "data" is an array; items without a string
 * "id" are skipped; "max_model_len" (vLLM's) is kept when it is an integer
 * > 0.  Ids are kept as the server sent them (jansson has checked them as
 * UTF-8), for matching; what is shown of them — on a terminal or in a
 * record — goes through gp_models_shown: the API key masked, control
 * characters escaped.
 *
 * Ownership: a struct gp_models owns its ids (gp_models_release frees
 * them); nothing here prints or exits.
 */
#ifndef GP_MODELS_H
#define GP_MODELS_H

#include <stddef.h>

/* Bounds of the fetch of a model list: its body and its time. */
#define GP_MODELS_MAX_BYTES (1u << 20)
#define GP_MODELS_TIMEOUT_MS 10000L

struct gp_models {
	size_t n;
	char **id;			/* n ids, as sent */
	long *max_model_len;		/* n lengths, -1 when not advertised */
};

/* Read body[0..len).  0, or -1 when it is not an OpenAI model list (m is
 * then empty) or memory ran out (errno ENOMEM). */
int gp_models_read(const char *body, size_t len, struct gp_models *m);
void gp_models_release(struct gp_models *m);

/* The index of `model` in m, or -1; with model NULL the first id (or -1). */
long gp_models_find(const struct gp_models *m, const char *model);

/*
 * An id as it may be shown (terminal or record): `secret` (when non-NULL and
 * non-empty) replaced by "***", then control characters and backslashes
 * escaped as buf.h's gp_term_escape does, into out (at most cap − 1 bytes,
 * cap > 0).  Returns the length.
 */
size_t gp_models_shown(const char *id, const char *secret, char *out, size_t cap);

/* The ids for a message: "'a', 'b'" (each shown as above), cut with ", …"
 * when over cap − 1 bytes; "no model" when m is empty. */
void gp_models_list(const struct gp_models *m, const char *secret, char *out, size_t cap);

#endif
