#!/bin/sh
# gp-sim: the truth log (one record per request, ids), clients that leave,
# SIGTERM with streams open, --stats pacing figures.
. "$(dirname "$0")/lib.sh"

# rec_is ID FILTER: exactly one truth record has this id, and FILTER holds for it
rec_is() { jq -se "map(select(.id == \"$1\")) | length == 1 and (.[0] | $2)" truth.ndjson; }
req() { # ID MAX_TOKENS [curl args]
	_i=$1 _m=$2; shift 2
	curl -H Content-Type:application/json -sS -N "$@" -H "X-Request-Id: $_i" \
		-d "{\"prompt\":\"a b c d\",\"max_tokens\":$_m,\"ignore_eos\":true,\"stream\":true}" \
		"http://127.0.0.1:$SIM_PORT/v1/completions"
}

start_sim --truth truth.ndjson --stats
test_expect_success 'one truth record per request, ids from X-Request-Id' '
	for i in 1 2 3 4 5 6 7 8 9 10; do req "id-$i" 3 >/dev/null & done; wait &&
	curl -H Content-Type:application/json -sS -d "{\"prompt\":\"x\",\"max_tokens\":2}" "http://127.0.0.1:$SIM_PORT/v1/completions" >/dev/null &&
	test "$(jq -s "map(select(.type == \"truth\")) | length" truth.ndjson)" = 11 &&
	jq -r "select(.id | startswith(\"id-\")) | .id" truth.ndjson | sort >ids &&
	seq 1 10 | sed "s/^/id-/" | sort >want && cmp ids want &&
	test "$(jq -r "select(.id | startswith(\"gpsim-\")) | .id" truth.ndjson | wc -l)" = 1
'
test_expect_success 'truth records carry every field, with sane values' '
	jq -se "map(select(.type == \"truth\")) | all(
		(.backend | test(\"^127.0.0.1:[0-9]+$\")) and .ttft_ms > 0 and .e2e_ms >= .ttft_ms and
		.in_tokens >= 1 and .cached_tokens >= 0 and .out_tokens >= 1 and .fault == null and
		.t_recv_s >= 0 and .http_status == 200 and .end == \"done\")" truth.ndjson
'
test_expect_success 'ttft and e2e follow the model: 3 tokens take 2 steps of 8.25 ms at least' '
	jq -r "select(.id == \"id-1\") | \"\(.ttft_ms) \(.e2e_ms)\"" truth.ndjson >t &&
	read a b <t && awk -v a="$a" -v b="$b" "BEGIN { exit !(a < 50 && b >= 16.5 && b < 200) }"
'
test_expect_success 'a client that leaves mid-stream: record written, slot freed' '
	req gone 2000 --max-time 0.3 >gone.out; test $? = 28 &&
	sleep 0.2 &&
	rec_is gone ".end == \"client_closed\" and .out_tokens > 5 and .out_tokens < 100" &&
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" | grep -q "^vllm:num_requests_running{model_name=\"gp-sim\"} 0$"
'
# SIGTERM at top level: the sim is a child of this shell, not of a test subshell.
req open1 30000 >o1.out 2>/dev/null &
c1=$!
req open2 30000 >o2.out 2>/dev/null &
c2=$!
sleep 0.3
kill -TERM $SIM_PID
wait $SIM_PID
echo $? >sim.rc
wait $c1 $c2
test_expect_success 'SIGTERM with streams open: exit 0, streams closed, records flushed' '
	test "$(cat sim.rc)" = 0 &&
	rec_is open1 ".end == \"shutdown\" and .out_tokens > 0" &&
	rec_is open2 ".end == \"shutdown\"" &&
	grep -q "\"text\"" o1.out && ! grep -q "^data: \[DONE\]" o1.out
'
test_expect_success '--stats: pacing figures on stderr and in the truth file' '
	grep -q "pacing lag ms p50 [0-9.]* p99 [0-9.]* p99.9 [0-9.]* max [0-9.]*" "$TRASH/sim.log" &&
	jq -se "map(select(.type == \"sim_stats\")) | length == 1 and (.[0] | .tokens > 30 and .events > .tokens and .lag_p99_ms >= .lag_p50_ms and .lag_max_ms >= .lag_p99_ms)" truth.ndjson
'
test_expect_success 'the port is free again after exit' '
	! (exec 3<>/dev/tcp/127.0.0.1/$SIM_PORT) 2>/dev/null
'
test_expect_success 'SIGINT also exits 0' '
	start_sim && kill -INT $SIM_PID && wait $SIM_PID
'
test_done
