/* SPDX-License-Identifier: MIT */
/*
 * chatreq — streamed chat completions for gp-health and gp-probe.
 * INTERIM, to be folded into the wire module's stream.h (see chatreq.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chatreq.h"
#include "clock.h"
#include "http.h"
#include "openai.h"
#include "sse.h"

#define MAX_EVENT (1u << 20)

struct slot {
	const struct gp_chatreq_cfg *cfg;
	struct gp_http_xfer *x;
	struct gp_sse sse;
	struct gp_chatreq_res r;
	long idx;			/* request index, -1 when idle */
	int sse_ct, bad;
	int64_t sent_ns, first_ns;
	char body[1024];		/* head of a non-SSE body (errors) */
	size_t body_len;
	int64_t now_ns;
};

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct slot *s = arg;
	struct gp_sse_chunk c;
	int k = gp_oai_chunk_read(data, len, &c);

	(void)type;
	if (k == GP_OAI_DONE) {
		s->r.done = 1;
		if (s->sent_ns)
			s->r.e2e_ms = gp_ns_to_ms(s->now_ns - s->sent_ns);
		return 0;
	}
	if (k < 0) {
		s->bad = 1;
		return 1;
	}
	if (c.content) {
		if (!s->r.content_events++ && s->sent_ns) {
			s->first_ns = s->now_ns;
			s->r.ttft_ms = gp_ns_to_ms(s->now_ns - s->sent_ns);
		}
	}
	return 0;
}

static void on_sent(void *user, int64_t t)
{
	((struct slot *)user)->sent_ns = t;
}

/* "Name: value" when the line's name is `name` (any case): copy the value. */
static void header_value(const char *line, size_t len, const char *name, char *out,
			 size_t cap, int *have)
{
	size_t n = name ? strlen(name) : 0, v;

	if (!name || len <= n || line[n] != ':' || strncasecmp(line, name, n))
		return;
	for (v = n + 1; v < len && (line[v] == ' ' || line[v] == '\t'); v++)
		;
	while (len > v && (line[len - 1] == '\r' || line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	snprintf(out, cap, "%.*s", (int)(len - v), line + v);
	if (have)
		*have = 1;
}

static void on_header(void *user, const char *line, size_t len, int64_t t)
{
	struct slot *s = user;
	char ct[96] = "";
	int h = 0;

	(void)t;
	if (s->cfg->backend_header)
		header_value(line, len, s->cfg->backend_header, s->r.backend, sizeof(s->r.backend),
			     NULL);
	if (s->cfg->receipt_header)
		header_value(line, len, s->cfg->receipt_header, s->r.receipt, sizeof(s->r.receipt),
			     &s->r.have_receipt);
	header_value(line, len, "content-type", ct, sizeof(ct), &h);
	if (h)
		s->sse_ct = !strncasecmp(ct, "text/event-stream", 17);
}

static int on_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	struct slot *s = user;

	s->now_ns = t;
	if (status != 200 || !s->sse_ct) {
		size_t n = len < sizeof(s->body) - 1 - s->body_len ? len : sizeof(s->body) - 1 - s->body_len;

		memcpy(s->body + s->body_len, buf, n);
		s->body_len += n;
		s->body[s->body_len] = 0;
		return 0;
	}
	if (gp_sse_feed(&s->sse, buf, len) != GP_SSE_OK) {
		s->bad = 1;
		return 1;
	}
	return 0;
}

/* The class of a finished transfer. */
static void classify(struct slot *s, const struct gp_http_result *res)
{
	struct gp_chatreq_res *r = &s->r;

	r->status = res->status;
	if (res->err == GP_HTTP_ECONNECT) {
		r->error = "connect";
	} else if (res->err == GP_HTTP_ETIMEOUT) {
		r->error = "timeout";
	} else if (res->err == GP_HTTP_EFRAMING || s->bad) {
		r->error = "invalid_framing";
	} else if (res->status && (res->status < 200 || res->status > 299)) {
		r->error = "http_status";
		gp_oai_error_read(s->body, s->body_len, s->cfg->api_key, r->detail, sizeof(r->detail));
		return;
	} else if (res->err == GP_HTTP_ERESET) {
		r->error = "reset";
	} else if (res->err != GP_HTTP_OK) {
		r->error = "other";
	} else if (!s->sse_ct) {
		r->error = "not_streamed";
	} else if (!r->done) {
		r->error = "truncated";
	} else {
		r->error = NULL;
	}
	if (r->error && res->detail && *res->detail) {
		snprintf(r->detail, sizeof(r->detail), "%s", res->detail);
		gp_oai_scrub(r->detail, sizeof(r->detail), s->cfg->api_key);
	}
}

struct run {
	const struct gp_chatreq_burst *b;
	struct slot *slots;
	long next, running;
};

static struct run *cur_run;	/* the burst the callbacks belong to (one at a time) */

static void start(struct run *u, struct slot *s)
{
	const char *body, *xhdr[GP_HTTP_MAX_XHDR];
	size_t len;
	int nx = 0;

	s->idx = u->next++;
	memset(&s->r, 0, sizeof(s->r));
	s->r.ttft_ms = s->r.e2e_ms = NAN;
	s->sse_ct = s->bad = 0;
	s->sent_ns = s->first_ns = 0;
	s->body_len = 0;
	s->body[0] = 0;
	gp_sse_reset(&s->sse);
	u->b->make(u->b->arg, s->idx, &body, &len, xhdr, &nx);
	if (gp_http_start(s->x, s->cfg->url, body, len, xhdr, nx > 2 ? 2 : nx)) {
		s->r.error = "other";
		snprintf(s->r.detail, sizeof(s->r.detail), "libcurl refused the request");
		u->b->on_done(u->b->arg, s->idx, &s->r);
		s->idx = -1;
		return;
	}
	u->running++;
}

static void on_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct slot *s = user;
	struct run *u = cur_run;

	s->now_ns = t;
	classify(s, res);
	u->running--;
	u->b->on_done(u->b->arg, s->idx, &s->r);
	s->idx = -1;
}

