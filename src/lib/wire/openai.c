/* SPDX-License-Identifier: MIT */
/*
 * openai — the OpenAI wire format for both sides: request writer and reader,
 * chunk writer and reader, error bodies (see openai.h for the shapes).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wire/openai.h"
#include "base/banned.h"


/* ---- request writer ---- */

const char *gp_oai_path(int chat)
{
	return chat ? "/v1/chat/completions" : "/v1/completions";
}

/* The messages' string contents joined by "\n", as one JSON string. */
static int joined_contents(struct gp_buf *b, const json_t *msgs)
{
	struct gp_buf t = { 0 };
	size_t i;
	json_t *m;
	int rc = 0;

	json_array_foreach(msgs, i, m) {
		json_t *c = json_object_get(m, "content");

		if (!json_is_string(c))
			continue;
		if ((t.len && gp_buf_add(&t, "\n", 1)) ||
		    gp_buf_add(&t, json_string_value(c), json_string_length(c)))
			rc = -1;
	}
	if (!rc)
		rc = gp_buf_jstr(b, t.p ? t.p : "", t.len);
	gp_buf_release(&t);
	return rc;
}
static int add_str(struct gp_buf *b, const char *s)
{
	return gp_buf_add(b, s, strlen(s));
}


int gp_oai_req_write(struct gp_buf *b, const struct gp_oai_req *q)
{
	char num[96];
	int rc = 0;

	if (!q->model || (!q->messages && !q->prompt) || (q->messages && !json_is_array(q->messages)))
		return -1;
	b->len = 0;
	rc |= add_str(b, "{\"model\":");
	rc |= gp_buf_jstr(b, q->model, strlen(q->model));
	if (q->chat) {
		rc |= add_str(b, ",\"messages\":");
		if (q->messages) {
			char *m = json_dumps(q->messages, JSON_COMPACT);

			rc |= m ? add_str(b, m) : -1;
			free(m);
		} else {
			rc |= add_str(b, "[{\"role\":\"user\",\"content\":");
			rc |= gp_buf_jstr(b, q->prompt, q->prompt_len);
			rc |= add_str(b, "}]");
		}
	} else {
		rc |= add_str(b, ",\"prompt\":");
		if (q->prompt)
			rc |= gp_buf_jstr(b, q->prompt, q->prompt_len);
		else
			rc |= joined_contents(b, q->messages);
	}
	if (q->max_tokens > 0) {
		snprintf(num, sizeof(num), ",\"%s\":%ld",
			 q->chat && q->max_completion_tokens ? "max_completion_tokens" : "max_tokens",
			 q->max_tokens);
		rc |= add_str(b, num);
		if (q->ignore_eos && !q->strict) {
			snprintf(num, sizeof(num), ",\"min_tokens\":%ld,\"ignore_eos\":true", q->max_tokens);
			rc |= add_str(b, num);
		}
	}
	if (q->stream) {
		rc |= add_str(b, ",\"stream\":true");
		if (q->include_usage)
			rc |= add_str(b, ",\"stream_options\":{\"include_usage\":true}");
	}
	rc |= add_str(b, "}");
	return rc ? -1 : 0;
}

/* ---- chunk reader ---- */

int gp_oai_chunk_read(const char *data, size_t len, struct gp_sse_chunk *c)
{
	if (len == 6 && !memcmp(data, "[DONE]", 6))
		return GP_OAI_DONE;
	return gp_sse_chunk_read(data, len, c) ? GP_OAI_EBAD : GP_OAI_CHUNK;
}

/* ---- error bodies ---- */

