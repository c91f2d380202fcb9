#!/bin/sh
# gp-report over the records the real tools write (gp-health, gp-probe and
# gp-calibrate against gp-sim and its router, gp-calibrate ladder on a trace):
# every section reads them, the tables hold their numbers, the probe and
# calibration plots are drawn.  This holds gp-report to the producers, not
# to hand-made fixtures.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
cd "$TRASH" || exit 1

for t in gp-sim gp-health gp-probe gp-calibrate gp-trace gp-report; do
	command -v $t >/dev/null || skip_all "$t not built"
done
command -v jq >/dev/null || skip_all "jq missing"
command -v gnuplot >/dev/null || skip_all "gnuplot missing"

start_router chash || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json

gp-health --fleet fleet.json --arm chash >health.ndjson 2>/dev/null
gp-probe --fleet fleet.json --arm chash --requests 32 --max-tokens 16 --concurrency 8 \
	--interval-ms 40 >probe.ndjson 2>/dev/null
gp-calibrate protocol --start-rps 10 --ramp 1.5 --warmup-s 0.2 --hold-s 0.6 --hold-requests 6 \
	--prefill-input-tokens 1000 --sample-s 0.05 --late-ms 100 --full-step-pct 80 --max-steps 8 >cprot.json
gp-calibrate --fleet fleet.json --endpoint b1 --role prefill --protocol cprot.json \
	-o calib.ndjson 2>/dev/null
gp-trace synth --requests 50 --rate-rps 10 --input-tokens 1000 --output-tokens 16 --seed 1 >trace.ndjson
gp-calibrate ladder --trace trace.ndjson calib.ndjson >ladder.ndjson 2>/dev/null

test_expect_success 'the producers wrote their records' '
	jq -e -s "map(select(.type == \"health_summary\")) | length == 1" health.ndjson >/dev/null &&
	jq -e -s "map(select(.type == \"probe\")) | length == 1" probe.ndjson >/dev/null &&
	jq -e -s "map(select(.type == \"probe_sample\")) | length >= 3" probe.ndjson >/dev/null &&
	jq -e -s "map(select(.type == \"calib_step\")) | length >= 3" calib.ndjson >/dev/null &&
	jq -e -s "map(select(.type == \"capacity\")) | length == 1" calib.ndjson >/dev/null
'
test_expect_success 'gp-report reads them all (exit 0) and draws probe and calibration' '
	gp-report -q -o out --html health.ndjson probe.ndjson calib.ndjson ladder.ndjson 2>err &&
	test -s out/probe.png && test -s out/calib.png && test -s out/report.html
'
test_expect_success 'health: a row per arm, check and target, the rounds, the failed count' '
	n=$(jq -s "map(select(.type == \"health\")) | length" health.ndjson) &&
	bad=$(jq -s "map(select(.type == \"health\" and .ok != true)) | length" health.ndjson) &&
	groups=$(jq -s "map(select(.type == \"health\") | [.arm, .check, .name, .target]) | unique | length" health.ndjson) &&
	grep -qF "$n checks, $bad failed." out/report.md &&
	test $(sed -n "/^## Phase 0/,/^## Phase 1/p" out/report.md | grep -cE "^\| chash \| [a-z_]+ \| [^|]+ \| [0-9]+ \| [0-9]+ \|") = $groups &&
	if jq -e "select(.type == \"health_summary\") | .ready" health.ndjson >/dev/null
	then grep -qF "1 health round (gp-health runs): 1 READY, 0 NOT READY." out/report.md
	else grep -qF "1 health round (gp-health runs): 0 READY, 1 NOT READY." out/report.md; fi
'
test_expect_success 'probe: the verdict row, and one plotted point per busy sample' '
	jq -r "select(.type == \"probe\") | [.arm, .expect, (if .engaged then \"ENGAGED\" else \"NOT ENGAGED\" end)] | @tsv" \
		probe.ndjson | { IFS="	" read -r a e v;
		grep -qE "^\| $a \| $e \| [0-9.]+ \| (yes|no) \| $v \|" out/report.md; } &&
	test $(grep -vc "^#" out/gnuplot/probe-0.dat) = \
	     $(jq -s "map(select(.type == \"probe_sample\" and .peak_to_mean != null)) | length" probe.ndjson)
'
test_expect_success 'calibration: every step a row and a point, the capacity, the ladder' '
	steps=$(jq -s "map(select(.type == \"calib_step\")) | length" calib.ndjson) &&
	test $(grep -c "^| b1 (http://$GP_B1) | [0-9]* |" out/report.md) = $steps &&
	test $(grep -vc "^#" out/gnuplot/calib-0.dat) = $steps &&
	jq -r "select(.type == \"capacity\") | .verdict" calib.ndjson | while read -r v; do
		grep -qE "^\| b1 \(http://$GP_B1\) \| prefill \| .* \| $v" out/report.md || exit 1; done &&
	if jq -e -s "map(select(.type == \"ladder\")) | length == 1" ladder.ndjson >/dev/null; then
		m=$(jq -r "select(.type == \"ladder\") | .rates_rps.moderate" ladder.ndjson) &&
		want=$(awk -v m=$m "BEGIN { printf \"%.4g\", m }") &&
		grep -qE "^\| prefill \| [^|]* \| [^|]* \| $want \|" out/report.md
	else grep -qF "Not measured: no ladder record." out/report.md; fi
'
test_expect_success 'the calibration plot reads the queue depth the records carry' '
	grep -q "queue_mean" out/gnuplot/calib.gp
'
test_done
