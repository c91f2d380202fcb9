/* SPDX-License-Identifier: MIT */
/* simreq — gp-sim's reading, tokenizing and judging of a completion request. */
#include <stdlib.h>
#include <string.h>

#include "sim/kvcache.h"
#include "base/vec.h"
#include "sim/simreq.h"

void gp_simtok_init(struct gp_simtok *t, long block_tokens)
{
	memset(t, 0, sizeof(*t));
	t->bt = block_tokens;
	t->prev = GP_KV_ROOT_KEY;
	t->all = gp_kv_chain_begin(GP_KV_ROOT_KEY);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* One word w[0 .. n) into the chain; a key when it fills a block. */
static void tok_word(struct gp_simtok *t, const char *w, size_t n)
{
	if (t->n % t->bt == 0)
		t->h = gp_kv_chain_begin(t->prev);
	t->h = gp_kv_chain_word(t->h, w, n);
	t->all = gp_kv_chain_word(t->all, w, n);
	t->n++;
	if (t->n % t->bt == 0) {
		uint64_t *k = t->keys;

		t->prev = gp_kv_chain_end(t->h);
		if (t->nkeys == t->capkeys && !(k = gp_grow(t->keys, &t->capkeys, t->nkeys + 1,
							    sizeof(*t->keys), 64))) {
			t->nomem = 1;
			return;
		}
		t->keys = k;
		t->keys[t->nkeys++] = t->prev;
	}
}

void gp_simtok_text(struct gp_simtok *t, const char *s)
{
	for (;;) {
		const char *w;

		while (is_space(*s))
			s++;
		if (!*s)
			return;
		w = s;
		while (*s && !is_space(*s))
			s++;
		tok_word(t, w, (size_t)(s - w));
	}
}

int gp_simtok_content(struct gp_simtok *t, const json_t *c)
{
	size_t i;
	json_t *part;

	if (!c || json_is_null(c))
		return 0;
	if (json_is_string(c)) {
		gp_simtok_text(t, json_string_value(c));
		return 0;
	}
	if (!json_is_array(c))
		return -1;
	json_array_foreach(c, i, part) {
		json_t *tx = json_object_get(part, "text");

		if (json_is_string(part))
			gp_simtok_text(t, json_string_value(part));
		else if (json_is_string(tx))
			gp_simtok_text(t, json_string_value(tx));
	}
	return 0;
}

/* The prompt's words into t: the chat messages' contents, or the prompt.
 * 0, or -1 when a content is neither a string nor a list of parts. */
static int tokenize(struct gp_simtok *t, const struct gp_oai_in *in)
{
	size_t i;
	json_t *m;

	if (!in->chat) {
		gp_simtok_text(t, in->prompt);
		return 0;
	}
	json_array_foreach(in->messages, i, m)
		if (gp_simtok_content(t, json_object_get(m, "content")))
			return -1;
	return 0;
}

/* gp-sim's checks of a request FastAPI let through: 0, or -1 with rej. */
static int judge(struct gp_simreq *r, const struct gp_simreq_limits *lim, const struct gp_oai_in *q,
		 struct gp_oai_reject *rej)
{
	if (tokenize(&r->tok, q))
		gp_oai_reject_set(rej, 400, "BadRequestError",
				  "each message content must be a string or a list of parts");
	else if (r->tok.n < 1)
		gp_oai_reject_set(rej, 400, "BadRequestError", "the prompt is empty");
	else if (r->tok.n + r->max_tokens > lim->max_model_len)
		gp_oai_reject_context(rej, lim->max_model_len, r->tok.n, r->max_tokens);
	else
		return 0;
	return -1;
}

int gp_simreq_read(struct gp_simreq *r, const struct gp_simreq_limits *lim, int chat,
		   const char *content_type, const char *body, size_t len, struct gp_oai_reject *rej)
{
	struct gp_oai_in q;
	int e;

	memset(r, 0, sizeof(*r));
	gp_simtok_init(&r->tok, lim->block_tokens);
	if (gp_oai_req_read(&q, chat, content_type, body, len, rej))
		return -1;
	if (q.model && strcmp(q.model, lim->model)) {
		gp_oai_reject_model(rej, q.model);
		gp_oai_in_release(&q);
		return -1;
	}
	r->max_tokens = q.max_tokens < 0 ? 16 : q.max_tokens;
	r->min_tokens = q.min_tokens;
	r->ignore_eos = q.ignore_eos;
	r->stream = q.stream;
	r->include_usage = q.include_usage;
	e = judge(r, lim, &q, rej);
	gp_oai_in_release(&q);
	if (!e && r->tok.nomem) {
		gp_oai_reject_set(rej, 500, "InternalServerError", "out of memory");
		e = -1;
	}
	if (e) {
		free(r->tok.keys);
		r->tok.keys = NULL;
		r->tok.nkeys = r->tok.capkeys = 0;
	}
	return e;
}
