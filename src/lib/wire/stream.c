/* SPDX-License-Identifier: MIT */
/*
 * stream — one streamed completion: state, SSE feed, timings, tokens and
 * its error class (see stream.h for the definitions); and the loop of
 * streamed chat requests that gp-health and gp-probe send.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>

#include "base/clock.h"
#include "wire/openai.h"
#include "wire/stream.h"
#include "base/vec.h"
#include "base/banned.h"

static const char *const names[GP_STREAM_NCLASS] = {
	NULL, "connect", "http_status", "not_streamed", "timeout", "hang", "truncated", "reset",
	"invalid_framing", "cancelled", "empty", "stream_error", "other", "tls", "client_limit",
	"abandoned",
};

const char *gp_stream_class_name(int cls)
{
	return cls > 0 && cls < GP_STREAM_NCLASS ? names[cls] : NULL;
}

static int on_event(const char *type, const char *data, size_t len, void *arg);

int gp_stream_init(struct gp_stream *s, struct gp_http *h, void *user, size_t max_event)
{
	memset(s, 0, sizeof(*s));
	s->x = gp_http_xfer_new(h, user);
	if (!s->x)
		return -1;
	gp_sse_init(&s->sse_p, max_event, on_event, s);
	return 0;
}

void gp_stream_release(struct gp_stream *s)
{
	if (s->x)
		gp_http_xfer_free(s->x);
	s->x = NULL;
	gp_sse_release(&s->sse_p);
	free(s->itl);
	s->itl = NULL;
	s->itl_n = s->itl_cap = 0;
}

/* Does one of the user's header lines name the header of `line`? */
static int named(const char *line, const char *const *user, int nuser)
{
	size_t n = strcspn(line, ":");
	int i;

	for (i = 0; i < nuser; i++)
		if (!strncasecmp(user[i], line, n) && user[i][n] == ':')
			return 1;
	return 0;
}

int gp_stream_headers_with(struct gp_http *h, int streaming, const char *api_key, const char *const *user,
			   int nuser)
{
	char line[4200];
	int rc = 0, i;

	if (!named(GP_OAI_CONTENT_TYPE, user, nuser) && gp_http_add_header(h, GP_OAI_CONTENT_TYPE))
		return -1;
	if (streaming && !named(GP_OAI_ACCEPT_SSE, user, nuser) && gp_http_add_header(h, GP_OAI_ACCEPT_SSE))
		return -1;
	if (api_key && !named("Authorization:", user, nuser)) {
		if (snprintf(line, sizeof(line), "Authorization: Bearer %s", api_key) >= (int)sizeof(line))
			return -1;
		rc = gp_http_add_header(h, line);
		explicit_bzero(line, sizeof(line));
	}
	for (i = 0; !rc && i < nuser; i++)
		rc = gp_http_add_header(h, user[i]);
	return rc;
}

int gp_stream_headers(struct gp_http *h, int streaming, const char *api_key)
{
	return gp_stream_headers_with(h, streaming, api_key, NULL, 0);
}

static int key_ok(const char *k)
{
	for (; *k; k++)
		if ((unsigned char)*k < 0x20 || *k == 0x7f)
			return 0;
	return 1;
}

int gp_stream_api_key(const char *file, char *out, size_t cap, char *err, size_t errlen)
{
	const char *k;

	out[0] = '\0';
	if (file) {
		FILE *f = fopen(file, "r");
		size_t n;

		if (!f) {
			snprintf(err, errlen, "%s: %s", file, strerror(errno));
			return -1;
		}
		if (!fgets(out, (int)cap, f))
			out[0] = '\0';
		fclose(f);
		n = strcspn(out, "\r\n");
		out[n] = '\0';
		if (!n || !key_ok(out)) {
			explicit_bzero(out, cap);
			snprintf(err, errlen, "%s: %s", file, n ? "the key holds a control character"
							       : "no key on the first line");
			return -1;
		}
		return 1;
	}
	k = getenv("GP_API_KEY");
	if (!k || !*k)
		k = getenv("OPENAI_API_KEY");
	if (!k || !*k)
		return 0;
	if (!key_ok(k) || strlen(k) >= cap) {
		snprintf(err, errlen, "the API key in the environment holds a control character or is too long");
		return -1;
	}
	snprintf(out, cap, "%s", k);
	return 1;
}

