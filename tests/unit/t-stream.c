/* SPDX-License-Identifier: MIT */
/*
 * t-stream — one streamed completion fed through the gp_http callbacks by
 * hand (no network): timings, token counts, TPOT and the error classes.
 * Expected TPOT values are DistServe/vLLM's (E2E − TTFT)/(out_tokens − 1),
 * worked out by hand from the stamps below.  Then the header capture, and
 * the chat request loop (gp-health's, gp-probe's) against a canned peer
 * (serve.h): one request, its classes, a burst.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "serve.h"
#include "wire/stream.h"
#include "tap.h"

static struct gp_http *H;

static void nop_sent(void *u, int64_t t) { (void)u; (void)t; }
static void nop_hdr(void *u, const char *l, size_t n, int64_t t) { (void)u; (void)l; (void)n; (void)t; }
static int nop_body(void *u, long s, const char *b, size_t n, int64_t t) { (void)u; (void)s; (void)b; (void)n; (void)t; return 0; }
static void nop_done(void *u, const struct gp_http_result *r, int64_t t) { (void)u; (void)r; (void)t; }

#define MS(x) ((int64_t)((x) * 1e6))

static void hdr(struct gp_stream *s, const char *l, int64_t t)
{
	gp_stream_on_header(s, l, strlen(l), t);
}

static int body(struct gp_stream *s, long status, const char *b, int64_t t)
{
	return gp_stream_on_body(s, status, b, strlen(b), t);
}

static int done(struct gp_stream *s, enum gp_http_err e, long status, int64_t t)
{
	struct gp_http_result r = { e, status, 0, "" };

	return gp_stream_on_done(s, &r, t);
}

static void begin(struct gp_stream *s, const char *ct)
{
	gp_stream_start(s, "http://127.0.0.1:9/v1/chat/completions", "{}", 2, NULL, 0);
	gp_http_cancel(s->x);	/* no transfer: the callbacks are driven by hand */
	gp_stream_on_sent(s, MS(1000));
	hdr(s, "HTTP/1.1 200 OK\r\n", MS(1001));
	if (ct)
		hdr(s, ct, MS(1001));
}

#define ROLE "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
#define TOK "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w \"}}]}\n\n"
#define FIN "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
#define USAGE(n) "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":" #n "}}\n\n"
#define DONE "data: [DONE]\n\n"

static void ok_stream(struct gp_stream *s)
{
	struct gp_stream_result r;

	begin(s, "Content-Type: text/event-stream; charset=utf-8\r\n");
	body(s, 200, ROLE, MS(1040));		/* the role chunk is not the first token */
	body(s, 200, TOK, MS(1050));		/* TTFT 50 ms */
	body(s, 200, TOK TOK, MS(1070));	/* two events in one write */
	body(s, 200, TOK FIN, MS(1090));
	body(s, 200, USAGE(4) DONE, MS(1100));	/* E2E 100 ms */
	is_int(done(s, GP_HTTP_OK, 200, MS(1105)), GP_STREAM_OK, "a complete stream is ok");
	gp_stream_result(s, &r);
	is_dbl(r.ttft_ms, 50, 1e-9, "TTFT from the first content event, not the role chunk");
	is_dbl(r.e2e_ms, 100, 1e-9, "E2E at [DONE], not at the transfer's end");
	is_int(r.out_tokens, 4, "out_tokens from usage");
	is_str(r.tokens_from, "usage", "tokens_from usage");
	is_dbl(r.tpot_ms, (100.0 - 50.0) / 3, 1e-9, "TPOT = (E2E - TTFT)/(out - 1)");
	is_str(r.outcome, "ok", "outcome ok");
	is_int(s->itl_n, 3, "three ITL gaps between four content events (s->keep_itl)");
	is_dbl(s->itl[0], 20, 1e-3, "first gap 20 ms");
	is_dbl(s->itl[1], 0, 1e-3, "events of one write: gap 0");
	is_int(s->usage_in, 5, "prompt_tokens read");
}

static void chunks_carry_several(struct gp_stream *s)
{
	struct gp_stream_result r;

	/* 7 tokens in 3 chunks (1, 3, 3), usage says 7: TPOT per token. */
	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK, MS(1010));
	body(s, 200, TOK, MS(1040));
	body(s, 200, TOK FIN USAGE(7) DONE, MS(1070));
	done(s, GP_HTTP_OK, 200, MS(1071));
	gp_stream_result(s, &r);
	is_dbl(r.tpot_ms, 60.0 / 6, 1e-9, "3 chunks of 7 tokens: TPOT (70 - 10)/6 = 10 ms");
	/* The same stream without usage: chunks counted, and the record says so. */
	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK, MS(1010));
	body(s, 200, TOK, MS(1040));
	body(s, 200, TOK FIN DONE, MS(1070));
	done(s, GP_HTTP_OK, 200, MS(1071));
	gp_stream_result(s, &r);
	is_int(r.out_tokens, 3, "no usage: out_tokens = content events");
	is_str(r.tokens_from, "chunks", "tokens_from chunks");
}

