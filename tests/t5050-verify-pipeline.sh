#!/bin/bash
# prove: serial — it judges a live replay's timing end to end
# gp-verify in the real pipeline: with gp-analyze on the hand-built fixture,
# and a live campaign gp-trace | gp-replay against gp-sim (skipped when a tool
# is not built yet).  The core tests of gp-verify do not depend on these.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
R=$D/runs.ndjson F=$D/fleet.json
for t in gp-analyze gp-replay gp-sim gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t is not built"
done
ANALYZE="gp-analyze --pass --ttft-slo-ms 300 --tpot-slo-ms 35 --floor rr --resamples 2000 --target 0.8 --accelerators 2"

for AWK in mawk gawk; do
test_expect_success "[$AWK] validity | gp-analyze | publish: publishable, every check ok" '
	gp-verify validity "$R" | $ANALYZE | gp-verify publish $WAIVE_DESIGN -q --awk $AWK --fleet "$F" >out &&
	test "$(jq -r "select(.type==\"integrity\") | .status" out | sort -u)" = ok &&
	tail -n 1 out | jq -e ".publishable"
'
done

test_expect_success 'a goodfrac tampered between gp-analyze and publish is caught' '
	gp-verify validity "$R" | $ANALYZE |
		jq -c "if .type==\"goodfrac\" and .arm==\"cache\" and .rep==5 then .good-=1 | .good_fraction=(.good/.attempted) else . end" |
		gp-verify publish $WAIVE_DESIGN -q --fleet "$F" >out; test $? = 1 &&
	test "$(jq -r "select(.type==\"integrity\" and .status!=\"ok\") | .check" out)" = recount
'

test_expect_success 'a discarded run leaves the analysis and the integrity checks consistent' '
	jq -c "if .type==\"request\" and .id==\"rr-r3-9\" then .outcome=\"failed\" | .error=\"truncated\" else . end" "$R" |
		gp-verify validity | $ANALYZE | gp-verify publish $WAIVE_DESIGN -q --fleet "$F" >out; test $? = 1 &&
	test "$(jq -r "select(.type==\"integrity\") | .status" out | sort -u)" = ok &&
	jq -r "select(.type==\"verdict\") | .reasons[]" out | grep -qx "stability: rr at 4 rps: ADD_REPLICATES (4 reps, CV 0.0[0-9]*; add 1)"
'

# A live campaign: gp-sim's pd router in front of a prefill member b0 and a
# decode member b1, 5 reps of 40 requests at 20 rps through the router,
# scraping both members before and after each run.  The arm is
# disaggregated: each receipt must name a prefill member and another decode
# member of the fleet (the delivery proof judges them against the roles).
start_live() {
	P0=$(free_port_range 3) || return 1
	P1=$((P0 + 1)) RP=$((P0 + 2))
	gp-sim --port "$P0" --backends 2 --roles prefill,decode --router "$RP" --policy pd \
		--receipt-header x-gp-receipt --decode-ms 2 --prefill-tok-s 200000 --seed 3 \
		2>>"$TRASH/sim.log" &
	cleanup_pid $!
	for _p in "$P0" "$P1" "$RP"; do wait_port "$_p" || return 1; done
}
if ! start_live; then
	test_expect_success 'live: gp-sim starts' 'cat "$TRASH/sim.log"; false'
	test_done
fi
cat >fleet.json <<EOF2
{"model":"gp-sim","vips":[{"name":"vip","url":"http://127.0.0.1:$RP"}],
 "backends":[{"name":"b0","url":"http://127.0.0.1:$P0","metrics_url":"http://127.0.0.1:$P0/metrics","role":"prefill"},
             {"name":"b1","url":"http://127.0.0.1:$P1","metrics_url":"http://127.0.0.1:$P1/metrics","role":"decode"}],
 "receipt_header":"x-gp-receipt",
 "gateway":{"metrics_url":null,"cache_hit_metric":null,"miss_metric":null},
 "arms":[{"name":"direct","routes_by_cache":true,"disaggregated":true}]}
