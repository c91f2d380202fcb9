#!/bin/sh
# Bad input, table-driven: every tool and every input it reads (traces, CSV
# traces, request records, fleet files, protocol files, capacity records):
# malformed JSON, wrong types, missing fields, truncated gzip, binary
# garbage, empty input, duplicate ids, a 20 MiB line, CR/LF in header names
# and values → the documented exit (65 for bad data), a message that names
# file:line and the field, and whatever reached stdout before the error is
# whole NDJSON.  Malformed Prometheus text from a /metrics endpoint, against
# every tool that scrapes.  Then output errors (doc/conventions.md): /dev/full
# is an error (74, "No space left"), a closed pipe a quiet 1, never a silent 0.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
for t in replay health probe calibrate trace analyze verify report sim; do
	test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"
done

# ---- the inputs ----
G='{"type":"trace","id":"a","t_s":0,"input_tokens":5,"output_tokens":3}'
printf '%s\n{"type":"trace","id":"b",\n' "$G" >malformed.ndjson
printf '%s\n{"type":"trace","id":"b","t_s":0.1,"input_tokens":"x","output_tokens":3}\n' "$G" >wrongtype.ndjson
printf '%s\n{"type":"trace","t_s":0.1,"input_tokens":4,"output_tokens":3}\n' "$G" >missing.ndjson
printf '%s\n%s\n' "$G" "$G" >dup.ndjson
: >empty.ndjson
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", 128 + int(rand() * 127) }' >garbage.ndjson
for i in 1 2 3 4 5 6 7 8 9; do echo "$G" | sed "s/\"a\"/\"a$i\"/"; done | gzip >full.gz
head -c 60 full.gz >trunc.ndjson.gz
{ echo "$G"; printf '{"type":"trace","id":"big","t_s":1,"input_tokens":3,"output_tokens":3,"prompt":"'
  head -c $((20 << 20)) /dev/zero | tr '\0' x; echo; } >big.ndjson	# 20 MiB, its string never closed
printf '{"type":"trace","id":"k","t_s":0,"input_tokens":5,"output_tokens":3,"cache_key":"a\\r\\nX-Evil: 1"}\n' >crlf.ndjson
printf '{"type":"trace","id":"a\\r\\nX: 1","t_s":0,"input_tokens":5,"output_tokens":3}\n' >crlf-id.ndjson
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,abc,107\n' >azure-bad.csv
printf 'TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,374\n' >azure-nocol.csv
R='{"type":"request","run":"r","arm":"a","rep":1,"rate_rps":1,"id":"q","outcome":"ok","ttft_ms":1,"tpot_ms":1}'
printf '%s\n{"type":"request","run":"r","arm":"a","rep":1,"rate_rps":1,"id":"q2","outcome":"ok","ttft_ms":"slow","tpot_ms":1}\n' "$R" >rec-wrongtype.ndjson
F='{"model":"m","vips":[{"name":"v","url":"http://127.0.0.1:1"}],"backends":[{"name":"b","url":"http://127.0.0.1:2"}],"arms":[{"name":"rr"}]'
echo "$F,\"backend_header\":\"X-A\\r\\nX-Evil: 1\"}" >fleet-crlf.json
echo "$F,\"key_header\":\"x key\"}" >fleet-space.json
echo "$F}" | sed 's/"model":"m"/"model":7/' >fleet-wrongtype.json
echo '{"model":"m","vips":[{"name":"v"}],"backends":[]}' >fleet-missing.json
printf '{"model":"m",\n"vips":[\n' >fleet-malformed.json
echo "$F}" | sed 's/"name":"b"/"name":"v"/' >fleet-ok.json
echo '{"ramp":"x"}' >proto-wrongtype.json
echo '{"ramp":1.5,"rampp":2}' >proto-unknown.json
printf '{"ramp":\n' >proto-malformed.json

