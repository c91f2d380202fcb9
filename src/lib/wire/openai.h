/* SPDX-License-Identifier: MIT */
/*
 * openai — the OpenAI wire format, in one place, for both directions: the
 * client (gp-replay, gp-health, gp-probe, gp-calibrate) writes requests and
 * reads stream chunks and error bodies; gp-sim reads requests, writes stream
 * chunks and error bodies.  A round-trip test (tests/unit/t-openai.c) holds
 * the two halves together, so a lenient half cannot hide a bug in the other.
 *
 * Shapes followed (as vLLM's OpenAI front end speaks them):
 *   request   POST /v1/chat/completions {"model","messages":[...],...}
 *             POST /v1/completions      {"model","prompt":"...",...}
 *             with Content-Type: application/json, and when streaming
 *             Accept: text/event-stream.
 *   stream    data: {chunk}\n\n ... data: [DONE]\n\n where, for chat, the
 *             first chunk carries only delta.role ("assistant", content ""),
 *             content chunks carry delta.content (1..k tokens of text), the
 *             final chunk carries finish_reason, and with include_usage a
 *             last chunk has "choices":[] and "usage".
 *   error     {"error":{"message","type","param","code"}} (OpenAI, vLLM),
 *             or FastAPI's {"detail": "..." | [{"loc","msg","type"}]}.
 *
 * Ownership: the writers append to a struct gp_buf (buf.h) that belongs to
 * the caller (gp_buf_release frees it).  Strings in a struct gp_oai_in are borrowed
 * from its `root`, which it owns until gp_oai_in_release.  Nothing here prints
 * or exits; functions return 0 or a negative value.
 */
#ifndef GP_OPENAI_H
#define GP_OPENAI_H

#include <stddef.h>
#include <jansson.h>

#include "base/buf.h"
#include "wire/sse.h"

/* The header lines every request carries (http.h gp_http_add_header). */
#define GP_OAI_CONTENT_TYPE "Content-Type: application/json"
#define GP_OAI_ACCEPT_SSE "Accept: text/event-stream"


/* ---- the request writer (client side) ---- */

struct gp_oai_req {
	int chat;			/* 1: /v1/chat/completions, 0: /v1/completions */
	const char *model;
	/* The prompt: chat takes `messages` (a JSON array, sent as is) when
	 * given, else one user message whose content is prompt[0..prompt_len);
	 * completions take prompt, or the messages' string contents joined by
	 * "\n" when only messages are given. */
	const json_t *messages;
	const char *prompt;
	size_t prompt_len;
	long max_tokens;		/* > 0: sent; 0: omitted */
	int max_completion_tokens;	/* chat: name it max_completion_tokens
					 * (OpenAI's newer field) instead of max_tokens */
	int stream;			/* "stream":true */
	int include_usage;		/* "stream_options":{"include_usage":true} */
	/* vLLM's sampling extras: min_tokens = max_tokens and ignore_eos, so
	 * the server generates exactly max_tokens.  Not sent when strict. */
	int ignore_eos;
	int strict;			/* send only fields in OpenAI's API */
};

/*
 * Write the JSON body of q to b (b->len is reset first).  0, or -1 when out
 * of memory or q lacks a model or a prompt.
 */
int gp_oai_req_write(struct gp_buf *b, const struct gp_oai_req *q);

/* The API path of q: "/v1/chat/completions" or "/v1/completions". */
const char *gp_oai_path(int chat);

/* ---- the chunk reader (client side) ---- */

enum {
	GP_OAI_CHUNK = 0,		/* a chunk, read into the struct */
	GP_OAI_DONE = 1,		/* the "[DONE]" sentinel */
	GP_OAI_EBAD = -1,		/* not a JSON object: invalid framing */
};

/*
 * Read one SSE event's data: "[DONE]", or a chunk read by the
 * allocation-free event reader gp_sse_chunk_read (sse.h), whose fields are
 * the contract: content (any of delta.content, delta.reasoning_content,
 * delta.reasoning, text non-empty — so a role-only first chunk with
 * content "" is not content), finish, usage tokens, has_error, id.
 */
int gp_oai_chunk_read(const char *data, size_t len, struct gp_sse_chunk *c);

/* ---- the error-body reader (client side) ---- */

/*
 * The server's message from an error body body[0..len), into out (at most
 * cap − 1 bytes, cut on a UTF-8 boundary, always NUL-terminated): the first
 * of error.message, message, detail (a string; or a list: its first
 * item's "msg", prefixed by its "loc" joined with "."), error (a string),
 * else the body text itself.  The result is scrubbed: control characters
 * (C0, DEL, C1) become spaces, bytes that are not UTF-8 become U+FFFD (buf.h's
 * rule), and `secret` (when non-NULL and non-empty), any
 * "Bearer <token>" and any word that looks like an API key ("sk-…", "key-…",
 * or 32+ characters of [A-Za-z0-9_-]) are replaced by "***".  Returns the
 * length written.
 */