static int keyish(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

/* Replace s[i..j) by "***" (shifting the rest left), or by as many '*'
 * when it is shorter than 3: the string never grows. */
static size_t mask(char *s, size_t i, size_t j)
{
	size_t n = strlen(s);

	if (j - i < 3) {
		memset(s + i, '*', j - i);
		return j;
	}
	memmove(s + i + 3, s + j, n - j + 1);
	memcpy(s + i, "***", 3);
	return i + 3;
}

void gp_oai_mask_secret(char *s, const char *secret)
{
	if (secret && *secret) {
		size_t kl = strlen(secret), at = 0;
		char *k;

		while ((k = strstr(s + at, secret)))
			at = mask(s, (size_t)(k - s), (size_t)(k - s) + kl);
	}
}

void gp_oai_scrub(char *s, size_t cap, const char *secret)
{
	size_t i;

	if (!cap)
		return;
	gp_oai_mask_secret(s, secret);
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = ' ';
		else if ((unsigned char)s[i] == 0xC2 && (unsigned char)s[i + 1] >= 0x80 &&
			 (unsigned char)s[i + 1] < 0xA0)
			s[i] = s[i + 1] = ' ';	/* a C1 control (U+0080..U+009F) */
	for (i = 0; s[i];) {
		size_t j = i;

		if (!strncasecmp(s + i, "bearer ", 7)) {
			j = i + 7;
			while (keyish((unsigned char)s[j]) || (s[j] && strchr("._~+/=", s[j])))
				j++;
			if (j > i + 7) {
				i = mask(s, i + 7, j);
				continue;
			}
			i += 7;
			continue;
		}
		if (!keyish((unsigned char)s[i]) || (i > 0 && keyish((unsigned char)s[i - 1]))) {
			i++;
			continue;
		}
		while (keyish((unsigned char)s[j]))
			j++;
		if (j - i >= 32 || (j - i >= 12 && (!strncmp(s + i, "sk-", 3) || !strncmp(s + i, "key-", 4))))
			i = mask(s, i, j);
		else
			i = j;
	}
	gp_utf8_repair(s, cap);		/* buf.h's rule; cut on a character boundary */
}

/* FastAPI's validation list: "loc.loc: msg" of its first item. */
static void detail_list(const json_t *d, char *out, size_t cap)
{
	const json_t *it = json_array_get(d, 0), *loc = json_object_get(it, "loc"), *v;
	const char *msg = json_string_value(json_object_get(it, "msg"));
	size_t i, n = 0;

	out[0] = '\0';
	json_array_foreach(loc, i, v) {
		if (n + 1 >= cap)
			break;
		if (json_is_string(v))
			n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "." : "", json_string_value(v));
		else if (json_is_integer(v))
			n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "." : "",
					      (long long)json_integer_value(v));
	}
	if (n < cap)
		snprintf(out + n, cap - n, "%s%s", n ? ": " : "", msg ? msg : "");
}

size_t gp_oai_error_read(const char *body, size_t len, const char *secret, char *dst, size_t dcap)
{
	json_t *o, *e, *d;
	const char *m = NULL;
	char out[1024];
	size_t cap = sizeof(out);

	if (!dcap)
		return 0;
	o = json_loadb(body, len, 0, NULL);
	out[0] = '\0';
	if (json_is_object(o)) {
		e = json_object_get(o, "error");
		d = json_object_get(o, "detail");
		if (json_is_object(e) && json_is_string(json_object_get(e, "message")))
			m = json_string_value(json_object_get(e, "message"));
		else if (json_is_string(json_object_get(o, "message")))
			m = json_string_value(json_object_get(o, "message"));
		else if (json_is_string(d))
			m = json_string_value(d);
		else if (json_is_array(d) && json_array_size(d) > 0)
			detail_list(d, out, cap);
		else if (json_is_string(e))
			m = json_string_value(e);
	}
	if (m)
		snprintf(out, cap, "%s", m);
	else if (!out[0])
		snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), body ? body : "");
	json_decref(o);
	gp_oai_scrub(out, dcap < cap ? dcap : cap, secret);
	memcpy(dst, out, strlen(out) + 1);
	return strlen(dst);
}

/* ---- request reader ---- */

