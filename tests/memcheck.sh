#!/bin/sh
# tests/memcheck.sh — `make memcheck`: each tool's end-to-end path under
# valgrind memcheck; fails on any memory error or definitely lost block.
# Not part of `make check` (minutes under valgrind).  Needs valgrind (Debian:
# valgrind), jq, and haproxy is not needed: the fleet is gp-sim itself.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
cd "$(dirname "$0")/.." || exit 1
GP_BIN=${GP_BIN:-$PWD/bin}
PATH=$GP_BIN:$PATH
command -v valgrind >/dev/null || { echo "memcheck: valgrind not installed (apt-get install valgrind)"; exit 1; }
D=$(mktemp -d /tmp/gp-memcheck.XXXXXX)
VG="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--show-leak-kinds=definite --track-origins=yes --child-silent-after-fork=yes"
fail=0
# errors LOG: valgrind's report without its own notes ("--PID-- WARNING: ...").
errors() { grep -v '^--[0-9]*-- ' "$1" | grep .; }
# vg NAME EXPECTED-EXITS CMD...: run CMD under memcheck, log in $D/NAME.vg;
# EXPECTED-EXITS is an ERE (the path's documented status).
vg() {
	_n=$1 _x=$2
	shift 2
	$VG --log-file="$D/$_n.vg" "$@" >"$D/$_n.out" 2>"$D/$_n.err"
	_rc=$?
	if [ $_rc = 99 ] || errors "$D/$_n.vg" >/dev/null || ! echo $_rc | grep -Eqx "$_x"; then
		echo "memcheck: FAIL $_n (exit $_rc, want $_x)"; errors "$D/$_n.vg"; tail -n 3 "$D/$_n.err"; fail=1
	else
		echo "memcheck: ok   $_n"
	fi
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for try in $(seq 1 50); do P=$((RANDOM % 10000 + 21000)); port_free $P && port_free $((P + 1)) && break; done

# gp-sim under memcheck for the whole session; stopped by SIGINT at the end.
$VG --log-file="$D/gp-sim.vg" gp-sim --port $P --backends 1 --model m --decode-ms 2 \
	--truth "$D/truth.ndjson" 2>"$D/sim.err" &
SIM=$!
for i in $(seq 1 400); do port_free $P || break; sleep 0.05; done
URL=http://127.0.0.1:$P
cat >"$D/fleet.json" <<EOT
{"model":"m","context_length":4096,"vips":[{"name":"vip","url":"$URL"}],
 "backends":[{"name":"b1","url":"$URL","metrics_url":"$URL/metrics","role":"both","accelerators":1}],
 "inflight_metrics":["vllm:num_requests_running","vllm:num_requests_waiting"],
 "arms":[{"name":"rr","expect":"spread","routes_by_cache":false,"mode_cmd":"echo mode=rr","mode_regex":"^mode=rr$"}]}
EOT
jq '.vips[0].url = "http://127.0.0.1:1"' "$D/fleet.json" >"$D/cal.json"

vg trace-synth 0 gp-trace synth --requests 20 --rate-rps 20 --keys 4 --output-tokens 8 -o "$D/trace.ndjson"
# Hostile servers and the client's own limits (tests/fixtures/hostile.py, #23).
# MEMCHECK_ONLY=hostile runs this part alone.
hostile() {
	_p=$((P + 2))
	for try in $(seq 1 50); do port_free $_p && break; _p=$((RANDOM % 10000 + 21000)); done
	/usr/bin/python3 tests/fixtures/hostile.py "$1" $_p sk-memcheckKEY >/dev/null 2>&1 &
	HP=$!
	for i in $(seq 1 100); do port_free $_p || break; sleep 0.05; done
	HURL=http://127.0.0.1:$_p
}
head -3 "$D/trace.ndjson" >"$D/t3.ndjson"
for m in latin1 donehold plainsse flaterror gzip usage0; do
	hostile $m
	vg hostile-$m '0|1' gp-replay --url $HURL --model m --idle-s 5 "$D/t3.ndjson"
	kill $HP; wait $HP 2>/dev/null
done
hostile models
GP_API_KEY=sk-memcheckKEY vg hostile-models 2 gp-replay --url $HURL --model nope "$D/t3.ndjson"
sed "s#$URL#$HURL#g" "$D/fleet.json" >"$D/hfleet.json"
GP_API_KEY=sk-memcheckKEY vg hostile-health '0|1' gp-health --fleet "$D/hfleet.json"
kill $HP; wait $HP 2>/dev/null
hostile donehold
sed "s#$URL#$HURL#g" "$D/fleet.json" >"$D/hfleet.json"
vg hostile-probe '0|1' gp-probe --fleet "$D/hfleet.json" --arm rr --requests 4 --concurrency 2
kill $HP; wait $HP 2>/dev/null
echo '{"type":"trace","id":"long","t_s":0,"input_tokens":40000,"output_tokens":8}' >"$D/long.ndjson"
vg replay-context 65 gp-replay --url $URL --model m "$D/long.ndjson"
vg replay-full 74 gp-replay --url $URL --model m -z -o /dev/full "$D/trace.ndjson"
(ulimit -n 40; vg replay-nofile '0|1' gp-replay --url $URL --model m --scrape $URL/metrics -o "$D/lim.ndjson" "$D/trace.ndjson")
vg verify-limit '0|1' gp-verify validity "$D/lim.ndjson"
if [ "${MEMCHECK_ONLY:-}" = hostile ]; then
	kill -INT $SIM; wait $SIM
	errors "$D/gp-sim.vg" && fail=1
	[ $fail = 0 ] && { echo "memcheck: clean ($D)"; exit 0; }
	echo "memcheck: errors (logs in $D)"; exit 1
fi

vg trace-stats 0 gp-trace stats "$D/trace.ndjson"
vg trace-bad 65 gp-trace stats tests/t9510-bad-input.sh
for rep in 1 2; do
	vg replay-$rep 0 gp-replay --url $URL --model m --arm direct --rep $rep --rate-rps 20 --itl \
		-o "$D/run-$rep.ndjson" "$D/trace.ndjson"
done
vg replay-refused 69 gp-replay --url http://127.0.0.1:1 --model m "$D/trace.ndjson"
vg health 0 gp-health --fleet "$D/fleet.json"
vg probe '0|1' gp-probe --fleet "$D/fleet.json" --arm rr --requests 8 --concurrency 4
jq '.vips[0].url = "http://127.0.0.1:1"' "$D/fleet.json" >"$D/dead.json"
vg probe-refused 69 gp-probe --fleet "$D/dead.json" --arm rr --requests 2
vg calibrate 1 gp-calibrate --fleet "$D/cal.json" --endpoint b1 --role decode --warmup-s 0 \
	--hold-s 0.5 --hold-requests 2 --max-steps 3 --start-rps 4 --decode-output-tokens 8 -o "$D/cal.ndjson"
cat "$D"/run-*.ndjson >"$D/runs.ndjson"
# valgrind slows the client: its runs may be discarded as late (exit 1)
vg verify-validity '0|1' gp-verify validity "$D/runs.ndjson"
vg analyze 0 gp-analyze --pass --no-validity --ttft-slo-ms 200 --tpot-slo-ms 50 --accelerators 1 "$D/runs.ndjson"
cp "$D/analyze.out" "$D/analysis.ndjson"
vg verify-publish '0|1' gp-verify publish --allow-missing health,probe,dual_proof "$D/analysis.ndjson"
vg report 0 gp-report -o "$D/report" "$D/analysis.ndjson"

kill -INT $SIM; wait $SIM
if errors "$D/gp-sim.vg"; then echo "memcheck: FAIL gp-sim"; fail=1; else echo "memcheck: ok   gp-sim"; fi
[ $fail = 0 ] && { echo "memcheck: clean ($D)"; exit 0; }
echo "memcheck: errors (logs in $D)"
exit 1
