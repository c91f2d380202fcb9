#!/bin/sh
# gp-sim: every fault kind produces exactly its wire behaviour; PROB 0 and 1;
# fault decisions reproduce under the same --seed.
. "$(dirname "$0")/lib.sh"

BODY='{"model":"m","messages":[{"role":"user","content":"hello there"}],"max_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}'
stream() { # OUT [curl args]: stream one chat request; prints curl's exit status
	_o=$1; shift
	curl -H Content-Type:application/json -sS -N "$@" -H "X-Request-Id: $_o" -d "$BODY" -o "$_o.out" \
		-w '%{http_code}\n' "http://127.0.0.1:$SIM_PORT/v1/chat/completions" >"$_o.code" 2>"$_o.err"
	echo $? >"$_o.rc"
}
with_fault() { # KIND: restart the sim with KIND=1
	[ -n "${SIM_PID:-}" ] && { kill $SIM_PID; wait $SIM_PID; }
	start_sim --model m --fault "$1=1" --truth "truth-$1.ndjson"
}
truth_of() { jq -c "select(.id == \"$2\")" "truth-$1.ndjson"; }

with_fault reset
test_expect_success 'reset: the connection closes after two tokens (curl 18 or 56)' '
	stream r1 &&
	rc=$(cat r1.rc) && { test "$rc" = 18 || test "$rc" = 56; } &&
	test "$(grep -c "\"content\":\"[a-z]" r1.out)" = 2 &&
	! grep -q "\[DONE\]" r1.out && ! grep -q "finish_reason\":\"" r1.out &&
	truth_of reset r1 | jq -e ".fault == \"reset\" and .out_tokens == 2"
'
test_expect_success 'the server keeps serving after a reset' '
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SIM_PORT/health")" = 200
'

with_fault drop_done
test_expect_success 'drop_done: clean end of stream, all tokens, no finish_reason, no [DONE]' '
	stream d1 &&
	test "$(cat d1.rc)" = 0 && test "$(cat d1.code)" = 200 &&
	test "$(grep -c "\"content\":\"[a-z]" d1.out)" = 6 &&
	! grep -q "\[DONE\]" d1.out &&
	! grep -q "finish_reason\":\"" d1.out && ! grep -q "\"usage\"" d1.out &&
	truth_of drop_done d1 | jq -e ".fault == \"drop_done\" and .out_tokens == 6"
'

with_fault bad_frame
test_expect_success 'bad_frame: exactly one data line is not JSON; the stream goes on' '
	stream f1 &&
	test "$(cat f1.rc)" = 0 &&
	grep "^data: " f1.out | sed "s/^data: //" | grep -v "^\[DONE\]$" >f1.data &&
	n=0 && bad=0 &&
	while IFS= read -r l; do
		n=$((n + 1)); printf "%s" "$l" | jq -e . >/dev/null 2>&1 || bad=$((bad + 1))
	done <f1.data &&
	test "$bad" = 1 && test "$n" = 10 &&
	test "$(grep -c "\"content\":\"[a-z]" f1.out)" = 6 &&
	grep -q "^data: \[DONE\]$" f1.out
'

with_fault bad_chunk
test_expect_success 'bad_chunk: broken chunked encoding (curl 56), then closed' '
	stream c1 &&
	test "$(cat c1.rc)" = 56 &&
	grep -qi "chunk" c1.err &&
	! grep -q "\[DONE\]" c1.out &&
	truth_of bad_chunk c1 | jq -e ".fault == \"bad_chunk\""
'

with_fault http500
test_expect_success 'http500: status 500 with an OpenAI error body' '
	stream h1 &&
	test "$(cat h1.code)" = 500 &&
	jq -e ".error.message and .error.type" h1.out &&
	truth_of http500 h1 | jq -e ".fault == \"http500\" and .http_status == 500 and .out_tokens == 0"
'

with_fault http429
test_expect_success 'http429: status 429 with an OpenAI error body' '
	stream h2 &&
	test "$(cat h2.code)" = 429 &&
	jq -e ".error.message and .error.type" h2.out &&
	truth_of http429 h2 | jq -e ".fault == \"http429\" and .http_status == 429"
'

with_fault stall
test_expect_success 'stall: one token, then silence until the client gives up' '
	stream s1 --max-time 1.5 &&
	test "$(cat s1.rc)" = 28 &&
	test "$(grep -c "^data: " s1.out)" = 2 &&
	grep -q "\"content\":\"[a-z]" s1.out
'
test_expect_success 'stall: the truth record is written when the client goes away' '
	sleep 0.2 &&
	truth_of stall s1 | jq -e ".fault == \"stall\" and .out_tokens == 1 and .e2e_ms >= 1400"
'
test_expect_success 'stall: the engine slot was released meanwhile' '
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" | grep -q "^vllm:num_requests_running{model_name=\"m\"} 0$"
'

kill $SIM_PID; wait $SIM_PID
start_sim --model m --fault reset=0 --fault http500=0 --truth p0.ndjson
test_expect_success 'PROB 0: no faults over 20 requests' '
	for i in $(seq 1 20); do stream z$i; test "$(cat z$i.rc)" = 0 || exit 1; grep -q "^data: \[DONE\]$" z$i.out || exit 1; done &&
	test "$(jq -r .fault p0.ndjson | sort -u)" = null
'

kill $SIM_PID; wait $SIM_PID
mixed() { # SEED FILE: 30 sequential requests, the fault sequence into FILE
	start_sim --model m --seed "$1" --fault http500=0.3 --fault http429=0.3 --truth "mix-$1-$2.ndjson"
	for i in $(seq 1 30); do stream m$i; done
	kill $SIM_PID; wait $SIM_PID; SIM_PID=
	jq -r .fault "mix-$1-$2.ndjson" >"$2"
}
test_expect_success 'fault decisions reproduce under the same seed, differ under another' '
	mixed 7 a && mixed 7 b && mixed 8 c &&
	cmp a b && ! cmp -s a c &&
	grep -q null a && grep -q http500 a && grep -q http429 a
'
test_done
