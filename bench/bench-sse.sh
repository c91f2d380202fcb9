#!/bin/sh
# bench-sse.sh — the SSE parser of this tree against the one of a base
# revision, side by side: bench/sse-parse.c built once with each sse.c, run
# alternately on one core (who goes first alternating too); prints each
# one's median events per CPU-second and the paired ratio (this tree / base)
# with its quartiles, per mode.
#
#   BENCH_SSE_BASE=main ROUNDS=10 sh bench/bench-sse.sh
#
# Goal: a change to sse.c leaves the ratio at 1 or above (its quartiles
# spanning 1 is noise).  Nothing else shares the core only on a quiet host.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BENCH_SSE_BASE:-main}
ROUNDS=${ROUNDS:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-sse.XXXXXX")
trap 'rm -rf "$T"' EXIT
PIN=
command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] && PIN="taskset -c 1"
build() { cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra "$@"; }	# as the Makefile, less -g
mkdir "$T/base"
for f in sse.c sse.h banned.h; do
	git -C "$TOP" show "$BASE:src/lib/$f" >"$T/base/$f" || exit 1
done
build -I"$T/base" -o "$T/base.bin" "$TOP/bench/sse-parse.c" "$T/base/sse.c" || exit 1
build -I"$TOP/src/lib" -o "$T/tree.bin" "$TOP/bench/sse-parse.c" "$TOP/src/lib/wire/sse.c" || exit 1
echo "# bench-sse  $(date -u +%Y-%m-%dT%H:%M:%SZ)  base $BASE ($(git -C "$TOP" rev-parse --short "$BASE"))  load $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in 0 1; do
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		if [ $((i % 2)) = 0 ]; then	# who goes first alternates too
			b=$($PIN "$T/base.bin" 4 $mode) t=$($PIN "$T/tree.bin" 4 $mode)
		else
			t=$($PIN "$T/tree.bin" 4 $mode) b=$($PIN "$T/base.bin" 4 $mode)
		fi
		echo "$b $t"
		i=$((i + 1))
	done >"$T/r$mode"
	# median and quartiles of a column (sorted numerically)
	q() { awk -v c="$1" '{ print $c }' "$T/r$mode" | sort -g | awk '{ v[NR] = $1 }
		END { printf "%.3f [%.3f %.3f]", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'; }
	awk '{ printf "%s %s %.6f\n", $1 / 1e6, $2 / 1e6, $2 / $1 }' "$T/r$mode" >"$T/m$mode" && mv "$T/m$mode" "$T/r$mode"
	echo "mode $mode ($([ $mode = 0 ] && echo "mixed text" || echo "plain text")): base $(q 1) M ev/s, tree $(q 2) M ev/s, tree/base $(q 3)  (median [quartiles], $ROUNDS pairs)"
done