int gp_stream_start(struct gp_stream *s, const char *url, const char *body, size_t len,
		    const char *const *xhdr, int nxhdr)
{
	s->sent_ns = s->first_ns = s->last_ns = s->done_ns = s->end_ns = 0;
	s->last_byte_ns = gp_now_ns();
	s->status = s->connects = 0;
	s->usage_out = s->usage_in = -1;
	s->content_events = 0;
	s->saw_done = s->saw_finish = s->stream_error = s->sse = 0;
	s->sniffed = s->sniff_over = 0;
	s->encoding[0] = '\0';
	s->cls = GP_STREAM_OK;
	s->content_type[0] = s->id[0] = s->detail[0] = '\0';
	s->body_len = 0;
	s->itl_n = 0;
	s->text_lost = 0;
	gp_sse_reset(&s->sse_p);
	if (gp_http_start(s->x, url, body, len, xhdr, nxhdr)) {
		s->cls = GP_STREAM_OTHER;
		snprintf(s->detail, sizeof(s->detail), "libcurl refused the transfer");
		s->end_ns = s->last_byte_ns;
		return -1;
	}
	return 0;
}

void gp_stream_on_sent(struct gp_stream *s, int64_t t)
{
	s->sent_ns = t;
	s->last_byte_ns = t;
}

void gp_stream_on_header(struct gp_stream *s, const char *line, size_t len, int64_t t)
{
	size_t k;

	s->last_byte_ns = t;
	if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
		/* A new response (after a 100 Continue or a redirect): forget
		 * the previous one's content type. */
		s->content_type[0] = s->encoding[0] = '\0';
		s->sse = 0;
		return;
	}
	if (gp_stream_header_value(line, len, "Content-Encoding", s->encoding, sizeof(s->encoding))) {
		gp_oai_mask_secret(s->encoding, s->secret);
		return;
	}
	if (!gp_stream_header_value(line, len, "Content-Type", s->content_type, sizeof(s->content_type)))
		return;
	gp_oai_mask_secret(s->content_type, s->secret);
	k = strcspn(s->content_type, "; \t");
	s->sse = k == 17 && !strncasecmp(s->content_type, "text/event-stream", 17);
}

static void keep_body(struct gp_stream *s, const char *buf, size_t len)
{
	size_t room = sizeof(s->body) - 1 - s->body_len;

	if (len > room)
		len = room;
	memcpy(s->body + s->body_len, buf, len);
	s->body_len += len;
	s->body[s->body_len] = '\0';
}

/*
 * Does the body kept so far begin as an event stream?  1 yes, 0 no, -1 not
 * known yet (it is a prefix of one of the openings).
 */
static int sniff(const char *b, size_t n)
{
	static const char *const open[] = { "data:", "event:", "id:", "retry:", ":" };
	size_t i, k;

	if (n >= 3 && !memcmp(b, "\xEF\xBB\xBF", 3))
		b += 3, n -= 3;
	else if (n < 3 && !memcmp(b, "\xEF\xBB\xBF", n))
		return -1;
	if (!n)
		return -1;
	for (i = 0; i < sizeof(open) / sizeof(open[0]); i++) {
		k = strlen(open[i]);
		if (!memcmp(b, open[i], n < k ? n : k))
			return n < k ? -1 : 1;
	}
	return 0;
}

/* Feed body bytes to the SSE parser: 0, or 1 (stop the transfer) with the
 * class and its detail set. */
