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
#    bench/synth-prompt.c, built by make under the project's warnings.
if make -s build/bench/synth-prompt 2>"$tmp/cc.err"; then
	build/bench/synth-prompt
else
	echo "bench-trace: cannot build the synthesizer driver:"; cat "$tmp/cc.err"
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
