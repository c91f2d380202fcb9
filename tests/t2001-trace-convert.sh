#!/bin/sh
# gp-trace from-mooncake / from-azure / from-burstgpt on committed slices of the
# real public traces (tests/data/traces, see its README for source, licence and
# citation), gzip input, bad rows (exit 65 naming file:line:field), and — when
# the shared folder with the full files exists — row counts on the full files.
. "$(dirname "$0")/lib.sh"

command -v gp-trace >/dev/null || skip_all "gp-trace not built"
command -v jq >/dev/null || skip_all "jq missing"

D=$GP_TOP/tests/data/traces
MC=$D/mooncake/conversation_trace_first200.jsonl
MS=$D/mooncake/synthetic_trace_first200.jsonl
AZ=$D/azure-llm-2023/AzureLLMInferenceTrace_code_first200.csv
AZL=$D/azure-llm-2023/AzureLLMInferenceTrace_code_header_last50.csv
AC=$D/azure-llm-2023/AzureLLMInferenceTrace_conv_first200.csv
B1=$D/burstgpt/BurstGPT_1_first400.csv
B3=$D/burstgpt/BurstGPT_3_first400.csv
CRLF=$(printf '\r')

test_expect_success 'the committed slices match their SHA256SUMS' '
	(cd "$D" && sha256sum -c --quiet SHA256SUMS)
'

# ---------------------------------------------------------------- Mooncake
test_expect_success 'from-mooncake: first rows exactly' '
	gp-trace from-mooncake "$MC" >mc.ndjson &&
	head -2 mc.ndjson >got &&
	cat >want <<-\EOF &&
	{"type":"trace","id":"mc1","t_s":0.0,"input_tokens":6758,"output_tokens":500,"cache_key":"mc-0-1","hash_ids":[0,1,2,3,4,5,6,7,8,9,10,11,12,13]}
	{"type":"trace","id":"mc2","t_s":0.0,"input_tokens":7322,"output_tokens":490,"cache_key":"mc-0-14","hash_ids":[0,14,15,16,17,18,19,20,21,22,23,24,25,26,27]}
	EOF
	cmp got want
'

test_expect_success 'from-mooncake: every row kept; fields equal the source (ms -> s)' '
	test $(wc -l <mc.ndjson) = 200 &&
	jq -c "[.timestamp/1000, .input_length, .output_length, .hash_ids]" "$MC" >src &&
	jq -c "[.t_s, .input_tokens, .output_tokens, .hash_ids]" mc.ndjson >dst &&
	cmp src dst &&
	tail -1 mc.ndjson | grep -q "^{\"type\":\"trace\",\"id\":\"mc200\",\"t_s\":72.0,\"input_tokens\":19978,"
'

test_expect_success 'from-mooncake: synthetic trace, --key-blocks 1 and 0' '
	gp-trace from-mooncake --key-blocks 1 "$MS" >ms.ndjson &&
	test $(wc -l <ms.ndjson) = 200 &&
	sed -n 3p ms.ndjson | jq -e ".id == \"mc3\" and .t_s == 0.04 and .input_tokens == 23769
		and .output_tokens == 3 and .cache_key == \"mc-151\" and .hash_ids[0] == 151" >/dev/null &&
	gp-trace from-mooncake --key-blocks 0 "$MS" | jq -e -s "all(.[]; has(\"cache_key\")|not)" >/dev/null
'

test_expect_success 'from-mooncake: gzip input gives the same records; stdin works' '
	gzip -c "$MC" >mc.jsonl.gz &&
	gp-trace from-mooncake mc.jsonl.gz | cmp - mc.ndjson &&
	gp-trace from-mooncake <mc.jsonl.gz | cmp - mc.ndjson
'

test_expect_success 'from-mooncake: output validates as trace records (stats reads it)' '
	gp-trace stats mc.ndjson | jq -e ".requests == 200 and .duplicate_ids == 0 and .sorted" >/dev/null
'

# ------------------------------------------------------------------- Azure
test_expect_success 'from-azure: first rows exactly (CRLF source)' '
	gp-trace from-azure "$AZ" >az.ndjson &&
	head -3 az.ndjson >got &&
	cat >want <<-\EOF &&
	{"type":"trace","id":"az2","t_s":0.0,"input_tokens":4808,"output_tokens":10}
	{"type":"trace","id":"az3","t_s":0.052,"input_tokens":3180,"output_tokens":8}
	{"type":"trace","id":"az4","t_s":0.098189,"input_tokens":110,"output_tokens":27}
	EOF
	cmp got want &&
	test $(wc -l <az.ndjson) = 200 &&
	tail -1 az.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"az201\",\"t_s\":199.089585,\"input_tokens\":65,\"output_tokens\":10}"
