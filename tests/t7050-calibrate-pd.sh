#!/bin/sh
# Phase 1 on a disaggregated fleet: gp-sim --roles prefill,prefill,decode,decode
# behind its pd router; examples/calibrate.sh calibrates each member for its
# own role only (prefill tok/s on the prefill members, decode tok/s on the
# decode members), directly, never through the router; the ladder has one
# record per role, each over its own two members, and names the binding role.
. "$(dirname "$0")/lib.sh"

command -v parallel >/dev/null || skip_all "no GNU parallel"
SIM_PORT=$(free_port_range 5) || fail_all "no free ports"
R=$((SIM_PORT + 4))
# See t7030 for the model's capacities with --decode-ms 0: prefill members
# 40000 and 20000 prompt tok/s (speed 1 and 0.5), decode members 500 output
# tok/s each.
gp-sim --port "$SIM_PORT" --backends 4 --roles prefill,prefill,decode,decode --speed 1,0.5,1,1 \
	--router "$R" --policy pd --prefill-tok-s 40000 --max-batch 8 --decode-ms 0 \
	--decode-ms-per-seq 2 2>sim.log &
cleanup_pid $!
for b in 0 1 2 3 4; do wait_port $((SIM_PORT + b)) || fail_all "gp-sim did not start"; done
jq -n --arg p "$SIM_PORT" --arg r "$R" '{model: "gp-sim", vips: [{name: "vip", url: "http://127.0.0.1:\($r)"}],
	backends: [range(4) as $i | {name: (if $i < 2 then "p\($i + 1)" else "d\($i - 1)" end),
		url: "http://127.0.0.1:\(($p | tonumber) + $i)", metrics_url: "http://127.0.0.1:\(($p | tonumber) + $i)/metrics",
		role: (if $i < 2 then "prefill" else "decode" end)}],
	receipt_header: "x-gp-receipt",
	arms: [{name: "pd", expect: "concentrate", routes_by_cache: true, disaggregated: true, up_cmd: "true"}]}' >fleet.json
gp-calibrate protocol --start-rps 5 --ramp 1.5 --warmup-s 0.5 --hold-s 1.5 --hold-requests 10 \
	--prefill-input-tokens 1000 --decode-input-tokens 8 --decode-output-tokens 16 \
	--sample-s 0.05 --late-ms 1000 --full-step-pct 80 --max-steps 10 >protocol.json
printf '%s\n' '{"id":"a","t_s":0,"input_tokens":1000,"output_tokens":16}' >trace.ndjson

test_expect_success 'four sweeps, each member for its own role only, every one saturated' '
	sh "$GP_TOP/examples/calibrate.sh" fleet.json protocol.json trace.ndjson out 2>err &&
	ls out/cal-*.ndjson | sed "s|.*/cal-||; s|.ndjson||" | sort | tr "\n" " " >jobs &&
	test "$(cat jobs)" = "d1-decode d2-decode p1-prefill p2-prefill " &&
	jq -s -e "map(select(.type == \"capacity\")) | length == 4 and all(.[]; .saturated)" out/capacity.ndjson >/dev/null
'
test_expect_success 'no sweep went through the pd router' '
	curl -s "http://127.0.0.1:$R/metrics" | grep -q "^gp_router_requests_total 0$"
'
test_expect_success 'the ladder: a prefill record over p1, p2 (p2 the reference, at half speed) and a decode record over d1, d2' '
	jq -s -e "length == 2 and (map({(.role): .}) | add |
		.prefill.members == 2 and .prefill.reference == \"p2\" and
		.decode.members == 2 and (.decode.reference == \"d1\" or .decode.reference == \"d2\") and
		((.prefill.reference_capacity_tok_s / 20000 - 1) | fabs) <= 0.15 and
		((.decode.reference_capacity_tok_s / 500 - 1) | fabs) <= 0.15)" out/ladder.ndjson >/dev/null
'
test_expect_success 'one role binds the ladder: the one whose members saturate first at the trace shape' '
	jq -s -e "map(select(.binding)) | length == 1" out/ladder.ndjson >/dev/null &&
	say "binding: $(jq -r "select(.binding) | .role" out/ladder.ndjson); $(jq -r "\"\\(.role): reference \\(.reference) \\(.reference_capacity_tok_s) tok/s\"" out/ladder.ndjson | tr "\n" " ")"
'
test_expect_success 'gp-calibrate check: the capacity records cover the pd fleet' '
	gp-calibrate check --fleet fleet.json out/capacity.ndjson >/dev/null
'
test_expect_code 2 'a member calibrated for a role it does not have is refused, naming both (its capacity would stand in the other role'"'"'s ladder)' '
	gp-calibrate --fleet fleet.json --protocol protocol.json --endpoint p1 --role decode >x 2>err; rc=$?;
	grep -q "refusing --role decode for http://127.0.0.1:$SIM_PORT: its role in fleet.json is prefill" err &&
	test ! -s x && exit $rc
'
test_done
