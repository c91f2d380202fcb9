#!/bin/sh
# https:// through HAProxy terminating TLS on loopback, with a certificate
# this test makes with openssl: verified by default (an unknown CA is a
# connect failure, exit 69), --cacert FILE trusts it, --insecure skips the
# check and says so in the run header.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null && command -v openssl >/dev/null && command -v haproxy >/dev/null ||
	skip_all "no jq, openssl or haproxy"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

# A CA, and a server certificate it signs for the name localhost only.
make_tls_ca || fail_all "openssl"

start_sim --model m --decode-ms 2 || exit 1
TP=$(free_port_range 1) || exit 1
start_tls_haproxy "$SIM_PORT" "$TP" || fail_all "haproxy did not start (haproxy.log above)"
say "$(haproxy -v | head -n 1); $(openssl version)"
URL=https://localhost:$TP

awk 'BEGIN { for (i = 0; i < 5; i++)
	printf "{\"type\":\"trace\",\"id\":\"t%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":6}\n", i, i * 0.02 }' >trace.ndjson

test_expect_success 'https with --cacert: every request ok through TLS; the header says verified' '
	gp-replay --url $URL --model m --cacert ca.pem trace.ndjson >ok.ndjson &&
	sel ".type == \"run_end\"" ok.ndjson | jq -e ".ok == 5" &&
	sel ".type == \"run\"" ok.ndjson | jq -e ".tls_verify == true and .cacert == \"ca.pem\" and .url == \"$URL\""
'
test_expect_success '--scrape over https: the same --cacert trusts the metrics endpoint' '
	gp-replay --url $URL --model m --cacert ca.pem --scrape $URL/metrics --max-requests 1 trace.ndjson >sc.ndjson &&
	sel ".type == \"metrics\"" sc.ndjson | jq -se "length == 2 and all(.error == null and (.samples | length) > 0)"
'
test_expect_code 69 'verified by default: an unknown CA stops the run at once (69), nothing sent' '
	gp-replay --url $URL --model m trace.ndjson >bad.ndjson 2>err; rc=$?
	test ! -s bad.ndjson && grep -qi "certificate" err && exit $rc
'
test_expect_code 69 'a trusted certificate for another name is refused too (127.0.0.1 is not localhost)' '
	gp-replay --url https://127.0.0.1:$TP --model m --cacert ca.pem trace.ndjson >/dev/null 2>err2; rc=$?
	grep -qi "name\|match" err2 && exit $rc
'
test_expect_success '--insecure: no verification, recorded in the run header' '
	gp-replay --url $URL --model m --insecure trace.ndjson >ins.ndjson &&
	sel ".type == \"run_end\"" ins.ndjson | jq -e ".ok == 5" &&
	sel ".type == \"run\"" ins.ndjson | jq -e ".tls_verify == false"
'
test_done
