#!/bin/sh
# prove: serial — it judges live replays' timing end to end (a whole campaign)
# The campaign on a fleet with a slow member (issue 22): gp-sim, 4 engines,
# the fourth at half speed, behind HAProxy, arms rr and chash, shortened as
# in t9000.  With the SLO at 2 x the baseline's p50 the slow member cannot
# meet it even unloaded (its idle baseline, gp-calibrate idle): NOT
# PUBLISHABLE, the design: slo_feasible reason naming b4 and both figures,
# and no "every gate passed".  The same runs judged with the SLO at 4 x:
# feasible, and the verdict answers (goodput@SLO at the knees).
. "$(dirname "$0")/lib.sh"

for c in jq haproxy curl flock setsid; do
	command -v $c >/dev/null || skip_all "no $c"
done
for t in gp-sim gp-health gp-probe gp-calibrate gp-replay gp-verify gp-analyze gp-report gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
command -v gnuplot >/dev/null || skip_all "no gnuplot (gp-report's plots)"
C=$GP_TOP/examples/campaign
BASE=$(free_port_range 7) || skip_all "no free ports"
export GP_B1=127.0.0.1:$BASE GP_B2=127.0.0.1:$((BASE + 1)) GP_B3=127.0.0.1:$((BASE + 2)) \
	GP_B4=127.0.0.1:$((BASE + 3)) GP_ROUTER=127.0.0.1:$((BASE + 4)) \
	GP_VIP_PORT=$((BASE + 5)) GP_PROM_PORT=$((BASE + 6))
# The demo's protocol, shortened as in t9000, with the SLO at 2 x.
jq '.arms = ["rr", "chash"] | .compare = [] | .min_reps = 3 | .rep_cap = 3 | .run.duration_s = 2 | .run.schedule = "poisson" | del(.run.resolution) | del(.ladder.grow) |
    .ladder.rungs = ["unsaturated", "moderate"] | .ladder.unsaturated = 0.3 | .ladder.moderate = 0.5 |
    .slo.multiple = 2 | .slo.idle_requests = 4 | .calibration.roles = ["prefill"] |
    .calibration.prefill.start_rps = 3 | .calibration.prefill.hold_s = 3 |
    .trace.synth = "--requests 60 --rate-rps 10 --keys 8 --zipf 0.8 --prefix-tokens 2048 --input-tokens uniform:2100:2400 --output-tokens 16 --block-tokens 512 --seed 7"' \
    "$C/protocol.json" >protocol.json
jq '.slo.multiple = 4' protocol.json >protocol4.json
sed -e "s|\${GP_TOP}|$GP_TOP|g; s/\${GP_VIP_PORT}/$GP_VIP_PORT/g; s/\${GP_PROM_PORT}/$GP_PROM_PORT/g" \
    -e "s/\${GP_ROUTER}/$GP_ROUTER/g" \
    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" \
    "$C/fleet.json" | jq '.arms |= map(select(.name | IN("rr", "chash")))' >fleet.json
gp-sim --port "$BASE" --backends 4 --speed 2,2,2,1 --prefill-tok-s 10000 --decode-ms 6 \
	--decode-ms-per-seq 0.2 --max-batch 32 --kv-blocks 1000 --block-tokens 16 \
	--max-model-len 8192 --router "${GP_ROUTER#*:}" --policy kv 2>sim.log &
cleanup_pid $!
for p in 0 1 2 3 4; do wait_port $((BASE + p)) || fail_all "gp-sim did not start"; done
down() { FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/$1 OUT=$TRASH/$2 sh "$C/campaign.sh" down 2>/dev/null; }
trap 'down protocol.json out; down protocol4.json out4; _cleanup' EXIT
M="make --no-print-directory -j4 -f $C/Makefile FLEET=$TRASH/fleet.json"
verdict() { zcat "$1/all.ndjson.gz" | jq -c 'select(.type == "verdict")'; }

test_expect_success 'SLO 2 x: the campaign runs to a verdict' '
	{ setsid $M PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out all >make.out 2>make.err; } ||
		{ tail -n 20 make.err; exit 1; }
	verdict out | grep -q .
'
test_expect_success 'the idle baseline: b4 at about twice the others unloaded' '
	jq -s -e "map(select(.type == \"idle_baseline\")) | length == 4 and
		(.[3].ttft_ms.p50 > 1.7 * .[0].ttft_ms.p50)" out/idle.ndjson >/dev/null
'
test_expect_success 'SLO 2 x: NOT PUBLISHABLE, design: slo_feasible naming b4 and both figures' '
	verdict out >v.json &&
	jq -e ".publishable == false" v.json >/dev/null &&
	jq -r ".reasons[] | select(startswith(\"design: slo_feasible: \"))" v.json >feas &&
	grep -q "member b4 cannot meet the SLO unloaded: idle p50 TTFT [0-9.]* ms x 1.10 = [0-9.]* ms > SLO [0-9.]* ms" feas &&
	! grep -q "member b[123]" feas &&
	zcat out/all.ndjson.gz | jq -s -e "map(select(.type == \"design\" and .gate == \"slo_feasible\"))[0].infeasible | index(\"b4\")" >/dev/null ||
	{ cat v.json; exit 1; }
'
test_expect_success 'SLO 2 x: the other design gates hold on the campaign' '
	zcat out/all.ndjson.gz | jq -s -e "map(select(.type == \"design\" and .gate != \"slo_feasible\")) |
		length == 5 and all(.[]; .status == \"ok\")" >/dev/null ||
	{ zcat out/all.ndjson.gz | jq -c "select(.type == \"design\")"; exit 1; }
'
test_expect_success 'SLO 2 x: the table says NOT PUBLISHABLE and what the verdict answers' '
	grep -q "^verdict: NOT PUBLISHABLE" out/table.txt && grep -q "^  answer: " out/table.txt &&
	grep -q "design: slo_feasible: member b4" out/table.txt && ! grep -qi "every gate passed" out/table.txt
'

# The same campaign judged at 4 x: its runs, idle baselines and capacities
# kept (the SLO is the analysis's, not the replay's), the verdict redone.
cp -r out out4 && rm -rf out4/plan.mk out4/verdict.ndjson out4/all.ndjson.gz out4/table.txt out4/report &&
	cp protocol4.json out4/protocol.json
test_expect_success 'SLO 4 x: the same runs judged again' '
	FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol4.json OUT=$TRASH/out4 sh "$C/campaign.sh" up rr 2>up.err &&
	{ setsid $M PROTOCOL=$TRASH/protocol4.json OUT=$TRASH/out4 all >make4.out 2>make4.err; } ||
		{ tail -n 20 make4.err; exit 1; }
	verdict out4 | grep -q .
'
test_expect_success 'SLO 4 x: feasible for every member, and the verdict answers with goodput@SLO at the knees' '
	verdict out4 >v4.json &&
	! jq -r ".reasons[]" v4.json | grep -q "slo_feasible" &&
	zcat out4/all.ndjson.gz | jq -s -e "map(select(.type == \"design\" and .gate == \"slo_feasible\"))[0].status == \"ok\"" >/dev/null &&
	jq -e ".answer | test(\"^(NOT PUBLISHABLE \\\\(see the reasons\\\\): )?goodput@SLO at the knee, per accelerator: \")" v4.json >/dev/null &&
	grep -q "^  answer: .*goodput@SLO at the knee" out4/table.txt || { cat v4.json; exit 1; }
'
say "SLO 2 x: $(jq -r .answer v.json 2>/dev/null); SLO 4 x: $(jq -r '.publishable, .answer' v4.json 2>/dev/null | tr '\n' ' ')"
test_done