EOF2
gp-trace synth --requests 40 --rate-rps 20 --keys 4 --prefix-tokens 512 --input-tokens 600 --output-tokens 16 --seed 5 >trace.ndjson 2>/dev/null

test_expect_success 'live: 5 reps replayed against gp-sim pass every gate' '
	# A run whose client fell behind its schedule by a margin that matters (a
	# loaded test machine) is discarded by validity; like a campaign, run that
	# rep again (at most 8 times).
	for rep in 1 2 3 4 5; do
		for try in 1 2 3 4 5 6 7 8; do
			gp-replay --url "http://127.0.0.1:$RP" --model gp-sim --arm direct --rep $rep \
				--rate-rps 20 --deadline-s 20 --receipt-header x-gp-receipt \
				--scrape "http://127.0.0.1:$P0/metrics" --scrape "http://127.0.0.1:$P1/metrics" \
				-o run$rep.ndjson.gz <trace.ndjson 2>>replay.log || exit 1
			gp-verify validity run$rep.ndjson.gz 2>/dev/null | tail -n 1 | jq -e ".discarded == 0" >/dev/null && break
		done
	done &&
	cat run*.ndjson.gz | gp-verify validity >v.ndjson &&
	{ tail -n 1 v.ndjson | jq -e ".kept==5" || { jq -c "select(.type==\"discard\")" v.ndjson; false; }; } &&
	gp-analyze --pass --ttft-slo-ms 5000 --tpot-slo-ms 500 --resamples 1000 --accelerators 2 v.ndjson >a.ndjson &&
	gp-verify publish $WAIVE_DESIGN -q --fleet fleet.json --rep-cap 5 --allow-missing health,probe <a.ndjson >out;
	test "$(jq -r "select(.type==\"integrity\") | .status" out | sort -u)" = ok &&
	jq -c "select(.type==\"dual_proof\")" out | jq -e ".evidence==\"backend_prefix_cache\" and .decision_ok and .delivery_ok" &&
	{ tail -n 1 out | jq -e ".publishable and (.allowed_missing | length) == 3
		and (.reasons | map(select(startswith(\"allowed_missing: \"))) | length) == 3" ||
	  { tail -n 1 out; false; }; }
'
# What it must show (issue 13): strict by default.  The live stream has no
# health records and no probe: not publishable, naming both.
test_expect_success 'live: without health and probe evidence: NOT publishable, naming both' '
	{ gp-verify publish $WAIVE_DESIGN -q --fleet fleet.json --rep-cap 5 <a.ndjson >out2; test $? = 1; } &&
	jq -e "select(.type==\"verdict\") | .publishable == false
		and (.missing | map(select(startswith(\"missing: health: \"))) | length) == 1
		and (.missing | map(select(startswith(\"missing: probe: arm direct\"))) | length) == 1" out2 >/dev/null &&
	gp-analyze --pass --ttft-slo-ms 5000 --tpot-slo-ms 500 --resamples 1000 v.ndjson |
		gp-verify publish $WAIVE_DESIGN -q --fleet fleet.json --rep-cap 5 --allow-missing health,probe >out3;
	test $? = 1 && jq -r "select(.type==\"verdict\") | .reasons[]" out3 |
		grep -qx "knee: arm direct: goodput per accelerator needs gp-analyze --accelerators N or --fleet FILE"
'


# Started here, not inside the test's subshell, so that the cleanup at exit
# knows its pid and stops it.
start_sim --fault bad_frame=0.2 --fault drop_done=0.2 --decode-ms 2 --seed 9 || exit 1
test_expect_success 'live: gp-sim faults (bad_frame, drop_done) get the run discarded by rule' '
	gp-replay --url "http://127.0.0.1:$SIM_PORT" --model gp-sim --arm faulty --rep 1 --rate-rps 20 \
		--deadline-s 20 -o faulty.ndjson <trace.ndjson 2>>replay.log;
	gp-verify validity faulty.ndjson >v2.ndjson; test $? = 1 &&
	jq -r "select(.type==\"discard\") | .reasons[]" v2.ndjson >reasons &&
	grep -q "^invalid_framing: [0-9]* request" reasons &&
	grep -q "^truncated: [0-9]* request" reasons
'
test_done
