#!/bin/sh
# prove: serial — it judges live replays' timing end to end (a whole campaign)
# examples/campaign end to end, shortened: gp-sim (4 engines) behind HAProxy,
# two arms (rr, chash), two rungs, 3 reps minimum (--min-reps 3: a looser
# threshold than the method's 5, which the verdict must say), short runs.
# Every phase ran and left its records; the verdict and the report exist;
# the runs follow the seeded interleaved order; a second make does nothing.
# Then the adaptive step on its own: ADD_REPLICATES adds reps up to the cap.
. "$(dirname "$0")/lib.sh"

for c in jq haproxy curl flock gnuplot setsid; do
	command -v $c >/dev/null || skip_all "no $c"
done
for t in gp-sim gp-health gp-probe gp-calibrate gp-replay gp-verify gp-analyze gp-report gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
C=$GP_TOP/examples/campaign

BASE=$(free_port_range 7) || skip_all "no free ports"
# The demo's protocol, shortened: 2 arms, 2 rungs, 3 reps (cap 4), 2-s runs,
# Poisson arrivals (the demo's are evenly spaced), prefill-only calibration, a
# short trace; the ladder grows one rung each way
# at most.
jq '.arms = ["rr", "chash"] | .compare = [["chash", "rr"]] | .min_reps = 3 | .rep_cap = 4 | .run.duration_s = 2 | .run.schedule = "poisson" |
    .ladder.grow = {"ratio": 1.5, "max_below": 1, "max_above": 1} | del(.run.resolution) |
    .ladder.rungs = ["unsaturated", "moderate"] | .ladder.unsaturated = 0.3 | .ladder.moderate = 0.5 |
    .slo.baseline.requests = 6 | .calibration.roles = ["prefill"] |
    .calibration.prefill.start_rps = 3 | .calibration.prefill.hold_s = 3 |
    .trace.synth = "--requests 60 --rate-rps 10 --keys 8 --zipf 0.8 --prefix-tokens 2048 --input-tokens uniform:2100:2400 --output-tokens 16 --block-tokens 512 --arrival constant --seed 7"' \
    "$C/protocol.json" >protocol.json
# doc/campaign.md's worked example, as written.
awk '/^## A worked example/ { w = 1 } w && /^```sh$/ { on = 1; next } on && /^```$/ { exit } on' \
	"$GP_TOP/doc/campaign.md" >example.sh
cleanup_gw() {
	FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out sh "$C/campaign.sh" down 2>/dev/null
	[ -s ex.pid ] && kill -- "-$(cat ex.pid)" 2>/dev/null
}
trap 'cleanup_gw; _cleanup' EXIT
test_expect_success 'the worked example (doc/campaign.md) runs the whole campaign to a verdict' '
	test "$(wc -l <example.sh)" -gt 10 &&
	{ env BASE=$BASE PROTOCOL=$TRASH/protocol.json setsid sh -e example.sh >make.out 2>make.err &
	  echo $! >ex.pid; wait $!; } || { tail -n 20 make.err; exit 1; }
	grep -q "^verdict: " make.out
'
M="make --no-print-directory -f $C/Makefile FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/protocol.json OUT=$TRASH/out"
O=out
test_expect_success 'phase 0 and 1: health, a saturated capacity per engine, the ladder' '
	jq -s -e "map(select(.type == \"health_summary\"))[0].ready" $O/health/phase0.ndjson >/dev/null &&
	for b in b1 b2 b3 b4; do
		jq -s -e "map(select(.type == \"capacity\")) | length == 1 and .[0].saturated" $O/cal/$b.ndjson >/dev/null || exit 1
	done &&
	jq -s -e "map(select(.type == \"ladder\")) | length >= 1" $O/ladder.ndjson >/dev/null &&
	test "$(head -n 2 $O/rates | wc -l)" = 2
'
test_expect_success 'the SLO baseline passed validity' '
	jq -s -e "map(select(.type == \"validity\"))[0].kept == 1" $O/baseline.ndjson >/dev/null
