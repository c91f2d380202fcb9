#!/bin/sh
# Secrets: an API key given by GP_API_KEY, OPENAI_API_KEY or a key file never
# appears in any output, log or error of any tool — records, stderr, verbose
# progress, --help, and error bodies a careless server echoes back (the echo
# server returns the Authorization header, with and without "Bearer ", in its
# 401 body).  The key is chosen so that no key-shaped heuristic masks it: only
# the tools' knowledge of the secret can.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x /usr/bin/python3 || skip_all "no /usr/bin/python3"
for t in replay health probe calibrate sim trace analyze verify report; do
	test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"
done
KEY=hunter2x-gp-$$
printf '%s\n' "$KEY" >key.txt
P=$(free_port_range 1)
/usr/bin/python3 "$GP_TOP/tests/fixtures/badserver.py" echo "$P" "$TRASH/echo.log" >/dev/null 2>>bad.log &
cleanup_pid $!
wait_port "$P" || fail_all "echo server did not start"
URL=http://127.0.0.1:$P
cat >fleet.json <<EOT
{"model":"m","context_length":4096,"vips":[{"name":"vip","url":"$URL"}],
 "backends":[{"name":"b1","url":"$URL","metrics_url":"$URL/metrics","role":"both","accelerators":1}],
 "inflight_metrics":["vllm:num_requests_running"],
 "arms":[{"name":"rr","expect":"spread","routes_by_cache":false,"mode_cmd":"echo mode=rr","mode_regex":"^mode=rr$"}]}
EOT
jq '.vips[0].url = "http://127.0.0.1:1"' fleet.json >cal.json
awk 'BEGIN { for (i = 0; i < 3; i++)
	printf "{\"type\":\"trace\",\"id\":\"s%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":4}\n", i, i * 0.01 }' >trace.ndjson

# run NAME CMD...: run CMD with the key in GP_API_KEY and OPENAI_API_KEY,
# everything it writes in out/NAME.*; a nonzero exit is fine (most paths
# here are error paths), a crash is not.
mkdir out
run() {
	_n=$1
	shift
	GP_API_KEY=$KEY OPENAI_API_KEY=$KEY "$@" >"out/$_n.stdout" 2>"out/$_n.stderr" </dev/null
	_rc=$?
	echo "$_rc" >"out/$_n.rc"
	test $_rc -lt 128
}
leaks() { grep -rl -e "$KEY" -e "hunter2x" out; }

test_expect_success 'every tool, every path, runs with the key set' '
	run replay-models gp-replay --url $URL --model m --progress trace.ndjson &&
	run replay-run gp-replay --url $URL --model m --no-model-check --progress -o out/replay-run.ndjson trace.ndjson &&
	run replay-keyfile env -u GP_API_KEY -u OPENAI_API_KEY gp-replay --url $URL --model m \
		--no-model-check --api-key-file key.txt -o out/replay-keyfile.ndjson trace.ndjson &&
	run replay-header gp-replay --url $URL --model m --no-model-check -H "X-Api-Key: $KEY" trace.ndjson &&
	run health gp-health --fleet fleet.json --timeout-s 2 &&
	run health-keyfile gp-health --fleet fleet.json --timeout-s 2 --api-key-file key.txt -o out/health.ndjson &&
	run probe gp-probe --fleet fleet.json --arm rr --requests 3 --concurrency 3 --progress &&
	run probe-keyfile gp-probe --fleet fleet.json --arm rr --requests 2 --api-key-file key.txt -o out/probe.ndjson &&
	run calibrate gp-calibrate --fleet cal.json --endpoint b1 --role decode --progress &&
	run sim-help gp-sim --help &&
	for t in replay health probe calibrate sim trace analyze verify report; do
		run help-$t gp-$t --help && run version-$t gp-$t --version || exit 1
	done &&
	run trace-bad gp-trace stats key.txt &&
	run analyze-bad gp-analyze key.txt &&
	run verify-bad gp-verify key.txt &&
	run report-bad gp-report key.txt &&
	run analyze-run gp-analyze out/replay-run.ndjson &&
	run verify-run gp-verify out/replay-run.ndjson &&
	run report-run gp-report out/replay-run.ndjson
'
test_expect_success 'the key was sent, and the server echoed it back (so the check below can fail)' '
	grep -q "Bearer $KEY" echo.log && grep -q "^$KEY\$" echo.log &&
	grep -q "X-Api-Key" echo.log || grep -q " $KEY" echo.log
'
test_expect_success 'the echoed bodies reached the outputs, masked' '
	grep -q "invalid credentials: Bearer \*\*\*" out/replay-models.stderr &&
	jq -s -e "map(select(.type == \"request\")) | length == 3 and
		all(.[]; .error == \"http_status\" and (.error_detail | test(\"token [*]{3}\")))" out/replay-run.ndjson &&
	grep -q "token \*\*\*" out/health.stderr &&
	grep -q "token \*\*\*" out/calibrate.stderr
'
test_expect_success 'no output, log or error of any tool holds the key' '
	test -z "$(leaks)" || { leaks; exit 1; }
'
test_expect_success 'the check can fail: a planted copy of the key is found' '
	echo "$KEY" >out/planted && test "$(leaks)" = out/planted; rc=$?; rm -f out/planted; exit $rc
'
test_done
