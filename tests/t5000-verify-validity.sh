#!/bin/sh
# gp-verify validity: every discard rule, "not checked", --strict, exit codes,
# bad input.  Inputs: tests/data/verify/runs.ndjson (see make-fixtures.py),
# tampered with jq one rule at a time.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
R=$D/runs.ndjson

# tamper JQ-EXPR: runs.ndjson with every record passed through the jq expression
tamper() { jq -c "$1" "$R"; }
# discards FILE: "arm rep reasons..." per discard record
discards() { jq -r 'select(.type=="discard") | "\(.arm) \(.rep) \(.reasons|join("|"))"' "$1"; }
rule() { jq -r --arg r "$2" 'select(.type=="validity") | .rules[] | select(.rule==$r) | "\(.status) \(.discarded) \(.not_checked_runs)"' "$1"; }

test_expect_success 'honest runs: all kept, every record passes through, validity last' '
	gp-verify validity "$R" >out 2>err &&
	test $(wc -l <out) = $(( $(wc -l <"$R") + 1 )) &&
	tail -n 1 out | jq -e ".type==\"validity\" and .kept==10 and .discarded==0 and .strict==false" &&
	head -n -1 out | cmp - "$R" &&
	test "$(jq -r "select(.type==\"validity\") | [.rules[].status] | unique | join(\",\")" out)" = checked &&
	! test -s err
'

test_expect_success 'reads stdin and gzip; the same run split in two shards stays one run' '
	head -n 200 "$R" >a.ndjson && tail -n +201 "$R" | gzip >b.ndjson.gz &&
	gp-verify validity a.ndjson b.ndjson.gz >out &&
	tail -n 1 out | jq -e ".kept==10" &&
	gzip -c "$R" | gp-verify validity >out2 && cmp out out2
'

test_expect_success 'invalid framing in the trailer count discards the run' '
	tamper "if .type==\"run_end\" and .run==\"rr-r2\" then .invalid_framing=2 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 2 invalid_framing: 2 requests" &&
	test "$(rule out invalid_framing)" = "checked 1 0" &&
	test $(jq -c "select(.run==\"rr-r2\" and .type!=\"discard\")" out | wc -l) = 0 &&
	tail -n 1 out | jq -e ".kept==9 and .discarded==1"
'

test_expect_success 'an invalid_framing request error discards even without a trailer count' '
	tamper "if .type==\"request\" and .id==\"cache-r3-5\" then .outcome=\"failed\" | .error=\"invalid_framing\" else . end
		| if .type==\"run_end\" then del(.invalid_framing, .by_error) else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "cache 3 invalid_framing: 1 request" &&
	test "$(rule out invalid_framing)" = "not_checked 1 10"
'

test_expect_success 'a trailer by_error without invalid_framing counts as zero (checked)' '
	tamper "if .type==\"run_end\" then del(.invalid_framing) else . end" >in &&
	gp-verify validity in >out &&
	test "$(rule out invalid_framing)" = "checked 0 0" &&
	tamper "if .type==\"run_end\" and .run==\"rr-r4\" then del(.invalid_framing) | .by_error.invalid_framing=1 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 4 invalid_framing: 1 request"
'

test_expect_success 'a hang discards the run' '
	tamper "if .type==\"request\" and .id==\"rr-r1-7\" then .outcome=\"failed\" | .error=\"hang\" else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 1 hang: 1 request"
'

test_expect_success 'a truncation (request or trailer by_error) discards the run' '
	tamper "if .type==\"run_end\" and .run==\"cache-r5\" then .by_error.truncated=3 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "cache 5 truncated: 3 requests" &&
	test "$(rule out hang_truncated)" = "checked 1 0"
'

test_expect_success 'a backend timeout (504, 408, or a timeout message) discards the run' '
	tamper "if .type==\"request\" and .id==\"rr-r4-0\" then .outcome=\"failed\" | .error=\"http_status\" | .http_status=504 else . end
		| if .type==\"request\" and .id==\"rr-r5-1\" then .outcome=\"failed\" | .error=\"http_status\" | .http_status=408 else . end
		| if .type==\"request\" and .id==\"cache-r1-2\" then .outcome=\"failed\" | .error=\"stream_error\" | .error_detail=\"Prefill Timed Out\" else . end" >in &&
	gp-verify validity in >out &&
	discards out >got &&
	printf "%s\n" "rr 4 backend_timeout: 1 request (first: http 504)" \
		"rr 5 backend_timeout: 1 request (first: http 408)" \
		"cache 1 backend_timeout: 1 request (first: stream_error: Prefill Timed Out)" >want &&
	diff want got
