#!/bin/sh
# gp-verify's fast paths against their references, byte for byte:
#  - validity reads flat request records through io/flat and anything else
#    through jansson (GP_VERIFY_SLOW=1 forces jansson): same output, same
#    refusals worded alike;
#  - publish flattens the records for the awk integrity scripts with
#    io/flatten, not jq (--jq jq forces jq): same flattened rows (the
#    scripts' output is the same) on every record type, and a record only jq
#    prints alike (an object in a column) goes to jq after all.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
command -v jq >/dev/null || skip_all 'jq is not installed'

# Requests in many spellings: spaces, key order, escapes and UTF-8, integral
# reals, exponents, nested extras, repeated keys, nulls, CRLF, huge numbers.
cat >in <<'EOT'
{"type":"run","run":"a1","arm":"a","rep":1,"rate_rps":2,"started_at":"2025-01-01T00:00:00Z","deadline_s":60}
{"type":"request","run":"a1","arm":"a","rate_rps":2,"rep":1,"id":"x1","ttft_ms":120.5,"tpot_ms":12,"outcome":"ok","error":null,"http_status":200}
 { "type" : "request" , "arm" : "a" , "rate_rps" : 2.0 , "rep" : 1 , "outcome" : "ok" , "ttft_ms" : 1.25e2 , "tpot_ms" : 1.1E1 , "run" : "a1" }
{"outcome":"single_token","ttft_ms":90,"tpot_ms":null,"rep":1,"rate_rps":2,"arm":"a","type":"request","run":"a1"}
{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"failed","ttft_ms":null,"error":"timeout","error_detail":"backend timed out","http_status":504,"run":"a1","extra":{"nested":[1,2]}}
{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"failed","error":"http_status","http_status":504.0,"run":"a1"}
{"type":"request","arm":"a","rate_rps":2,"rep":2.0,"outcome":"ok","ttft_ms":400,"tpot_ms":5,"run":"a2"}
{"type":"request","arm":"a","rate_rps":2,"rep":2,"outcome":"ok","ttft_ms":100,"tpot_ms":50,"tpot_ms":5,"run":"a2"}
{"type":"request","arm":"b\"q","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":100,"tpot_ms":5,"run":"b1"}
{"type":"request","arm":"ç","rate_rps":4,"rep":1,"outcome":"failed","error":"hang","ttft_ms":3,"run":"c1","flag":true}
{"type":"request","arm":"a","rate_rps":-0,"rep":3,"outcome":"ok","ttft_ms":0,"tpot_ms":-0.0,"run":"a3","error_detail":null}
{"type":"request","arm":"a","rate_rps":4,"rep":1,"outcome":"failed","error":"invalid_framing","run":"a4"}
{"type":"run_end","run":"a1","arm":"a","rate_rps":2,"rep":1,"attempted":5,"ended_at":"2025-01-01T00:10:00Z"}
{"type":"run_end","run":"a4","attempted":1}
{"type":"something_else","arm":"zzz"}
EOT
printf '{"type":"request","arm":"a","rate_rps":4,"rep":2,"outcome":"ok","ttft_ms":10,"tpot_ms":3,"run":"a4b"}\r\n' >>in

test_expect_success 'validity: fast and jansson paths give byte-identical output' '
	{ gp-verify validity in >fast 2>efast; r1=$?; } ;
	{ GP_VERIFY_SLOW=1 gp-verify validity in >slow 2>eslow; r2=$?; } ;
	test $r1 = $r2 && cmp fast slow && cmp efast eslow &&
	test $(grep -c "\"type\":\"request\"" fast) -ge 4
'
test_expect_success 'validity: both paths alike on the fixture runs' '
	gp-verify validity "$D/runs.ndjson" >fast && GP_VERIFY_SLOW=1 gp-verify validity "$D/runs.ndjson" >slow &&
	cmp fast slow
'
for bad in \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"fine"}' \
	'{"type":"request","arm":"a","rate_rps":"2","rep":1,"outcome":"ok"}' \
	'{"type":"request","arm":"a","rate_rps":-2,"rep":1,"outcome":"ok"}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1.5,"outcome":"ok"}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":"1"}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","http_status":"200"}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","error":7}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","run":false}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","x":-2e999}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","x":123456789012345678901234}' \
	'{"type":"request","arm":7,"rate_rps":2,"rep":1,"outcome":"ok"}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok",}'
do
	printf '%s\n' "$bad" >bad
	test_expect_success "validity: same refusal on both paths: $(printf '%s' "$bad" | cut -c 40-)" '
		{ gp-verify validity bad >/dev/null 2>e1; r1=$?; } ;
		{ GP_VERIFY_SLOW=1 gp-verify validity bad >/dev/null 2>e2; r2=$?; } ;
		test $r1 = 65 && test $r2 = 65 && cmp e1 e2 && grep -q "bad:1:" e1
	'
done

# publish: the built-in flattener against jq, on the fixture pipeline.
A="--ttft-slo-ms 300 --tpot-slo-ms 35 --floor rr --resamples 500 --accelerators 2"
gp-verify validity "$D/runs.ndjson" 2>/dev/null | gp-analyze --pass $A >an 2>/dev/null
for AWK in mawk gawk; do
	command -v $AWK >/dev/null || continue
	test_expect_success "[$AWK] publish: io/flatten and jq give byte-identical output" '
		{ gp-verify publish --awk $AWK --fleet "$D/fleet.json" an >p1 2>e1; r1=$?; } ;
		{ gp-verify publish --awk $AWK --jq jq --fleet "$D/fleet.json" an >p2 2>e2; r2=$?; } ;
		test $r1 = $r2 && cmp p1 p2 && cmp e1 e2 &&
		test $(grep -c "\"type\":\"integrity\"" p1) = 8
	'
done
# Tampered records (a wrong count, strings with tabs and backslashes, a
# boolean, an object where a number is): the same integrity verdicts.
jq -c "if .type == \"goodfrac\" and .rep == 1 then .good += 1 | .arm |= . + \"\\t\\\\x\" else . end |
	if .type == \"run\" then .deadline_s = true else . end" an >tamper
jq -c "if .type == \"request\" then .e2e_ms = {\"v\": 1} else . end" an >nested
for f in tamper nested; do
	test_expect_success "publish: $f records: io/flatten and jq give byte-identical output" '
		{ gp-verify publish --awk mawk $f >p1 2>e1; r1=$?; } ;
		{ gp-verify publish --awk mawk --jq jq $f >p2 2>e2; r2=$?; } ;
		test $r1 = $r2 && cmp p1 p2 && cmp e1 e2
	'
done
test_done
