#!/bin/sh
# gp-sim: robustness — a client that stops reading is closed ("slow_reader")
# instead of being buffered for without bound; --seed determinism across
# runs; metrics counters monotone and histograms cumulative; rejected
# requests still logged; SIGINT flushes the truth log.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x $PY ] || skip_all "needs /usr/bin/python3"
metrics() { curl -sS "http://127.0.0.1:$SIM_PORT/metrics"; }
lengths() { # prompts -> out_tokens without ignore_eos, one per line
	for p in "one two" "three four five" "six" "seven eight nine ten" "eleven" "x y z"; do
		curl -H Content-Type:application/json -sS -N -d "{\"prompt\":\"$p\",\"max_tokens\":50,\"stream\":true}" \
			"http://127.0.0.1:$SIM_PORT/v1/completions" | grep -c "\"text\":\"[a-z]"
	done
}

# A client that sends a long streaming request and never reads.
cat >noread.py <<'PY'
import socket, sys, time
port, rid, hold = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
body = b'{"prompt":"a b c d","max_tokens":200000,"ignore_eos":true,"stream":true}'
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", port))
s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nX-Request-Id: %s\r\n"
          b"Content-Length: %d\r\n\r\n%s" % (rid.encode(), len(body), body))
time.sleep(hold)
PY

# (--kv-blocks: the KV pool must hold a whole 200000-token request.)
start_sim --truth truth.ndjson --max-model-len 400000 --kv-blocks 300000 --decode-ms 0.05 --decode-ms-per-seq 0 \
	--max-unsent-kb 64 --stats
test_expect_success 'a client that stops reading is closed as slow_reader, memory bounded' '
	$PY noread.py $SIM_PORT slow1 8 & c=$! &&
	i=0 && while [ $i -lt 70 ] && ! grep -q "\"slow1\"" truth.ndjson 2>/dev/null; do sleep 0.1; i=$((i + 1)); done &&
	kill $c; wait $c;
	jq -se "map(select(.id == \"slow1\")) | length == 1 and (.[0] | .end == \"slow_reader\" and .out_tokens > 0 and .out_tokens < 200000 and .ttft_ms <= .e2e_ms)" truth.ndjson &&
	rss=$(awk "/^VmRSS/ { print \$2 }" /proc/$SIM_PID/status) && echo "rss $rss kB" &&
	test "$rss" -lt 100000
'
test_expect_success 'after a slow reader the engine slot is free and the sim serves' '
	metrics | grep -q "^vllm:num_requests_running{model_name=\"gp-sim\"} 0$" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SIM_PORT/health")" = 200
'
test_expect_success 'a client that reads keeps its stream under the same cap' '
	curl -H Content-Type:application/json -sS -N -H "X-Request-Id: fast1" -d "{\"prompt\":\"a\",\"max_tokens\":20000,\"ignore_eos\":true,\"stream\":true}" \
		"http://127.0.0.1:$SIM_PORT/v1/completions" >fast.out &&
	grep -q "^data: \[DONE\]" fast.out &&
	jq -se "map(select(.id == \"fast1\")) | .[0].end == \"done\" and .[0].out_tokens == 20000" truth.ndjson
'
# SIGTERM while 40 non-reading clients are open: prompt exit, all logged.
for i in $(seq 1 40); do $PY noread.py $SIM_PORT stuck$i 30 2>/dev/null & done
i=0
while [ $i -lt 100 ] && ! metrics | grep -q "^vllm:num_requests_running{model_name=\"gp-sim\"} 40$"; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.5
t0=$(date +%s%N)
kill -TERM $SIM_PID; wait $SIM_PID; echo $? >rc
t1=$(date +%s%N)
pkill_children() { for j in $(jobs -p); do kill "$j" 2>/dev/null; done; wait 2>/dev/null; }
pkill_children
test_expect_success 'SIGTERM under non-reading clients: exit 0 within 3 s, every stream logged' '
	echo "$(( (t1 - t0) / 1000000 )) ms" &&
	test "$(cat rc)" = 0 && test $(( (t1 - t0) / 1000000 )) -lt 3000 &&
	test "$(jq -r "select(.type == \"truth\" and (.id | startswith(\"stuck\"))) | .id" truth.ndjson | sort -u | wc -l)" = 40 &&
	jq -se "map(select(.type == \"truth\" and (.id | startswith(\"stuck\")))) | all(.end == \"shutdown\" or .end == \"slow_reader\")" truth.ndjson &&
	jq -se "map(select(.type == \"sim_stats\")) | length == 1 and .[0].slow_readers >= 1" truth.ndjson
