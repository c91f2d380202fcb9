/* SPDX-License-Identifier: MIT */
/* fuzz-sse — libFuzzer harness: the SSE parser under fuzzed chunking, and the chunk reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "wire/sse.h"
#include "sse-ref.h"

/*
 * Input layout: byte 0 picks max_event, bytes 1..4 seed the chunk lengths,
 * the rest is the stream.  The stream is parsed twice, in one chunk and in
 * fuzzed chunks; the events, the feed result and the finish result must be
 * the same both ways (the parser's contract: any chunking).  Every event's
 * data also goes through gp_sse_chunk_read, checked against jansson.
 */

struct log {
	char *buf;
	size_t len, cap;
};

static void add(struct log *l, const char *s, size_t n)
{
	if (l->len + n + 1 > l->cap) {
		size_t c = l->cap ? l->cap : 256;

		while (c < l->len + n + 1)
			c *= 2;
		l->buf = realloc(l->buf, c);
		if (!l->buf)
			abort();
		l->cap = c;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}


/* Nesting depth of brackets outside strings (to skip the one documented
 * difference: ours refuses deeper than 64, jansson 2048). */
static int too_deep(const char *s, size_t n)
{
	int depth = 0, in_str = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > 60)
				return 1;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return 0;
}

static void check_chunk(const char *data, size_t len)
{
	struct gp_sse_chunk a, b;
	int ra, rb;

	if (len == 6 && !memcmp(data, "[DONE]", 6))
		return;
	ra = gp_sse_chunk_read(data, len, &a);
	/* A raw NUL byte is never valid JSON.  jansson 2.14 lets one through
	 * right after a number ({"a":1<NUL>} loads), so it is no reference
	 * here: ours must simply refuse. */
	if (memchr(data, '\0', len)) {
		if (ra != -1)
			abort();
		return;
	}
	if (too_deep(data, len))
		return;
	rb = sse_ref_read(data, len, &b);
	if (ra != rb)
		abort();		/* accept/reject differs from jansson */
	if (ra)
		return;
	if (a.content != b.content || a.finish != b.finish ||
	    a.completion_tokens != b.completion_tokens || a.prompt_tokens != b.prompt_tokens ||
	    a.has_error != b.has_error)
		abort();
	/* Truncation of a long id may differ (ours stops at a character). */
	if (strlen(b.id) < sizeof(b.id) - 8 && strcmp(a.id, b.id))
		abort();
}

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct log *l = arg;

	if (data[len] != '\0')
		abort();
	add(l, type, strlen(type) + 1);
	add(l, data, len);
	add(l, "\x01", 1);
	return 0;
}

static int on_event_check(const char *type, const char *data, size_t len, void *arg)
{
	check_chunk(data, len);
	return on_event(type, data, len, arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const size_t maxes[4] = { 16, 100, 4096, 1 << 20 };
	struct log one = { 0 }, many = { 0 };
	struct gp_sse p;
	const char *s;
	size_t len, pos, k = 0;
	int r1, r2, f1, f2;
	uint32_t seed;

	if (n < 5)
		return 0;
	seed = (uint32_t)d[1] | (uint32_t)d[2] << 8 | (uint32_t)d[3] << 16 | (uint32_t)d[4] << 24;
	s = (const char *)d + 5;
	len = n - 5;

	gp_sse_init(&p, maxes[d[0] & 3], on_event_check, &one);
	r1 = gp_sse_feed(&p, s, len);
	f1 = gp_sse_finish(&p);
	if (gp_sse_footprint(&p) > 2 * (maxes[d[0] & 3] + 1))
		abort();

	/* Same parser reused after a reset (buffers kept), fed in chunks. */
	gp_sse_reset(&p);
	p.arg = &many;
	p.cb = on_event;
	r2 = 0;
	for (pos = 0; pos < len && !r2; k++) {
		size_t c;

		seed = seed * 1103515245u + 12345u;
		c = (d[0] & 4) ? 1 + (seed >> 16) % 4 : (seed >> 16) % 64;	/* 0-length chunks too */
		if (c > len - pos)
			c = len - pos;
		r2 = gp_sse_feed(&p, s + pos, c);
		pos += c;
	}
	if (!r2)
		r2 = gp_sse_feed(&p, s + len, 0);
	f2 = gp_sse_finish(&p);
	gp_sse_release(&p);

	if (r1 != r2 || f1 != f2 || one.len != many.len || (one.len && memcmp(one.buf, many.buf, one.len)))
		abort();
	free(one.buf);
	free(many.buf);
	return 0;
}
