#!/bin/sh
# bench-sessions.sh — gp-replay holding many multi-turn sessions at once on one
# client core: the server (bench/sse-firehose, paced) on core 0, gp-replay on
# core 1 (taskset).
#
#   GP_BIN=bin sh bench/bench-sessions.sh
#
# Figures (goal in brackets):
#   S1  concurrent sessions one client core holds   [>= 10,000]
#       (a session is open from its turn 1's send to its last turn's end; most
#       of that time it is thinking, its next turn in the ready heap)
#   S2  client CPU per event: per turn sent and per content event received
#   S3  memory per session: (max RSS at N sessions - at N/10) / (0.9 N)
#   S4  send lateness of the closed-loop turns (ready = completion + think)
# Each session: 4 turns, think 10 s, a 200-token first message and 20-token
# questions (the history grows: turn 4 resends about 280 tokens); the server
# answers every request with 4 events, one every 100 ms.  Sessions start at
# N/20 per second, so all N are open at about 20 s (a session lasts ~31 s).
# Environment: GP_BIN, BENCH_SESSIONS (default 10000), BENCH_QUICK=1 (1000).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# /dev/tcp for port probes
set -u
GP_TOP=${GP_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GP_BIN=${GP_BIN:-$GP_TOP/bin}
case $GP_BIN in /*) ;; *) GP_BIN=$PWD/$GP_BIN ;; esac
N=${BENCH_SESSIONS:-10000}
[ "${BENCH_QUICK:-0}" = 1 ] && N=1000
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-sessions.XXXXXX")
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null
command -v jq >/dev/null || { echo "bench-sessions: needs jq" >&2; exit 1; }
CPU0="taskset -c 0" CPU1="taskset -c 1"
[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null || CPU0= CPU1=

make -s -C "$GP_TOP" build/bench/sse-firehose || exit 1
cp "$GP_TOP/build/bench/sse-firehose" "$T/sse-firehose" || exit 1
port() {
	while :; do
		p=$(( $(od -An -N2 -tu2 /dev/urandom) % 12000 + 20000 ))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo $p; return; }
	done
}
wait_up() { i=0; while ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.05; done; }
say() { printf '%s\n' "$*"; }

P=$(port); $CPU0 "$T/sse-firehose" $P 4 1 100 & pids="$pids $!"; wait_up $P || exit 1
# run SESSIONS OUT: synth the trace, replay it under GNU time; sets WALL CPU RSS_KB.
run() {
	"$GP_BIN/gp-trace" synth --sessions "$1" --rate-rps $(( $1 / 20 )) --arrival constant --turns 4 \
		--think-s 10 --first-input-tokens 200 --input-tokens 20 --output-tokens 4 --keys 0 \
		--block-tokens 16 >"$T/tr.ndjson" || exit 1
	/usr/bin/time -f "%e %U %S %M" -o "$T/time" $CPU1 "$GP_BIN/gp-replay" --url http://127.0.0.1:$P \
		--model m --no-model-check --deadline-s 300 --api completions "$T/tr.ndjson" >"$2" 2>"$T/err" || true
	read -r WALL U S RSS_KB <"$T/time"
	CPU=$(awk -v u=$U -v s=$S 'BEGIN { printf "%.3f", u + s }')
}
# The most sessions open at once: +1 at a session's first send, -1 at its
# last turn's end.
peak_sessions() {
	jq -s -r '[.[] | select(.type == "request")] | group_by(.session) | .[] |
		(map(.t_sent_s) | min), (-1 * (map(.t_sent_s + .e2e_ms / 1000) | max))' "$1" |
	awk '{ t = $1 < 0 ? -$1 : $1; print t, ($1 < 0 ? -1 : 1) }' | sort -n -k1,1 -k2,2r |
	awk '{ c += $2; if (c > m) m = c } END { print m }'
}

say "# bench-sessions  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(uname -r)  cores=$(nproc)"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
SMALL=$(( N / 10 ))
run $SMALL "$T/s0.ndjson"; RSS0=$RSS_KB
run $N "$T/s1.ndjson"; RSS1=$RSS_KB
END=$(jq -c 'select(.type == "run_end")' "$T/s1.ndjson")
TURNS=$(jq -s '[.[] | select(.type == "request" and .t_sent_s != null)] | length' "$T/s1.ndjson")
EV=$(jq -s '[.[] | select(.type == "request") | .out_tokens // 0] | add' "$T/s1.ndjson")
say "S1 $N sessions x 4 turns: $(echo "$END" | jq -c '{attempted, ok, failed, peak_inflight}')"
say "S1 => peak $(peak_sessions "$T/s1.ndjson") sessions open at once on one core, client cpu ${CPU}s over ${WALL}s wall  [goal >= 10000]"
say "S2 => $(awk -v c=$CPU -v n=$TURNS 'BEGIN { printf "%.1f", c * 1e6 / n }') us of client cpu per turn ($TURNS sent), $(awk -v c=$CPU -v e=$EV -v n=$TURNS 'BEGIN { printf "%.2f", c * 1e6 / (e + n) }') us per event (turns + $EV content events)"
say "S3 => max RSS ${RSS0} KiB at $SMALL sessions, ${RSS1} KiB at $N: $(awk -v a=$RSS0 -v b=$RSS1 -v n=$N -v s=$SMALL 'BEGIN { printf "%.2f", (b - a) / (n - s) }') KiB per session (its turns, its stream and connection while in flight, libcurl's)"
say "S4 => lateness $(echo "$END" | jq -c '{lateness_p50_ms, lateness_p99_ms, lateness_max_ms, late_sends, late_sends_cpu_wait, client_behind}')"
say "S4    turns 2..4 only: $(jq -s -c '[.[] | select(.type == "request" and .turn > 1 and .t_sent_s != null) | (.t_sent_s - .t_sched_s) * 1000 - .connect_ms] | sort | {n: length, p50: .[length / 2 | floor], p99: .[length * 0.99 | floor], max: .[-1]}' "$T/s1.ndjson") ms"
