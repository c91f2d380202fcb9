/* SPDX-License-Identifier: MIT */
/*
 * t-stream — one streamed completion fed through the gp_http callbacks by
 * hand (no network): timings, token counts, TPOT and the error classes.
 * Expected TPOT values are DistServe/vLLM's (E2E − TTFT)/(out_tokens − 1),
 * worked out by hand from the stamps below.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "stream.h"
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
	api_keys();
	gp_stream_release(&s);
	gp_http_free(H);
	return done_testing();
}
