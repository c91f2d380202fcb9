#!/bin/sh
# gp-sim judges requests as vLLM's FastAPI front end does: each malformed
# request, sent with curl, gets the status and the error shape that a real
# FastAPI + pydantic server (tests/fixtures/vllm-shaped.py on Debian's
# python3-fastapi) gives the same bytes.  And gp-sim streams as vLLM does.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null && command -v curl >/dev/null || skip_all "no jq or curl"
test -x "$GP_BIN/gp-sim" || skip_all "gp-sim not built"
PY=/usr/bin/python3
FX=$GP_TOP/tests/fixtures/vllm-shaped.py
$PY -c 'import fastapi, uvicorn' 2>/dev/null || skip_all "no python3-fastapi/python3-uvicorn (share/packages)"

start_sim --model m --max-model-len 64 || exit 1
FXP=$(free_port_range 1) || exit 1
$PY "$FX" --port "$FXP" --model m --max-model-len 64 --ttft-ms 1 --tpot-ms 1 2>fx.log &
cleanup_pid $!
wait_port "$FXP" || { cat fx.log; exit 1; }
say "$(cat fx.log)"

# ask PORT OUT PATH BODY [curl args]: prints the status; the body in OUT.
ask() {
	_p=$1 _o=$2 _path=$3 _b=$4
	shift 4
	curl -s -o "$_o" -w '%{http_code}' "$@" -d "$_b" "http://127.0.0.1:$_p$_path"
}
# same NAME PATH BODY [curl args]: gp-sim and the fixture agree on status and message.
same() {
	_n=$1 _path=$2 _body=$3
	shift 3
	s1=$(ask "$SIM_PORT" "$_n.sim" "$_path" "$_body" "$@") &&
	s2=$(ask "$FXP" "$_n.fx" "$_path" "$_body" "$@") &&
	m1=$(jq -c '.detail // .error.message' "$_n.sim") &&
	m2=$(jq -c '.detail // .error.message' "$_n.fx") &&
	echo "$s1 $m1" >"$_n.got" && echo "$s2 $m2" >"$_n.want" &&
	{ test "$s1" = "$s2" || { echo "status: gp-sim $s1, FastAPI $s2"; false; }; }
}
CT='Content-Type: application/json'
OKB='{"model":"m","messages":[{"role":"user","content":"hi there"}],"max_tokens":3}'

test_expect_success 'curl -d (form content type): 422 value is not a valid dict, as FastAPI' '
	same form /v1/chat/completions "$OKB" && test "$s1" = 422 &&
	jq -e ".detail == [{\"loc\":[\"body\"],\"msg\":\"value is not a valid dict\",\"type\":\"type_error.dict\"}]" form.sim &&
	cmp form.sim form.fx
'
test_expect_success 'text/plain: 422 the same' '
	same plain /v1/chat/completions "$OKB" -H "Content-Type: text/plain" && test "$s1" = 422 && cmp plain.sim plain.fx
'
test_expect_success 'no Content-Type at all: read as JSON (200), as FastAPI' '
	same noct /v1/chat/completions "$OKB" -H "Content-Type:" && test "$s1" = 200
'
test_expect_success 'invalid JSON: 422 value_error.jsondecode at body' '
	same badjson /v1/chat/completions "{\"model\":" -H "$CT" && test "$s1" = 422 &&
	jq -e ".detail[0].type == \"value_error.jsondecode\" and .detail[0].loc[0] == \"body\"" badjson.sim
'
test_expect_success 'a JSON array: 422 value is not a valid dict' '
	same arr /v1/chat/completions "[1]" -H "$CT" && test "$s1" = 422 && cmp arr.sim arr.fx
'
test_expect_success 'no model: served by the one model (vLLM >= 0.6), in both' '
	same nomodelf /v1/chat/completions "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":2}" -H "$CT" &&
	test "$s1" = 200
'
test_expect_success 'missing messages: 422 field required at body.messages' '
	same nomsg /v1/chat/completions "{\"model\":\"m\"}" -H "$CT" && test "$s1" = 422 && cmp nomsg.sim nomsg.fx
'
test_expect_success 'missing prompt (completions): 422 field required at body.prompt' '
	same noprompt /v1/completions "{\"model\":\"m\"}" -H "$CT" && test "$s1" = 422 && cmp noprompt.sim noprompt.fx
