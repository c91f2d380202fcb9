#!/bin/sh
# Multi-turn sessions through a real gateway (HAProxy) in front of four gp-sim
# engines: turn k is sent think_s after turn k-1 completed (its scheduled time
# is that ready time, and the send is never before it), its prompt is the
# history, so gp-sim's content-keyed prefix cache hits where the gateway sends
# a session back to the engine that served it: under consistent hashing on
# the session (the key header) turn >= 2 TTFT falls far below turn 1's and
# below round robin's, and the good fraction WINs over the rr floor.  The
# failed-turn policy both ways, attempted = records.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
command -v haproxy >/dev/null || skip_all "haproxy not installed (share/packages)"
command -v jq >/dev/null || skip_all "jq missing"
cd "$TRASH" || exit 1

# 24 sessions of 4 turns: a 1200-token first message (a document), then
# 40-token questions; 16 tokens out; 0.05 s of thinking between turns.
gp-trace synth --sessions 24 --rate-rps 12 --turns 4 --think-s 0.05 --first-input-tokens 1200 \
	--input-tokens 40 --output-tokens 16 --keys 0 --block-tokens 16 >tr.ndjson ||
	fail_all "gp-trace synth --sessions failed"
start_fleet || fail_all "gp-sim did not start"
VIP=http://127.0.0.1:$GP_VIP_PORT
R="--url $VIP --model gp-sim --key-header x-gp-cache-key --backend-header x-gp-backend --preconnect 4"
reset_caches() {
	for p in $GP_B1 $GP_B2 $GP_B3 $GP_B4; do
		curl -s -o /dev/null -X POST "http://$p/reset_prefix_cache" || return 1
	done
}
# runs ARM: 5 reps, each on cold caches, into ARM.ndjson
runs() {
	: >"$1.ndjson"
	for rep in 1 2 3 4 5; do
		reset_caches && gp-replay $R --arm "$1" --rep $rep tr.ndjson >>"$1.ndjson" 2>>"$1.err" || return 1
	done
}

start_haproxy rr || fail_all "haproxy (rr) did not start"
test_expect_success 'rr: 5 reps of the session trace replayed' 'runs rr'
stop_gateway
start_haproxy chash || fail_all "haproxy (chash) did not start"
test_expect_success 'chash: 5 reps of the session trace replayed' 'runs chash'
stop_gateway

test_expect_success 'attempted = records = 96 per rep; every request carries its session and turn' '
	for a in rr chash; do
		jq -s -e "[.[] | select(.type == \"run_end\")] | length == 5 and all(.attempted == 96 and .ok == 96)" $a.ndjson &&
		jq -s -e "[.[] | select(.type == \"request\")] | length == 480 and
			all(.session != null and .turn >= 1 and .turn <= 4) and
			(group_by(.rep) | all(length == 96))" $a.ndjson &&
		jq -s -e "[.[] | select(.type == \"run\")] | all(.sessions == 24 and .on_failed_turn == \"continue\" and .session_key == \"session\")" $a.ndjson || return 1
	done
'

# Per rep and session, turns in order: t_sched(k) = t_sent(k-1) + e2e(k-1) + think
# (to the records' microsecond resolution), and t_sent(k) >= t_sched(k).
deps='[.[] | select(.type == "request")] | group_by([.rep, .session]) |
	map(sort_by(.turn) | [range(1; length) as $i | .[$i] as $b | .[$i - 1] as $a |
		{d: ($b.t_sched_s - ($a.t_sent_s + $a.e2e_ms / 1000) - 0.05),
		 late: ($b.t_sent_s - $b.t_sched_s - $b.connect_ms / 1000)}]) | flatten'
test_expect_success 'dependencies honoured: turn k ready = completion(k-1) + think_s, sent at or after it' '
	for a in rr chash; do
		jq -s -e "$deps | length == 360 and all(.d | fabs < 0.00001) and all(.late >= -0.000002)" $a.ndjson || return 1
	done
