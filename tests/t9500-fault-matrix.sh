#!/bin/sh
# The fault matrix (doc/faults.md): every gp-sim fault kind and every
# misbehaving server (tests/fixtures/badserver.py) against every tool that
# speaks HTTP — gp-replay, gp-health, gp-probe, gp-calibrate.  Each cell
# asserts the error class, the records (one per attempted request, a
# trailer whose counts add up), a message on stderr and the exit status; the
# cells seen are then compared with the table in doc/faults.md, both ways.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
command -v openssl >/dev/null || skip_all "no openssl (share/packages)"
command -v iconv >/dev/null || skip_all "no iconv"
test -x /usr/bin/python3 || skip_all "no /usr/bin/python3"
for t in replay health probe calibrate sim; do
	test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"
done
BAD=$GP_TOP/tests/fixtures/badserver.py

awk 'BEGIN { for (i = 0; i < 3; i++)
	printf "{\"type\":\"trace\",\"id\":\"q%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":4}\n", i, i * 0.01 }' >trace.ndjson
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
	-subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 ||
	fail_all "openssl req failed"

# fleet ORIGIN: a fleet of one backend at ORIGIN that is also the VIP
# (fleet.json), and the same with the VIP elsewhere (cal.json: gp-calibrate
# refuses to calibrate a VIP).
fleet() {
	cat >fleet.json <<-EOF
	{"model":"m","context_length":4096,
	 "vips":[{"name":"vip","url":"$1"}],
	 "backends":[{"name":"b1","url":"$1","metrics_url":"$1/metrics","role":"both","accelerators":1}],
	 "inflight_metrics":["vllm:num_requests_running","vllm:num_requests_waiting"],
	 "arms":[{"name":"rr","expect":"spread","routes_by_cache":false,
	          "mode_cmd":"echo mode=rr","mode_regex":"^mode=rr$"}]}
	EOF
	jq '.vips[0].url = "http://127.0.0.1:1"' fleet.json >cal.json
}
# The cells seen, "fault tool class exit", for the comparison with the doc.
seen() { echo "$1 $2 $3 $4" >>"$TRASH/seen"; }
# add_up FILE: the run_end trailer of a gp-replay output adds up, and there is
# one request record per attempted request.
add_up() {
	jq -s -e '(map(select(.type == "request")) | length) as $n |
		map(select(.type == "run_end")) | length == 1 and (.[0] |
		.attempted == $n and .ok + .single_token + .failed == .attempted and
		([.by_error[]] | add // 0) == .failed)' "$1" >/dev/null
}

# replay FAULT CLASS EXIT [ARGS]: 3 requests, each one record of CLASS.
replay() {
	_f=$1 _c=$2 _x=$3
	shift 3
	gp-replay --url "$URL" --model m --deadline-s 1.5 "$@" trace.ndjson >"r-$_f" 2>"re-$_f"
	_rc=$?
	seen "$_f" gp-replay "$_c" $_rc
	test $_rc = "$_x" && test -s "re-$_f" || return 1
	if [ "$_x" = 69 ]; then	# stopped before the first send: no record at all
		test ! -s "r-$_f" && grep -q "no request sent" "re-$_f"
		return
	fi
	add_up "r-$_f" &&
	jq -s -e --arg c "$_c" 'map(select(.type == "request")) | length == 3 and
		all(.[]; .outcome == "failed" and .error == $c)' "r-$_f" >/dev/null &&
	grep -q "every request failed" "re-$_f"
}
# health FAULT CLASS EXIT: the vip_chat check fails with CLASS; the summary
# counts every health record.
health() {
	gp-health --fleet fleet.json --timeout-s 1.5 >"h-$1" 2>"he-$1"
	_rc=$?
	seen "$1" gp-health "$2" $_rc
	test $_rc = "$3" && grep -q "not ready: vip_chat" "he-$1" &&
	jq -s -e --arg c "$2" '(map(select(.type == "health")) | length) as $n |
		(map(select(.type == "health" and .ok == false)) | length) as $bad |
		(map(select(.check == "vip_chat")) | length == 1 and .[0].ok == false and
		 .[0].error == $c and (.[0].detail | length) > 0) and
		(map(select(.type == "health_summary")) | length == 1 and
		 .[0].checks == $n and .[0].failed == $bad and .[0].ready == false)' "h-$1" >/dev/null
}
# probe FAULT CLASS EXIT: 4 requests, all failed with CLASS, counted once.
probe() {
	gp-probe --fleet fleet.json --arm rr --requests 4 --concurrency 2 --timeout-s 1.5 \
		--interval-ms 200 >"p-$1" 2>"pe-$1"
	_rc=$?
	seen "$1" gp-probe "$2" $_rc
	test $_rc = "$3" && test -s "pe-$1" &&
	jq -s -e --arg c "$2" 'map(select(.type == "probe")) | length == 1 and (.[0] |
		.requests == 4 and .ok == 0 and .failed == 4 and .by_error == {($c): 4} and
		.engaged == false)' "p-$1" >/dev/null
}
# calibrate FAULT CLASS EXIT: the endpoint check fails with CLASS before any
# load: exit 69, no record, the class named.
calibrate() {
	gp-calibrate --fleet cal.json --endpoint b1 --role decode --warmup-s 0 --hold-s 0.3 \
		--hold-requests 1 --max-steps 3 >"c-$1" 2>"ce-$1"
	_rc=$?
	seen "$1" gp-calibrate "$2" $_rc
	test $_rc = "$3" && test ! -s "c-$1" &&
	grep -q "does not serve a streamed completion: $2" "ce-$1"
}

# ---- the slow cells first, in the background: gp-calibrate waits 30 s for
# its endpoint check, so these three overlap the rest of the file ----
start_sim --model m --decode-ms 2 --fault stall=1 || fail_all "gp-sim"
PORT_stall=$SIM_PORT SIM_PID=
for m in silent trickle stall; do
	if [ $m != stall ]; then
		P=$(free_port_range 1)
		/usr/bin/python3 "$BAD" $m "$P" >/dev/null 2>>bad.log &
		cleanup_pid $!
		wait_port "$P" || fail_all "badserver $m did not start"
		eval "PORT_$m=$P"
	fi
	eval "P=\$PORT_$m"
	mkdir "bg-$m" && (cd "bg-$m" && URL=http://127.0.0.1:$P && fleet "$URL" &&
		TRASH=$TRASH/bg-$m calibrate $m timeout 69; echo $? >rc) &
	cleanup_pid $!
done

# ---- every gp-sim fault kind, with probability 1 ----
for spec in reset:reset drop_done:truncated bad_frame:invalid_framing \
	    bad_chunk:invalid_framing http500:http_status http429:http_status stall:hang; do
	f=${spec%%:*} c=${spec#*:}
	[ -n "${SIM_PID:-}" ] && { kill $SIM_PID; wait $SIM_PID 2>/dev/null; }
	start_sim --model m --decode-ms 2 --fault "$f=1" || fail_all "gp-sim"
	URL=http://127.0.0.1:$SIM_PORT
	fleet "$URL"
	test_expect_success "$f: gp-replay -> $c, 3 records, trailer adds up, exit 1" \
		"replay $f $c 1 --idle-s 0.3"
	# gp-health and gp-probe have no idle limit: a stalled stream is a timeout
	[ $f = stall ] && c=timeout
	test_expect_success "$f: gp-health -> vip_chat $c, not ready, exit 1" "health $f $c 1"
	test_expect_success "$f: gp-probe -> by_error {$c: 4}, not engaged, exit 1" "probe $f $c 1"
	[ $f = stall ] ||	# (in the background, above)
	test_expect_success "$f: gp-calibrate -> no sweep, class named, exit 69" "calibrate $f $c 69"
done

# (gp-sim starts here, at top level, so that lib.sh's cleanup sees it)
kill $SIM_PID; wait $SIM_PID 2>/dev/null
start_sim --model m --decode-ms 2 --fault reset=0.2 --fault drop_done=0.1 \
	--fault bad_frame=0.1 --fault http500=0.1 --fault http429=0.1 --seed 3 ||
	fail_all "gp-sim"
test_expect_success 'faults in a sweep: gp-calibrate counts every request once' '
	jq ".backends[0].url = \"http://127.0.0.1:$SIM_PORT\" |
	    .backends[0].metrics_url = \"http://127.0.0.1:$SIM_PORT/metrics\"" cal.json >cal2.json &&
	gp-calibrate --fleet cal2.json --endpoint b1 --role decode --warmup-s 0 --hold-s 0.4 \
		--hold-requests 1 --max-steps 3 --start-rps 10 --decode-output-tokens 4 >sweep 2>sweep.err
	test $? = 1 && grep -q "no trusted capacity: backstop after 3 steps" sweep.err &&
	jq -s -e "(map(select(.type == \"calib_step\")) | length) as \$n |
		(map(select(.type == \"calib_step\") | .sent) | add) as \$sent |
		(map(select(.type == \"calib_step\") | .failed) | add) as \$failed |
		\$n == 3 and \$failed > 0 and
		all(.[] | select(.type == \"calib_step\");
		    .ok + .failed + .cut == .sent and ([.by_error[]] | add // 0) == .failed and
		    ((.by_error | keys) - [\"reset\", \"truncated\", \"invalid_framing\", \"http_status\"] == [])) and
		(map(select(.type == \"capacity\")) | length == 1 and .[0].attempted == \$sent and
		 .[0].failed == \$failed and (.[0].reasons | index(\"failed_requests\")))" sweep >/dev/null
'

# ---- nothing listening, and a name that cannot resolve (RFC 6761 .invalid) ----
P=$(free_port_range 1)
for spec in refused:http://127.0.0.1:$P unresolvable:http://no-such-host.invalid:$P; do
	f=${spec%%:*} URL=${spec#*:}
	fleet "$URL"
	test_expect_success "$f: gp-replay -> exit 69 before any send, no record" "replay $f connect 69"
	test_expect_success "$f: gp-health -> vip_chat connect, exit 69" "health $f connect 69"
	test_expect_success "$f: gp-probe -> by_error {connect: 4}, exit 69" '
		probe $f connect 69 && grep -q "the VIP is unreachable" pe-$f'
	test_expect_success "$f: gp-calibrate -> exit 69" "calibrate $f connect 69"
done

# ---- a certificate that does not verify ----
P=$(free_port_range 1)
/usr/bin/python3 "$BAD" tls "$P" cert.pem key.pem >/dev/null 2>>bad.log &
cleanup_pid $!
wait_port "$P" || fail_all "badserver tls did not start"
URL=https://127.0.0.1:$P
fleet "$URL"
test_expect_success 'tls: gp-replay -> exit 69 before any send, naming --cacert' '
	replay tls tls 69 && grep -q -- "--cacert FILE" re-tls && grep -q "certificate" re-tls'
test_expect_success 'tls: gp-replay --cacert trusts it: 3 ok, exit 0' '
	gp-replay --url "$URL" --model m --cacert cert.pem trace.ndjson >r-tls-ok 2>/dev/null &&
	add_up r-tls-ok && jq -s -e "map(select(.type == \"run_end\"))[0].ok == 3" r-tls-ok >/dev/null'
test_expect_success 'tls: gp-health -> vip_chat tls, exit 69, naming --cacert' '
	health tls tls 69 && grep -q -- "--cacert FILE" he-tls'
test_expect_success 'tls: gp-probe -> by_error {tls: 4}, exit 69' '
	probe tls tls 69 && grep -q "TLS was refused" pe-tls && grep -q -- "--cacert FILE" pe-tls'
test_expect_success 'tls: gp-calibrate -> exit 69, class tls, naming --cacert' '
	calibrate tls tls 69 && grep -q -- "--cacert FILE" ce-tls'
test_expect_success 'tls: gp-health, gp-probe, gp-calibrate --cacert trust it' '
	gp-health --fleet fleet.json --cacert cert.pem >/dev/null &&
	gp-probe --fleet fleet.json --arm rr --requests 4 --cacert cert.pem --min-busy 1 >p-tls-ok 2>/dev/null
	jq -s -e "map(select(.type == \"probe\"))[0] | .ok == 4" p-tls-ok >/dev/null &&
	gp-calibrate --fleet cal.json --endpoint b1 --role decode --warmup-s 0 --hold-s 0.3 \
		--hold-requests 1 --max-steps 3 --cacert cert.pem >c-tls-ok 2>/dev/null
	jq -s -e "map(select(.type == \"calib_step\")) | length >= 1" c-tls-ok >/dev/null'

# ---- a server that accepts and never answers; one that trickles ----
for m in silent trickle; do
	eval "URL=http://127.0.0.1:\$PORT_$m"
	fleet "$URL"
	test_expect_success "$m: gp-replay -> timeout at --deadline-s, 3 records, exit 1" "
		replay $m timeout 1 &&
		jq -s -e 'map(select(.type == \"request\")) | all(.[]; .e2e_ms >= 1400 and .e2e_ms < 5000)' r-$m >/dev/null"
	test_expect_success "$m: gp-health -> vip_chat timeout, exit 1" "health $m timeout 1"
	test_expect_success "$m: gp-probe -> by_error {timeout: 4}, exit 1" "probe $m timeout 1"
done

# ---- a 10 MiB SSE event ----
P=$(free_port_range 1)
/usr/bin/python3 "$BAD" big "$P" >/dev/null 2>>bad.log &
cleanup_pid $!
wait_port "$P" || fail_all "badserver big did not start"
URL=http://127.0.0.1:$P
fleet "$URL"
test_expect_success 'big event: gp-replay -> invalid_framing (over --max-event-bytes), exit 1' '
	replay big invalid_framing 1 && jq -s -e "map(select(.type == \"run_end\"))[0].invalid_framing == 3" r-big >/dev/null'
test_expect_success 'big event: gp-health -> vip_chat invalid_framing, exit 1' 'health big invalid_framing 1'
test_expect_success 'big event: gp-probe -> by_error {invalid_framing: 4}, exit 1' 'probe big invalid_framing 1'
test_expect_success 'big event: gp-calibrate -> exit 69, class invalid_framing' 'calibrate big invalid_framing 69'

# ---- hostile servers (tests/fixtures/hostile.py) ----
HOSTILE=$GP_TOP/tests/fixtures/hostile.py
hostile() {
	P=$(free_port_range 1)
	/usr/bin/python3 "$HOSTILE" "$1" "$P" >/dev/null 2>>bad.log &
	cleanup_pid $!
	wait_port "$P" || fail_all "hostile.py $1 did not start"
	URL=http://127.0.0.1:$P
	fleet "$URL"
}
# Every line of FILE valid UTF-8 (and JSON).
utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null && jq -e . "$1" >/dev/null; }
for spec in latin1:http_status flaterror:stream_error gzip:invalid_framing; do
	f=${spec%%:*} c=${spec#*:}
	hostile $f
	test_expect_success "$f: gp-replay -> $c, 3 records, valid UTF-8, exit 1" "replay $f $c 1 && utf8 r-$f"
	test_expect_success "$f: gp-health -> vip_chat $c, valid UTF-8, exit 1" "health $f $c 1 && utf8 h-$f"
	test_expect_success "$f: gp-probe -> by_error {$c: 4}, exit 1" "probe $f $c 1 && utf8 p-$f"
done
# A server that is right in its own way: the request is ok, the record says how.
# replay_ok FAULT JQ: 3 ok records, the trailer adds up and satisfies JQ, exit 0.
replay_ok() {
	gp-replay --url "$URL" --model m --deadline-s 10 trace.ndjson >"r-$1" 2>"re-$1"
	_rc=$?
	seen "$1" gp-replay none $_rc
	test $_rc = 0 && add_up "r-$1" && utf8 "r-$1" &&
	jq -s -e "map(select(.type == \"request\")) | length == 3 and all(.[]; .outcome == \"ok\")" "r-$1" >/dev/null &&
	jq -s -e "map(select(.type == \"run_end\"))[0] | $2" "r-$1" >/dev/null
}
hostile donehold
test_expect_success 'donehold: gp-replay ends each request at [DONE], ok, exit 0' '
	replay_ok donehold ".ok == 3 and .failed == 0" &&
	jq -s -e "map(select(.type == \"request\")) | all(.[]; .e2e_ms < 5000)" r-donehold >/dev/null'
test_expect_success 'donehold: gp-health vip_chat ok at [DONE] (not its timeout), ready, exit 0' '
	gp-health --fleet fleet.json --timeout-s 8 >h-donehold 2>he-donehold; rc=$?
	seen donehold gp-health none $rc
	test $rc = 0 && jq -s -e "map(select(.check == \"vip_chat\"))[0].ok" h-donehold >/dev/null'
hostile plainsse
test_expect_success 'plainsse: gp-replay reads the stream by its body, flags it, exit 0' '
	replay_ok plainsse ".sse_by_body == 3" && grep -q "by their body" re-plainsse'
hostile usage0
test_expect_success 'usage0: gp-replay counts the events, flags the usage, exit 0' '
	replay_ok usage0 ".usage_contradicted == 3" &&
	jq -s -e "map(select(.type == \"request\")) | all(.[]; .out_tokens == 8 and .tokens_from == \"chunks_usage_contradicted\")" r-usage0 >/dev/null'
[ -n "${SIM_PID:-}" ] && { kill $SIM_PID; wait $SIM_PID 2>/dev/null; }
start_sim --model m --decode-ms 40 --max-batch 1000 || fail_all "gp-sim did not start"
awk 'BEGIN { for (i = 0; i < 300; i++)
	printf "{\"type\":\"trace\",\"id\":\"n%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":20}\n", i, i * 0.001 }' >nofile.ndjson
test_expect_success 'nofile: ulimit -n 64, 300 streams: gp-replay -> client_limit, warned, exit 0' '
	(ulimit -n 64 && gp-replay --url http://127.0.0.1:$SIM_PORT --model m --deadline-s 20 nofile.ndjson >r-nofile 2>re-nofile)
	rc=$?
	seen nofile gp-replay client_limit $rc
	test $rc = 0 && add_up r-nofile && grep -q "descriptor limit" re-nofile &&
	jq -s -e "map(select(.type == \"run_end\"))[0] | .client_limit > 100 and (.by_error.connect // 0) == 0" r-nofile >/dev/null'

# ---- a backend killed in the middle of a run ----
[ -n "${SIM_PID:-}" ] && { kill $SIM_PID; wait $SIM_PID 2>/dev/null; }
start_sim --model m --decode-ms 2 || fail_all "gp-sim"
awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "{\"type\":\"trace\",\"id\":\"k%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":4}\n", i, i * 0.05 }' >long.ndjson
test_expect_success 'backend killed mid-run: gp-replay records all 40, the rest connect, exit 0' '
	gp-replay --url http://127.0.0.1:$SIM_PORT --model m --deadline-s 1.5 long.ndjson >killed 2>killed.err &
	rp=$!
	sleep 0.8; kill -9 $SIM_PID; wait $rp; rc=$?
	seen killed gp-replay connect $rc
	test $rc = 0 && add_up killed &&
	jq -s -e "map(select(.type == \"run_end\"))[0] | .attempted == 40 and .ok >= 1 and .failed >= 1 and
		((.by_error | keys) - [\"connect\", \"reset\"] == []) and .by_error.connect >= 1" killed >/dev/null
'

# ---- the gateway (HAProxy) restarted in the middle of a run ----
if command -v haproxy >/dev/null; then
	. "$GP_TOP/tests/gateway.sh"
	start_fleet --decode-ms 2 || fail_all "gp-sim"
	start_haproxy rr || fail_all "haproxy"
	test_expect_success 'gateway restarted mid-run: gp-replay records all 40, exit 0' '
		gp-replay --url http://127.0.0.1:$GP_VIP_PORT --model gp-sim --deadline-s 1.5 long.ndjson >gw 2>gw.err &
		rp=$!
		sleep 0.6; stop_gateway; sleep 0.3; start_haproxy rr; wait $rp; rc=$?
		stop_gateway	# started in this subshell: lib.sh'"'"'s cleanup does not know it
		seen restarted gp-replay connect $rc
		test $rc = 0 && add_up gw &&
		jq -s -e "map(select(.type == \"run_end\"))[0] | .attempted == 40 and .ok >= 2 and .failed >= 1 and
			((.by_error | keys) - [\"connect\", \"reset\"] == [])" gw >/dev/null
	'
else
	test_expect_success 'gateway restarted mid-run (haproxy not installed: share/packages)' 'false'
fi

# ---- a backend killed, a gateway restarted, under the fleet tools ----
# busy PORT...: one of the gp-sim ports has a request in flight (its metrics
# say so) within 4 s — the moment to kill it "mid-run".
busy() {
	for _i in $(seq 1 200); do
		for _p in "$@"; do
			curl -s "http://127.0.0.1:$_p/metrics" |
				grep -Eq '^vllm:num_requests_running(\{[^}]*\})? [1-9]' && return 0
		done
		sleep 0.02
	done
	return 1
}
# health_adds_up FILE: one health record per check, a summary that counts them.
health_adds_up() {
	jq -s -e '(map(select(.type == "health")) | length) as $n |
		(map(select(.type == "health" and .ok == false)) | length) as $bad |
		map(select(.type == "health_summary")) | length == 1 and
		.[0].checks == $n and .[0].failed == $bad and .[0].ready == false' "$1" >/dev/null
}
# probe_adds_up FILE N: the probe record counts every one of N requests once,
# connect/reset only, and the burst is voided (not engaged).
probe_adds_up() {
	jq -s -e --argjson n "$2" 'map(select(.type == "probe")) | length == 1 and (.[0] |
		.requests == $n and .ok + .failed == $n and .ok >= 1 and .failed >= 1 and
		([.by_error[]] | add) == .failed and ((.by_error | keys) - ["connect", "reset"] == []) and
		.engaged == false and (.reason | test("requests failed")))' "$1" >/dev/null
}
# calib_adds_up FILE: the steps add up, the capacity record counts them all,
# and the sweep stopped as unreachable at a step where every request failed
# to connect.
calib_adds_up() {
	jq -s -e '(map(select(.type == "calib_step")) | length) as $n |
		(map(select(.type == "calib_step") | .sent) | add) as $sent |
		(map(select(.type == "calib_step") | .failed) | add) as $failed |
		$n >= 2 and .[0].ok > 0 and
		all(.[] | select(.type == "calib_step");
		    .ok + .failed + .cut == .sent and ([.by_error[]] | add // 0) == .failed and
		    ((.by_error | keys) - ["connect", "reset"] == [])) and
		(map(select(.type == "calib_step")) | last | .ok == 0 and .by_error == {connect: .sent}) and
		(map(select(.type == "capacity")) | length == 1 and (.[0] |
		 .attempted == $sent and .failed == $failed and .verdict == "unreachable" and
		 .capacity_tok_s == null and (.reasons | index("endpoint_unreachable"))))' "$1" >/dev/null
}
CALARGS="--role decode --warmup-s 0 --hold-s 0.4 --hold-requests 1 --max-steps 8 --start-rps 10
	--decode-output-tokens 4"
PROBEARGS="--requests 40 --concurrency 4 --max-tokens 8 --interval-ms 50 --timeout-s 3"

kill $SIM_PID; wait $SIM_PID 2>/dev/null
start_sim --model m --decode-ms 300 || fail_all "gp-sim"
fleet http://127.0.0.1:$SIM_PORT
test_expect_success 'backend killed mid-check: gp-health -> vip_chat reset, the rest counted, exit 1' '
	gp-health --fleet fleet.json --timeout-s 5 >h-killed 2>he-killed &
	hp=$!
	busy $SIM_PORT; kill -9 $SIM_PID; wait $hp; rc=$?
	seen killed gp-health reset $rc
	test $rc = 1 && health_adds_up h-killed && grep -q "not ready: vip_chat .*: reset" he-killed &&
	jq -s -e "(map(select(.check == \"vip_chat\"))[0] | .ok == false and .error == \"reset\") and
		(map(select(.check != \"vip_chat\" and .type == \"health\")) | length == 2 and all(.[]; .ok))" h-killed >/dev/null
'
start_sim --model m --decode-ms 20 || fail_all "gp-sim"
fleet http://127.0.0.1:$SIM_PORT
test_expect_success 'backend killed mid-burst: gp-probe counts all 40 once, voided, exit 1' '
	gp-probe --fleet fleet.json --arm rr $PROBEARGS >p-killed 2>pe-killed &
	pp=$!
	busy $SIM_PORT; sleep 0.3; kill -9 $SIM_PID; wait $pp; rc=$?
	seen killed gp-probe connect $rc
	test $rc = 1 && probe_adds_up p-killed 40 && grep -q "not engaged: .* requests failed" pe-killed &&
	jq -s -e "map(select(.type == \"metrics\" and .phase == \"after\"))[0].error != null" p-killed >/dev/null
'
start_sim --model m --decode-ms 2 || fail_all "gp-sim"
jq ".backends[0].url = \"http://127.0.0.1:$SIM_PORT\" |
    .backends[0].metrics_url = \"http://127.0.0.1:$SIM_PORT/metrics\"" cal.json >cal3.json
test_expect_success 'backend killed mid-sweep: gp-calibrate stops at the dead step, all counted, exit 69' '
	gp-calibrate --fleet cal3.json --endpoint b1 $CALARGS >c-killed 2>ce-killed &
	cp=$!
	busy $SIM_PORT; sleep 0.6; kill -9 $SIM_PID; wait $cp; rc=$?
	seen killed gp-calibrate connect $rc
	test $rc = 69 && calib_adds_up c-killed && grep -q "stopped answering: every request of step" ce-killed
'

if command -v haproxy >/dev/null; then
	start_fleet --decode-ms 300 || fail_all "gp-sim"
	fleet_from "$GP_TOP/examples/haproxy/fleet.json" >gwfleet.json
	start_haproxy rr || fail_all "haproxy"
	B4="$SIM_PORT $((SIM_PORT + 1)) $((SIM_PORT + 2)) $((SIM_PORT + 3))"
	test_expect_success 'gateway restarted mid-check: gp-health -> vip_chat reset, backends ok, exit 1; ready after' '
		gp-health --fleet gwfleet.json --timeout-s 5 >h-gw 2>he-gw &
		hp=$!
		busy $B4; stop_gateway; start_haproxy rr; wait $hp; rc=$?
		seen restarted gp-health reset $rc
		gp-health --fleet gwfleet.json >h-gw2 2>/dev/null; rc2=$?
		stop_gateway	# started in this subshell: lib.sh'"'"'s cleanup does not know it
		test $rc = 1 && health_adds_up h-gw && grep -q "not ready: vip_chat .*: reset" he-gw &&
		jq -s -e "(map(select(.check == \"vip_chat\"))[0].error == \"reset\") and
			(map(select(.check == \"backend_models\")) | length == 4 and all(.[]; .ok))" h-gw >/dev/null &&
		test $rc2 = 0
	'
	kill $SIM_PID; wait $SIM_PID 2>/dev/null
	start_fleet --decode-ms 20 || fail_all "gp-sim"
	fleet_from "$GP_TOP/examples/haproxy/fleet.json" >gwfleet.json
	start_haproxy rr || fail_all "haproxy"
	B4="$SIM_PORT $((SIM_PORT + 1)) $((SIM_PORT + 2)) $((SIM_PORT + 3))"
	test_expect_success 'gateway restarted mid-burst: gp-probe counts all 40 once, voided, exit 1' '
		gp-probe --fleet gwfleet.json --arm rr $PROBEARGS >p-gw 2>pe-gw &
		pp=$!
		busy $B4; sleep 0.3; stop_gateway; sleep 0.3; start_haproxy rr; wait $pp; rc=$?
		stop_gateway
		seen restarted gp-probe connect $rc
		test $rc = 1 && probe_adds_up p-gw 40 && grep -q "not engaged: .* requests failed" pe-gw
	'
	# gp-calibrate refuses a gateway: here HAProxy is a plain proxy in front
	# of one backend (no backend header), as a sidecar or a service would be.
	kill $SIM_PID; wait $SIM_PID 2>/dev/null
	start_sim --model m --decode-ms 2 || fail_all "gp-sim"
	XP=$(free_port_range 1)
	printf "defaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\nfrontend f\n    bind 127.0.0.1:$XP\n    default_backend b\nbackend b\n    server s1 127.0.0.1:$SIM_PORT\n" >proxy.cfg
	proxy() { haproxy -db -f proxy.cfg >>proxy.log 2>&1 & GW_PID=$!; GP_VIP_PORT=$XP; wait_port $XP; }
	jq ".backends[0].url = \"http://127.0.0.1:$XP\" |
	    .backends[0].metrics_url = \"http://127.0.0.1:$XP/metrics\"" cal.json >cal4.json
	test_expect_success 'proxy restarted mid-sweep: gp-calibrate stops at the dead step, all counted, exit 69' '
		proxy || exit 1
		gp-calibrate --fleet cal4.json --endpoint b1 $CALARGS >c-gw 2>ce-gw &
		cp=$!
		busy $SIM_PORT; sleep 0.6; stop_gateway; sleep 1.5; proxy; wait $cp; rc=$?
		stop_gateway
		seen restarted gp-calibrate connect $rc
		test $rc = 69 && calib_adds_up c-gw && grep -q "stopped answering: every request of step" ce-gw
	'
else
	test_expect_success 'gateway restarted mid-run (haproxy not installed: share/packages)' 'false'
fi

# ---- the background cells, then the table ----
for m in silent trickle stall; do
	test_expect_success "$m: gp-calibrate -> timeout after its 30 s bound, exit 69" "
		for i in \$(seq 1 700); do test -e bg-$m/rc && break; sleep 0.1; done
		cat bg-$m/seen >>seen && test \"\$(cat bg-$m/rc)\" = 0"
done
test_expect_success 'doc/faults.md lists exactly the cells tested, with these classes and exits' '
	sed -n "s/^| \([a-z0-9_]*\) | \(gp-[a-z]*\) | \([a-z_]*\) | \([0-9]*\) |.*/\1 \2 \3 \4/p" \
		"$GP_TOP/doc/faults.md" | sort >doc-cells &&
	sort seen >seen-cells && test -s doc-cells &&
	diff -u doc-cells seen-cells
'

test_done