'

test_expect_success 'from-azure: t_s of every row equals an independent awk re-derivation' '
	awk -F, "NR > 1 { sub(/\r\$/, \"\"); split(\$1, a, /[ :]/); t = a[2]*3600 + a[3]*60 + a[4];
		if (NR == 2) t0 = t; printf \"%.6f %d %d\n\", t - t0, \$2, \$3 }" "$AZ" >src &&
	jq -r "\"\(.t_s) \(.input_tokens) \(.output_tokens)\"" az.ndjson |
		awk "{ printf \"%.6f %d %d\n\", \$1, \$2, \$3 }" >dst &&
	cmp src dst
'

test_expect_success 'from-azure: the last rows, without a final newline' '
	test "$(tail -c 1 "$AZL" | od -An -c | tr -d " ")" = 3 &&
	gp-trace from-azure "$AZL" >azl.ndjson &&
	test $(wc -l <azl.ndjson) = 50 &&
	head -1 azl.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"az2\",\"t_s\":0.0,\"input_tokens\":3502,\"output_tokens\":88}" &&
	tail -1 azl.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"az51\",\"t_s\":5.90102,\"input_tokens\":549,\"output_tokens\":173}"
'

test_expect_success 'from-azure: the conversation file' '
	gp-trace from-azure "$AC" >ac.ndjson &&
	test $(wc -l <ac.ndjson) = 200 &&
	sed -n 2p ac.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"az3\",\"t_s\":4.314579,\"input_tokens\":396,\"output_tokens\":109}"
'

test_expect_success 'from-azure: exact to 100 ns across midnight, month end and a leap day' '
	printf "TIMESTAMP,ContextTokens,GeneratedTokens\r\n" >t.csv &&
	printf "2023-12-31 23:59:59.9999999,5,6\r\n" >>t.csv &&
	printf "2024-01-01 00:00:00.0000001,7,8\r\n" >>t.csv &&
	printf "2024-01-01 01:00:00.1234567,7,8\r\n" >>t.csv &&
	printf "2024-02-29 00:00:00.0000000,7,8\r\n" >>t.csv &&
	printf "2024-03-01 00:00:00,1,1" >>t.csv &&
	gp-trace from-azure t.csv | jq -r .t_s | tr "\n" " " >ts &&
	test "$(cat ts)" = "0 2e-07 3600.1234568 5097600.0000001 5184000.0000001 "
'

test_expect_success 'from-azure: gzip input' '
	gzip -c "$AZL" >azl.csv.gz && gp-trace from-azure azl.csv.gz | cmp - azl.ndjson
'

# ---------------------------------------------------------------- BurstGPT
test_expect_success 'from-burstgpt _1 (6 columns, integer seconds): rows, skipped failures' '
	gp-trace from-burstgpt "$B1" >b1.ndjson 2>err &&
	head -2 b1.ndjson >got &&
	cat >want <<-\EOF &&
	{"type":"trace","id":"bg2","t_s":0.0,"input_tokens":472,"output_tokens":18}
	{"type":"trace","id":"bg3","t_s":40.0,"input_tokens":1087,"output_tokens":230}
	EOF
	cmp got want &&
	test $(wc -l <b1.ndjson) = 383 &&
	grep -q "skipped 17 rows with 0 tokens" err &&
	! grep -q "\"bg22\"" b1.ndjson &&
	tail -1 b1.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"bg401\",\"t_s\":37269.0,\"input_tokens\":67,\"output_tokens\":58}"
'

test_expect_success 'from-burstgpt _3 (8 columns, float seconds): Session ID is the cache_key' '
	gp-trace from-burstgpt "$B3" >b3.ndjson 2>err &&
	head -1 b3.ndjson | grep -qx "{\"type\":\"trace\",\"id\":\"bg2\",\"t_s\":0.0,\"input_tokens\":906,\"output_tokens\":446,\"cache_key\":\"1722ac82-0a46-4bf0-aa08-89794e7a2b3f\"}" &&
	grep -x "{\"type\":\"trace\",\"id\":\"bg56\",\"t_s\":14671.0,\"input_tokens\":264,\"output_tokens\":171}" b3.ndjson &&
	test $(wc -l <b3.ndjson) = 399 && grep -q "skipped 1 row with" err &&
	tail -1 b3.ndjson | jq -e ".t_s == 41453 and .id == \"bg401\"" >/dev/null