'
test_expect_success '... and within the run_end lateness bound (lateness_max_ms)' '
	for a in rr chash; do
		m=$(jq -s "[.[] | select(.type == \"run_end\") | .lateness_max_ms] | max" $a.ndjson) &&
		jq -s -e "$deps | length == 360 and all(.late <= $m / 1000 + 0.000002)" $a.ndjson || return 1
	done
'

test_expect_success 'chash sends a session to one engine; rr spreads it' '
	jq -s -e "[.[] | select(.type == \"request\")] | group_by([.rep, .session]) | all(map(.backend) | unique | length == 1)" chash.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | group_by([.rep, .session]) | map(map(.backend) | unique | length) | add / length > 2" rr.ndjson
'

test_expect_success 'gp-verify validity holds the open-loop starts to the label, not every send' '
	jq -s -e "[.[] | select(.type == \"run_end\")] | all(.starts == 24 and .achieved_rps > 2 * .achieved_start_rps)" chash.ndjson &&
	gp-verify validity chash.ndjson >v.ndjson &&
	jq -s -e "map(select(.type == \"validity\"))[0] | .kept == 5 and .discarded == 0" v.ndjson &&
	! grep -q "achieved_rate: [0-9.]* req/s against the label [0-9.]* (+[0-9][0-9][0-9]" v.ndjson
'

SLO="--ttft-slo-ms 40 --tpot-slo-ms 50 --resamples 2000 --no-validity"
test_expect_success 'gp-analyze: turns records, turn >= 2 TTFT p50 under chash far below turn 1 and below rr' '
	gp-analyze $SLO --floor rr rr.ndjson chash.ndjson >an.ndjson &&
	jq -c "select(.type == \"turns\")" an.ndjson >turns &&
	say "$(cat turns)" &&
	c1=$(jq -r "select(.arm == \"chash\") | .by_turn[0].ttft_p50_ms" turns) &&
	c2=$(jq -r "select(.arm == \"chash\") | .by_turn[1].ttft_p50_ms" turns) &&
	c3=$(jq -r "select(.arm == \"chash\") | .by_turn[2].ttft_p50_ms" turns) &&
	r2=$(jq -r "select(.arm == \"rr\") | .by_turn[1].ttft_p50_ms" turns) &&
	r3=$(jq -r "select(.arm == \"rr\") | .by_turn[2].ttft_p50_ms" turns) &&
	say "turn 2 TTFT p50: chash $c2 ms, rr $r2 ms; turn 1 (chash) $c1 ms; turns 3+: chash $c3, rr $r3" &&
	awk -v c1="$c1" -v c2="$c2" -v c3="$c3" -v r2="$r2" -v r3="$r3" \
		"BEGIN { exit !(c2 < c1 / 2 && c3 < c1 / 2 && c2 < r2 && c3 < r3) }" &&
	jq -s -e "map(select(.type == \"turns\")) | length == 2 and all(.reps == 5 and
		(.by_turn | map(.attempted) == [120, 120, 240]) and .sessions == 120)" an.ndjson
'
test_expect_success 'gp-analyze: the fast path and the jansson path give the same bytes on session records' '
	GP_ANALYZE_SLOW=1 gp-analyze $SLO --floor rr rr.ndjson chash.ndjson >an.slow && cmp an.ndjson an.slow
'
for bad in '"session":"s","turn":0' '"session":"s"' '"session":"s","turn":"2"' '"session":3,"turn":1'; do
	test_expect_code 65 "gp-analyze refuses a request with $bad, both paths alike" "
		echo '{\"type\":\"request\",\"arm\":\"a\",\"rate_rps\":1,\"rep\":1,\"outcome\":\"ok\",\"ttft_ms\":1,\"tpot_ms\":1,$bad}' >bad.ndjson &&
		gp-analyze $SLO bad.ndjson 2>e1; r1=\$?; GP_ANALYZE_SLOW=1 gp-analyze $SLO bad.ndjson 2>e2; r2=\$?;
		cmp e1 e2 && grep -q \"bad.ndjson:1: field .\\(turn\\|session\\)\" e1 && test \$r1 = \$r2 && exit \$r1
	"
