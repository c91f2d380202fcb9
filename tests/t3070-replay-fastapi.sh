#!/bin/sh
# gp-replay against a server it did not write: a vLLM-shaped fixture on
# FastAPI + pydantic + uvicorn (Debian's packages; tests/fixtures/vllm-shaped.py,
# request models after vLLM's ChatCompletionRequest/CompletionRequest), so
# FastAPI's own validation judges every request gp-replay sends.
# Before the fix, gp-replay's body went out as libcurl's default
# application/x-www-form-urlencoded and this server answered 422 to all.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" || skip_all "gp-replay not built"
PY=/usr/bin/python3
FX=$GP_TOP/tests/fixtures/vllm-shaped.py
$PY -c 'import fastapi, uvicorn' 2>/dev/null || skip_all "no python3-fastapi/python3-uvicorn (share/packages)"

# Timing bounds are on medians, a few ms above the configured times (the
# fixture is Python: on a loaded 2-core host it is itself late by some ms),
# never below them: a client that stamped too early would fail.
# fixture NAME ARGS...: start one, its port in $FXP_NAME.
fixture() {
	_fx=$1; shift
	_p=$(free_port_range 1) || return 1
	$PY "$FX" --port "$_p" --model m "$@" 2>"fx-$_fx.log" &
	cleanup_pid $!
	wait_port "$_p" || { cat "fx-$_fx.log"; return 1; }
	eval "FXP_$_fx=$_p"
}
fixture plain --ttft-ms 60 --tpot-ms 12 || exit 1
fixture strict --ttft-ms 5 --tpot-ms 1 --strict || exit 1
fixture multi --ttft-ms 40 --tpot-ms 10 --tokens-per-chunk 3 || exit 1
say "third-party stack: $(head -n 1 fx-plain.log)"

awk 'BEGIN { for (i = 0; i < 10; i++)
	printf "{\"type\":\"trace\",\"id\":\"v%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":%d}\n", i, i * 0.1, 9 + i % 3 }' >trace.ndjson
med() { jq -s "map(select(.type == \"request\" and .outcome == \"ok\") | .$1) | sort | .[length / 2 | floor]" "$2"; }

test_expect_success 'chat: FastAPI accepts every request (no 422): all ok, out_tokens from usage' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model m trace.ndjson >run.ndjson 2>err &&
	{ sel ".type == \"run_end\"" run.ndjson | jq -e ".attempted == 10 and .ok == 10 and .by_error == {}" ||
		{ cat err; false; }; } &&
	sel ".type == \"request\"" run.ndjson | jq -se "all(.http_status == 200 and .tokens_from == \"usage\") and
		(map(.out_tokens) == [9,10,11,9,10,11,9,10,11,9])"
'
test_expect_success 'TTFT and TPOT within a few ms of the configured 60 ms and 12 ms' '
	ttft=$(med ttft_ms run.ndjson) && tpot=$(med tpot_ms run.ndjson) &&
	echo "median TTFT $ttft ms, TPOT $tpot ms" >&2 &&
	awk -v t="$ttft" -v p="$tpot" "BEGIN { exit !(t > 59 && t < 75 && p > 11 && p < 14.5) }"
'
test_expect_success 'completions API: all ok too' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model m --api completions --max-requests 3 trace.ndjson >c.ndjson &&
	sel ".type == \"run_end\"" c.ndjson | jq -e ".ok == 3"
'
test_expect_success '--max-completion-tokens: the limit under its newer name is honoured' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model m --max-completion-tokens --max-requests 2 trace.ndjson >mct.ndjson &&
	sel ".type == \"request\"" mct.ndjson | jq -se "map(.out_tokens) == [9,10]"
'
test_expect_success 'the old bug: a form content type gets 422 from FastAPI, and gp-replay says so' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model m --max-requests 2 \
		-H "Content-Type: application/x-www-form-urlencoded" trace.ndjson >form.ndjson 2>ferr; test $? = 1 &&
	sel ".type == \"request\"" form.ndjson | jq -se "all(.error == \"http_status\" and .http_status == 422 and
		.error_detail == \"body: value is not a valid dict\")" &&
	grep -q "first: HTTP 422, body: value is not a valid dict" ferr
'
test_expect_success 'a strict server (extra fields forbidden) refuses vLLM extras: 422 naming the field' '
	gp-replay --url http://127.0.0.1:$FXP_strict --model m --max-requests 1 trace.ndjson >st.ndjson 2>/dev/null; test $? = 1 &&
	sel ".type == \"request\"" st.ndjson | jq -e ".http_status == 422 and (.error_detail | test(\"^body.(min_tokens|ignore_eos): extra fields not permitted\"))"
'
test_expect_success '... and --no-ignore-eos is the switch that makes it pass' '
	gp-replay --url http://127.0.0.1:$FXP_strict --model m --no-ignore-eos --max-requests 3 trace.ndjson >st2.ndjson &&
	sel ".type == \"run_end\"" st2.ndjson | jq -e ".ok + .single_token == 3"
'
test_expect_success 'a wrong model with --no-model-check: http_status 404 with the server message' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model llama --no-model-check --max-requests 2 trace.ndjson >w.ndjson 2>/dev/null; test $? = 1 &&
	sel ".type == \"request\"" w.ndjson | jq -se "length == 2 and all(.error == \"http_status\" and .http_status == 404 and
		.error_detail == \"The model \`llama\` does not exist.\")"
'
test_expect_success 'a wrong model without it: exit 2 before any request' '
	gp-replay --url http://127.0.0.1:$FXP_plain --model llama trace.ndjson >w2.ndjson 2>w2err; test $? = 2 &&
	test ! -s w2.ndjson && grep -q "serves '"'"'m'"'"'" w2err
'
# 3 tokens per chunk: chunks undercount, usage does not, and TPOT stays the
# server's per-token time because it divides by tokens, not chunks.
test_expect_success 'chunks of 3 tokens: out_tokens from usage, TPOT the per-token 10 ms' '
	gp-replay --url http://127.0.0.1:$FXP_multi --model m trace.ndjson >m.ndjson &&
	sel ".type == \"request\"" m.ndjson | jq -se "all(.outcome == \"ok\" and .tokens_from == \"usage\") and
		(map(.out_tokens) == [9,10,11,9,10,11,9,10,11,9])" &&
	tpot=$(med tpot_ms m.ndjson) && ttft=$(med ttft_ms m.ndjson) &&
	echo "3 tokens/chunk: median TTFT $ttft ms (want 40: the first token alone), TPOT $tpot ms (want 10)" >&2 &&
	awk -v p="$tpot" -v t="$ttft" "BEGIN { exit !(p > 9 && p < 12.5 && t > 39 && t < 55) }"
'
test_done
