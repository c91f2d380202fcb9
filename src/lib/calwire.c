/* SPDX-License-Identifier: MIT */
/* calwire — INTERIM (see calwire.h): one streamed completion for gp-calibrate,
 * to be folded into openai.c and the streamed-request module of issue 9. */
#include <stdlib.h>
#include <string.h>

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
	switch (gp_oai_chunk_read(data, len, &c)) {
	case GP_OAI_DONE:
		r->saw_done = 1;
		r->t_end_ns = r->now_ns;
		return 0;
	case GP_OAI_CHUNK:
		break;
	default:
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
	gp_oai_buf_release(&r->body);
}

int gp_calwire_body(struct gp_calwire_req *r, int chat, const char *model,
		    const char *prompt, long max_tokens)
{
	struct gp_oai_req q = { 0 };

	q.chat = chat;
	q.model = model;
	q.prompt = prompt;
	q.prompt_len = strlen(prompt);
	q.max_tokens = max_tokens;
	q.stream = 1;
	q.include_usage = 1;
	q.ignore_eos = 1;
	return gp_oai_req_write(&r->body, &q);
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
	if (gp_http_start(r->x, url, r->body.p, r->body.len, xhdr, nxhdr))
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
