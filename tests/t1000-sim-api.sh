#!/bin/sh
# gp-sim: the OpenAI-compatible API — SSE framing, usage, max_tokens and
# ignore_eos, non-streaming, ids, models, health, errors, usage errors.
. "$(dirname "$0")/lib.sh"

# chat BODY-EXTRA [PROMPT]: a chat request body
chat() {
	printf '{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"%s"}]%s}' \
		"${2:-tell me about the weather today}" "$1"
}

test_expect_success 'gp-sim --help prints the usage and exits 0' '
	gp-sim --help >help.out && grep -q "^Usage: gp-sim --port P" help.out
'
test_expect_success 'gp-sim --version' '
	gp-sim --version | grep -q "gp-sim"
'
test_expect_success 'every option of --help is documented in gp-sim(1)' '
	sed "s/\\\\-/-/g" "$GP_TOP/doc/gp-sim.1" | grep "^\\.BI* " >man.opts &&
	gp-sim --help | grep -o -- "--[a-z][a-z-]*" | sort -u >opts &&
	test "$(wc -l <opts)" -ge 19 &&
	while read -r o; do
		grep -q -- "$o\\b" man.opts || { echo "undocumented $o"; exit 1; }
	done <opts
'
test_expect_code 2 'missing --port is a usage error' 'gp-sim --backends 2'
test_expect_code 2 'unknown option is a usage error' 'gp-sim --port 1 --bogus'
test_expect_code 2 'non-numeric --max-batch' 'gp-sim --port 1 --max-batch x'
test_expect_code 2 'unknown fault kind' 'gp-sim --port 1 --fault explode=0.5'
test_expect_code 2 'fault probability above 1' 'gp-sim --port 1 --fault reset=1.5'
test_expect_code 2 'zero speed' 'gp-sim --port 1 --speed 1,0'
test_expect_code 2 'stray argument' 'gp-sim --port 1 extra'

start_sim --model m --max-model-len 64 --truth truth.ndjson --receipt-header X-Gp-Receipt

test_expect_success 'streaming chat: exact SSE framing' '
	post /v1/chat/completions "$(chat ",\"max_tokens\":5,\"ignore_eos\":true,\"stream\":true")" >sse.out &&
	# every event is one "data: " line followed by one blank line
	awk "NR % 2 == 1 && !/^data: / { exit 1 } NR % 2 == 0 && \$0 != \"\" { exit 1 } END { exit NR % 2 }" sse.out &&
	test "$(tail -n 2 sse.out | head -n 1)" = "data: [DONE]" &&
	test "$(grep -c "^data: " sse.out)" = 8 &&
	grep "^data: {" sse.out | sed "s/^data: //" | jq -e . >/dev/null
'
test_expect_success 'streaming chat: a role-only first chunk (as vLLM), one token per content event, then finish_reason' '
	grep "^data: {" sse.out | sed "s/^data: //" >ev.json &&
	test "$(jq -r "select(.choices[0].delta.content != null) | .choices[0].delta.content" ev.json | grep -c "^[a-z]* $")" = 5 &&
	test "$(jq -r "select(.choices[0].finish_reason != null) | .choices[0].finish_reason" ev.json)" = length &&
	test "$(sed -n 7p ev.json | jq -r ".choices[0].delta | length")" = 0 &&
	sed -n 1p ev.json | jq -e ".choices[0].delta == {\"role\":\"assistant\",\"content\":\"\"} and .choices[0].finish_reason == null" >/dev/null &&
	jq -se "map(select(.choices[0].delta.content != null)) | all(.object == \"chat.completion.chunk\" and .model == \"m\")" ev.json >/dev/null
'
test_expect_success 'include_usage adds a usage chunk with correct counts' '
	post /v1/chat/completions "$(chat ",\"max_tokens\":7,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}")" >u.out &&
	grep "^data: {" u.out | sed "s/^data: //" >u.json &&
	tail -n 1 u.json | jq -e ".choices == [] and .usage.prompt_tokens == 8 and .usage.completion_tokens == 7 and .usage.total_tokens == 15" &&
	test "$(tail -n 2 u.out | head -n 1)" = "data: [DONE]"
'
test_expect_success 'no usage chunk without include_usage' '
	! grep -q "\"usage\"" sse.out
'
test_expect_success 'completions endpoint streams choices[0].text' '
	post /v1/completions "{\"model\":\"m\",\"prompt\":\"a b c\",\"max_tokens\":4,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}" >c.out &&
	grep "^data: {" c.out | sed "s/^data: //" >c.json &&
	test "$(jq -r "select(.choices[0].text != null and .choices[0].text != \"\") | .choices[0].text" c.json | wc -l)" = 4 &&
	jq -se "map(select(.usage)) | .[0].usage.prompt_tokens == 3 and .[0].usage.completion_tokens == 4" c.json &&
	jq -se "map(select(.choices[0].finish_reason)) | length == 1 and .[0].object == \"text_completion\"" c.json
'
test_expect_success 'max_completion_tokens is honoured too' '
	post /v1/chat/completions "$(chat ",\"max_completion_tokens\":3,\"ignore_eos\":true,\"stream\":true")" >mct.out &&
	test "$(grep -c "\"content\":\"[a-z]" mct.out)" = 3
'
test_expect_success 'without ignore_eos: length <= max_tokens, deterministic per prompt' '
	for p in "one two" "three four five" "six" "seven eight nine ten" "eleven"; do
		post /v1/chat/completions "$(chat ",\"max_tokens\":40,\"stream\":true" "$p")" | grep -c "\"content\":\"[a-z]" >>len1
		post /v1/chat/completions "$(chat ",\"max_tokens\":40,\"stream\":true" "$p")" | grep -c "\"content\":\"[a-z]" >>len2
	done &&
	cmp len1 len2 &&
	awk "\$1 < 1 || \$1 > 40 { exit 1 }" len1 &&
	test "$(sort -u len1 | wc -l)" -gt 1