'
test_expect_success 'runs/ARM/RATE/REP.ndjson.gz: 2 arms x every rung (2 calibrated, the added ones) x at least 3 reps' '
	test "$(wc -l <$O/rates)" = "$((2 + $(jq -s "map(select(.type == \"rung_added\")) | length" $O/rungs-added.ndjson)))" &&
	for a in rr chash; do for r in $(cat $O/rates); do
		test "$(ls $O/runs/$a/$r/*.ndjson.gz | wc -l)" -ge 3 || exit 1
	done; done
'
test_expect_success 'adaptive ladder: every knee bracketed, or a bound with the limit of its way recorded' '
	zcat $O/all.ndjson.gz | jq -c "select(.type == \"knee\") | {arm, bound}" >knees &&
	test "$(wc -l <knees)" = 2 &&
	while read -r k; do
		b=$(echo "$k" | jq -r .bound)
		case $b in
		null) ;;
		lower) jq -s -e "any(.[]; .type == \"ladder_limit\" and .direction == \"above\")" $O/rungs-added.ndjson >/dev/null || exit 1 ;;
		upper) jq -s -e "any(.[]; .type == \"ladder_limit\" and .direction == \"below\")" $O/rungs-added.ndjson >/dev/null || exit 1 ;;
		esac
	done <knees &&
	say "knees: $(tr "\n" " " <knees); rungs $(tr "\n" " " <$O/rates)"