static void failures(struct gp_stream *s)
{
	struct gp_stream_result r;

	begin(s, "Content-Type: application/json\r\n");
	body(s, 404, "{\"error\":{\"message\":\"The model `x` does not exist. key sk-abcdefghijklmnopqrstu\"}}", MS(1002));
	is_int(done(s, GP_HTTP_OK, 404, MS(1003)), GP_STREAM_HTTP_STATUS, "404: http_status");
	is_str(s->detail, "The model `x` does not exist. key ***", "the server message, scrubbed");
	gp_stream_result(s, &r);
	is_str(r.outcome, "failed", "failed");
	ok(isnan(r.ttft_ms) && r.out_tokens == -1 && !r.tokens_from, "no TTFT, no tokens");

	begin(s, "Content-Type: application/json\r\n");
	body(s, 200, "{\"object\":\"chat.completion\",\"choices\":[]}", MS(1002));
	is_int(done(s, GP_HTTP_OK, 200, MS(1003)), GP_STREAM_NOT_STREAMED, "a whole JSON 200: not_streamed");
	is_str(s->detail, "Content-Type: application/json", "the content type in detail");

	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK TOK, MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1020)), GP_STREAM_TRUNCATED, "no finish, no [DONE]: truncated");
	is_str(s->detail, "the stream ended without finish_reason and [DONE]", "truncated says what");

	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, ROLE FIN DONE, MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1020)), GP_STREAM_EMPTY, "only a role chunk: empty");

	begin(s, "Content-Type: text/event-stream\r\n");
	ok(body(s, 200, "data: {\"id\":\n\n", MS(1010)) != 0, "a broken event stops the transfer");
	is_int(done(s, GP_HTTP_EABORT, 200, MS(1011)), GP_STREAM_INVALID_FRAMING, "invalid_framing");

	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK "data: {\"error\":{\"message\":\"engine died\"}}\n\n", MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1011)), GP_STREAM_STREAM_ERROR, "in-stream error event");
	is_str(s->detail, "engine died", "its message in detail");

	begin(s, "Content-Type: text/event-stream\r\n");
	is_int(done(s, GP_HTTP_ETIMEOUT, 200, MS(2000)), GP_STREAM_TIMEOUT, "deadline: timeout");
	is_str(s->detail, "no first token before the deadline", "timeout before the first token");
	ok(!gp_stream_started(s), "a stream that never started");

	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK, MS(1010));
	ok(gp_stream_started(s), "started at the first content token");
	gp_stream_abort(s, GP_STREAM_HANG, MS(1500));
	is_int(s->cls, GP_STREAM_HANG, "abort: hang");
	is_str(gp_stream_class_name(GP_STREAM_NOT_STREAMED), "not_streamed", "class names");
	ok(gp_stream_class_name(GP_STREAM_OK) == NULL, "ok has no class name");
}

static void api_keys(void)
{
	char key[128], err[256], path[256];
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s/t-stream.%d.key", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	f = fopen(path, "w");

	fputs("file-key-123\r\nsecond line\n", f);
	fclose(f);
	setenv("GP_API_KEY", "env-key", 1);
	is_int(gp_stream_api_key(path, key, sizeof(key), err, sizeof(err)), 1, "key from a file");
	is_str(key, "file-key-123", "first line, without its CRLF");
	is_int(gp_stream_api_key(NULL, key, sizeof(key), err, sizeof(err)), 1, "key from GP_API_KEY");
	is_str(key, "env-key", "GP_API_KEY");
	unsetenv("GP_API_KEY");
	setenv("OPENAI_API_KEY", "oa-key", 1);
	gp_stream_api_key(NULL, key, sizeof(key), err, sizeof(err));
	is_str(key, "oa-key", "then OPENAI_API_KEY");
	unsetenv("OPENAI_API_KEY");
	is_int(gp_stream_api_key(NULL, key, sizeof(key), err, sizeof(err)), 0, "no key");
	f = fopen(path, "w");
	fclose(f);
	is_int(gp_stream_api_key(path, key, sizeof(key), err, sizeof(err)), -1, "an empty key file");
	is_int(gp_stream_api_key("no-such-file.key", key, sizeof(key), err, sizeof(err)), -1, "a missing key file");
	remove(path);
}