static int feed(struct gp_stream *s, const char *buf, size_t len)
{
	int e = gp_sse_feed(&s->sse_p, buf, len);

	if (!e)
		return 0;
	if (e == GP_SSE_ETOOBIG) {
		s->cls = GP_STREAM_INVALID_FRAMING;
		snprintf(s->detail, sizeof(s->detail), "an SSE event over %zu bytes (%s)", s->sse_p.max_event,
			 s->max_event_flag ? s->max_event_flag : "the tool's fixed bound");
	} else if (e == GP_SSE_ENOMEM) {
		s->cls = GP_STREAM_CLIENT_LIMIT;
		snprintf(s->detail, sizeof(s->detail), "out of memory for an SSE event of the stream");
	} else if (!s->cls) {
		s->cls = GP_STREAM_INVALID_FRAMING;
	}
	return 1;
}

int gp_stream_on_body(struct gp_stream *s, long status, const char *buf, size_t len, int64_t t)
{
	s->last_byte_ns = t;
	s->status = status;
	if (status < 200 || status > 299 || s->sniff_over) {
		keep_body(s, buf, len);
		return 0;
	}
	if (s->sse && s->encoding[0] && strcasecmp(s->encoding, "identity")) {
		s->cls = GP_STREAM_INVALID_FRAMING;
		snprintf(s->detail, sizeof(s->detail), "Content-Encoding: %s on the event stream (gp sends no "
			 "Accept-Encoding)", s->encoding);
		gp_oai_scrub(s->detail, sizeof(s->detail), s->secret);
		return 1;
	}
	s->now_ns = t;
	if (!s->sse) {
		size_t had = s->body_len;	/* an undecided prefix, < 7 bytes */
		int k;

		keep_body(s, buf, len);
		k = sniff(s->body, s->body_len);
		if (k < 0)
			return 0;
		if (k == 0) {
			s->sniff_over = 1;
			return 0;
		}
		s->sse = s->sniffed = 1;
		if (had && feed(s, s->body, had))
			return 1;
		s->body_len = 0;
		s->body[0] = '\0';
	}
	return feed(s, buf, len);
}

static void add_itl(struct gp_stream *s, float ms)
{
	if (s->itl_n == s->itl_cap) {
		float *p = gp_grow(s->itl, &s->itl_cap, s->itl_n + 1, sizeof(*p), 64);

		if (!p)
			return;		/* the gap is lost, the measurement is not */
		s->itl = p;
	}
	s->itl[s->itl_n++] = ms;
}

/* The answer's text of a content event into s->text (see stream.h). */
static void keep_text(struct gp_stream *s, const char *data, size_t len)
{
	json_t *o = json_loadb(data, len, 0, NULL);
	json_t *c = json_array_get(json_object_get(o, "choices"), 0);
	json_t *t = json_object_get(json_object_get(c, "delta"), "content");

	if (!json_is_string(t))
		t = json_object_get(c, "text");
	if (json_is_string(t) && gp_buf_add(s->text, json_string_value(t), json_string_length(t)))
		s->text_lost = 1;
	json_decref(o);
}

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct gp_stream *s = arg;
	struct gp_sse_chunk c;

	if (s->saw_done)
		return 0;		/* anything after [DONE] is ignored */
	switch (gp_oai_chunk_read(data, len, &c)) {
	case GP_OAI_DONE:
		s->saw_done = 1;
		s->done_ns = s->now_ns;
		return 0;
	case GP_OAI_EBAD:
		s->cls = GP_STREAM_INVALID_FRAMING;
		snprintf(s->detail, sizeof(s->detail), "an SSE event is not a JSON object");
		return 1;
	}
	if (c.has_error && !s->stream_error) {
		s->stream_error = 1;
		gp_oai_error_read(data, len, s->secret, s->detail, sizeof(s->detail));
	}
	if (c.content) {
		if (s->text && !s->text_lost)
			keep_text(s, data, len);
		s->content_events++;
		if (!s->first_ns)
			s->first_ns = s->now_ns;
		else if (s->keep_itl)
			add_itl(s, (float)gp_ns_to_ms(s->now_ns - s->last_ns));
		s->last_ns = s->now_ns;
	}
	if (c.finish)
		s->saw_finish = 1;
	if (c.completion_tokens >= 0)
		s->usage_out = c.completion_tokens;
	if (c.prompt_tokens >= 0)
		s->usage_in = c.prompt_tokens;
	if (!s->id[0] && c.id[0]) {
		snprintf(s->id, sizeof(s->id), "%s", c.id);
		gp_oai_mask_secret(s->id, s->secret);
	}
	return 0;
}

