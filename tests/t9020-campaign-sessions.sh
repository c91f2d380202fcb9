#!/bin/sh
# prove: serial — it judges live replays' timing end to end (a whole campaign)
# A session campaign: doc/campaign.md's worked example as written, with the
# protocol of examples/campaign/protocol-sessions.json (multi-turn sessions
# over a long first message), shortened as t9000 shortens the demo's: two arms
# (rr, bounded: consistent hashing with bounded loads — the demo fleet's slow
# fourth engine makes unbounded chash lose), two rungs, 3 reps.  The campaign runs to a verdict with every
# phase; the runs are session replays (sessions start on the schedule, later
# turns closed loop) that pass validity; gp-analyze's turns records show
# bounded's turn 3+ TTFT far below its turn 1 and rr's; the report has the
# by-turn table.
. "$(dirname "$0")/lib.sh"

for c in jq haproxy curl flock gnuplot setsid; do
	command -v $c >/dev/null || skip_all "no $c"
done
for t in gp-sim gp-health gp-probe gp-calibrate gp-replay gp-verify gp-analyze gp-report gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
C=$GP_TOP/examples/campaign

BASE=$(free_port_range 7) || skip_all "no free ports"
jq '.arms = ["rr", "bounded"] | .min_reps = 3 | .rep_cap = 3 | .run.duration_s = 3 |
    .ladder.rungs = ["unsaturated", "moderate"] | .ladder.unsaturated = 0.06 | .ladder.moderate = 0.12 |
    .slo.baseline.requests = 6 | .calibration.roles = ["prefill"] |
    .calibration.prefill.start_rps = 3 | .calibration.prefill.hold_s = 3 |
    .trace.synth |= sub("--sessions [0-9]+"; "--sessions 120")' \
    "$C/protocol-sessions.json" >protocol.json
awk '/^## A worked example/ { w = 1 } w && /^```sh$/ { on = 1; next } on && /^```$/ { exit } on' \
	"$GP_TOP/doc/campaign.md" >example.sh
cleanup_gw() {
	FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out sh "$C/campaign.sh" down 2>/dev/null
	[ -s ex.pid ] && kill -- "-$(cat ex.pid)" 2>/dev/null
}
trap 'cleanup_gw; _cleanup' EXIT
test_expect_success 'the worked example with the session protocol runs the whole campaign to a verdict' '
	grep -q -- "--sessions 120 " protocol.json &&
	{ env BASE=$BASE PROTOCOL=$TRASH/protocol.json setsid sh -e example.sh >make.out 2>make.err &
	  echo $! >ex.pid; wait $!; } || { tail -n 20 make.err; exit 1; }
	grep -q "^verdict: " make.out
'
O=out
test_expect_success 'the runs are session replays: turn 1 on the schedule, later turns closed loop, all recorded' '
	for f in $O/runs/*/*/*.ndjson.gz; do
		zcat $f | jq -s -e "(map(select(.type == \"run\"))[0].sessions == 120) and
			(map(select(.type == \"request\")) | length > 0 and all(.session != null) and any(.turn > 1)) and
			(map(select(.type == \"run_end\"))[0] | .attempted == ([$(zcat $f | jq -c "select(.type == \"request\")" | wc -l)][0]))" >/dev/null || exit 1
	done
'
test_expect_success 'every run passed validity (the open-loop starts held to the label)' '
	zcat $O/all.ndjson.gz | jq -c "select(.type == \"discard\") | {arm, rate_rps, rep, reasons}" >disc &&
	say "$(cat disc)" && test ! -s disc &&
	zcat $O/all.ndjson.gz | jq -s -e "map(select(.type == \"validity\"))[0] | .discarded == 0 and .kept >= 12" >/dev/null
'
# At the lowest rung, below saturation: above it the queue and bounded loads'
# spill (a session moved off its engine when that one is over the bound)
# mask the cache, and its turn-2/3 p50 was seen anywhere from 16 to 135 ms.
test_expect_success 'turns records: bounded turn 3+ TTFT p50 under half its turn 1 and half rr at the lowest rung' '
	zcat $O/all.ndjson.gz | jq -c "select(.type == \"turns\")" >turns &&
	say "$(jq -c "{arm, rate_rps, p50: (.by_turn | map(.ttft_p50_ms)), good: (.by_turn | map(.good_fraction))}" turns)" &&
	test "$(wc -l <turns)" = 4 &&
	jq -s -e "group_by(.rate_rps) | .[0:1] | all(
		(map(select(.arm == \"bounded\"))[0].by_turn) as \$c | (map(select(.arm == \"rr\"))[0].by_turn) as \$r |
		\$c[2].ttft_p50_ms < \$c[0].ttft_p50_ms / 2 and \$c[2].ttft_p50_ms < \$r[2].ttft_p50_ms / 2)" turns >/dev/null
'
test_expect_success 'the report has the by-turn table and plot' '
	grep -q "^## Sessions: by turn" $O/report/report.md &&
	test -s $O/report/turns.png && test -s $O/report/turns.svg
'
say "session campaign: $(sed -n 's/^verdict: //p' make.out)"
say "turns: $(jq -c "{arm, rate_rps, p50: (.by_turn | map(.ttft_p50_ms)), good: (.by_turn | map(.good_fraction))}" turns 2>/dev/null | tr "\n" " ")"
test_done
