/* SPDX-License-Identifier: MIT */
/*
 * stream — one streamed OpenAI completion over the gp_http engine: its
 * state, its SSE feed, its timings, its token count and the class of what
 * went wrong.  gp-replay, gp-health, gp-probe and gp-calibrate all measure a
 * request through it, so TTFT means the same thing in every tool.
 *
 * Timings (CLOCK_MONOTONIC ns, 0 = did not happen), taken in http.c's
 * callbacks:
 *   sent   CURLOPT_PREREQFUNCTION: the request is about to be written;
 *   first  the write callback in which the first content-bearing SSE event
 *          completed (its blank line arrived) — a role-only first chunk is
 *          not content (openai.h);
 *   last   the same for the last content-bearing event;
 *   end    the write callback in which "data: [DONE]" completed, else the
 *          end of the transfer.
 *   TTFT = first − sent;  E2E = end − sent;
 *   TPOT = (E2E − TTFT) / (out_tokens − 1) for out_tokens ≥ 2 (vLLM's
 *          benchmark_serving and DistServe's definition), so TPOT stays
 *          right when one chunk carries several tokens;
 *   ITL  = the gaps between consecutive content events (per chunk, not per
 *          token), kept when asked for.
 * out_tokens = usage.completion_tokens when the server sent usage
 * (tokens_from "usage"), else the number of content events ("chunks");
 * see below for usage that contradicts the count.
 *
 * A 2xx body is read as an event stream when its Content-Type is
 * text/event-stream, or — as aiohttp and the OpenAI SDK read it — when the
 * body itself begins as one (after an optional BOM: "data:", "event:",
 * "id:", "retry:" or a ":" comment); the latter is `sniffed` (the caller
 * flags it, naming the Content-Type).  [DONE] ends the request: when the
 * server leaves the response open after it, gp_stream_done_due says so
 * GP_STREAM_DONE_GRACE_NS later and gp_stream_end_done ends it as complete
 * (E2E still ends at [DONE]).  No Accept-Encoding is sent, so a 2xx stream
 * (by its Content-Type) with a Content-Encoding other than identity is
 * invalid_framing naming it (a compressed body is not recognised by its bytes).
 * Usage that contradicts the stream — completion_tokens below the number of
 * content events, each of which carries at least one token — is not
 * believed: out_tokens falls back to the count, tokens_from
 * "chunks_usage_contradicted".
 *
 * Classes (doc/records.md): connect (nothing sent), http_status (a non-2xx;
 * the server's message, scrubbed, in detail), not_streamed (a 2xx that is
 * not an event stream; its content type in detail), timeout (over the
 * deadline — the only bound on the wait for the first token), hang (a
 * stream that had started — first content token received — then sent
 * nothing for the idle limit; the caller decides, gp_stream_abort), truncated
 * (ended without [DONE] or without finish_reason), reset, invalid_framing
 * (bad HTTP chunking, an SSE event that is not JSON or over the bound),
 * cancelled (interrupted), stream_error (an in-stream {"error":…} event, or
 * vLLM's older flat {"object":"error","message":…}; its message in detail),
 * empty (a complete stream without one content token), other, tls (the
 * TLS handshake failed or the server's certificate did not verify: nothing
 * sent; a caller stops as for connect), client_limit (the client's own
 * limit, not the server's doing: out of descriptors — EMFILE, ENFILE —,
 * of memory, or of ephemeral ports — EADDRNOTAVAIL —; http.h), abandoned
 * (never sent: an earlier turn of its session failed and the replay's
 * policy gave the session up; the stream itself never carries it,
 * gp-replay records it).
 * An SSE event over max_event is invalid_framing with a detail naming the
 * bound and max_event_flag.
 *
 * Ownership: a struct gp_stream is embedded in the caller's per-request
 * struct; gp_stream_init creates its transfer with the caller's `user`
 * pointer (the one http.c passes to the callbacks), gp_stream_release frees
 * it.  `detail` and `id` are owned by the stream and valid until the next
 * gp_stream_start.  The body and headers given to gp_stream_start are
 * borrowed until the transfer ends (http.h).
 */
#ifndef GP_STREAM_H
#define GP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/http.h"
#include "wire/sse.h"

enum gp_stream_class {
	GP_STREAM_OK = 0, GP_STREAM_CONNECT, GP_STREAM_HTTP_STATUS, GP_STREAM_NOT_STREAMED,
	GP_STREAM_TIMEOUT, GP_STREAM_HANG, GP_STREAM_TRUNCATED, GP_STREAM_RESET,
	GP_STREAM_INVALID_FRAMING, GP_STREAM_CANCELLED, GP_STREAM_EMPTY, GP_STREAM_STREAM_ERROR,
	GP_STREAM_OTHER, GP_STREAM_TLS, GP_STREAM_CLIENT_LIMIT, GP_STREAM_ABANDONED, GP_STREAM_NCLASS
};

