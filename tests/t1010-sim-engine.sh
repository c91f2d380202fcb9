#!/bin/sh
# gp-sim: the engine model seen from outside — /metrics names and movement,
# the prefix cache shortening TTFT, chunked prefill, a prefill slowing its
# neighbours' decode, preemption on a full KV pool, queueing past --max-batch.
# Expected times come from the step formula of gp-sim(1):
#   step ms = decode_ms + P * 1000/prefill_tok_s + D * decode_ms_per_seq
. "$(dirname "$0")/lib.sh"

# metric NAME-WITH-LABELS: value from /metrics (port $SIM_PORT)
metric() {
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" | awk -v s="$1" '$1 == s { print $2; f = 1 } END { exit !f }'
}

start_sim --model m --truth truth.ndjson --prefill-tok-s 20000 --block-tokens 16

L='model_name="m"'
test_expect_success '/metrics exposes the vLLM names with model_name labels' '
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" >m0.txt &&
	for n in "vllm:num_requests_running{$L}" "vllm:num_requests_waiting{$L}" \
		 "vllm:prefix_cache_queries_total{$L}" "vllm:prefix_cache_hits_total{$L}" \
		 "vllm:prompt_tokens_total{$L}" "vllm:generation_tokens_total{$L}" \
		 "vllm:kv_cache_usage_perc{$L}" "vllm:num_preemptions_total{$L}" \
		 "vllm:request_queue_time_seconds_count{$L}" "vllm:request_prefill_time_seconds_count{$L}" \
		 "vllm:iteration_tokens_total_count{$L}" "gpsim:iteration_batch_size_count{$L}" \
		 "gpsim:token_pacing_lag_seconds_count{$L}" \
		 "vllm:time_to_first_token_seconds_bucket{$L,le=\"+Inf\"}" \
		 "vllm:time_to_first_token_seconds_sum{$L}" "vllm:time_to_first_token_seconds_count{$L}" \
		 "vllm:time_per_output_token_seconds_count{$L}" \
		 "vllm:request_success_total{$L,finished_reason=\"length\"}"; do
		awk -v s="$n" "\$1 == s { f = 1 } END { exit !f }" m0.txt || { echo "missing $n"; exit 1; }
	done &&
	grep -q "^# TYPE vllm:prefix_cache_queries counter$" m0.txt &&
	grep -q "^# TYPE vllm:prefix_cache_hits counter$" m0.txt &&
	grep -q "^# TYPE vllm:time_to_first_token_seconds histogram$" m0.txt &&
	grep -q "^# TYPE vllm:num_requests_running gauge$" m0.txt &&
	! grep -v "^#" m0.txt | grep -v "model_name=\"m\"" &&
	! grep -q backend= m0.txt
'
test_expect_success 'histogram buckets are cumulative and end at the count' '
	awk "/^vllm:time_to_first_token_seconds_bucket/ { if (\$2 < prev) exit 1; prev = \$2 } END { }" m0.txt
'

P=$(words 4000 1)
test_expect_success 'a long prompt: cold, then the same prompt hits the prefix cache' '
	post /v1/completions "{\"prompt\":\"$P\",\"max_tokens\":2,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: cold" >/dev/null &&
	post /v1/completions "{\"prompt\":\"$P\",\"max_tokens\":2,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: warm" >/dev/null &&
	jq -r "select(.id == \"cold\") | \"\(.cached_tokens) \(.ttft_ms)\"" truth.ndjson >cold &&
	jq -r "select(.id == \"warm\") | \"\(.cached_tokens) \(.ttft_ms)\"" truth.ndjson >warm &&
	cat cold warm &&
	read cc ct <cold && read wc wt <warm &&
	test "$cc" = 0 && test "$wc" = 3999 &&
	# cold: budget 2048, two chunks: (8 + 2048*0.05) + (8 + 1952*0.05) = 216 ms;
	# warm: one token, 8.05 ms
	awk -v c="$ct" -v w="$wt" "BEGIN { exit !(c >= 215.9 && c < 300 && w >= 8 && w < 60) }" &&
	test "$(jq -r "select(.id == \"cold\") | .steps" truth.ndjson)" = 3 &&
	test "$(jq -r "select(.id == \"warm\") | .steps" truth.ndjson)" = 2
'
test_expect_success 'a shared prefix hits only its leading full blocks' '
	Q="$(words 100 1)$(words 50 90001)" &&
	post /v1/completions "{\"prompt\":\"$Q\",\"max_tokens\":1,\"stream\":true}" -H "X-Request-Id: partial" >/dev/null &&
	test "$(jq -r "select(.id == \"partial\") | .cached_tokens" truth.ndjson)" = 96
