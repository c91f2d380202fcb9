/* SPDX-License-Identifier: MIT */
/*
 * sse-parse — the client's SSE hot path in process, no network: a buffer of
 * OpenAI chat chunks fed to gp_sse_feed in 16 KiB pieces, every event read
 * by gp_sse_chunk_read (what stream.c does per event).  Prints content events
 * per CPU-second.  Built against one sse.c at a time by bench/bench-sse.sh.
 *
 *   sse-parse REPS MODE     MODE 0: a mix of plain text, escapes and UTF-8;
 *                           MODE 1: plain text only (sse-firehose's "word ")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/sse.h"

static long n_content;

static int on_event(const char *type, const char *data, size_t len, void *arg)
{
	struct gp_sse_chunk c;

	(void)type;
	(void)arg;
	if (gp_sse_chunk_read(data, len, &c))
		abort();
	n_content += c.content;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const text[] = {
		"word ", "Hello", " world", "line\\nbreak", "a \\\"quote\\\"", "caf\\u00e9",
		"\xc3\xa9t\xc3\xa9 ", "\xe2\x80\x94 dash", "\\ud83d\\ude00", "tab\\tand\\\\slash",
		" the quick brown fox jumps over the lazy dog", "\xf0\x9f\x98\x80 emoji",
	};
	size_t cap = 32 << 20, len = 0, off;
	char *buf = malloc(cap);
	int reps = argc > 1 ? atoi(argv[1]) : 4, plain = argc > 2 && atoi(argv[2]), k;
	long events = 0;
	struct timespec t0, t1;
	struct gp_sse p;
	double s;

	if (!buf)
		return 1;
	while (len + 1024 < cap) {
		len += (size_t)snprintf(buf + len, cap - len,
			"data: {\"id\":\"chatcmpl-%ld\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
			"\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},\"logprobs\":null,"
			"\"finish_reason\":null}]}\n\n", events % 1000, plain ? "word " : text[events % 12]);
		events++;
	}
	gp_sse_init(&p, 1 << 20, on_event, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (k = 0; k < reps; k++) {
		gp_sse_reset(&p);
		for (off = 0; off < len; off += 16384)
			if (gp_sse_feed(&p, buf + off, len - off < 16384 ? len - off : 16384))
				abort();
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (n_content != events * reps)
		return 1;
	printf("%.0f\n", (double)n_content / s);
	gp_sse_release(&p);
	free(buf);
	return 0;
}
