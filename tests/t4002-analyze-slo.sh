#!/bin/sh
# gp-analyze SLO: fixed, or a multiple of a statistic of the unloaded
# baseline's ok requests; the slo record; usage errors.
#
# Baseline: ttft {100,100,200,400,1000}, tpot {10,10,20,40,100} (ok), plus a
# failed and a single-token request that must not count.  Type-7 quantiles
# (np.quantile): p50 200 / 20, p90 760 / 76, p99 976 / 97.6; mean 360 / 36.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"

req() { # ARM REP ID TTFT TPOT OUTCOME
	printf '{"type":"request","arm":"%s","rate_rps":1,"rep":%s,"id":"%s","ttft_ms":%s,"tpot_ms":%s,"outcome":"%s"}\n' "$@"
}
{
	req base 1 b1 100 10 ok; req base 1 b2 100 10 ok; req base 1 b3 200 20 ok
	req base 1 b4 400 40 ok; req base 1 b5 1000 100 ok
	req base 1 b6 null null failed; req base 1 b7 5 null single_token
	echo '{"type":"run","run":"b","arm":"base","rep":1,"rate_rps":1,"url":"http://127.0.0.1:8080"}'
	echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'
} >baseline.ndjson
# The measured run: TTFT 350/450, TPOT 35/45 in every combination.
{
	req a 1 r1 350 35 ok; req a 1 r2 350 45 ok; req a 1 r3 450 35 ok; req a 1 r4 450 45 ok
	echo '{"type":"run","run":"r","arm":"a","rep":1,"rate_rps":1,"url":"http://127.0.0.1:8080"}'
	echo '{"type":"validity","kept":1,"discarded":0,"rules":[]}'
} >run.ndjson

test_expect_success 'fixed SLO: the slo record says so' '
	gp-analyze --ttft-slo-ms 400 --tpot-slo-ms 40 --resamples 200 run.ndjson >o &&
	jall "select(.type == \"slo\") | .ttft_ms == 400 and .tpot_ms == 40 and .origin == \"fixed\"
		and .baseline_stat == null and .multiple == null and .baseline_requests == null" o &&
	jall "select(.type == \"goodfrac\") | .good == 1" o
'

test_expect_success 'baseline SLO: 2 x p50 of the ok baseline requests (default stat)' '
	gp-analyze --slo-baseline baseline.ndjson --slo-multiple 2 --resamples 200 run.ndjson >o &&
	jall "select(.type == \"slo\") | .ttft_ms == 400 and .tpot_ms == 40 and .origin == \"baseline\"
		and .baseline_stat == \"p50\" and .multiple == 2 and .baseline_requests == 5
		and .seed != null and .resamples == 200" o &&
	jall "select(.type == \"goodfrac\") | .good == 1 and .good_fraction == 0.25" o
'

test_expect_success 'baseline SLO with --slo-stat p90, mean, p99' '
	gp-analyze --slo-baseline baseline.ndjson --slo-multiple 1 --slo-stat p90 --resamples 200 run.ndjson >o &&
	near_rel "$(jq -r "select(.type == \"slo\") | .ttft_ms" o)" 760 &&
	near_rel "$(jq -r "select(.type == \"slo\") | .tpot_ms" o)" 76 &&
	gp-analyze --slo-baseline baseline.ndjson --slo-multiple 1.25 --slo-stat mean --resamples 200 run.ndjson >o &&
	near_rel "$(jq -r "select(.type == \"slo\") | .ttft_ms" o)" 450 &&
	near_rel "$(jq -r "select(.type == \"slo\") | .tpot_ms" o)" 45 &&
	jall "select(.type == \"goodfrac\") | .good == 4" o &&
	gp-analyze --slo-baseline baseline.ndjson --slo-multiple 1 --slo-stat p99 --resamples 200 run.ndjson >o &&
	near_rel "$(jq -r "select(.type == \"slo\") | .ttft_ms" o)" 976
'

# The baseline's provenance (method §9.1): validity passed, one arm, a low
# rate, the same URL as the arms — or the slo record says it was not.
test_expect_success 'baseline provenance: arm, rate, url, validity in the slo record' '
	gp-analyze --slo-baseline baseline.ndjson --slo-multiple 2 --resamples 200 run.ndjson >o &&
	jall "select(.type == \"slo\") | .baseline_arm == \"base\" and .baseline_rate_rps == 1
		and .baseline_url == \"http://127.0.0.1:8080\" and .baseline_validity == true
		and .baseline_low_rate == true and .baseline_same_url == true" o &&
	sed "s/8080/9999/" baseline.ndjson >other-url.ndjson &&
	gp-analyze --slo-baseline other-url.ndjson --slo-multiple 2 --resamples 200 run.ndjson >o &&
	jall "select(.type == \"slo\") | .baseline_same_url == false" o
'
test_expect_code 65 'a baseline that has not passed validity is refused' '
	grep -v validity baseline.ndjson >raw.ndjson &&
	gp-analyze --slo-baseline raw.ndjson --slo-multiple 2 run.ndjson 2>err;
	rc=$?; grep -q "raw.ndjson: the baseline has not passed the validity filter" err && exit $rc
'
test_expect_code 65 'a baseline of two arms is refused' '
	{ cat baseline.ndjson; req other 1 z 100 10 ok; } >two.ndjson &&
	gp-analyze --slo-baseline two.ndjson --slo-multiple 2 run.ndjson 2>err;
	rc=$?; grep -q "arms .base. and .other.: a baseline is one arm" err && exit $rc
'
test_expect_success '--pass copies the baseline ok requests for the integrity re-derivation' '
	gp-analyze --pass --slo-baseline baseline.ndjson --slo-multiple 2 --resamples 200 run.ndjson >o &&
	test $(jq -c "select(.type == \"baseline_request\")" o | wc -l) = 5 &&
	jall "select(.type == \"baseline_request\") | .arm == \"base\" and (.ttft_ms | type) == \"number\"" o
'
test_expect_code 65 'a baseline without ok requests is a data error naming the file' '
	{ req base 1 x null null failed; echo "{\"type\":\"validity\"}"; } >empty.ndjson &&
	gp-analyze --slo-baseline empty.ndjson --slo-multiple 2 run.ndjson 2>err;
	rc=$?; grep -q "empty.ndjson: no ok request records" err && exit $rc
'

test_expect_code 2 'no SLO at all is a usage error' 'gp-analyze run.ndjson'
test_expect_code 2 'half a fixed SLO is a usage error' 'gp-analyze --ttft-slo-ms 400 run.ndjson'
test_expect_code 2 'a baseline without a multiple is a usage error' 'gp-analyze --slo-baseline baseline.ndjson run.ndjson'
test_expect_code 2 'fixed and baseline together is a usage error' \
	'gp-analyze --slo-baseline baseline.ndjson --slo-multiple 2 --ttft-slo-ms 1 --tpot-slo-ms 1 run.ndjson'
test_expect_code 2 'an unknown --slo-stat is a usage error' \
	'gp-analyze --slo-baseline baseline.ndjson --slo-multiple 2 --slo-stat p95 run.ndjson'
test_done
