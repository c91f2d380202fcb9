#!/bin/sh
# gp-calibrate against gp-sim, decode role: the measured output tokens/s lie
# within 15 % of what gp-sim's engine model says (saturated, not suspect);
# a deliberately throttled client (--max-inflight 1 on a fast backend) is
# SUSPECT after the re-runs of its plateau steps, with no capacity, never a
# false one.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-calibrate" && test -x "$GP_BIN/gp-sim" || skip_all "gp-calibrate or gp-sim not built"

# Expected capacity from gp-sim's documented engine model (gp-sim(1),
# src/lib/sim/engine.h): with the batch full, a decode step of B = max_batch
# sequences lasts (decode_ms + decode_ms_per_seq x B) / speed ms and emits
# one token to each: B x 1000 / (decode_ms + decode_ms_per_seq x B) tok/s.
# Prompts are 8 tokens and prefill is fast (--prefill-tok-s 1000000), so the
# prefill work a step-loop model adds to a decode step is negligible (< 1 %).
BATCH=8 STEP_MS=8 PER_SEQ_MS=0.25
EXPECT=$(awk -v b=$BATCH -v d=$STEP_MS -v p=$PER_SEQ_MS 'BEGIN { print b * 1000 / (d + p * b) }')
start_sim --backends 1 --max-batch $BATCH --decode-ms $STEP_MS --decode-ms-per-seq $PER_SEQ_MS \
	--prefill-tok-s 1000000 || exit 1
cat >fleet.json <<EOF
{"model": "gp-sim", "vips": [{"name": "vip", "url": "http://127.0.0.1:1"}],
 "backends": [{"name": "d1", "url": "http://127.0.0.1:$SIM_PORT", "metrics_url": "http://127.0.0.1:$SIM_PORT/metrics"}]}
EOF
# 8-token prompts, 32 output tokens: a request lives ~0.32 s, so 0.5 s of
# warmup reaches the steady state; 800 tok/s is 25 req/s.  (inflight_metrics
# absent from the fleet: vLLM's running + waiting by default.)
# The lateness bound is 1 s (a shared machine deschedules the driver); the
# throttled client below is late by its cap, not by the clock.
proto='--start-rps 5 --ramp 1.5 --warmup-s 0.5 --hold-s 1.5 --hold-requests 10
	--decode-input-tokens 8 --decode-output-tokens 32 --sample-s 0.05 --late-ms 1000 --full-step-pct 80
	--max-steps 10'

test_expect_success 'decode: saturated, not suspect, within 15 % of batch / step time (exit 0)' '
	gp-calibrate --fleet fleet.json --endpoint d1 --role decode $proto -o d1.ndjson 2>err &&
	jq -s -e --argjson e $EXPECT ".[-1] | .type == \"capacity\" and .role == \"decode\" and
		.saturated and (.suspect | not) and (.capacity_tok_s / \$e - 1 | fabs) <= 0.15" d1.ndjson >/dev/null
'
say "d1 measured $(jq -r 'select(.type == "capacity") | .capacity_tok_s' d1.ndjson) tok/s, model $EXPECT"
test_expect_success 'decode counts output tokens: prompt tokens/s are not the measure' '
	jq -s -e "map(select(.type == \"calib_step\")) | all(.[]; .delivered_tok_s == .output_tok_s)" d1.ndjson >/dev/null
'

# The throttled client's plateau is its own request latency, which a loaded
# machine jitters: a 15 % flat band keeps the verdict about the queue.
test_expect_success 'a throttled client (--max-inflight 1): SUSPECT after its re-runs, no capacity (exit 1)' '
	gp-calibrate --fleet fleet.json --endpoint d1 --role decode $proto --max-inflight 1 \
		--plateau-pct 15 -o thr.ndjson 2>err
	test $? = 1 &&
	jq -s -e ".[-1] | .verdict == \"suspect\" and .suspect and (.saturated | not) and
		.capacity_tok_s == null and .observed_tok_s > 0 and
		(.reasons | index(\"queue_not_diverging\")) != null" thr.ndjson >/dev/null
'
say "throttled: observed $(jq -r 'select(.type == "capacity") | .observed_tok_s' thr.ndjson) tok/s (client-bound), no capacity"
# Every plateau step was late (capped by --max-inflight): each of the three is
# re-run, once, in step order (before, only the last was, so a plateau made
# suspect by an earlier step could never clear).
test_expect_success 'the throttled sweep: each late plateau step re-run once, in order, still late' '
	jq -s -e ".[-1] as \$cap | map(select(.type == \"calib_step\")) |
		(map(select(.rerun)) | map(.step)) == \$cap.plateau_steps and
		\$cap.reruns == 3 and .[-4].suspect and (.[-4].rerun | not) and
		all(.[-3:][]; .rerun and .capped_sends > 0 and .late) and (.[-1].queue_diverging | not)" thr.ndjson >/dev/null
'
test_expect_success 'the throttled plateau lies far below the backend: it was the client' '
	jq -s -e --argjson e $EXPECT ".[-1].observed_tok_s < 0.5 * \$e" thr.ndjson >/dev/null
'
test_done
