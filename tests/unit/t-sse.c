/* SPDX-License-Identifier: MIT */
/* t-sse — the SSE parser at every split point, line-ending mixes, bounds, and
 * the OpenAI chunk reader.  The expected events are written out by hand from
 * the WHATWG rules (HTML Living Standard §9.2.6), not produced by the parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tap.h"
#include "wire/sse.h"
#include "sse-ref.h"

/* Every dispatched event is appended as "type|data" + "\x1e". */
struct sink {
	char buf[4096];
	size_t len;
	int stop_after;		/* stop the parser after this many events (0: never) */
	int n;
};

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct sink *k = arg;
	int w;

	if (data[len] != '\0')
		return 99;	/* the contract: NUL-terminated */
	w = snprintf(k->buf + k->len, sizeof(k->buf) - k->len, "%s|%.*s\x1e", type, (int)len, data);
	if (w > 0)
		k->len += (size_t)w;
	k->n++;
	return k->stop_after && k->n >= k->stop_after;
}

/* Feed `s` cut at the offsets in cuts[0..ncut) (increasing); return the
 * feed status and leave the events in k. */
static int run(const char *s, size_t len, const size_t *cuts, int ncut, size_t max,
	       struct sink *k, int *finish)
{
	struct gp_sse p;
	size_t at = 0;
	int r = 0, i;

	memset(k, 0, sizeof(*k));
	gp_sse_init(&p, max, on_event, k);
	for (i = 0; i <= ncut && r == 0; i++) {
		size_t to = i < ncut ? cuts[i] : len;

		r = gp_sse_feed(&p, s + at, to - at);
		at = to;
	}
	*finish = gp_sse_finish(&p);
	gp_sse_release(&p);
	return r;
}

/* The reference stream: BOM, comment, CR/LF/CRLF mixes, multi-line data,
 * event types, id/retry/unknown fields, a field without a colon, empty
 * events that must not dispatch, and an unterminated tail. */
static const char stream[] =
	"\xEF\xBB\xBF"
	": a comment line\n"
	"data: one\n\n"
	"event: add\r\ndata:two\r\ndata:  three\r\n\r\n"
	"id: 5\rretry: 10\rfoo: bar\rdata\r\r"
	"data: {\"x\":1}\n\r\n"
	"\n\n"
	"event: ignored\n\n"
	"data: four\n\n"
	"data:a:b\r\n\n"
	":\n"
	"data: trailing";

static const char want[] =
	"message|one\x1e"
	"add|two\n three\x1e"
	"message|\x1e"
	"message|{\"x\":1}\x1e"
	"message|four\x1e"
	"message|a:b\x1e";

static void test_splits(void)
{
	size_t len = sizeof(stream) - 1;
	struct sink k;
	size_t cuts[2];
	int fin, r, bad = 0;
	size_t i, j;

	r = run(stream, len, NULL, 0, 1024, &k, &fin);
	is_int(r, 0, "whole stream: feed ok");
	is_str(k.buf, want, "whole stream: events");
	is_int(fin, 1, "whole stream: unterminated tail reported at finish");

	/* Two pieces, cut at every byte offset (0 and len included). */
	for (i = 0; i <= len; i++) {
		cuts[0] = i;
		r = run(stream, len, cuts, 1, 1024, &k, &fin);
		if (r || strcmp(k.buf, want) || fin != 1) {
			if (!bad++)
				diag("split at %zu: r=%d fin=%d events=%s", i, r, fin, k.buf);
		}
	}
	is_int(bad, 0, "every single split point (%zu offsets) gives the same events", len + 1);

	/* Three pieces: every pair of offsets. */
	bad = 0;
	for (i = 0; i <= len; i++)
		for (j = i; j <= len; j++) {
			cuts[0] = i;
			cuts[1] = j;
			r = run(stream, len, cuts, 2, 1024, &k, &fin);
			if (r || strcmp(k.buf, want) || fin != 1)
				if (!bad++)
					diag("splits at %zu,%zu: events=%s", i, j, k.buf);
		}
	is_int(bad, 0, "every pair of split points gives the same events");

	/* Byte at a time. */
	{
		size_t *all = malloc(len * sizeof(*all));

		for (i = 0; i < len; i++)
			all[i] = i + 1;
		r = run(stream, len, all, (int)len - 1, 1024, &k, &fin);
		is_int(r, 0, "byte at a time: ok");
		is_str(k.buf, want, "byte at a time: same events");
		free(all);
	}
}

