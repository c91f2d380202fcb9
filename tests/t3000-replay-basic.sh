#!/bin/sh
# gp-replay: command line, bad input (exit 65 with file:line), the record
# contract of a normal run against gp-sim (one request record per trace
# record, run header and trailer), both APIs, stdin and gzip output.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

# A small trace: 40 records over ~1 s, one of them asking for a single token.
awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "{\"type\":\"trace\",\"id\":\"q%d\",\"t_s\":%.4f,\"input_tokens\":%d,\"output_tokens\":%d,\"cache_key\":\"k%d\",\"hash_ids\":[%d,%d]}\n",
		i, i * 0.025, 20 + i, (i == 7 ? 1 : 4 + i % 5), i % 3, i % 3, i }' >trace.ndjson

test_expect_code 2 'no --url: usage error' 'gp-replay --model m trace.ndjson'
test_expect_code 2 'no --model: usage error' 'gp-replay --url http://127.0.0.1:1 trace.ndjson'
test_expect_code 2 'bad --api' 'gp-replay --url http://127.0.0.1:1 --model m --api foo trace.ndjson'
test_expect_code 2 'bad --shard' 'gp-replay --url http://127.0.0.1:1 --model m --shard 4/3 trace.ndjson'
test_expect_code 2 '--rate-rps and --poisson-rps exclude each other' \
	'gp-replay --url http://127.0.0.1:1 --model m --rate-rps 1 --poisson-rps 1 trace.ndjson'
test_expect_success 'credentials in the URL: refused, never echoed' '
	gp-replay --url http://user:hunter2pw@127.0.0.1:1 --model m trace.ndjson >out 2>err
	test $? = 2 && grep -q "credentials" err && ! grep -q hunter2pw err out
'
test_expect_code 2 'a URL with a path is refused' 'gp-replay --url http://127.0.0.1:1/v1 --model m trace.ndjson'

printf '%s\n' '{"type":"trace","id":"a","t_s":0,"input_tokens":5,"output_tokens":2}' \
	'{"type":"trace","id":"b","t_s":0.1,"output_tokens":2}' >bad1.ndjson
test_expect_success 'a record without input_tokens: exit 65 naming file:line:field' '
	gp-replay --url http://127.0.0.1:1 --model m bad1.ndjson >out 2>err
	test $? = 65 && grep -q "bad1.ndjson:2:.*input_tokens" err && test ! -s out
'
printf '%s\n' '{"type":"trace","id":"a","t_s":1,"input_tokens":5,"output_tokens":2}' \
	'{"type":"trace","id":"b","t_s":0.5,"input_tokens":5,"output_tokens":2}' >bad2.ndjson
test_expect_success 'time going backwards: exit 65 with the line' '
	gp-replay --url http://127.0.0.1:1 --model m bad2.ndjson >out 2>err
	test $? = 65 && grep -q "bad2.ndjson:2:.*t_s" err
'
test_expect_success 'not JSON on stdin: exit 65 naming - and the line' '
	printf "{\"type\":\"trace\",\"id\":\"a\",\"t_s\":0,\"input_tokens\":5,\"output_tokens\":2}\nnot json\n" |
	gp-replay --url http://127.0.0.1:1 --model m >out 2>err
	test $? = 65 && grep -q -- "-:2:" err
'

start_sim --model m --truth truth.ndjson --decode-ms 2 --receipt-header X-Receipt || exit 1
URL=http://127.0.0.1:$SIM_PORT

# jq 1.6's -e looks at the last input only; select first, then test.

test_expect_success 'a normal run: exit 0, header + one record per trace record + trailer' '
	gp-replay --url $URL --model m --arm base --rep 3 --receipt-header X-Receipt trace.ndjson >run.ndjson 2>err &&
	test "$(head -1 run.ndjson | jq -r .type)" = run &&
	test "$(tail -1 run.ndjson | jq -r .type)" = run_end &&
	test "$(sel ".type == \"request\"" run.ndjson | wc -l)" = 40 &&
	sel ".type == \"run_end\"" run.ndjson |
	all_of ".attempted == 40 and .ok == 39 and .single_token == 1 and .failed == 0 and .interrupted == false"
'
test_expect_success 'keep-alive: connections are reused, never one per request' '
	sel ".type == \"run_end\"" run.ndjson | all_of ".new_connections <= .peak_inflight and
		.new_connections < 20" &&
	sel ".type == \"request\" and .new_connection == false" run.ndjson | jq -s -e "length >= 20" >/dev/null &&
	test "$(sel ".type == \"request\" and .new_connection" run.ndjson | wc -l)" = \
	     "$(sel ".type == \"run_end\"" run.ndjson | jq .new_connections)"
'
test_expect_success 'request ids are the trace ids, in a one-to-one mapping' '
	sel ".type == \"request\"" run.ndjson | jq -r .id | sort >got &&
	jq -r .id trace.ndjson | sort >want && cmp got want