'

test_expect_success 'the client deadline (error timeout) is not a backend timeout' '
	tamper "if .type==\"request\" and .id==\"rr-r4-0\" then .outcome=\"failed\" | .error=\"timeout\" | .error_detail=\"deadline timed out\" else . end" >in &&
	gp-verify validity in >out &&
	test -z "$(discards out)"
'

# Health rounds: the fixture has one 5 s before every run and one after the
# last.  Run k (1..10) spans T0+60k .. T0+60k+50 s; T0 = 2025-01-01T00:00:00Z.
# The window of run k is W s either side (--window-s, default 60): a round
# that ended at most W s before its start and one that began at most W s
# after its end cover it; a failed check anywhere inside discards it.
round() { # at-seconds-after-T0 vip-ok backend-ok
	t=$(date -u -d "@$((1735689600 + $1))" +%Y-%m-%dT%H:%M:%SZ)
	printf "{\"type\":\"health\",\"check\":\"vip_chat\",\"target\":\"http://127.0.0.1:8080\",\"ok\":%s,\"at\":\"%s\"}\n" "$2" "$t"
	printf "{\"type\":\"health\",\"check\":\"backend_models\",\"target\":\"http://127.0.0.1:9001\",\"ok\":%s,\"at\":\"%s\"}\n" "$3" "$t"
	printf "{\"type\":\"health_summary\",\"ready\":false,\"at\":\"%s\"}\n" "$t"
}

test_expect_success 'a VIP failing 200 in a round during a run discards that run only (W 10 s)' '
	{ cat "$R"; round 190 false true; } >in &&
	gp-verify validity --window-s 10 in >out &&
	test "$(discards out)" = "rr 3 vip_200: vip_chat check of http://127.0.0.1:8080 failed at 2025-01-01T00:03:10Z" &&
	test "$(rule out vip_200)" = "checked 1 0"
'

test_expect_success 'a failing round between two runs brackets both of them' '
	{ jq -c "select(.at==null or (.at|startswith(\"2025-01-01T00:02:55\")|not))" "$R"; round 175 false true; } >in &&
	gp-verify validity in >out &&
	test "$(discards out | cut -d" " -f1-3)" = "$(printf "rr 2 vip_200:\nrr 3 vip_200:")"
'

test_expect_success 'a failing round outside the bracketing rounds does not discard' '
	{ cat "$R"; round -3600 false false; round 9999 false false; } >in &&
	gp-verify validity in >out &&
	test -z "$(discards out)"
'

test_expect_success 'a failed backend health check in the window discards the run' '
	{ cat "$R"; round 600 true false; } >in &&
	gp-verify validity --window-s 5 in >out &&
	test "$(discards out)" = "cache 5 backend_health: backend_models check of http://127.0.0.1:9001 failed at 2025-01-01T00:10:00Z"
'

test_expect_success 'zero usable paired samples discards the run' '
	tamper "if .type==\"request\" and .run==\"cache-r2\" and .outcome==\"ok\" then .tpot_ms=null | .outcome=\"single_token\" else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "cache 2 zero_paired: no ok request with both ttft_ms and tpot_ms (40 attempted)"
'

test_expect_success 'a trailer without requests is a run with zero paired samples' '
	printf "%s\n" "{\"type\":\"run_end\",\"run\":\"x\",\"arm\":\"x\",\"rep\":1,\"rate_rps\":2,\"attempted\":0,\"invalid_framing\":0}" >in &&
	cat "$R" >>in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "x 1 zero_paired: no ok request with both ttft_ms and tpot_ms (0 attempted)"
'

test_expect_success 'metrics records of a discarded run are dropped, health passes through' '
	tamper "if .type==\"request\" and .id==\"rr-r1-7\" then .outcome=\"failed\" | .error=\"hang\" else . end" >in &&
	gp-verify validity in >out &&
	test $(jq -c "select(.type==\"metrics\" and .run==\"rr-r1\")" out | wc -l) = 0 &&
	test $(jq -c "select(.type==\"metrics\" and .run==\"rr-r2\")" out | wc -l) = 4 &&
	test $(jq -c "select(.type==\"health\")" out | wc -l) = $(jq -c "select(.type==\"health\")" in | wc -l)
'