static void test_line_endings(void)
{
	struct sink k;
	size_t cut;
	int fin;

	/* CR at the end of one chunk + LF at the start of the next = ONE ending,
	 * so the event continues and the following blank line dispatches it. */
	{
		const char s[] = "data: a\r\ndata: b\r\n\r\n";
		cut = 8;	/* right after the first CR */
		run(s, sizeof(s) - 1, &cut, 1, 64, &k, &fin);
		is_str(k.buf, "message|a\nb\x1e", "CR|LF across chunks is one line ending");
	}
	/* CR CR is two endings: the second is a blank line that dispatches. */
	{
		const char s[] = "data: a\r\rdata: b\n\n";
		cut = 8;
		run(s, sizeof(s) - 1, &cut, 1, 64, &k, &fin);
		is_str(k.buf, "message|a\x1emessage|b\x1e", "CR CR dispatches");
	}
	/* LF CR: LF ends the data line, the CR is a blank line. */
	{
		const char s[] = "data: x\n\rdata: y\r\n\r\n";
		run(s, sizeof(s) - 1, NULL, 0, 64, &k, &fin);
		is_str(k.buf, "message|x\x1emessage|y\x1e", "LF then CR is two endings");
		is_int(fin, 0, "stream ending on a boundary: finish 0");
	}
	/* A CR at the very end of the stream then finish: the line ended. */
	{
		const char s[] = "data: z\r\r";
		run(s, sizeof(s) - 1, NULL, 0, 64, &k, &fin);
		is_str(k.buf, "message|z\x1e", "trailing CR CR dispatches");
		is_int(fin, 0, "nothing pending after a final CR");
	}
	/* A stream with data lines but no blank line: nothing dispatched. */
	{
		const char s[] = "data: lost\n";
		run(s, sizeof(s) - 1, NULL, 0, 64, &k, &fin);
		is_int(k.n, 0, "undispatched event is not delivered");
		is_int(fin, 1, "finish reports the discarded event");
	}
	/* Not a BOM: bytes EF BB then 'x' are kept as text of a field name. */
	{
		const char s[] = "\xEF\xBB" "data: q\n\ndata: r\n\n";
		size_t c2 = 1;
		run(s, sizeof(s) - 1, &c2, 1, 64, &k, &fin);
		is_str(k.buf, "message|r\x1e", "a broken BOM prefix is text (unknown field ignored)");
	}
	/* Only the first BOM is stripped. */
	{
		const char s[] = "\xEF\xBB\xBF\xEF\xBB\xBF" "data: s\n\n";
		run(s, sizeof(s) - 1, NULL, 0, 64, &k, &fin);
		is_int(k.n, 0, "a second BOM is part of the field name (ignored)");
	}
}

