#!/bin/sh
# gp-analyze verdicts: the noise floor (and its 3-rep minimum), WIN / LOSS /
# INCONCLUSIVE against the floor arm from the whole CI of the difference, and
# Welch TOST parity — EQUIVALENT only when the 90 % CI lies inside ±δ, never
# from an inconclusive difference test.
#
# Every rep has 100 requests, so its good fraction is GOOD/100 exactly:
#   floor {0.80 0.82 0.81 0.79 0.80}   mean 0.804
#   win   {0.90 0.91 0.92 0.90 0.89}   mean 0.904   (+0.10, CI above 0)
#   loss  {0.70 0.71 0.69 0.72 0.70}   mean 0.704   (−0.10, CI below 0)
#   noisy {0.70 0.92 0.78 0.90 0.72}   mean 0.804   (CI straddles 0 and ±0.05)
#   same  {0.80 0.81 0.81 0.80 0.79}   mean 0.802   (TOST passes at δ 0.05)
# Welch TOST by hand with /usr/bin/python3 (numpy var(ddof=1), scipy.stats.t):
#   same vs floor:  d = −0.002, se = 0.0063246, df = 7.3394, t.ppf(0.95) =
#   1.88148 → 90 % CI [−0.0138995134, 0.0098995134] inside ±0.05;
#   p_lower = 4.99965e−05, p_upper = 2.93663e−05.
#   noisy vs floor: d = 0, se = 0.045629, df = 4.1012 → CI ±0.0965886,
#   p = 0.166653: not equivalent.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"

jall() { jq -e -s "[.[] | $1] | length > 0 and all" ${2+"$2"} >/dev/null; }
near() { awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; if (v == "" || v == "null" || d > t) { print "got " v ", want " w " +- " t; exit 1 } }'; }

# arm ARM RATE GOOD... : one rep per GOOD, 100 requests each (GOOD good, the
# rest over the TTFT SLO).
arm() {
	a=$1 r=$2; shift 2
	rep=0
	for g in "$@"; do
		rep=$((rep + 1))
		awk -v a="$a" -v r="$r" -v rep=$rep -v g="$g" 'BEGIN {
			for (i = 0; i < 100; i++)
				printf "{\"type\":\"request\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"q%d\",\"ttft_ms\":%d,\"tpot_ms\":10,\"outcome\":\"ok\"}\n", a, r, rep, i, i < g ? 100 : 900
		}'
	done
}
{
	arm floor 4 80 82 81 79 80
	arm win 4 90 91 92 90 89
	arm loss 4 70 71 69 72 70
	arm noisy 4 70 92 78 90 72
	arm same 4 80 81 81 80 79
	arm floor 8 50 51
	arm win 8 60 61
	echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'
} >in
A="--ttft-slo-ms 500 --tpot-slo-ms 50 --resamples 4000 --floor floor"

test_expect_success 'analysis runs' 'gp-analyze $A --equiv floor --delta 0.05 in >out'

cmp_rec() { jq -c -s ".[] | select(.type == \"compare\" and .arm == \"$1\" and .rate_rps == $2)" out; }

test_expect_success 'WIN: the whole CI of the difference is above 0' '
	cmp_rec win 4 >r && jall ".verdict == \"WIN\" and .lo > 0 and .vs == \"floor\"
		and (.diff - 0.1 | . * . < 1e-20) and .method == \"bca\" and .level == 0.95" r
'
test_expect_success 'LOSS: the whole CI is below 0' '
	cmp_rec loss 4 >r && jall ".verdict == \"LOSS\" and .hi < 0" r
'
test_expect_success 'INCONCLUSIVE: the CI straddles 0' '
	cmp_rec noisy 4 >r && jall ".verdict == \"INCONCLUSIVE\" and .lo < 0 and .hi > 0" r
'
test_expect_success 'TOST EQUIVALENT: the 90% CI lies inside ±δ' '
	cmp_rec same 4 >r && jall ".tost.equivalent == true and .tost.delta == 0.05
		and .tost.lo90 > -0.05 and .tost.hi90 < 0.05 and .tost.p < 0.05
		and .tost.p == ([.tost.p_lower, .tost.p_upper] | max)" r &&
	near "$(jq -r .tost.lo90 r)" -0.013899513364856717 1e-9 &&
	near "$(jq -r .tost.hi90 r)" 0.009899513364856491 1e-9 &&
	near "$(jq -r .tost.p_lower r)" 4.999647369370643e-05 1e-9 &&
	near "$(jq -r .tost.p_upper r)" 2.9366338233734724e-05 1e-9
