/* SPDX-License-Identifier: MIT */
/*
 * chatreq — streamed chat completions for gp-health and gp-probe, over
 * stream.h: one blocking request, or a burst with ticks.
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
#include "stream.h"

#define MAX_EVENT (1u << 20)

struct run;

struct slot {
	const struct gp_chatreq_cfg *cfg;
	struct run *u;			/* the burst it belongs to */
	struct gp_stream st;
	struct gp_chatreq_res r;
	long idx;			/* request index, -1 when idle */
};

static void on_sent(void *user, int64_t t)
{
	gp_stream_on_sent(&((struct slot *)user)->st, t);
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

	if (s->cfg->backend_header)
		header_value(line, len, s->cfg->backend_header, s->r.backend, sizeof(s->r.backend),
			     NULL);
	if (s->cfg->receipt_header)
		header_value(line, len, s->cfg->receipt_header, s->r.receipt, sizeof(s->r.receipt),
			     &s->r.have_receipt);
	gp_stream_on_header(&s->st, line, len, t);
}

static int on_body(void *user, long status, const char *buf, size_t len, int64_t t)
{
	return gp_stream_on_body(&((struct slot *)user)->st, status, buf, len, t);
}

/* The result of a finished stream, in the terms of chatreq.h. */
static void result(struct slot *s)
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
}

struct run {
	const struct gp_chatreq_burst *b;
	struct slot *slots;
	long next, running;
};

static void start(struct run *u, struct slot *s)
{
	const char *body, *xhdr[GP_HTTP_MAX_XHDR];
	size_t len;
	int nx = 0;

	s->idx = u->next++;
	memset(&s->r, 0, sizeof(s->r));
	s->r.ttft_ms = s->r.e2e_ms = NAN;
	u->b->make(u->b->arg, s->idx, &body, &len, xhdr, &nx);
	if (gp_stream_start(&s->st, s->cfg->url, body, len, xhdr, nx > 2 ? 2 : nx)) {
		result(s);
		u->b->on_done(u->b->arg, s->idx, &s->r);
		s->idx = -1;
		return;
	}
	u->running++;
}

static void on_done(void *user, const struct gp_http_result *res, int64_t t)
{
	struct slot *s = user;
	struct run *u = s->u;

	gp_stream_on_done(&s->st, res, t);
	result(s);
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
	char url[2048];
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
		if (gp_stream_init(&u.slots[i].st, h, &u.slots[i], MAX_EVENT))
			rc = -1;
		u.slots[i].st.secret = b->cfg->api_key;
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
	for (long i = 0; i < c; i++)
		gp_stream_release(&u.slots[i].st);
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
	struct once o;
	struct gp_chatreq_burst b = { cfg, 1, 1, 100000000, once_make, once_done, NULL, &o };

	memset(r, 0, sizeof(*r));
	r->ttft_ms = r->e2e_ms = NAN;
	o = (struct once){ body, len, xhdr, nxhdr, r };
	if (gp_chatreq_burst_run(&b)) {
		snprintf(r->detail, sizeof(r->detail), "cannot set up libcurl");
		return -1;
	}
	return 0;
}

