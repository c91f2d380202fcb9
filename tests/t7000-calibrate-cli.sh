#!/bin/sh
# gp-calibrate: the pre-registered protocol and its file form, usage errors,
# refusal of a VIP (by origin, by address, by a gateway's headers) before any
# load is sent, an unreachable endpoint, the ladder and the staleness check
# from capacity records.
. "$(dirname "$0")/lib.sh"

# jq 1.6's -e looks at the last input only: slurp, pick the one record, test it.
role_is() { # ROLE FILTER FILE
	jq -s -e "map(select(.role == \"$1\")) | length == 1 and (.[0] | $2)" "$3" >/dev/null
}

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-calibrate" && test -x "$GP_BIN/gp-sim" || skip_all "gp-calibrate or gp-sim not built"

# ---- the protocol ----

test_expect_success 'protocol: the defaults, every field, as a JSON object' '
	gp-calibrate protocol >p.json &&
	jq -e ".ramp == 1.25 and .max_steps == 20 and .hold_requests == 100 and .plateau_pct == 5" p.json
'
test_expect_success 'every protocol field is an option in --help' '
	gp-calibrate --help >help &&
	for f in $(jq -r "keys_unsorted[]" p.json); do
		grep -q -- "--$(echo $f | tr _ -) " help || { echo "missing --$f"; exit 1; }
	done
'
test_expect_success 'protocol: options change it; the file form reads it back unchanged' '
	gp-calibrate protocol --ramp 1.5 --hold-s 2 --max-inflight 3 >p2.json &&
	jq -e ".ramp == 1.5 and .hold_s == 2 and .max_inflight == 3" p2.json &&
	gp-calibrate protocol --protocol p2.json >p3.json &&
	cmp p2.json p3.json
'
test_expect_success 'a partial protocol file keeps the other defaults' '
	echo "{\"ramp\": 1.1}" >part.json &&
	gp-calibrate protocol --protocol part.json | jq -e ".ramp == 1.1 and .hold_s == 30"
'
test_expect_success 'a protocol option with --protocol: usage error (pre-registered)' '
	gp-calibrate protocol --protocol p2.json --ramp 2 >out 2>err
	test $? = 2 && grep -q "pre-registered" err
'
test_expect_success 'protocol file: an unknown field is exit 65 naming it' '
	echo "{\"ramp\": 1.5, \"rampp\": 2}" >bad.json &&
	gp-calibrate protocol --protocol bad.json >out 2>err
	test $? = 65 && grep -q "bad.json: field .rampp.: not a protocol field" err
'
test_expect_success 'protocol file: a value out of range is exit 65 naming the field' '
	echo "{\"ramp\": 1}" >bad2.json &&
	gp-calibrate protocol --protocol bad2.json >out 2>err
	test $? = 65 && grep -q "field .ramp.: must be > 1" err
'
test_expect_success 'protocol file: not JSON is exit 65 with the line' '
	printf "{\n\"ramp\": x}\n" >bad3.json &&
	gp-calibrate protocol --protocol bad3.json >out 2>err
	test $? = 65 && grep -q "bad3.json:2:" err
'
test_expect_code 2 'an option out of range is a usage error' 'gp-calibrate protocol --max-steps 2'
test_expect_code 2 'the sweep needs --fleet, --endpoint and --role' 'gp-calibrate --role prefill'
test_expect_code 2 'a role other than prefill or decode' \
	'gp-calibrate --fleet f --endpoint http://127.0.0.1:1 --role both'

# ---- refusal: a backend, never the balancer ----

start_sim --backends 2 --receipt-header X-GP-Receipt --truth truth.ndjson || exit 1
B1=$SIM_PORT B2=$((SIM_PORT + 1))
cat >fleet.json <<EOF
{"model": "gp-sim",
 "vips": [{"name": "vip", "url": "http://127.0.0.1:$B2"}],
 "backends": [{"name": "b1", "url": "http://127.0.0.1:$B1", "metrics_url": "http://127.0.0.1:$B1/metrics"}],
 "inflight_metrics": ["vllm:num_requests_running", "vllm:num_requests_waiting"]}
EOF
fast='--start-rps 5 --warmup-s 0.1 --hold-s 0.3 --hold-requests 1 --max-steps 3'

test_expect_success 'the VIP itself is refused: exit 2, says why, sends nothing' '
	gp-calibrate --fleet fleet.json --endpoint http://127.0.0.1:$B2 --role prefill $fast >out 2>err
	test $? = 2 && grep -q "refusing.*VIP" err && test ! -s out &&
	test "$(grep -c "\"backend\":\"127.0.0.1:$B2\"" truth.ndjson)" = 0
