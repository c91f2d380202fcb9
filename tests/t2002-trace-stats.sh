#!/bin/sh
# gp-trace stats on a known input, its errors; gp-trace prompt (the prompts
# gp-replay would synthesize) and their shared-prefix property.
#
# Expected figures for the 5-record input below, computed with /usr/bin/python3
# (numpy.quantile, the type-7 default; numpy.std(ddof=1)/numpy.mean):
#   t_s 0,1,3,6,10 -> gaps 1,2,3,4: CV 0.5163977794943222; rate (5-1)/10 = 0.4
#   input 10,20,30,40,100: mean 40, p50 30, p90 76, p99 97.6
#   output 1,1,2,3,5: mean 2.4, p50 2, p90 4.2, p99 4.92
#   keys a,b,a,-,a: 2 keys, 4 keyed, reuse 2/5, top "a" 3/5
#   hash_ids [1,2],[1,3],[1,2,4],[],- : 7 blocks, 4 distinct, 3 seen before
. "$(dirname "$0")/lib.sh"

command -v gp-trace >/dev/null || skip_all "gp-trace not built"
command -v jq >/dev/null || skip_all "jq missing"


cat >five.ndjson <<\EOF
{"type":"trace","id":"r1","t_s":0,"input_tokens":10,"output_tokens":1,"cache_key":"a","hash_ids":[1,2]}
{"type":"trace","id":"r2","t_s":1,"input_tokens":20,"output_tokens":1,"cache_key":"b","hash_ids":[1,3]}
{"type":"trace","id":"r3","t_s":3.0,"input_tokens":30,"output_tokens":2,"cache_key":"a","hash_ids":[1,2,4]}
{"id":"r4","t_s":6,"input_tokens":40,"output_tokens":3,"hash_ids":[],"unknown_field":true}
{"type":"trace","id":"r5","t_s":10,"input_tokens":100,"output_tokens":5,"cache_key":"a","prompt":"hello"}
EOF

test_expect_success 'stats: one trace_stats record with the known figures' '
	gp-trace stats five.ndjson >s 2>err &&
	test $(wc -l <s) = 1 && test ! -s err &&
	jq -e ".type == \"trace_stats\" and .requests == 5 and .duration_s == 10 and .sorted == true
		and .keys == 2 and .keyed_requests == 4 and .top_key == \"a\"
		and .hash_blocks == 7 and .hash_blocks_distinct == 4 and .duplicate_ids == 0
		and .input_tokens.min == 10 and .input_tokens.max == 100 and .input_tokens.sum == 200
		and .output_tokens.max == 5 and .output_tokens.sum == 12" s >/dev/null &&
	near $(jq .mean_rate_rps s) 0.4 1e-12 &&
	near $(jq .interarrival_cv s) 0.5163977794943222 1e-12 &&
	near $(jq .input_tokens.mean s) 40 1e-12 && near $(jq .input_tokens.p50 s) 30 1e-12 &&
	near $(jq .input_tokens.p90 s) 76 1e-9 && near $(jq .input_tokens.p99 s) 97.6 1e-9 &&
	near $(jq .output_tokens.mean s) 2.4 1e-12 && near $(jq .output_tokens.p50 s) 2 1e-12 &&
	near $(jq .output_tokens.p90 s) 4.2 1e-9 && near $(jq .output_tokens.p99 s) 4.92 1e-9 &&
	near $(jq .key_reuse s) 0.4 1e-12 && near $(jq .top_key_share s) 0.6 1e-12 &&
	near $(jq .hash_block_reuse s) 0.42857142857142855 1e-12
'

test_expect_success 'stats: stdin, several files, gzip input' '
	gzip -c five.ndjson >five.gz &&
	gp-trace stats <five.ndjson | cmp - s &&
	gp-trace stats five.gz five.ndjson | jq -e ".requests == 10 and .duplicate_ids == 5 and .sorted == false" >/dev/null
'