/* The class of a transfer http.c completed without error. */
static int classify_ok(struct gp_stream *s)
{
	if (s->status < 200 || s->status > 299) {
		gp_oai_error_read(s->body, s->body_len, s->secret, s->detail, sizeof(s->detail));
		return GP_STREAM_HTTP_STATUS;
	}
	if (!s->sse) {
		snprintf(s->detail, sizeof(s->detail), "Content-Type: %s",
			 s->content_type[0] ? s->content_type : "(none)");
		return GP_STREAM_NOT_STREAMED;
	}
	if (gp_sse_finish(&s->sse_p) < 0) {
		snprintf(s->detail, sizeof(s->detail), "an SSE event over %zu bytes (%s)", s->sse_p.max_event,
			 s->max_event_flag ? s->max_event_flag : "the tool's fixed bound");
		return GP_STREAM_INVALID_FRAMING;
	}
	if (s->stream_error)
		return GP_STREAM_STREAM_ERROR;
	if (!s->saw_done || !s->saw_finish) {
		snprintf(s->detail, sizeof(s->detail), "the stream ended without %s",
			 !s->saw_done && !s->saw_finish ? "finish_reason and [DONE]"
			 : !s->saw_done ? "[DONE]" : "finish_reason");
		return GP_STREAM_TRUNCATED;
	}
	if (!s->first_ns) {
		snprintf(s->detail, sizeof(s->detail), "the stream carried no content token");
		return GP_STREAM_EMPTY;
	}
	return GP_STREAM_OK;
}

int gp_stream_on_done(struct gp_stream *s, const struct gp_http_result *res, int64_t t)
{
	int cls = GP_STREAM_OK;

	s->end_ns = s->saw_done ? s->done_ns : t;
	s->connects = gp_http_connects(s->x);
	if (res->status)
		s->status = res->status;
	switch (res->err) {
	case GP_HTTP_OK:
		cls = classify_ok(s);
		break;
	case GP_HTTP_ECONNECT:
		cls = GP_STREAM_CONNECT;
		snprintf(s->detail, sizeof(s->detail), "%s", res->detail);
		break;
	case GP_HTTP_ETLS:
		cls = GP_STREAM_TLS;
		snprintf(s->detail, sizeof(s->detail), "%s", res->detail);
		break;
	case GP_HTTP_ELIMIT:
		cls = GP_STREAM_CLIENT_LIMIT;
		snprintf(s->detail, sizeof(s->detail), "the client's own limit: %s", res->detail);
		break;
	case GP_HTTP_ERESET:
		cls = GP_STREAM_RESET;
		snprintf(s->detail, sizeof(s->detail), "%s", res->detail);
		break;
	case GP_HTTP_EFRAMING:
		cls = GP_STREAM_INVALID_FRAMING;
		snprintf(s->detail, sizeof(s->detail), "%s", res->detail);
		break;
	case GP_HTTP_ETIMEOUT:
		cls = GP_STREAM_TIMEOUT;
		snprintf(s->detail, sizeof(s->detail), "%s", s->first_ns ? "over the deadline while streaming"
									: "no first token before the deadline");
		break;
	case GP_HTTP_EABORT:
		cls = s->cls ? s->cls : GP_STREAM_OTHER;
		break;
	default:
		cls = GP_STREAM_OTHER;
		snprintf(s->detail, sizeof(s->detail), "%s", res->detail);
		break;
	}
	gp_oai_scrub(s->detail, sizeof(s->detail), s->secret);
	s->cls = cls;
	return cls;
}

