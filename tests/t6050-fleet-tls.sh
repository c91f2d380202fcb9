#!/bin/sh
# https:// for the fleet tools: HAProxy terminating TLS on loopback in front
# of gp-sim (as t3100 does for gp-replay), with a CA this test makes.  The VIP
# and the backend are two TLS frontends (gp-calibrate refuses a VIP).  Without
# --cacert every check, scrape and request of gp-health, gp-probe and
# gp-calibrate is refused as class tls, they stop with 69 and the message
# names --cacert; with --cacert FILE they work; --insecure skips the check.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null && command -v openssl >/dev/null && command -v haproxy >/dev/null ||
	skip_all "no jq, openssl or haproxy (share/packages)"
for t in health probe calibrate sim; do
	test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"
done

make_tls_ca || fail_all "openssl"

start_sim --model m --decode-ms 20 || exit 1
VP=$(free_port_range 2) || exit 1
BP=$((VP + 1))
start_tls_haproxy "$SIM_PORT" "$VP" "$BP" || fail_all "haproxy did not start (haproxy.log above)"
say "$(haproxy -v | head -n 1); $(openssl version)"
cat >fleet.json <<EOF
{"model":"m","context_length":4096,
 "vips":[{"name":"vip","url":"https://localhost:$VP"}],
 "backends":[{"name":"b1","url":"https://localhost:$BP","metrics_url":"https://localhost:$BP/metrics",
              "role":"both","accelerators":1}],
 "inflight_metrics":["vllm:num_requests_running","vllm:num_requests_waiting"],
 "arms":[{"name":"rr","expect":"spread","routes_by_cache":false,
          "mode_cmd":"echo mode=rr","mode_regex":"^mode=rr$"}]}
EOF
PROBE="gp-probe --fleet fleet.json --arm rr --requests 8 --concurrency 4 --max-tokens 8 --interval-ms 40"
CAL="gp-calibrate --fleet fleet.json --endpoint b1 --role decode --warmup-s 0 --hold-s 0.3
	--hold-requests 1 --max-steps 3 --start-rps 10 --decode-output-tokens 4"

test_expect_success 'gp-health, CA not trusted: every check tls, nothing answered, 69 naming --cacert' '
	gp-health --fleet fleet.json >h 2>he; test $? = 69 &&
	grep -q "unreachable (TLS refused: trust the server.s CA with --cacert FILE" he &&
	jq -s -e "(map(select(.type == \"health\")) | length == 3 and all(.[]; .ok == false)) and
		(map(select(.check == \"vip_chat\" or .check == \"backend_models\")) | all(.[]; .error == \"tls\")) and
		(map(select(.check == \"metrics\"))[0].detail | test(\"certificate|SSL\")) and
		(map(select(.type == \"health_summary\"))[0] | .checks == 3 and .failed == 3)" h >/dev/null
'
test_expect_success 'gp-health --cacert: ready over TLS, exit 0' '
	gp-health --fleet fleet.json --cacert ca.pem >h2 &&
	jq -s -e "map(select(.type == \"health\")) | length == 3 and all(.[]; .ok)" h2 >/dev/null
'
test_expect_success 'gp-health --insecure: ready too' 'gp-health --fleet fleet.json --insecure >/dev/null'

test_expect_success 'gp-probe, CA not trusted: by_error {tls: 8}, snapshots failed, 69 naming --cacert' '
	$PROBE >p 2>pe; test $? = 69 && grep -q -- "--cacert FILE" pe &&
	jq -s -e "(map(select(.type == \"metrics\")) | length == 2 and all(.[]; .samples == {} and .error != null)) and
		(map(select(.type == \"probe\"))[0] | .requests == 8 and .failed == 8 and .by_error == {tls: 8})" p >/dev/null
'
test_expect_success 'gp-probe --cacert: 8 ok, samples read over TLS, spread engaged, exit 0' '
	$PROBE --cacert ca.pem >p2 2>pe2 &&
	jq -s -e "(map(select(.type == \"metrics\")) | all(.[]; .error == null and (.samples | length) > 0)) and
		(map(select(.type == \"probe\"))[0] | .ok == 8 and .failed == 0 and .sample_errors == 0 and
		 .engaged)" p2 >/dev/null
'

test_expect_success 'gp-calibrate, CA not trusted: 69 before the sweep, class tls, naming --cacert' '
	$CAL >c 2>ce; test $? = 69 && test ! -s c &&
	grep -q "does not serve a streamed completion: tls: .*--cacert FILE" ce
'
test_expect_success 'gp-calibrate --cacert: the sweep runs over TLS, metrics sampled' '
	$CAL --cacert ca.pem >c2 2>ce2; rc=$?; test $rc = 0 || test $rc = 1 &&
	jq -s -e "(map(select(.type == \"calib_step\")) | length >= 1 and all(.[]; .ok > 0)) and
		(map(select(.type == \"capacity\")) | length == 1 and .[0].scrape_failures == 0)" c2 >/dev/null
'
test_done