test_expect_success 'stats: unsorted input still measures the gaps in time order' '
	tac five.ndjson | gp-trace stats | jq -e ".sorted == false and .duration_s == 10" >u &&
	near $(tac five.ndjson | gp-trace stats | jq .interarrival_cv) 0.5163977794943222 1e-12
'

test_expect_success 'stats: empty input gives zero requests and nulls' '
	gp-trace stats </dev/null >e &&
	jq -e ".requests == 0 and .duration_s == null and .mean_rate_rps == null
		and .input_tokens.p50 == null and .key_reuse == null" e >/dev/null
'

test_expect_success 'stats -o FILE.gz' '
	gp-trace stats -o s.gz five.ndjson && gzip -dc s.gz | cmp - s
'

for case in \
	'{"type":"trace","id":"x","t_s":-1,"input_tokens":1,"output_tokens":1}|t_s. must be >= 0' \
	'{"type":"trace","t_s":1,"input_tokens":1,"output_tokens":1}|id. is missing' \
	'{"type":"request","id":"x","t_s":1,"input_tokens":1,"output_tokens":1}|type. is .request., not .trace.' \
	'{"type":"trace","id":"x","t_s":1,"input_tokens":0,"output_tokens":1}|input_tokens. must be >= 1' \
	'{"type":"trace","id":"x","t_s":1,"input_tokens":1,"output_tokens":1,"hash_ids":[1,"a"]}|hash_ids. element 1' \
	'not json|not valid JSON'; do
	rec=${case%%|*} msg=${case#*|}
	test_expect_code 65 "stats rejects: $msg" "
		{ head -2 five.ndjson; echo '$rec'; } >bad.ndjson &&
		gp-trace stats bad.ndjson >out 2>err; rc=\$?; cat err;
		test ! -s out && grep -q '^gp-trace: bad.ndjson:3: .*$msg' err && exit \$rc
	"
done

# ------------------------------------------------------------------ prompt
cat >pp.ndjson <<\EOF
{"type":"trace","id":"a","t_s":0,"input_tokens":12,"output_tokens":1,"hash_ids":[1,2,3]}
{"type":"trace","id":"b","t_s":0,"input_tokens":12,"output_tokens":1,"hash_ids":[1,2,7]}
{"type":"trace","id":"c","t_s":0,"input_tokens":16,"output_tokens":1,"hash_ids":[1,2,3]}
{"type":"trace","id":"d","t_s":0,"input_tokens":3,"output_tokens":1,"prompt":"given text"}
EOF

test_expect_success 'prompt: exact word counts; shared leading hash_ids share words' '
	gp-trace prompt --block-tokens 4 pp.ndjson >pr &&
	test $(wc -l <pr) = 4 &&
	jq -r "select(.id != \"d\") | .prompt | split(\" \") | length" pr | tr "\n" " " >n &&
	test "$(cat n)" = "12 12 16 " &&
	a=$(jq -r "select(.id == \"a\") | .prompt" pr) &&
	b=$(jq -r "select(.id == \"b\") | .prompt" pr) &&
	c=$(jq -r "select(.id == \"c\") | .prompt" pr) &&
	test "$(echo $a | cut -d" " -f1-8)" = "$(echo $b | cut -d" " -f1-8)" &&
	test "$(echo $a | cut -d" " -f9-12)" != "$(echo $b | cut -d" " -f9-12)" &&
	test "$(echo $c | cut -d" " -f1-12)" = "$a" &&
	jq -e "select(.id == \"d\") | .prompt == \"given text\"" pr >/dev/null
'

test_expect_success 'prompt: the default block is 512 tokens; salt-only prompts differ' '
	gp-trace synth --requests 2 --keys 0 --input-tokens 40 >two &&
	gp-trace prompt two | jq -r .prompt >p2 &&
	test $(sort -u p2 | wc -l) = 2 &&
	gp-trace synth --requests 3 --keys 1 --prefix-tokens 512 --input-tokens 600 |
		gp-trace prompt | jq -r ".prompt | split(\" \") | .[0:512] | join(\" \")" | sort -u | wc -l | grep -qx " *1"
'

test_done