'
test_expect_success 'max_tokens not an integer: 422 at body.max_tokens' '
	same badmt /v1/chat/completions "{\"model\":\"m\",\"messages\":[],\"max_tokens\":\"x\"}" -H "$CT" &&
	test "$s1" = 422 && cmp badmt.sim badmt.fx
'
test_expect_success 'unknown model: 404 with vLLM error object and message' '
	same nomodel /v1/chat/completions "{\"model\":\"llama\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}" -H "$CT" &&
	test "$s1" = 404 && cmp nomodel.got nomodel.want &&
	jq -e ".error == {\"message\":\"The model \`llama\` does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}" nomodel.sim
'
test_expect_success 'prompt over --max-model-len: 400 with vLLM message' '
	long=$(seq 1 70 | sed "s/^/w/" | tr "\n" " ") &&
	same long /v1/completions "{\"model\":\"m\",\"prompt\":\"$long\",\"max_tokens\":1}" -H "$CT" &&
	test "$s1" = 400 && cmp long.got long.want &&
	jq -e ".error.message | startswith(\"This model'"'"'s maximum context length is 64 tokens. However, you requested 71 tokens (70 in the messages, 1 in the completion).\")" long.sim
'
test_expect_success 'stream_options without stream: 400, as vLLM' '
	same so /v1/completions "{\"model\":\"m\",\"prompt\":\"a\",\"stream_options\":{\"include_usage\":true}}" -H "$CT" &&
	test "$s1" = 400 && cmp so.got so.want
'
test_expect_success 'min_tokens over max_tokens: 400, as vLLM' '
	same minmax /v1/completions "{\"model\":\"m\",\"prompt\":\"a\",\"max_tokens\":2,\"min_tokens\":3}" -H "$CT" &&
	test "$s1" = 400 && cmp minmax.got minmax.want
'
test_expect_success 'stream false: one whole chat.completion (200, application/json)' '
	ask "$SIM_PORT" whole.json /v1/chat/completions "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":4,\"ignore_eos\":true,\"stream\":false}" -H "$CT" -D whole.h >code &&
	test "$(cat code)" = 200 && grep -qi "^content-type: application/json" whole.h &&
	jq -e ".object == \"chat.completion\" and .usage.completion_tokens == 4 and (.choices[0].message.content | split(\" \") | length) == 5" whole.json
'
STREAM='{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":10,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}'
test_expect_success 'the stream has the fixture stream shape: role chunk, content, finish, usage with empty choices, [DONE]' '
	curl -sN -H "$CT" -d "$STREAM" "http://127.0.0.1:$SIM_PORT/v1/chat/completions" >s.sse &&
	curl -sN -H "$CT" -d "$STREAM" "http://127.0.0.1:$FXP/v1/chat/completions" >f.sse &&
	shape() { grep "^data: {" "$1" | sed "s/^data: //" | jq -c "[(.choices | length), (.choices[0].delta | keys? // null), (.choices[0].finish_reason // null), (.usage.completion_tokens // null)]"; } &&
	shape s.sse >s.shape && shape f.sse >f.shape && cmp s.shape f.shape &&
	test "$(tail -n 2 s.sse | head -n 1)" = "data: [DONE]"
'
kill $SIM_PID 2>/dev/null; wait $SIM_PID 2>/dev/null
start_sim --model m --tokens-per-chunk 3 || exit 1
test_expect_success '--tokens-per-chunk 3: first token alone, then 3 per chunk; usage counts tokens' '
	curl -sN -H "$CT" -d "$STREAM" "http://127.0.0.1:$SIM_PORT/v1/chat/completions" >k.sse &&
	grep "^data: {" k.sse | sed "s/^data: //" |
		jq -r "select(.choices[0].delta.content // \"\" | length > 0) | .choices[0].delta.content | split(\" \") | length - 1" | tr "\n" " " >k.sizes &&
	test "$(cat k.sizes)" = "1 3 3 3 " &&
	grep "^data: {" k.sse | sed "s/^data: //" | jq -se "map(select(.usage)) | .[0].usage.completion_tokens == 10"
'
test_done
