/* SPDX-License-Identifier: MIT */
/* fuzz-trace — libFuzzer harness: trace record validation and the prompt synthesizer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "wire/trace.h"

/*
 * Input layout: byte 0 picks the synthesizer's block size and buffer slack,
 * the rest is one JSON document.  A valid record's prompt is synthesized
 * (input_tokens capped at 512) and checked against the documented shape:
 * exactly 5 * tokens - 1 bytes of 4-letter lowercase words, one space apart,
 * the same text every time, and a truncated buffer holding its prefix.
 */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct gp_trace_rec rec;
	char err[256];
	json_t *o;

	if (n < 1)
		return 0;
	o = json_loadb((const char *)d + 1, n - 1, JSON_DECODE_ANY, NULL);
	if (!o)
		return 0;
	gp_trace_init(&rec);
	if (gp_trace_parse(&rec, o, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		/* parse leaves r released on failure; a second release is safe */
		gp_trace_release(&rec);
		json_decref(o);
		return 0;
	}
	if (!rec.id || !rec.id[0] || rec.input_tokens < 1 || rec.output_tokens < 1 ||
	    !(rec.t_s >= 0) || (rec.n_hash_ids && !rec.hash_ids))
		abort();

	long tokens = rec.input_tokens > 512 ? 1 + rec.input_tokens % 512 : rec.input_tokens;
	long block = (long)(d[0] & 15) - 2;	/* -2..13: < 1 ignores hash_ids */
	size_t want = (size_t)(5 * tokens - 1);
	char *a = malloc(want + 1), *b = malloc(want + 1);
	size_t slack = (size_t)(d[0] >> 4);

	if (!a || !b)
		abort();
	if (gp_trace_synth_prompt(NULL, 0, tokens, rec.hash_ids, rec.n_hash_ids, block, rec.id) != want)
		abort();
	if (gp_trace_synth_prompt(a, want + 1, tokens, rec.hash_ids, rec.n_hash_ids, block, rec.id) != want ||
	    strlen(a) != want)
		abort();
	for (size_t i = 0; i < want; i++) {
		int space = i % 5 == 4;

		if (space ? a[i] != ' ' : !(a[i] >= 'a' && a[i] <= 'z'))
			abort();
	}
	/* Truncated: a shorter buffer gets a NUL-terminated prefix. */
	size_t small = want + 1 > slack ? want + 1 - slack : 1;
	if (gp_trace_synth_prompt(b, small, tokens, rec.hash_ids, rec.n_hash_ids, block, rec.id) != want ||
	    strlen(b) != small - 1 || memcmp(a, b, small - 1))
		abort();
	free(a);
	free(b);
	gp_trace_release(&rec);
	json_decref(o);
	return 0;
}