static void header_values(void)
{
	char v[16] = "untouched";
	const char *l = "x-BACKEND: \t b-1 \r\n";

	ok(gp_stream_header_value(l, strlen(l), "X-Backend", v, sizeof(v)), "a header of that name, any case");
	is_str(v, "b-1", "its value without blanks and line ending");
	strcpy(v, "untouched");
	ok(!gp_stream_header_value(l, strlen(l), "X-Back", v, sizeof(v)), "a prefix of the name is another header");
	ok(!gp_stream_header_value("X-Backend\r\n", 11, "X-Backend", v, sizeof(v)), "no colon: not that header");
	ok(!gp_stream_header_value(l, strlen(l), NULL, v, sizeof(v)), "no name: nothing");
	is_str(v, "untouched", "out untouched when not that header");
	l = "X-Receipt: a\tb\x01" "c-0123456789abcdef\r\n";
	ok(gp_stream_header_value(l, strlen(l), "x-receipt", v, sizeof(v)), "receipt");
	is_str(v, "a b c-012345678", "control characters as spaces, cut to cap - 1");
	gp_stream_copy_value(v, sizeof(v), "  id-7 \n", 8);
	is_str(v, "id-7", "the copy alone");
}

#define SSE_HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
#define CHUNK(c, fin) "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0," \
		      "\"delta\":{\"content\":\"" c "\"},\"finish_reason\":" fin "}]}\n\n"

static const char ok_response[] = SSE_HEAD "X-Backend: b1\r\nX-Receipt: prefill=a:1;decode=b:2\r\n\r\n"
	CHUNK("Hi", "null") CHUNK(" there", "\"stop\"") "data: [DONE]\n\n";

/* One chat request to a canned peer (NULL: nothing listening). */
static int chat_once(const char *response, struct gp_stream_chat_res *r)
{
	char url[64] = "http://127.0.0.1:1";
	struct gp_stream_chat_cfg cfg = { url, "sk-unit", "X-Backend", "X-Receipt", 5000, NULL, NULL };
	const char *xh[1] = { "X-Request-Id: u1" };
	pid_t pid = 0;
	int rc;

	if (response)
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", serve_start(response, 1, &pid));
	rc = gp_stream_chat_once(&cfg, "{}", 2, xh, 1, r);
	if (pid > 0)
		serve_stop(pid);
	return rc;
}

static void chat_requests(void)
{
	struct gp_stream_chat_res r;

	is_int(chat_once(ok_response, &r), 0, "a chat request");
	ok(r.error == NULL, "ok: no class (%s)", r.error ? r.error : "-");
	is_int(r.status, 200, "status");
	is_int(r.content_events, 2, "two content events");
	is_int(r.done, 1, "[DONE] seen");
	ok(isfinite(r.ttft_ms) && isfinite(r.e2e_ms) && r.e2e_ms >= r.ttft_ms, "TTFT and E2E measured");
	is_str(r.backend, "b1", "the backend header captured");
	is_str(r.receipt, "prefill=a:1;decode=b:2", "the receipt header captured");
	is_int(r.have_receipt, 1, "have_receipt");
	is_int(chat_once(SSE_HEAD "\r\n" CHUNK("Hi", "null"), &r), 0, "a stream cut short");
	is_str(r.error, "truncated", "truncated");
	is_int(r.have_receipt, 0, "no receipt header: have_receipt 0");
	is_int(chat_once("HTTP/1.1 500 Oops\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
			 "{\"error\":{\"message\":\"boom\"}}", &r), 0, "a 500");
	is_str(r.error, "http_status", "http_status");
	is_int(r.status, 500, "with its status");
	ok(strstr(r.detail, "boom") != NULL, "and the server's message (%s)", r.detail);
	is_int(chat_once(NULL, &r), 0, "nothing listening");
	is_str(r.error, "connect", "connect");
	ok(isnan(r.ttft_ms), "no TTFT");
}

struct burst_seen {
	int done[4], ticks;
};

static void burst_make(void *arg, long i, const char **body, size_t *len, const char **xhdr, int *nxhdr)
{
	(void)arg; (void)i; (void)xhdr;
	*body = "{}";
	*len = 2;
	*nxhdr = 0;
}

static void burst_done(void *arg, long i, const struct gp_stream_chat_res *r)
{
	struct burst_seen *b = arg;

	if (i >= 0 && i < 4 && r->error == NULL)
		b->done[i]++;
}

