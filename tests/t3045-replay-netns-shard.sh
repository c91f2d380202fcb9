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

for c in ip parallel haproxy jq curl; do
	command -v $c >/dev/null || skip_all "no $c"
done
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"
[ "$(id -u)" = 0 ] || skip_all "not root: cannot create network namespaces"

# Names and a /24 of our own (not routed here yet).
tag=gpt$$
NS1=${tag}a NS2=${tag}b BR=${tag}br
net=
for k in $(seq 0 40); do
	c=10.$((200 + ($$ + k) % 50)).$((($$ / 50 + k) % 250))
	ip -4 route | grep -q "^$c\." || { net=$c; break; }
done
[ -n "$net" ] || skip_all "no free 10.x /24 for the test's bridge"
GW=$net.1 A1=$net.2 A2=$net.3
net_down() {
	ip netns delete "$NS1" 2>/dev/null
	ip netns delete "$NS2" 2>/dev/null
	ip link delete "${tag}v1" 2>/dev/null
	ip link delete "${tag}v2" 2>/dev/null
	ip link delete "$BR" 2>/dev/null
	return 0
}
trap 'net_down; _cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM	# so that the EXIT trap removes the namespaces
net_up() {
	ip netns add "$NS1" && ip netns add "$NS2" &&
	ip link add "$BR" type bridge && ip addr add "$GW/24" dev "$BR" && ip link set "$BR" up &&
	for i in 1 2; do
		eval ns=\$NS$i addr=\$A$i
		ip link add "${tag}v$i" type veth peer name "${tag}p$i" &&
		ip link set "${tag}p$i" netns "$ns" &&
		ip link set "${tag}v$i" master "$BR" && ip link set "${tag}v$i" up &&
		ip -n "$ns" addr add "$addr/24" dev "${tag}p$i" &&
		ip -n "$ns" link set "${tag}p$i" up && ip -n "$ns" link set lo up || return 1
	done
}
net_up 2>net.err || skip_all "cannot create network namespaces and a bridge: $(head -n 1 net.err)"

awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "{\"type\":\"trace\",\"id\":\"n%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":4}\n", i, i * 0.05 }' >trace.ndjson
jq -r .id trace.ndjson | sort >want
start_sim --backends 2 --model m --decode-ms 2 --max-batch 256 || exit 1
VIP=$(free_port_range 1) || exit 1
# HAProxy on the bridge's address; its log names each request's client
# address, its X-Request-Id (the trace id; gp-replay's warm-up sends none)
# and the instant its headers were read (epoch ms).
cat >gw.cfg <<CFG
global
    log stderr format raw local0 info
defaults
    mode http
    log global
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend vip
    bind $GW:$VIP
    http-request capture req.hdr(X-Request-Id) len 64
    http-request set-var(txn.t) date(0,ms)
    log-format "%ci %[capture.req.hdr(0)] %[var(txn.t)]"
    default_backend llm
backend llm
    balance roundrobin
    server s1 127.0.0.1:$SIM_PORT
    server s2 127.0.0.1:$((SIM_PORT + 1))
CFG
haproxy -db -f gw.cfg 2>>gw.log &
cleanup_pid $!
i=0
until (exec 3<>"/dev/tcp/$GW/$VIP") 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 200 ] || { echo "Bail out! haproxy did not listen on $GW:$VIP"; exit 1; }
	sleep 0.05
done
URL=http://$GW:$VIP

ip netns exec $NS1 curl -sf -o /dev/null --max-time 5 $URL/v1/models ||
	skip_all "namespace $NS1 cannot reach $URL over the bridge (a firewall on bridged traffic?)"
test_expect_success 'each namespace reaches the gateway, not the host loopback' '
	ip netns exec $NS2 curl -sf -o /dev/null --max-time 5 $URL/v1/models &&
	! ip netns exec $NS1 curl -sf -o /dev/null --max-time 2 http://127.0.0.1:$SIM_PORT/v1/models
