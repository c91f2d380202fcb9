#!/bin/sh
# gp-analyze knee: the highest rung of the rate ladder whose mean good
# fraction clears --target, the interpolated crossing rate (DistServe style),
# null when no rung clears, goodput per accelerator (--accelerators, --fleet).
#
# Arm "a": rates 1, 2, 4 rps with good fractions 1.00, 0.95, 0.50 (two reps
# each, 20 requests, duration_s 10, achieved_rps = the label).  Target 0.9:
# knee 2 rps; crossing 2 + (0.95 − 0.9) / (0.95 − 0.5) × (4 − 2) = 2.2222…;
# goodput at the knee over the send window 0.95 × 2 = 1.9 rps (the
# drain-inclusive 19 good / 10 s too); with 4 accelerators 0.475 rps each.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"


# run ARM RATE REP GOOD  — 20 requests, GOOD of them good, duration 10 s
run() {
	awk -v a="$1" -v r="$2" -v rep="$3" -v g="$4" 'BEGIN {
		for (i = 0; i < 20; i++)
			printf "{\"type\":\"request\",\"run\":\"%s/%s/%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"q%d\",\"ttft_ms\":%d,\"tpot_ms\":10,\"outcome\":\"ok\"}\n", a, r, rep, a, r, rep, i, i < g ? 100 : 900
		printf "{\"type\":\"run_end\",\"run\":\"%s/%s/%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"attempted\":20,\"duration_s\":10,\"achieved_rps\":%s}\n", a, r, rep, a, r, rep, r
	}'
}
{
	run a 1 1 20; run a 1 2 20; run a 2 1 19; run a 2 2 19; run a 4 1 10; run a 4 2 10
	run b 1 1 17; run b 1 2 17; run b 2 1 10; run b 2 2 12
	run c 1 1 20; run c 2 1 20
	echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'
} >in
A="--ttft-slo-ms 500 --tpot-slo-ms 50 --resamples 500"

test_expect_success 'knee: the highest rung clearing the target' '
	gp-analyze $A --accelerators 4 in >out &&
	jq -c "select(.type == \"knee\" and .arm == \"a\")" out >k &&
	jall ".rate_rps == 2 and .good_fraction == 0.95 and .target == 0.9 and .method == \"highest_rung\"
		and .accelerators == 4 and .rungs == 3 and .monotone == true" k &&
	near "$(jq -r .goodput_rps k)" 1.9 1e-12 &&
	near "$(jq -r .goodput_rps_per_accel k)" 0.475 1e-12
'
test_expect_success 'knee: the interpolated crossing rate beside it' '
	near "$(jq -r .crossing_rate_rps k)" 2.2222222222222 1e-9 &&
	jall ".crossing_method == \"linear_interpolation\"" k
'
test_expect_success 'no rung clears: rate_rps null (and the crossing)' '
	jq -c "select(.type == \"knee\" and .arm == \"b\")" out >k &&
	jall ".rate_rps == null and .goodput_rps == null and .crossing_rate_rps == null
		and .target == 0.9 and .good_fraction == null" k
'
test_expect_success 'every rung clears: knee at the top, no crossing inside the ladder' '
	jq -c "select(.type == \"knee\" and .arm == \"c\")" out >k &&
	jall ".rate_rps == 2 and .crossing_rate_rps == null" k