/* The tick stops the burst at its first call. */
static int burst_stop(void *arg, int64_t now)
{
	(void)now;
	((struct burst_seen *)arg)->ticks++;
	return 1;
}

/* A burst of 3 requests, 2 in flight, to a peer that answers 3 connections;
 * with stop, its first tick (1 ns after the start) stops it. */
static struct burst_seen run_burst(int stop)
{
	char url[64];
	pid_t pid;
	int port = serve_start(ok_response, 3, &pid);
	struct gp_stream_chat_cfg cfg = { url, NULL, NULL, NULL, 5000, NULL, NULL };
	struct burst_seen seen = { { 0 }, 0 };
	struct gp_stream_chat_burst b = { &cfg, 3, 2, stop ? 1 : 1000000000, burst_make, burst_done,
					  stop ? burst_stop : NULL, &seen };

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	is_int(gp_stream_chat_burst_run(&b), 0, "a burst of 3, 2 in flight%s", stop ? ", stopped" : "");
	serve_stop(pid);
	return seen;
}

static void chat_burst(void)
{
	struct burst_seen seen = run_burst(0);

	ok(seen.done[0] == 1 && seen.done[1] == 1 && seen.done[2] == 1 && seen.done[3] == 0,
	   "each request done once, ok (%d %d %d)", seen.done[0], seen.done[1], seen.done[2]);
	seen = run_burst(1);
	ok(seen.ticks >= 1 && seen.done[0] == 1 && seen.done[1] == 1 && seen.done[2] == 0,
	   "a tick that says stop: the 2 in flight finish, the third never starts (%d %d %d)",
	   seen.done[0], seen.done[1], seen.done[2]);
}

/* cfg.stop: a request that waits on a silent peer is cancelled once stop
 * says so, long before its timeout. */
static void chat_stopped(void)
{
	char url[64];
	int fd, port = serve_silent(&fd);
	struct gp_stream_chat_cfg cfg = { url, NULL, NULL, NULL, 10000, NULL, serve_stop_later };
	struct gp_stream_chat_res r;
	int64_t t0 = gp_now_ns();

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	serve_stop_at = t0 + MS(200);
	is_int(gp_stream_chat_once(&cfg, "{}", 2, NULL, 0, &r), 0, "a request to a silent peer, stopped");
	is_str(r.error, "cancelled", "its class: cancelled");
	ok(gp_now_ns() - t0 < MS(3000), "it ends soon after the stop (%.3f s), not at the 10 s timeout",
	   gp_ns_to_s(gp_now_ns() - t0));
	serve_stop_at = 0;
	is_int(gp_stream_chat_once(&cfg, "{}", 2, NULL, 0, &r), 0, "stop already set");
	is_str(r.error, "cancelled", "cancelled at once");
	close(fd);
}