static void test_bounds(void)
{
	char big[512];
	struct sink k;
	size_t i, len;
	int fin, r, bad = 0;
	struct gp_sse p;

	/* An event whose data exceeds max_event (64) — at any split point. */
	len = (size_t)snprintf(big, sizeof(big), "data: %0100d\n\n", 7);
	for (i = 0; i <= len; i++) {
		r = run(big, len, &i, 1, 64, &k, &fin);
		if (r != GP_SSE_ETOOBIG || k.n)
			if (!bad++)
				diag("split %zu: r=%d n=%d", i, r, k.n);
	}
	is_int(bad, 0, "oversize line rejected at every split point");

	/* Many data lines, each small, whose sum is over the cap. */
	len = 0;
	for (i = 0; i < 20; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len, "data: 0123456789\n");
	r = run(big, len, NULL, 0, 64, &k, &fin);
	is_int(r, GP_SSE_ETOOBIG, "multi-line event over the cap rejected");

	/* Exactly at the cap is fine: data "x"*62 + "\n" = 63 <= 64. */
	len = (size_t)snprintf(big, sizeof(big), "data: %056d\n\n", 0);
	r = run(big, len, NULL, 0, 64, &k, &fin);
	is_int(r, 0, "event at the cap accepted");
	is_int(k.n, 1, "and dispatched");

	/* The error is sticky. */
	memset(&k, 0, sizeof(k));
	gp_sse_init(&p, 16, on_event, &k);
	r = gp_sse_feed(&p, "data: 0123456789abcdef\n\n", 24);
	is_int(r, GP_SSE_ETOOBIG, "cap 16 rejects");
	r = gp_sse_feed(&p, "data: a\n\n", 9);
	is_int(r, GP_SSE_ETOOBIG, "error is sticky");
	is_int(gp_sse_finish(&p), GP_SSE_ETOOBIG, "finish reports the error");
	gp_sse_reset(&p);
	r = gp_sse_feed(&p, "data: a\n\n", 9);
	is_int(r == 0 && k.n == 1, 1, "reset clears it");
	ok(gp_sse_footprint(&p) <= 2 * 17, "buffers bounded by the cap (%zu bytes)", gp_sse_footprint(&p));
	gp_sse_release(&p);

	/* Stop from the callback. */
	{
		const char s[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
		memset(&k, 0, sizeof(k));
		k.stop_after = 2;
		gp_sse_init(&p, 64, on_event, &k);
		r = gp_sse_feed(&p, s, sizeof(s) - 1);
		is_int(r, GP_SSE_ESTOP, "callback stop returns ESTOP");
		is_int(k.n, 2, "no event after the stop");
		gp_sse_release(&p);
	}
}

static void test_reuse(void)
{
	struct gp_sse p;
	struct sink k;
	char ev[64];
	size_t cap_after_first;
	int i, n;

	/* Buffers are allocated by the first events and then reused. */
	memset(&k, 0, sizeof(k));
	gp_sse_init(&p, 4096, on_event, &k);
	n = snprintf(ev, sizeof(ev), "data: {\"choices\":[{\"delta\":{\"content\":\"w\"}}]}\n\n");
	gp_sse_feed(&p, ev, (size_t)n / 2);
	gp_sse_feed(&p, ev + n / 2, (size_t)n - (size_t)n / 2);
	cap_after_first = gp_sse_footprint(&p);
	for (i = 0; i < 1000; i++) {
		k.len = 0;
		gp_sse_feed(&p, ev, (size_t)n / 2);
		gp_sse_feed(&p, ev + n / 2, (size_t)n - (size_t)n / 2);
	}
	is_int(gp_sse_footprint(&p), cap_after_first, "no growth over 1000 split events");
	is_int(k.n, 1001, "1001 events");
	gp_sse_release(&p);
}

static void test_chunk(void)
{
	struct gp_sse_chunk c;
	const char *s;

	s = "{\"id\":\"chatcmpl-r1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}";
	is_int(gp_sse_chunk_read(s, strlen(s), &c), 0, "chat chunk parses");
	is_int(c.content, 1, "chat content");
	is_int(c.finish, 0, "finish_reason null is not a finish");
	is_str(c.id, "chatcmpl-r1", "id");

	s = "{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.content, 0, "empty content is not content (role chunk)");

	s = "{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.content, 1, "reasoning_content counts");
	s = "{\"choices\":[{\"delta\":{\"reasoning\":\"think\"}}]}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.content, 1, "reasoning counts");

	s = "{\"id\":\"cmpl-9\",\"choices\":[{\"text\":\" word\",\"finish_reason\":\"length\"}]}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.content && c.finish, 1, "completions text + finish");

	s = "{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.completion_tokens, 34, "usage completion_tokens");
	is_int(c.prompt_tokens, 12, "usage prompt_tokens");
	is_int(c.content, 0, "usage chunk has no content");

	/* Found by fuzz-sse against jansson: -0 is the integer 0 (jansson reads
	 * it so), not a negative count; -1 and 1.0 stay unknown. */
	s = "{\"choices\":[],\"usage\":{\"prompt_tokens\":-0,\"completion_tokens\":-1}}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.prompt_tokens, 0, "usage prompt_tokens -0 is 0");
	is_int(c.completion_tokens, -1, "usage completion_tokens -1 is unknown");

	s = "{\"error\":{\"message\":\"boom\"}}";
	gp_sse_chunk_read(s, strlen(s), &c);
	is_int(c.has_error, 1, "in-stream error object");

	s = "{\"choices\":[{\"delta\":{\"content\":\"x\"}}";
	is_int(gp_sse_chunk_read(s, strlen(s), &c), -1, "truncated JSON rejected");
	s = "not json";
	is_int(gp_sse_chunk_read(s, strlen(s), &c), -1, "text rejected");
	s = "[1,2]";
	is_int(gp_sse_chunk_read(s, strlen(s), &c), -1, "array rejected (not an object)");
	s = "{\"a\":1} x";
	is_int(gp_sse_chunk_read(s, strlen(s), &c), -1, "trailing garbage rejected");
}

/*
 * The reference (sse_ref_read, tests/unit/sse-ref.h): the same fields read with jansson,
 * flags 0, top level an object.  gp_sse_chunk_read must agree with it on
 * accept/reject and on every field, for valid chunks and for every single-byte
 * mutation of them.
 */

static int same(const char *s, size_t n, char *why, size_t wlen)
{
	struct gp_sse_chunk a, b;
	int ra = gp_sse_chunk_read(s, n, &a), rb = sse_ref_read(s, n, &b);

	if (ra != rb) {
		snprintf(why, wlen, "accept %d vs jansson %d", ra, rb);
		return 0;
	}
	if (ra)
		return 1;
	if (a.content != b.content || a.finish != b.finish || a.completion_tokens != b.completion_tokens ||
	    a.prompt_tokens != b.prompt_tokens || a.has_error != b.has_error || strcmp(a.id, b.id)) {
		snprintf(why, wlen, "fields differ: content %d/%d finish %d/%d ct %ld/%ld pt %ld/%ld err %d/%d id '%.40s'/'%.40s'",
			 a.content, b.content, a.finish, b.finish, a.completion_tokens, b.completion_tokens,
			 a.prompt_tokens, b.prompt_tokens, a.has_error, b.has_error, a.id, b.id);
		return 0;
	}
	return 1;
}

static void test_chunk_vs_jansson(void)
{
	static const char *const seeds[] = {
		"{\"id\":\"chatcmpl-r1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","
		"\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w \"},\"logprobs\":null,\"finish_reason\":null}]}",
		"{\"id\":\"cmpl-\\u00e9\\ud83d\\ude00\\n\",\"choices\":[{\"text\":\"\\\"q\\\"\",\"finish_reason\":\"length\"},{\"text\":\"x\"}]}",
		"{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":4.6e1}}",
		"{\"choices\":[],\"usage\":{\"prompt_tokens\":-0,\"completion_tokens\":3}}",
		" {\"error\":{\"message\":\"b\\u00fcse\",\"code\":-5e-3},\"x\":[true,false,null,{}, []]} ",
		"{\"id\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"choices\":[{\"delta\":{\"reasoning_content\":\"t\",\"content\":\"\"}}]}",
	};
	static const char ins[] = "\"\\{}[],:0e-. u\x01\xc3\xff\x80n1/";
	char buf[512], why[600];
	size_t si, i, k, n;
	int bad = 0, tried = 0;

	for (si = 0; si < sizeof(seeds) / sizeof(seeds[0]); si++) {
		n = strlen(seeds[si]);
		if (!same(seeds[si], n, why, sizeof(why)))
			diag("seed %zu: %s", si, why), bad++;
		for (i = 0; i <= n; i++) {
			/* delete byte i */
			if (i < n) {
				memcpy(buf, seeds[si], i);
				memcpy(buf + i, seeds[si] + i + 1, n - i - 1);
				tried++;
				if (!same(buf, n - 1, why, sizeof(why)) && bad++ < 5)
					diag("seed %zu del %zu: %s: %.*s", si, i, why, (int)(n - 1), buf);
			}
			for (k = 0; k < sizeof(ins) - 1; k++) {
				/* insert, and replace */
				memcpy(buf, seeds[si], i);
				buf[i] = ins[k];
				memcpy(buf + i + 1, seeds[si] + i, n - i);
				tried++;
				if (!same(buf, n + 1, why, sizeof(why)) && bad++ < 5)
					diag("seed %zu ins %zu '%c': %s: %.*s", si, i, ins[k], why, (int)(n + 1), buf);
				if (i < n) {
					memcpy(buf, seeds[si], n);
					buf[i] = ins[k];
					tried++;
					if (!same(buf, n, why, sizeof(why)) && bad++ < 5)
						diag("seed %zu rep %zu '%c': %s: %.*s", si, i, ins[k], why, (int)n, buf);
				}
			}
		}
	}
	is_int(bad, 0, "chunk reader agrees with jansson on %d mutated chunks", tried);

	{
		static const char *const odd[] = {
			"{\"id\":\"a\\u0000b\"}",		/* NUL escape: refused like jansson */
			"{\"id\":\"\\ud800\"}",			/* lone high surrogate */
			"{\"id\":\"\\udc00\"}",			/* lone low surrogate */
			"{\"id\":\"\\ud800\\u0041\"}",		/* high + non-low */
			"{\"id\":\"\xc0\xaf\"}",		/* overlong */
			"{\"id\":\"\xe0\x9f\xbf\"}",		/* overlong, 3 bytes */
			"{\"id\":\"\xf0\x8f\xbf\xbf\"}",	/* overlong, 4 bytes */
			"{\"id\":\"\xe2\x82\"}",		/* cut short */
			"{\"id\":\"\xed\xa0\x80\"}",		/* UTF-8 surrogate */
			"{\"id\":\"\xf4\x90\x80\x80\"}",	/* above U+10FFFF */
			"{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":+1}",
			"{\"a\":tru}", "{\"a\":nul}", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{} {}", "{}x",
			"{\"a\":\"\t\"}", "{\"a\":[1,]}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12g4\"}",
			"{\"usage\":{\"completion_tokens\":-3}}", "{\"usage\":{\"completion_tokens\":3.0}}",
			"{\"usage\":{\"completion_tokens\":2147483646}}",
			"{\"usage\":{\"completion_tokens\":9223372036854775807}}",
			"{\"usage\":{\"completion_tokens\":9223372036854775808}}",
			"{\"a\":-9223372036854775809}", "{\"a\":1e308}", "{\"a\":1e309}", "{\"a\":-1e400}",
			"{\"a\":1e-400}", "{\"id\":\"x\",\"id\":7}", "{\"id\":7,\"id\":\"y\"}",
			"{\"error\":{},\"error\":null}", "{\"usage\":{\"prompt_tokens\":5},\"usage\":{}}",
			"{\"choices\":[{\"delta\":{\"content\":\"x\",\"content\":\"\"}}]}",
			"{\"choices\":[{\"delta\":{\"content\":\"x\"},\"delta\":{}}]}",
			"{\"choices\":[{\"finish_reason\":\"stop\",\"finish_reason\":null}]}",
			"{\"choices\":[{\"d\\u0065lta\":{\"c\\u006fntent\":\"x\"}}]}",
			"{\"choices\":[{\"delta\":{\"content\":null}}]}", "{\"choices\":{\"0\":{\"text\":\"x\"}}}",
			"{\"choices\":[[{\"text\":\"x\"}]]}", "{\"ch\\u006fices\":[{\"text\":\"x\"}]}",
			"{\"choices\":[{\"text\":\"x\"}],\"choices\":[]}", "{}", "\"str\"", "17", "",
		};
		char d[300];

		bad = 0;
		for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
			if (!same(odd[i], strlen(odd[i]), why, sizeof(why)) && bad++ < 5)
				diag("case '%s': %s", odd[i], why);
		/* 100 levels deep: both refuse past their limits?  Ours stops at
		 * 64; jansson at 2048 — check ours alone. */
		for (i = 0; i < 100; i++)
			d[i] = '[';
		d[0] = '{';
		is_int(gp_sse_chunk_read("{\"a\":[[[[[[[[[[]]]]]]]]]]}", 26, &(struct gp_sse_chunk){ 0 }), 0,
		       "10 levels accepted");
		memcpy(d, "{\"a\":", 5);
		for (i = 5; i < 75; i++)
			d[i] = '[';
		for (; i < 145; i++)
			d[i] = ']';
		d[i++] = '}';
		is_int(gp_sse_chunk_read(d, i, &(struct gp_sse_chunk){ 0 }), -1, "71 levels refused (limit 64)");
		is_int(bad, 0, "edge cases agree with jansson (%zu cases)", sizeof(odd) / sizeof(odd[0]));
	}
	{
		/* Found by tests/fuzz/fuzz-sse: a number of 128 bytes or more
		 * skipped the range check, so a 139-digit integer or a long
		 * real that overflows was accepted where jansson refuses it. */
		static const struct { const char *head; char digit; int n; const char *tail; int want; } big[] = {
			{ "{\"a\":7", '7', 138, "}", -1 },
			{ "{\"usage\":{\"completion_tokens\":1", '0', 150, "}}", -1 },
			{ "{\"a\":-1", '0', 140, "}", -1 },
			{ "{\"a\":1", '0', 130, "e200}", -1 },		/* 1e330 */
			{ "{\"a\":1", '0', 130, ".5}", 0 },		/* 1e130: in range */
			{ "{\"a\":0.", '0', 150, "1e300}", 0 },		/* 1e149 */
			{ "{\"a\":1", '0', 130, ".0e100}", 0 },		/* 1e230 */
			{ "{\"a\":1", '0', 200, "", -1 },		/* number at the very end */
		};
		char d[400];

		bad = 0;
		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			int r;

			n = strlen(big[i].head);
			memcpy(d, big[i].head, n);
			memset(d + n, big[i].digit, (size_t)big[i].n);
			n += (size_t)big[i].n;
			memcpy(d + n, big[i].tail, strlen(big[i].tail));
			n += strlen(big[i].tail);
			r = gp_sse_chunk_read(d, n, &(struct gp_sse_chunk){ 0 });
			if ((r != big[i].want || !same(d, n, why, sizeof(why))) && bad++ < 5)
				diag("long number case %zu: got %d, %s", i, r, why);
		}
		is_int(bad, 0, "numbers of 128+ bytes: range checked like jansson (%zu cases)",
		       sizeof(big) / sizeof(big[0]));
		/* Also from the fuzzer: jansson 2.14 loads {"a":1<NUL>} (a raw
		 * NUL after a number); RFC 8259 does not, nor do we. */
		is_int(gp_sse_chunk_read("{\"a\":1\0}", 8, &(struct gp_sse_chunk){ 0 }), -1,
		       "raw NUL after a number refused");
	}
}

int main(void)
{
	test_splits();
	test_line_endings();
	test_bounds();
	test_reuse();
	test_chunk();
	test_chunk_vs_jansson();
	return done_testing();
}