/* After [DONE], how long the server has to end the response before the
 * request is ended here (a connection left open is not a hang). */
#define GP_STREAM_DONE_GRACE_NS 1000000000LL

/* The record's name of a class ("connect", …); NULL for GP_STREAM_OK. */
const char *gp_stream_class_name(int cls);

struct gp_stream {
	struct gp_http_xfer *x;
	const char *secret;		/* scrubbed from every detail (borrowed) */
	int keep_itl;			/* collect ITL gaps */
	/* timings, ns */
	int64_t sent_ns, first_ns, last_ns, done_ns, end_ns, last_byte_ns;
	long status;			/* HTTP status, 0 before one arrived */
	long connects;			/* new connections the transfer opened */
	long usage_out, usage_in;	/* from usage, -1 when not sent */
	long content_events;
	int saw_done, saw_finish, stream_error, sse;	/* sse: read as an event stream */
	int sniffed;			/* sse by its body, not its Content-Type */
	int sniff_over;			/* the body was judged not an event stream */
	const char *max_event_flag;	/* the option that sets max_event, for the
					 * detail ("--max-event-bytes"); NULL: fixed */
	char encoding[32];		/* Content-Encoding, "" when none */
	int cls;			/* the class, once over */
	char content_type[96];
	char id[256];			/* the first chunk's "id" */
	char detail[256];		/* the class's detail, "" when none */
	char body[1024];		/* head of a non-SSE body (errors) */
	size_t body_len;
	struct gp_sse sse_p;
	float *itl;			/* ms */
	size_t itl_n, itl_cap;
	int64_t now_ns;
	/* NULL, or the caller's buffer to which the text of every content
	 * event is appended (choices[0].delta.content, or .text for
	 * completions; reasoning is not the answer): a session's answer to
	 * resend.  Parsed with jansson, so only when asked for; the caller
	 * empties it before gp_stream_start.  Out of memory stops appending
	 * and sets text_lost. */
	struct gp_buf *text;
	int text_lost;
};

/* 0, or -1 (out of memory). */
int gp_stream_init(struct gp_stream *s, struct gp_http *h, void *user, size_t max_event);
void gp_stream_release(struct gp_stream *s);

/*
 * Add the header lines every request carries to the engine: Content-Type:
 * application/json, Accept: text/event-stream (when streaming) and, when
 * api_key is not NULL, Authorization: Bearer <key> (the copy that was built
 * is wiped); then the user's own lines ("Name: value", e.g. from -H), which
 * replace ours of the same name.  0 or -1.
 */
int gp_stream_headers_with(struct gp_http *h, int streaming, const char *api_key, const char *const *user,
			   int nuser);
/* The same without user lines. */
int gp_stream_headers(struct gp_http *h, int streaming, const char *api_key);

/*
 * The API key: read from `file` when given (its first line, without the line
 * ending), else GP_API_KEY, else OPENAI_API_KEY.  Returns 1 with the key in
 * out, 0 when there is none, -1 with a reason in err (that never holds the
 * key) when the file cannot be read, is empty, or the key holds a control
 * character.
 */
int gp_stream_api_key(const char *file, char *out, size_t cap, char *err, size_t errlen);

/* Reset the state and start the POST.  0, or -1 when libcurl refused it
 * (the class is then GP_STREAM_OTHER, with a detail). */
int gp_stream_start(struct gp_stream *s, const char *url, const char *body, size_t len,
		    const char *const *xhdr, int nxhdr);

/* Forward the gp_http callbacks here (the caller's own come first or after). */
void gp_stream_on_sent(struct gp_stream *s, int64_t t);
void gp_stream_on_header(struct gp_stream *s, const char *line, size_t len, int64_t t);
/* Returns what the http on_body callback must return. */
int gp_stream_on_body(struct gp_stream *s, long status, const char *buf, size_t len, int64_t t);
/* Classify the finished transfer; returns the class. */
int gp_stream_on_done(struct gp_stream *s, const struct gp_http_result *res, int64_t t);
/* Stop a running transfer ourselves (hang, cancelled) with that class. */
void gp_stream_abort(struct gp_stream *s, int cls, int64_t t);
/* 1 when [DONE] arrived GP_STREAM_DONE_GRACE_NS before t and the response
 * is still open. */
int gp_stream_done_due(const struct gp_stream *s, int64_t t);
/* End such a stream as though the server had closed it after [DONE]: the
 * transfer cancelled, the class that of a complete stream. */
void gp_stream_end_done(struct gp_stream *s);

