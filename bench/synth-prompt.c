/* SPDX-License-Identifier: MIT */
/*
 * synth-prompt — the prompt synthesizer (wire/trace.c, on gp-replay's send
 * path) against memcpy of the same bytes, the floor of any prompt builder:
 * a ratio measured in one process.  Run by bench/bench-trace.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "wire/trace.h"

int main(void)
{
	enum { TOK = 32768, REPS = 2000 };
	int64_t ids[TOK / 512], t0, t1, t2;
	size_t need = gp_trace_synth_prompt(NULL, 0, TOK, NULL, 0, 512, "x");
	char *a = malloc(need + 1), *b = malloc(need + 1);
	volatile char sink = 0;
	double us, mus;

	if (!a || !b)
		return 1;
	for (int i = 0; i < TOK / 512; i++)
		ids[i] = i;
	gp_trace_synth_prompt(a, need + 1, TOK, ids, TOK / 512, 512, "r1");
	t0 = gp_now_ns();
	for (int r = 0; r < REPS; r++) {
		ids[63] = r;	/* vary the last block like distinct requests */
		gp_trace_synth_prompt(a, need + 1, TOK, ids, TOK / 512, 512, "r1");
		sink ^= a[(size_t)r % need];
	}
	t1 = gp_now_ns();
	for (int r = 0; r < REPS; r++) {
		memcpy(b, a, need + 1);
		a[(size_t)r % need] ^= 1;
		sink ^= b[((size_t)r * 7) % need];
	}
	t2 = gp_now_ns();
	us = gp_ns_to_s(t1 - t0) / REPS * 1e6;
	mus = gp_ns_to_s(t2 - t1) / REPS * 1e6;
	printf("synth_prompt 32768 tokens (%zu B): %.1f us/prompt, %.0f M words/s; memcpy %.2f us; ratio %.1fx\n",
	       need, us, TOK / us, mus, us / mus);
	free(a);
	free(b);
	return sink == 42 ? 1 : 0;
}
