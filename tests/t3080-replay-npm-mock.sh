#!/bin/sh
# gp-replay against a third-party OpenAI-compatible mock server from npm
# (@dwmkerr/mock-llm, pinned, installed into build/npm): Express parses the
# body only when it is declared JSON, streams the reply in fixed-size chunks
# at a fixed interval (first chunk after one interval, [DONE] one interval
# after the last) and sends no usage.  Every request ok, out_tokens the chunk
# count, TTFT and TPOT within a few ms of its configured timing; a wrong
# model: gp-replay refuses to start (exit 2, the listed names), or with
# --no-model-check the server's own error message lands in error_detail.
. "$(dirname "$0")/lib.sh"

PKG=@dwmkerr/mock-llm VER=0.1.29
command -v jq >/dev/null || skip_all "no jq"
command -v node >/dev/null && command -v npm >/dev/null || skip_all "no node/npm (share/packages: npm)"
test -x "$GP_BIN/gp-replay" || skip_all "gp-replay not built"
NPM=$GP_TOP/build/npm
MAIN=$NPM/node_modules/$PKG/dist/main.js
if ! test -f "$MAIN" || test "$(jq -r .version "$NPM/node_modules/$PKG/package.json")" != $VER; then
	mkdir -p "$NPM" &&
	# Bounded: without the registry's CA (a bare environment) npm retries
	# for ever; a fetch that cannot finish in 3 minutes is a clear failure.
	timeout 180 npm install --prefix "$NPM" --no-save --no-audit --no-fund \
		--fetch-retries=2 --fetch-timeout=30000 "$PKG@$VER" >npm.log 2>&1 ||
		{ tail -n 20 npm.log | sed "s/^/# /"; fail_all "cannot install $PKG@$VER from npm (in 180 s)"; }
fi
say "third-party server: $PKG $(jq -r .version "$NPM/node_modules/$PKG/package.json") (npm), node $(node --version)"

CHUNK=5 IV=20 N=8
cat >mock-llm.yaml <<YEOF
streaming:
  chunkSize: $CHUNK
  chunkIntervalMs: $IV
rules:
  - path: "/v1/chat/completions"
    method: "POST"
    match: "@"
    response:
      status: 200
      content: |
        {"id": "chatcmpl-{{timestamp}}", "object": "chat.completion", "model": "{{jmes request body.model}}",
         "choices": [{"message": {"role": "assistant", "content": "abcd efgh ijkl mnop qrst uvwx yzab cdef "},
                      "finish_reason": "stop"}]}
  - path: "/v1/chat/completions"
    method: "POST"
    match: "body.model && body.model != 'm'"
    response:
      status: 404
      content: |
        {"error": {"message": "The model does not exist: {{jmes request body.model}}", "type": "invalid_request_error", "code": "model_not_found"}}
  - path: "/v1/models"
    method: "GET"
    response:
      status: 200
      content: |
        {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "test"}]}
YEOF
P=$(free_port_range 1) || exit 1
HOST=127.0.0.1 PORT=$P node "$MAIN" --config mock-llm.yaml >mock.log 2>&1 &
cleanup_pid $!
wait_port "$P" || { cat mock.log; exit 1; }
URL=http://127.0.0.1:$P

awk -v n=12 'BEGIN { for (i = 0; i < n; i++)
	printf "{\"type\":\"trace\",\"id\":\"q%d\",\"t_s\":%.3f,\"input_tokens\":20,\"output_tokens\":%d}\n", i, i * 0.15, 8 }' >trace.ndjson
med() { jq -s "map(select(.type == \"request\") | .$1) | sort | .[length / 2 | floor]" "$2"; }

test_expect_success 'every request ok; out_tokens = the chunks the server sent (no usage: tokens_from chunks)' '
	gp-replay --url $URL --model m trace.ndjson >run.ndjson 2>err &&
	sel ".type == \"run_end\"" run.ndjson | jq -e ".attempted == 12 and .ok == 12 and .failed == 0" &&
	sel ".type == \"request\"" run.ndjson | jq -se "all(.outcome == \"ok\" and .out_tokens == $N and .tokens_from == \"chunks\")"
'
# First chunk one interval after the request, [DONE] one interval after the
# last chunk: TTFT = IV, E2E = (N + 1) IV, TPOT = (E2E - TTFT)/(N - 1) = N IV/(N - 1).
test_expect_success "TTFT and TPOT within a few ms of the server's timing (${IV} ms interval)" '
	ttft=$(med ttft_ms run.ndjson) && tpot=$(med tpot_ms run.ndjson) &&
	say "median TTFT $ttft ms (want $IV), TPOT $tpot ms (want $(echo "$N * $IV / ($N - 1)" | bc -l | cut -c1-6))" &&
	awk -v t="$ttft" -v p="$tpot" -v iv=$IV -v n=$N "BEGIN { w = n * iv / (n - 1);
		exit !(t > iv - 1 && t < iv + 15 && p > w - 5 && p < w + 5) }"
'
test_expect_success 'the summary on stderr says all ok' '
	grep -q "12 attempted, 12 ok" err && grep -q "TTFT ms" err
'
test_expect_success 'a model the server does not list: exit 2 before any request, naming what it lists' '
	gp-replay --url $URL --model gpt-x trace.ndjson >wrong.ndjson 2>werr; test $? = 2 &&
	test ! -s wrong.ndjson && grep -q "gpt-x" werr && grep -q "'"'"'m'"'"'" werr
'
test_expect_success "--no-model-check: the server's error message is in every record's error_detail" '
	gp-replay --url $URL --model gpt-x --no-model-check --max-requests 3 trace.ndjson >nm.ndjson 2>nmerr; test $? = 1 &&
	sel ".type == \"request\"" nm.ndjson | jq -se "length == 3 and all(.outcome == \"failed\" and
		.error_detail == \"The model does not exist: gpt-x\")" &&
	grep -q "The model does not exist: gpt-x" nmerr
'
test_expect_success 'the issue case: a body Express does not parse gets a whole chat.completion: not_streamed, not truncated' '
	gp-replay --url $URL --model m --max-requests 2 -H "Content-Type: text/plain" trace.ndjson >ns.ndjson 2>nserr; test $? = 1 &&
	sel ".type == \"request\"" ns.ndjson | jq -se "length == 2 and all(.error == \"not_streamed\" and .http_status == 200 and
		(.error_detail | startswith(\"Content-Type: application/json\")))"
'
test_done
