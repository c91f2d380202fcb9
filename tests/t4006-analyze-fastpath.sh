#!/bin/sh
# gp-analyze reads flat request records through a fast scanner and anything
# else through jansson: both paths must accept the same records with the same
# values (byte-identical output) and word errors the same way.
# GP_ANALYZE_SLOW=1 forces the jansson path.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"

A="--no-validity --ttft-slo-ms 300 --tpot-slo-ms 30 --resamples 300 --floor a"
# Records in many spellings: spaces, key order, escapes and UTF-8 in names,
# integral reals, exponents, nested extras, repeated keys, nulls, CRLF.
cat >in <<'EOT'
{"type":"request","run":"a1","arm":"a","rate_rps":2,"rep":1,"id":"x1","t_sent_s":0,"ttft_ms":120.5,"tpot_ms":12,"outcome":"ok"}
 { "type" : "request" , "arm" : "a" , "rate_rps" : 2.0 , "rep" : 1 , "outcome" : "ok" , "ttft_ms" : 1.25e2 , "tpot_ms" : 1.1E1 , "run" : "a1" , "t_sent_s" : 3.5 }
{"outcome":"single_token","ttft_ms":90,"tpot_ms":null,"rep":1,"rate_rps":2,"arm":"a","type":"request","run":"a1"}
{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"failed","ttft_ms":null,"error":"timeout","run":"a1","extra":{"nested":[1,2,{"x":null}]}}
{"type":"request","arm":"a","rate_rps":2,"rep":2.0,"outcome":"ok","ttft_ms":400,"tpot_ms":5,"run":"a2"}
{"type":"request","arm":"a","rate_rps":2,"rep":2,"outcome":"ok","ttft_ms":100,"tpot_ms":50,"tpot_ms":5,"run":"a2"}
{"type":"request","arm":"b\"q","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":100,"tpot_ms":5,"run":"b1"}
{"type":"request","arm":"b\"q","rate_rps":2,"rep":2,"outcome":"ok","ttft_ms":310,"tpot_ms":5,"run":"b2","note":"caf\u00e9"}
{"type":"request","arm":"ç","rate_rps":4,"rep":1,"outcome":"ok","ttft_ms":100,"tpot_ms":5,"run":"c1","flag":true,"other":false}
{"type":"request","arm":"a","rate_rps":4,"rep":1,"outcome":"ok","ttft_ms":0,"tpot_ms":-0.0,"run":"a4"}
{"type":"request","arm":"a","rate_rps":4,"rep":1,"outcome":"ok","ttft_ms":250,"tpot_ms":29.999999999999996,"run":"a4"}
{"type":"request","arm":"a","rate_rps":4,"rep":1,"outcome":"ok","ttft_ms":250,"tpot_ms":30,"run":"a4","t_sent_s":1e1}
{"type":"run_end","run":"a1","arm":"a","rate_rps":2,"rep":1,"attempted":4,"duration_s":10}
{"type":"something_else","arm":"zzz"}
EOT
printf '{"type":"request","arm":"a","rate_rps":4,"rep":2,"outcome":"ok","ttft_ms":10,"tpot_ms":3,"run":"a4b"}\r\n' >>in

test_expect_success 'fast and jansson paths give byte-identical output' '
	gp-analyze $A in >fast && GP_ANALYZE_SLOW=1 gp-analyze $A in >slow && cmp fast slow &&
	test $(grep -c "\"type\":\"goodfrac\"" fast) = 7
'
for bad in \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":"2","rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1.5,"outcome":"ok","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":-1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"fine","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1} x' \
	'{"type":"request","arm":"a","rate_rps":1e999,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":123456789012345678901,"outcome":"ok","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":01,"tpot_ms":1}' \
	'{"type":"request","arm":7,"rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"failed","t_sent_s":true}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1,}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1,"x":123456789012345678901234}' \
	'{"type":"request","arm":"a","rate_rps":2,"rep":1,"outcome":"ok","ttft_ms":1,"tpot_ms":1,"x":-2e999}'
do
	printf '%s\n' "$bad" >bad
	test_expect_success "same refusal on both paths: $(printf '%s' "$bad" | cut -c 60-)" '
		{ gp-analyze $A bad >/dev/null 2>e1; r1=$?; } ;
		{ GP_ANALYZE_SLOW=1 gp-analyze $A bad >/dev/null 2>e2; r2=$?; } ;
		test $r1 = 65 && test $r2 = 65 && cmp e1 e2 && grep -q "bad:1:" e1
	'
done
test_done
