#!/bin/sh
# bench-trace — speed of the prompt synthesizer (it runs on gp-replay's send
# path) and of gp-trace's record writers.  Prints figures; not a test.
#
# Goals: a 32k-token prompt in well under a millisecond (it is built once per
# request, before the request is sent); conversions at least as fast as
# `jq -c .` over the same file (the side-by-side reference).
cd "$(dirname "$0")/.." || exit 1
GP_BIN=${GP_BIN:-$PWD/bin}
T=$GP_BIN/gp-trace
[ -x "$T" ] || { echo "bench-trace: $T not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-bench-trace.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

# 1. The synthesizer, against memcpy of the same bytes (the floor of any
#    prompt builder) -- a ratio measured in the same process.
if [ -f build/libgp.a ]; then
	cat >"$tmp/b.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "wire/trace.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void)
{
	enum { TOK = 32768, REPS = 2000 };
	int64_t ids[TOK / 512];
	size_t need = gp_trace_synth_prompt(NULL, 0, TOK, NULL, 0, 512, "x");
	char *a = malloc(need + 1), *b = malloc(need + 1);
	volatile char sink = 0;
	for (int i = 0; i < TOK / 512; i++) ids[i] = i;
	gp_trace_synth_prompt(a, need + 1, TOK, ids, TOK / 512, 512, "r1");
	double t0 = now();
	for (int r = 0; r < REPS; r++) {
		ids[63] = r;	/* vary the last block like distinct requests */
		gp_trace_synth_prompt(a, need + 1, TOK, ids, TOK / 512, 512, "r1");
		sink ^= a[r % need];
	}
	double t1 = now();
	for (int r = 0; r < REPS; r++) {
		memcpy(b, a, need + 1);
		a[r % need] ^= 1;
		sink ^= b[(r * 7) % need];
	}
	double t2 = now();
	double us = (t1 - t0) / REPS * 1e6, mus = (t2 - t1) / REPS * 1e6;
	printf("synth_prompt 32768 tokens (%zu B): %.1f us/prompt, %.0f M words/s; memcpy %.2f us; ratio %.1fx\n",
	       need, us, TOK / us, mus, us / mus);
	return sink == 42 ? 1 : 0;
}
CEOF
	if cc -O2 -std=c11 -D_GNU_SOURCE -Isrc/lib $(pkg-config --cflags jansson) -o "$tmp/b" "$tmp/b.c" \
		build/libgp.a $(pkg-config --libs jansson) -lm 2>"$tmp/cc.err"; then
		"$tmp/b"
	else
		echo "bench-trace: cannot build the synthesizer driver:"; cat "$tmp/cc.err"
	fi
fi

# 2. Writers: synth records/s; a conversion beside jq on the same file.
n=200000
a=$(now); "$T" synth --requests $n >"$tmp/s.ndjson"; b=$(now)
echo "gp-trace synth: $n records in $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", b-a}') s ($(rate $n $a $b) records/s)"
a=$(now); "$T" stats "$tmp/s.ndjson" >/dev/null; b=$(now)
echo "gp-trace stats: $(rate $n $a $b) records/s"

F=${GP_SHARED:-../shared}/traces/mooncake/conversation_trace.jsonl
[ -f "$F" ] || F=tests/data/traces/mooncake/conversation_trace_first200.jsonl
rows=$(wc -l <"$F")
a=$(now); for i in 1 2 3; do "$T" from-mooncake "$F" >/dev/null; done; b=$(now)
g=$(rate $((rows * 3)) $a $b)
if command -v jq >/dev/null; then
	a=$(now); for i in 1 2 3; do jq -c . "$F" >/dev/null; done; b=$(now)
	j=$(rate $((rows * 3)) $a $b)
	echo "from-mooncake $(basename "$F"): $g rows/s; jq -c . $j rows/s; ratio $(awk -v g=$g -v j=$j 'BEGIN{printf "%.1f", g/j}')x"
else
	echo "from-mooncake $(basename "$F"): $g rows/s"
fi
