#!/bin/sh
# examples/caddy (Debian's caddy 2.6) behind gp-health, gp-probe and
# gp-replay: SSE streamed as it is written, the serving upstream in
# X-GP-Backend, the policy read from Caddy's admin API (the live config,
# never our file); round_robin and least_conn spread, header hashing
# concentrates, and a Caddy whose policy was changed at run time through its
# admin API is caught although the file on disk still names the arm.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v caddy >/dev/null || skip_all "caddy not installed (share/packages)"
cd "$TRASH" || exit 1

start_fleet || fail_all "gp-sim did not start"
GP_CADDY_DIR=$TRASH/caddy
fleet_from "$GP_TOP/examples/caddy/fleet.json" >fleet.json
B="--requests 32 --max-tokens 16 --concurrency 16 --interval-ms 40"
probe() { jq -c "select(.type==\"probe\")" "$1"; }

test_expect_success 'caddy 2.6 from Debian' '
	caddy version >v && grep -q "^v\{0,1\}2\.6\." v
'

start_caddy hash || { sed "s/^/# /" caddy.log caddy/caddy.log 2>/dev/null; fail_all "caddy did not start"; }
test_expect_success 'the mode from the admin API: header hashing on X-GP-Cache-Key over 4 upstreams' '
	sh "$GP_TOP/examples/caddy/mode.sh" "$GP_CADDY_DIR" >m && cat m &&
	grep -qx "caddy lb_policy: header X-GP-Cache-Key upstreams 4" m
'
test_expect_success 'healthy behind caddy: ready, the KV precheck lands twice on one upstream' '
	gp-health --fleet fleet.json --arm hash >out 2>err &&
	jq -c "select(.type==\"health_summary\") | [.ready, .failed]" out | grep -qx "\[true,0\]" &&
	test "$(jq -r "select(.check==\"kv_events\") | .backends | unique | length" out)" = 1
'
test_expect_success 'SSE streams through caddy: TTFT well under E2E, the upstream named' '
	printf "%s\n" "{\"id\":\"a\",\"t_s\":0,\"input_tokens\":50,\"output_tokens\":40}" >trace &&
	gp-replay --url http://127.0.0.1:$GP_VIP_PORT --model gp-sim --arm x --rep 1 --backend-header x-gp-backend <trace >run 2>/dev/null &&
	jq -c "select(.type==\"request\")" run | jq -e ".outcome == \"ok\" and .e2e_ms > 200 and .ttft_ms < .e2e_ms / 4 and (.backend | test(\"^127.0.0.1:\"))"