'
test_expect_success 'prefix cache counters moved, in tokens' '
	q=$(metric "vllm:prefix_cache_queries_total{$L}") && h=$(metric "vllm:prefix_cache_hits_total{$L}") &&
	echo "$q $h" && test "$q" = 8150 && test "$h" = 4095 &&
	test "$(metric "vllm:prompt_tokens_total{$L}")" = 8150 &&
	test "$(metric "vllm:generation_tokens_total{$L}")" = 5 &&
	test "$(metric "vllm:request_success_total{$L,finished_reason=\"length\"}")" -ge 2 &&
	test "$(metric "vllm:time_to_first_token_seconds_count{$L}")" = 3 &&
	test "$(metric "vllm:time_per_output_token_seconds_count{$L}")" = 2 &&
	test "$(metric "vllm:request_prefill_time_seconds_count{$L}")" = 3 &&
	m=$(metric "vllm:iteration_tokens_total_sum{$L}") && echo "iteration tokens $m" && test "$m" = 4057 &&  # cold 4000 + 1 decode, warm 1 + 1, partial 150 - 96
	test "$(metric "vllm:num_preemptions_total{$L}")" = 0
'
test_expect_success 'gp_prom-style parse of the whole page: every sample line is name{...} value' '
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" | grep -v "^#" |
		awk "NF != 2 || \$1 !~ /^(vllm|gpsim):[a-z_]+(\\{.*\\})?\$/ || \$2 !~ /^[-+0-9.eE]+\$|^NaN\$|^[+-]Inf\$/ { print; exit 1 }"
'
kill $SIM_PID; wait $SIM_PID

# Queueing: 2 slots, 8 concurrent requests of 10 tokens with 10 ms steps.
start_sim --model m --truth q.ndjson --max-batch 2 --decode-ms 10 --decode-ms-per-seq 0
test_expect_success 'past --max-batch requests wait: TTFT grows in waves' '
	for i in 1 2 3 4 5 6 7 8; do
		post /v1/completions "{\"prompt\":\"a b c\",\"max_tokens\":10,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: q$i" >/dev/null &
	done
	sleep 0.15 &&
	curl -sS "http://127.0.0.1:$SIM_PORT/metrics" >mq.txt &&
	wait &&
	grep "^vllm:num_requests_running" mq.txt | grep -q " 2$" &&
	w=$(awk "/^vllm:num_requests_waiting/ { print \$2 }" mq.txt) && test "$w" -ge 1 &&
	test "$(jq -s "map(select(.type == \"truth\")) | length" q.ndjson)" = 8 &&
	jq -r "select(.type == \"truth\") | .ttft_ms" q.ndjson | sort -n >ttfts &&
	cat ttfts &&
	# each pair holds its slots >= 90 ms (9 steps after the first token):
	# 4 waves when the 8 arrive together; arrivals spread under load
	test "$(awk "\$1 < 30" ttfts | wc -l)" -ge 2 &&
	test "$(awk "\$1 > 150" ttfts | wc -l)" -ge 2 &&
	test "$(jq -r "select(.type == \"truth\" and .queue_ms > 50) | .id" q.ndjson | wc -l)" -ge 4
'
test_expect_success 'after the burst the engine is idle again' '
	test "$(metric "vllm:num_requests_running{$L}")" = 0 &&
	test "$(metric "vllm:num_requests_waiting{$L}")" = 0 &&
	test "$(metric "vllm:kv_cache_usage_perc{$L}")" = 0
'
test_expect_success 'the truth log has queue, prefill, step and lag fields' '
	jq -s -e "map(select(.id == \"q8\"))[0] | (.prefill_ms >= 10.1) and (.preemptions == 0) and
		(.steps == 10) and (.step_batch_mean >= 1) and (.step_batch_mean <= 2) and
		(.step_tokens_mean >= 1) and (.lag_max_ms >= 0)" q.ndjson
'
kill $SIM_PID; wait $SIM_PID

# A long prefill joining slows the running decodes, by the formula: 10 ms
# steps (no per-sequence cost), prefill 0.05 ms per token.  The stream "d"
# (60 tokens) alone: 59 gaps of 10 ms after its first token.  An 8000-token
# prompt arriving while it decodes is computed in its steps: 8000 * 0.05 =
# 400 ms more, so d's decode lasts 590 + 400 = 990 ms (TPOT 16.8 ms).
# (Server-side write times: a late first token shortens them by its lag, so
# the bounds are loose; the difference d - alone carries the 400 ms.)
start_sim --model m --truth n.ndjson --decode-ms 10 --decode-ms-per-seq 0 --prefill-tok-s 20000
test_expect_success 'a long prefill raises a running stream'"'"'s TPOT by beta * its tokens' '
	post /v1/completions "{\"prompt\":\"x y z\",\"max_tokens\":60,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: alone" >/dev/null &&
	{ post /v1/completions "{\"prompt\":\"x y z\",\"max_tokens\":60,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: d" >/dev/null & } &&
	sleep 0.1 &&
	post /v1/completions "{\"prompt\":\"$(words 8000 500000)\",\"max_tokens\":1,\"stream\":true}" -H "X-Request-Id: big" >/dev/null &&
	wait &&
	jq -r "select(.type == \"truth\") | \"\(.id) \(.e2e_ms - .ttft_ms) \(.steps) \(.step_tokens_mean)\"" n.ndjson | tee dec &&
	awk "\$1 == \"alone\" { a = \$2 } \$1 == \"d\" { d = \$2 } END { exit !(a >= 560 && a < 700 && d >= 960 && d < 1150 && d - a >= 340 && d - a <= 460) }" dec &&
	test "$(jq -r "select(.id == \"big\") | .steps" n.ndjson)" = 4
'
kill $SIM_PID; wait $SIM_PID

# A full pool preempts the newest sequence: 12 blocks of 16 tokens; two
# streams of 40 prompt tokens (3 blocks each: both are admitted) and 100
# output tokens need 9 blocks each by the end, 18 > 12.
start_sim --model m --truth p.ndjson --kv-blocks 12 --decode-ms 2 --decode-ms-per-seq 0
test_expect_success 'a full KV pool preempts the newest sequence, which is recomputed' '
	for i in 1 2; do
		post /v1/completions "{\"prompt\":\"$(words 40 $((i * 1000)))\",\"max_tokens\":100,\"ignore_eos\":true,\"stream\":true}" -H "X-Request-Id: p$i" >"out$i" &
	done
	wait &&
	test "$(metric "vllm:num_preemptions_total{$L}")" -ge 1 &&
	jq -s -e "map(select(.type == \"truth\")) | (length == 2) and all(.out_tokens == 100 and .end == \"done\")
		and (map(.preemptions) | add >= 1)" p.ndjson &&
	cat p.ndjson && test "$(grep -c "\"text\":\"[a-z]* \"" out1)" = 100 && test "$(grep -c "\"text\":\"[a-z]* \"" out2)" = 100
