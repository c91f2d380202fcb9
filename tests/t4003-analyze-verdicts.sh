#!/bin/sh
# gp-analyze verdicts: the noise floor (a t-interval over reps, and its 3-rep
# minimum), WIN / LOSS / EQUIVALENT / INCONCLUSIVE / INSUFFICIENT_REPS against
# the floor arm from Welch's interval of the difference of per-rep good
# fractions, and Welch TOST parity — EQUIVALENT only when the 90 % CI lies
# inside ±δ and δ is at least the noise floor, never from an inconclusive
# difference test.
#
# Every rep has 5000 requests (GOOD/100 of them good), so the binomial floor
# of the between-rep variance (p(1−p)/5000, sd ≤ 0.0071) is below every
# arm's sample sd and the textbook Welch numbers apply:
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
# Welch 95 % intervals (scipy 1.10.1 stats.t.ppf(0.975, df), numpy var(ddof=1)):
#   win vs floor:  [0.08337116769941028, 0.11662883230058946], df 8
#   same vs floor: [−0.0168161171065421, 0.012816117106541873] (straddles 0)
#   noise floor half-width at 4 rps: t.ppf(0.975, 4)·sd/√5 = 0.014157147769822711
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"


# arm ARM RATE GOOD... : one rep per GOOD, N (5000) requests each, GOOD % of
# them good, the rest over the TTFT SLO.
N=5000
arm() {
	a=$1 r=$2; shift 2
	rep=0
	for g in "$@"; do
		rep=$((rep + 1))
		awk -v a="$a" -v r="$r" -v rep=$rep -v g="$g" -v n=$N 'BEGIN {
			g = g * n / 100
			for (i = 0; i < n; i++)
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
		and (.diff - 0.1 | . * . < 1e-20) and .method == \"welch\" and .level == 0.95
		and .df == 8 and .floored == false" r &&
	near "$(jq -r .lo r)" 0.08337116769941028 1e-9 &&
	near "$(jq -r .hi r)" 0.11662883230058946 1e-9
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
test_expect_success 'noise floor: t-interval half-width of the floor mean over reps' '
	jq -c -s ".[] | select(.type == \"noise_floor\" and .rate_rps == 4)" out >f &&
	jall ".resolvable == true and .reps == 5 and (.mean - 0.804 | . * . < 1e-20)
		and .method == \"t\" and .df == 4
		and ((.hi - .lo) / 2 - .half_width | . * . < 1e-24) and .lo < .mean and .mean < .hi" f &&
	near "$(jq -r .half_width f)" 0.014157147769822711 1e-12
'
test_expect_success 'noise floor with fewer than 3 reps cannot resolve' '
	jq -c -s ".[] | select(.type == \"noise_floor\" and .rate_rps == 8)" out >f &&
	jall ".resolvable == false and .reps == 2 and .half_width == null and .lo == null
		and .hi == null and (.reason | test(\"3 reps\"))" f
'
test_expect_success 'two reps each: an interval, but INSUFFICIENT_REPS (below --min-reps 5)' '
	cmp_rec win 8 >r && jall ".reps == 2 and .reps_vs == 2 and .verdict == \"INSUFFICIENT_REPS\"
		and .lo < .hi and (.reason | test(\"5 reps\"))" r
'
test_expect_success 'an arm missing at the comparator rate: INCONCLUSIVE with a reason' '
	cmp_rec loss 8 >r; test ! -s r &&
	{ arm floor 4 80 81 80; arm x 6 80 81 80; echo "{\"type\":\"validity\"}"; } >in2 &&
	gp-analyze $A in2 | jq -c "select(.type == \"compare\")" >r &&
	jall ".verdict == \"INCONCLUSIVE\" and .diff == null and (.reason | test(\"no runs\"))" r
'
# Zero spread between reps (100 requests per rep): the binomial floor
# p(1−p)/100 stands in for the between-rep variance — never a zero-width
# interval, never p = 0; a 2-point gap over 3 reps of 100 is not a WIN.
test_expect_success 'sd = 0 in both arms: floored, degenerate, a real interval, p > 0' '
	N=100 && { arm floor 4 80 80 80; arm flat 4 82 82 82; arm far 4 90 90 90; echo "{\"type\":\"validity\"}"; } >in3 &&
	gp-analyze $A --min-reps 3 --equiv floor --delta 0.05 in3 >o3 &&
	jq -c "select(.type == \"compare\" and .arm == \"flat\")" o3 >r &&
	jall ".degenerate == true and .floored == true and .lo < 0 and .hi > 0.04
		and .verdict == \"INCONCLUSIVE\" and .tost.p > 0 and .tost.equivalent == false" r &&
	jq -c "select(.type == \"compare\" and .arm == \"far\")" o3 >r &&
	jall ".tost.equivalent == false and .tost.p > 0.5 and .tost.p < 1 and .lo < .hi" r &&
	! grep -qi nan o3
'
test_expect_success '--equiv another arm than the floor: compare records for both comparators' '
	gp-analyze $A --equiv same --delta 0.05 in >o4 &&
	jall "select(.type == \"compare\" and .vs == \"floor\") | has(\"tost\") | not" o4 &&
	jall "select(.type == \"compare\" and .vs == \"same\") | .tost.delta == 0.05" o4 &&
	jq -e -s "[.[] | select(.type == \"compare\" and .vs == \"same\" and .arm == \"floor\" and .rate_rps == 4)] | length == 1" o4 >/dev/null
'
# The examples of issue 13 (per-rep good fractions of 1000 requests).
# Welch by hand with /usr/bin/python3 (scipy 1.10.1, numpy 1.24):
#   a = [.95,.93,.96,.94,.92]; b = [.92,.91,.93,.90,.935]
#   va, vb = a.var(ddof=1)/5, b.var(ddof=1)/5; df = (va+vb)**2/(va**2/4+vb**2/4)
#   d ± t.ppf(.975, df)·√(va+vb) = [-0.0010353871092423465, 0.043035387109242165]
# (a bootstrap over the five means said WIN with [0.005, 0.038]).
test_expect_success 'issue 13: {.95 .93 .96 .94 .92} vs {.92 .91 .93 .90 .935} is INCONCLUSIVE' '
	N=1000 && { arm x 4 95 93 96 94 92; arm floor 4 92 91 93 90 93.5; echo "{\"type\":\"validity\"}"; } >in6 &&
	gp-analyze $A in6 | jq -c "select(.type == \"compare\")" >r &&
	jall ".verdict == \"INCONCLUSIVE\" and .method == \"welch\"" r &&
	near "$(jq -r .lo r)" -0.0010353871092423465 1e-9 &&
	near "$(jq -r .hi r)" 0.043035387109242165 1e-9 &&
	near "$(jq -r .df r)" 7.922506577373839 1e-9
'
test_expect_success 'issue 13: two constant reps (1.0, 1.0 vs 0.99, 0.99) → INSUFFICIENT_REPS, degenerate, p > 0' '
	N=100 && { arm x 4 100 100; arm floor 4 99 99; echo "{\"type\":\"validity\"}"; } >in7 &&
	gp-analyze $A --equiv floor --delta 0.02 in7 | jq -c "select(.type == \"compare\")" >r &&
	jall ".verdict == \"INSUFFICIENT_REPS\" and .degenerate == true and .hi - .lo > 0.05
		and .tost.p > 0 and .tost.equivalent == false" r &&
	near "$(jq -r .lo r)" -0.04794900263885513 1e-9
'
test_expect_success 'EQUIVALENT is a verdict: TOST passes and the difference test is inconclusive' '
	cmp_rec same 4 >r && jall ".verdict == \"EQUIVALENT\" and .lo < 0 and .hi > 0
		and .tost.equivalent == true and .tost.resolvable == true" r &&
	near "$(jq -r .lo r)" -0.0168161171065421 1e-9
'
# δ 0.014: the TOST 90 % CI [−0.0139, 0.0099] lies inside ±δ, but δ is below the
# noise floor's 0.014157.
test_expect_success 'δ below the noise-floor half-width: unresolvable, never EQUIVALENT' '
	gp-analyze $A --equiv floor --delta 0.014 in >o8 &&
	jq -c -s ".[] | select(.type == \"compare\" and .arm == \"same\" and .rate_rps == 4)" o8 >r &&
	jall ".tost.resolvable == false and .tost.equivalent == false and .verdict == \"INCONCLUSIVE\"
		and .tost.tost_passed == true and (.tost.reason | test(\"noise floor\"))
		and .tost.noise_half_width > 0.014" r
'
test_expect_code 2 '--equiv without --delta is a usage error' 'gp-analyze $A --equiv floor in'
test_expect_code 65 'a --floor arm absent from the data is a data error' \
	'gp-analyze --ttft-slo-ms 1 --tpot-slo-ms 1 --floor nosuch in'
test_done
