#!/bin/sh
# gp-health and gp-calibrate against a server they did not write: the
# vLLM-shaped fixture on FastAPI + pydantic + uvicorn, its /metrics written by
# prometheus_client (Debian's packages; tests/fixtures/vllm-shaped.py), with
# --max-num-seqs 4 and --prefill-tok-s so that it has capacities to find.
# Its model: 4 streams at once, the first token TTFT' = TTFT + n_in / R after
# a stream starts, then one every TPOT: decode capacity 4 x n_out / (TTFT' +
# (n_out - 1) x TPOT) output tokens/s, prefill capacity (one-token requests)
# 4 x n_in / TTFT' prompt tokens/s.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-health" && test -x "$GP_BIN/gp-calibrate" || skip_all "gp-health or gp-calibrate not built"
PY=/usr/bin/python3
$PY -c 'import fastapi, uvicorn, prometheus_client' 2>/dev/null ||
	skip_all "no python3-fastapi/python3-uvicorn/python3-prometheus-client (share/packages)"

SEQS=4 TTFT=10 TPOT=10 R=10000 OUT=16 DIN=8 PIN=2048
EXPECT=$(awk -v n=$SEQS -v o=$OUT -v a=$TTFT -v p=$TPOT -v r=$R -v i=$DIN \
	'BEGIN { print n * o * 1000 / (a + i * 1000 / r + (o - 1) * p) }')
EXPECT_P=$(awk -v n=$SEQS -v a=$TTFT -v r=$R -v i=$PIN 'BEGIN { print n * i * 1000 / (a + i * 1000 / r) }')
P=$(free_port_range 1) || exit 1
$PY "$GP_TOP/tests/fixtures/vllm-shaped.py" --port "$P" --model m --ttft-ms $TTFT --tpot-ms $TPOT \
	--max-num-seqs $SEQS --prefill-tok-s $R 2>fx.log &
cleanup_pid $!
wait_port "$P" || { cat fx.log; exit 1; }
say "third-party stack: $(head -n 1 fx.log)"
U=http://127.0.0.1:$P
cat >fleet.json <<EOF
{"model":"m","context_length":4096,
 "vips":[{"name":"vip","url":"$U"}],
 "backends":[{"name":"v1","url":"$U","metrics_url":"$U/metrics","role":"both","accelerators":1}],
 "inflight_metrics":["vllm:num_requests_running","vllm:num_requests_waiting"]}
EOF
jq '.vips[0].url = "http://127.0.0.1:1"' fleet.json >cal.json

test_expect_success 'gp-health: /v1/models, /metrics (prometheus_client text) and a chat through FastAPI: ready' '
	gp-health --fleet fleet.json >h 2>he &&
	jq -s -e "(map(select(.type == \"health\")) | map(.check) == [\"backend_models\", \"metrics\", \"vip_chat\"] and
		all(.[]; .ok)) and (map(select(.check == \"backend_models\"))[0].max_model_len == 4096) and
		(map(select(.type == \"health_summary\"))[0] | .ready and .checks == 3)" h >/dev/null
'
test_expect_success 'gp-health: a fleet that needs a series the server lacks is not ready, naming it' '
	jq ".inflight_metrics += [\"vllm:gpu_cache_usage_perc\"]" fleet.json >more.json &&
	gp-health --fleet more.json >h2 2>he2; test $? = 1 &&
	grep -q "missing vllm:gpu_cache_usage_perc" he2
'
# Small steps (1 s holds): the fixture is Python on a shared machine, so the
# bound is 15 %, as t7020's against gp-sim.
# The interrupt convention against a server we did not write: a second
# fixture whose first token takes 20 s, so gp-health's vip_chat is in flight
# on uvicorn when SIGTERM comes; the check is cancelled, the summary says so.
PS=$(free_port_range 1) || exit 1
$PY "$GP_TOP/tests/fixtures/vllm-shaped.py" --port "$PS" --model m --ttft-ms 20000 2>fs.log &
cleanup_pid $!
wait_port "$PS" || { cat fs.log; exit 1; }
sed "s|$U|http://127.0.0.1:$PS|g" fleet.json >slow.json
test_expect_success 'gp-health: SIGTERM while the chat waits on uvicorn: 143 within 3 s, summary last, interrupted' '
	rm -f pipe && mkfifo pipe || exit 1
	cat pipe >hs &
	gp-health --fleet slow.json --timeout-s 60 >pipe 2>hse &
	pid=$!
	for i in $(seq 1 200); do grep -q "\"check\":\"metrics\"" hs 2>/dev/null && break; sleep 0.05; done
	sleep 0.3; t0=$(date +%s); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s); wait
	test $rc = 143 && test $((t1 - t0)) -le 3 &&
	jq -s -e "last | .type == \"health_summary\" and .interrupted and (.ready | not) and
		.not_run_checks == [\"vip_chat vip\"] and .checks == 2" hs >/dev/null
'
test_expect_success "gp-calibrate decode: saturated within 15 % of $EXPECT tok/s, the queue seen diverging" '
	gp-calibrate --fleet cal.json --endpoint v1 --role decode --start-rps 12 --ramp 1.5 \
		--warmup-s 0.3 --hold-s 1 --hold-requests 10 --decode-input-tokens $DIN \
		--decode-output-tokens $OUT --sample-s 0.05 --late-ms 1000 --full-step-pct 80 \
		--plateau-pct 8 --max-steps 8 -o cal.ndjson 2>ce &&
	jq -s -e --argjson e $EXPECT "(map(select(.type == \"capacity\")) | length == 1 and (.[0] |
		.saturated and (.capacity_tok_s / \$e - 1 | fabs) <= 0.15 and .failed == 0 and
		.scrape_failures == 0)) and
		(map(select(.type == \"calib_step\")) | any(.[]; .queue_diverging) and
		 all(.[]; .failed == 0 and .ok + .cut == .sent and .queue_samples > 0))" cal.ndjson >/dev/null
'
say "fixture decode capacity: measured $(jq -r 'select(.type == "capacity") | .capacity_tok_s' cal.ndjson) tok/s, configured $EXPECT"
# Prompt tokens are what the server's usage says (the fixture counts words),
# so the 2048 counted per request are its own.
test_expect_success "gp-calibrate prefill: saturated within 15 % of $EXPECT_P prompt tok/s, $PIN counted per request" '
	gp-calibrate --fleet cal.json --endpoint v1 --role prefill --start-rps 6 --ramp 1.5 \
		--warmup-s 0.3 --hold-s 1 --hold-requests 10 --prefill-input-tokens $PIN \
		--sample-s 0.05 --late-ms 1000 --full-step-pct 80 --plateau-pct 8 --max-steps 8 \
		-o pre.ndjson 2>pe &&
	jq -s -e --argjson e $EXPECT_P "(map(select(.type == \"capacity\")) | length == 1 and (.[0] |
		.role == \"prefill\" and .saturated and (.capacity_tok_s / \$e - 1 | fabs) <= 0.15 and
		.failed == 0)) and (map(select(.type == \"calib_step\"))[0] |
		.delivered_tok_s / .offered_rps / $PIN - 1 | fabs < 0.2)" pre.ndjson >/dev/null
'
say "fixture prefill capacity: measured $(jq -r 'select(.type == "capacity") | .capacity_tok_s' pre.ndjson) tok/s, configured $EXPECT_P"
test_done