void gp_oai_reject_set(struct gp_oai_reject *rej, int status, const char *type, const char *fmt, ...)
{
	char msg[512], e[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e[gp_json_escape(NULL, msg, strlen(msg)) < sizeof(e) ? gp_json_escape(e, msg, strlen(msg)) : 0] = '\0';
	rej->status = status;
	rej->reason = status == 404 ? "Not Found" : status == 415 ? "Unsupported Media Type"
		      : status == 422 ? "Unprocessable Entity" : status >= 500 ? "Internal Server Error"
		      : status == 429 ? "Too Many Requests" : "Bad Request";
	snprintf(rej->body, sizeof(rej->body),
		 "{\"error\":{\"message\":\"%s\",\"type\":\"%s\",\"param\":null,\"code\":%d}}", e, type, status);
}

void gp_oai_reject_model(struct gp_oai_reject *rej, const char *model)
{
	gp_oai_reject_set(rej, 404, "NotFoundError", "The model `%.200s` does not exist.", model);
}

void gp_oai_reject_context(struct gp_oai_reject *rej, long max_model_len, long in_tokens, long max_tokens)
{
	gp_oai_reject_set(rej, 400, "BadRequestError",
			  "This model's maximum context length is %ld tokens. However, you requested "
			  "%ld tokens (%ld in the messages, %ld in the completion). Please reduce the "
			  "length of the messages or completion.", max_model_len, in_tokens + max_tokens,
			  in_tokens, max_tokens);
}

/* FastAPI's 422: {"detail":[{"loc":["body",…],"msg","type"}, …]}, one item
 * per (loc, msg, type) triple in the NULL-terminated list. */
static void reject_422(struct gp_oai_reject *rej, const char *const *items)
{
	size_t n = 0, cap = sizeof(rej->body);
	int i;

	rej->status = 422;
	rej->reason = "Unprocessable Entity";
	n += (size_t)snprintf(rej->body, cap, "{\"detail\":[");
	for (i = 0; items[i] && n < cap; i += 3)
		n += (size_t)snprintf(rej->body + n, cap - n, "%s{\"loc\":[\"body\"%s%s%s],\"msg\":\"%s\",\"type\":\"%s\"}",
				      i ? "," : "", *items[i] ? ",\"" : "", items[i], *items[i] ? "\"" : "",
				      items[i + 1], items[i + 2]);
	if (n < cap)
		snprintf(rej->body + n, cap - n, "]}");
}

static int json_media_type(const char *ct)
{
	size_t n;

	if (!ct)
		return 1;	/* FastAPI reads an undeclared body as JSON */
	n = strcspn(ct, ";");
	while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	while (n && (*ct == ' ' || *ct == '\t'))
		ct++, n--;
	if (n == 16 && !strncasecmp(ct, "application/json", 16))
		return 1;
	return n > 17 && !strncasecmp(ct, "application/", 12) && !strncasecmp(ct + n - 5, "+json", 5);
}

/* An integer field: 0 absent/null, 1 present (value in *v), -1 mistyped. */
static int int_field(const json_t *o, const char *k, long *v)
{
	json_t *x = json_object_get(o, k);

	if (!x || json_is_null(x))
		return 0;
	if (!json_is_integer(x))
		return -1;
	*v = (long)json_integer_value(x);
	return 1;
}

static int bool_field(const json_t *o, const char *k, int *v)
{
	json_t *x = json_object_get(o, k);

	if (!x || json_is_null(x))
		return 0;
	if (!json_is_boolean(x))
		return -1;
	*v = json_is_true(x);
	return 1;
}

/* The type checks of the fields we read; 0 or -1 with rej set. */
static int check_types(struct gp_oai_in *in, struct gp_oai_reject *rej)
{
	json_t *r = in->root, *so;
	long mct = -1;

	if (int_field(r, "max_tokens", &in->max_tokens) < 0) {
		reject_422(rej, (const char *const[]){ "max_tokens", "value is not a valid integer",
						       "type_error.integer", NULL });
		return -1;
	}
	switch (in->chat ? int_field(r, "max_completion_tokens", &mct) : 0) {
	case -1:
		reject_422(rej, (const char *const[]){ "max_completion_tokens", "value is not a valid integer",
						       "type_error.integer", NULL });
		return -1;
	case 1:
		in->max_tokens = mct;	/* the newer field wins, as in vLLM */
		break;
	}
	if (int_field(r, "min_tokens", &in->min_tokens) < 0) {
		reject_422(rej, (const char *const[]){ "min_tokens", "value is not a valid integer",
						       "type_error.integer", NULL });
		return -1;
	}
	if (bool_field(r, "stream", &in->stream) < 0 || bool_field(r, "ignore_eos", &in->ignore_eos) < 0) {
		reject_422(rej, (const char *const[]){ "stream", "value could not be parsed to a boolean",
						       "type_error.bool", NULL });
		return -1;
	}
	so = json_object_get(r, "stream_options");
	if (so && !json_is_null(so)) {
		if (!json_is_object(so)) {
			reject_422(rej, (const char *const[]){ "stream_options", "value is not a valid dict",
							       "type_error.dict", NULL });
			return -1;
		}
		in->include_usage = 1;	/* vLLM's default when stream_options is given */
		if (bool_field(so, "include_usage", &in->include_usage) < 0) {
			reject_422(rej, (const char *const[]){ "stream_options", "value could not be parsed to a boolean",
							       "type_error.bool", NULL });
			return -1;
		}
	}
	return 0;
}

/* vLLM's own checks after the model validated; 0 or -1 with rej set. */
static int check_values(struct gp_oai_in *in, struct gp_oai_reject *rej)
{
	long mt = in->max_tokens;

	if (in->chat && json_array_size(in->messages) == 0) {
		gp_oai_reject_set(rej, 400, "BadRequestError", "messages must be a non-empty list");
		return -1;
	}
	if (json_object_get(in->root, "stream_options") && !json_is_null(json_object_get(in->root, "stream_options")) &&
	    !in->stream) {
		gp_oai_reject_set(rej, 400, "BadRequestError",
				  "Stream options can only be defined when `stream=True`.");
		return -1;
	}
	if (mt != -1 && mt < 1) {
		gp_oai_reject_set(rej, 400, "BadRequestError", "max_tokens must be at least 1, got %ld.", mt);
		return -1;
	}
	if (in->min_tokens < 0) {
		gp_oai_reject_set(rej, 400, "BadRequestError", "min_tokens must be greater than or equal to 0, got %ld.",
				  in->min_tokens);
		return -1;
	}
	if (mt != -1 && in->min_tokens > mt) {
		gp_oai_reject_set(rej, 400, "BadRequestError",
				  "min_tokens must be less than or equal to max_tokens=%ld, got %ld.", mt,
				  in->min_tokens);
		return -1;
	}
	return 0;
}

static int check_prompt(struct gp_oai_in *in, struct gp_oai_reject *rej)
{
	size_t i;
	json_t *m, *p;

	if (in->chat) {
		json_array_foreach(in->messages, i, m) {
			json_t *c = json_object_get(m, "content");

			if (!json_is_object(m) || !json_is_string(json_object_get(m, "role")) ||
			    (c && !json_is_null(c) && !json_is_string(c) && !json_is_array(c))) {
				reject_422(rej, (const char *const[]){ "messages", "each message needs a string 'role' and a string or list 'content'",
								       "value_error", NULL });
				return -1;
			}
		}
		return 0;
	}
	p = json_object_get(in->root, "prompt");
	if (json_is_string(p))
		in->prompt = json_string_value(p);
	else if (json_is_array(p) && json_array_size(p) == 1 && json_is_string(json_array_get(p, 0)))
		in->prompt = json_string_value(json_array_get(p, 0));
	else {
		reject_422(rej, (const char *const[]){ "prompt", "str type expected", "type_error.str", NULL });
		return -1;
	}
	return 0;
}

int gp_oai_req_read(struct gp_oai_in *in, int chat, const char *content_type, const char *body,
		    size_t len, struct gp_oai_reject *rej)
{
	json_error_t jerr;
	json_t *model, *msgs;
	const char *miss[7];
	int k = 0;

	memset(in, 0, sizeof(*in));
	in->chat = chat;
	in->max_tokens = -1;
	if (!json_media_type(content_type)) {
		reject_422(rej, (const char *const[]){ "", "value is not a valid dict", "type_error.dict", NULL });
		return -1;
	}
	in->root = json_loadb(body, len, 0, &jerr);
	if (!in->root) {
		char msg[200];

		snprintf(msg, sizeof(msg), "%s: line %d column %d (char %d)", jerr.text, jerr.line, jerr.column,
			 jerr.position);
		for (char *c = msg; *c; c++)
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '\'';	/* jansson quotes the input: keep the body JSON */
		reject_422(rej, (const char *const[]){ "", msg, "value_error.jsondecode", NULL });
		return -1;
	}
	if (!json_is_object(in->root)) {
		reject_422(rej, (const char *const[]){ "", "value is not a valid dict", "type_error.dict", NULL });
		goto bad;
	}
	model = json_object_get(in->root, "model");
	msgs = json_object_get(in->root, "messages");
	if (chat && (!msgs || json_is_null(msgs)))
		miss[k++] = "messages", miss[k++] = "field required", miss[k++] = "value_error.missing";
	if (!chat && !json_object_get(in->root, "prompt"))
		miss[k++] = "prompt", miss[k++] = "field required", miss[k++] = "value_error.missing";
	miss[k] = NULL;
	if (k) {
		reject_422(rej, miss);
		goto bad;
	}
	if (model && !json_is_null(model) && !json_is_string(model)) {
		reject_422(rej, (const char *const[]){ "model", "str type expected", "type_error.str", NULL });
		goto bad;
	}
	if (chat && !json_is_array(msgs)) {
		reject_422(rej, (const char *const[]){ "messages", "value is not a valid list", "type_error.list", NULL });
		goto bad;
	}
	in->model = json_string_value(model);	/* NULL: the served model */
	in->messages = chat ? msgs : NULL;
	if (check_prompt(in, rej) || check_types(in, rej) || check_values(in, rej))
		goto bad;
	return 0;
bad:
	gp_oai_in_release(in);
	return -1;
}

void gp_oai_in_release(struct gp_oai_in *in)
{
	json_decref(in->root);
	in->root = NULL;
	in->model = in->prompt = NULL;
	in->messages = NULL;
}

/* ---- chunk writer ---- */

/* snprintf into buf, -1 when it does not fit. */
static int fit(int n, size_t cap)
{
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

int gp_oai_chunk_head(char *buf, size_t cap, int chat, const char *id, long long created, const char *model)
{
	size_t li = gp_json_escape(NULL, id, strlen(id)), lm = gp_json_escape(NULL, model, strlen(model));
	char *ei, *em;
	int n;

	if (li > cap || lm > cap)
		return -1;
	ei = malloc(li + 1);
	em = malloc(lm + 1);
	if (!ei || !em) {
		free(ei);
		free(em);
		return -1;
	}
	ei[gp_json_escape(ei, id, strlen(id))] = '\0';
	em[gp_json_escape(em, model, strlen(model))] = '\0';
	n = snprintf(buf, cap, "{\"id\":\"%s%s\",\"object\":\"%s\",\"created\":%lld,\"model\":\"%s\",",
		     chat ? "chatcmpl-" : "cmpl-", ei, chat ? "chat.completion.chunk" : "text_completion",
		     created, em);
	free(ei);
	free(em);
	return fit(n, cap);
}

int gp_oai_chunk_role(char *buf, size_t cap, const char *head)
{
	return fit(snprintf(buf, cap, "%s\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
			    "\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}", head), cap);
}

int gp_oai_chunk_content(char *buf, size_t cap, const char *head, int chat, const char *text, size_t n)
{
	size_t hl = strlen(head), el = gp_json_escape(NULL, text, n), k;
	const char *open = chat ? "\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
				: "\"choices\":[{\"index\":0,\"text\":\"";
	const char *close = chat ? "\"},\"logprobs\":null,\"finish_reason\":null}]}"
				 : "\",\"logprobs\":null,\"finish_reason\":null}]}";
	size_t lo = strlen(open), lc = strlen(close);

	if (hl + lo + el + lc + 1 > cap)
		return -1;
	memcpy(buf, head, hl);
	memcpy(buf + hl, open, lo);
	k = hl + lo;
	gp_json_escape(buf + k, text, n);
	k += el;
	memcpy(buf + k, close, lc + 1);
	return (int)(k + lc);
}

int gp_oai_chunk_final(char *buf, size_t cap, const char *head, int chat, const char *finish_reason)
{
	return fit(snprintf(buf, cap, chat ? "%s\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,"
					     "\"finish_reason\":\"%s\"}]}"
					   : "%s\"choices\":[{\"index\":0,\"text\":\"\",\"logprobs\":null,"
					     "\"finish_reason\":\"%s\"}]}", head, finish_reason), cap);
}

int gp_oai_chunk_usage(char *buf, size_t cap, const char *head, long prompt_tokens, long completion_tokens)
{
	return fit(snprintf(buf, cap, "%s\"choices\":[],\"usage\":{\"prompt_tokens\":%ld,"
			    "\"completion_tokens\":%ld,\"total_tokens\":%ld}}", head, prompt_tokens,
			    completion_tokens, prompt_tokens + completion_tokens), cap);
}

int gp_oai_whole_write(struct gp_buf *b, int chat, const char *id, long long created, const char *model,
		       const char *text, size_t n, const char *finish_reason, long prompt_tokens,
		       long completion_tokens)
{
	char num[200];
	int rc = 0;

	b->len = 0;
	rc |= add_str(b, chat ? "{\"id\":\"chatcmpl-" : "{\"id\":\"cmpl-");
	rc |= gp_buf_reserve(b, gp_json_escape(NULL, id, strlen(id)));
	if (!rc) {
		b->len += gp_json_escape(b->p + b->len, id, strlen(id));
		b->p[b->len] = '\0';
	}
	snprintf(num, sizeof(num), "\",\"object\":\"%s\",\"created\":%lld,\"model\":",
		 chat ? "chat.completion" : "text_completion", created);
	rc |= add_str(b, num);
	rc |= gp_buf_jstr(b, model, strlen(model));
	rc |= add_str(b, chat ? ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
			      : ",\"choices\":[{\"index\":0,\"text\":");
	rc |= gp_buf_jstr(b, text, n);
	rc |= add_str(b, chat ? "}," : ",");
	rc |= add_str(b, "\"logprobs\":null,\"finish_reason\":");
	rc |= gp_buf_jstr(b, finish_reason, strlen(finish_reason));
	snprintf(num, sizeof(num), "}],\"usage\":{\"prompt_tokens\":%ld,\"completion_tokens\":%ld,"
		 "\"total_tokens\":%ld}}", prompt_tokens, completion_tokens, prompt_tokens + completion_tokens);
	rc |= add_str(b, num);
	return rc ? -1 : 0;
}