done
test_expect_success '... rr turn >= 2 does not fall far below its turn 1' '
	r1=$(jq -r "select(.arm == \"rr\") | .by_turn[0].ttft_p50_ms" turns) &&
	r2=$(jq -r "select(.arm == \"rr\") | .by_turn[1].ttft_p50_ms" turns) &&
	awk -v a="$r1" -v b="$r2" "BEGIN { exit !(b > a / 2) }"
'
test_expect_success 'a WIN on good fraction for chash over the rr floor' '
	say "$(jq -c "select(.type == \"compare\") | del(.tost)" an.ndjson)" &&
	jq -e -s "map(select(.type == \"compare\" and .arm == \"chash\" and .vs == \"rr\")) | length == 1 and all(.verdict == \"WIN\")" an.ndjson
'

say "turns: $(jq -c "{arm, p50: [.by_turn[].ttft_p50_ms], good: [.by_turn[].good_fraction], sessions_good}" turns 2>/dev/null | tr "\n" " ")"
say "compare: $(jq -c "select(.type == \"compare\") | {arm, vs, verdict, diff, lo, hi, mean_good_fraction, mean_good_fraction_vs}" an.ndjson 2>/dev/null)"

test_expect_success 'gp-report: the by-turn table (and its plot, drawn by gnuplot)' '
	gp-report -q -o rep an.ndjson >/dev/null 2>rep.err &&
	grep -q "^## Sessions: by turn" rep/report.md &&
	test "$(grep -c "^| chash | [0-9.]* | [123+]* |" rep/report.md)" = 3 &&
	test "$(grep -c "^| rr | [0-9.]* | [123+]* |" rep/report.md)" = 3 &&
	if command -v gnuplot >/dev/null; then test -s rep/turns.png && test -s rep/turns.svg &&
		test "$(grep -vc "^#" rep/gnuplot/turns-0.dat)" = 3; fi
'

# The failed-turn policy, against one engine that answers 30 % of requests
# with HTTP 500.
start_sim --fault http500=0.3 --seed 7 || fail_all "gp-sim (faults) did not start"
F="--url http://127.0.0.1:$SIM_PORT --model gp-sim"
gp-trace synth --sessions 20 --rate-rps 40 --turns 4 --think-s 0.01 --input-tokens 20 \
	--output-tokens 4 --keys 0 --block-tokens 16 >small.ndjson