int gp_chatreq_burst_run(const struct gp_chatreq_burst *b)
{
	static const struct gp_http_ops ops = { on_sent, on_header, on_body, on_done };
	struct gp_http_opts ho = { 0 };
	struct run u = { b, NULL, 0, 0 };
	struct gp_http *h;
	char url[2048], auth[1100];
	struct gp_chatreq_cfg cfg = *b->cfg;
	long c = b->concurrency < 1 ? 1 : b->concurrency;
	int stop = 0, rc = 0;
	int64_t next_tick;

	if (c > b->requests)
		c = b->requests > 0 ? b->requests : 1;
	snprintf(url, sizeof(url), "%s%s", b->cfg->url, gp_oai_path(1));
	cfg.url = url;
	ho.deadline_ms = b->cfg->timeout_ms;
	ho.connect_timeout_ms = b->cfg->timeout_ms;
	h = gp_http_new(&ho, &ops);
	if (!h || gp_http_add_header(h, GP_OAI_CONTENT_TYPE) || gp_http_add_header(h, GP_OAI_ACCEPT_SSE)) {
		gp_http_free(h);
		return -1;
	}
	if (b->cfg->api_key) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", b->cfg->api_key);
		rc = gp_http_add_header(h, auth);
		memset(auth, 0, sizeof(auth));
	}
	u.slots = calloc((size_t)c, sizeof(*u.slots));
	if (rc || !u.slots) {
		free(u.slots);
		gp_http_free(h);
		return -1;
	}
	cur_run = &u;
	for (long i = 0; i < c; i++) {
		u.slots[i].cfg = &cfg;
		u.slots[i].idx = -1;
		u.slots[i].x = gp_http_xfer_new(h, &u.slots[i]);
		gp_sse_init(&u.slots[i].sse, MAX_EVENT, on_event, &u.slots[i]);
		if (!u.slots[i].x)
			rc = -1;
	}
	next_tick = gp_now_ns() + b->tick_ns;
	while (!rc) {
		for (long i = 0; i < c && !stop; i++)
			if (u.slots[i].idx < 0 && u.next < b->requests)
				start(&u, &u.slots[i]);
		if (u.running == 0 && (stop || u.next >= b->requests))
			break;
		if (gp_http_poll(h, next_tick) < 0)
			rc = -1;
		if (gp_now_ns() >= next_tick) {
			next_tick += b->tick_ns;
			if (b->tick && b->tick(b->arg, gp_now_ns()))
				stop = 1;
		}
	}
	for (long i = 0; i < c; i++) {
		gp_http_xfer_free(u.slots[i].x);
		gp_sse_release(&u.slots[i].sse);
	}
	cur_run = NULL;
	free(u.slots);
	gp_http_free(h);
	return rc;
}

struct once {
	const char *body;
	size_t len;
	const char *const *xhdr;
	int nxhdr;
	struct gp_chatreq_res *r;
};

static void once_make(void *arg, long i, const char **body, size_t *len, const char **xhdr,
		      int *nxhdr)
{
	struct once *o = arg;

	(void)i;
	*body = o->body;
	*len = o->len;
	for (int k = 0; k < o->nxhdr && k < 2; k++)
		xhdr[k] = o->xhdr[k];
	*nxhdr = o->nxhdr;
}

static void once_done(void *arg, long i, const struct gp_chatreq_res *r)
{
	(void)i;
	*((struct once *)arg)->r = *r;
}

int gp_chatreq_once(const struct gp_chatreq_cfg *cfg, const char *body, size_t len,
		    const char *const *xhdr, int nxhdr, struct gp_chatreq_res *r)
{
	struct once o = { body, len, xhdr, nxhdr, r };
	struct gp_chatreq_burst b = { cfg, 1, 1, 100000000, once_make, once_done, NULL, &o };

	memset(r, 0, sizeof(*r));
	r->ttft_ms = r->e2e_ms = NAN;
	if (gp_chatreq_burst_run(&b)) {
		snprintf(r->detail, sizeof(r->detail), "cannot set up libcurl");
		return -1;
	}
	return 0;
}

int gp_chatreq_api_key(const char *file, char *out, size_t cap, char *err, size_t errlen)
{
	const char *env = getenv("GP_API_KEY");
	size_t n;

	out[0] = 0;
	if (file) {
		FILE *f = fopen(file, "r");

		if (!f) {
			snprintf(err, errlen, "%s: cannot be read", file);
			return -1;
		}
		if (!fgets(out, (int)cap, f))
			out[0] = 0;
		fclose(f);
		out[strcspn(out, "\r\n")] = 0;
		if (!*out) {
			snprintf(err, errlen, "%s: empty", file);
			return -1;
		}
	} else {
		if (!env || !*env)
			env = getenv("OPENAI_API_KEY");
		if (!env || !*env)
			return 0;
		snprintf(out, cap, "%s", env);
	}
	for (n = 0; out[n]; n++) {
		if ((unsigned char)out[n] < 0x20 || out[n] == 0x7f) {
			memset(out, 0, cap);
			snprintf(err, errlen, "the key holds a control character");
			return -1;
		}
	}
	return 1;
}
