#!/bin/sh
# gp-replay against a scripted OpenAI-like server (python3): the API key goes
# out as Authorization and never appears in any output; X-Request-Id, the
# cache-key header and -H headers are sent; receipts from the completion id
# (LoxiLB's disaggregated shape) and a backend header are recorded; CRLF SSE,
# comments, odd chunking and reasoning_content are parsed.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
PY=/usr/bin/python3
test -x $PY || PY=$(command -v python3) || skip_all "no python3"
test -x "$GP_BIN/gp-replay" || skip_all "gp-replay not built"

cat >server.py <<'PYEOF'
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log = open(sys.argv[2], "a")
RID = "___prefill_addr_10.0.0.1:8000___decode_addr_10.0.0.2:8001_%s"

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def chunk(self, b):
        self.wfile.write(b"%x\r\n" % len(b) + b + b"\r\n"); self.wfile.flush()
    def do_GET(self):
        msg = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(msg))); self.end_headers(); self.wfile.write(msg)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        rid = self.headers.get("X-Request-Id", "")
        log.write(json.dumps({"id": rid, "auth": self.headers.get("Authorization"),
                              "key": self.headers.get("X-Cache-Key"), "extra": self.headers.get("X-Extra"),
                              "path": self.path, "ct": self.headers.get("Content-Type"),
                              "accept": self.headers.get("Accept"), "body": body}) + "\n"); log.flush()
        if rid == "deny":
            msg = json.dumps({"error": {"message": "bad key %s\nfor you" % (self.headers.get("Authorization") or "")}}).encode()
            self.send_response(401); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(msg))); self.end_headers(); self.wfile.write(msg); return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("X-Backend", "b7")
        self.end_headers()
        cid = "chatcmpl-" + RID % rid
        n = body["max_tokens"]
        ev = [": keep-alive comment\r\n\r\n",
              "data: " + json.dumps({"id": cid, "choices": [{"delta": {"role": "assistant", "content": ""}}]}) + "\r\n\r\n"]
        if rid == "slow":
            # The role chunk (empty content) goes out at once, the first token
            # 150 ms later: TTFT must be stamped on the token, not the role.
            raw = "".join(ev).encode()
            self.chunk(raw); ev = []; time.sleep(0.15)
        for k in range(n):
            d = {"reasoning_content": "think"} if k == 0 else {"content": "w%d " % k}
            ev.append("data: " + json.dumps({"id": cid, "choices": [{"delta": d, "finish_reason": "length" if k == n - 1 else None}]}) + "\r\n\r\n")
        if rid != "nousage":
            ev.append("data: " + json.dumps({"id": cid, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": n}}) + "\r\n\r\n")
        ev.append("data: [DONE]\r\n\r\n")
        raw = "".join(ev).encode()
        # Odd chunking: 7-byte HTTP chunks, so CR and LF often fall in different reads.
        for i in range(0, len(raw), 7):
            self.chunk(raw[i:i + 7])
            if i % 70 == 0: time.sleep(0.001)
        self.wfile.write(b"0\r\n\r\n"); self.wfile.flush()

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PYEOF
P=$(free_port_range 1) || exit 1
$PY server.py $P seen.ndjson 2>server.err &
cleanup_pid $!
wait_port $P || skip_all "the python server did not start"
URL=http://127.0.0.1:$P
KEY=sk-test-SECRET123

printf '%s\n' '{"type":"trace","id":"r1","t_s":0,"input_tokens":12,"output_tokens":5,"cache_key":"doc-1","messages":[{"role":"user","content":"hi \"there\""}]}' \
	'{"type":"trace","id":"r2","t_s":0.01,"input_tokens":7,"output_tokens":3,"cache_key":"doc-2","prompt":"plain prompt"}' \
	'{"type":"trace","id":"deny","t_s":0.02,"input_tokens":7,"output_tokens":3}' >trace.ndjson

test_expect_success 'replay with GP_API_KEY, key header, -H, receipts from id, backend header' '
	GP_API_KEY=$KEY gp-replay --url $URL --model m --key-header X-Cache-Key -H "X-Extra: yes" \
		--receipt-from id --backend-header X-Backend --progress trace.ndjson >run.ndjson 2>err &&
	sel ".type == \"run_end\"" run.ndjson | all_of ".attempted == 3 and .ok == 2 and .by_error.http_status == 1"
'
test_expect_success 'the server got Authorization: Bearer KEY, the ids, the cache key and -H' '
	sel ".id == \"r1\"" seen.ndjson | all_of ".auth == \"Bearer $KEY\" and .key == \"doc-1\" and .extra == \"yes\" and .path == \"/v1/chat/completions\"" &&
	sel ".id == \"deny\"" seen.ndjson | all_of ".key == null"
'
test_expect_success 'every request declares a JSON body and asks for an event stream' '
	all_of ".ct == \"application/json\" and .accept == \"text/event-stream\"" <seen.ndjson
'
test_expect_success 'the request body asks for exactly output_tokens, streamed with usage' '
	sel ".id == \"r1\"" seen.ndjson | all_of ".body.max_tokens == 5 and .body.min_tokens == 5 and .body.ignore_eos == true and
		.body.stream == true and .body.stream_options.include_usage == true and .body.model == \"m\" and
		.body.messages[0].content == \"hi \\\"there\\\"\"" &&
	sel ".id == \"r2\"" seen.ndjson | all_of ".body.messages == [{\"role\":\"user\",\"content\":\"plain prompt\"}]"
'
test_expect_success 'the API key is in no output, no stderr, no error detail' '
	! grep -r SECRET123 run.ndjson err &&
	sel ".id == \"deny\"" run.ndjson | all_of ".http_status == 401 and (.error_detail | test(\"bad key\")) and (.error_detail | test(\"\\n\") | not)"
'
test_expect_success 'OPENAI_API_KEY is used when GP_API_KEY is unset, and kept secret' '
	: >seen.ndjson &&
	env -u GP_API_KEY OPENAI_API_KEY=sk-other-SECRET456 gp-replay --url $URL --model m --max-requests 1 trace.ndjson >run2.ndjson 2>err2 &&
	sel ".id == \"r1\"" seen.ndjson | all_of ".auth == \"Bearer sk-other-SECRET456\"" &&
	! grep -r SECRET456 run2.ndjson err2
'
test_expect_success '--api-key-file: the key from the file wins over the environment, kept secret' '
	: >seen.ndjson &&
	printf "file-FILEKEY789\n" >key.txt &&
	GP_API_KEY=env-ENVKEY gp-replay --url $URL --model m --api-key-file key.txt --max-requests 1 trace.ndjson >run5.ndjson 2>err5 &&
	sel ".id == \"r1\"" seen.ndjson | all_of ".auth == \"Bearer file-FILEKEY789\"" &&
	! grep -r FILEKEY789 run5.ndjson err5 &&
	sel ".type == \"run\"" run5.ndjson | all_of ".api_key == true"
'
test_expect_code 2 'an unreadable --api-key-file is a usage error that does not print a key' '
	gp-replay --url $URL --model m --api-key-file no-such.key trace.ndjson >/dev/null 2>err6; rc=$?
	grep -q "no-such.key" err6 && exit $rc
'
test_expect_success 'receipt from the completion id, split into prefill and decode; backend header' '
	sel ".type == \"request\" and .id == \"r1\"" run.ndjson | all_of "
		.receipt == \"chatcmpl-___prefill_addr_10.0.0.1:8000___decode_addr_10.0.0.2:8001_r1\" and
		.prefill == \"10.0.0.1:8000\" and .decode == \"10.0.0.2:8001\" and .backend == \"b7\""
'
test_expect_success 'CRLF events in 7-byte chunks: reasoning_content is the first token, usage counts' '
	sel ".type == \"request\" and .id == \"r1\"" run.ndjson | all_of ".outcome == \"ok\" and .out_tokens == 5 and
		.tokens_from == \"usage\" and .in_tokens == 9 and .ttft_ms > 0"
'
test_expect_success 'the run header lists -H names, never their values' '
	sel ".type == \"run\"" run.ndjson | all_of ".headers == [\"X-Extra\"] and .api_key == true" &&
	! grep -q "yes" run.ndjson
'
test_expect_success '--progress writes to stderr only' '
	grep -q "offered" err && ! grep -q offered run.ndjson
'
test_expect_success 'completions API: messages become the prompt; --no-ignore-eos' '
	: >seen.ndjson &&
	gp-replay --url $URL --model m --api completions --no-ignore-eos --max-requests 1 trace.ndjson >run3.ndjson &&
	sel ".id == \"r1\"" seen.ndjson | all_of ".path == \"/v1/completions\" and .body.prompt == \"hi \\\"there\\\"\" and
		(.body | has(\"ignore_eos\") | not) and (.body | has(\"min_tokens\") | not) and .body.max_tokens == 5"
'
printf '%s\n' '{"type":"trace","id":"slow","t_s":0,"input_tokens":4,"output_tokens":3,"prompt":"a b c d"}' \
	'{"type":"trace","id":"nousage","t_s":0.01,"input_tokens":4,"output_tokens":6,"prompt":"a b c d"}' \
	'{"type":"trace","id":"p1","t_s":0.02,"input_tokens":12,"output_tokens":2,"hash_ids":[1,2,3]}' \
	'{"type":"trace","id":"p2","t_s":0.03,"input_tokens":12,"output_tokens":2,"hash_ids":[1,2,8]}' \
	'{"type":"trace","id":"p3","t_s":0.04,"input_tokens":12,"output_tokens":2,"hash_ids":[5,2,3]}' >more.ndjson
test_expect_success 'a second trace: TTFT timing, no usage chunk, synthesized prompts' '
	: >seen.ndjson &&
	gp-replay --url $URL --model m --block-tokens 4 more.ndjson >run4.ndjson &&
	sel ".type == \"run_end\"" run4.ndjson | all_of ".attempted == 5 and .ok == 5"
'
test_expect_success 'TTFT is the first content-bearing event, not the role chunk' '
	sel ".type == \"request\" and .id == \"slow\"" run4.ndjson | all_of ".ttft_ms >= 150 and .ttft_ms < 1000"
'
test_expect_success 'without a usage chunk, out_tokens counts content events (tokens_from chunks)' '
	sel ".type == \"request\" and .id == \"nousage\"" run4.ndjson | all_of ".out_tokens == 6 and .tokens_from == \"chunks\" and
		.outcome == \"ok\" and .in_tokens == 4 and ((.tpot_ms - (.e2e_ms - .ttft_ms) / 5) | fabs) < 0.001"
'
# sent_words ID W: words W of the prompt of record ID as the server received it
sent_words() { sel ".id == \"$1\"" seen.ndjson | jq -r ".body.messages[0].content" | tr " " "\n" | sed -n "$2p" | tr "\n" " "; }
test_expect_success 'synthesized prompts: input_tokens words, shared leading hash_ids = identical prefix' '
	test "$(sent_words p1 1,99 | wc -w)" = 12 &&
	test "$(sent_words p1 1,8)" = "$(sent_words p2 1,8)" &&
	test "$(sent_words p1 9,12)" != "$(sent_words p2 9,12)" &&
	test "$(sent_words p1 1,4)" != "$(sent_words p3 1,4)"
'
test_expect_success 'synthesized prompts are deterministic (the same bytes on a second run)' '
	sel ".id == \"p1\"" seen.ndjson | jq -r ".body.messages[0].content" >w1 &&
	: >seen.ndjson &&
	gp-replay --url $URL --model m --block-tokens 4 --max-requests 3 more.ndjson >/dev/null &&
	sel ".id == \"p1\"" seen.ndjson | jq -r ".body.messages[0].content" >w2 &&
	test -s w1 && cmp w1 w2
'
test_done
