#!/bin/sh
# gp-replay --shard I/N and --start-at: shards partition the trace, start on
# one wall-clock instant, agree on every record's schedule, and concatenate
# into one run (same run id, the unsharded set of ids).  Also runs
# examples/shard-parallel.sh (GNU parallel) so the example cannot drift.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

awk 'BEGIN { for (i = 0; i < 90; i++)
	printf "{\"type\":\"trace\",\"id\":\"h%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":4}\n", i, i * 0.02 }' >trace.ndjson
jq -r .id trace.ndjson | sort >want
start_sim --model m --decode-ms 2 --max-batch 256 || exit 1
URL=http://127.0.0.1:$SIM_PORT
R="--poisson-rps 90 --seed 5 --arm a --rep 2"

test_expect_success 'unsharded reference run' '
	gp-replay --url $URL --model m $R trace.ndjson >whole.ndjson
'
start=$(( $(date +%s) + 2 ))
for i in 1 2 3; do
	gp-replay --url $URL --model m $R --shard $i/3 --start-at $start trace.ndjson >s$i.ndjson 2>err$i &
	eval pid$i=$!
done
wait $pid1; echo $? >rc1
wait $pid2; echo $? >rc2
wait $pid3; echo $? >rc3
cat s1.ndjson s2.ndjson s3.ndjson >merged.ndjson

test_expect_success '3 shards started together all exit 0' '
	test "$(cat rc1 rc2 rc3 | tr -d "\n")" = 000
'
test_expect_success 'each shard sends index mod 3 == I-1' '
	sel ".type == \"request\"" s2.ndjson | jq -r .id | sed s/h// | awk "\$1 % 3 != 1 { bad = 1 } END { exit bad }" &&
	test "$(sel ".type == \"request\"" s2.ndjson | wc -l)" = 30
'
test_expect_success 'merged shards = the unsharded set of ids, each once' '
	sel ".type == \"request\"" merged.ndjson | jq -r .id | sort >got && cmp got want
'
test_expect_success 'one run: the same run id in every record of every shard' '
	test "$(jq -r .run merged.ndjson | sort -u | wc -l)" = 1 &&
	sel ".type == \"run\"" merged.ndjson | all_of ".start_at == $start and (.shard | test(\"^[123]/3$\"))"
'
test_expect_success 'shards agree with the unsharded schedule (t_sched_s per id)' '
	sel ".type == \"request\"" merged.ndjson | jq -r "\"\(.id) \(.t_sched_s)\"" | sort >a &&
	sel ".type == \"request\"" whole.ndjson | jq -r "\"\(.id) \(.t_sched_s)\"" | sort >b &&
	cmp a b
'
test_expect_success 'all shards started on the --start-at instant' '
	sel ".type == \"run\"" merged.ndjson | jq -r .started_at | cut -c1-19 | sort -u >starts &&
	test $(wc -l <starts) = 1 &&
	test "$(cat starts)" = "$(date -u -d @$start +%Y-%m-%dT%H:%M:%S)"
'
test_expect_success 'trailers add up to the trace' '
	sel ".type == \"run_end\"" merged.ndjson | jq -s -e "map(.attempted) | add == 90" >/dev/null
'
test_expect_success 'gp-verify validity: the merge without shard 3 is discarded (missing_shard)' '
	cat s1.ndjson s2.ndjson >lost.ndjson &&
	{ gp-verify validity lost.ndjson >v.ndjson; test $? = 1; } &&
	sel ".type == \"discard\"" v.ndjson | jq -r ".reasons[]" | grep -x "missing_shard: 1 of 3 shards incomplete (first: 3/3, absent)"
'
test_expect_code 65 'gp-verify validity: a shard field not I/N is bad input naming file:line' '
	jq -c "if .type == \"run_end\" then .shard = \"4/3\" else . end" s1.ndjson >bad.ndjson &&
	gp-verify validity bad.ndjson >/dev/null 2>err; rc=$?; cat err;
	grep -q "bad.ndjson:[0-9]*: .*shard.*4/3" err && exit $rc
'
test_expect_code 2 'a --start-at long past is refused' '
	gp-replay --url $URL --model m --start-at $(( $(date +%s) - 100 )) trace.ndjson >/dev/null
'

if command -v parallel >/dev/null; then
	test_expect_success 'examples/shard-parallel.sh (GNU parallel, 3 local shards)' '
		SHARDS=3 sh "$GP_TOP/examples/shard-parallel.sh" "$TRASH/trace.ndjson" $URL m ex.ndjson $R &&
		sel ".type == \"request\"" ex.ndjson | jq -r .id | sort >got2 && cmp got2 want &&
		test "$(jq -r .run ex.ndjson | sort -u | wc -l)" = 1 &&
		test "$(sel ".type == \"run_end\"" ex.ndjson | wc -l)" = 3
	'
fi
test_done
