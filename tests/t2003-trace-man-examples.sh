#!/bin/sh
# Every command line in the EXAMPLES of doc/gp-trace.1 runs (exit 0, some
# output), against the committed trace slices under the file names the page
# uses, so the man page cannot drift from the tool.
. "$(dirname "$0")/lib.sh"

command -v gp-trace >/dev/null || skip_all "gp-trace not built"
command -v jq >/dev/null || skip_all "jq missing"

D=$GP_TOP/tests/data/traces
ln -s "$D/mooncake/conversation_trace_first200.jsonl" conversation_trace.jsonl
ln -s "$D/azure-llm-2023/AzureLLMInferenceTrace_code_first200.csv" AzureLLMInferenceTrace_code.csv
ln -s "$D/burstgpt/BurstGPT_3_first400.csv" BurstGPT_3_first400.csv

# Lines inside .EX/.EE in the EXAMPLES section that start with gp-trace.
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$GP_TOP/doc/gp-trace.1" |
	sed -n '/^\.EX/,/^\.EE/p' | grep '^gp\\-trace' | sed 's/\\-/-/g' >examples
test_expect_success 'the man page has examples' 'test $(wc -l <examples) -ge 5'

i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	printf '%s\n' "$cmd" >"ex$i.sh"
	# The output is stdout, or the file named by -o.
	o=$(printf '%s\n' "$cmd" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
	test_expect_success "example: $cmd" "
		sh -e ex$i.sh >out$i 2>err$i && test -s ${o:-out$i} || { cat err$i; false; }
	"
done <examples

test_expect_success 'example output: the keyed trace has 1000 records on 32 keys at most' '
	gp-trace stats keyed.ndjson.gz | jq -e ".requests == 1000 and .keys <= 32" >/dev/null
'
test_done
