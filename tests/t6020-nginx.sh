#!/bin/sh
# examples/nginx behind gp-health and gp-probe: SSE streamed unbuffered, the
# serving upstream in X-GP-Backend, the balancer named by nginx's own debug
# log; round robin and least_conn spread, hash consistent concentrates, and a
# gateway running round robin while the arm claims hash is caught.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v nginx >/dev/null || skip_all "nginx not installed (share/packages)"
cd "$TRASH" || exit 1

start_fleet || fail_all "gp-sim did not start"
GP_NGINX_DIR=$TRASH/nginx
fleet_from "$GP_TOP/examples/nginx/fleet.json" >fleet.json
B="--requests 32 --max-tokens 16 --concurrency 16 --interval-ms 40"

start_nginx hash || { sed 's/^/# /' nginx.log; fail_all "nginx did not start"; }
test_expect_success 'healthy behind nginx: ready, the KV precheck lands twice on one upstream' '
	gp-health --fleet fleet.json --arm hash >out 2>err &&
	jq -c "select(.type==\"health_summary\") | [.ready, .failed]" out | grep -qx "\[true,0\]" &&
	jq -c "select(.check==\"kv_events\") | .backends" out | grep -q "^\[\"127.0.0.1:[0-9]*\",\"127.0.0.1:[0-9]*\"\]$" &&
	test "$(jq -r "select(.check==\"kv_events\") | .backends | unique | length" out)" = 1
'

test_expect_success 'SSE streams through nginx: TTFT well under E2E' '
	printf "%s\n" "{\"id\":\"a\",\"t_s\":0,\"input_tokens\":50,\"output_tokens\":40}" >trace &&
	gp-replay --url http://127.0.0.1:$GP_VIP_PORT --model gp-sim --arm x --rep 1 --backend-header x-gp-backend <trace >run 2>/dev/null &&
	jq -c "select(.type==\"request\")" run | jq -e ".outcome == \"ok\" and .e2e_ms > 200 and .ttft_ms < .e2e_ms / 4 and (.backend | test(\"^127.0.0.1:\"))"
'

test_expect_success 'hash consistent, one hot key: the debug log names the balancer, one upstream hot' '
	sh "$GP_TOP/examples/nginx/mode.sh" "$GP_VIP_PORT" "$GP_NGINX_DIR" | grep -qx "nginx balancer: get consistent hash peer" &&
	gp-probe --fleet fleet.json --arm hash $B >out 2>err &&
	probe_rec out | jq -e ".mode_confirmed and .engaged and .concentration >= 3.5 and (.served | length) == 1 and .served_peak_to_mean == 4"
'

test_expect_code 1 'the claim "least_conn" against a hash gateway: mode not confirmed' '
	gp-probe --fleet fleet.json --arm least_conn $B >out 2>err; rc=$?;
	probe_rec out | jq -e "(.mode_confirmed | not) and (.mode_evidence | test(\"get consistent hash peer\"))" && exit $rc
'
stop_gateway

start_nginx rr || fail_all "nginx did not start"
test_expect_success 'round robin: spread, each upstream served a quarter' '
	gp-probe --fleet fleet.json --arm rr $B >out 2>err &&
	probe_rec out | jq -e ".engaged and .mode_evidence == \"nginx balancer: get rr peer\" and .concentration <= 1.3 and .served == {\"b1\":8,\"b2\":8,\"b3\":8,\"b4\":8} and .served_peak_to_mean == 1"
'

test_expect_code 1 'round robin running, the arm claims hash: caught by the mode check' '
	gp-probe --fleet fleet.json --arm hash $B >out 2>err; rc=$?;
	probe_rec out | jq -e "(.mode_confirmed | not) and (.mode_evidence | test(\"get rr peer\")) and .requests == 0" && exit $rc
'
stop_gateway

start_nginx least_conn || fail_all "nginx did not start"
test_expect_success 'least_conn: spread' '
	gp-probe --fleet fleet.json --arm least_conn $B >out 2>err &&
	probe_rec out | jq -e ".engaged and .mode_evidence == \"nginx balancer: get least conn peer\" and .concentration <= 1.5"
'
test_done