# case TOOL... | INPUT | EXIT | STDERR-PATTERN (ERE); INPUT is substituted for @
cat >cases <<'EOT'
gp-replay --url http://127.0.0.1:1 --model m @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-replay --url http://127.0.0.1:1 --model m @|wrongtype.ndjson|65|wrongtype.ndjson:2: field 'input_tokens' is not an integer
gp-replay --url http://127.0.0.1:1 --model m @|missing.ndjson|65|missing.ndjson:2: field 'id' is missing
gp-replay --url http://127.0.0.1:1 --model m @|dup.ndjson|65|dup.ndjson:2: field 'id': 'a' is not unique
gp-replay --url http://127.0.0.1:1 --model m @|empty.ndjson|65|empty.ndjson: the trace holds no record
gp-replay --url http://127.0.0.1:1 --model m @|garbage.ndjson|65|garbage.ndjson:1: not valid JSON
gp-replay --url http://127.0.0.1:1 --model m @|trunc.ndjson.gz|65|trunc.ndjson.gz: .*corrupt gzip
gp-replay --url http://127.0.0.1:1 --model m @|big.ndjson|65|big.ndjson:2: not valid JSON
gp-replay --url http://127.0.0.1:1 --model m --key-header x-k @|crlf.ndjson|65|crlf.ndjson:1: field 'cache_key' holds a control character
gp-replay --url http://127.0.0.1:1 --model m @|crlf-id.ndjson|65|crlf-id.ndjson:1: field 'id' holds a control character
gp-replay --url http://127.0.0.1:1 --model m -H X-A:b%0d%0aX-Evil:1 @|empty.ndjson|2|-H
gp-trace stats @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-trace stats @|wrongtype.ndjson|65|wrongtype.ndjson:2: field 'input_tokens' is not an integer
gp-trace stats @|missing.ndjson|65|missing.ndjson:2: field 'id' is missing
gp-trace stats @|garbage.ndjson|65|garbage.ndjson:1: not valid JSON
gp-trace stats @|trunc.ndjson.gz|65|trunc.ndjson.gz: .*corrupt gzip
gp-trace stats @|big.ndjson|65|big.ndjson:2: not valid JSON
gp-trace prompt @|wrongtype.ndjson|65|wrongtype.ndjson:2: field 'input_tokens'
gp-trace from-azure @|azure-bad.csv|65|azure-bad.csv:3: field 'ContextTokens' is not an integer
gp-trace from-azure @|azure-nocol.csv|65|azure-nocol.csv:1: .*GeneratedTokens
gp-trace from-azure @|garbage.ndjson|65|garbage.ndjson:1:
gp-trace from-burstgpt @|azure-bad.csv|65|azure-bad.csv:1:
gp-trace from-mooncake @|wrongtype.ndjson|65|wrongtype.ndjson:1:
gp-analyze --ttft-slo-ms 9 --tpot-slo-ms 9 @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-analyze --ttft-slo-ms 9 --tpot-slo-ms 9 --no-validity @|rec-wrongtype.ndjson|65|rec-wrongtype.ndjson:2: .*ttft_ms
gp-analyze --ttft-slo-ms 9 --tpot-slo-ms 9 @|garbage.ndjson|65|garbage.ndjson:1: not valid JSON
gp-analyze --ttft-slo-ms 9 --tpot-slo-ms 9 @|trunc.ndjson.gz|65|trunc.ndjson.gz: .*gzip
gp-analyze --ttft-slo-ms 9 --tpot-slo-ms 9 @|big.ndjson|65|big.ndjson:2: not valid JSON
gp-verify validity @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-verify validity @|rec-wrongtype.ndjson|65|rec-wrongtype.ndjson:2: .*ttft_ms
gp-verify validity @|garbage.ndjson|65|garbage.ndjson:1: not valid JSON
gp-verify validity @|trunc.ndjson.gz|65|trunc.ndjson.gz: .*gzip
gp-report -o rep @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-report -o rep @|garbage.ndjson|65|garbage.ndjson:1: not valid JSON
gp-report -o rep @|trunc.ndjson.gz|65|trunc.ndjson.gz: .*gzip
gp-health --fleet @|fleet-crlf.json|65|fleet-crlf.json: field 'backend_header' is not a header name
gp-health --fleet @|fleet-space.json|65|fleet-space.json: field 'key_header' is not a header name
gp-health --fleet @|fleet-wrongtype.json|65|fleet-wrongtype.json: field 'model' is not a string
gp-health --fleet @|fleet-missing.json|65|fleet-missing.json: field 'vips\[0\]\.url' is missing
gp-health --fleet @|fleet-malformed.json|65|fleet-malformed.json: line 3
gp-health --fleet @|garbage.ndjson|65|garbage.ndjson: line 1
gp-health --fleet @|empty.ndjson|65|empty.ndjson: line 1
gp-probe --arm rr --fleet @|fleet-crlf.json|65|fleet-crlf.json: field 'backend_header' is not a header name
gp-probe --arm rr --fleet @|fleet-malformed.json|65|fleet-malformed.json: line 3
gp-calibrate --endpoint b --role decode --fleet @|fleet-crlf.json|65|fleet-crlf.json: field 'backend_header' is not a header name
gp-calibrate check --fleet fleet-ok.json @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
gp-calibrate protocol --protocol @|proto-wrongtype.json|65|proto-wrongtype.json: field 'ramp': is not a number
gp-calibrate protocol --protocol @|proto-unknown.json|65|proto-unknown.json: field 'rampp': not a protocol field
gp-calibrate protocol --protocol @|proto-malformed.json|65|proto-malformed.json:2: 
gp-calibrate protocol --protocol @|garbage.ndjson|65|garbage.ndjson:
gp-calibrate ladder --trace @|malformed.ndjson|65|malformed.ndjson:2: not valid JSON
EOT