test_expect_success '--api completions: turn k prompt is the history as one text (gp-sim counts its words)' '
	gp-replay --url http://$GP_B1 --model gp-sim --api completions small.ndjson >comp.ndjson 2>comp.err &&
	jq -s -e "[.[] | select(.type == \"run\")][0].api == \"completions\"" comp.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | length == 80 and all(.outcome == \"ok\") and
		(group_by(.session) | all(sort_by(.turn) | . as \$s | [range(0; length) as \$i |
			\$s[\$i].in_tokens == 20 * (\$i + 1) + ([\$s[0:\$i][].out_tokens] | add // 0)] | all))" comp.ndjson
'
test_expect_success '--shard 1/2 and 2/2: each session whole in one shard, every record exactly once' '
	gp-replay --url http://$GP_B1 --model gp-sim --shard 1/2 small.ndjson >sh1.ndjson 2>/dev/null &&
	gp-replay --url http://$GP_B1 --model gp-sim --shard 2/2 small.ndjson >sh2.ndjson 2>/dev/null &&
	cat sh1.ndjson sh2.ndjson | jq -s -e "[.[] | select(.type == \"request\")] |
		length == 80 and (map(.id) | unique | length == 80)" &&
	jq -s -e "[.[] | select(.type == \"request\")] | length > 0 and length < 80 and
		(group_by(.session) | all(length == 4))" sh1.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | group_by(.session) | all(length == 4)" sh2.ndjson
'
test_expect_success '--on-failed-turn continue: every turn sent; a turn after a failed one leaves it out of its history' '
	gp-replay $F small.ndjson >cont.ndjson 2>cont.err; test $? -le 3 &&
	jq -s -e "[.[] | select(.type == \"run_end\")][0] | .attempted == 80 and .failed > 0 and (.by_error.abandoned // 0) == 0" cont.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | length == 80 and all(.t_sent_s != null)" cont.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | group_by(.session) |
		map(sort_by(.turn) | . as \$s | [range(0; length) as \$i | \$s[\$i] |
			select(.outcome != \"failed\") |
			.in_tokens == ([\$s[0:\$i][] | select(.outcome != \"failed\") | 20 + .out_tokens] | add // 0) + 20]) |
		flatten | length > 40 and all" cont.ndjson
'
test_expect_success '--on-failed-turn abandon: the unsent turns are recorded as abandoned, attempted still adds up' '
	gp-replay $F --on-failed-turn abandon small.ndjson >ab.ndjson 2>ab.err; test $? -le 3 &&
	jq -s -e "[.[] | select(.type == \"run_end\")][0] | .attempted == 80 and .by_error.abandoned > 0 and
		.attempted == .ok + .single_token + .failed" ab.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | length == 80 and
		(map(select(.error == \"abandoned\")) | all(.t_sent_s == null and .t_sched_s == null and .outcome == \"failed\"))" ab.ndjson &&
	jq -s -e "[.[] | select(.type == \"request\")] | group_by(.session) |
		all(sort_by(.turn) | (map(.outcome == \"failed\") | index(true)) as \$f |
			if \$f == null then all(.error != \"abandoned\")
			else (.[(\$f + 1):] | all(.error == \"abandoned\")) and (.[\$f].error != \"abandoned\") end)" ab.ndjson &&
	jq -s -e "[.[] | select(.type == \"run\")][0].on_failed_turn == \"abandon\"" ab.ndjson
'
test_expect_success 'gp-analyze counts abandoned turns as misses of their turn, a session good when all its turns are' '
	gp-analyze --ttft-slo-ms 10000 --tpot-slo-ms 10000 --no-validity --resamples 200 ab.ndjson >ab.an &&
	n=$(jq -s "[.[] | select(.type == \"request\" and .outcome == \"failed\")] | length" ab.ndjson) &&
	g=$(jq -s "[.[] | select(.type == \"request\")] | group_by(.session) | map(select(all(.outcome != \"failed\"))) | length" ab.ndjson) &&
	say "failed $n, sessions without a failure $g of 20" &&
	jq -s -e "map(select(.type == \"turns\"))[0] | (.by_turn | map(.attempted - .good) | add) == $n and
		(.by_turn | map(.attempted) | add) == 80 and .sessions == 20 and .sessions_good == $g and $g < 20" ab.an
'

# SIGTERM while sessions think: nothing more is sent, every attempted turn
# has its record, no turn is recorded as abandoned.
gp-trace synth --sessions 40 --rate-rps 40 --turns 4 --think-s 0.4 --input-tokens 20 \
	--output-tokens 40 --keys 0 --block-tokens 16 >think.ndjson
gp-replay --url http://$GP_B2 --model gp-sim --on-failed-turn abandon think.ndjson >term.ndjson 2>term.err &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid
echo $? >term.rc
test_expect_success 'SIGTERM mid-session: exit 143, interrupted, records = attempted, no abandoned turn, no turn sent after' '
	test "$(cat term.rc)" = 143 &&
	n=$(jq -s "[.[] | select(.type == \"request\")] | length" term.ndjson) &&
	test "$n" -gt 40 && test "$n" -lt 160 &&
	jq -s -e "[.[] | select(.type == \"run_end\")][0] | .interrupted and .attempted == $n and
		(.by_error.abandoned // 0) == 0" term.ndjson &&
	e=$(jq -s "[.[] | select(.type == \"run_end\")][0].duration_s" term.ndjson) &&
	jq -s -e "[.[] | select(.type == \"request\" and .t_sent_s != null)] | all(.t_sent_s <= $e)" term.ndjson
'

# Real content against a server we did not write (python3's http.server): a
# turn whose record carries its prompt resends the answer the server actually
# sent, as received (split over two content events, a reasoning event before
# them, which is not the answer).
PY=$(command -v python3)
if [ -n "$PY" ]; then
cat >answer.py <<'PYEOF'
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
log = open(sys.argv[2], "a")
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        msg = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(msg))); self.end_headers(); self.wfile.write(msg)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        rid = self.headers.get("X-Request-Id", "")
        log.write(json.dumps({"id": rid, "body": body}) + "\n"); log.flush()
        chat = self.path == "/v1/chat/completions"
        def ev(text, key="content", fin=None):
            ch = {"delta": {key: text}} if chat else {"text": text}
            ch["finish_reason"] = fin
            return "data: " + json.dumps({"id": "x", "choices": [ch]}) + "\n\n"
        out = (ev("hmm", "reasoning_content") if chat else "") + ev("ans-" + rid) + ev(" caf\u00e9 \"q\"", fin="stop")
        out += "data: " + json.dumps({"id": "x", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}) + "\n\ndata: [DONE]\n\n"
        raw = out.encode()
        self.send_response(200); self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(raw))); self.end_headers(); self.wfile.write(raw)
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PYEOF
AP=$(free_port_range 1) && { $PY answer.py $AP seen.ndjson 2>answer.err & cleanup_pid $!; } && wait_port $AP
printf '%s\n' '{"id":"q1","t_s":0,"input_tokens":3,"output_tokens":3,"prompt":"what is kv","session":"q","turn":1}' \
	'{"id":"q2","t_s":0.1,"input_tokens":2,"output_tokens":3,"prompt":"and blocks","session":"q","turn":2,"think_s":0.01}' \
	'{"id":"q3","t_s":0.2,"input_tokens":2,"output_tokens":3,"prompt":"thanks","session":"q","turn":3,"think_s":0}' >real.ndjson
test_expect_success 'real turns, chat: the assistant messages are the answers received, text as sent' '
	: >seen.ndjson && gp-replay --url http://127.0.0.1:$AP --model m real.ndjson >real.out 2>real.err &&
	jq -s -e "map(select(.id == \"q3\"))[0].body.messages == [
		{\"role\":\"user\",\"content\":\"what is kv\"},{\"role\":\"assistant\",\"content\":\"ans-q1 caf\u00e9 \\\"q\\\"\"},
		{\"role\":\"user\",\"content\":\"and blocks\"},{\"role\":\"assistant\",\"content\":\"ans-q2 caf\u00e9 \\\"q\\\"\"},
		{\"role\":\"user\",\"content\":\"thanks\"}]" seen.ndjson
'
test_expect_success 'real turns, completions: one text, the answers in it as received' '
	: >seen.ndjson && gp-replay --url http://127.0.0.1:$AP --model m --api completions real.ndjson >real2.out 2>real2.err &&
	jq -s -e "map(select(.id == \"q2\"))[0].body.prompt == \"what is kv ans-q1 caf\u00e9 \\\"q\\\" and blocks\"" seen.ndjson
'
fi

test_expect_code 65 'a trace whose session skips a turn is refused, naming the line' '
	jq -c "select(.id != \"c3-2\")" small.ndjson >gap.ndjson &&
	gp-replay $F gap.ndjson >/dev/null 2>err; rc=$?;
	grep -q "gap.ndjson:[0-9]*: field .turn. is 3 but session .c3. is at turn 1: a turn is missing" err && exit $rc
'
test_expect_code 2 '--on-failed-turn takes continue or abandon' '
	gp-replay $F --on-failed-turn retry small.ndjson
'
test_done
