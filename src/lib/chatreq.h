/* SPDX-License-Identifier: MIT */
/*
 * chatreq — streamed chat completions for the fleet checks (gp-health,
 * gp-probe): one blocking request, or a burst of n requests with c in flight
 * and a tick every interval (the probe samples the backends there).  Each
 * request is one stream.h stream — the same timings and error classes as
 * gp-replay's — on one http.h engine; bodies come from openai.h's request
 * writer (the caller's).  What this adds: the loop, and the capture of the
 * response headers that name the serving backend and carry the receipt.
 *
 * Classes: `error` is gp_stream_class_name() of the stream's class (NULL
 * when ok: 200, text/event-stream, [DONE]).  Nothing here detects a hang:
 * timeout_ms bounds every request.
 *
 * Ownership: strings in a result are copies inside it; bodies and headers
 * passed in are borrowed for the call.  Nothing here prints or exits.
 */
#ifndef GP_CHATREQ_H
#define GP_CHATREQ_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

struct gp_chatreq_res {
	long status;			/* HTTP status, 0 when none */
	const char *error;		/* class name, NULL when ok */
	char detail[256];		/* the class's detail, "" when none */
	char backend[128];		/* the backend header's value, "" when absent */
	char receipt[256];		/* the receipt header's value, "" when absent */
	int have_receipt;		/* the receipt header was on the response */
	long content_events;		/* content-bearing SSE events */
	int done;			/* [DONE] seen */
	double ttft_ms, e2e_ms;		/* NaN when not measured */
};

struct gp_chatreq_cfg {
	const char *url;		/* base URL; the path is appended */
	const char *api_key;		/* NULL: no Authorization */
	const char *backend_header;	/* NULL: not captured */
	const char *receipt_header;	/* NULL: not captured */
	long timeout_ms;		/* per request, > 0 */
	const struct gp_http_tls *tls;	/* https: the certificate policy (http.h), NULL: default */
};

/*
 * One streamed chat completion of body[0..len) with up to 2 extra header
 * lines ("Name: value").  Blocks for at most cfg->timeout_ms (plus the
 * connection's teardown).  0 with *r filled (r->error says how it went), or
 * -1 when libcurl could not be set up (r->detail says why).
 */
int gp_chatreq_once(const struct gp_chatreq_cfg *cfg, const char *body, size_t len,
		    const char *const *xhdr, int nxhdr, struct gp_chatreq_res *r);

/* A burst: the caller's callbacks give request i's body and headers, take
 * its result, and are ticked between polls. */
struct gp_chatreq_burst {
	const struct gp_chatreq_cfg *cfg;
	long requests, concurrency;
	int64_t tick_ns;		/* period of tick(), > 0 */
	/* Body and (up to 2) headers of request i, valid until its on_done. */
	void (*make)(void *arg, long i, const char **body, size_t *len,
		     const char **xhdr, int *nxhdr);
	void (*on_done)(void *arg, long i, const struct gp_chatreq_res *r);
	/* Called every tick_ns; return non-zero to stop starting requests. */
	int (*tick)(void *arg, int64_t now_ns);
	void *arg;
};

/* Run the burst to its end (every started request done).  0, or -1 when
 * libcurl could not be set up. */
int gp_chatreq_burst_run(const struct gp_chatreq_burst *b);

#endif
