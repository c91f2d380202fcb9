/* SPDX-License-Identifier: MIT */
/* calwire — INTERIM (see calwire.h): one streamed completion for gp-calibrate,
 * to be folded into openai.c and the streamed-request module of issue 9. */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "calwire.h"
#include "clock.h"
#include "banned.h"

#define MAX_EVENT (1u << 20)	/* one SSE event at most 1 MiB */

static const char *const err_name[GP_CW_NCLASS] = {
	"ok", "connect", "http_status", "reset", "invalid_framing", "timeout",
	"truncated", "stream_error", "other", "cancelled",
};

const char *gp_calwire_err_name(int err)
{
	return err >= 0 && err < GP_CW_NCLASS ? err_name[err] : "other";
}

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct gp_calwire_req *r = arg;
	struct gp_sse_chunk c;

	if (r->saw_done)
		return 0;
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		r->saw_done = 1;
		r->t_end_ns = r->now_ns;
		return 0;
	}
	if (gp_sse_chunk_read(data, len, &c)) {
		r->framing = 1;
		return 1;
	}
	if (c.has_error)
		r->stream_error = 1;
	if (c.content) {
		r->events++;
		if (!r->t_first_ns) {
			r->t_first_ns = r->now_ns;
			if (r->ops->on_first)
				r->ops->on_first(r, r->now_ns);
		}
		if (r->ops->on_token)
			r->ops->on_token(r, r->now_ns);
	}
	if (c.finish)
		r->saw_finish = 1;
	if (c.completion_tokens >= 0)
		r->usage_out = c.completion_tokens;
	if (c.prompt_tokens >= 0)
		r->usage_in = c.prompt_tokens;
	return 0;
}

static void cb_sent(void *user, int64_t t)
{
	struct gp_calwire_req *r = user;

	r->t_sent_ns = t;
}

static void cb_header(void *user, const char *line, size_t len, int64_t t)
{
	struct gp_calwire_req *r = user;

	if (r->ops->on_header)
		r->ops->on_header(r, line, len);
}

static int cb_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	struct gp_calwire_req *r = user;

	r->status = status;
	if (status < 200 || status > 299)
		return 0;	/* the error body is not read */
	r->now_ns = t;
	if (gp_sse_feed(&r->sse, buf, len)) {
		r->framing = 1;
		return 1;
	}
	return 0;
}

static void finish(struct gp_calwire_req *r, int err, int64_t t)
{
	r->running = 0;
	r->err = err;
	if (!r->t_end_ns)
		r->t_end_ns = t;
	if (r->ops->on_done)
		r->ops->on_done(r);
}

static void cb_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct gp_calwire_req *r = user;
	int err;

	r->status = res->status;
	switch (res->err) {
	case GP_HTTP_OK:
		if (res->status < 200 || res->status > 299)
			err = GP_CW_HTTP_STATUS;
		else if (r->framing || gp_sse_finish(&r->sse) < 0)
			err = GP_CW_INVALID_FRAMING;
		else if (r->stream_error)
			err = GP_CW_STREAM_ERROR;
		else if (!r->saw_done || !r->saw_finish)
			err = GP_CW_TRUNCATED;
		else
			err = GP_CW_OK;
		break;
	case GP_HTTP_ECONNECT: err = GP_CW_CONNECT; break;
	case GP_HTTP_ERESET: err = GP_CW_RESET; break;
	case GP_HTTP_EFRAMING: err = GP_CW_INVALID_FRAMING; break;
	case GP_HTTP_ETIMEOUT: err = GP_CW_TIMEOUT; break;
	case GP_HTTP_EABORT: err = r->framing ? GP_CW_INVALID_FRAMING : GP_CW_OTHER; break;
	default: err = GP_CW_OTHER; break;
	}
	finish(r, err, t);
}

const struct gp_http_ops gp_calwire_http_ops = {
	.on_sent = cb_sent, .on_header = cb_header, .on_body = cb_body, .on_done = cb_done,
};

void gp_calwire_init(struct gp_calwire_req *r)
{
	memset(r, 0, sizeof(*r));
}

void gp_calwire_release(struct gp_calwire_req *r)
{
	gp_sse_release(&r->sse);
	free(r->body);
	r->body = NULL;
	r->body_len = r->body_cap = 0;
}

int gp_calwire_body(struct gp_calwire_req *r, int chat, const char *model,
		    const char *prompt, long max_tokens)
{
	json_t *o = json_pack("{s:s}", "model", model);
	char *s;
	size_t n;

	if (!o)
		return -1;
	if (chat)
		json_object_set_new(o, "messages",
				    json_pack("[{s:s,s:s}]", "role", "user", "content", prompt));
	else
		json_object_set_new(o, "prompt", json_string(prompt));
	json_object_set_new(o, "max_tokens", json_integer(max_tokens));
	json_object_set_new(o, "min_tokens", json_integer(max_tokens));
	json_object_set_new(o, "ignore_eos", json_true());
	json_object_set_new(o, "stream", json_true());
	json_object_set_new(o, "stream_options", json_pack("{s:b}", "include_usage", 1));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!s)
		return -1;
	n = strlen(s);
	free(r->body);
	r->body = s;
	r->body_len = n;
	r->body_cap = n + 1;
	return 0;
}

int gp_calwire_start(struct gp_calwire_req *r, const char *url, const char *const *xhdr,
		     int nxhdr, int64_t now_ns)
{
	if (!r->sse.cb)
		gp_sse_init(&r->sse, MAX_EVENT, on_event, r);
	else
		gp_sse_reset(&r->sse);
	r->t_start_ns = now_ns;
	r->t_sent_ns = r->t_first_ns = r->t_end_ns = 0;
	r->events = 0;
	r->usage_in = r->usage_out = -1;
	r->status = 0;
	r->err = GP_CW_OK;
	r->saw_done = r->saw_finish = r->stream_error = r->framing = 0;
	if (gp_http_start(r->x, url, r->body, r->body_len, xhdr, nxhdr))
		return -1;
	r->running = 1;
	return 0;
}

void gp_calwire_cancel(struct gp_calwire_req *r, int64_t now_ns)
{
	if (!r->running)
		return;
	gp_http_cancel(r->x);
	finish(r, GP_CW_CANCELLED, now_ns);
}
