#!/bin/sh
# gp-sim --router, the cache-aware gateway that can fail: kv passes gp-health's
# KV-events precheck and gp-verify's dual proof on gp-probe's metrics
# snapshots; kv_events_down (silent: still claims kv) fails both, naming the
# counter; fallback (says rr) fails gp-probe's mode check.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
cd "$TRASH" || exit 1

B="--requests 32 --max-tokens 16 --concurrency 8 --interval-ms 40"
kv() { jq -c "select(.check==\"kv_events\")" "$1"; }
# dual FILE...: gp-verify's dual_proof record for arm kv over these records
dual() { cat "$@" | gp-verify validity 2>/dev/null | gp-verify publish -q --fleet fleet.json 2>/dev/null |
	 jq -c "select(.type==\"dual_proof\" and .arm==\"kv\")"; }
replay() { gp-trace synth --requests 8 --rate-rps 10 --keys 3 --output-tokens 8 --seed 2 >trace &&
	   gp-replay --url "http://127.0.0.1:$GP_VIP_PORT" --model gp-sim --arm kv --rep 1 --rate-rps 10 \
		--scrape "http://127.0.0.1:$GP_VIP_PORT/metrics" <trace >replay 2>/dev/null; }

start_router kv || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json

test_expect_success 'the router logs its mode, names the engine, exports hits, misses and the mode gauge' '
	grep -q "router on 127.0.0.1:$GP_VIP_PORT: policy kv, mode kv" "$TRASH/sim.log" &&
	curl -s -D h -o /dev/null -H "Content-Type: application/json" \
		-d "{\"model\":\"gp-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}" \
		"http://127.0.0.1:$GP_VIP_PORT/v1/chat/completions" &&
	grep -qi "^x-gp-backend: 127.0.0.1:$SIM_PORT" h &&
	curl -s "http://127.0.0.1:$GP_VIP_PORT/metrics" >m &&
	grep -qx "gp_router_mode{mode=\"kv\"} 1" m && grep -qx "gp_router_mode{mode=\"rr\"} 0" m &&
	grep -q "^gp_router_cache_hits_total " m &&
	grep -q "^gp_router_cache_misses_total{reason=\"no_match\"} " m
'

test_expect_success 'kv: ready, and the precheck sees the router hit counter move' '
	gp-health --fleet fleet.json --arm kv >out 2>err &&
	kv out | jq -e ".ok and .counter == \"gp_router_cache_hits_total\" and .counter_delta == 1 and .miss_delta == 1"
'

# kv, probed with 8 keys over 4 engines: prefix-affine and spread (the arm's
# expect); whether one hot key concentrates depends on when an engine's cache
# holds a prefix (at admission or after prefill), which is the engine's model.
test_expect_success 'kv: the probe (8 keys) is engaged; the replay scrapes of its own carry the dual proof' '
	gp-probe --fleet fleet.json --arm kv --keys 8 $B >probe.ndjson 2>err &&
	probe_rec probe.ndjson | jq -e ".engaged and .mode_evidence == \"gp_router_mode{mode=\\\"kv\\\"} 1\" and .concentration <= 1.5" &&
	replay && dual probe.ndjson replay >d &&
	jq -e ".decision_ok == true and .evidence == \"gateway_counters\"" d &&
	jq -e ".detail | test(\"gp_router_cache_hits_total \\\\+[1-9][0-9]* over 1 replays \\\\(0 did not move\\\\)\")" d
'
kill "$SIM_PID"; wait "$SIM_PID" 2>/dev/null

start_router kv --router-fault kv_events_down || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json

test_expect_code 1 'kv_events_down: the precheck fails and names the counter that did not move' '
	gp-health --fleet fleet.json --arm kv >out 2>err; rc=$?;
	kv out | jq -e "(.ok | not) and .counter_delta == 0 and .miss_delta == 2" &&
	kv out | jq -e ".detail | test(\"counter gp_router_cache_hits_total did not move\")" &&
	grep -q "not ready: kv_events .*gp_router_cache_hits_total did not move" err &&
	exit $rc
'

test_expect_success 'kv_events_down is silent: the mode still says kv and the load looks engaged' '
	grep -q "policy kv, mode kv" "$TRASH/sim.log" &&
	gp-probe --fleet fleet.json --arm kv --keys 8 $B >probe.ndjson 2>err &&
	probe_rec probe.ndjson | jq -e ".mode_confirmed and .engaged"
'

test_expect_success 'kv_events_down: the dual proof on the replay scrapes fails, naming the counter' '
	replay && dual probe.ndjson replay >d &&
	jq -e ".decision_ok == false" d &&
	jq -e ".detail | test(\"gp_router_cache_hits_total \\\\+0 over 1 replays \\\\(1 did not move\\\\)\")" d &&
	cat probe.ndjson replay | gp-verify validity 2>/dev/null | gp-verify publish -q --fleet fleet.json 2>/dev/null |
		jq -r "select(.type==\"verdict\") | .reasons[]" | grep -q "^dual_proof: arm kv: decision: gp_router_cache_hits_total +0"
'
kill "$SIM_PID"; wait "$SIM_PID" 2>/dev/null

start_router kv --router-fault fallback || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json

test_expect_code 1 'fallback at start: the router says so, and the probe mode check fails before any burst' '
	grep -q "falling back to round robin" "$TRASH/sim.log" && grep -q "policy kv, mode rr" "$TRASH/sim.log" &&
	gp-probe --fleet fleet.json --arm kv $B >out 2>err; rc=$?;
	probe_rec out | jq -e "(.mode_confirmed | not) and .requests == 0" && exit $rc
'
kill "$SIM_PID"; wait "$SIM_PID" 2>/dev/null

start_router bounded || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json
# At 16 in flight the bound is ceil(1.25 × 16 / 4) = 5 per engine (at 8 the
# ceiling alone would allow 3, 3, 2, 0: peak-to-mean 1.5).
test_expect_success 'the router in bounded loads spreads one hot key' '
	gp-probe --fleet fleet.json --arm bounded $B --concurrency 16 --requests 64 >out 2>err &&
	probe_rec out | jq -e ".engaged and .concentration <= 1.5 and (.served | length) >= 3"
'

test_expect_code 130 'SIGINT stops the burst: the records are finished, exit 130' '
	gp-probe --fleet fleet.json --arm bounded --requests 100000 --max-tokens 16 >out 2>err &
	pid=$! && sleep 1 && kill -INT $pid; wait $pid; rc=$?;
	probe_rec out | jq -e ".requests > 0 and .requests < 100000 and .failed == 0" &&
	test "$(jq -s "map(select(.type==\"metrics\" and .phase==\"after\")) | length" out)" = 5 &&
	exit $rc
'
kill "$SIM_PID"; wait "$SIM_PID" 2>/dev/null

start_router kv --truth "$TRASH/truth.ndjson" || fail_all "gp-sim --router did not start"
test_expect_success 'SIGTERM closes the streams that came through the router too (truth: shutdown)' '
	curl -s -N -H "Content-Type: application/json" \
		-d "{\"model\":\"gp-sim\",\"stream\":true,\"max_tokens\":2000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" \
		"http://127.0.0.1:$GP_VIP_PORT/v1/chat/completions" >/dev/null &
	sleep 0.5 && kill -TERM $SIM_PID &&
	for i in $(seq 1 100); do kill -0 $SIM_PID 2>/dev/null || break; sleep 0.05; done &&
	! kill -0 $SIM_PID 2>/dev/null &&
	jq -r .end "$TRASH/truth.ndjson" | grep -qx shutdown
'
test_done
