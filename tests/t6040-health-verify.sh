#!/bin/sh
# gp-health's records are the evidence gp-verify validity needs: a run framed
# by ready health rounds has its vip_200, backend_health and kv_events rules
# checked (its probe and gateway rules need gp-probe and the campaign's
# gateway records, not here); a failed vip_chat or backend_models check in
# its window discards it.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v haproxy >/dev/null || skip_all "haproxy not installed (share/packages)"
cd "$TRASH" || exit 1

start_fleet || fail_all "gp-sim did not start"
start_haproxy rr || fail_all "haproxy did not start"
fleet_from "$GP_TOP/examples/haproxy/fleet.json" >fleet.json
gp-trace synth --requests 10 --rate-rps 10 --output-tokens 4 --seed 1 >trace
runs() { jq -c "select(.type==\"validity\") | .runs[] | [.verdict, .not_checked]" "$1"; }

test_expect_success 'health before and after a run: its health rules are checked and pass' '
	gp-health --fleet fleet.json >h1 &&
	gp-replay --url "http://127.0.0.1:$GP_VIP_PORT" --model gp-sim --arm rr --rep 1 --rate-rps 10 <trace >run 2>/dev/null &&
	gp-health --fleet fleet.json >h2 &&
	cat h1 run h2 | gp-verify validity >v 2>/dev/null;
	test "$(jq -c "select(.type==\"validity\") | .runs[0].not_checked" v)" = "[\"probe\",\"gateway\"]" &&
	! jq -r "select(.type==\"discard\") | .reasons[]" v | grep -q "^vip_200\|^backend_health"
'

test_expect_success 'gp-health --for-run: every record of the round names the run; without it, null' '
	gp-health --fleet fleet.json --for-run rr-10-1-c0ffee >hf &&
	test "$(jq -r .for_run hf | sort -u)" = rr-10-1-c0ffee &&
	test "$(jq -r .type hf | tail -n 1)" = health_summary &&
	test "$(jq -r .for_run h1 | sort -u)" = null
'

test_expect_success 'without health records the same rules are not checked' '
	gp-verify validity run >v;
	runs v | grep -q "vip_200" && runs v | grep -q "backend_health"
'

test_expect_code 1 'a dead backend in the after round discards the run (backend_health)' '
	jq ".backends[2].url=\"http://127.0.0.1:1\"" fleet.json >f &&
	{ gp-health --fleet f >h3 2>/dev/null; test $? = 1; } &&
	cat h1 run h3 | gp-verify validity >v 2>/dev/null; rc=$?;
	jq -r "select(.type==\"discard\") | .reasons[]" v | grep -q "^backend_health: backend_models check of http://127.0.0.1:1 failed at " || exit 9
	exit $rc
'

stop_gateway
test_expect_code 1 'the VIP down in the after round discards the run (vip_200)' '
	{ gp-health --fleet fleet.json >h4 2>/dev/null; test $? = 1; } &&
	jq -c "select(.check==\"vip_chat\") | [.ok, .error]" h4 | grep -qx "\[false,\"connect\"\]" &&
	cat h1 run h4 | gp-verify validity >v 2>/dev/null; rc=$?;
	jq -r "select(.type==\"discard\") | .reasons[]" v | grep -q "^vip_200: vip_chat check of http://127.0.0.1:$GP_VIP_PORT failed at " || exit 9
	exit $rc
'
test_done