test_expect_success 'without health records the health rules are "not checked" and nothing is discarded' '
	jq -c "select(.type!=\"health\" and .type!=\"health_summary\")" "$R" >in &&
	gp-verify validity in >out &&
	test "$(rule out vip_200)" = "not_checked 0 10" &&
	test "$(rule out backend_health)" = "not_checked 0 10" &&
	tail -n 1 out | jq -e ".kept==10 and (.runs[0].not_checked==[\"vip_200\",\"backend_health\",\"kv_events\"])"
'

test_expect_code 1 '--strict discards what could not be checked (all runs: exit 1)' '
	jq -c "select(.type!=\"health\" and .type!=\"health_summary\")" "$R" >in &&
	gp-verify validity --strict in >out;
	rc=$?;
	tail -n 1 out | jq -e ".kept==0 and .discarded==10 and .strict==true" >/dev/null &&
	test "$(discards out | head -n 1)" = "rr 1 not_checked: vip_200|not_checked: backend_health|not_checked: kv_events" || exit 9
	exit $rc
'

test_expect_success '--strict with every rule checked keeps every run' '
	gp-verify validity --strict "$R" >out &&
	tail -n 1 out | jq -e ".kept==10 and .strict==true"
'

test_expect_code 1 'every run discarded: exit 1, records still written' '
	tamper "if .type==\"run_end\" then .invalid_framing=1 else . end" >in &&
	gp-verify validity in >out 2>err;
	rc=$?; grep -q "every run was discarded" err && test $(jq -c "select(.type==\"discard\")" out | wc -l) = 10 &&
	exit $rc
'

test_expect_code 1 'no runs at all: exit 1 with an empty validity record' '
	: | gp-verify validity >out 2>err;
	rc=$?; jq -e ".type==\"validity\" and .kept==0 and .discarded==0" out >/dev/null && exit $rc
'

test_expect_success 'an older validity record in the input is replaced, not repeated' '
	gp-verify validity "$R" | gp-verify validity >out &&
	test $(jq -c "select(.type==\"validity\")" out | wc -l) = 1
'

# The client's rules: the client, not the server, shaped these runs.
# At 4 req/s the mean gap is 250 ms: lateness p99 over 125 ms or a maximum over
# 250 ms is material; below that the run is kept and flagged.
test_expect_success 'a client that fell behind its schedule discards the run, with its lateness' '
	tamper "if .type==\"run_end\" and .run==\"rr-r2\" then .client_behind=true | .lateness_p99_ms=130 | .lateness_max_ms=140
		elif .type==\"run_end\" and .run==\"rr-r3\" then .client_behind=true | .lateness_p99_ms=3.5 | .lateness_max_ms=40 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 2 client_behind: the client did not hold its schedule (send lateness p99 130 ms, max 140 ms; mean gap 250 ms)" &&
	test "$(rule out client_behind)" = "checked 1 0" &&
	tail -n 1 out | jq -e "(.runs[] | select(.run==\"rr-r3\") | .verdict == \"kept\" and (.flags[0] | test(\"within the tolerance\")))"
'
test_expect_success 'capped sends and an interrupted run discard the run' '
	tamper "if .type==\"run_end\" and .run==\"cache-r1\" then .capped_sends=7 elif .type==\"run_end\" and .run==\"cache-r5\" then .interrupted=true else . end" >in &&
	gp-verify validity in >out &&
	discards out | grep -qx "cache 1 capped_sends: 7 sends held back by --max-inflight" &&
	discards out | grep -qx "cache 5 interrupted: a signal stopped the run; its rep is incomplete" &&
	tail -n 1 out | jq -e ".kept==8 and .discarded==2"
'
test_expect_success 'an achieved rate off its label: flagged beyond 5 %, discarded beyond 10 %' '
	tamper "if .type==\"run_end\" and .run==\"rr-r3\" then .achieved_rps=4.3 elif .type==\"run_end\" and .run==\"rr-r4\" then .achieved_rps=4.72 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 4 achieved_rate: 4.72 req/s against the label 4 (+18.0 %, bound 10.0 %)" &&
	tail -n 1 out | jq -e "(.runs[] | select(.run==\"rr-r3\") | .verdict == \"kept\" and (.flags[0] | test(\"achieved_rate: 4.3 req/s .*over the 5 % flag\")))" &&
	tail -n 1 out | jq -e "(.runs[] | select(.run==\"rr-r1\") | .flags == [])"
