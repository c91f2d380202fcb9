/* SPDX-License-Identifier: MIT */
/*
 * calwire — INTERIM: one streamed OpenAI completion over http.c and sse.c,
 * with its timings and error class, for gp-calibrate.
 *
 *   TO BE FOLDED into src/lib/openai.{c,h} (the request writer and chunk
 *   reader) and the shared streamed-request module of issue 9 when they land
 *   in main; gp-calibrate then drives its load through those, and this file
 *   goes.  It copies nothing from gp-replay.c: the body comes from openai.c,
 *   the chunks are read by openai.c; the event handling is what gp-calibrate
 *   needs (per-event times for the token windows).
 *
 * A struct gp_calwire_req is one request: the caller fills `ops`, `user` and
 * the request (gp_calwire_start writes the body), hands it to the engine, and
 * is called back:
 *   on_first   the first content-bearing event (TTFT);
 *   on_token   every content-bearing event, the first included;
 *   on_header  every response header line;
 *   on_done    the request is over (completed, failed or cancelled with
 *              gp_calwire_cancel): `err` says how.
 * Pass gp_calwire_http_ops to gp_http_new: every transfer's user pointer is
 * then its gp_calwire_req.
 *
 * Ownership: the request owns its body buffer and SSE parser (gp_calwire_
 * release frees them); the xfer is the caller's (reused across requests).
 */
#ifndef GP_CALWIRE_H
#define GP_CALWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"
#include "openai.h"
#include "sse.h"

/* Outcome classes (the names of gp-replay's request record). */
enum gp_calwire_err {
	GP_CW_OK = 0,
	GP_CW_CONNECT,
	GP_CW_HTTP_STATUS,
	GP_CW_RESET,
	GP_CW_INVALID_FRAMING,
	GP_CW_TIMEOUT,
	GP_CW_TRUNCATED,
	GP_CW_STREAM_ERROR,
	GP_CW_OTHER,
	GP_CW_CANCELLED,	/* gp_calwire_cancel */
	GP_CW_NCLASS
};

/* "connect", "http_status", ... ("ok" for GP_CW_OK). */
const char *gp_calwire_err_name(int err);

struct gp_calwire_req;

struct gp_calwire_ops {
	void (*on_first)(struct gp_calwire_req *r, int64_t t_ns);
	void (*on_token)(struct gp_calwire_req *r, int64_t t_ns);
	void (*on_header)(struct gp_calwire_req *r, const char *line, size_t len);
	void (*on_done)(struct gp_calwire_req *r);
};

struct gp_calwire_req {
	const struct gp_calwire_ops *ops;	/* set by the caller */
	void *user;				/* the caller's */
	struct gp_http_xfer *x;			/* the caller's, user = this req */

	/* Filled while the request runs. */
	int running;
	int64_t t_start_ns;	/* handed to libcurl */
	int64_t t_sent_ns;	/* libcurl about to write it (0: never) */
	int64_t t_first_ns;	/* first content event (0: none) */
	int64_t t_end_ns;	/* [DONE], failure or cancel */
	long events;		/* content-bearing events */
	long usage_in, usage_out;	/* usage.prompt/completion_tokens, -1 */
	long status;		/* HTTP status, 0 if none */
	int err;		/* enum gp_calwire_err, valid in on_done */

	/* Private. */
	int saw_done, saw_finish, stream_error, framing;
	int64_t now_ns;
	struct gp_sse sse;
	struct gp_oai_buf body;
};

extern const struct gp_http_ops gp_calwire_http_ops;

/* Zero r (no allocation). */
void gp_calwire_init(struct gp_calwire_req *r);
void gp_calwire_release(struct gp_calwire_req *r);

/*
 * The request body, written by openai.c (gp_oai_req_write): one user message
 * (chat) or the prompt (completions), max_tokens, min_tokens = max_tokens and
 * ignore_eos (exactly max_tokens tokens), streamed with include_usage.
 * 0 or -1 (out of memory).
 */
int gp_calwire_body(struct gp_calwire_req *r, int chat, const char *model,
		    const char *prompt, long max_tokens);

/*
 * Start r on its xfer (POST url with the body built above; extra header
 * lines xhdr[0..n)), at monotonic now_ns.  0, or -1 when libcurl refused.
 */
int gp_calwire_start(struct gp_calwire_req *r, const char *url, const char *const *xhdr,
		     int nxhdr, int64_t now_ns);

/* Cancel a running request: on_done is called with GP_CW_CANCELLED. */
void gp_calwire_cancel(struct gp_calwire_req *r, int64_t now_ns);

#endif
