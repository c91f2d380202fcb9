#!/usr/bin/env bash
# examples/demo.sh — `make demo`: the whole campaign (examples/campaign) on the
# embedded default.  An emulated fleet of four vLLM-like engines (gp-sim, the
# fourth at three quarters of their speed, so that it still meets the SLO
# unloaded, with gp-sim's cache-aware router beside them) behind a
# real HAProxy on 127.0.0.1, four arms — rr (round robin, the floor), chash
# (consistent hashing on the cache key), bounded (consistent hashing with
# bounded loads) and kv (gp-sim's router: the longest cached prefix) — on a
# synthetic cache-keyed trace: health, calibration of each engine, the ladder,
# the SLO's baseline, every rung x rep with health, probe and a cache reset
# around each, validity, analysis, publish with adaptive replicates, and the
# report (gp-report, with plots).  Prints the verdict table.
#
# The protocol is examples/campaign/protocol.json (committed before any
# replay; echoed in the report).  Environment: OUT (default demo-out),
# PROTOCOL (another protocol file), JOBS (make -j, default 4: the four engines are calibrated at once), GP_BIN.
# Everything started here is stopped on exit, on failure and on Ctrl-C.
set -eu
cd "$(dirname "$0")/.."
GP_TOP=$PWD
GP_BIN=${GP_BIN:-$PWD/bin}
PATH=$GP_BIN:$PATH
OUT=${OUT:-demo-out}
PROTOCOL=${PROTOCOL:-examples/campaign/protocol.json}
export GP_TOP GP_BIN PATH

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_base() { # 7 free ports: 4 engines, the router, the VIP, HAProxy's exporter
	b=$(( $$ % 12000 + 20000 ))  # below the ephemeral range (32768+)
	while :; do
		ok=1
		for i in 0 1 2 3 4 5 6; do port_free $((b + i)) || { ok=0; break; }; done
		[ $ok = 1 ] && { echo $b; return; }
		b=$((b + 11))
	done
}
base=$(pick_base)
export GP_B1=127.0.0.1:$base GP_B2=127.0.0.1:$((base + 1)) \
	GP_B3=127.0.0.1:$((base + 2)) GP_B4=127.0.0.1:$((base + 3)) \
	GP_ROUTER=127.0.0.1:$((base + 4)) GP_VIP_PORT=$((base + 5)) GP_PROM_PORT=$((base + 6))

rm -rf "$OUT"
mkdir -p "$OUT/log"
OUT=$(cd "$OUT" && pwd)
# The fleet file: the template with this run's addresses.
sed -e "s|\${GP_TOP}|$GP_TOP|g; s/\${GP_VIP_PORT}/$GP_VIP_PORT/g; s/\${GP_PROM_PORT}/$GP_PROM_PORT/g" \
    -e "s/\${GP_ROUTER}/$GP_ROUTER/g" \
    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" \
    examples/campaign/fleet.json >"$OUT/fleet.json"

sim=
mk=
stop_all() { # never fails (set -e): each step is on its own
	trap - EXIT INT TERM
	set +e
	# make and every step it runs are one process group (setsid below).
	if [ -n "$mk" ]; then kill -TERM -- "-$mk" 2>/dev/null; wait "$mk" 2>/dev/null; sleep 0.5; fi
	FLEET=$OUT/fleet.json PROTOCOL=$PROTOCOL OUT=$OUT sh examples/campaign/campaign.sh down 2>/dev/null
	if [ -n "$sim" ]; then kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null; fi
	return 0
}
trap 'stop_all' EXIT
trap 'echo "demo: interrupted" >&2; stop_all; exit 130' INT TERM

# Where a request lands matters: 2048-token shared prefixes, prefill at
# 10000 tokens/s (a miss costs ~220 ms of prefill, a hit ~20 ms, in the
# engine model's time; --speed 2 runs the model at twice that, so a rep's
# requests take half the wall time), a KV pool
# of 1000 blocks of 16 tokens (the running sequences' blocks and, free, about
# 4-6 cached prefixes per engine) against the trace's 8 keys: round robin
# makes every engine see every key and thrash its cache; affinity gives each
# engine 2 keys, which stay warm.
echo "demo: gp-sim, 4 engines on 127.0.0.1:$base..$((base + 3)) (b4 at three quarters of their speed), router on $GP_ROUTER" >&2
gp-sim --port "$base" --backends 4 --speed 2,2,2,1.5 --model gp-sim --max-model-len 8192 \
	--prefill-tok-s 10000 --decode-ms 6 --decode-ms-per-seq 0.2 --max-batch 32 \
	--kv-blocks 1000 --block-tokens 16 --seed 1 --router "${GP_ROUTER#*:}" --policy kv \
	--truth "$OUT/truth.ndjson" 2>"$OUT/log/sim.log" &
sim=$!
for hp in "$GP_B1" "$GP_B2" "$GP_B3" "$GP_B4" "$GP_ROUTER"; do
	i=0
	until curl -sf -o /dev/null "http://$hp/health"; do
		i=$((i + 1))
		{ [ $i -lt 100 ] && kill -0 $sim 2>/dev/null; } || { echo "demo: gp-sim did not come up ($OUT/log/sim.log)" >&2; exit 69; }
		sleep 0.1
	done
done

t0=$(date +%s)
# The campaign; its own messages go to OUT/log/campaign.log, the phases here.
setsid make --no-print-directory -j"${JOBS:-4}" -f examples/campaign/Makefile \
	FLEET="$OUT/fleet.json" PROTOCOL="$PROTOCOL" OUT="$OUT" all >"$OUT/log/make.log" 2>&1 &
mk=$!
tail -n +1 -f "$OUT/log/make.log" --pid=$mk 2>/dev/null | grep --line-buffered '^campaign: ' >&2 &
rc=0
wait $mk || rc=$?
mk=
sleep 0.2
if [ $rc != 0 ]; then
	echo "demo: the campaign failed (exit $rc); the last lines of $OUT/log/make.log:" >&2
	tail -n 15 "$OUT/log/make.log" >&2
	exit $rc
fi
echo >&2
cat "$OUT/table.txt"
echo
echo "reps per rung (adaptive, minimum $(jq .min_reps "$PROTOCOL"), cap $(jq .rep_cap "$PROTOCOL")):"
[ -s "$OUT/adapt.log" ] && sed 's/^/  /' "$OUT/adapt.log" || echo "  every rung published at the minimum"
echo "campaign: $(( $(date +%s) - t0 )) s; report: $OUT/report/report.md (and report.html, plots)"
