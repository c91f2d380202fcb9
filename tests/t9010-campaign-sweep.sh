#!/bin/sh
# prove: serial — it drives whole campaigns (one per candidate value)
# The tuning loop (examples/campaign: make sweep, method §10) end to end:
# gp-sim's four engines (the fourth at half speed) behind HAProxy, the floor
# arm rr and the swept arm bounded, HAProxy's hash-balance-factor from
# GP_BALANCE.  After the campaign's calibration the fleet file changes (b1
# now has 2 accelerators): gp-calibrate check says so and b1 alone is
# calibrated again.  Value 125 spreads one hot key and is a full campaign;
# value 400 lets the key's home take four times its share, its probe fails
# (spread expected) and it is disqualified with the probe's reason while the
# sweep goes on to a decision.  Then the decision rule alone (decide.jq) on
# summaries made for it, each way.
. "$(dirname "$0")/lib.sh"

for c in jq haproxy curl flock setsid; do
	command -v $c >/dev/null || skip_all "no $c"
done
for t in gp-sim gp-health gp-probe gp-calibrate gp-replay gp-verify gp-analyze gp-report gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
C=$GP_TOP/examples/campaign

# decide.jq first: it needs no fleet.
D="jq -r -s --arg var V -f $C/decide.jq"
row() { printf '{"value":"%s","disqualified":false,"publishable":%s,"wins":%s,"losses":%s,"vs":%s,"rungs":2,"equivalent":%s,"knee_rps":%s}\n' "$@"; }
test_expect_success 'decide: a publishable WIN with no LOSS qualifies; the most WINs first' '
	{ row a true 1 0 null 0 3; row b true 2 0 null 0 2; } | $D >dec &&
	grep -qx "decision: V=b (a publishable WIN over the floor at 2 rung(s), no LOSS)" dec
'
test_expect_success 'decide: not publishable, a LOSS beside the WIN, or disqualified: no change' '
	{ row a false 2 0 null 0 3; row b true 2 1 null 0 4;
	  echo "{\"value\":\"c\",\"disqualified\":true,\"reason\":\"probe x: arm bounded not engaged: expected spread\"}"; } | $D >dec &&
	grep -qx "decision: no value earns a change (none is a publishable WIN over the floor)" dec &&
	grep -qx "V=c: disqualified: probe x: arm bounded not engaged: expected spread" dec
'
test_expect_success 'decide: TOST parity with the comparator at every rung qualifies, at one of two does not' '
	{ row a true 0 0 "\"hash\"" 2 3; } | $D >dec &&
	grep -qx "decision: V=a (publishable, EQUIVALENT to hash at every rung: parity)" dec &&
	{ row a true 0 0 "\"hash\"" 1 3; } | $D >dec &&
	grep -q "^decision: no value earns a change (none is a publishable WIN over the floor or a publishable TOST parity" dec
'

base=$(free_port_range 7) || skip_all "no free ports"
export PATH=$GP_BIN:$PATH GP_TOP
export GP_B1=127.0.0.1:$base GP_B2=127.0.0.1:$((base + 1)) GP_B3=127.0.0.1:$((base + 2)) \
       GP_B4=127.0.0.1:$((base + 3)) GP_ROUTER=127.0.0.1:$((base + 4)) \
       GP_VIP_PORT=$((base + 5)) GP_PROM_PORT=$((base + 6))
