#!/bin/sh
# gp-sim: --backends N engines on consecutive ports, each with its own cache
# and metrics; --speed makes one slower; the truth log names the backend.
. "$(dirname "$0")/lib.sh"

P=$(words 2000 1)
req() { # PORT ID
	curl -H Content-Type:application/json -sS -N -H "X-Request-Id: $2" -d "{\"prompt\":\"$P\",\"max_tokens\":4,\"ignore_eos\":true,\"stream\":true}" \
		"http://127.0.0.1:$1/v1/completions" >"$2.out"
}
metric() { # PORT NAME
	curl -sS "http://127.0.0.1:$1/metrics" | awk -v s="$2" '$1 == s { print $2 }'
}
L='model_name="m"'

# Not start_sim: its loop counter is clobbered by wait_port for N >= 3.
SIM_PORT=$(free_port_range 3) || exit 1
gp-sim --port $SIM_PORT --model m --backends 3 --speed 1,0.25 --truth truth.ndjson \
	--receipt-header X-Receipt 2>>sim.log &
SIM_PID=$!
cleanup_pid $SIM_PID
for p in 0 1 2; do wait_port $((SIM_PORT + p)) || exit 1; done
P0=$SIM_PORT P1=$((SIM_PORT + 1)) P2=$((SIM_PORT + 2))

test_expect_success 'three backends answer on consecutive ports' '
	for p in $P0 $P1 $P2; do
		test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$p/health")" = 200 || exit 1
	done &&
	! (exec 3<>/dev/tcp/127.0.0.1/$((SIM_PORT + 3))) 2>/dev/null
'
test_expect_success 'each backend has its own prefix cache' '
	req $P0 a0 && req $P0 a1 && req $P1 b0 &&
	test "$(jq -r "select(.id == \"a0\") | .cached_tokens" truth.ndjson)" = 0 &&
	test "$(jq -r "select(.id == \"a1\") | .cached_tokens" truth.ndjson)" = 1999 &&
	test "$(jq -r "select(.id == \"b0\") | .cached_tokens" truth.ndjson)" = 0
'
test_expect_success 'each backend has its own metrics' '
	test "$(metric $P0 "vllm:prompt_tokens_total{$L}")" = 4000 &&
	test "$(metric $P0 "vllm:prefix_cache_hits_total{$L}")" = 1999 &&
	test "$(metric $P1 "vllm:prompt_tokens_total{$L}")" = 2000 &&
	test "$(metric $P1 "vllm:prefix_cache_hits_total{$L}")" = 0 &&
	test "$(metric $P2 "vllm:prompt_tokens_total{$L}")" = 0
'
test_expect_success 'the truth log and the receipt name the serving backend' '
	test "$(jq -r "select(.id == \"b0\") | .backend" truth.ndjson)" = "127.0.0.1:$P1" &&
	test "$(jq -r "select(.id == \"a0\") | .backend" truth.ndjson)" = "127.0.0.1:$P0" &&
	curl -H Content-Type:application/json -sS -D h.txt -o /dev/null -d "{\"prompt\":\"x\",\"max_tokens\":1}" "http://127.0.0.1:$P2/v1/completions" &&
	grep -i "^x-receipt:" h.txt | grep -q "prefill=127.0.0.1:$P2;decode=127.0.0.1:$P2"
'
test_expect_success '--speed 1,0.25: backend 1 prefills 4x slower; the list repeats its last value' '
	# cold 2000-token prefill: 100 ms at speed 1, 400 ms at speed 0.25
	t0=$(jq -r "select(.id == \"a0\") | .ttft_ms" truth.ndjson) &&
	t1=$(jq -r "select(.id == \"b0\") | .ttft_ms" truth.ndjson) &&
	req $P2 c0 && t2=$(jq -r "select(.id == \"c0\") | .ttft_ms" truth.ndjson) &&
	echo "$t0 $t1 $t2" &&
	awk -v a="$t0" -v b="$t1" -v c="$t2" "BEGIN { exit !(a >= 99.9 && a < 200 && b >= 399.9 && b < 700 && c >= 399.9 && c < 700) }"
'
test_expect_success 'slower decode steps too: e2e grows with 1/speed' '
	e0=$(jq -r "select(.id == \"a1\") | .e2e_ms - .ttft_ms" truth.ndjson) &&
	e2=$(jq -r "select(.id == \"c0\") | .e2e_ms - .ttft_ms" truth.ndjson) &&
	echo "$e0 $e2" &&
	# 3 steps of 8.25 ms vs 33 ms
	awk -v a="$e0" -v b="$e2" "BEGIN { exit !(a >= 20 && a < 80 && b >= 90 && b < 250) }"
'
test_done
