/* SPDX-License-Identifier: MIT */
/*
 * simreq — what gp-sim makes of a completion request before its engine sees
 * it: the body read and validated as vLLM's FastAPI front end does
 * (gp_oai_req_read, openai.h: media type, JSON, fields, types — 422 — and
 * vLLM's own 400 checks), then gp-sim's own checks, in this order:
 *
 *   model      given and not the served one: vLLM's 404 (gp_oai_reject_model)
 *   contents   a chat message content neither a string, null, nor a list of
 *              parts: 400 BadRequestError "each message content must be a
 *              string or a list of parts" (a backstop: FastAPI's 422 on the
 *              message's type comes first)
 *   prompt     no word at all: 400 BadRequestError "the prompt is empty"
 *   context    prompt words + max_tokens (16 when not given) over
 *              max_model_len: vLLM's 400 (gp_oai_reject_context)
 *
 * The prompt is tokenized as gp-sim's engine sees it: one token per
 * whitespace-separated word (space, \t, \n, \r, \f, \v), over the chat
 * messages' contents in order (a string; or a list whose items are strings
 * or objects with a string "text"; other items ignored) or the completion's
 * prompt, and hashed into the prefix-cache block chain (kvcache.h): a key
 * per full block of block_tokens words.
 *
 * Nothing here prints; out of memory ends the process (gp_xrealloc, log.h).
 */
#ifndef GP_SIMREQ_H
#define GP_SIMREQ_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "wire/openai.h"

/* Words of a text, hashed into the block chain.  Carries state across texts
 * (chat messages) so the prompt is one sequence of words. */
struct gp_simtok {
	long n;			/* words so far */
	long bt;		/* block tokens */
	uint64_t prev, h;	/* chain key of the last full block; running hash */
	uint64_t all;		/* hash of every word (prompt identity) */
	uint64_t *keys;		/* owned: one key per full block */
	size_t nkeys, capkeys;
	int nomem;		/* a key could not be kept: keys are incomplete */
};

void gp_simtok_init(struct gp_simtok *t, long block_tokens);
void gp_simtok_text(struct gp_simtok *t, const char *s);
/* A message content: a string, null/absent, or a list of parts.  0, or -1
 * when it is anything else (words before it stay counted). */
int gp_simtok_content(struct gp_simtok *t, const json_t *c);

/* What gp-sim serves: the model, the context length, the block size. */
struct gp_simreq_limits {
	const char *model;
	long max_model_len;
	long block_tokens;
};

struct gp_simreq {
	struct gp_simtok tok;	/* the prompt; tok.keys owned */
	long max_tokens;	/* 16 when not given */
	long min_tokens;	/* 0 when not given */
	int ignore_eos, stream, include_usage;
};

/*
 * Read and judge one request body.  0 with *r filled (free r->tok.keys), or
 * -1 with *rej filled (a 500 when memory ran out: nothing here exits), r->tok.keys freed, and r->tok.n the prompt words
 * counted before the refusal (0 when the body or the model was refused).
 */
int gp_simreq_read(struct gp_simreq *r, const struct gp_simreq_limits *lim, int chat,
		   const char *content_type, const char *body, size_t len, struct gp_oai_reject *rej);

#endif