'
# With SHELL and HOME unset, as in a bare CI environment: netns-ssh.sh must
# give the "remote" side a login shell, as sshd would (parallel's worker
# otherwise runs nothing and reports success).
test_expect_success 'two shards through GNU parallel, one per namespace (netns-ssh.sh)' '
	env -u SHELL -u HOME SHARDS=2 SSHLOGIN=1/$NS1,1/$NS2 SSH="$GP_TOP/examples/netns-ssh.sh" SHARED_FS=1 \
	JOBLOG=$TRASH/joblog LEAD_S=2 \
		sh "$GP_TOP/examples/shard-parallel.sh" "$TRASH/trace.ndjson" $URL m merged.ndjson \
		--poisson-rps 20 --seed 3 --arm a --rep 1 &&
	test "$(sel ".type == \"run_end\"" merged.ndjson | wc -l)" = 2
'
sleep 0.3	# HAProxy logs a request when it ends
# shard I -> the namespace that ran it (the joblog), and its address
for i in 1 2; do
	h=$(awk -F'\t' -v i=$i 'NR > 1 && $1 == i { print $2 }' joblog)
	case $h in "$NS1") echo $A1 ;; "$NS2") echo $A2 ;; *) echo none ;; esac >addr$i
	# the merged file, split back by the shard field of the records' run header
done
jq -r 'select(.type == "run") | .shard' merged.ndjson >shards
awk '/"type":"run"/ { s++ } s { print > ("part" s) }' merged.ndjson

test_expect_success 'the shards ran on different namespaces' '
	test "$(cat addr1)" != none && test "$(cat addr2)" != none &&
	test "$(cat addr1)" != "$(cat addr2)"
'
test_expect_success 'merged: one run id, every trace record sent exactly once' '
	test "$(jq -r .run merged.ndjson | sort -u | wc -l)" = 1 &&
	sel ".type == \"request\"" merged.ndjson | jq -r .id | sort >got && cmp got want &&
	sel ".type == \"request\" and .outcome == \"ok\"" merged.ndjson | wc -l | grep -qx 40
'
test_expect_success "each shard's requests came from its own namespace's address" '
	printf "1/2\n2/2\n" | cmp - shards &&
	for i in 1 2; do
		sel ".type == \"request\"" part$i | jq -r .id | sort >ids$i &&
		awk -v a=$(cat addr$i) "\$1 == a && \$2 != \"-\" { print \$2 }" gw.log | sort >seen$i &&
		test -s seen$i && cmp ids$i seen$i || return 1
	done
'
start=$(jq -r 'select(.type == "run") | .start_at' merged.ndjson | sort -u)
test_expect_success 'both shards were told one --start-at, and started on it' '
	test $(echo "$start" | wc -l) = 1 &&
	sel ".type == \"run\"" merged.ndjson | jq -s -e "length == 2 and all(.[];
		((.started_at[0:19] + \"Z\" | fromdateiso8601) + (\"0.\" + (.started_at[20:] | rtrimstr(\"Z\")) | tonumber)
		 - .start_at | fabs) < 0.001)"
'
# The gateway's view: each request reached HAProxy at start_at + its
# t_sched_s (HAProxy's clock is the namespaces' clock here; on real hosts
# the difference would be their skew), never before, and late by at most
# 0.25 s (a loaded machine).
test_expect_success "the gateway saw each shard's requests on the --start-at schedule" '
	for i in 1 2; do
		sel ".type == \"request\"" part$i | jq -r "\"\(.id) \(.t_sched_s)\"" | sort >sched$i &&
		awk -v a=$(cat addr$i) "\$1 == a && \$2 != \"-\" { print \$2, \$3 }" gw.log | sort | join sched$i - |
		awk -v s=$start -v i=$i "{ d = \$3 / 1000 - s - \$2; if (!n++ || d < lo) lo = d; if (n == 1 || d > hi) hi = d }
			END { printf \"shard %d: %d requests, gateway - schedule in [%.3f, %.3f] s\\n\", i, n, lo, hi
			      exit !(n == 20 && lo >= -0.002 && hi < 0.25) }" || return 1
	done
'
test_expect_success 'gp-verify validity keeps the merged run' '
	gp-verify validity <merged.ndjson >kept.ndjson &&
	sel ".type == \"request\"" kept.ndjson | wc -l | grep -qx 40 &&
	! grep -q "\"type\":\"discard\"" kept.ndjson
'
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
