#!/bin/sh
# examples/calibrate.sh runs as documented: a heterogeneous fleet (gp-sim
# --speed 1,1,0.5, every backend of role "both") calibrated for both roles,
# the three backends at once with GNU parallel (the two roles of a backend
# one after the other); the slow member is the reference of each role and the
# ladder's rates follow from its capacity.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
command -v parallel >/dev/null || skip_all "no GNU parallel"
test -x "$GP_BIN/gp-calibrate" && test -x "$GP_BIN/gp-sim" || skip_all "gp-calibrate or gp-sim not built"

# gp-sim's model with --decode-ms 0: an engine prefills prefill_tok_s x speed
# tokens/s, and a decode step of B sequences lasts decode_ms_per_seq x B /
# speed ms for B tokens: 1000 x speed / decode_ms_per_seq tok/s whatever B
# (the same in a serial-prefill and in a step-loop model, where --decode-ms
# is the fixed time of every step).  Rates are kept low (500 and 250 output
# tok/s) so that a loaded machine does not starve gp-sim itself.
start_sim --backends 3 --speed 1,1,0.5 --prefill-tok-s 40000 --max-batch 8 --decode-ms 0 \
	--decode-ms-per-seq 2 || exit 1
{
	echo '{"model": "gp-sim", "vips": [{"name": "vip", "url": "http://127.0.0.1:1"}], "backends": ['
	for i in 0 1 2; do
		p=$((SIM_PORT + i))
		[ $i = 0 ] || echo ,
		echo "{\"name\": \"b$((i + 1))\", \"url\": \"http://127.0.0.1:$p\", \"metrics_url\": \"http://127.0.0.1:$p/metrics\", \"role\": \"both\"}"
	done
	echo ']}'
} >fleet.json
# Decode: 16 output tokens, 31 and 16 req/s; prefill: 40 and 20 req/s.  The
# lateness bound is 1 s: on a shared 2-core machine a descheduled driver is
# not what this test is about (t7020 tests the late driver); the queue
# carries the verdict.
gp-calibrate protocol --start-rps 5 --ramp 1.5 --warmup-s 0.5 --hold-s 1.5 --hold-requests 10 \
	--prefill-input-tokens 1000 --decode-input-tokens 8 --decode-output-tokens 16 \
	--sample-s 0.05 --late-ms 1000 --full-step-pct 80 --max-steps 10 >protocol.json
printf '%s\n' '{"id":"a","t_s":0,"input_tokens":1000,"output_tokens":16}' >trace.ndjson

test_expect_success 'examples/calibrate.sh: six sweeps, three at once, every one saturated' '
	sh "$GP_TOP/examples/calibrate.sh" fleet.json protocol.json trace.ndjson out 2>err &&
	test "$(ls out/cal-*.ndjson | wc -l)" = 6 &&
	jq -s -e "map(select(.type == \"capacity\")) | length == 6 and all(.[]; .saturated)" \
		out/capacity.ndjson >/dev/null
'
test_expect_success 'the slow member is the reference of both roles' '
	jq -s -e "length == 2 and all(.[]; .reference == \"b3\" and .members == 3)" out/ladder.ndjson >/dev/null
'
# b3 (speed 0.5): 20000 prompt tok/s, 250 output tok/s.
test_expect_success 'its capacities are within 15 % of the model, and the rates follow' '
	jq -s -e "map({(.role): .}) | add |
		((.prefill.reference_capacity_tok_s / 20000 - 1) | fabs) <= 0.15 and
		((.decode.reference_capacity_tok_s / 250 - 1) | fabs) <= 0.15 and
		((.decode.rates_rps.moderate - 0.8 * 3 * .decode.reference_capacity_tok_s / 16) | fabs) < 1e-9 and
		.decode.binding" out/ladder.ndjson >/dev/null
'
say "$(jq -r '"\(.role): reference \(.reference) \(.reference_capacity_tok_s) tok/s"' out/ladder.ndjson | tr '\n' ' ')"
# The man page's EXAMPLES block, as written but for the protocol line (30 s
# holds there; this test's fast protocol here).
mkdir man && cp fleet.json trace.ndjson man/ &&
sed -n '/^.SH EXAMPLES/,/^.SH SEE/p' "$GP_TOP/doc/gp-calibrate.1" | sed -n '/^\.nf/,/^\.fi/p' |
	grep -v '^\.' | sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >man/example.sh
test_expect_success 'the man page example: found, and it runs' '
	grep -q "^gp-calibrate protocol" man/example.sh &&
	sed -i "s/^gp-calibrate protocol .*/cp ..\/protocol.json protocol.json/" man/example.sh &&
	(cd man && bash -e -o pipefail example.sh >out 2>err) &&
	jq -s -e "(.[:-1] | length == 2 and all(.[]; .unsaturated > 0 and .moderate > .unsaturated and
		.saturated > .moderate)) and .[-1].type == \"calib_check\" and .[-1].stale == false" man/out >/dev/null &&
	test "$(ls man/cal-*.ndjson | wc -l)" = 6 && ! grep -q recalibrate man/out
'
test_done