/* Hostile servers (issue #23): what the stream reads from them. */
static void hostile(struct gp_stream *s)
{
	struct gp_stream_result r;
	char big[70000];

	/* usage below the count of content events: the count, and tokens_from says so */
	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK TOK TOK, MS(1010));
	body(s, 200, TOK FIN USAGE(0) DONE, MS(1040));
	is_int(done(s, GP_HTTP_OK, 200, MS(1041)), GP_STREAM_OK, "usage 0 of 4 content events: still ok");
	gp_stream_result(s, &r);
	is_int(r.out_tokens, 4, "out_tokens falls back to the 4 content events");
	is_str(r.tokens_from, "chunks_usage_contradicted", "and tokens_from says why");
	is_dbl(r.tpot_ms, 30.0 / 3, 1e-9, "so TPOT is defined: (40 - 10)/3");
	/* an event stream by its body: text/plain, and none, split inside "data:" */
	begin(s, "Content-Type: text/plain\r\n");
	body(s, 200, "da", MS(1005));
	body(s, 200, "ta: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w\"}}]}\n\n" FIN DONE, MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1011)), GP_STREAM_OK, "text/plain whose body is SSE: ok");
	ok(s->sniffed && s->content_events == 1, "read as SSE by its body, flagged (sniffed)");
	begin(s, NULL);
	body(s, 200, "\xef\xbb\xbf: comment\n" TOK FIN DONE, MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1011)), GP_STREAM_OK, "no Content-Type, a BOM and a comment: SSE");
	begin(s, "Content-Type: text/plain\r\n");
	body(s, 200, "dat", MS(1005));
	body(s, 200, "um: not SSE", MS(1006));
	is_int(done(s, GP_HTTP_OK, 200, MS(1011)), GP_STREAM_NOT_STREAMED, "\"datum:\" is not: not_streamed");
	is_str(s->detail, "Content-Type: text/plain", "naming the type");
	/* a flat error object mid-stream */
	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK "data: {\"object\":\"error\",\"message\":\"engine dead\",\"code\":500}\n\n" DONE, MS(1010));
	is_int(done(s, GP_HTTP_OK, 200, MS(1011)), GP_STREAM_STREAM_ERROR, "flat {object: error}: stream_error");
	is_str(s->detail, "engine dead", "with its message");
	/* gzip on a stream nobody asked to compress */
	begin(s, "Content-Type: text/event-stream\r\n");
	hdr(s, "Content-Encoding: gzip\r\n", MS(1001));
	ok(body(s, 200, "\x1f\x8b\x08", MS(1002)) != 0, "gzip body: the transfer is stopped");
	is_int(done(s, GP_HTTP_EABORT, 200, MS(1003)), GP_STREAM_INVALID_FRAMING, "invalid_framing");
	is_str(s->detail, "Content-Encoding: gzip on the event stream (gp sends no Accept-Encoding)", "named");
	begin(s, "Content-Type: application/json\r\n");
	hdr(s, "Content-Encoding: gzip\r\n", MS(1001));
	body(s, 200, "\x1f\x8b\x08", MS(1002));
	is_int(done(s, GP_HTTP_OK, 200, MS(1003)), GP_STREAM_NOT_STREAMED, "gzip on a JSON body: not_streamed");
	/* an event over the bound names it and the flag */
	s->max_event_flag = "--max-event-bytes";
	begin(s, "Content-Type: text/event-stream\r\n");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "data: ", 6);
	ok(body(s, 200, big, MS(1002)) != 0, "an event over 64 KiB: stopped");
	is_int(done(s, GP_HTTP_EABORT, 200, MS(1003)), GP_STREAM_INVALID_FRAMING, "invalid_framing");
	is_str(s->detail, "an SSE event over 65536 bytes (--max-event-bytes)", "the bound and its flag named");
	s->max_event_flag = NULL;
	/* [DONE], then the response left open: due after the grace, ended ok */
	begin(s, "Content-Type: text/event-stream\r\n");
	body(s, 200, TOK TOK FIN DONE, MS(1020));
	ok(!gp_stream_done_due(s, MS(1020) + GP_STREAM_DONE_GRACE_NS - 1), "not due within the grace");
	ok(gp_stream_done_due(s, MS(1020) + GP_STREAM_DONE_GRACE_NS), "due after it");
	gp_stream_end_done(s);
	gp_stream_result(s, &r);
	ok(r.cls == GP_STREAM_OK && r.e2e_ms == 20, "ended as complete, E2E at [DONE] (%.3f ms)", r.e2e_ms);
	/* an ISO-8859-1 error page: the detail is UTF-8 */
	begin(s, "Content-Type: text/html; charset=iso-8859-1\r\n");
	body(s, 500, "Erreur: d\xe9" "faillance", MS(1002));
	done(s, GP_HTTP_OK, 500, MS(1003));
	is_str(s->detail, "Erreur: d\xef\xbf\xbd" "faillance", "a Latin-1 byte becomes U+FFFD");
	is_str(gp_stream_class_name(GP_STREAM_CLIENT_LIMIT), "client_limit", "the client_limit class");
	ok(gp_http_client_limit(CURLE_COULDNT_CONNECT, EADDRNOTAVAIL) &&
	   gp_http_client_limit(CURLE_COULDNT_CONNECT, EMFILE) && gp_http_client_limit(CURLE_OUT_OF_MEMORY, 0),
	   "ephemeral ports, descriptors, memory: the client's");
	ok(!gp_http_client_limit(CURLE_COULDNT_CONNECT, ECONNREFUSED), "a refused connect is the server's side");
}

int main(void)
{
	struct gp_http_opts o = { 0 };
	struct gp_http_ops ops = { nop_sent, nop_hdr, nop_body, nop_done };
	struct gp_stream s;

	gp_http_global_init();
	H = gp_http_new(&o, &ops);
	if (!ok(H && gp_stream_init(&s, H, NULL, 1 << 16) == 0, "engine and stream"))
		return done_testing();
	s.keep_itl = 1;
	ok_stream(&s);
	chunks_carry_several(&s);
	failures(&s);
	hostile(&s);
	api_keys();
	gp_stream_release(&s);
	gp_http_free(H);
	header_values();
	chat_requests();
	chat_burst();
	chat_stopped();
	return done_testing();
}