/* 1 once the first content token arrived. */
static inline int gp_stream_started(const struct gp_stream *s)
{
	return s->first_ns != 0;
}

/* What a finished stream measured.  NaN where not defined. */
struct gp_stream_result {
	double ttft_ms, tpot_ms, e2e_ms;
	long out_tokens;		/* -1 when unknown (nothing received) */
	const char *tokens_from;	/* "usage", "chunks", "chunks_usage_contradicted" or NULL */
	const char *outcome;		/* "ok", "single_token", "failed" */
	int cls;
};

void gp_stream_result(const struct gp_stream *s, struct gp_stream_result *r);

/*
 * Response headers: when `line` (as http.c passes it: "Name: value", its line
 * ending included) is header `name` (any case), its value — without the
 * blanks around it and the line ending, control characters as spaces, cut to
 * cap − 1 bytes (cap > 0) — goes to out and the result is 1; else 0, out
 * untouched.  gp_stream_copy_value is the copy alone, of v[0..n).
 */
int gp_stream_header_value(const char *line, size_t len, const char *name, char *out, size_t cap);
void gp_stream_copy_value(char *out, size_t cap, const char *v, size_t n);

/*
 * ---- streamed chat requests: the loop of the fleet checks ----
 *
 * gp-health and gp-probe send streamed chat completions through here: one
 * blocking request, or a burst of n requests with c in flight and a tick
 * every interval (the probe samples the backends there).  Each request is
 * one stream above — the same timings and error classes as gp-replay's — on
 * one http.h engine of its own; bodies come from openai.h's request writer
 * (the caller's).  What this adds: the loop, and the capture of the response
 * headers that name the serving backend and carry the receipt.
 *
 * `error` is gp_stream_class_name() of the stream's class (NULL when ok:
 * 200, text/event-stream, [DONE]).  Nothing here detects a hang: timeout_ms
 * bounds every request.  Strings in a result are copies inside it; bodies
 * and headers passed in are borrowed for the call.  Nothing prints or exits.
 */
struct gp_stream_chat_res {
	long status;			/* HTTP status, 0 when none */
	const char *error;		/* class name, NULL when ok */
	char detail[256];		/* the class's detail, "" when none */
	char backend[128];		/* the backend header's value, "" when absent */
	char receipt[256];		/* the receipt header's value, "" when absent */
	int have_receipt;		/* the receipt header was on the response */
	long content_events;		/* content-bearing SSE events */
	int done;			/* [DONE] seen */
	double ttft_ms, e2e_ms;		/* NaN when not measured */
	double tpot_ms;			/* as gp-replay's request record: NaN unless ok with >= 2 tokens */
	long out_tokens;		/* usage, else content events; -1 when nothing was received */
	const char *outcome;		/* "ok", "single_token", "failed"; NULL when never started */
};

struct gp_stream_chat_cfg {
	const char *url;		/* base URL; the path is appended */
	const char *api_key;		/* NULL: no Authorization */
	const char *backend_header;	/* NULL: not captured */
	const char *receipt_header;	/* NULL: not captured */
	long timeout_ms;		/* per request, > 0 */
	const struct gp_http_tls *tls;	/* https: the certificate policy (http.h), NULL: default */
	/* NULL, or polled between waits: once non-zero, the requests in flight
	 * are cancelled (class cancelled) and no more start (sig.h's gp_sig_stop). */
	int (*stop)(void);
};

/*
 * One streamed chat completion of body[0..len) with up to 2 extra header
 * lines ("Name: value").  Blocks for at most cfg->timeout_ms (plus the
 * connection's teardown).  0 with *r filled (r->error says how it went), or
 * -1 when libcurl could not be set up (r->detail says why).
 */
int gp_stream_chat_once(const struct gp_stream_chat_cfg *cfg, const char *body, size_t len,
			const char *const *xhdr, int nxhdr, struct gp_stream_chat_res *r);

/* A burst: the caller's callbacks give request i's body and headers, take
 * its result, and are ticked between polls. */
struct gp_stream_chat_burst {
	const struct gp_stream_chat_cfg *cfg;
	long requests, concurrency;
	int64_t tick_ns;		/* period of tick(), > 0 */
	/* Body and (up to 2) headers of request i, valid until its on_done. */
	void (*make)(void *arg, long i, const char **body, size_t *len,
		     const char **xhdr, int *nxhdr);
	void (*on_done)(void *arg, long i, const struct gp_stream_chat_res *r);
	/* Called every tick_ns; return non-zero to stop starting requests. */
	int (*tick)(void *arg, int64_t now_ns);
	void *arg;
};

/* Run the burst to its end (every started request done).  0, or -1 when
 * libcurl could not be set up. */
int gp_stream_chat_burst_run(const struct gp_stream_chat_burst *b);

#endif