int gp_stream_done_due(const struct gp_stream *s, int64_t t)
{
	return s->saw_done && s->done_ns && t - s->done_ns >= GP_STREAM_DONE_GRACE_NS;
}

void gp_stream_end_done(struct gp_stream *s)
{
	long st = gp_http_status(s->x);

	if (st)
		s->status = st;
	s->connects = gp_http_connects(s->x);
	gp_http_cancel(s->x);
	s->detail[0] = '\0';
	s->cls = classify_ok(s);
	s->end_ns = s->done_ns;
	gp_oai_scrub(s->detail, sizeof(s->detail), s->secret);
}

void gp_stream_abort(struct gp_stream *s, int cls, int64_t t)
{
	long st = gp_http_status(s->x);

	if (st)
		s->status = st;
	s->connects = gp_http_connects(s->x);
	gp_http_cancel(s->x);
	s->cls = cls;
	s->end_ns = t;
	if (cls == GP_STREAM_HANG)
		snprintf(s->detail, sizeof(s->detail), "no byte for %.3f s after %ld content events",
			 gp_ns_to_s(t - s->last_byte_ns), s->content_events);
}

static double ms_between(int64_t a, int64_t b)
{
	return a && b ? gp_ns_to_ms(b - a) : NAN;
}

void gp_stream_result(const struct gp_stream *s, struct gp_stream_result *r)
{
	int sent = s->sent_ns != 0;

	int contra = s->usage_out >= 0 && s->usage_out < s->content_events;

	r->cls = s->cls;
	r->out_tokens = s->usage_out >= 0 && !contra ? s->usage_out : s->content_events;
	r->tokens_from = !sent ? NULL : contra ? "chunks_usage_contradicted" : s->usage_out >= 0 ? "usage"
			 : s->content_events ? "chunks" : NULL;
	if (!r->tokens_from)
		r->out_tokens = -1;
	r->ttft_ms = sent && s->first_ns ? ms_between(s->sent_ns, s->first_ns) : NAN;
	r->e2e_ms = sent ? ms_between(s->sent_ns, s->end_ns) : NAN;
	r->tpot_ms = NAN;
	if (s->cls)
		r->outcome = "failed";
	else if (r->out_tokens == 1)
		r->outcome = "single_token";
	else {
		r->outcome = "ok";
		if (r->out_tokens >= 2)
			r->tpot_ms = (r->e2e_ms - r->ttft_ms) / (double)(r->out_tokens - 1);
	}
}

/* ---- response headers ---- */

void gp_stream_copy_value(char *out, size_t cap, const char *v, size_t n)
{
	size_t i, k = 0;

	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	for (i = 0; i < n && k + 1 < cap; i++)
		out[k++] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? ' ' : v[i];
	out[k] = '\0';
	gp_utf8_repair(out, cap);	/* ISO-8859-1 or binary: buf.h's rule */
}

int gp_stream_header_value(const char *line, size_t len, const char *name, char *out, size_t cap)
{
	size_t n = name ? strlen(name) : 0;

	if (!name || len <= n || line[n] != ':' || strncasecmp(line, name, n))
		return 0;
	gp_stream_copy_value(out, cap, line + n + 1, len - n - 1);
	return 1;
}

/* ---- streamed chat requests (gp-health, gp-probe) ---- */

#define CHAT_MAX_EVENT (1u << 20)

struct chat_run;

struct chat_slot {
	const struct gp_stream_chat_cfg *cfg;
	struct chat_run *u;		/* the burst it belongs to */
	struct gp_stream st;
	struct gp_stream_chat_res r;
	long idx;			/* request index, -1 when idle */
};

static void chat_on_sent(void *user, int64_t t)
{
	gp_stream_on_sent(&((struct chat_slot *)user)->st, t);
}

