#!/bin/sh
# prove: serial — it judges a live replay's timing end to end
# gp-replay's timings agree with gp-sim's truth log (server-side TTFT and E2E,
# matched on the request id): median |client - server| under 1 ms at 60 req/s;
# tokens match; the schedule is kept (lateness reported, rescale to --rate-rps).
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" && test -x "$GP_BIN/gp-trace" ||
	skip_all "gp-replay, gp-sim or gp-trace not built"

gp-trace synth --requests 180 --rate-rps 10 --input-tokens uniform:50:400 \
	--output-tokens uniform:2:24 --seed 11 >trace.ndjson || exit 1
start_sim --model m --truth truth.ndjson --decode-ms 4 || exit 1

test_expect_success 'replay 180 records at 60 req/s (rescaled)' '
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m --rate-rps 60 trace.ndjson >run.ndjson 2>err &&
	sel ".type == \"run_end\"" run.ndjson | all_of ".attempted == 180 and .ok == 180"
'
# Join client and server on id: "id c_ttft c_e2e s_ttft s_e2e".
test_expect_success 'join client records with the truth log on id' '
	sel ".type == \"request\"" run.ndjson | jq -r "\"\(.id) \(.ttft_ms) \(.e2e_ms) \(.out_tokens) \(.in_tokens)\"" | sort >c &&
	jq -r "\"\(.id) \(.ttft_ms) \(.e2e_ms) \(.out_tokens) \(.in_tokens)\"" truth.ndjson | sort >s &&
	join c s >j && test $(wc -l <j) = 180
'
median_abs() { # column a, column b of j
	awk -v a=$1 -v b=$2 '{ d = $a - $b; if (d < 0) d = -d; print d }' j | sort -g |
	awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'
}
test_expect_success 'TTFT: median |client - server| < 1 ms' '
	m=$(median_abs 2 6) && echo "median TTFT error $m ms" && awk -v m=$m "BEGIN { exit !(m < 1.0) }"
'
test_expect_success 'E2E: median |client - server| < 1 ms' '
	m=$(median_abs 3 7) && echo "median E2E error $m ms" && awk -v m=$m "BEGIN { exit !(m < 1.0) }"
'
test_expect_success 'the client never reports a TTFT shorter than the server saw' '
	awk "{ if (\$2 < \$6 - 0.05) { print; bad = 1 } } END { exit bad }" j
'
test_expect_success 'out_tokens and in_tokens equal the server'"'"'s' '
	awk "\$4 != \$8 || \$5 != \$9 { print; bad = 1 } END { exit bad }" j
'
test_expect_success 'out_tokens is the trace output_tokens (ignore_eos + min_tokens)' '
	jq -r "\"\(.id) \(.output_tokens)\"" trace.ndjson | sort >t &&
	join c t | awk "\$4 != \$6 { print; bad = 1 } END { exit bad }"
'
test_expect_success 'rescaled schedule: mean rate 60 req/s, shape of the trace kept' '
	sel ".type == \"request\"" run.ndjson | jq -r "\"\(.id) \(.t_sched_s)\"" | sort >sched &&
	jq -r "\"\(.id) \(.t_s)\"" trace.ndjson | sort >ts &&
	join sched ts | sort -k3 -g >st &&
	f=$(tail -1 st | awk "{ printf \"%.12f\", \$2 / \$3 }") &&
	awk -v f=$f "{ d = \$2 - \$3 * f; if (d < 0) d = -d; if (d > 2e-6) { print; bad = 1 } } END { exit bad }" st &&
	awk -v f=$f "BEGIN { exit !(f > 0.16 && f < 0.17) }" &&
	sel ".type == \"run\"" run.ndjson | all_of ".rate_rps == 60 and .schedule == \"rescale\""
'
test_expect_success 'lateness is reported in the trailer' '
	sel ".type == \"run_end\"" run.ndjson | all_of ".lateness_p50_ms >= 0 and .lateness_p99_ms >= .lateness_p50_ms and
		.lateness_max_ms >= .lateness_p99_ms and (.client_behind | type) == \"boolean\" and .achieved_rps > 40"
'
test_done