'
test_expect_success 'a Poisson schedule widens the discard bound by 3/sqrt(n - 1)' '
	tamper "if .type==\"run\" and .run==\"rr-r4\" then .schedule=\"poisson\" elif .type==\"run_end\" and .run==\"rr-r4\" then .achieved_rps=4.72 else . end" >in &&
	gp-verify validity in >out &&
	test -z "$(discards out)" &&
	tail -n 1 out | jq -e "(.runs[] | select(.run==\"rr-r4\") | .flags | length) == 1"
'
test_expect_success 'without the client fields the client rules are not checked, nothing discarded' '
	tamper "if .type==\"run_end\" then del(.client_behind, .capped_sends, .interrupted, .achieved_rps) else . end" >in &&
	gp-verify validity in >out &&
	test "$(rule out client_behind)" = "not_checked 0 10" && test "$(rule out achieved_rate)" = "not_checked 0 10" &&
	tail -n 1 out | jq -e ".kept==10"
'
# The contract keys a run_end by run; arm, rate_rps and rep come from the header.
test_expect_success 'a run_end keyed by run alone is accepted and judged with its run' '
	tamper "if .type==\"run_end\" then del(.arm, .rate_rps, .rep) else . end
		| if .type==\"run_end\" and .run==\"rr-r2\" then .invalid_framing=1 else . end" >in &&
	gp-verify validity in >out &&
	test "$(discards out)" = "rr 2 invalid_framing: 1 request" &&
	test $(jq -c "select(.type==\"run_end\")" out | wc -l) = 9 &&
	tail -n 1 out | jq -e ".kept==9"
'
test_expect_code 65 'a run_end keyed by an unknown run is bad input naming file:line' '
	{ cat "$R"; echo "{\"type\":\"run_end\",\"run\":\"nosuch\",\"attempted\":3}"; } >in &&
	gp-verify validity in >/dev/null 2>err;
	rc=$?; grep -q "in:$(( $(wc -l <"$R") + 1 )): field .arm. is missing and run .nosuch. has no run header" err && exit $rc
'

# bad input: exit 65, message file:line: field
bad() { # expected-message jq-expression-on-line-N N
	jq -c "$2" "$R" >bad.ndjson
	gp-verify validity bad.ndjson >/dev/null 2>err
	rc=$?
	test $rc = 65 && grep -qx "gp-verify: bad.ndjson:$3: $1" err || { cat err; echo "rc=$rc"; return 1; }
}
test_expect_success 'bad input: a missing arm names file:line:field (65)' '
	bad "field '"'"'arm'"'"' is missing" "if .id==\"rr-r1-0\" then del(.arm) else . end" 11
'
test_expect_success 'bad input: rep not an integer (65)' '
	bad "field '"'"'rep'"'"' is not an integer" "if .id==\"rr-r1-1\" then .rep=\"x\" else . end" 12
'
test_expect_success 'bad input: unknown outcome (65)' '
	bad "field '"'"'outcome'"'"' is '"'"'great'"'"', not ok, single_token or failed" "if .id==\"rr-r1-1\" then .outcome=\"great\" else . end" 12
'
test_expect_success 'bad input: ttft_ms not a number (65)' '
	bad "field '"'"'ttft_ms'"'"' is not a number" "if .id==\"rr-r1-2\" then .ttft_ms=\"fast\" else . end" 13
'
test_expect_success 'bad input: a health time that is not RFC 3339 (65)' '
	bad "field '"'"'at'"'"' is not an RFC 3339 time" "if .type==\"health\" and .check==\"vip_chat\" then .at=\"yesterday\" else . end" 3
'
test_expect_success 'bad input: a vip_chat check without ok (65); other checks need none' '
	bad "field '"'"'ok'"'"' is missing" "if .type==\"health\" and .check==\"vip_chat\" then del(.ok) else . end" 3 &&
	jq -c "if .type==\"health\" and .check==\"backend_models\" then .check=\"metrics\" | del(.ok) else . end" "$R" >k.ndjson &&
	gp-verify validity k.ndjson >out &&
	test "$(rule out backend_health)" = "not_checked 0 10"
'
test_expect_success 'bad input: a record without type, a line that is not JSON (65)' '
	printf "{\"a\":1}\n" >nt.ndjson && ! gp-verify validity nt.ndjson 2>err && grep -qx "gp-verify: nt.ndjson:1: field '"'"'type'"'"' is missing" err &&
	printf "{\"type\":\"x\"}\n{oops\n" >nj.ndjson; gp-verify validity nj.ndjson >/dev/null 2>err; test $? = 65 &&
	grep -q "^gp-verify: nj.ndjson:2: not valid JSON" err
'
test_done