'
test_expect_success '--target moves the knee' '
	gp-analyze $A --target 0.5 in | jq -c "select(.type == \"knee\" and .arm == \"a\")" >k &&
	jall ".rate_rps == 4 and .target == 0.5 and .accelerators == null and .goodput_rps == 2
		and .goodput_rps_drain == 1 and .goodput_rps_per_accel == null
		and (.accelerators_reason | test(\"--accelerators\"))" k &&
	gp-analyze $A --target 0.8 in | jq -c "select(.type == \"knee\" and .arm == \"b\")" >k &&
	jall ".rate_rps == 1" k
'
test_expect_success '--fleet: accelerators are the sum over backends' '
	cat >fleet.json <<-\EOF &&
	{"vips":[{"name":"vip","url":"http://127.0.0.1:8080"}],
	 "backends":[{"name":"b1","url":"http://127.0.0.1:9001","accelerators":2},
	             {"name":"b2","url":"http://127.0.0.1:9002","accelerators":4},
	             {"name":"b3","url":"http://127.0.0.1:9003"}],
	 "arms":[{"name":"a"}]}
	EOF
	gp-analyze $A --fleet fleet.json in | jq -c "select(.type == \"knee\" and .arm == \"a\")" >k &&
	jall ".accelerators == 7" k &&
	near "$(jq -r .goodput_rps_per_accel k)" 0.2714285714285714 1e-12
'
# The interval of the headline: reps 1.9 and 1.9 do not vary, so the binomial
# floor stands in — p̃ = 38.5/41, var = p̃(1 − p̃)/20 · 2², se = √(var/2),
# t.ppf(0.975, 1) = 12.706204736174698 (scipy 1.10.1): half-width 0.96166…
test_expect_success 'knee: goodput interval over reps (t, binomial floor when reps agree)' '
	jq -c "select(.type == \"knee\" and .arm == \"a\")" out >k &&
	jall ".goodput_ci.method == \"t\" and .goodput_ci.floored == true and .goodput_ci.df == 1
		and .goodput_per_accel_ci.est == .goodput_rps_per_accel
		and (.goodput_per_accel_ci.hi - .goodput_ci.hi / 4 | . * . < 1e-20)
		and .crossing_ci.method == \"delta_t\" and .crossing_ci.lo < .crossing_rate_rps
		and .crossing_rate_rps < .crossing_ci.hi and .edge == null" k &&
	near "$(jq -r ".goodput_ci.hi - .goodput_ci.est" k)" "$(/usr/bin/python3 -c "
from scipy.stats import t; p = 38.5 / 41; print(repr(t.ppf(.975, 1) * (p * (1 - p) / 20 * 4 / 2) ** .5))" 2>/dev/null || echo 0.9616626)" 1e-6
'
test_expect_success 'a knee at an end of the ladder is flagged with what to do' '
	jq -c "select(.type == \"knee\" and .arm == \"c\")" out >k &&
	jall ".edge == \"last\" and (.advice | test(\"extend the ladder upward\"))" k &&
	jq -c "select(.type == \"knee\" and .arm == \"b\")" out >k &&
	jall ".edge == \"below\" and (.advice | test(\"downward\"))" k &&
	gp-analyze $A --target 0.8 in | jq -c "select(.type == \"knee\" and .arm == \"b\")" >k &&
	jall ".edge == \"first\" and (.advice | test(\"too coarse\"))" k
'
test_expect_success 'knee_compare: the arms knees compared against the floor arm' '
	gp-analyze $A --accelerators 4 --floor c in | jq -c "select(.type == \"knee_compare\")" >kc &&
	test $(wc -l <kc) = 1 &&
	jall ".arm == \"a\" and .vs == \"c\" and .rate_rps == 2 and .rate_rps_vs == 2 and .per_accel == true
		and (.diff_goodput - (1.9 - 2) / 4 | . * . < 1e-20) and .method == \"welch\"
		and .verdict == \"INSUFFICIENT_REPS\"" kc
'
test_expect_code 65 'a broken fleet file is a data error' '
	echo "{" >bad.json && gp-analyze $A --fleet bad.json in
'
test_expect_code 2 '--fleet and --accelerators together is a usage error' \
	'gp-analyze $A --fleet fleet.json --accelerators 2 in'
test_expect_success 'a dip in the curve: the knee is still the highest clearing rung, flagged non-monotone' '
	# d: 0.95, 0.85, 0.95, 0.50 at 1, 2, 4, 8 rps.  Knee 4; crossing
	# 4 + (0.95 - 0.9) / (0.95 - 0.5) x (8 - 4) = 4.4444...
	{ run d 1 1 19; run d 2 1 17; run d 4 1 19; run d 8 1 10
	  echo "{\"type\":\"validity\",\"kept\":4,\"discarded\":0,\"rules\":[]}"; } >dip &&
	gp-analyze $A dip | jq -c "select(.type == \"knee\")" >k &&
	jall ".arm == \"d\" and .rate_rps == 4 and .good_fraction == 0.95 and .monotone == false
		and .rungs == 4 and ([.curve[].rate_rps] == [1, 2, 4, 8])" k &&
	near "$(jq -r .crossing_rate_rps k)" 4.444444444444445 1e-9
'
test_expect_success 'the crossing sits exactly on a rung that meets the target' '
	# e: 0.90 at 1 rps (= target, clears), 0.40 at 3 rps: knee 1, crossing 1.
	{ run e 1 1 18; run e 3 1 8; echo "{\"type\":\"validity\"}"; } >onrung &&
	gp-analyze $A onrung | jq -c "select(.type == \"knee\")" >k &&
	jall ".rate_rps == 1 and .crossing_rate_rps == 1 and .good_fraction == 0.9" k
'
# A knee that is a bound makes the knee comparison one-sided.  5 reps a
# rung.  x clears 1 and 2 rps (its top rung: a lower bound), f clears 1 and
# fails 2 (bracketed), g has one rung, 1 rps, that clears (a lower bound);
# y clears 1 and 2 and fails 4 (bracketed at 2).
{
	for rep in 1 2 3 4 5; do
		run x 1 $rep 20; run x 2 $rep 20
		run f 1 $rep 20; run f 2 $rep 10
		run g 1 $rep 20
		run y 1 $rep 20; run y 2 $rep 19; run y 4 $rep 8
	done
	echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'
} >inb
test_expect_success 'knee: bracketed, or a bound (lower on the top rung, upper with no clearing rung)' '
	gp-analyze $A --accelerators 1 --floor f inb >outb &&
	jq -c "select(.type == \"knee\")" outb >kb &&
	jall "(.arm == \"f\" or .arm == \"y\") == .bracketed" kb &&
	jall "if .arm == \"x\" or .arm == \"g\" then .bound == \"lower\" and .bound_rate_rps == .rate_rps else .bound == null end" kb
'
test_expect_success 'knee_compare: a lower bound over a floor point keeps its WIN, the ratio by Fieller' '
	jq -c "select(.type == \"knee_compare\" and .arm == \"x\")" outb >c &&
	jall ".bound == \"lower\" and .verdict == \"WIN\" and .ratio_ci.method == \"fieller\"
		and .ratio_ci.lo > 1 and .ratio_ci.hi > .ratio and .goodput_vs == 1" c &&
	near "$(jq -r .ratio c)" 2 1e-12
'
test_expect_success 'knee_compare: over a floor that is a lower bound, a WIN is INCONCLUSIVE, a LOSS stands' '
	gp-analyze $A --accelerators 1 --floor g inb >outg &&
	jq -c "select(.type == \"knee_compare\" and .arm == \"y\")" outg >cy &&
	jall ".bound == \"upper\" and .diff_goodput > 0 and .lo > 0 and .verdict == \"INCONCLUSIVE\"
		and (.reason | test(\"floor.s knee is on its top rung\"))" cy &&
	gp-analyze $A --accelerators 1 --floor x inb >outx &&
	jq -c "select(.type == \"knee_compare\" and .arm == \"f\")" outx >cf &&
	jall ".bound == \"upper\" and .verdict == \"LOSS\" and .ratio < 1 and .ratio_ci.hi < 1" cf &&
	jq -c "select(.type == \"knee_compare\" and .arm == \"g\")" outx >cg &&
	jall ".bound == \"indeterminate\" and .verdict == \"INCONCLUSIVE\"" cg
'
test_done