'

start_sim --seed 5 --truth s1.ndjson
lengths >len-a
test_expect_success 'rejected requests get exactly one truth record each' '
	long=$(seq 1 40000 | sed "s/^/w/" | tr "\n" " ") &&
	printf "{\"prompt\":\"%s\",\"max_tokens\":1}" "$long" >big.json &&
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -H "X-Request-Id: toolong" -d @big.json "http://127.0.0.1:$SIM_PORT/v1/completions")" = 400 &&
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -H "X-Request-Id: badjson" -d "{x" "http://127.0.0.1:$SIM_PORT/v1/chat/completions")" = 422 &&
	jq -se "map(select(.id == \"toolong\")) | length == 1 and (.[0] | .http_status == 400 and .end == \"rejected\" and .ttft_ms == null and .in_tokens == 40000)" s1.ndjson &&
	jq -se "map(select(.id == \"badjson\")) | length == 1 and .[0].http_status == 422" s1.ndjson
'
test_expect_success 'metrics: counters never go down, histograms cumulative, +Inf = count' '
	metrics >ma &&
	curl -H Content-Type:application/json -sS -d "{\"prompt\":\"p q\",\"max_tokens\":5,\"ignore_eos\":true}" "http://127.0.0.1:$SIM_PORT/v1/completions" >/dev/null &&
	metrics >mb &&
	awk "FNR == NR && /_total|_count|_sum|_bucket/ { a[\$1] = \$2; next }
	     /_total|_count|_sum|_bucket/ { n++; if (!(\$1 in a) || \$2 + 0 < a[\$1] + 0) { print \"went down: \" \$1; exit 1 } }
	     END { exit !(n > 40) }" ma mb &&
	test "$(awk "/^vllm:generation_tokens_total/ { print \$2 }" mb)" -gt "$(awk "/^vllm:generation_tokens_total/ { print \$2 }" ma)" &&
	for h in time_to_first_token_seconds time_per_output_token_seconds; do
		awk -v h="vllm:$h" "
		  index(\$1, h \"_bucket{\") == 1 { match(\$1, /le=\"[^\"]*\"/); le = substr(\$1, RSTART + 4, RLENGTH - 5)
		    if (le != \"+Inf\" && nb && le + 0 <= prevle) { print \"le order\"; exit 1 }
		    if (nb && \$2 + 0 < prev) { print \"not cumulative\"; exit 1 }
		    prev = \$2 + 0; prevle = le + 0; nb++; if (le == \"+Inf\") inf = \$2 + 0; last = le }
		  index(\$1, h \"_count{\") == 1 { cnt = \$2 + 0 }
		  END { exit !(nb > 5 && last == \"+Inf\" && inf == cnt && cnt > 0) }" mb || { echo "bad $h"; exit 1; }
	done
'
kill -INT $SIM_PID; wait $SIM_PID; echo $? >rc-int
test_expect_success 'SIGINT: exit 0 and the truth log is complete' '
	test "$(cat rc-int)" = 0 &&
	test "$(jq -s "map(select(.type == \"truth\")) | length" s1.ndjson)" = 9
'
start_sim --seed 5 --truth s2.ndjson
lengths >len-b
kill $SIM_PID; wait $SIM_PID
start_sim --seed 6 --truth s3.ndjson
lengths >len-c
kill $SIM_PID; wait $SIM_PID
test_expect_success '--seed: same seed and requests, same output lengths; another seed differs' '
	paste len-a len-b len-c &&
	cmp len-a len-b && ! cmp -s len-a len-c &&
	awk "\$1 < 1 || \$1 > 50 { exit 1 }" len-a
'
test_done
