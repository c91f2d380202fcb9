#!/usr/bin/env bash
# examples/demo.sh — the demo campaign (`make demo`): an emulated fleet of four
# vLLM-like backends (gp-sim) behind a real gateway (HAProxy), two routing arms
# — "rr" (round-robin, the floor) and "hash" (consistent hashing on the prompt's
# cache key) — replayed at a ladder of three rates with five repetitions each,
# then validity → analysis → publish gate.  Everything stays on 127.0.0.1.
# The protocol is fixed before the run: the SLO is twice the unloaded p50 on
# the same path, the floor arm is rr, parity margin 0.05, and the repetition
# cap equals REPS (a rung still noisy at the cap is published with a footnote).
#
# Environment: OUT (default demo-out), REPS (5), RATES ("8 16 24 32"),
# RUN_S (seconds per run, 5), GP_BIN (the tools).
set -eu
cd "$(dirname "$0")/.."
GP_BIN=${GP_BIN:-$PWD/bin}
PATH=$GP_BIN:$PATH
OUT=${OUT:-demo-out}
REPS=${REPS:-5}
RATES=${RATES:-8 16 24 32}
RUN_S=${RUN_S:-5}

say() { printf '\n== %s\n' "$*" >&2; }

# Free ports: four backends, the VIP, HAProxy's exporter.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_base() {
	b=$(( $$ % 12000 + 20000 ))  # below the ephemeral range (32768+)
	while :; do
		ok=1
		for i in 0 1 2 3 4 5; do port_free $((b + i)) || { ok=0; break; }; done
		[ $ok = 1 ] && { echo $b; return; }
		b=$((b + 7))
	done
}
base=$(pick_base)
export GP_B1=127.0.0.1:$base GP_B2=127.0.0.1:$((base + 1)) \
	GP_B3=127.0.0.1:$((base + 2)) GP_B4=127.0.0.1:$((base + 3)) \
	GP_VIP_PORT=$((base + 4)) GP_PROM_PORT=$((base + 5))
VIP=http://127.0.0.1:$GP_VIP_PORT

rm -rf "$OUT"
mkdir -p "$OUT/runs"
sed -e "s/\${GP_VIP_PORT}/$GP_VIP_PORT/g; s/\${GP_PROM_PORT}/$GP_PROM_PORT/g" \
    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" \
    examples/fleet.json >"$OUT/fleet.json"

pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || :; done; wait 2>/dev/null || :; }
trap cleanup EXIT INT TERM

wait_http() { # URL
	i=0
	until curl -sf -o /dev/null "$1"; do
		i=$((i + 1))
		if [ $i -ge 100 ] || ! kill -0 "${2:-$$}" 2>/dev/null; then
			echo "demo: $1 did not come up (see $OUT/*.log)" >&2
			exit 69
		fi
		sleep 0.1
	done
}

say "fleet: gp-sim, 4 backends on 127.0.0.1:$base..$((base + 3))"
# A small KV pool (1200 blocks of 16 tokens: the running requests' blocks, and
# free, cached, about 5-8 prompt prefixes per backend) and slow prefill, so that
# where a request lands matters: a cache hit saves ~200 ms of prefill, for the
# request (TTFT) and for every request decoding beside it (TPOT).
gp-sim --port "$base" --backends 4 --model gp-sim --max-model-len 8192 \
	--prefill-tok-s 10000 --decode-ms 6 --decode-ms-per-seq 0.2 --max-batch 32 \
	--kv-blocks 1200 --block-tokens 16 --seed 1 --truth "$OUT/truth.ndjson" \
	2>"$OUT/sim.log" &
sim=$!
pids="$pids $sim"
for b in "$GP_B1" "$GP_B2" "$GP_B3" "$GP_B4"; do wait_http "http://$b/health" $sim; done

say "trace: 32 cache keys (Zipf 0.8), 2048-token shared prefixes"
gp-trace synth --requests 4000 --rate-rps 10 --keys 32 --zipf 0.8 \
	--prefix-tokens 2048 --input-tokens uniform:2100:2400 --output-tokens 32 \
	--block-tokens 512 --seed 7 >"$OUT/trace.ndjson"
gp-trace stats "$OUT/trace.ndjson" >"$OUT/trace-stats.ndjson"

gw=
gateway_up() { # ARM
	[ -n "$gw" ] && { kill "$gw" 2>/dev/null || :; wait "$gw" 2>/dev/null || :; }
	haproxy -db -f examples/haproxy/common.cfg -f "examples/haproxy/$1.cfg" \
		2>>"$OUT/haproxy-$1.log" &
	gw=$!
	pids="$pids $gw"
	wait_http "http://127.0.0.1:$GP_PROM_PORT/health" $gw
	wait_port_vip=0
	until (exec 3<>"/dev/tcp/127.0.0.1/$GP_VIP_PORT") 2>/dev/null; do
		wait_port_vip=$((wait_port_vip + 1)); [ $wait_port_vip -lt 100 ] || exit 69; sleep 0.1
	done
	# Confirm the mode from HAProxy's runtime (its stats page), not from
	# the file we wrote; gp-probe(1) makes this a gate.
	mode=$(sh examples/haproxy/mode.sh "$GP_PROM_PORT")
	echo "demo: gateway up in arm '$1' ($mode)" >&2
}