'
test_expect_success 'a replay of 120 requests through caddy: every request ok (no stream cut: buffer_requests), one upstream per key' '
	gp-trace synth --requests 120 --rate-rps 40 --seed 3 --keys 3 --prefix-tokens 32 --block-tokens 16 --input-tokens 48 --output-tokens 8 >t24 &&
	gp-replay --url http://127.0.0.1:$GP_VIP_PORT --model gp-sim --arm hash --rep 1 --key-header x-gp-cache-key \
		--backend-header x-gp-backend <t24 >run24 2>err24 &&
	test "$(jq -s "[.[] | select(.type==\"request\")] | length" run24)" = 120 &&
	jq -s -e "[.[] | select(.type==\"request\")] | all(.outcome == \"ok\")" run24 >/dev/null &&
	jq -r "[.id, .cache_key] | @tsv" t24 | sort >keys &&
	jq -r "select(.type==\"request\") | [.id, .backend] | @tsv" run24 | sort >served &&
	join keys served | awk "{print \$2, \$3}" | sort -u >pairs &&
	test "$(wc -l <pairs)" = 3 && test "$(cut -d" " -f1 pairs | sort -u | wc -l)" = 3
'
test_expect_success 'header hash concentrates: one hot key, one upstream' '
	gp-probe --fleet fleet.json --arm hash $B >out 2>err &&
	probe out | tee p.json | jq -e ".mode_confirmed and .engaged and (.served | length) == 1 and .served_peak_to_mean == 4" &&
	echo "# hash: concentration $(jq .concentration p.json), served $(jq -c .served p.json)"
'
test_expect_code 1 'the claim "rr" against a hashing caddy: mode not confirmed, no request sent' '
	gp-probe --fleet fleet.json --arm rr $B >out 2>err; rc=$?;
	probe out | jq -e "(.mode_confirmed | not) and (.mode_evidence | test(\"header X-GP-Cache-Key\")) and .requests == 0" && exit $rc
'
test_expect_code 1 'the policy changed through the admin API at run time: caught, though caddy.json still says hash' '
	curl -s --unix-socket "$GP_CADDY_DIR/admin.sock" -H "Content-Type: application/json" \
		-X PATCH -d "{\"policy\":\"round_robin\"}" \
		http://localhost/config/apps/http/servers/vip/routes/0/handle/0/load_balancing/selection_policy &&
	jq -e ".apps.http.servers.vip.routes[0].handle[0].load_balancing.selection_policy.policy == \"header\"" caddy/caddy.json >/dev/null &&
	gp-probe --fleet fleet.json --arm hash $B >out 2>err; rc=$?;
	probe out | jq -e "(.mode_confirmed | not) and (.mode_evidence == \"caddy lb_policy: round_robin upstreams 4\")" && exit $rc
'
stop_gateway

start_caddy rr || fail_all "caddy did not start (rr)"
test_expect_success 'round robin: spread, each upstream served a quarter' '
	gp-probe --fleet fleet.json --arm rr $B >out 2>err &&
	probe out | tee p.json | jq -e ".engaged and .mode_evidence == \"caddy lb_policy: round_robin upstreams 4\" and .served == {\"b1\":8,\"b2\":8,\"b3\":8,\"b4\":8} and .served_peak_to_mean == 1" &&
	echo "# rr: concentration $(jq .concentration p.json), served $(jq -c .served p.json)"
'
stop_gateway

start_caddy least_conn || fail_all "caddy did not start (least_conn)"
test_expect_success 'least_conn: spread' '
	gp-probe --fleet fleet.json --arm least_conn $B >out 2>err &&
	probe out | tee p.json | jq -e ".engaged and .mode_evidence == \"caddy lb_policy: least_conn upstreams 4\"" &&
	echo "# least_conn: concentration $(jq .concentration p.json), served $(jq -c .served p.json)"
'
stop_gateway

# Behind Caddy, servers the project did not write: four vLLM-shaped FastAPI
# fixtures on uvicorn (Debian's python3-fastapi, python3-uvicorn;
# tests/fixtures/vllm-shaped.py).  A replay through the round-robin arm,
# and gp-health on a disaggregated fleet of them (two prefill, two decode
# members; the fixture serves a 4096-token context), whose role_chat asks
# each member directly.
PY=/usr/bin/python3
if $PY -c 'import fastapi, uvicorn' 2>/dev/null; then
	UP=$(free_port_range 4) || fail_all "no free ports"
	for i in 0 1 2 3; do
		$PY "$GP_TOP/tests/fixtures/vllm-shaped.py" --port $((UP + i)) --model gp-sim --ttft-ms 20 \
			--tpot-ms 5 2>"fx$i.log" &
		cleanup_pid $!
	done
	for i in 0 1 2 3; do wait_port $((UP + i)) || fail_all "the uvicorn fixture did not start"; done
	GP_B1=127.0.0.1:$UP GP_B2=127.0.0.1:$((UP + 1)) GP_B3=127.0.0.1:$((UP + 2)) GP_B4=127.0.0.1:$((UP + 3))
	export GP_B1 GP_B2 GP_B3 GP_B4
	fleet_from "$GP_TOP/examples/caddy/fleet.json" >fleet-uv.json
	start_caddy rr || fail_all "caddy did not start (rr, uvicorn)"
	test_expect_success 'uvicorn behind caddy (round robin): 60 streamed requests, every one ok, the four served' '
		gp-trace synth --requests 60 --rate-rps 30 --seed 4 --keys 0 --input-tokens 40 --output-tokens 8 >tu &&
		gp-replay --url "http://127.0.0.1:$GP_VIP_PORT" --model gp-sim --arm rr --rep 1 \
			--backend-header x-gp-backend <tu >ru 2>eu &&
		jq -s -e "[.[] | select(.type==\"request\")] | length == 60 and all(.outcome == \"ok\") and
			(map(.backend) | unique | length) == 4" ru >/dev/null
	'
	test_expect_success 'gp-health role_chat on a disaggregated fleet of uvicorn members: each role serves directly' '
		jq ".context_length = 4096 | .backends[0].role = \"prefill\" | .backends[1].role = \"prefill\" |
		    .backends[2].role = \"decode\" | .backends[3].role = \"decode\"" fleet-uv.json >fleet-uvpd.json &&
		{ gp-health --fleet fleet-uvpd.json >h 2>he || { cat he; jq -c "select(.ok == false)" h; false; }; } &&
		jq -s -e "[.[] | select(.check == \"role_chat\" and .ok)] | length == 4" h >/dev/null
	'
	stop_gateway
else
	test_skip 'uvicorn behind caddy' 'no python3-fastapi/python3-uvicorn (share/packages)'
	test_skip 'gp-health role_chat on uvicorn members' 'no python3-fastapi/python3-uvicorn'
fi
test_done
