#!/bin/sh
# bench-replay.sh — gp-replay's capacity and timing error, side by side in one
# run, on loopback: the server on core 0, gp-replay on core 1 (taskset).
#
#   GP_BIN=bin sh bench/bench-replay.sh
#
# Figures (goal in brackets):
#   A  SSE events/s one client core parses       [>= 500k]  sse-firehose, burst
#   B  concurrent streams one client core holds  [>= 10k]   sse-firehose, paced
#      and memory per in-flight stream (RSS delta / streams)
#   C  events/s against gp-sim (gp-sim is the limit here: it shares the box)
#   D  send lateness p99 at 2,000 req/s          [<= 1 ms]  gp-sim, --spin-us 0 vs 100
#   E  TTFT error vs gp-sim's truth p99 at 500 req/s [<= 0.5 ms]
# Environment: GP_BIN (tools), GP_SIM (gp-sim to use, default $GP_BIN/gp-sim),
# BENCH_STREAMS (B, default 10000), BENCH_QUICK=1 for a short smoke run,
# BENCH_SKIP_AB=1 to run only the gp-sim figures.  gp-sim runs with a
# prefill of 10M tokens/s so that its engine model does not queue: these
# figures are about the client.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# /dev/tcp for port probes
set -u
GP_TOP=${GP_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GP_BIN=${GP_BIN:-$GP_TOP/bin}
case $GP_BIN in /*) ;; *) GP_BIN=$PWD/$GP_BIN ;; esac
SIM=${GP_SIM:-$GP_BIN/gp-sim}
REPLAY=$GP_BIN/gp-replay
STREAMS=${BENCH_STREAMS:-10000}
QUICK=${BENCH_QUICK:-0}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-replay.XXXXXX")
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null
command -v jq >/dev/null || { echo "bench-replay: needs jq" >&2; exit 1; }
CPU0="taskset -c 0" CPU1="taskset -c 1"
[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null || CPU0= CPU1=

make -s -C "$GP_TOP" build/bench/sse-firehose || exit 1
cp "$GP_TOP/build/bench/sse-firehose" "$T/sse-firehose" || exit 1
port() { # a free port
	while :; do
		p=$(( $(od -An -N2 -tu2 /dev/urandom) % 12000 + 20000 ))	# below the ephemeral range
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo $p; return; }
	done
}
wait_up() { i=0; while ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.05; done; }
# run OUT ARGS...: gp-replay on core 1 under GNU time; sets WALL CPU RSS_KB.
run() {
	_o=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$T/time" $CPU1 "$REPLAY" "$@" >"$_o" 2>"$T/err" || true
	read -r WALL U S RSS_KB <"$T/time"
	CPU=$(awk -v u=$U -v s=$S 'BEGIN { printf "%.3f", u + s }')
}
trailer() { jq -c 'select(.type == "run_end")' "$1"; }
events() { jq -s '[.[] | select(.type == "request") | .out_tokens // 0] | add' "$1"; }
say() { printf '%s\n' "$*"; }
# need LABEL VALUE: a figure that must be there; a missing one (empty, null,
# or a run that failed) fails the bench at the end, after every figure printed.
missing=
need() { case ${2:-} in ""|null|*null*) missing="$missing $1"; say "$1  MISSING: gp-replay: $(tail -n 3 "$T/err" 2>/dev/null | tr '\n' ' ')" ;; esac; }

say "# bench-replay  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(uname -r)  cores=$(nproc)  libcurl=$(curl-config --version 2>/dev/null)"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- A: events/s, burst ----
if [ "${BENCH_SKIP_AB:-0}" != 1 ]; then
N=64 EV=20000
[ "$QUICK" = 1 ] && EV=2000
P=$(port); $CPU0 "$T/sse-firehose" $P $EV 64 0 & pids="$pids $!"; wait_up $P
awk -v n=$N -v ev=$EV 'BEGIN { for (i = 0; i < n; i++)
	printf "{\"type\":\"trace\",\"id\":\"b%d\",\"t_s\":%.4f,\"input_tokens\":8,\"output_tokens\":%d}\n", i, i * 0.0001, ev }' >"$T/burst.ndjson"
run "$T/a.ndjson" --url http://127.0.0.1:$P --model m --deadline-s 300 "$T/burst.ndjson"
E=$(events "$T/a.ndjson")
need A "$E"
say "A  events/s (firehose burst, $N streams x $EV events): $E events, wall ${WALL}s, client cpu ${CPU}s"
say "A  => $(awk -v e=$E -v w=$WALL 'BEGIN { printf "%.0f", e / w }') events/s wall, $(awk -v e=$E -v c=$CPU 'BEGIN { printf "%.0f", e / c }') events per client cpu-second  [goal >= 500000]"
say "A  $(trailer "$T/a.ndjson" | jq -c '{attempted, ok, failed}')"
say "A  client user/kernel CPU per event: user ${U}s, kernel ${S}s => $(awk -v u=$U -v s=$S 'BEGIN { printf "%.2f", (s > 0 ? u / s : 0) }')  [goal <= 0.5]  (/usr/bin/time -f '%U %S' gp-replay --url firehose ... burst.ndjson)"

# ---- B: concurrent streams and memory per stream ----
mem_run() { # STREAMS OUT: paced firehose, every stream 1 event / 200 ms for 20 s;
	# the streams open over 10 s (1,000 new connections/s at 10k streams)
	awk -v n=$1 'BEGIN { for (i = 0; i < n; i++)
		printf "{\"type\":\"trace\",\"id\":\"c%d\",\"t_s\":%.6f,\"input_tokens\":8,\"output_tokens\":100}\n", i, i * 10.0 / n }' >"$T/conc.ndjson"
	run "$2" --url http://127.0.0.1:$P2 --model m --deadline-s 300 "$T/conc.ndjson"
}
P2=$(port); $CPU0 "$T/sse-firehose" $P2 100 1 200 & pids="$pids $!"; wait_up $P2
SMALL=100
[ "$QUICK" = 1 ] && STREAMS=1000
mem_run $SMALL "$T/b0.ndjson"; RSS0=$RSS_KB
mem_run $STREAMS "$T/b1.ndjson"; RSS1=$RSS_KB
need B "$(trailer "$T/b1.ndjson" | jq .peak_inflight)"
say "B  concurrent streams: $(trailer "$T/b1.ndjson" | jq -c '{attempted, ok, failed, peak_inflight, lateness_p99_ms}')"
say "B  => peak in flight $(trailer "$T/b1.ndjson" | jq .peak_inflight) on one core (client cpu ${CPU}s over ${WALL}s wall)  [goal >= 10000]"
say "B  memory: max RSS ${RSS0} KiB at $SMALL streams, ${RSS1} KiB at $STREAMS => $(awk -v a=$RSS0 -v b=$RSS1 -v n=$STREAMS -v s=$SMALL 'BEGIN { printf "%.1f", (b - a) * 1024 / (n - s) / 1024 }') KiB per in-flight stream (gp-replay + libcurl + kernel-visible user memory)"

fi
# ---- C, D, E: against gp-sim ----
# A fresh gp-sim for each figure, so one figure's load cannot leak into the next.
SIM_PID=
sim() {
	[ -n "$SIM_PID" ] && { kill $SIM_PID; wait $SIM_PID 2>/dev/null; }
	SP=$(port)
	: >"$T/truth.ndjson"
	$CPU0 "$SIM" --port $SP --model m --max-batch 4096 --decode-ms 10 --decode-ms-per-seq 0 \
		--prefill-tok-s 10000000 --truth "$T/truth.ndjson" 2>"$T/sim.err" &
	SIM_PID=$!
	pids="$pids $SIM_PID"
	wait_up $SP || { say "gp-sim did not start on $SP: $(cat "$T/sim.err")"; exit 1; }
	URL=http://127.0.0.1:$SP
}
sim

# C: 1000 streams x 200 tokens at 10 ms/step = up to 100k events/s offered
NC=1000 OC=200
[ "$QUICK" = 1 ] && NC=200 OC=50
awk -v n=$NC -v o=$OC 'BEGIN { for (i = 0; i < n; i++)
	printf "{\"type\":\"trace\",\"id\":\"g%d\",\"t_s\":%.5f,\"input_tokens\":16,\"output_tokens\":%d}\n", i, i * 0.0005, o }' >"$T/c.ndjson"
run "$T/c.ndjson.out" --url $URL --model m "$T/c.ndjson"
E=$(events "$T/c.ndjson.out")
D=$(trailer "$T/c.ndjson.out" | jq .duration_s)
need C "$E $D"
say "C  gp-sim: $E events in ${D}s = $(awk -v e=$E -v d=$D 'BEGIN { printf "%.0f", e / d }') events/s; client cpu ${CPU}s ($(awk -v c=$CPU -v d=$D 'BEGIN { printf "%.0f", 100 * c / d }')% of core 1) => $(awk -v e=$E -v c=$CPU 'BEGIN { printf "%.0f", e / c }') events per client cpu-second"

# D: lateness at 2000 req/s, spin 0 vs 100 us, side by side
ND=10000
[ "$QUICK" = 1 ] && ND=2000
"$GP_BIN/gp-trace" synth --requests $ND --rate-rps 2000 --keys 0 --input-tokens 32 --output-tokens 4 --seed 7 >"$T/d.ndjson" 2>/dev/null ||
	awk -v n=$ND 'BEGIN { srand(7); t = 0; for (i = 0; i < n; i++) { printf "{\"type\":\"trace\",\"id\":\"d%d\",\"t_s\":%.6f,\"input_tokens\":32,\"output_tokens\":4}\n", i, t; t += -log(1 - rand()) / 2000 } }' >"$T/d.ndjson"
for spin in 0 100; do
	sim
	run "$T/d$spin.out" --url $URL --model m --rate-rps 2000 --spin-us $spin "$T/d.ndjson"
	need "D(spin $spin)" "$(trailer "$T/d$spin.out" | jq .lateness_p99_ms)"
	say "D  2000 req/s, --spin-us $spin: $(trailer "$T/d$spin.out" | jq -c '{attempted, ok, by_error, lateness_p50_ms, lateness_p99_ms, lateness_max_ms, client_behind, achieved_rps, late_sends, late_sends_cpu_wait, client_runq_wait_ms, new_connections, connect_p99_ms}')  [goal p99 <= 1 ms]"
done
# The same under SCHED_FIFO (chrt), when allowed: what is left once other
# processes on the host can no longer preempt the client.
if chrt -f 10 true 2>/dev/null; then
	sim
	CPU1_SAVE=$CPU1
	CPU1="chrt -f 10 $CPU1"
	run "$T/drt.out" --url $URL --model m --rate-rps 2000 --spin-us 100 "$T/d.ndjson"
	CPU1=$CPU1_SAVE
	say "D  2000 req/s, --spin-us 100, chrt -f 10: $(trailer "$T/drt.out" | jq -c '{attempted, ok, by_error, lateness_p50_ms, lateness_p99_ms, lateness_max_ms, client_behind, achieved_rps, late_sends, late_sends_cpu_wait, client_runq_wait_ms, new_connections, connect_p99_ms}')  [goal p99 <= 1 ms]"
fi

# E: TTFT and E2E error vs truth at 500 req/s
NE=2500
[ "$QUICK" = 1 ] && NE=500
sim
"$GP_BIN/gp-trace" synth --requests $NE --rate-rps 500 --keys 0 --input-tokens uniform:16:256 --output-tokens uniform:2:16 --seed 8 >"$T/e.ndjson" 2>/dev/null
run "$T/e.out" --url $URL --model m --rate-rps 500 "$T/e.ndjson"
sleep 0.5
jq -r 'select(.type == "request" and .outcome != "failed") | "\(.id) \(.ttft_ms) \(.e2e_ms)"' "$T/e.out" | sort >"$T/ec"
jq -r 'select(.type == "truth") | "\(.id) \(.ttft_ms) \(.e2e_ms)"' "$T/truth.ndjson" | sort >"$T/es"
join "$T/ec" "$T/es" >"$T/ej"
q() { # column-a column-b: "n median p99 max" of |a - b|
	awk -v a=$1 -v b=$2 '{ d = $a - $b; if (d < 0) d = -d; print d }' "$T/ej" | sort -g |
	awk '{ v[NR] = $1 } END { printf "n=%d median=%.3f p99=%.3f max=%.3f ms", NR, v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)], v[NR] }'
}
say "E  500 req/s $(trailer "$T/e.out" | jq -c '{attempted, ok, by_error, lateness_p99_ms}')"
[ -s "$T/ej" ] || missing="$missing E"
say "E  TTFT |client - truth|: $(q 2 4)  [goal p99 <= 0.5 ms]"
say "E  E2E  |client - truth|: $(q 3 5)"
say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$missing" ]; then
	say "bench-replay: figures missing:$missing"
	exit 1
fi