static void chat_on_header(void *user, const char *line, size_t len, int64_t t)
{
	struct chat_slot *s = user;

	if (s->cfg->backend_header &&
	    gp_stream_header_value(line, len, s->cfg->backend_header, s->r.backend, sizeof(s->r.backend)))
		gp_oai_mask_secret(s->r.backend, s->cfg->api_key);
	if (s->cfg->receipt_header &&
	    gp_stream_header_value(line, len, s->cfg->receipt_header, s->r.receipt, sizeof(s->r.receipt))) {
		s->r.have_receipt = 1;
		gp_oai_mask_secret(s->r.receipt, s->cfg->api_key);
	}
	gp_stream_on_header(&s->st, line, len, t);
}

static int chat_on_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	return gp_stream_on_body(&((struct chat_slot *)user)->st, status, buf, len, t);
}

/* The result of a finished stream, in the terms of a chat result. */
static void chat_result(struct chat_slot *s)
{
	struct gp_stream_result m;

	gp_stream_result(&s->st, &m);
	s->r.status = s->st.status;
	s->r.error = gp_stream_class_name(m.cls);
	snprintf(s->r.detail, sizeof(s->r.detail), "%s", s->st.detail);
	s->r.content_events = s->st.content_events;
	s->r.done = s->st.saw_done;
	s->r.ttft_ms = m.ttft_ms;
	s->r.e2e_ms = m.e2e_ms;
	s->r.tpot_ms = m.tpot_ms;
	s->r.out_tokens = m.out_tokens;
	s->r.outcome = m.outcome;
}

struct chat_run {
	const struct gp_stream_chat_burst *b;
	struct chat_slot *slots;
	long next, running;
};

static void chat_start(struct chat_run *u, struct chat_slot *s)
{
	const char *body, *xhdr[GP_HTTP_MAX_XHDR];
	size_t len;
	int nx = 0;

	s->idx = u->next++;
	memset(&s->r, 0, sizeof(s->r));
	s->r.ttft_ms = s->r.e2e_ms = s->r.tpot_ms = NAN;
	s->r.out_tokens = -1;
	u->b->make(u->b->arg, s->idx, &body, &len, xhdr, &nx);
	if (gp_stream_start(&s->st, s->cfg->url, body, len, xhdr, nx > 2 ? 2 : nx)) {
		chat_result(s);
		u->b->on_done(u->b->arg, s->idx, &s->r);
		s->idx = -1;
		return;
	}
	u->running++;
}

static void chat_on_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct chat_slot *s = user;
	struct chat_run *u = s->u;

	gp_stream_on_done(&s->st, res, t);
	chat_result(s);
	u->running--;
	u->b->on_done(u->b->arg, s->idx, &s->r);
	s->idx = -1;
}

/* cfg->stop said so: cancel every request in flight, each to its on_done. */
static void chat_cancel_all(struct chat_run *u, long c)
{
	for (long i = 0; i < c; i++) {
		struct chat_slot *s = &u->slots[i];

		if (s->idx < 0)
			continue;
		gp_stream_abort(&s->st, GP_STREAM_CANCELLED, gp_now_ns());
		chat_result(s);
		u->running--;
		u->b->on_done(u->b->arg, s->idx, &s->r);
		s->idx = -1;
	}
}

/* The streams whose [DONE] came and whose server left them open: ended as
 * complete after the grace. */
static void chat_end_done(struct chat_run *u, long c)
{
	int64_t now = gp_now_ns();

	for (long i = 0; i < c; i++) {
		struct chat_slot *s = &u->slots[i];

		if (s->idx < 0 || !gp_stream_done_due(&s->st, now))
			continue;
		gp_stream_end_done(&s->st);
		chat_result(s);
		u->running--;
		u->b->on_done(u->b->arg, s->idx, &s->r);
		s->idx = -1;
	}
}

