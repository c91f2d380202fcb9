#!/bin/sh
# gp-analyze goodfrac: exact counts on crafted runs — the conjunction mask,
# failed requests as misses over the attempted denominator, the single-token
# policy both ways, good_rps from run_end duration_s or the t_sent_s span.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"

# mk ARM RATE REP GOOD BAD_TTFT BAD_TPOT SINGLE_GOOD SINGLE_BAD FAILED [DURATION_S]
# With --ttft-slo-ms 500 --tpot-slo-ms 50: good = (100 ms, 10 ms); bad TTFT =
# (900, 10); bad TPOT = (100, 90); single good = TTFT 100; single bad = 900.
mk() {
	awk -v arm="$1" -v rate="$2" -v rep="$3" -v g="$4" -v bt="$5" -v bp="$6" \
	    -v sg="$7" -v sb="$8" -v f="$9" -v dur="${10:-}" '
	function req(o, tt, tp, ot,   s) {
		s = sprintf("{\"type\":\"request\",\"run\":\"%s-%s-%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%s,\"id\":\"r%d\",\"t_sent_s\":%.3f,", arm, rate, rep, arm, rate, rep, i, i * 0.5)
		s = s sprintf("\"ttft_ms\":%s,\"tpot_ms\":%s,\"out_tokens\":%d,\"outcome\":\"%s\",\"error\":%s}", tt, tp, ot, o, o == "failed" ? "\"timeout\"" : "null")
		print s; i++
	}
	BEGIN {
		for (k = 0; k < g; k++) req("ok", 100, 10, 64)
		for (k = 0; k < bt; k++) req("ok", 900, 10, 64)
		for (k = 0; k < bp; k++) req("ok", 100, 90, 64)
		for (k = 0; k < sg; k++) req("single_token", 100, "null", 1)
		for (k = 0; k < sb; k++) req("single_token", 900, "null", 1)
		for (k = 0; k < f; k++) req("failed", "null", "null", 0)
		d = dur != "" ? ",\"duration_s\":" dur : ""
		printf "{\"type\":\"run_end\",\"run\":\"%s-%s-%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%s,\"attempted\":%d%s}\n", arm, rate, rep, arm, rate, rep, i, d
	}'
}
# jall FILTER [FILE]: at least one output of FILTER, and all true (jq 1.6's -e
# looks at the last output only, and a trailing non-match exits 4).
valid() { echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'; }
slo="--ttft-slo-ms 500 --tpot-slo-ms 50 --resamples 500"

test_expect_success 'crafted run: exact counts (conjunction, failed as miss)' '
	{ mk a 2 1 6 2 3 0 0 4 20; valid; } >in &&
	gp-analyze $slo in >out &&
	jq -e -s "[.[] | select(.type == \"goodfrac\")] | length == 1" out &&
	jall "select(.type == \"goodfrac\") | .arm == \"a\" and .rate_rps == 2 and .rep == 1
		and .attempted == 15 and .good == 6 and .paired == 11 and .single_token == 0
		and .failed == 4 and .good_fraction == 0.4" out
'

test_expect_success 'OR instead of AND would count 11 good; we count 6' '
	jall "select(.type == \"goodfrac\") | .good != 11" out
'

test_expect_success 'failed requests stay in the denominator' '
	{ mk a 2 1 10 0 0 0 0 10; valid; } >in2 &&
	gp-analyze $slo in2 | jall "select(.type == \"goodfrac\") | .attempted == 20 and .good_fraction == 0.5"
'

test_expect_success 'single-token requests judged on TTFT alone by default' '
	{ mk a 2 1 4 0 0 3 1 2; valid; } >in3 &&
	gp-analyze $slo in3 >o3 &&
	jall "select(.type == \"goodfrac\") | .attempted == 10 and .good == 7 and .single_token == 4
		and .good_single_token == 3 and .paired == 4 and .good_fraction == 0.7" o3 &&
	jall "select(.type == \"slo\") | .single_token == \"ttft\"" o3
'

test_expect_success '--single-token miss makes them misses, still counted apart' '
	gp-analyze $slo --single-token miss in3 >o4 &&
	jall "select(.type == \"goodfrac\") | .good == 4 and .single_token == 4
		and .good_single_token == 0 and .good_fraction == 0.4" o4 &&
	jall "select(.type == \"slo\") | .single_token == \"miss\"" o4
'

# Sends every 0.5 s: the achieved rate (n − 1)/span is 2 req/s in both reps.
# good_rps is over the send window (good_fraction x achieved_rps), the
# drain-inclusive good / duration_s beside it.
test_expect_success 'good_rps over the send window; good_rps_drain from run_end duration_s, else the t_sent_s span' '
	{ mk a 2 1 6 2 3 0 0 4 20; mk a 2 2 8 0 0 0 0 2; valid; } >in5 &&
	gp-analyze $slo in5 >o5 &&
	jall "select(.type == \"goodfrac\" and .rep == 1) | .good_rps_drain == 0.3 and .duration_s == 20
		and .duration_from == \"run_end\" and .achieved_rps == 2 and .achieved_from == \"t_sent_span\"
		and (.good_rps - 0.8 | . * . < 1e-18) and .rate_deviation == 0" o5 &&
	jall "select(.type == \"goodfrac\" and .rep == 2) | .duration_s == 4.5 and (.good_rps_drain - 8 / 4.5 | . * . < 1e-18)
		and (.good_rps - 1.6 | . * . < 1e-18) and .duration_from == \"t_sent_span\"" o5 &&
	jall "select(.type == \"arm_summary\") | (.goodput_rps - 1.2 | . * . < 1e-18) and .achieved_rps == 2" o5 &&
	jall "select(.type == \"arm_summary\") | .reps == 2 and .mean_good_fraction == 0.6
		and .attempted == 25 and .good == 14 and .failed == 6" o5
'

test_expect_success 'arm_summary: quantile CIs (BCa and cluster) and good-fraction CIs' '
	jall "select(.type == \"arm_summary\") |
		(.ttft_ms | keys == [\"p50\",\"p90\",\"p99\"]) and .ttft_ms.p50.method == \"bca\"
		and .ttft_ms_cluster.p99.method == \"cluster\" and .tpot_ms.p90.level == 0.95
		and .tpot_ms_cluster.p50.est == .tpot_ms.p50.est
		and .good_fraction_ci.method == \"t\" and .good_fraction_pooled.method == \"bca\"
		and .good_fraction_pooled.est == 0.56 and (.cv | type) == \"number\"" o5
'

# 19 paired requests: p50 has data for its interval (n >= 10), p90 (n < 50)
# and p99 (n < 500) are flagged sparse — the thresholds where the BCa interval
# loses its coverage in bench/bench-coverage.sh.
test_expect_success 'tail quantiles without the data for them are flagged sparse' '
	jall "select(.type == \"arm_summary\") | .ttft_ms.p50.n == 19 and .ttft_ms.p50.sparse == false
		and .ttft_ms.p90.sparse == true and .ttft_ms.p99.sparse == true
		and .tpot_ms_cluster.p99.sparse == true" o5
'
test_expect_success 'one rep: cv null, the cluster intervals degenerate, no NaN' '
	gp-analyze $slo in >o6 &&
	jall "select(.type == \"arm_summary\") | .cv == null and .reps == 1
		and .ttft_ms_cluster.p50.degenerate == true and .good_fraction_ci.lo == .good_fraction_ci.hi" o6 &&
	! grep -qi nan o6
'

test_expect_success 'an arm with no paired request: latency CIs are null, not NaN' '
	{ mk z 1 1 0 0 0 0 0 5; mk z 1 2 0 0 0 0 0 5; valid; } >in7 &&
	gp-analyze $slo in7 >o7 &&
	jall "select(.type == \"arm_summary\") | .ttft_ms.p50.est == null and .ttft_ms.p50.lo == null
		and .mean_good_fraction == 0 and .cv == null" o7 &&
	! grep -qi nan o7
'

# Every record carries every field of its doc/records.md contract, null where a
# value is undefined.  (jansson cannot write NaN: a NaN would silently drop
# the field, so "no NaN" means "no field missing".)
contract() {
	jq -e -s '
	def need($k): . as $o | all($k[]; . as $x | $o | has($x));
	def ci: need(["est", "lo", "hi", "level", "method"]);
	def q: need(["p50", "p90", "p99"]) and ([.p50, .p90, .p99] | all(ci));
	length > 0 and all(.[];
		if .type == "slo" then need(["ttft_ms", "tpot_ms", "origin", "baseline_stat", "multiple"])
		elif .type == "goodfrac" then need(["arm", "rate_rps", "rep", "attempted", "good", "paired",
			"single_token", "failed", "good_fraction"])
		elif .type == "arm_summary" then need(["arm", "rate_rps", "reps", "mean_good_fraction", "cv",
			"ttft_ms", "tpot_ms"]) and (.ttft_ms | q) and (.tpot_ms | q)
		elif .type == "noise_floor" then need(["arm", "rate_rps", "reps", "mean", "half_width", "lo", "hi"])
		elif .type == "compare" then need(["arm", "vs", "rate_rps", "diff", "lo", "hi", "level", "method",
			"verdict"]) and ((has("tost") | not) or (.tost | need(["delta", "lo90", "hi90", "p_lower",
			"p_upper", "p", "equivalent"])))
		elif .type == "knee" then need(["arm", "rate_rps", "good_fraction", "target", "goodput_rps",
			"accelerators", "goodput_rps_per_accel"])
		else true end)' "$1" >/dev/null
}
test_expect_success 'degenerate input: every contract field present (null, never dropped as NaN)' '
	{ mk f 1 1 0 0 0 0 0 4; mk x 1 1 0 0 0 0 0 4; mk y 2 1 0 0 0 1 0 0; mk z 1 1 0 0 0 0 0 5; mk z 1 2 0 0 0 0 0 5; valid; } >deg &&
	gp-analyze $slo --floor f --equiv f --delta 0.1 deg >od1 && contract od1 &&
	gp-analyze $slo --floor f --equiv z --delta 0.1 deg >od2 && contract od2 &&
	jq -e -s "[.[] | .type] | (index(\"compare\") != null) and (index(\"noise_floor\") != null) and (index(\"knee\") != null)" od2 >/dev/null &&
	jq -c "select(.type == \"compare\" and .arm == \"y\")" od1 >r &&
	jall ".diff == null and .tost.lo90 == null and .tost.p == null and .tost.equivalent == false" r
'
test_expect_success 'ordinary input: every contract field present' '
	gp-analyze $slo --floor a --equiv a --delta 0.05 in5 >oc && contract oc
'
test_done