'
test_expect_success 'a request that can never fit in the pool is refused with 400' '
	post /v1/completions "{\"prompt\":\"$(words 300 1)\",\"max_tokens\":1}" -o big.json -w "%{http_code}\n" >code &&
	test "$(cat code)" = 400 && grep -q "KV blocks" big.json
'
kill $SIM_PID; wait $SIM_PID

# More than one process can write: 20 streams stepping every 20 us ask for a
# million tokens a second.  gp-sim says so on stderr, and the lag is in the
# truth log (of at least 15 of the 20 streams: one that starts or ends while
# the others hold the loop back can keep its own pace) and the sim_stats
# record.
: >"$TRASH/sim.log"
start_sim --model m --truth o.ndjson --stats --decode-ms 0.02 --decode-ms-per-seq 0 --kv-blocks 100000 \
	--max-unsent-kb 1000000
test_expect_success 'overload: 20 streams at 20 us steps' '
	for i in $(seq 1 20); do
		post /v1/completions "{\"prompt\":\"o$i\",\"max_tokens\":20000,\"ignore_eos\":true,\"stream\":true}" >/dev/null &
	done
	wait
'
kill $SIM_PID; wait $SIM_PID
test_expect_success 'overload: ... the warning, and the lag in truth and sim_stats' '
	grep "pacing:" "$TRASH/sim.log" || { cat "$TRASH/sim.log"; tail -n 3 o.ndjson; false; } &&
	jq -c -s "[map(select(.type == \"truth\")) | length, (map(select(.type == \"truth\" and .lag_max_ms > 5)) | length),
		(map(select(.type == \"sim_stats\"))[0] | .lag_warnings, .lag_p99_ms)]" o.ndjson &&
	jq -s -e "(map(select(.type == \"truth\")) | length == 20 and (map(select(.lag_max_ms > 5)) | length) >= 15) and
		(map(select(.type == \"sim_stats\"))[0] | .lag_warnings >= 1 and .lag_p99_ms > 5)" o.ndjson
'
test_done