int gp_stream_chat_burst_run(const struct gp_stream_chat_burst *b)
{
	static const struct gp_http_ops ops = { chat_on_sent, chat_on_header, chat_on_body, chat_on_done };
	struct gp_http_opts ho = { 0 };
	struct chat_run u = { b, NULL, 0, 0 };
	struct gp_http *h;
	char url[2048];
	struct gp_stream_chat_cfg cfg = *b->cfg;
	long c = b->concurrency < 1 ? 1 : b->concurrency;
	int stop = 0, rc = 0;
	int64_t next_tick;

	if (c > b->requests)
		c = b->requests > 0 ? b->requests : 1;
	snprintf(url, sizeof(url), "%s%s", b->cfg->url, gp_oai_path(1));
	cfg.url = url;
	ho.deadline_ms = b->cfg->timeout_ms;
	ho.connect_timeout_ms = b->cfg->timeout_ms;
	if (b->cfg->tls)
		ho.tls = *b->cfg->tls;
	h = gp_http_new(&ho, &ops);
	if (!h || gp_stream_headers(h, 1, b->cfg->api_key)) {
		gp_http_free(h);
		return -1;
	}
	u.slots = calloc((size_t)c, sizeof(*u.slots));
	if (!u.slots) {
		free(u.slots);
		gp_http_free(h);
		return -1;
	}
	for (long i = 0; i < c; i++) {
		u.slots[i].cfg = &cfg;
		u.slots[i].u = &u;
		u.slots[i].idx = -1;
		if (gp_stream_init(&u.slots[i].st, h, &u.slots[i], CHAT_MAX_EVENT))
			rc = -1;
		u.slots[i].st.secret = b->cfg->api_key;
	}
	next_tick = gp_now_ns() + b->tick_ns;
	while (!rc) {
		if (!stop && b->cfg->stop && b->cfg->stop()) {
			stop = 1;
			chat_cancel_all(&u, c);
		}
		for (long i = 0; i < c && !stop; i++)
			if (u.slots[i].idx < 0 && u.next < b->requests)
				chat_start(&u, &u.slots[i]);
		if (u.running == 0 && (stop || u.next >= b->requests))
			break;
		if (gp_http_poll(h, next_tick) < 0)
			rc = -1;
		chat_end_done(&u, c);
		if (gp_now_ns() >= next_tick) {
			next_tick += b->tick_ns;
			if (b->tick && b->tick(b->arg, gp_now_ns()))
				stop = 1;
		}
	}
	for (long i = 0; i < c; i++)
		gp_stream_release(&u.slots[i].st);
	free(u.slots);
	gp_http_free(h);
	return rc;
}

struct chat_one {
	const char *body;
	size_t len;
	const char *const *xhdr;
	int nxhdr;
	struct gp_stream_chat_res *r;
	int done;
};

static void chat_one_make(void *arg, long i, const char **body, size_t *len, const char **xhdr,
		      int *nxhdr)
{
	struct chat_one *o = arg;

	(void)i;
	*body = o->body;
	*len = o->len;
	for (int k = 0; k < o->nxhdr && k < 2; k++)
		xhdr[k] = o->xhdr[k];
	*nxhdr = o->nxhdr;
}

static void chat_one_done(void *arg, long i, const struct gp_stream_chat_res *r)
{
	(void)i;
	*((struct chat_one *)arg)->r = *r;
	((struct chat_one *)arg)->done = 1;
}

int gp_stream_chat_once(const struct gp_stream_chat_cfg *cfg, const char *body, size_t len,
			const char *const *xhdr, int nxhdr, struct gp_stream_chat_res *r)
{
	struct chat_one o;
	struct gp_stream_chat_burst b = { cfg, 1, 1, 100000000, chat_one_make, chat_one_done, NULL, &o };

	memset(r, 0, sizeof(*r));
	r->ttft_ms = r->e2e_ms = r->tpot_ms = NAN;
	r->out_tokens = -1;
	o = (struct chat_one){ body, len, xhdr, nxhdr, r, 0 };
	if (gp_stream_chat_burst_run(&b)) {
		snprintf(r->detail, sizeof(r->detail), "cannot set up libcurl");
		return -1;
	}
	if (!o.done)	/* cfg->stop said so before it started */
		r->error = gp_stream_class_name(GP_STREAM_CANCELLED);
	return 0;
}

