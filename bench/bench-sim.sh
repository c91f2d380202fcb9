#!/bin/sh
# bench-sim.sh — gp-sim's capacity and pacing on one core: concurrent open
# streams, SSE events per second, and how late tokens are written compared
# with the model's schedule.  Prints figures; not a pass/fail test.
#
#   sh bench/bench-sim.sh [CONNS] [BACKENDS] [DECODE_MS] [MEASURE_S]
#
# gp-sim runs pinned to core 0 (taskset -c 0), the load client bench/sim-load.c
# (compiled here into build/bench/) on core 1.  Every stream stays open for the
# whole run (ignore_eos, a large max_tokens); each engine steps every
# DECODE_MS with all its streams in the batch, so the offered event rate is
# CONNS / DECODE_MS.  Goals: >= 2000 streams, >= 100k events/s, pacing lag
# p99 <= 1 ms.
#
# Phases (STAGGER_MS, default DECODE_MS): the clients of backend i start
# STAGGER_MS * i / BACKENDS after the first, so the engines' steps are spread
# over one step period, as independent arrivals spread them on average.
# STAGGER_MS=0 starts them all at once: every engine then steps at the same
# instants and each step owes a token to all CONNS streams at once.
# BENCH_RT=1 runs gp-sim under SCHED_FIFO (see below).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GP_BIN:-$TOP/bin}
CONNS=${1:-2400}
NB=${2:-8}
DMS=${3:-20}
MEAS=${4:-10}
WARM=3
OUT=$TOP/build/bench
mkdir -p "$OUT"
make -s -C "$TOP" build/bench/sim-load || exit 1
cp "$TOP/build/bench/sim-load" "$OUT/sim-load" || exit 1
[ -x "$BIN/gp-sim" ] || { echo "bench-sim: $BIN/gp-sim not built" >&2; exit 1; }

PIN0= PIN1=
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi
# BENCH_RT=1: gp-sim under SCHED_FIFO (needs root), so that other load on a
# shared machine does not preempt it: the figures are then gp-sim's own.
if [ "${BENCH_RT:-0}" = 1 ] && command -v chrt >/dev/null; then PIN0="$PIN0 chrt -f 10"; fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-sim.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# A base port below the kernel's ephemeral range (whose ports our own client
# sockets use); retry when another process holds one.
for try in 1 2 3 4 5 6 7 8; do
	PORT=$(( (($$ * 31 + try * 7919) % 9000) + 21000 ))
	$PIN0 "$BIN/gp-sim" --port "$PORT" --backends "$NB" --max-batch 100000 --max-model-len 1000000 \
		--max-num-batched-tokens 1000000 --kv-blocks 100000 --block-tokens 1024 \
		--decode-ms "$DMS" --decode-ms-per-seq 0 --stats --truth "$TMP/truth.ndjson" \
		2>"$TMP/sim.err" &
	SIM=$!
	for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$((PORT + NB - 1))) 2>/dev/null && break; sleep 0.05; done
	kill -0 $SIM 2>/dev/null && break
	wait $SIM
done
kill -0 $SIM 2>/dev/null || { echo "bench-sim: gp-sim did not start:" >&2; cat "$TMP/sim.err" >&2; exit 1; }

echo "bench-sim: $CONNS streams over $NB backends, decode step ${DMS} ms (offered $((CONNS * 1000 / DMS)) events/s), phases staggered over ${STAGGER_MS:-$DMS} ms, ${MEAS} s window after ${WARM} s warm-up"
$PIN1 "$OUT/sim-load" 127.0.0.1 "$PORT" "$NB" "$CONNS" 500000 "$WARM" "$MEAS" "${STAGGER_MS:-$DMS}" >"$TMP/load.out" &
LOAD=$!
sleep $((WARM + MEAS / 2))
CPU=$(ps -o %cpu= -p $SIM 2>/dev/null | tr -d ' ')
RSS=$(ps -o rss= -p $SIM 2>/dev/null | tr -d ' ')
OPEN=$(ss -Htn state established "( sport >= :$PORT and sport < :$((PORT + NB)) )" 2>/dev/null | wc -l)
wait $LOAD
if ! kill -TERM $SIM 2>/dev/null; then echo "bench-sim: gp-sim died:" >&2; cat "$TMP/sim.err" >&2; fi
wait $SIM
cat "$TMP/load.out"
echo "gp-sim: open streams mid-window $OPEN, cpu ${CPU}% (average since start), rss ${RSS} KiB"
grep "stats:" "$TMP/sim.err"
echo "gp-sim: $(grep -c "pacing:" "$TMP/sim.err") pacing warnings on stderr"
grep '"sim_stats"' "$TMP/truth.ndjson"
