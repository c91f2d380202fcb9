#!/bin/sh
# gp-health: ready on a healthy fleet behind HAProxy; not ready with a dead
# backend, a wrong model name or a VIP answering 503; exit 69 when nothing
# answers; every wait bounded; the KV-events precheck names its counter.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v haproxy >/dev/null || skip_all "haproxy not installed (share/packages)"
cd "$TRASH" || exit 1

start_fleet || fail_all "gp-sim did not start"
start_haproxy chash || { sed 's/^/# /' haproxy.log; fail_all "haproxy did not start"; }
fleet_from "$GP_TOP/examples/haproxy/fleet.json" >fleet.json
# one FILE SELECT: the records that match, one per line (for jq -e, whose
# status in jq 1.6 follows the last input, not the last output)
one() { jq -c "select($2)" "$1"; }
chk() { jq -r --arg c "$2" --arg n "$3" 'select(.type=="health" and .check==$c and .name==$n) | .ok' "$1"; }

test_expect_success 'a healthy fleet is ready: every check passes, summary ready, exit 0' '
	gp-health --fleet fleet.json >out 2>err &&
	test "$(jq -s "map(select(.type==\"health\")) | length" out)" = 10 &&
	test "$(jq -s "map(select(.type==\"health\" and .ok)) | length" out)" = 10 &&
	test "$(jq -c "select(.type==\"health_summary\") | [.ready, .checks, .failed]" out)" = "[true,10,0]" &&
	test "$(chk out vip_chat vip)" = true &&
	one out ".check==\"vip_chat\"" | jq -e ".http_status == 200 and .content_events >= 1 and (.backend | test(\"^b[1-4]$\"))" &&
	one out ".check==\"backend_models\" and .name==\"b3\"" | jq -e ".models == [\"gp-sim\"] and .max_model_len == 8192" &&
	one out ".type==\"health\"" | jq -s -e "length == 10 and all(.at | test(\"^20[0-9-]+T[0-9:.]+Z$\"))" &&
	test ! -s err
'

test_expect_success 'the KV-events precheck of a cache-routed arm: the backends counter moved' '
	gp-health --fleet fleet.json --arm chash >out &&
	one out ".check==\"kv_events\"" | jq -e ".ok and .counter == \"vllm:prefix_cache_hits_total\" and .counter_delta >= 256" &&
	one out ".check==\"kv_events\"" | jq -e ".backends[0] == .backends[1]"
'

test_expect_code 1 'a dead backend: not ready, its checks named on stderr' '
	jq ".backends[1].url=\"http://127.0.0.1:1\" | .backends[1].metrics_url=\"http://127.0.0.1:1/metrics\"" fleet.json >f &&
	gp-health --fleet f >out 2>err; rc=$?;
	test "$(chk out backend_models b2)" = false && test "$(chk out metrics b2)" = false &&
	test "$(chk out backend_models b1)" = true &&
	grep -q "not ready: backend_models http://127.0.0.1:1" err &&
	test "$(jq -c "select(.type==\"health_summary\") | [.ready, .failed_checks]" out)" = "[false,[\"backend_models b2\",\"metrics b2\"]]" &&
	exit $rc
'

test_expect_code 1 'a wrong model name: the backends do not serve it and the VIP answers 404' '
	jq ".model=\"llama-70b\"" fleet.json >f &&
	gp-health --fleet f >out 2>err; rc=$?;
	test "$(chk out backend_models b1)" = false &&
	one out ".check==\"backend_models\" and .name==\"b1\"" | jq -e ".detail | test(\"model .llama-70b. is not served\")" &&
	one out ".check==\"vip_chat\"" | jq -e ".ok == false and .http_status == 404 and .error == \"http_status\"" &&
	exit $rc
'

test_expect_code 1 'a context length the backends do not advertise fails backend_models' '
	jq ".context_length=32768" fleet.json >f &&
	gp-health --fleet f >out 2>err; rc=$?;
	one out ".check==\"backend_models\" and .name==\"b4\"" | jq -e ".ok == false and (.detail | test(\"max_model_len 8192 < context_length 32768\"))" &&
	exit $rc
'

# Processes start outside the test bodies (subshells), so cleanup_pid sees them.
stop_gateway
dead=127.0.0.1:1
GP_B1=$dead GP_B2=$dead GP_B3=$dead GP_B4=$dead start_haproxy rr
test_expect_code 1 'a VIP answering 503 (the gateway has no live server) is not ready' '
	gp-health --fleet fleet.json >out 2>err; rc=$?;
	one out ".check==\"vip_chat\"" | jq -e ".ok == false and .http_status == 503" &&
	test "$(jq -s "map(select(.type==\"health\" and .ok == false)) | map(.check)" out | jq -c .)" = "[\"vip_chat\"]" &&
	grep -q "not ready: vip_chat" err &&
	exit $rc
'

test_expect_code 69 'nothing answers: exit 69' '
	jq ".vips[0].url=\"http://127.0.0.1:1\" | .gateway.metrics_url=null | .backends |= map(.url=\"http://127.0.0.1:1\" | .metrics_url=null)" fleet.json >f &&
	gp-health --fleet f >out 2>err; rc=$?;
	grep -q "nothing answered" err && test "$(jq -c "select(.type==\"health_summary\") | .ready" out)" = false &&
	exit $rc
'

P=$(free_port_range 1)
gp-sim --port "$P" --fault stall=1 2>/dev/null &
cleanup_pid $!
wait_port "$P"
test_expect_success 'a VIP that accepts but never finishes is bounded by --timeout-s' '
	jq ".vips[0].url=\"http://127.0.0.1:$P\" | .backends=[] | .gateway.metrics_url=null" fleet.json >f &&
	s=$(date +%s%N) && { gp-health --fleet f --timeout-s 0.5 >out 2>err; test $? = 1; } && e=$(date +%s%N) &&
	one out ".check==\"vip_chat\"" | jq -e ".ok == false and .error == \"timeout\"" &&
	test $(( (e - s) / 1000000 )) -lt 3000
'

R=$(free_port_range 1)
gp-sim --port "$R" --receipt-header x-gp-receipt 2>/dev/null &
cleanup_pid $!
wait_port "$R"
test_expect_success 'a receipt header named by the fleet must be on the VIP response' '
	jq ".vips[0].url=\"http://127.0.0.1:$R\" | .backends=[] | .gateway.metrics_url=null | .receipt_header=\"x-gp-receipt\"" fleet.json >f &&
	gp-health --fleet f >out &&
	one out ".check==\"receipt\"" | jq -e ".ok and (.receipt | test(\"^prefill=127.0.0.1:$R;decode=127.0.0.1:$R$\"))" &&
	jq ".receipt_header=\"x-gp-handoff\"" f >g &&
	{ gp-health --fleet g >out 2>err; test $? = 1; } &&
	one out ".check==\"receipt\"" | jq -e "(.ok | not) and .receipt == null and .detail == \"no x-gp-handoff header on the response\"" &&
	test "$(one out ".check==\"vip_chat\"" | jq .ok)" = true
'

test_expect_code 65 'a bad fleet file names the field' '
	jq ".backends[0].url=7" fleet.json >f && gp-health --fleet f 2>err; rc=$?;
	grep -qx "gp-health: f: field .backends\[0\].url. is not a string" err && exit $rc
'

test_expect_code 2 'an unknown arm is a usage error' 'gp-health --fleet fleet.json --arm nope'

test_done
