#!/bin/sh
# gp-health and a signal (gp-health(1) SIGNALS): the first SIGTERM or SIGINT
# cancels the check in flight, starts no other, and still writes the
# health_summary: interrupted, the checks not run named, counts that add up;
# exit 128+N soon after the signal (the request in flight is cancelled, not
# waited for), every line whole.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v jq >/dev/null || skip_all "jq missing"
command -v python3 >/dev/null || skip_all "python3 missing (share/packages)"
cd "$TRASH" || exit 1

# A router fleet whose engines decode slowly (a chat of 2-4 tokens takes 1-2
# s): 4 backend_models, 5 metrics (4 backends, the gateway) and
# vip_chat, then kv_events with --arm chash.
start_router chash --decode-ms 500 || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json
# A VIP that stalls after its first token: vip_chat waits for --timeout-s.
ROUTER_PORT=$SIM_PORT
start_sim --fault stall=1 || fail_all "a stalling gp-sim did not start"
jq --arg u "http://127.0.0.1:$SIM_PORT" '.vips[0].url = $u' fleet.json >stall.json
# A backend that never answers: the connection is taken (listen backlog),
# the request waits.
SILENT=$(free_port_range 1) || fail_all "no free port"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); time.sleep(120)' "$SILENT" &
cleanup_pid $!
wait_port "$SILENT" || fail_all "the silent peer did not listen"
jq --arg u "http://127.0.0.1:$SILENT" '.backends[1].url = $u' fleet.json >silent.json
SIM_PORT=$ROUTER_PORT

# adds_up FILE N: the last record is the health_summary and its counts are
# those of the records before it; N checks were planned (run + not run).
adds_up() {
	jq -s -e --argjson n "$2" '
		map(select(.type == "health")) as $h | last as $s |
		$s.type == "health_summary" and
		$s.checks == ($h | length) and
		$s.failed == ($h | map(select(.ok != true)) | length) and
		$s.failed == ($s.failed_checks | length) and
		$s.not_run == ($s.not_run_checks | length) and
		$s.checks + $s.not_run == $n' "$1" >/dev/null
}
# interrupt SIG AFTER ARGS...: run gp-health ARGS, its records through a
# pipe (flushed one by one) into out; once a record matching AFTER is out
# (the check after it is in flight), wait 0.3 s, send SIG.  Writes rc (the
# exit status) and ms (signal to exit).
interrupt() {
	_sig=$1 _after=$2
	shift 2
	rm -f pipe && mkfifo pipe && { cat pipe >out & } && _cat=$!
	gp-health "$@" >pipe 2>err &
	_pid=$!
	for _i in $(seq 1 200); do grep -q "$_after" out && break; sleep 0.05; done
	sleep 0.3
	_t0=$(date +%s%N)
	kill -"$_sig" $_pid
	wait $_pid
	echo $? >rc
	echo $((($(date +%s%N) - _t0) / 1000000)) >ms
	wait $_cat
	cat err
}
summary() { tail -1 out | jq -c "$1"; }

test_expect_success 'no signal: 10 checks run, the summary says not interrupted' '
	gp-health --fleet fleet.json >out 2>err &&
	adds_up out 10 &&
	test "$(summary "[.ready, .interrupted, .checks, .not_run, .not_run_checks]")" = "[true,false,10,0,[]]"
'

test_expect_success 'SIGTERM during a stalled vip_chat: 143 within 3 s (not the 30 s timeout), summary last' '
	interrupt TERM "\"name\":\"gateway\"" --fleet stall.json --timeout-s 30 &&
	test "$(cat rc)" = 143 && test "$(cat ms)" -lt 3000 &&
	jq -c . out >/dev/null && adds_up out 10 &&
	test "$(summary "[.ready, .interrupted, .checks, .failed, .not_run_checks]")" = \
		"[false,true,9,0,[\"vip_chat router\"]]" &&
	test -z "$(sel ".check == \"vip_chat\"" out)" &&
	grep -q "interrupted: 1 check not run" err &&
	cp out stalled.ndjson
'

test_expect_success 'gp-report names the interrupted round and the check it did not run' '
	gp-report --no-plots -q -o rep stalled.ndjson &&
	grep -F "NOT READY — interrupted, not run: vip_chat router (stalled.ndjson:10)" rep/report.md
'

test_expect_success 'SIGTERM during kv_events: vip_chat recorded, kv_events not run' '
	interrupt TERM "\"check\":\"vip_chat\"" --fleet fleet.json --arm chash --timeout-s 30 &&
	test "$(cat rc)" = 143 && jq -c . out >/dev/null && adds_up out 11 &&
	test "$(summary "[.interrupted, .checks, .not_run_checks]")" = "[true,10,[\"kv_events router\"]]" &&
	test "$(sel ".check == \"vip_chat\"" out | jq .ok)" = true
'

test_expect_success 'SIGINT while a backend does not answer /v1/models: 130 at once, the rest named' '
	interrupt INT "\"check\":\"metrics\",\"target\":\"[^\"]*\",\"name\":\"b1\"" --fleet silent.json --timeout-s 30 &&
	test "$(cat rc)" = 130 && test "$(cat ms)" -lt 3000 &&
	jq -c . out >/dev/null && adds_up out 10 &&
	test "$(summary ".not_run_checks[0:2]")" = "[\"backend_models b2\",\"metrics b2\"]" &&
	test "$(summary "[.checks, .not_run]")" = "[2,8]"
'

test_done
