#!/bin/sh
# gp-replay against hostile servers and its own limits (issue #23): a
# hand-written hostile server (tests/fixtures/hostile.py, raw sockets) and
# gp-sim.  Every record valid UTF-8 JSON, the right side blamed
# (client_limit, emulator_behind), nothing lost (one record per attempted
# request, durable output), input that cannot be served refused before the
# first send with its file:line.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
command -v iconv >/dev/null || skip_all "no iconv"
test -x /usr/bin/python3 || skip_all "no /usr/bin/python3"
for t in replay sim verify; do test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"; done
HOSTILE=$GP_TOP/tests/fixtures/hostile.py
KEY=sk-HOSTILEkey0123456789

awk 'BEGIN { for (i = 0; i < 3; i++)
	printf "{\"type\":\"trace\",\"id\":\"q%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":4}\n", i, i * 0.01 }' >trace.ndjson
# One hostile server per mode, started here at top level so that lib.sh's
# cleanup stops each; hostile MODE sets URL to its base.
for m in latin1 models bigmodels donehold usage0 plainsse nocttype flaterror gzip; do
	_p=$(free_port_range 1) || fail_all "no free port"
	/usr/bin/python3 "$HOSTILE" "$m" "$_p" "$KEY" >/dev/null 2>>hostile.log &
	cleanup_pid $!
	wait_port "$_p" || fail_all "hostile.py $m did not start"
	eval "PORT_$m=$_p"
done
BIG=$(free_port_range 1) || fail_all "no free port"
/usr/bin/python3 "$GP_TOP/tests/fixtures/badserver.py" big "$BIG" >/dev/null 2>>hostile.log &
cleanup_pid $!
wait_port "$BIG" || fail_all "badserver.py big did not start"
hostile() { eval "URL=http://127.0.0.1:\$PORT_$1"; }
# utf8 FILE: every line valid UTF-8 and JSON, one record per attempted request.
utf8() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null &&
	jq -s -e '(map(select(.type == "request")) | length) as $n |
		map(select(.type == "run_end")) | length == 1 and .[0].attempted == $n' "$1" >/dev/null
}
# run MODE [ARGS]: the trace against MODE, records in r-MODE, stderr in e-MODE.
run() {
	_m=$1
	shift
	hostile "$_m" || return 1
	GP_API_KEY=$KEY gp-replay --url "$URL" --model m "$@" trace.ndjson >"r-$_m" 2>"e-$_m"
	echo $? >"rc-$_m"
}

