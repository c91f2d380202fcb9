#!/bin/sh
# gp-sim's POST /reset_prefix_cache (vLLM's endpoint): after it, the same long
# prompt misses again on that engine; the other engines' caches are untouched;
# a GET is not the reset.
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip_all "no curl"
test -x "$GP_BIN/gp-sim" || skip_all "gp-sim not built"
start_sim --backends 2 --block-tokens 16 || exit 1
P0=$SIM_PORT P1=$((SIM_PORT + 1))
prompt=$(seq 1 200 | tr '\n' ' ')
chat() { # PORT: one streamed completion of the long prompt
	curl -sf -N "http://127.0.0.1:$1/v1/chat/completions" -H 'Content-Type: application/json' \
		-d "{\"messages\":[{\"role\":\"user\",\"content\":\"$prompt\"}],\"max_tokens\":2,\"stream\":true}" >/dev/null
}
hits() { # PORT: the engine's prefix-cache hits (tokens)
	curl -sf "http://127.0.0.1:$1/metrics" | awk '/^vllm:prefix_cache_hits_total/ { print $2 }'
}
chat $P0 && chat $P0 && chat $P1
h0=$(hits $P0)
test_expect_success 'warm: the second identical prompt hit the cache' 'test "${h0%.*}" -gt 0'
test_expect_success 'POST /reset_prefix_cache answers 200' '
	test "$(curl -s -o /dev/null -w "%{http_code}" -X POST "http://127.0.0.1:$P0/reset_prefix_cache")" = 200
'
chat $P0
test_expect_success 'after the reset the prompt misses on that engine' 'test "$(hits $P0)" = "$h0"'
chat $P0
test_expect_success '... and hits again the time after' 'test "$(hits $P0)" != "$h0"'
h1=$(hits $P1)
chat $P1
test_expect_success 'the other engine kept its cache' 'test "$(hits $P1)" != "$h1"'
test_expect_success 'GET /reset_prefix_cache is not the reset (404)' '
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$P0/reset_prefix_cache")" = 404
'
test_done