# one LINE: run the case; check exit, message, and that stdout is whole NDJSON.
one() {
	_cmd=${1%%|*} _r=${1#*|}
	_in=${_r%%|*} _r=${_r#*|}
	_x=${_r%%|*} _pat=${_r#*|}
	_cmd=$(echo "$_cmd" | sed "s|@|$_in|; s|%0d%0a|$(printf '\r\n')|")
	eval "$_cmd" >out 2>err </dev/null
	_rc=$?
	test $_rc = "$_x" || { echo "exit $_rc, want $_x: $_cmd"; cat err; return 1; }
	grep -Eq -- "$_pat" err || { echo "stderr does not match /$_pat/: $_cmd"; cat err; return 1; }
	test ! -s out || { tail -c 1 out | od -An -c | grep -q '\\n' && jq -c . out >/dev/null; } ||
		{ echo "stdout is not whole NDJSON: $_cmd"; return 1; }
}
while IFS= read -r c; do
	test_expect_success "${c%%|*} <- $(echo "$c" | cut -d'|' -f2)" "one '$(echo "$c" | sed "s/'/'\\\\''/g")'"
done <cases

# ---- malformed Prometheus text from a /metrics endpoint ----
# tests/fixtures/badserver.py prom serves a good stream and, at /KIND/metrics,
# bad text.  Every scraping tool refuses the page whole (doc/records.md,
# metrics): a message naming the URL and the line (or the series), the check
# failed or the scrape recorded as failed with samples {}, never a crash and
# never some of the page's samples passed off as the whole.
if test -x /usr/bin/python3; then
	PP=$(free_port_range 1)
	/usr/bin/python3 "$GP_TOP/tests/fixtures/badserver.py" prom "$PP" >/dev/null 2>>bad.log &
	cleanup_pid $!
	wait_port "$PP" || fail_all "badserver prom did not start"
	U=http://127.0.0.1:$PP
	# gp-probe's VIP: gp-sim, slow enough that the burst spans some samples
	start_sim --model m --decode-ms 25 || fail_all "gp-sim"
	V=http://127.0.0.1:$SIM_PORT
	echo "$G" >one.ndjson
	# kind|reason (ERE), as every tool says it after the URL
	cat >prom-cases <<-'EOT'
	badline|invalid_text: line 2 is not Prometheus text
	badvalue|invalid_text: line 1 is not Prometheus text
	truncated|invalid_text: line 2 ends without a newline: truncated
	binary|invalid_text: line 1 is not Prometheus text
	huge|the body is over 16777216 bytes
	dup|invalid_text: duplicate series vllm:num_requests_running
	EOT
	while IFS='|' read -r k why; do
		M=$U/$k/metrics
		jq -n --arg u "$U" --arg m "$M" --arg v "$V" '{model:"m",
			vips:[{name:"vip",url:$v}],
			backends:[{name:"b1",url:$u,metrics_url:$m}],
			inflight_metrics:["vllm:num_requests_running","vllm:num_requests_waiting"],
			arms:[{name:"rr",expect:"spread",mode_cmd:"echo rr",mode_regex:"^rr$"}]}' >prom-$k.json
		jq '.vips[0].url = "http://127.0.0.1:1"' prom-$k.json >promcal-$k.json
		test_expect_success "prometheus $k: gp-health -> metrics check failed naming URL and reason, exit 1" "
			gp-health --fleet prom-$k.json >ph-$k 2>phe-$k; test \$? = 1 &&
			grep -Eq 'not ready: metrics $M: scrape failed: $why' phe-$k &&
			jq -s -e 'map(select(.check == \"metrics\")) | length == 1 and .[0].ok == false' ph-$k >/dev/null &&
			jq -s -e 'map(select(.type == \"health_summary\"))[0] | .checks == 3 and .failed == 1' ph-$k >/dev/null"
		test_expect_success "prometheus $k: gp-probe -> failed snapshots and samples, not engaged, exit 1" "
			gp-probe --fleet prom-$k.json --arm rr --requests 4 --concurrency 2 --interval-ms 50 \
				--max-tokens 4 >pp-$k 2>ppe-$k; test \$? = 1 &&
			grep -Eq 'scrape $M: $why' ppe-$k &&
			jq -s -e '(map(select(.type == \"metrics\")) | length == 2 and
				 all(.[]; .samples == {} and .error != null)) and
				(map(select(.type == \"probe_sample\")) | length >= 1 and
				 all(.[]; .peak_to_mean == null and .error == \"scrape failed\")) and
				(map(select(.type == \"probe_sample\")) | length) as \$n |
				(map(select(.type == \"probe\"))[0] | .engaged == false and .n_samples == 0 and
				 .sample_errors == \$n and .requests == 4 and .ok == 4)' pp-$k >/dev/null &&
			grep -q 'scrapes failed' ppe-$k"
		test_expect_success "prometheus $k: gp-calibrate -> exit 69 before the sweep, naming URL and reason" "
			gp-calibrate --fleet promcal-$k.json --endpoint b1 --role decode --warmup-s 0 --hold-s 0.3 \
				--hold-requests 1 --max-steps 3 >pc-$k 2>pce-$k; test \$? = 69 && test ! -s pc-$k &&
			grep -Eq 'metrics $M of $U: $why' pce-$k"
		test_expect_success "prometheus $k: gp-replay --scrape -> metrics records failed, the run goes on, exit 0" "
			gp-replay --url $U --model m --scrape $M one.ndjson >pr-$k 2>pre-$k &&
			grep -Eq 'scrape $M: $why' pre-$k &&
			jq -s -e '(map(select(.type == \"metrics\")) | length == 2 and
				 all(.[]; .samples == {} and .error != null and .phase != null)) and
				(map(select(.type == \"run_end\"))[0].ok == 1)' pr-$k >/dev/null"
	done <prom-cases
else
	test_expect_success 'malformed Prometheus text (no /usr/bin/python3: share/packages)' 'false'
fi

# ---- output errors ----
gp-trace synth --requests 20 --seed 1 >t20.ndjson
for c in "gp-trace synth --requests 200000" "gp-trace stats t20.ndjson" "gp-calibrate protocol" \
	 "gp-sim --help" "gp-replay --help" "gp-health --version" "gp-trace prompt t20.ndjson"; do
	test_expect_success "$c >/dev/full: exit 74 with a message" "
		$c >/dev/full 2>err; rc=\$?; test \$rc = 74 && grep -q 'No space left' err"
done
test_expect_success 'gp-trace synth into a closed pipe: a quiet 1, not a silent 0' '
	gp-trace synth --requests 200000 2>err | head -1 >/dev/null; rc=${PIPESTATUS[0]}
	test $rc = 1 && test ! -s err
'
test_expect_success 'gp-trace prompt into a closed pipe: a quiet 1, not a silent 0' '
	gp-trace synth --requests 20000 >t2k.ndjson && gp-trace prompt t2k.ndjson 2>err | head -1 >/dev/null
	rc=${PIPESTATUS[0]}; test $rc = 1 && test ! -s err
'
test_done