'
check_fields() {
	sel '.type == "request"' run.ndjson | all_of 'has("run") and has("arm") and has("rep") and
		has("rate_rps") and has("id") and has("t_sched_s") and has("t_sent_s") and has("ttft_ms") and
		has("tpot_ms") and has("e2e_ms") and has("in_tokens") and has("out_tokens") and
		has("tokens_from") and has("outcome") and has("error") and has("http_status") and
		has("backend") and has("receipt") and has("prefill") and has("decode") and
		has("connect_ms") and has("new_connection")'
}
test_expect_success 'every request record carries the doc/records.md fields' 'check_fields'
check_q3() {
	sel '.type == "request" and .id == "q3"' run.ndjson | all_of '.arm == "base" and .rep == 3 and
		.outcome == "ok" and .out_tokens == 7 and .in_tokens == 23 and .tokens_from == "usage" and
		.http_status == 200 and ((.tpot_ms - (.e2e_ms - .ttft_ms) / 6) | fabs) < 0.001 and
		.t_sent_s >= .t_sched_s and .ttft_ms > 0 and .e2e_ms > .ttft_ms'
}
test_expect_success 'labels, outcome, tokens from usage, TPOT formula' 'check_q3'
test_expect_success 'a one-token answer is single_token with no TPOT' '
	sel ".type == \"request\" and .id == \"q7\"" run.ndjson |
	all_of ".outcome == \"single_token\" and .tpot_ms == null and .ttft_ms > 0 and .out_tokens == 1"
'
check_header() {
	sel '.type == "run"' run.ndjson | all_of '.arm == "base" and .rep == 3 and .schedule == "asis" and
		.api == "chat" and .model == "m" and (.trace_digest | startswith("fnv1a64:")) and
		.trace_records == 40 and ((.rate_rps - 39 / 0.975) | fabs) < 1e-6 and
		(.started_at | test("Z$")) and .url == "'"$URL"'"'
}
test_expect_success 'the run header names the config; rate_rps is the trace mean as is' 'check_header'
check_receipt() {
	sel '.type == "request" and .id == "q0"' run.ndjson | all_of '(.receipt | startswith("prefill=")) and
		.prefill == "127.0.0.1:'"$SIM_PORT"'" and .decode == "127.0.0.1:'"$SIM_PORT"'"'
}
test_expect_success 'the receipt header is kept and split into prefill and decode' 'check_receipt'
test_expect_success 'the server saw our X-Request-Id for every record' '
	jq -r .id truth.ndjson | sort >seen && cmp seen want
'
test_expect_success 'prompts are synthesized to input_tokens words' '
	sel ".id == \"q5\"" truth.ndjson | all_of ".in_tokens == 25"
'
test_expect_success 'completions API, trace on a pipe, gzip output' '
	cat trace.ndjson | gp-replay --url $URL --model m --api completions -o run2.ndjson.gz 2>err &&
	gzip -dc run2.ndjson.gz >run2.ndjson &&
	sel ".type == \"run_end\"" run2.ndjson | all_of ".attempted == 40 and .failed == 0" &&
	sel ".type == \"run\"" run2.ndjson | all_of ".api == \"completions\""
'
test_expect_success 'same trace, same digest (pipe or file)' '
	test "$(sel ".type == \"run\"" run.ndjson | jq -r .trace_digest)" = \
	     "$(sel ".type == \"run\"" run2.ndjson | jq -r .trace_digest)"
'
test_expect_success '--itl keeps out_tokens - 1 gaps' '
	gp-replay --url $URL --model m --itl --max-requests 5 trace.ndjson >itl.ndjson &&
	sel ".type == \"request\"" itl.ndjson | all_of "(.itl_ms | length) == .out_tokens - 1 and all(.itl_ms[]; . >= 0)"
'
test_expect_success '--scrape: metrics snapshots before the first send and after the last' '
	gp-replay --url $URL --model m --max-requests 4 --scrape $URL/metrics trace.ndjson >scr.ndjson &&
	test "$(sel ".type == \"metrics\"" scr.ndjson | wc -l)" = 2 &&
	sel ".type == \"metrics\" and .phase == \"before\"" scr.ndjson | all_of ".t_s <= 0 and .target == \"$URL/metrics\" and (.samples | length) > 0 and (.at | test(\"Z$\"))" &&
	sel ".type == \"metrics\" and .phase == \"after\"" scr.ndjson | all_of ".t_s > 0 and (.samples | length) > 0" &&
	test "$(sel ".type == \"request\"" scr.ndjson | wc -l)" = 4
'
test_expect_success 'metrics records keep doc/records.md key order, a failed scrape too' '
	k=$(doc_keys metrics) &&
	sel ".type == \"metrics\"" scr.ndjson | jq -r "keys_unsorted | join(\",\")" >keys &&
	printf "%s\n" "$k" "$k" | diff - keys &&
	gp-replay --url $URL --model m --max-requests 1 --scrape http://127.0.0.1:1/metrics trace.ndjson >scf.ndjson 2>/dev/null &&
	sel ".type == \"metrics\"" scf.ndjson | jq -r "keys_unsorted | join(\",\")" >keysf &&
	printf "%s\n" "$k,error" "$k,error" | diff - keysf
'
test_done
