#!/bin/sh
# gp-probe on a heterogeneous fleet: gp-sim's fourth engine at half speed
# (--speed 1,1,1,0.5) behind a real HAProxy.  Round robin, least-connections
# and bounded loads are spreading policies; judged against the members'
# capacities (--capacity, gp-calibrate's capacity records) each is spread,
# while round robin judged by the plain in-flight concentration is refused
# (the slow member holds its requests twice as long: 16/16/16/16 served,
# concentration about 1.65 over spread_max 1.5).  Consistent hashing with
# one key is never spread.  The capacities are gp-sim's: its step times
# scale by 1/speed (gp-sim(1)), so b4's capacity is half the others'.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v haproxy >/dev/null || skip_all "haproxy not installed (share/packages)"
command -v jq >/dev/null || skip_all "no jq"
cd "$TRASH" || exit 1

start_fleet --speed 1,1,1,0.5 || fail_all "gp-sim did not start"
fleet_from "$GP_TOP/examples/haproxy/fleet.json" |
	jq '.arms += [(.arms[0] | .name = "leastconn" | .mode_regex = "^backend llm algo=leastconn$")]' >fleet.json
sed 's/balance roundrobin/balance leastconn/' "$GP_TOP/examples/haproxy/rr.cfg" >leastconn.cfg
for b in b1 b2 b3 b4; do
	c=2000; [ $b = b4 ] && c=1000
	printf '{"type":"capacity","backend":"%s","role":"prefill","capacity_tok_s":%s}\n' $b $c
	printf '{"type":"capacity","backend":"%s","role":"decode","capacity_tok_s":%s}\n' $b $((c / 4))
done >cap.ndjson
B="--requests 64 --keys 1 --concurrency 16 --prompt-tokens 128 --max-tokens 16 --interval-ms 20"
probe() { jq -c "select(.type==\"probe\")" "$1"; }

start_haproxy rr || fail_all "haproxy did not start"
test_expect_code 1 'round robin, half-speed member, plain rule: refused although every member served 16' '
	gp-probe --fleet fleet.json --arm rr $B >out 2>err; rc=$?
	probe out | jq -e ".served == {\"b1\":16,\"b2\":16,\"b3\":16,\"b4\":16} and .concentration > 1.5 and
		(.engaged | not) and .capacity == null" >/dev/null && exit $rc
'
test_expect_success 'round robin against the capacities: spread (b4 weighs 0.5; spread concentration near 1)' '
	gp-probe --fleet fleet.json --arm rr --capacity cap.ndjson $B >out 2>err &&
	probe out | jq -e ".engaged and .capacity == {\"b1\":1,\"b2\":1,\"b3\":1,\"b4\":0.5} and
		.spread_concentration <= 1.2 and .concentration > 1.4 and .served_spread <= 1.05 and
		(.reason | test(\"capacity-weighted concentration\"))" >/dev/null
'
say "rr: $(probe out | jq -r '"plain \(.concentration), capacity-weighted \(.spread_concentration), served \(.served)"')"
stop_gateway

haproxy -db -f "$GP_TOP/examples/haproxy/common.cfg" -f leastconn.cfg 2>>haproxy.log &
GW_PID=$!
cleanup_pid $GW_PID
wait_port "$GP_VIP_PORT" && wait_port "$GP_PROM_PORT" || fail_all "haproxy (leastconn) did not start"
test_expect_success 'least-connections against the capacities: spread, the slow member served least' '
	gp-probe --fleet fleet.json --arm leastconn --capacity cap.ndjson $B >out 2>err &&
	probe out | jq -e ".engaged and .spread_concentration <= 1.3 and .served.b4 < .served.b1" >/dev/null
'
say "leastconn: $(probe out | jq -r '"plain \(.concentration), capacity-weighted \(.spread_concentration), served \(.served)"')"
stop_gateway

start_haproxy bounded || fail_all "haproxy did not start"
test_expect_success 'bounded loads (125 %) against the capacities: spread' '
	gp-probe --fleet fleet.json --arm bounded --capacity cap.ndjson $B >out 2>err &&
	probe out | jq -e ".engaged and .spread_concentration <= 1.5 and (.served | length) >= 3" >/dev/null
'
say "bounded: $(probe out | jq -r '"plain \(.concentration), capacity-weighted \(.spread_concentration), served \(.served)"')"
stop_gateway

start_haproxy chash || fail_all "haproxy did not start"
test_expect_code 1 'consistent hashing, one key, claimed as spread: refused with the capacities too' '
	gp-probe --fleet fleet.json --arm chash --expect spread --capacity cap.ndjson $B >out 2>err; rc=$?
	probe out | jq -e "(.engaged | not) and .spread_concentration >= 2.5 and (.served | length) == 1" >/dev/null &&
	exit $rc
'
test_expect_success 'consistent hashing, one key, as concentrate: engaged on the plain concentration' '
	gp-probe --fleet fleet.json --arm chash --capacity cap.ndjson $B >out 2>err &&
	probe out | jq -e ".engaged and .concentration >= 3.5" >/dev/null
'
test_expect_code 65 'a capacity file without one of the backends is bad input naming it' '
	grep -v "\"b3\"" cap.ndjson >cap3.ndjson &&
	gp-probe --fleet fleet.json --arm chash --capacity cap3.ndjson $B 2>err; rc=$?
	grep -q "no trusted capacity of backend .b3." err && exit $rc
'
stop_gateway
test_done
