#!/bin/sh
# A request that waits in the server's queue longer than --idle-s for its
# first token is a measurement, not a hang: only --deadline-s bounds that
# wait (-> timeout, a miss that keeps the run valid).  And TPOT stays right
# when chunks carry several tokens (gp-sim --tokens-per-chunk, vs its truth).
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

# One running sequence at a time, 20 tokens of 20 ms: the k-th of 6
# simultaneous requests waits about k x 400 ms for its first token.
start_sim --model m --max-batch 1 --decode-ms 20 --decode-ms-per-seq 0 || exit 1
awk 'BEGIN { for (i = 0; i < 6; i++)
	printf "{\"type\":\"trace\",\"id\":\"w%d\",\"t_s\":%.3f,\"input_tokens\":16,\"output_tokens\":20}\n", i, i * 0.001 }' >q.ndjson
test_expect_success 'queued past --idle-s 0.3 for the first token: ok, not hang' '
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m --idle-s 0.3 q.ndjson >q.out 2>qerr &&
	sel ".type == \"run_end\"" q.out | jq -e ".ok == 6 and .by_error == {}" &&
	sel ".type == \"request\"" q.out | jq -se "(map(select(.ttft_ms > 1000)) | length) >= 3"
'
# (Other rules, such as the client's own lateness on a loaded host, may
# discard a run; the one under test is hang_truncated.)
hang_rule_kept() {
	gp-verify validity <"$1" >"$1.valid"; test $? -le 1 &&	# 1: discarded by some rule
	sel ".type == \"validity\"" "$1.valid" | jq -e ".rules[] | select(.rule == \"hang_truncated\") | .status == \"checked\" and .discarded == 0" >/dev/null &&
	! grep -q "hang: [0-9]" "$1.valid"
}
test_expect_success 'gp-verify validity: the hang rule keeps that run' '
	hang_rule_kept q.out
'
test_expect_success 'the rule can fail: a hang after the first token discards; one before it (ttft null) does not' '
	jq -c "if .type == \"request\" and .id == \"w5\" then .outcome = \"failed\" | .error = \"hang\" | .ttft_ms = 7.5 else . end" q.out >h1.out &&
	! hang_rule_kept h1.out &&
	jq -c "if .type == \"request\" and .id == \"w5\" then .outcome = \"failed\" | .error = \"hang\" | .ttft_ms = null | .tpot_ms = null else . end" q.out >h2.out &&
	hang_rule_kept h2.out
'
test_expect_success '--deadline-s bounds the wait: timeout (no first token), the run still valid' '
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m --idle-s 0.3 --deadline-s 1.1 q.ndjson >d.out 2>derr &&
	sel ".type == \"request\" and .ttft_ms == null" d.out |
		jq -se "length >= 2 and all(.error == \"timeout\" and .error_detail == \"no first token before the deadline\")" &&
	sel ".type == \"request\"" d.out | jq -se "all(.error != \"hang\")" &&
	hang_rule_kept d.out
'
kill $SIM_PID 2>/dev/null; wait $SIM_PID 2>/dev/null

awk 'BEGIN { for (i = 0; i < 8; i++)
	printf "{\"type\":\"trace\",\"id\":\"c%d\",\"t_s\":%.3f,\"input_tokens\":40,\"output_tokens\":%d}\n", i, i * 0.05, 13 + i }' >c.ndjson
for K in 2 4; do
	start_sim --model m --decode-ms 10 --decode-ms-per-seq 0 --tokens-per-chunk $K --truth truth-$K.ndjson || exit 1
	test_expect_success "$K tokens per chunk: out_tokens exact from usage, TPOT within 1 ms of the server's truth" '
		gp-replay --url http://127.0.0.1:$SIM_PORT --model m c.ndjson >c-'$K'.out 2>/dev/null &&
		sel ".type == \"request\"" c-'$K'.out | jq -se "all(.outcome == \"ok\" and .tokens_from == \"usage\") and
			map(.out_tokens) == [13,14,15,16,17,18,19,20]" &&
		sleep 0.2 &&
		jq -s "[.[] | select(.type == \"request\")] as \$r | [.[] | select(.type == \"truth\")] as \$t |
			[\$r[] | . as \$x | (\$t[] | select(.id == \$x.id)) as \$y |
			 ((\$x.tpot_ms - (\$y.e2e_ms - \$y.ttft_ms) / (\$y.out_tokens - 1)) | fabs)] | sort | .[length / 2 | floor]" \
			c-'$K'.out truth-'$K'.ndjson >d-'$K' &&
		echo "median |TPOT - truth TPOT| = $(cat d-'$K') ms" >&2 &&
		awk -v d="$(cat d-'$K')" "BEGIN { exit !(d < 1) }" &&
		sel ".type == \"request\"" c-'$K'.out | jq -se "map(.tpot_ms) | (add / length) > 9 and (add / length) < 12"
	'
	kill $SIM_PID 2>/dev/null; wait $SIM_PID 2>/dev/null
done
test_done