size_t gp_oai_error_read(const char *body, size_t len, const char *secret, char *out, size_t cap);
/* (The message is built in 1 KiB; a cap above that is not filled further.) */

/*
 * Scrub the NUL-terminated s in place as gp_oai_error_read does, then cut it
 * to at most cap − 1 bytes on a UTF-8 boundary.
 */
void gp_oai_scrub(char *s, size_t cap, const char *secret);
/* Only the first step of it: each `secret` in s (when non-NULL, non-empty)
 * replaced by "***" — for text that must otherwise stay as sent (a receipt,
 * a backend's name, a completion id). */
void gp_oai_mask_secret(char *s, const char *secret);

/* ---- the request reader (server side, gp-sim) ---- */

/* Why a request is refused, and how: the status, the body to send. */
struct gp_oai_reject {
	int status;			/* 400, 404, 415, 422 */
	const char *reason;		/* "Bad Request", ... */
	char body[768];			/* the JSON error body */
};

struct gp_oai_in {
	json_t *root;			/* owned */
	int chat;
	const char *model;		/* borrowed from root; NULL when not given */
	const json_t *messages;		/* chat: the array */
	const char *prompt;		/* completions: the text */
	long max_tokens;		/* -1 when not given */
	long min_tokens;		/* 0 when not given */
	int ignore_eos, stream, include_usage;
};

/*
 * Read and validate a request body as vLLM's FastAPI front end does.
 * content_type is the request's Content-Type header (NULL when absent).
 * Checks, in FastAPI's order: a declared JSON media type
 * (application/json or application/…+json; otherwise the body is not read
 * as JSON and validation fails with 422 "value is not a valid dict"), valid
 * JSON (422), an object (422), required fields (messages for chat, prompt
 * for completions: 422 "field required"; model is optional, as in vLLM ≥ 0.6,
 * which serves its own model then), field types (422), then
 * vLLM's own checks (400: max_tokens ≥ 1, min_tokens ≥ 0 and ≤ max_tokens,
 * messages non-empty).  0 with *in filled (release it), or -1 with *rej
 * filled (nothing to release).
 */
int gp_oai_req_read(struct gp_oai_in *in, int chat, const char *content_type, const char *body,
		    size_t len, struct gp_oai_reject *rej);
void gp_oai_in_release(struct gp_oai_in *in);

/*
 * Fill rej with vLLM's error object {"error":{"message","type","param",
 * "code"}} (status, type, message as given).
 */
void gp_oai_reject_set(struct gp_oai_reject *rej, int status, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* vLLM's 404 for a model it does not serve. */
void gp_oai_reject_model(struct gp_oai_reject *rej, const char *model);
/* vLLM's 400 for a prompt plus completion over the context length. */
void gp_oai_reject_context(struct gp_oai_reject *rej, long max_model_len, long in_tokens, long max_tokens);

/* ---- the chunk writer (server side, gp-sim) ---- */

/*
 * Each writes one chunk's JSON (no "data: " framing) into buf[0..cap) and
 * returns its length, or -1 when it does not fit.  `head` is the chunk's
 * common opening written once per stream by gp_oai_chunk_head:
 *   {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":T,"model":"M",
 * (completions: "cmpl-ID", "text_completion").  `text` is JSON-escaped here.
 */
int gp_oai_chunk_head(char *buf, size_t cap, int chat, const char *id, long long created,
		      const char *model);
/* Chat only: the role-only first chunk, delta {"role":"assistant","content":""}. */
int gp_oai_chunk_role(char *buf, size_t cap, const char *head);
/* A content chunk carrying text (one or more tokens of it). */
int gp_oai_chunk_content(char *buf, size_t cap, const char *head, int chat, const char *text, size_t n);
/* The final chunk: empty delta (chat) or text "" (completions), finish_reason. */
int gp_oai_chunk_final(char *buf, size_t cap, const char *head, int chat, const char *finish_reason);
/* The usage chunk: "choices":[] and usage {prompt, completion, total}. */
int gp_oai_chunk_usage(char *buf, size_t cap, const char *head, long prompt_tokens, long completion_tokens);

/*
 * A whole, non-streamed response (stream false): chat.completion with
 * choices[0].message {role assistant, content text}, or text_completion
 * with choices[0].text; finish_reason; usage.  Written to b (b->len reset).
 * 0 or -1 (out of memory).
 */
int gp_oai_whole_write(struct gp_buf *b, int chat, const char *id, long long created, const char *model,
		       const char *text, size_t n, const char *finish_reason, long prompt_tokens,
		       long completion_tokens);

#endif
