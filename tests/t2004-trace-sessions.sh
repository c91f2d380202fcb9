#!/bin/sh
# gp-trace and sessions: synth --sessions writes sessions whose turns come in
# order with their think times, the same bytes for the same seed; stats counts
# sessions and refuses a trace whose turns skip or repeat; from-burstgpt
# --sessions on turns BurstGPT_3's Session IDs into sessions, think_s from
# Timestamp and Elapsed time (checked by hand on the real rows).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip_all "jq missing"
BG3=$GP_TOP/tests/data/traces/burstgpt/BurstGPT_3_first400.csv
BG1=$GP_TOP/tests/data/traces/burstgpt/BurstGPT_1_first400.csv

test_expect_success 'synth --sessions 50 --turns uniform:1:5: every session 1..n in order, think_s from the law' '
	gp-trace synth --sessions 50 --turns uniform:1:5 --think-s uniform:1:2 --rate-rps 5 \
		--input-tokens 30 --first-input-tokens 300 --block-tokens 16 --keys 4 --prefix-tokens 32 >s.ndjson &&
	jq -s -e "map(.session) | unique | length == 50" s.ndjson &&
	jq -s -e "group_by(.session) | all((map(.turn) == [range(1; length + 1)]) and length <= 5)" s.ndjson &&
	jq -s -e "map(select(.turn == 1)) | all(.think_s == 0 and .input_tokens == 300 and .cache_key != null)" s.ndjson &&
	jq -s -e "map(select(.turn > 1)) | length > 50 and all(.think_s >= 1 and .think_s <= 2 and .input_tokens == 30)" s.ndjson &&
	jq -s -e "[.[].t_s] | . == sort" s.ndjson &&
	jq -s -e "group_by(.session) | all(sort_by(.turn) | [range(1; length) as \$i | (.[\$i].t_s - .[\$i - 1].t_s - .[\$i].think_s) | fabs < 0.000002] | all)" s.ndjson
'
test_expect_success 'the same seed writes the same bytes; another seed does not' '
	gp-trace synth --sessions 50 --turns uniform:1:5 --think-s uniform:1:2 --rate-rps 5 \
		--input-tokens 30 --first-input-tokens 300 --block-tokens 16 --keys 4 --prefix-tokens 32 >s2.ndjson &&
	cmp s.ndjson s2.ndjson &&
	gp-trace synth --sessions 50 --turns uniform:1:5 --seed 2 >s3.ndjson && ! cmp -s s.ndjson s3.ndjson
'
test_expect_success 'stats counts sessions' '
	gp-trace stats s.ndjson >st &&
	n=$(wc -l <s.ndjson) && m=$(jq -s "group_by(.session) | map(length) | max" s.ndjson) &&
	jq -e ".sessions == 50 and .session_turns == $n and .session_turns_max == $m and .requests == $n" st
'
test_expect_code 65 'stats refuses a session with a missing turn, naming the line' '
	c=$(jq -r "select(.turn == 3) | .session" s.ndjson | head -1) &&
	jq -c --arg c "$c" "select(.id != \"\(\$c)-2\")" s.ndjson >gap.ndjson &&
	gp-trace stats gap.ndjson 2>err; rc=$?; grep -q "gap.ndjson:[0-9]*: field .turn. is 3 but session .$c. is at turn 1: a turn is missing" err && exit $rc
'
test_expect_code 65 'stats refuses a session that starts again at turn 1' '
	{ cat s.ndjson; jq -c "select(.id == \"c0-1\") | .id = \"again\" | .t_s = 1e6" s.ndjson; } >again.ndjson &&
	gp-trace stats again.ndjson 2>err; rc=$?; grep -q "a session id names one session" err && exit $rc
'
test_expect_code 2 '--turns without --sessions is a usage error' 'gp-trace synth --turns 3'
test_expect_code 2 '--sessions and --requests exclude each other' 'gp-trace synth --sessions 3 --requests 4'
test_expect_code 2 'a think-time law that is not one' 'gp-trace synth --sessions 3 --think-s exp:-1'

test_expect_success 'from-burstgpt --sessions on: BurstGPT_3 Session IDs become sessions' '
	gp-trace from-burstgpt --sessions on "$BG3" >bg.ndjson 2>err &&
	gp-trace stats bg.ndjson | jq -e ".requests == 399 and .sessions == 134 and .session_turns == 393 and .session_turns_max == 24" &&
	jq -s -e "map(select(.session == null)) | length == 6 and all(.cache_key == null)" bg.ndjson &&
	jq -s -e "map(select(.session != null)) | all(.cache_key == .session)" bg.ndjson
'
test_expect_success '... think_s = Timestamp - (previous Timestamp + Elapsed time), at least 0 (by hand from the CSV)' '
	s=$(jq -r "select(.turn == 2) | .session" bg.ndjson | head -1) &&
	awk -F, -v s="$s" "\$2 == s { print \$1, \$3 }" "$BG3" | head -2 >rows &&
	want=$(awk "NR == 1 { t = \$1; e = \$2 } NR == 2 { d = \$1 - (t + e); print (d > 0 ? d : 0) }" rows) &&
	t0=$(awk "NR == 1 { print \$1 }" "rows") &&
	say "session $s: rows $(tr "\n" " " <rows), want think_s $want" &&
	jq -e -s --arg s "$s" --argjson w "$want" "map(select(.session == \$s and .turn == 2))[0].think_s - \$w | fabs < 0.000001" bg.ndjson
'
test_expect_success 'without --sessions on the output is as it was (no session fields)' '
	gp-trace from-burstgpt "$BG3" 2>/dev/null | jq -s -e "all(has(\"session\") | not)"
'
test_expect_code 65 '--sessions on needs the _3 layout' 'gp-trace from-burstgpt --sessions on "$BG1" >/dev/null'
test_done