replay() { # ARM RATE REP OUTFILE [extra args]
	arm=$1 rate=$2 rep=$3 of=$4
	shift 4
	scrape=
	if [ "${SCRAPE:-1}" = 1 ]; then
		for b in "$GP_B1" "$GP_B2" "$GP_B3" "$GP_B4"; do
			scrape="$scrape --scrape http://$b/metrics"
		done
	fi
	# shellcheck disable=SC2086
	gp-replay --url "$VIP" --model gp-sim --arm "$arm" --rep "$rep" \
		--poisson-rps "$rate" --seed "$rep" --duration-s "$RUN_S" \
		--key-header x-gp-cache-key --backend-header X-GP-Backend \
		--deadline-s 30 --idle-s 10 $scrape "$@" -o "$of" <"$OUT/trace.ndjson"
}

say "baseline: unloaded path (1 req/s through the floor arm) for the SLO"
gateway_up rr
SCRAPE=0 replay rr 1 0 "$OUT/baseline-raw.ndjson" --max-requests 20
# The baseline passes the validity filter like any run (gp-analyze refuses it
# otherwise).
gp-verify validity "$OUT/baseline-raw.ndjson" >"$OUT/baseline.ndjson"

for arm in rr hash; do
	gateway_up "$arm"
	for rate in $RATES; do
		for rep in $(seq 1 "$REPS"); do
			printf 'demo: arm %-4s rate %3s req/s rep %s\n' "$arm" "$rate" "$rep" >&2
			replay "$arm" "$rate" "$rep" "$OUT/runs/$arm-$rate-$rep.ndjson.gz"
		done
	done
done

say "validity -> analysis -> publish"
set +e
zcat "$OUT"/runs/*.ndjson.gz |
	gp-verify validity |
	gp-analyze --pass --slo-baseline "$OUT/baseline.ndjson" --slo-multiple 2 \
		--floor rr --equiv rr --delta 0.05 --fleet "$OUT/fleet.json" --seed 1 |
	tee "$OUT/analyzed.ndjson" |
	# The demo has no gp-health / gp-probe records yet, and publish is strict
	# by default: the missing evidence is allowed here, visibly (the verdict's
	# reasons say so), until the campaign issue runs Phase 0 and 2 in the demo.
	gp-verify publish --fleet "$OUT/fleet.json" --min-reps 5 --max-cv 0.10 \
		--rep-cap "$REPS" --allow-missing health,probe >"$OUT/verdict.ndjson"
rc=$?
set -e
jq -c 'select(.type | IN("slo","goodfrac","arm_summary","noise_floor","compare","knee"))' \
	"$OUT/analyzed.ndjson" >"$OUT/analysis.ndjson"
cat "$OUT/verdict.ndjson" >>"$OUT/analysis.ndjson"

say "result"
jq -r 'select(.type=="slo") | "SLO: TTFT \(.ttft_ms|floor) ms, TPOT \(.tpot_ms*10|floor/10) ms (\(.origin), x\(.multiple))"' "$OUT/analysis.ndjson"
jq -r 'select(.type=="arm_summary") | "\(.arm)\t\(.rate_rps) req/s\tgood \(.mean_good_fraction*1000|floor/1000)\tcv \(.cv // "-")\tTTFT p50 \(.ttft_ms.p50.est // "-") ms\tTPOT p50 \(.tpot_ms.p50.est // "-") ms"' "$OUT/analysis.ndjson"
jq -r 'select(.type=="compare") | "\(.arm) vs \(.vs) @ \(.rate_rps) req/s: \(.verdict) (diff \(if .diff == null then "-" else .diff*1000|floor/1000 end), CI [\(if .lo == null then "-" else .lo*1000|floor/1000 end), \(if .hi == null then "-" else .hi*1000|floor/1000 end)])"' "$OUT/analysis.ndjson"
jq -r 'select(.type=="knee") | "knee \(.arm): highest rung clearing \(.target) is \(.rate_rps // "none") req/s, goodput@SLO \((.goodput_rps_per_accel // 0) * 100 | floor / 100) req/s per accelerator; interpolated crossing \((.crossing_rate_rps // 0) * 10 | floor / 10) req/s"' "$OUT/analysis.ndjson"
jq -r 'select(.type=="verdict") | "verdict: \(if .publishable then "PUBLISHABLE" else "NOT PUBLISHABLE" end) \(.reasons|join("; "))"' "$OUT/analysis.ndjson"
echo "records: $OUT/ (runs/, analysis.ndjson, verdict.ndjson)" >&2
# The campaign ran; a negative verdict is a result, not a failure of the demo.
# STRICT=1 passes gp-verify's verdict through as the exit status.
[ -s "$OUT/verdict.ndjson" ] || exit 70
[ "${STRICT:-0}" = 1 ] && exit $rc
exit 0