'
test_expect_success 'the VIP under another name (localhost) is refused by address' '
	gp-calibrate --fleet fleet.json --endpoint http://localhost:$B2 --role decode $fast >out 2>err
	test $? = 2 && grep -q "resolves to the address and port of VIP" err && test ! -s out &&
	test "$(grep -c "\"backend\":\"127.0.0.1:$B2\"" truth.ndjson)" = 0
'
jq ".receipt_header = \"X-GP-Receipt\"" fleet.json >fleet-r.json
test_expect_success 'a target answering with the fleet receipt header is refused' '
	gp-calibrate --fleet fleet-r.json --endpoint b1 --role prefill $fast >out 2>err
	test $? = 2 && grep -q "answers with the X-GP-Receipt header" err && test ! -s out &&
	test "$(grep -c "\"backend\":\"127.0.0.1:$B1\"" truth.ndjson)" = 1
'
jq ".backend_header = \"x-gp-receipt\"" fleet.json >fleet-g.json
test_expect_success 'the fleet backend_header (any case) refuses it too' '
	gp-calibrate --fleet fleet-g.json --endpoint b1 --role prefill $fast >out 2>err
	test $? = 2 && grep -q "answers with the x-gp-receipt header" err
'
test_expect_success '--backend-header refuses it too' '
	gp-calibrate --fleet fleet.json --endpoint b1 --role prefill --backend-header X-GP-Receipt $fast >out 2>err
	test $? = 2 && grep -q "gateway" err
'
# gp-sim's router is a real gateway: it names the backend in X-GP-Backend.
RP=$(free_port_range 3) || exit 1
gp-sim --port $RP --backends 2 --router $((RP + 2)) --policy rr 2>>sim.log &
cleanup_pid $!
wait_port $((RP + 2)) || exit 1
jq ".backend_header = \"X-GP-Backend\" | .vips = []" fleet.json >fleet-rt.json
test_expect_success 'a gateway that is not in the fleet as a VIP is refused by its header' '
	gp-calibrate --fleet fleet-rt.json --endpoint http://127.0.0.1:$((RP + 2)) \
		--metrics-url http://127.0.0.1:$RP/metrics --role prefill $fast >out 2>err
	test $? = 2 && grep -q "answers with the X-GP-Backend header of a gateway" err
'
test_expect_code 2 'an unknown backend name is a usage error' \
	'gp-calibrate --fleet fleet.json --endpoint b9 --role prefill'
P0=$(free_port_range 1)
test_expect_success 'nothing listening: exit 69' '
	gp-calibrate --fleet fleet.json --endpoint http://127.0.0.1:$P0 --metrics-url http://127.0.0.1:$P0/metrics --role prefill $fast >out 2>err
	test $? = 69 && grep -q connect err
'

start_sim --fault http500=1 || exit 1
jq ".backends[0].url = \"http://127.0.0.1:$SIM_PORT\" | .backends[0].metrics_url = \"http://127.0.0.1:$SIM_PORT/metrics\"" \
	fleet.json >fleet-500.json
test_expect_success 'an endpoint that answers 500: exit 69 naming the class' '
	gp-calibrate --fleet fleet-500.json --endpoint b1 --role prefill $fast >out 2>err
	test $? = 69 && grep -q "does not serve a streamed completion: http_status" err && test ! -s out
'
jq ".backends[0].metrics_url = \"http://127.0.0.1:$P0/metrics\"" fleet.json >fleet-nom.json
test_expect_success 'metrics that cannot be read: exit 69' '
	gp-calibrate --fleet fleet-nom.json --endpoint b1 --role prefill $fast >out 2>err
	test $? = 69 && grep -q "metrics of" err
'
jq ".inflight_metrics = [\"no_such_metric\"]" fleet.json >fleet-nm.json
test_expect_success 'metrics without the fleet inflight_metrics: exit 69 saying so' '
	gp-calibrate --fleet fleet-nm.json --endpoint b1 --role prefill $fast >out 2>err
	test $? = 69 && grep -q "inflight_metrics" err
'
jq "del(.backends[0].metrics_url)" fleet.json >fleet-nomu.json
test_expect_code 2 'no metrics URL at all: usage error (no cross-check without the queue)' \
	'gp-calibrate --fleet fleet-nomu.json --endpoint b1 --role prefill $fast'

# ---- ladder and check, from capacity records ----

cap() { # endpoint backend role capacity accelerators
	jq -nc --arg e "$1" --arg b "$2" --arg r "$3" --argjson c "$4" --argjson a "$5" \
		'{type:"capacity",endpoint:$e,backend:$b,role:$r,capacity_tok_s:$c,accelerators:$a,
		  saturated:($c != null),suspect:($c == null),protocol:{ramp:1.5}}'
}
{
	cap http://127.0.0.1:9001 b1 prefill 40000 1
	cap http://127.0.0.1:9002 b2 prefill 41000 1
	cap http://127.0.0.1:9003 b3 prefill 20000 1
	cap http://127.0.0.1:9001 b1 decode 800 1
	cap http://127.0.0.1:9002 b2 decode 820 1
	cap http://127.0.0.1:9003 b3 decode 400 1
	echo '{"type":"calib_step","step":0}'
} >caps.ndjson
printf '%s\n' '{"id":"a","t_s":0,"input_tokens":1000,"output_tokens":10}' \
	'{"id":"b","t_s":1,"input_tokens":600,"output_tokens":30}' >trace.ndjson