'
test_expect_success 'adaptive ladder: an added rung is run by every arm, interleaved and seeded like the others, in the report' '
	for r in $(jq -r "select(.type == \"rung_added\") | .rate_rps" $O/rungs-added.ndjson); do
		jq -s -e --argjson r $r "map(select(.rate_rps == \$r and .rep <= 3)) | group_by(.rep) |
			length == 3 and all(.[]; map(.arm) | sort == [\"chash\", \"rr\"])" $O/order.ndjson >/dev/null || exit 1
		grep -q "Rungs added by the adaptive ladder" $O/report/report.md || exit 1
		grep -q "| $r | " $O/report/report.md || exit 1
	done
'
nruns=$(ls out/runs/*/*/*.ndjson.gz 2>/dev/null | wc -l)
test_expect_success 'every run: a health round before and after, a probe confirmed and engaged, a cache reset' '
	test "$(ls $O/health/*-before.ndjson | grep -vc baseline)" = "$nruns" &&
	test "$(ls $O/health/*-after.ndjson | grep -vc baseline)" = "$nruns" &&
	test "$(cat $O/probe/[!f]*.ndjson | jq -c "select(.type == \"probe\" and .mode_confirmed and .engaged)" | wc -l)" = "$nruns" &&
	test "$(grep -c "caches reset" $O/cache.log)" = "$((nruns + 1))"
'
test_expect_success 'the runs were made in the recorded order, arms interleaved within each rung' '
	for f in $(jq -r "\"out/runs/\(.arm)/\(.rate_rps)/\(.rep).ndjson.gz\"" $O/order.ndjson); do
		zcat $f | jq -r "select(.type == \"run\") | .started_at"
	done >started &&
	sort -c started &&
	jq -s -e --argjson n "$(wc -l <$O/rates)" "map(select(.rep <= 3)) | group_by(.rate_rps, .rep) |
		length == 3 * \$n and all(.[]; map(.arm) | sort == [\"chash\", \"rr\"])" $O/order.ndjson >/dev/null
'
test_expect_success 'validity, analysis and publish ran: SLO from the baseline, a verdict, the relaxed threshold named' '
	zcat $O/all.ndjson.gz | jq -s -e "
		(map(select(.type == \"validity\")) | length == 1) and
		(map(select(.type == \"slo\"))[0].origin == \"baseline\") and
		(map(select(.type == \"stability\")) | length == 2 * $(wc -l <$O/rates)) and
		(map(select(.type == \"verdict\"))[0].reasons | any(test(\"relaxed: --min-reps 3\")))" >/dev/null &&
	jq -s -e "map(select(.type == \"verdict\")) | length == 1" $O/verdict.ndjson >/dev/null
'
test_expect_success 'replay seeds: one per rung and rep, the arms of a rung and rep paired; short runs conditioned on their count' '
	for f in $O/runs/*/*/*.ndjson.gz; do zcat $f | jq -c "select(.type == \"run\")"; done >headers &&
	jq -s -e "group_by(.rate_rps, .rep) | all(.[]; map(.seed) | unique | length == 1) and
		(map(.[0].seed) | unique | length) == length" headers >/dev/null &&
	jq -s -e "all(.[]; .schedule == \"poisson_count\")" headers >/dev/null &&
	for f in $O/runs/*/*/*.ndjson.gz; do zcat $f | jq -c "select(.type == \"run_end\")"; done >ends &&
	jq -s -e --argjson d 2 "all(.[]; .attempted == ((.rate_rps * \$d - 1e-9) | ceil))" ends >/dev/null
'
test_expect_success 'the protocol'"'"'s compare pair: a compare record with its TOST at every rung, in the table' '
	zcat $O/all.ndjson.gz | jq -s -e --argjson n "$(wc -l <$O/rates)" "
		map(select(.type == \"compare\" and .arm == \"chash\" and .vs == \"rr\")) |
		length == \$n and all(.[]; .tost.method == \"welch_tost\")" >/dev/null &&
	sed -n "/^comparisons asked for/,/^\$/p" $O/table.txt >pairs.txt &&
	test "$(grep -c "^chash  *rr " pairs.txt)" = "$(wc -l <$O/rates)"
'
test_expect_success 'the report: report.md with the protocol echoed, report.html, the plots' '
	test -s $O/report/report.md && test -s $O/report/report.html &&
	test -s $O/report/goodfrac.png && test -s $O/report/goodfrac.svg &&
	grep -q "rep_cap" $O/report/report.md
'
test_expect_success 'a second make does nothing (every target up to date)' '
	{ $M -q $TRASH/$O/report/report.md $TRASH/$O/table.txt || { $M -n -d all | grep -i "must remake\|newer" | head; exit 1; }; } &&
	$M all >make2.out 2>&1 && ! grep -q "campaign.sh" make2.out &&
	test "$(ls $O/runs/*/*/*.ndjson.gz | wc -l)" = "$nruns"
'
test_expect_success 'a protocol edited after the campaign began is refused' '
	jq ".delta = 0.2" protocol.json >p2 && mv p2 protocol.json &&
	! $M all >make3.out 2>&1 && grep -q "changed after this campaign began" make3.out
'

# The adaptive step alone, on records made for it: ADD_REPLICATES on one
# rung adds what publish asks, up to the cap; at the cap nothing is added.
mkdir -p ad
printf 'rr\t4.5\t5\nkv\t4.5\t5\n' >ad/reps.tsv
printf '%s\n' '{"type":"stability","arm":"rr","rate_rps":4.5,"reps":5,"cv":0.2,"verdict":"ADD_REPLICATES","add_reps":5}' \
	'{"type":"stability","arm":"kv","rate_rps":4.5,"reps":5,"cv":0.05,"verdict":"PUBLISHABLE","add_reps":0}' | gzip >ad/all.ndjson.gz
jq '.rep_cap = 8' "$C/protocol.json" >ad/protocol.json
A="env FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/ad/protocol.json OUT=$TRASH/ad sh $C/campaign.sh adapt"
test_expect_success 'adapt: ADD_REPLICATES below the cap adds reps, up to the cap' '
	$A 2>/dev/null && test "$(printf "rr\t4.5\t8\nkv\t4.5\t5")" = "$(cat ad/reps.tsv)" &&
	grep -q "rr at 4.5 req/s: 5 -> 8 reps" ad/adapt.log
'
test_expect_code 1 'adapt: at the cap, nothing more' "$A"

# The adaptive ladder alone, both ways, on knee records made for it.
mkdir -p gr
ladder_case() { # DIR KNEES(jq array of {arm, bound, rate_rps, bound_rate_rps, good_fraction})
	rm -rf "$1" && mkdir -p "$1" &&
	printf '8\n12\n' >"$1/rates" &&
	printf 'rr\t8\t5\nkv\t8\t5\nrr\t12\t5\nkv\t12\t5\n' >"$1/reps.tsv" &&
	echo "$2" | jq -c '.[] | {type: "knee", target: 0.9} + .' | gzip >"$1/all.ndjson.gz" &&
	jq '.arms = ["rr", "kv"] | .ladder.grow = {"ratio": 1.5, "max_below": 1, "max_above": 2}' "$C/protocol.json" >"$1/protocol.json"
}
G() { env FLEET=$TRASH/fleet.json PROTOCOL=$TRASH/$1/protocol.json OUT=$TRASH/$1 sh $C/campaign.sh adapt; }
test_expect_success 'grow: bracketed knees need no rung (nothing added, nothing recorded)' '
	ladder_case gr/none "[{\"arm\":\"rr\",\"bound\":null,\"rate_rps\":8},{\"arm\":\"kv\",\"bound\":null,\"rate_rps\":8}]" &&
	! G gr/none 2>gr/none.err && test "$(cat gr/none/rates | tr "\n" " ")" = "8 12 " &&
	test "$(wc -l <gr/none/reps.tsv)" = 4 && ! test -s gr/none/rungs-added.ndjson
'
test_expect_success 'grow: a knee on the top rung adds a rung above (top x ratio) for every arm, one below for no knee' '
	ladder_case gr/both "[{\"arm\":\"rr\",\"bound\":\"upper\",\"rate_rps\":null,\"bound_rate_rps\":8},{\"arm\":\"kv\",\"bound\":\"lower\",\"rate_rps\":12,\"good_fraction\":0.97}]" &&
	G gr/both 2>gr/both.err &&
	test "$(sort -g gr/both/rates | tr "\n" " ")" = "5.3 8 12 18 " &&
	grep -q "^rr	18	5$" gr/both/reps.tsv && grep -q "^kv	18	5$" gr/both/reps.tsv &&
	grep -q "^rr	5.3	5$" gr/both/reps.tsv && grep -q "^kv	5.3	5$" gr/both/reps.tsv &&
	jq -s -e "map(select(.type == \"rung_added\")) | length == 2 and
		(map(select(.direction == \"above\"))[0] | .rate_rps == 18 and .from_rate_rps == 12 and .arms == [\"kv\"] and (.reason | test(\"kv: the top rung 12 req/s clears\"))) and
		(map(select(.direction == \"below\"))[0] | .rate_rps == 5.3 and .arms == [\"rr\"] and (.reason | test(\"knee below 8 req/s\")))" gr/both/rungs-added.ndjson >/dev/null &&
	grep -q "rung 18 req/s added above" gr/both.err
'
test_expect_success 'grow: at the limit of a way, a ladder_limit record once, and the knee stays a bound' '
	G gr/both 2>gr/both2.err &&
	jq -s -e "(map(select(.type == \"ladder_limit\" and .direction == \"below\")) | length == 1) and
		(map(select(.type == \"rung_added\" and .direction == \"above\")) | length == 2)" gr/both/rungs-added.ndjson >/dev/null &&
	test "$(sort -g gr/both/rates | tr "\n" " ")" = "5.3 8 12 18 27 " &&
	! G gr/both 2>gr/both3.err &&
	jq -s -e "(map(select(.type == \"ladder_limit\")) | length == 2)" gr/both/rungs-added.ndjson >/dev/null &&
	grep -q "the knee of rr stays a bound" gr/both3.err
'
say "campaign: $nruns runs; $(sed -n 's/^verdict: //p' make.out)"
test_done