'
test_expect_success 'never EQUIVALENT when the CI straddles a bound (inconclusive difference)' '
	cmp_rec noisy 4 >r && jall ".tost.equivalent == false and .verdict == \"INCONCLUSIVE\"
		and (.tost.lo90 < -0.05 or .tost.hi90 > 0.05) and .tost.p >= 0.05" r &&
	near "$(jq -r .tost.hi90 r)" 0.09658864959388261 1e-9 &&
	near "$(jq -r .tost.p r)" 0.16665256126934078 1e-9
'
test_expect_success 'a real difference is not equivalence within a smaller δ' '
	cmp_rec win 4 >r && jall ".tost.equivalent == false" r
'
test_expect_success 'one compare record per (arm, comparator, rate), verdict and TOST together' '
	jall "select(.type == \"compare\") | has(\"tost\") and has(\"verdict\")" out &&
	test $(jq -s "[.[] | select(.type == \"compare\")] | length" out) = 5
'
test_expect_success 'noise floor: bootstrap CI half-width of the floor mean' '
	jq -c -s ".[] | select(.type == \"noise_floor\" and .rate_rps == 4)" out >f &&
	jall ".resolvable == true and .reps == 5 and (.mean - 0.804 | . * . < 1e-20)
		and .half_width > 0 and .half_width < 0.02 and ((.hi - .lo) / 2 - .half_width | . * . < 1e-24)
		and .lo < .mean and .mean < .hi" f
'
test_expect_success 'noise floor with fewer than 3 reps cannot resolve' '
	jq -c -s ".[] | select(.type == \"noise_floor\" and .rate_rps == 8)" out >f &&
	jall ".resolvable == false and .reps == 2 and .half_width == null and .lo == null
		and .hi == null and (.reason | test(\"3 reps\"))" f
'
test_expect_success 'two reps each: a difference CI, verdict from it' '
	cmp_rec win 8 >r && jall ".reps == 2 and .reps_vs == 2 and (.verdict | test(\"WIN|INCONCLUSIVE\"))" r
'
test_expect_success 'an arm missing at the comparator rate: INCONCLUSIVE with a reason' '
	cmp_rec loss 8 >r; test ! -s r &&
	{ arm floor 4 80 81 80; arm x 6 80 81 80; echo "{\"type\":\"validity\"}"; } >in2 &&
	gp-analyze $A in2 | jq -c "select(.type == \"compare\")" >r &&
	jall ".verdict == \"INCONCLUSIVE\" and .diff == null and (.reason | test(\"no runs\"))" r
'
test_expect_success 'sd = 0 in both arms: TOST degenerate, equivalent iff |diff| < δ' '
	{ arm floor 4 80 80 80; arm flat 4 82 82 82; arm far 4 90 90 90; echo "{\"type\":\"validity\"}"; } >in3 &&
	gp-analyze $A --equiv floor --delta 0.05 in3 >o3 &&
	jq -c "select(.type == \"compare\" and .arm == \"flat\")" o3 >r &&
	jall ".tost.degenerate == true and .tost.equivalent == true and .tost.p == 0
		and .verdict == \"WIN\" and .lo == .hi" r &&
	jq -c "select(.type == \"compare\" and .arm == \"far\")" o3 >r &&
	jall ".tost.equivalent == false and .tost.p == 1" r &&
	! grep -qi nan o3
'
test_expect_success '--equiv another arm than the floor: compare records for both comparators' '
	gp-analyze $A --equiv same --delta 0.05 in >o4 &&
	jall "select(.type == \"compare\" and .vs == \"floor\") | has(\"tost\") | not" o4 &&
	jall "select(.type == \"compare\" and .vs == \"same\") | .tost.delta == 0.05" o4 &&
	jq -e -s "[.[] | select(.type == \"compare\" and .vs == \"same\" and .arm == \"floor\" and .rate_rps == 4)] | length == 1" o4 >/dev/null
'
test_expect_code 2 '--equiv without --delta is a usage error' 'gp-analyze $A --equiv floor in'
test_expect_code 65 'a --floor arm absent from the data is a data error' \
	'gp-analyze --ttft-slo-ms 1 --tpot-slo-ms 1 --floor nosuch in'
test_done