'

test_expect_success 'from-burstgpt: token counts equal an independent awk re-derivation' '
	awk -F, "NR > 1 && \$3 > 0 && \$4 > 0 { print \$1 - 5, \$3, \$4 }" "$B1" >src &&
	jq -r "\"\(.t_s) \(.input_tokens) \(.output_tokens)\"" b1.ndjson >dst &&
	cmp src dst
'

test_expect_success 'from-burstgpt: gzip input' '
	gzip -c "$B3" >b3.csv.gz && gp-trace from-burstgpt b3.csv.gz 2>/dev/null | cmp - b3.ndjson
'

# ---------------------------------------------------------------- bad rows
bad() { # name exit-code subcommand file-content regex
	printf "$4" >"bad.$1"
	test_expect_code "$2" "$3: $1 (exit $2)" "
		gp-trace $3 bad.$1 >out 2>err; rc=\$?
		cat err; grep -q '$5' err && exit \$rc
	"
}
H="TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
T1="2023-11-16 18:17:03.9799600"
T2="2023-11-16 18:17:04.0319600"
bad az-nonnumeric 65 from-azure "$H$T1,4808,10\r\n$T2,abc,8\r\n" "^gp-trace: bad.az-nonnumeric:3: field .ContextTokens. is not an integer"
bad az-missing 65 from-azure "$H$T1,4808\r\n" "^gp-trace: bad.az-missing:2: field .GeneratedTokens. is missing"
bad az-extra 65 from-azure "$H$T1,4808,1,2\r\n" "^gp-trace: bad.az-extra:2: row has 4 columns"
bad az-negative 65 from-azure "$H$T1,4808,-3\r\n" "^gp-trace: bad.az-negative:2: field .GeneratedTokens. is negative"
bad az-decreasing 65 from-azure "$H$T2,1,1\r\n$T1,1,1\r\n" "^gp-trace: bad.az-decreasing:3: field .TIMESTAMP. decreases"
bad az-time 65 from-azure "${H}2023-11-16T18:17:61,1,1\r\n" "^gp-trace: bad.az-time:2: field .TIMESTAMP. is not a time"
bad az-header 65 from-azure "TIMESTAMP,Tokens,GeneratedTokens\r\n$T1,1,1\r\n" "^gp-trace: bad.az-header:1: field .ContextTokens. is missing from the header"
bad az-empty 65 from-azure "" "^gp-trace: bad.az-empty: empty input"
bad bg-timestamp 65 from-burstgpt "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,1,1,2,x\n1e3,ChatGPT,1,1,2,x\n" "^gp-trace: bad.bg-timestamp:3: field .Timestamp. is not a number"
bad bg-negative 65 from-burstgpt "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n-5,ChatGPT,1,1,2,x\n" "^gp-trace: bad.bg-negative:2: field .Timestamp."
bad bg-tokens 65 from-burstgpt "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,1,,2,x\n" "^gp-trace: bad.bg-tokens:2: field .Response tokens. is not an integer"
bad mc-json 65 from-mooncake '{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0]}\n{"timestamp": 1, "input_length": 1,\n' "^gp-trace: bad.mc-json:2: not valid JSON"
bad mc-missing 65 from-mooncake '{"timestamp": 0, "output_length": 1, "hash_ids": [0]}\n' "^gp-trace: bad.mc-missing:1: field .input_length. is missing"
bad mc-type 65 from-mooncake '{"timestamp": "0", "input_length": 1, "output_length": 1}\n' "^gp-trace: bad.mc-type:1: field .timestamp. is not a number"
bad mc-hash 65 from-mooncake '{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0, "x"]}\n' "^gp-trace: bad.mc-hash:1: field .hash_ids. element 1 is not an integer"
bad mc-negative 65 from-mooncake '{"timestamp": 0, "input_length": -1, "output_length": 1}\n' "^gp-trace: bad.mc-negative:1: field .input_length. is negative"
bad mc-decreasing 65 from-mooncake '{"timestamp": 5, "input_length": 1, "output_length": 1}\n{"timestamp": 4, "input_length": 1, "output_length": 1}\n' "^gp-trace: bad.mc-decreasing:2: field .timestamp. decreases"