test_expect_success 'ladder: the slowest member is the reference of each role' '
	gp-calibrate ladder --trace trace.ndjson caps.ndjson >lad.ndjson &&
	test "$(wc -l <lad.ndjson)" = 2 &&
	role_is prefill ".reference == \"b3\" and .members == 3" lad.ndjson &&
	role_is decode ".reference == \"b3\"" lad.ndjson
'
# prefill: 20000 tok/s / 800 tokens = 25 req/s a member, 75 for three.
# decode: 400 / 20 = 20 req/s a member, 60 for three: the binding role.
test_expect_success 'ladder: rates are ratios of members x reference / mean tokens' '
	role_is prefill ".mean_tokens == 800 and .capacity_rps == 25 and
		.fleet_capacity_rps == 75 and .rates_rps.unsaturated == 37.5 and
		.rates_rps.moderate == 60 and .rates_rps.saturated == 90 and .binding == false" lad.ndjson &&
	role_is decode ".fleet_capacity_rps == 60 and .binding == true and
		.rates_rps.unsaturated == 30 and .protocol.ramp == 1.5" lad.ndjson
'
test_expect_success 'ladder: ratios are flags; more rungs on request, sorted' '
	gp-calibrate ladder --trace trace.ndjson --unsaturated 0.4 --rung 1.5 --rung 0.6 caps.ndjson >l2 &&
	role_is decode ".ratios.unsaturated == 0.4 and .rungs_rps == [24, 36, 48, 72, 90]" l2
'
test_expect_success 'ladder: a later record of the same endpoint replaces the earlier' '
	{ cat caps.ndjson; cap http://127.0.0.1:9003 b3 decode 900 1; } |
	gp-calibrate ladder --trace trace.ndjson >l3 &&
	role_is decode ".reference == \"b1\"" l3
'
test_expect_success 'ladder: a member without a trusted capacity is exit 1, no ladder for its role' '
	{ cat caps.ndjson; cap http://127.0.0.1:9002 b2 decode null 1; } >caps-s.ndjson &&
	gp-calibrate ladder --trace trace.ndjson caps-s.ndjson >out 2>err
	test $? = 1 && grep -q "9002 (decode) has no trusted capacity" err &&
	test "$(jq -r .role out)" = prefill
'
test_expect_code 2 'ladder: --trace is required' 'gp-calibrate ladder caps.ndjson'
test_expect_success 'ladder: a bad capacity record is exit 65 with file:line' '
	echo "{\"type\":\"capacity\",\"endpoint\":\"x\",\"role\":\"both\"}" >badcap.ndjson &&
	gp-calibrate ladder --trace trace.ndjson badcap.ndjson >out 2>err
	test $? = 65 && grep -q "badcap.ndjson:1: field .role." err
'

cat >fleet3.json <<EOF
{"vips": [], "backends": [{"name": "b1", "url": "http://127.0.0.1:9001"},
  {"name": "b2", "url": "http://127.0.0.1:9002/"}, {"name": "b3", "url": "http://127.0.0.1:9003"}]}
EOF
test_expect_success 'check: the fleet it was measured on is fresh (exit 0)' '
	gp-calibrate check --fleet fleet3.json caps.ndjson >out &&
	jq -e ".type == \"calib_check\" and .stale == false and .reasons == []" out
'
test_expect_success 'check: a backend added is stale (exit 1) and says which' '
	jq ".backends += [{\"name\": \"b4\", \"url\": \"http://127.0.0.1:9004\"}]" fleet3.json >fleet4.json &&
	gp-calibrate check --fleet fleet4.json caps.ndjson >out 2>err
	test $? = 1 && jq -e ".stale and .reasons == [\"added http://127.0.0.1:9004\"]" out
'
test_expect_success 'check: changed accelerators are stale' '
	jq ".backends[0].accelerators = 2" fleet3.json >fleet5.json &&
	gp-calibrate check --fleet fleet5.json caps.ndjson >out 2>err
	test $? = 1 && grep -q "accelerators of http://127.0.0.1:9001: 1 -> 2" err
'
test_expect_success 'check: a backend removed is stale' '
	jq "del(.backends[2])" fleet3.json >fleet6.json &&
	gp-calibrate check --fleet fleet6.json <caps.ndjson >out 2>err
	test $? = 1 && jq -e ".reasons == [\"removed http://127.0.0.1:9003\"]" out
'
test_done
