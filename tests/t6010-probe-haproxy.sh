#!/bin/sh
# gp-probe against a real HAProxy: the mode is read from HAProxy's runtime;
# consistent hashing with one hot key concentrates, bounded loads and round
# robin spread; a gateway left in round robin while the arm claims consistent
# hashing is caught by the mode check and, when the mode check is fooled by
# reading our own config file, by the concentration.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v haproxy >/dev/null || skip_all "haproxy not installed (share/packages)"
cd "$TRASH" || exit 1

start_fleet || fail_all "gp-sim did not start"
fleet_from "$GP_TOP/examples/haproxy/fleet.json" >fleet.json
B="--requests 32 --max-tokens 16 --concurrency 16 --interval-ms 40"

start_haproxy chash || fail_all "haproxy did not start"
test_expect_success 'chash, one hot key: mode hdr from the runtime, one backend hot, exit 0; metrics keys in doc/records.md order, no rep' '
	gp-probe --fleet fleet.json --arm chash $B >out 2>err &&
	probe_rec out | jq -e ".mode_confirmed and .engaged and .mode_evidence == \"backend llm algo=hdr\" and .concentration >= 3.5 and .ok == 32 and (.served | length) == 1" &&
	test "$(jq -s "map(select(.type==\"probe_sample\")) | length >= 3" out)" = true &&
	jq -s -e "map(select(.type==\"probe_sample\")) | all(.inflight | keys == [\"b1\",\"b2\",\"b3\",\"b4\"])" out &&
	test "$(jq -s "map(select(.type==\"metrics\" and .phase==\"before\")) | length" out)" = 5 &&
	test "$(jq -s "map(select(.type==\"metrics\" and .phase==\"after\")) | length" out)" = 5 &&
	jq -s -e "(map(select(.type==\"probe\"))[0].run) as \$r | map(select(.type==\"metrics\" or .type==\"probe_sample\")) | all(.run == \$r and .arm == \"chash\")" out &&
	jq -s -e "map(select(.type==\"metrics\")) | all((.samples | length) > 10)" out &&
	k=$(doc_keys metrics | sed "s/,rep,/,/") &&
	test "$(jq -r "select(.type==\"metrics\") | keys_unsorted | join(\",\")" out | sort -u)" = "$k,source"
'

test_expect_code 1 'the same gateway probed as a spread arm: not engaged, the reason says why' '
	gp-probe --fleet fleet.json --arm chash --expect spread $B >out 2>err; rc=$?;
	probe_rec out | jq -e ".mode_confirmed and (.engaged | not) and (.reason | test(\"expected spread, concentration\"))" &&
	grep -q "not engaged" err && exit $rc
'
stop_gateway

start_haproxy bounded || fail_all "haproxy did not start"
test_expect_success 'bounded loads (hash-balance-factor 125), one hot key: spread, exit 0' '
	gp-probe --fleet fleet.json --arm bounded $B >out 2>err &&
	probe_rec out | jq -e ".engaged and .concentration <= 1.5 and (.served | length) >= 3"
'
stop_gateway

start_haproxy rr || fail_all "haproxy did not start"
test_expect_success 'round robin: spread, every backend served a quarter; --for-run names the replay' '
	gp-probe --fleet fleet.json --arm rr --for-run rr-1-1-c0ffee $B >out 2>err &&
	probe_rec out | jq -e ".engaged and .concentration <= 1.3 and .served == {\"b1\":8,\"b2\":8,\"b3\":8,\"b4\":8}" &&
	probe_rec out | jq -e ".for_run == \"rr-1-1-c0ffee\" and .run != \"rr-1-1-c0ffee\" and (.at | type) == \"string\""
'

test_expect_code 1 'round robin running, the arm claims consistent hashing: the runtime mode check catches it, no burst' '
	gp-probe --fleet fleet.json --arm chash $B >out 2>err; rc=$?;
	probe_rec out | jq -e "(.mode_confirmed | not) and (.engaged | not) and .requests == 0 and (.mode_evidence | test(\"did not match.*algo=roundrobin\"))" &&
	test "$(jq -s "map(select(.type==\"probe_sample\" or .type==\"metrics\")) | length" out)" = 0 &&
	grep -q "mode not confirmed" err && exit $rc
'

test_expect_code 1 'a mode check that reads our own config file is fooled; the concentration is not' '
	jq "(.arms[] | select(.name==\"chash\")) |= (.mode_cmd = \"grep -h balance $GP_TOP/examples/haproxy/chash.cfg\" | .mode_regex = \"hdr\\\\(x-gp-cache-key\\\\)\")" fleet.json >f &&
	gp-probe --fleet f --arm chash $B >out 2>err; rc=$?;
	probe_rec out | jq -e ".mode_confirmed and (.engaged | not) and .concentration < 1.5" &&
	exit $rc
'

test_expect_code 1 'a mode_cmd that hangs is bounded by --mode-timeout-s' '
	jq "(.arms[] | select(.name==\"rr\")) |= (.mode_cmd = \"sleep 30\")" fleet.json >f &&
	s=$(date +%s) && gp-probe --fleet f --arm rr --mode-timeout-s 0.5 >out 2>err; rc=$?; e=$(date +%s);
	test $((e - s)) -le 3 && probe_rec out | jq -e ".mode_evidence | test(\"timed out\")" && exit $rc
'

test_expect_code 65 'a mode_regex that does not compile is bad input naming the arm' '
	jq "(.arms[] | select(.name==\"rr\")) |= (.mode_regex = \"(\")" fleet.json >f &&
	gp-probe --fleet f --arm rr 2>err; rc=$?; grep -q "mode_regex. of arm .rr." err && exit $rc
'

test_expect_code 2 'an arm without expect needs --expect' '
	jq "(.arms[] | select(.name==\"rr\")) |= del(.expect)" fleet.json >f && gp-probe --fleet f --arm rr
'
test_done