gp-sim --port $base --backends 4 --speed 2,2,2,1 --prefill-tok-s 10000 --decode-ms 6 \
       --decode-ms-per-seq 0.2 --max-batch 32 --kv-blocks 1000 --block-tokens 16 \
       --max-model-len 8192 --router ${GP_ROUTER#*:} --policy kv 2>sim.log &
cleanup_pid $!
for p in 0 1 2 3; do wait_port $((base + p)) || fail_all "gp-sim did not start"; done
sed -e "s|\${GP_TOP}|$GP_TOP|g; s/\${GP_VIP_PORT}/$GP_VIP_PORT/g" \
    -e "s/\${GP_PROM_PORT}/$GP_PROM_PORT/g; s/\${GP_ROUTER}/$GP_ROUTER/g" \
    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" \
    "$C/fleet.json" | jq '.arms |= map(select(.name | IN("rr", "bounded")))' >fleet.json
# The demo's protocol, short: one rung, 3 reps (cap 3), 2-s runs, prefill-only
# calibration, a short trace; spread_max 2 as the demo's.
jq '.arms = ["rr", "bounded"] | .compare = [] | .min_reps = 3 | .rep_cap = 3 | .run.duration_s = 2 | .run.schedule = "poisson" | del(.run.resolution) | del(.ladder.grow) |
    .ladder.rungs = ["moderate"] | .ladder.unsaturated = 0.3 | .ladder.moderate = 0.4 |
    .slo.baseline.requests = 6 | .calibration.roles = ["prefill"] |
    .calibration.prefill.start_rps = 3 | .calibration.prefill.hold_s = 3 |
    .trace.synth = "--requests 60 --rate-rps 10 --keys 8 --zipf 0.8 --prefix-tokens 2048 --input-tokens uniform:2100:2400 --output-tokens 16 --block-tokens 512 --seed 7"' \
    "$C/protocol.json" >protocol.json
M="make --no-print-directory -f $C/Makefile PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out"
trap 'FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out sh $C/campaign.sh down 2>/dev/null
      for d in out/sweep/*/; do FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol.json OUT=$TRASH/$d sh $C/campaign.sh down 2>/dev/null; done
      _cleanup' EXIT

test_expect_success 'the campaign up to its ladder: phase 0 and a capacity per engine' '
	$M -j4 FLEET=$TRASH/fleet.json $TRASH/out/ladder.ndjson >make.out 2>make.err ||
		{ tail -n 20 make.err; exit 1; }
	test "$(cat out/cal/b[1-4].ndjson | jq -c "select(.type == \"capacity\" and .saturated)" | wc -l)" = 4
'
cp -p out/cal/b2.ndjson b2.before
jq '(.backends[] | select(.name == "b1") | .accelerators) = 2' fleet.json >fleet2.json
test_expect_success 'make sweep: 125 a campaign, 400 disqualified by its probe, a decision (exit 0)' '
	$M FLEET=$TRASH/fleet2.json sweep SWEEP_ARM=bounded SWEEP_VAR=GP_BALANCE SWEEP_VALUES="125 400" \
		>sweep.out 2>sweep.err || { tail -n 30 sweep.err; exit 1; }
	grep -q "^decision: " out/sweep/decision.txt
'
test_expect_success 'the changed fleet: gp-calibrate check named b1, b1 alone was calibrated again' '
	grep -q "the fleet changed since its calibration: accelerators of http://$GP_B1.*: 1 -> 2" sweep.err &&
	grep -q "calibrating b1 again" sweep.err && ! grep -q "calibrating b[234] again" sweep.err &&
	jq -s -e "map(select(.type == \"capacity\"))[0].accelerators == 2" out/cal/b1.ndjson >/dev/null &&
	cmp -s b2.before out/cal/b2.ndjson &&
	jq -s -e ".[-1].stale == false" out/sweep/check.ndjson >/dev/null
'
test_expect_success '125: a full campaign with a verdict, its summary in candidates.ndjson' '
	jq -s -e "map(select(.value == \"125\"))[0] | (.disqualified | not) and (.publishable | type) == \"boolean\" and
		(.wins | type) == \"number\"" out/sweep/candidates.ndjson >/dev/null &&
	zcat out/sweep/125/all.ndjson.gz | jq -s -e "map(select(.type == \"verdict\")) | length == 1" >/dev/null
'
test_expect_success '400: disqualified with the probe'"'"'s reason (spread expected, concentrated), and the sweep went on' '
	jq -s -e "map(select(.value == \"400\"))[0] | .disqualified and
		(.reason | test(\"arm bounded not engaged: expected spread\"))" out/sweep/candidates.ndjson >/dev/null &&
	grep -q "^GP_BALANCE=400: disqualified: probe " out/sweep/decision.txt &&
	test "$(grep -c "^GP_BALANCE=" out/sweep/decision.txt)" = 2 &&
	! test -e out/sweep/400/gateway.pid
'
say "$(cat out/sweep/decision.txt | tr '\n' ';')"
test_done
