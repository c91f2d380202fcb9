#!/bin/sh
# bench-engine.sh — TTFT and TPOT percentiles against offered load for one
# gp-sim backend, with and without prefix-cache hits: the knee of the engine
# model (gp-sim(1), Engine model).  Prints one line per (trace, rate).
#
#   sh bench/bench-engine.sh [RATES] [RUN_S]
#
# The backend is one engine of the demo fleet (examples/demo.sh: prefill
# 10000 tok/s, 6 ms + 0.2 ms/seq steps, 32 sequences, 1200 KV blocks).  Both
# traces have prompts of 2100-2400 tokens and 32 output tokens; "hits" share
# one 2048-token prefix (every request after the first hits ~2048 tokens),
# "misses" share nothing.  A miss costs ~225 ms of prefill, which runs in the
# steps of the decodes, so misses raise TPOT as well as TTFT and the knee
# comes at a lower rate.  gp-sim on core 0, gp-replay on core 1.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GP_BIN:-$TOP/bin}
RATES=${1:-1 2 3 4 6 8 12 16 24}
RUN_S=${2:-6}
PIN0= PIN1=
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then PIN0="taskset -c 0"; PIN1="taskset -c 1"; fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-engine.XXXXXX")
SIM=
trap '[ -n "$SIM" ] && kill $SIM 2>/dev/null; rm -rf "$TMP"' EXIT
for try in 1 2 3 4 5 6 7 8; do
	PORT=$(( (($$ * 17 + try * 7919) % 9000) + 21000 ))
	$PIN0 "$BIN/gp-sim" --port "$PORT" --max-model-len 8192 --prefill-tok-s 10000 \
		--decode-ms 6 --decode-ms-per-seq 0.2 --max-batch 32 --kv-blocks 1200 \
		--truth "$TMP/truth.ndjson" 2>"$TMP/sim.err" &
	SIM=$!
	for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.05; done
	kill -0 $SIM 2>/dev/null && break
	wait $SIM; SIM=
done
[ -n "$SIM" ] || { echo "bench-engine: gp-sim did not start:" >&2; cat "$TMP/sim.err" >&2; exit 1; }
"$BIN/gp-trace" synth --requests 3000 --rate-rps 10 --keys 1 --prefix-tokens 2048 \
	--input-tokens uniform:2100:2400 --output-tokens 32 --block-tokens 512 --seed 7 >"$TMP/hits.ndjson"
"$BIN/gp-trace" synth --requests 3000 --rate-rps 10 --prefix-tokens 0 \
	--input-tokens uniform:2100:2400 --output-tokens 32 --block-tokens 512 --seed 7 >"$TMP/misses.ndjson"

echo "bench-engine: one backend, Poisson arrivals, ${RUN_S} s per rate; ms, nearest-rank percentiles of ok requests"
printf '%-7s %6s %5s %5s %8s %8s %8s %7s %7s %7s\n' trace rps ok fail ttft_p50 ttft_p90 ttft_p99 tpot_p50 tpot_p90 tpot_p99
for tr in hits misses; do
	for r in $RATES; do
		$PIN1 "$BIN/gp-replay" --url "http://127.0.0.1:$PORT" --model gp-sim --arm "$tr" --rep 1 \
			--poisson-rps "$r" --duration-s "$RUN_S" --seed 1 --deadline-s 30 \
			-o "$TMP/run.ndjson" <"$TMP/$tr.ndjson" 2>>"$TMP/replay.err"
		jq -s -r --arg tr "$tr" --arg r "$r" '
			def q(p): if length == 0 then "-" else sort | .[((length * p) | ceil) - 1] * 10 | round / 10 end;
			map(select(.type == "request")) as $q | ($q | map(select(.outcome == "ok"))) as $ok |
			[$tr, $r, ($ok | length), (($q | length) - ($ok | length)),
			 ($ok | map(.ttft_ms) | q(0.5)), ($ok | map(.ttft_ms) | q(0.9)), ($ok | map(.ttft_ms) | q(0.99)),
			 ($ok | map(.tpot_ms) | q(0.5)), ($ok | map(.tpot_ms) | q(0.9)), ($ok | map(.tpot_ms) | q(0.99))]
			| @tsv' "$TMP/run.ndjson" |
			awk -F'\t' '{ printf "%-7s %6s %5s %5s %8s %8s %8s %7s %7s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
		# let the engine drain before the next rate
		i=0; while [ $i -lt 100 ] && ! curl -s "http://127.0.0.1:$PORT/metrics" | grep -q '^vllm:num_requests_running{model_name="gp-sim"} 0$'; do sleep 0.2; i=$((i + 1)); done
	done
done
echo "gp-sim: preemptions $(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^vllm:num_preemptions_total/ { print $2 }')"