'
test_expect_success 'stop vs length finish reasons match the length' '
	post /v1/chat/completions "$(chat ",\"max_tokens\":40,\"stream\":true" "six")" >st.out &&
	n=$(grep -c "\"content\":\"[a-z]" st.out) &&
	fr=$(grep -o "\"finish_reason\":\"[a-z]*\"" st.out) &&
	if [ "$n" = 40 ]; then test "$fr" = "\"finish_reason\":\"length\""; else test "$fr" = "\"finish_reason\":\"stop\""; fi
'
test_expect_success 'min_tokens bounds the early stop from below' '
	for p in a b c d e f; do
		post /v1/chat/completions "$(chat ",\"max_tokens\":12,\"min_tokens\":10,\"stream\":true" "$p")" | grep -c "\"content\":\"[a-z]"
	done >minlen &&
	awk "\$1 < 10 || \$1 > 12 { exit 1 }" minlen
'
test_expect_success 'non-streaming chat response' '
	post /v1/chat/completions "$(chat ",\"max_tokens\":6,\"ignore_eos\":true")" -H "X-Request-Id: ns-1" >ns.json &&
	jq -e ".object == \"chat.completion\" and .id == \"chatcmpl-ns-1\" and .choices[0].message.role == \"assistant\" and .usage.completion_tokens == 6 and .usage.prompt_tokens == 8 and .choices[0].finish_reason == \"length\"" ns.json &&
	test "$(jq -r .choices[0].message.content ns.json | wc -w)" = 6
'
test_expect_success 'non-streaming completion response' '
	post /v1/completions "{\"prompt\":\"x y\",\"max_tokens\":3,\"ignore_eos\":true}" -H "X-Request-Id: ns-2" >nc.json &&
	jq -e ".object == \"text_completion\" and .id == \"cmpl-ns-2\" and (.choices[0].text | split(\" \") | length) == 4 and .usage.total_tokens == 5" nc.json
'
test_expect_success 'the id echoes X-Request-Id (chatcmpl-, cmpl-) and the header comes back' '
	post /v1/chat/completions "$(chat ",\"max_tokens\":2,\"stream\":true")" -H "X-Request-Id: req-42" -D hdr.txt >id.out &&
	grep "^data: {" id.out | sed "s/^data: //" | jq -r .id | sort -u >ids &&
	test "$(cat ids)" = "chatcmpl-req-42" &&
	grep -qi "^x-request-id: req-42" hdr.txt &&
	post /v1/completions "{\"prompt\":\"q\",\"max_tokens\":2,\"stream\":true}" -H "X-Request-Id: r7" | grep "^data: {" | sed "s/^data: //" | jq -r .id | sort -u >ids2 &&
	test "$(cat ids2)" = "cmpl-r7"
'
test_expect_success 'receipt header names the prefill and decode workers' '
	grep -i "^x-gp-receipt: " hdr.txt | tr -d "\r" >rc.txt &&
	test "$(cat rc.txt)" = "X-Gp-Receipt: prefill=127.0.0.1:$SIM_PORT;decode=127.0.0.1:$SIM_PORT"
'
test_expect_success 'SSE responses carry text/event-stream' '
	grep -qi "^content-type: text/event-stream" hdr.txt
'
test_expect_success 'GET /v1/models reports the model and max_model_len' '
	curl -sS "http://127.0.0.1:$SIM_PORT/v1/models" >models.json &&
	jq -e ".object == \"list\" and .data[0].id == \"m\" and .data[0].max_model_len == 64" models.json
'
test_expect_success 'GET /health is 200' '
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SIM_PORT/health")" = 200
'
test_expect_success 'a prompt longer than --max-model-len is a 400 with an OpenAI error' '
	long=$(seq 1 70 | sed "s/^/w/" | tr "\n" " ") &&
	code=$(curl -H Content-Type:application/json -s -o err.json -w "%{http_code}" -d "{\"prompt\":\"$long\",\"max_tokens\":1}" "http://127.0.0.1:$SIM_PORT/v1/completions") &&
	test "$code" = 400 &&
	jq -e ".error.message | test(\"maximum context length is 64\")" err.json &&
	jq -e ".error.type and (.error | has(\"param\")) and (.error | has(\"code\"))" err.json
'
test_expect_success 'prompt + max_tokens over the context is refused too' '
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -d "{\"prompt\":\"a b c\",\"max_tokens\":62}" "http://127.0.0.1:$SIM_PORT/v1/completions")" = 400 &&
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -d "{\"prompt\":\"a b c\",\"max_tokens\":61}" "http://127.0.0.1:$SIM_PORT/v1/completions")" = 200
'
test_expect_success 'bad JSON is a 422 (as FastAPI), a wrong model a 404, a wrong path a 404' '
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -d "{oops" "http://127.0.0.1:$SIM_PORT/v1/completions")" = 422 &&
	test "$(curl -H Content-Type:application/json -s -o /dev/null -w "%{http_code}" -d "{\"model\":\"other\",\"prompt\":\"a\"}" "http://127.0.0.1:$SIM_PORT/v1/completions")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SIM_PORT/nope")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SIM_PORT/v1/chat/completions")" = 405
'
test_expect_success 'content given as parts counts its words' '
	post /v1/chat/completions "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"one two three\"}]}],\"max_tokens\":1,\"stream\":true,\"stream_options\":{\"include_usage\":true}}" |
		grep "\"usage\"" | sed "s/^data: //" | jq -e ".usage.prompt_tokens == 3"
'
test_done