test_expect_success 'an ISO-8859-1 error page: records stay UTF-8 (U+FFFD), http_status, exit 1' '
	run latin1; test "$(cat rc-latin1)" = 1 && utf8 r-latin1 &&
	sel ".type == \"request\"" r-latin1 | all_of ".error == \"http_status\" and
		(.error_detail | test(\"Erreur interne: d\\ufffdfaillance \\ufffd\\ufffd du serveur\"))"
'
test_expect_success 'model ids with escape sequences and the key: escaped and masked on the terminal' '
	hostile models &&
	GP_API_KEY=$KEY gp-replay --url "$URL" --model nope trace.ndjson >r-models 2>e-models
	test $? = 2 && test ! -s r-models &&
	grep -q "serves .m., .evil\\\\x1b\\[2J\\\\x1b\\]0;pwned\\\\x07\\\\x0d., .echo-\\*\\*\\*." e-models &&
	! grep -q "$KEY" e-models && ! tr -d "\n" <e-models | grep -q "[[:cntrl:]]"
'
test_expect_success 'a model list over 1 MiB: 69 naming /v1/models and --no-model-check' '
	run bigmodels; test "$(cat rc-bigmodels)" = 69 && test ! -s r-bigmodels &&
	grep -q "GET /v1/models: the body is over 1048576 bytes" e-bigmodels &&
	grep -q -- "--no-model-check" e-bigmodels
'
test_expect_success '[DONE] and the response left open: ok at [DONE], not a hang at --idle-s' '
	start=$(date +%s); run donehold; end=$(date +%s)
	test "$(cat rc-donehold)" = 0 && utf8 r-donehold && test $((end - start)) -lt 15 &&
	sel ".type == \"request\"" r-donehold | all_of ".outcome == \"ok\" and .error == null and .e2e_ms < 5000"
'
test_expect_success 'usage completion_tokens 0 with 8 content events: the count, flagged' '
	run usage0; test "$(cat rc-usage0)" = 0 && utf8 r-usage0 &&
	sel ".type == \"request\"" r-usage0 | all_of ".outcome == \"ok\" and .out_tokens == 8 and
		.tokens_from == \"chunks_usage_contradicted\" and (.tpot_ms | type) == \"number\"" &&
	sel ".type == \"run_end\"" r-usage0 | all_of ".usage_contradicted == 3" &&
	grep -q "usage.completion_tokens below their count" e-usage0 &&
	{ gp-verify validity r-usage0 >v-usage0 2>/dev/null; true; } &&
	sel ".type == \"validity\"" v-usage0 | all_of "any(.runs[0].flags[]; startswith(\"usage_contradicted: 3 responses\"))"
'
for m in plainsse nocttype; do
	test_expect_success "$m: an event stream known by its body, the Content-Type flagged" "
		run $m; test \"\$(cat rc-$m)\" = 0 && utf8 r-$m &&
		sel '.type == \"request\"' r-$m | all_of '.outcome == \"ok\" and .out_tokens == 4' &&
		sel '.type == \"run_end\"' r-$m | all_of '.sse_by_body == 3' &&
		grep -q 'event streams by their body, not their Content-Type (first: ' e-$m
	"
done
grep -q 'first: text/plain; charset=utf-8)' e-plainsse && grep -q 'first: (none))' e-nocttype ||
	say "the Content-Type named: $(grep -h 'by their body' e-plainsse e-nocttype)"
test_expect_success 'a flat {"object":"error"} mid-stream: stream_error with its message' '
	run flaterror; test "$(cat rc-flaterror)" = 1 && utf8 r-flaterror &&
	sel ".type == \"request\"" r-flaterror | all_of ".error == \"stream_error\" and
		.error_detail == \"The engine died (flat)\""
'
test_expect_success 'Content-Encoding: gzip on a stream not asked to be: named' '
	run gzip; test "$(cat rc-gzip)" = 1 && utf8 r-gzip &&
	sel ".type == \"request\"" r-gzip | all_of ".error == \"invalid_framing\" and
		(.error_detail | startswith(\"Content-Encoding: gzip on the event stream\"))"
'
test_expect_success 'an event over --max-event-bytes: the limit and the flag named' '
	gp-replay --url http://127.0.0.1:$BIG --model m --max-event-bytes 65536 trace.ndjson >r-big 2>e-big
	test $? = 1 && utf8 r-big &&
	sel ".type == \"request\"" r-big | all_of ".error == \"invalid_framing\" and
		.error_detail == \"an SSE event over 65536 bytes (--max-event-bytes)\"" &&
	grep -q "invalid_framing .*first: HTTP 200, an SSE event over 65536 bytes (--max-event-bytes)" e-big
'

# ---- gp-sim: the client's limits, the input, the output, the emulator ----
start_sim --model m --decode-ms 40 --max-batch 1000 --max-model-len 8192 || fail_all "gp-sim did not start"
SIM=http://127.0.0.1:$SIM_PORT
awk 'BEGIN { for (i = 0; i < 300; i++)
	printf "{\"type\":\"trace\",\"id\":\"c%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":20}\n", i, i * 0.001 }' >many.ndjson
test_expect_success 'ulimit -n 64 and 300 streams: client_limit, warned before the first send, discarded' '
	(ulimit -n 64 && gp-replay --url $SIM --model m --deadline-s 20 many.ndjson >r-lim 2>e-lim); rc=$?
	test $rc = 0 && utf8 r-lim &&
	head -1 e-lim | grep -q "descriptor limit (raised to its hard limit) is 64" &&
	sel ".type == \"run_end\"" r-lim | all_of ".attempted == 300 and .client_limit > 100 and
		.by_error.client_limit == .client_limit and (.by_error.connect // 0) == 0" &&
	sel ".type == \"request\" and .error == \"client_limit\"" r-lim |
		all_of ".error_detail | startswith(\"the client\")" &&
	grep -q "failed on this client.s own limit" e-lim &&
	gp-verify validity r-lim >v-lim 2>ve-lim
	sel ".type == \"validity\"" v-lim | all_of ".discarded == 1" &&
	sel ".type == \"discard\"" v-lim | all_of "any(.reasons[]; startswith(\"client_limit: \"))"
'
test_expect_success 'a prompt of 2e9 tokens: refused before the first send, file:line, no record' '
	{ head -2 trace.ndjson; echo "{\"type\":\"trace\",\"id\":\"huge\",\"t_s\":0.5,\"input_tokens\":2000000000,\"output_tokens\":4}"; } >huge.ndjson &&
	gp-replay --url $SIM --model m huge.ndjson >r-huge 2>e-huge
	test $? = 65 && test ! -s r-huge &&
	grep -q "^gp-replay: huge.ndjson:3: field .input_tokens.: 2000000000 is over the 4194304 tokens" e-huge
'
test_expect_success 'a record beyond the model context: refused before the first send with file:line' '
	{ head -1 trace.ndjson; echo "{\"type\":\"trace\",\"id\":\"long\",\"t_s\":0.5,\"input_tokens\":8000,\"output_tokens\":500}"; } >long.ndjson &&
	gp-replay --url $SIM --model m long.ndjson >r-long 2>e-long
	test $? = 65 && test ! -s r-long &&
	grep -q "^gp-replay: long.ndjson:2: fields .input_tokens. + .output_tokens.: 8500 tokens are over the context of model .m. (max_model_len 8192" e-long
'
awk 'BEGIN { for (i = 0; i < 100; i++)
	printf "{\"type\":\"trace\",\"id\":\"d%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":4}\n", i, i * 0.1 }' >slow.ndjson
test_expect_success 'SIGKILL 2.5 s into a gzip run: the file is readable to within about a second' '
	gp-replay --url $SIM --model m -o killed.ndjson.gz slow.ndjson 2>/dev/null &
	p=$!; sleep 2.5; kill -9 $p; wait $p 2>/dev/null
	n=$(gzip -dc killed.ndjson.gz 2>/dev/null | jq -c "select(.type == \"request\")" | wc -l)
	say "records readable after SIGKILL at 2.5 s: $n (sent by then: about 25)"
	gzip -dc killed.ndjson.gz 2>/dev/null | head -1 | jq -e ".type == \"run\"" >/dev/null &&
	test "$n" -ge 10
'
test_expect_success '-z -o /dev/full: 74 within about a second, naming the file, not after the run' '
	start=$(date +%s%N); gp-replay --url $SIM --model m -z -o /dev/full slow.ndjson 2>e-full; rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 )); say "exit $rc after $ms ms of a 10-s schedule"
	test $rc = 74 && test $ms -lt 4000 && grep -q "^gp-replay: /dev/full: write error: No space left on device" e-full
'
test_expect_success '>/dev/full: 74 naming stdout' '
	gp-replay --url $SIM --model m trace.ndjson >/dev/full 2>e-stdout; test $? = 74 &&
	grep -q "^gp-replay: stdout: write error: No space left on device" e-stdout
'
awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "{\"type\":\"trace\",\"id\":\"e%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":200}\n", i, i * 0.01 }' >emu.ndjson
# (The kept side of the rule, below its bound, is tests/unit/t-validity.c: on
# a loaded host gp-sim may rightly be behind in any run.)
test_expect_success 'gp-sim stopped 1.5 s mid-run: gp-verify discards it as emulator_behind, with the figure' '
	gp-replay --url $SIM --model m --scrape $SIM/metrics --idle-s 5 emu.ndjson >r-emu 2>/dev/null &
	p=$!; sleep 1; kill -STOP $SIM_PID; sleep 1.5; kill -CONT $SIM_PID; wait $p &&
	gp-verify validity r-emu >v-emu 2>ve-emu
	sel ".type == \"discard\"" v-emu | jq -r ".reasons[]" | grep "^emulator_behind" | sed "s/^/# /"
	sel ".type == \"validity\"" v-emu | all_of ".discarded == 1" &&
	sel ".type == \"discard\"" v-emu | all_of "any(.reasons[]; test(\"^emulator_behind: gp-sim wrote [0-9]+ of the run.s 8000 tokens \\\\([0-9.]+ %\\\\) more than 5 ms late \\\\(bound: 1 % and 100 tokens\\\\)\"))"
'
test_done
