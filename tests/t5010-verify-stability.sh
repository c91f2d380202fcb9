#!/bin/sh
# gp-verify publish: the stability gate (N >= --min-reps and CV <= --max-cv;
# footnote at the cap; how many replicates to add), exactly at the thresholds,
# and the noise-floor minimum kept apart from the publish gate.
. "$(dirname "$0")/lib.sh"

# summary ARM REPS CV [MEAN]: one arm_summary record (rate 2 rps)
summary() {
	printf '{"type":"arm_summary","arm":"%s","rate_rps":2,"reps":%s,"mean_good_fraction":%s,"cv":%s}\n' \
		"$1" "$2" "${4:-0.8}" "$3"
}
# only TYPE FILE: the records of that type (jq 1.6 -e judges the last input
# only, so select first, then test)
only() { jq -c --arg t "$1" 'select(.type==$t)' "$2"; }
# stab FILE ARM: "verdict add_reps footnote" of the arm's stability record
stab() { jq -r --arg a "$2" 'select(.type=="stability" and .arm==$a) | "\(.verdict) \(.add_reps) \(.footnote)"' "$1"; }

test_expect_success 'N=5 and CV=0.10 exactly: PUBLISHABLE' '
	summary a 5 0.10 | gp-verify publish -q >out; test $? = 1 &&
	test "$(stab out a)" = "PUBLISHABLE 0 null"
'
test_expect_success 'CV=0.1000001: ADD_REPLICATES (no cap: double the reps)' '
	summary a 5 0.1000001 | gp-verify publish -q >out;
	test "$(stab out a)" = "ADD_REPLICATES 5 null"
'
test_expect_success 'N=4 with a small CV: ADD_REPLICATES, 1 more' '
	summary a 4 0.01 | gp-verify publish -q >out;
	test "$(stab out a)" = "ADD_REPLICATES 1 null"
'
test_expect_success 'N=1 (CV undefined): 4 more' '
	summary a 1 null | gp-verify publish -q >out;
	test "$(stab out a)" = "ADD_REPLICATES 4 null"
'
test_expect_success 'CV over, below the cap: add to the cap' '
	summary a 6 0.2 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "ADD_REPLICATES 4 null"
'
test_expect_success 'at the cap with CV over: PUBLISHABLE_WITH_FOOTNOTE naming the residual CV' '
	summary a 10 0.2 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "PUBLISHABLE_WITH_FOOTNOTE 0 a at 2 rps: residual CV 0.2 over the 0.1 bound at the 10-rep cap" &&
	jq -e "select(.type==\"verdict\") | .footnotes == [\"a at 2 rps: residual CV 0.2 over the 0.1 bound at the 10-rep cap\"]" out
'
test_expect_success 'over the cap and under the bound: PUBLISHABLE, no footnote' '
	summary a 12 0.05 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "PUBLISHABLE 0 null"
'
test_expect_success 'at the cap with CV exactly at the bound: PUBLISHABLE, no footnote' '
	summary a 10 0.10 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "PUBLISHABLE 0 null"
'
test_expect_success 'past the cap with CV over: still PUBLISHABLE_WITH_FOOTNOTE' '
	summary a 12 0.2 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "PUBLISHABLE_WITH_FOOTNOTE 0 a at 2 rps: residual CV 0.2 over the 0.1 bound at 12 reps, past the 10-rep cap"
'
test_expect_success 'one below the cap with CV over: ADD_REPLICATES, 1 more' '
	summary a 9 0.2 | gp-verify publish -q --rep-cap 10 >out;
	test "$(stab out a)" = "ADD_REPLICATES 1 null"
'
test_expect_success 'the cap equal to --min-reps: N=5 with CV over is footnoted, N=4 is not' '
	summary a 5 0.3 | gp-verify publish -q --rep-cap 5 >out;
	test "$(stab out a | cut -d" " -f1,2)" = "PUBLISHABLE_WITH_FOOTNOTE 0" &&
	summary a 4 0.3 | gp-verify publish -q --rep-cap 5 >out;
	test "$(stab out a)" = "ADD_REPLICATES 1 null"
'
test_expect_success 'the stability record states the policy applied' '
	summary a 5 0.05 | gp-verify publish -q --rep-cap 8 --max-cv 0.2 --min-reps 4 >out;
	only stability out | jq -e ".min_reps == 4 and .max_cv == 0.2 and .rep_cap == 8 and .cv == 0.05 and .reps == 5" &&
	summary a 5 0.05 | gp-verify publish -q >out;
	only stability out | jq -e ".min_reps == 5 and .max_cv == 0.1 and .rep_cap == null"
'
test_expect_success '--min-reps and --max-cv move the thresholds' '
	summary a 3 0.15 | gp-verify publish -q --min-reps 3 --max-cv 0.15 >out;
	test "$(stab out a)" = "PUBLISHABLE 0 null" &&
	summary a 3 0.15 | gp-verify publish -q --min-reps 4 --max-cv 0.15 >out;
	test "$(stab out a)" = "ADD_REPLICATES 1 null"
'
test_expect_success 'every rep at good fraction 0: stable at zero, footnoted' '
	summary a 5 null 0 | gp-verify publish -q >out;
	test "$(stab out a)" = "PUBLISHABLE 0 a at 2 rps: every rep had good fraction 0 (CV undefined, taken as 0)"
'
test_expect_success 'an ADD_REPLICATES arm makes the verdict negative, naming it' '
	{ summary a 5 0.05; summary b 3 0.05; } | gp-verify publish -q >out;
	jq -e "select(.type==\"verdict\") | .publishable==false and
		(.reasons | index(\"stability: b at 2 rps: ADD_REPLICATES (3 reps, CV 0.05; add 2)\") != null) and
		([.reasons[] | select(startswith(\"stability: a \"))] | length == 0)" out
'
test_expect_success 'the noise-floor minimum is its own record and never a publish reason' '
	{ summary a 5 0.3; printf "%s\n" "{\"type\":\"noise_floor\",\"arm\":\"a\",\"rate_rps\":2,\"reps\":3,\"mean\":0.8,\"half_width\":0.05,\"lo\":0.75,\"hi\":0.85}"; } |
		gp-verify publish -q >out;
	only floor_check out | jq -e ".resolvable==true and .reps==3 and .min_reps==3" &&
	test "$(stab out a)" = "ADD_REPLICATES 5 null" &&
	printf "%s\n" "{\"type\":\"noise_floor\",\"arm\":\"a\",\"rate_rps\":2,\"reps\":2,\"mean\":0.8,\"half_width\":0.05}" |
		gp-verify publish -q >out2;
	only floor_check out2 | jq -e ".resolvable==false" &&
	! jq -r "select(.type==\"verdict\") | .reasons[]" out out2 | grep -v "^design: floor: " | grep -qi floor
'
test_expect_code 65 'an arm_summary without reps is bad input naming file:line:field' '
	{ summary a 5 0.05; summary b 5 0.05 | jq -c "del(.reps)"; } >in.ndjson &&
	gp-verify publish -q in.ndjson >out 2>err;
	rc=$?; grep -qx "gp-verify: in.ndjson:2: field .reps. is missing" err && exit $rc
'
test_expect_code 2 '--rep-cap below --min-reps is a usage error' '
	: | gp-verify publish --rep-cap 3
'
test_expect_code 2 '--max-cv must be a number' '
	: | gp-verify publish --max-cv ten
'
test_done
