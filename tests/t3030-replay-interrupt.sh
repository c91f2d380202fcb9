#!/bin/sh
# gp-replay: SIGTERM/SIGINT mid-run keep every record (in-flight requests become
# `cancelled`), write the trailer with interrupted:true and exit 128+signo; a run capped
# by --max-inflight still sends every record, records how late, and says so.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

awk 'BEGIN { for (i = 0; i < 400; i++)
	printf "{\"type\":\"trace\",\"id\":\"i%d\",\"t_s\":%.3f,\"input_tokens\":40,\"output_tokens\":60}\n", i, i * 0.01 }' >trace.ndjson
start_sim --model m --decode-ms 8 --max-batch 512 || exit 1
URL=http://127.0.0.1:$SIM_PORT

for sig in TERM INT; do
	gp-replay --url $URL --model m trace.ndjson >run-$sig.ndjson 2>err-$sig &
	pid=$!
	sleep 1.2
	kill -$sig $pid
	wait $pid
	echo $? >rc-$sig
	want=$((128 + $(kill -l $sig)))
	test_expect_success "SIG$sig mid-run: exit 128+SIG$sig, trailer says interrupted" "
		test \$(cat rc-$sig) = $want &&
		test \"\$(tail -1 run-$sig.ndjson | jq -r .type)\" = run_end &&
		sel '.type == \"run_end\"' run-$sig.ndjson | all_of '.interrupted == true'
	"
	test_expect_success "SIG$sig: records == attempted, in-flight ones cancelled" "
		n=\$(sel '.type == \"request\"' run-$sig.ndjson | wc -l) &&
		test \$n -gt 20 && test \$n -lt 400 &&
		sel '.type == \"run_end\"' run-$sig.ndjson |
			all_of \".attempted == \$n and .ok + .single_token + .failed == \$n and .by_error.cancelled > 0\" &&
		sel '.type == \"request\" and .error == \"cancelled\"' run-$sig.ndjson | all_of '.outcome == \"failed\"'
	"
	test_expect_success "SIG$sig: every record id appears once" "
		sel '.type == \"request\"' run-$sig.ndjson | jq -r .id | sort | uniq -d >dups && test ! -s dups
	"
done

awk 'BEGIN { for (i = 0; i < 30; i++)
	printf "{\"type\":\"trace\",\"id\":\"c%d\",\"t_s\":%.3f,\"input_tokens\":40,\"output_tokens\":10}\n", i, i * 0.005 }' >burst.ndjson
test_expect_success '--max-inflight 2: every record sent, never more than 2 in flight' '
	gp-replay --url $URL --model m --max-inflight 2 burst.ndjson >capped.ndjson 2>err &&
	sel ".type == \"run_end\"" capped.ndjson |
		all_of ".attempted == 30 and .ok == 30 and .peak_inflight == 2 and .capped_sends > 0"
'
test_expect_success 'a capped run records how late each send was and warns loudly' '
	sel ".type == \"run_end\"" capped.ndjson | all_of ".client_behind == true and .lateness_max_ms > 10" &&
	grep -q "fell behind" err &&
	sel ".type == \"request\" and .id == \"c29\"" capped.ndjson | all_of ".t_sent_s - .t_sched_s > 0.05" &&
	sel ".type == \"run\"" capped.ndjson | all_of ".max_inflight == 2"
'
test_expect_success 'the same burst uncapped is open loop (all 30 in flight at once)' '
	gp-replay --url $URL --model m burst.ndjson >open.ndjson 2>err &&
	sel ".type == \"run_end\"" open.ndjson | all_of ".attempted == 30 and .peak_inflight > 2 and .capped_sends == 0"
'
test_done
