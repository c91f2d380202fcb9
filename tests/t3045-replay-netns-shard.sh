#!/bin/sh
# prove: serial — it creates network namespaces and a bridge, and times two shards' common start
# Sharded replay across two client "hosts": two network namespaces with their
# own addresses on a bridge this test makes (a private 10.x subnet), gp-sim
# behind HAProxy listening on the bridge's address, both shards run by GNU
# parallel through examples/shard-parallel.sh with examples/netns-ssh.sh as
# its ssh; the outputs merged by concatenation.  Checks: every trace record
# sent exactly once, each shard's requests came from its own namespace's
# address (HAProxy's log), both shards' first requests reached the gateway on
# the --start-at instant, gp-verify validity keeps the merged run and discards
# it when a shard's file is missing.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/netns.sh"

for c in ip parallel haproxy jq curl; do
	command -v $c >/dev/null || skip_all "no $c"
done
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"
[ "$(id -u)" = 0 ] || skip_all "not root: cannot create network namespaces"

netns_up
netns_gateway
test_expect_success 'each namespace reaches the gateway, not the host loopback' '
	ip netns exec $NS2 curl -sf -o /dev/null --max-time 5 $URL/v1/models &&
	! ip netns exec $NS1 curl -sf -o /dev/null --max-time 2 http://127.0.0.1:$SIM_PORT/v1/models
'
# With SHELL and HOME unset, as in a bare CI environment: netns-ssh.sh must
# give the "remote" side a login shell, as sshd would (parallel's worker
# otherwise runs nothing and reports success).
test_expect_success 'two shards through GNU parallel, one per namespace (netns-ssh.sh)' '
	shard_run merged.ndjson SSHLOGIN=1/$NS1,1/$NS2 SSH="$GP_TOP/examples/netns-ssh.sh" SHARED_FS=1 \
		JOBLOG=$TRASH/joblog LEAD_S=2 &&
	test "$(sel ".type == \"run_end\"" merged.ndjson | wc -l)" = 2
'
shard_checks merged.ndjson joblog "$NS1=$A1" "$NS2=$A2"
test_expect_success 'a merge that lost shard 2 is discarded (missing_shard)' '
	cat part1 >lost.ndjson &&
	{ gp-verify validity <lost.ndjson >v.ndjson; test $? = 1; } &&
	sel ".type == \"discard\"" v.ndjson | jq -e ".reasons | any(test(\"^missing_shard: \"))" &&
	! sel ".type == \"request\"" v.ndjson | grep -q .
'
test_expect_success 'a merge with shard 1 twice is discarded (duplicate_shard)' '
	cat part1 part1 part2 >dup.ndjson &&
	{ gp-verify validity <dup.ndjson >v2.ndjson; test $? = 1; } &&
	sel ".type == \"discard\"" v2.ndjson | jq -e ".reasons | any(test(\"^duplicate_shard: shard 1/2 \"))"
'
test_done