test_expect_code 65 'a missing input file is bad input (exit 65, as in every tool)' '
	gp-trace from-azure no-such-file.csv 2>err; rc=$?; grep -q "no-such-file.csv" err && exit $rc
'
test_expect_code 2 'two input files: usage error' 'gp-trace from-azure "$AZ" "$AZ" >/dev/null'
test_expect_code 2 '--key-blocks does not apply to from-azure' 'gp-trace from-azure --key-blocks 1 "$AZ" >/dev/null'
test_expect_success 'a header-only CSV converts to nothing' '
	printf "$H" >h.csv && gp-trace from-azure h.csv >o && test ! -s o
'
test_expect_code 65 'a truncated gzip input is a data error' '
	head -c 2000 mc.jsonl.gz >trunc.gz && gp-trace from-mooncake trunc.gz >/dev/null 2>err; rc=$?;
	grep -q "trunc.gz" err && exit $rc
'

# ------------------------------------------------- full files, when present
S=$GP_SHARED/traces
if [ -f "$S/mooncake/conversation_trace.jsonl" ]; then
	test_expect_success 'full files: every slice is the stated byte-exact piece' '
		n=$(wc -c <"$MC") && head -c $n "$S/mooncake/conversation_trace.jsonl" | cmp - "$MC" &&
		n=$(wc -c <"$MS") && head -c $n "$S/mooncake/synthetic_trace.jsonl" | cmp - "$MS" &&
		n=$(wc -c <"$AZ") && head -c $n "$S/azure-llm-2023/AzureLLMInferenceTrace_code.csv" | cmp - "$AZ" &&
		n=$(wc -c <"$AC") && head -c $n "$S/azure-llm-2023/AzureLLMInferenceTrace_conv.csv" | cmp - "$AC" &&
		h=$(head -1 "$AZ" | wc -c) && n=$(($(wc -c <"$AZL") - h)) &&
		tail -c $n "$S/azure-llm-2023/AzureLLMInferenceTrace_code.csv" | cmp -i 0:$h - "$AZL" &&
		head -1 "$S/azure-llm-2023/AzureLLMInferenceTrace_code.csv" | cmp - "$(head -1 "$AZL" >hdr && echo hdr)" &&
		cmp "$B1" "$S/burstgpt/BurstGPT_1_first400.csv" && cmp "$B3" "$S/burstgpt/BurstGPT_3_first400.csv"
	'
	test_expect_success 'full Mooncake conversation trace: 12031 records, last t_s' '
		gp-trace from-mooncake "$S/mooncake/conversation_trace.jsonl" >full &&
		test $(wc -l <full) = 12031 && test $(wc -l <"$S/mooncake/conversation_trace.jsonl") = 12031 &&
		test "$(tail -1 full | jq -c "[.id, .t_s]")" = "$(tail -1 "$S/mooncake/conversation_trace.jsonl" | jq -c "[\"mc12031\", .timestamp/1000]")"
	'
	test_expect_success 'full Mooncake synthetic trace: 3993 records' '
		gp-trace from-mooncake "$S/mooncake/synthetic_trace.jsonl" | wc -l | grep -qx " *3993"
	'
	test_expect_success 'full Azure code trace: 8819 records (8820 lines, no final newline)' '
		gp-trace from-azure "$S/azure-llm-2023/AzureLLMInferenceTrace_code.csv" >full &&
		test $(wc -l <full) = 8819 &&
		tail -1 full | grep -qx "{\"type\":\"trace\",\"id\":\"az8820\",\"t_s\":3435.948056,\"input_tokens\":549,\"output_tokens\":173}"
	'
	test_expect_success 'full Azure conversation trace: 19366 records' '
		gp-trace from-azure "$S/azure-llm-2023/AzureLLMInferenceTrace_conv.csv" >full &&
		test $(wc -l <full) = 19366 &&
		test "$(awk "END { print NR - 1 }" "$S/azure-llm-2023/AzureLLMInferenceTrace_conv.csv")" = 19366 &&
		tail -1 full | jq -e ".id == \"az19367\"" >/dev/null
	'
else
	say "no $S: full-file checks skipped"
fi

test_done
