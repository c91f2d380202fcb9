#!/bin/sh
# gp-replay: every gp-sim fault kind lands in its error class, a refused
# connection is `connect` (exit 69 when nothing connects), the deadline
# cancels into `timeout`, and the record count always equals attempted.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

awk 'BEGIN { for (i = 0; i < 12; i++)
	printf "{\"type\":\"trace\",\"id\":\"f%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":6}\n", i, i * 0.01 }' >trace.ndjson

# with_fault KIND: (re)start gp-sim injecting KIND into every request.
# Sims start here, at top level, so lib.sh's cleanup sees every one.
with_fault() {
	[ -n "${SIM_PID:-}" ] && { kill $SIM_PID; wait $SIM_PID 2>/dev/null; }
	start_sim --model m --decode-ms 2 --fault "$1=1" --truth "truth-$1.ndjson"
}
# replay KIND CLASS [replay args]: all 12 records fail with CLASS; a run in
# which every request failed exits 1, and its summary names the class.
replay() {
	_k=$1 _c=$2
	shift 2
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m "$@" trace.ndjson >"run-$_k.ndjson" 2>"err-$_k"
	test $? = 1 || return 1
	grep -q "every request failed" "err-$_k" && grep -q "^  $_c  *12" "err-$_k" || return 1
	test "$(sel '.type == "request"' run-$_k.ndjson | wc -l)" = 12 &&
	sel '.type == "run_end"' run-$_k.ndjson |
		all_of ".attempted == 12 and .failed == 12 and .by_error.$_c == 12" &&
	sel '.type == "request"' run-$_k.ndjson |
		all_of ".outcome == \"failed\" and .error == \"$_c\" and .tpot_ms == null"
}

with_fault reset
test_expect_success 'reset -> reset' 'replay reset reset'
with_fault drop_done
test_expect_success 'drop_done -> truncated' 'replay drop_done truncated'
with_fault bad_frame
test_expect_success 'bad_frame (non-JSON event) -> invalid_framing' 'replay bad_frame invalid_framing'
test_expect_success 'bad_frame is counted in the trailer' '
	sel ".type == \"run_end\"" run-bad_frame.ndjson | all_of ".invalid_framing == 12"
'
with_fault bad_chunk
test_expect_success 'bad_chunk (broken chunked encoding) -> invalid_framing' 'replay bad_chunk invalid_framing'
test_expect_success 'bad_chunk names libcurl'"'"'s reason' '
	sel ".type == \"request\"" run-bad_chunk.ndjson | all_of ".error_detail | test(\"chunk\")"
'
with_fault http500
test_expect_success 'http500 -> http_status 500 with the error message' 'replay http500 http_status &&
	sel ".type == \"request\"" run-http500.ndjson | all_of ".http_status == 500 and (.error_detail | length) > 0 and (.error_detail | length) <= 200"
'
with_fault http429
test_expect_success 'http429 -> http_status 429' 'replay http429 http_status &&
	sel ".type == \"request\"" run-http429.ndjson | all_of ".http_status == 429"
'
with_fault stall
test_expect_success 'stall with --idle-s 0.3 -> hang, cancelled after ~0.3 s of silence' '
	replay stall hang --idle-s 0.3 &&
	sel ".type == \"request\"" run-stall.ndjson | all_of ".ttft_ms != null and .e2e_ms >= 300 and .e2e_ms < 2000"
'
test_expect_success 'stall without an idle limit -> timeout at the deadline' '
	replay stall timeout --idle-s 0 --deadline-s 0.5 &&
	sel ".type == \"request\"" run-stall.ndjson | all_of ".e2e_ms >= 450 and .e2e_ms < 2000"
'

kill $SIM_PID; wait $SIM_PID 2>/dev/null
start_sim --model m --decode-ms 8 || exit 1
awk 'BEGIN { for (i = 0; i < 6; i++)
	printf "{\"type\":\"trace\",\"id\":\"d%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":%d}\n", i, i * 0.01, (i % 2) ? 2 : 200 }' >long.ndjson
test_expect_success 'over --deadline-s: cancelled and recorded as timeout; short ones ok' '
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m --deadline-s 0.4 long.ndjson >dl.ndjson &&
	sel ".type == \"run_end\"" dl.ndjson | all_of ".attempted == 6 and .ok == 3 and .by_error.timeout == 3" &&
	sel ".type == \"request\" and .error == \"timeout\"" dl.ndjson | all_of ".e2e_ms >= 390 and .e2e_ms < 1500"
'

P=$(free_port_range 1)
# The trace spans 10 s at --rate-rps 1.1: stopping "at once" is well before.
test_expect_code 69 'nothing listening: exit 69 at once, before the first send, naming the URL' '
	t0=$(date +%s%N)
	gp-replay --url http://127.0.0.1:$P --model m --rate-rps 1.1 trace.ndjson >refused.ndjson 2>err; rc=$?
	t1=$(date +%s%N)
	test ! -s refused.ndjson && grep -q "127.0.0.1:$P" err && grep -q "no request sent" err &&
	test $(( (t1 - t0) / 1000000 )) -lt 3000 && exit $rc
'
test_expect_code 69 'an unresolvable host: exit 69 too' '
	gp-replay --url http://no-such-host.invalid:1 --model m --max-requests 2 trace.ndjson >nx.ndjson 2>err
'

test_done
