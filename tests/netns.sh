# tests/netns.sh — two client "hosts" on one machine for the sharded-replay
# tests (t3045, t3046): network namespaces with their own addresses on a
# bridge the test makes, gp-sim behind HAProxy on the bridge's address, and
# the checks every sharded run must pass.  Source after lib.sh; root only.
#
#   netns_up            namespaces NS1, NS2 at A1, A2 on bridge BR (address
#                       GW) in a free private 10.x /24 (NET); removed at exit
#                       by netns_down (the EXIT trap; a test that sets its own
#                       calls netns_down in it).  skip_all when it cannot.
#   netns_down          remove the namespaces, links and bridge
#   netns_gateway       trace.ndjson (40 records) and want (their ids, sorted);
#                       gp-sim (2 backends, model m) behind HAProxy on GW:VIP,
#                       URL; gw.log names each request's client address, its
#                       X-Request-Id and when HAProxy read it (epoch ms).
#                       skip_all when NS1 cannot reach URL over the bridge.
#   shard_run OUT VAR=VALUE...
#                       examples/shard-parallel.sh: two shards of trace.ndjson
#                       to URL at --poisson-rps 20 with a header whose value
#                       has a space (each gp-replay option must reach it as
#                       one word), merged into OUT, with the environment
#                       VAR=VALUE... and SHELL and HOME unset (as in CI's bare
#                       environment)
#   shard_checks MERGED JOBLOG HOST=ADDR...
#                       the checks of a run of shard_run:
#                       the joblog's host of each shard maps to the address
#                       its requests must come from (HOST=ADDR pairs); leaves
#                       partI (shard I's records), addrI and start behind.

netns_up() {
	tag=gpt$$
	NS1=${tag}a NS2=${tag}b BR=${tag}br
	NET=
	for _k in $(seq 0 40); do
		_c=10.$((200 + ($$ + _k) % 50)).$((($$ / 50 + _k) % 250))
		ip -4 route | grep -q "^$_c\." || { NET=$_c; break; }
	done
	[ -n "$NET" ] || skip_all "no free 10.x /24 for the test's bridge"
	GW=$NET.1 A1=$NET.2 A2=$NET.3
	trap 'netns_down; _cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM	# so that the EXIT trap removes the namespaces
	_netns_make 2>"$TRASH/net.err" ||
		skip_all "cannot create network namespaces and a bridge: $(head -n 1 "$TRASH/net.err")"
}
_netns_make() {
	ip netns add "$NS1" && ip netns add "$NS2" &&
	ip link add "$BR" type bridge && ip addr add "$GW/24" dev "$BR" && ip link set "$BR" up &&
	for _i in 1 2; do
		eval _ns=\$NS$_i _addr=\$A$_i
		ip link add "${tag}v$_i" type veth peer name "${tag}p$_i" &&
		ip link set "${tag}p$_i" netns "$_ns" &&
		ip link set "${tag}v$_i" master "$BR" && ip link set "${tag}v$_i" up &&
		ip -n "$_ns" addr add "$_addr/24" dev "${tag}p$_i" &&
		ip -n "$_ns" link set "${tag}p$_i" up && ip -n "$_ns" link set lo up || return 1
	done
}
netns_down() {
	[ -n "${tag:-}" ] || return 0
	ip netns delete "$NS1" 2>/dev/null
	ip netns delete "$NS2" 2>/dev/null
	ip link delete "${tag}v1" 2>/dev/null
	ip link delete "${tag}v2" 2>/dev/null
	ip link delete "$BR" 2>/dev/null
	return 0
}

netns_gateway() {
	awk 'BEGIN { for (i = 0; i < 40; i++)
		printf "{\"type\":\"trace\",\"id\":\"n%d\",\"t_s\":%.3f,\"input_tokens\":30,\"output_tokens\":4}\n", i, i * 0.05 }' \
		>"$TRASH/trace.ndjson"
	jq -r .id "$TRASH/trace.ndjson" | sort >"$TRASH/want"
	start_sim --backends 2 --model m --decode-ms 2 --max-batch 256 || exit 1
	VIP=$(free_port_range 1) || exit 1
	# gp-replay's warm-up sends no X-Request-Id: "-" in the log.
	cat >"$TRASH/gw.cfg" <<CFG
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
	haproxy -db -f "$TRASH/gw.cfg" 2>>"$TRASH/gw.log" &
	cleanup_pid $!
	_i=0
	until (exec 3<>"/dev/tcp/$GW/$VIP") 2>/dev/null; do
		_i=$((_i + 1)); [ $_i -lt 200 ] || fail_all "haproxy did not listen on $GW:$VIP"
		sleep 0.05
	done
	URL=http://$GW:$VIP
	ip netns exec "$NS1" curl -sf -o /dev/null --max-time 5 "$URL/v1/models" ||
		skip_all "namespace $NS1 cannot reach $URL over the bridge (a firewall on bridged traffic?)"
}

shard_run() {
	_o=$1
	shift
	env -u SHELL -u HOME SHARDS=2 "$@" sh "$GP_TOP/examples/shard-parallel.sh" "$TRASH/trace.ndjson" \
		"$URL" m "$_o" --poisson-rps 20 --seed 3 --arm a --rep 1 -H "X-Gp-Test: a b"
}

shard_checks() {
	_m=$1 _jl=$2
	shift 2
	sleep 0.3	# HAProxy logs a request when it ends
	# shard I -> the host that ran it (the joblog) -> its address
	for _i in 1 2; do
		_h=$(awk -F'\t' -v i=$_i 'NR > 1 && $1 == i { print $2 }' "$_jl")
		_a=none
		for _p in "$@"; do [ "${_p%%=*}" = "$_h" ] && _a=${_p#*=}; done
		echo "$_a" >addr$_i
	done
	# the merged file, split back by the shard field of the records' run header
	jq -r 'select(.type == "run") | .shard' "$_m" >shards
	rm -f part1 part2
	awk '/"type":"run"/ { s++ } s { print > ("part" s) }' "$_m"
	test_expect_success 'the shards ran on different hosts' '
		test "$(cat addr1)" != none && test "$(cat addr2)" != none &&
		test "$(cat addr1)" != "$(cat addr2)"
	'
	test_expect_success 'merged: one run id, every trace record sent exactly once' '
		test "$(jq -r .run "$_m" | sort -u | wc -l)" = 1 &&
		sel ".type == \"request\"" "$_m" | jq -r .id | sort >got && cmp got want &&
		sel ".type == \"request\" and .outcome == \"ok\"" "$_m" | wc -l | grep -qx 40
	'
	test_expect_success "each shard's requests came from its own host's address" '
		printf "1/2\n2/2\n" | cmp - shards &&
		for i in 1 2; do
			sel ".type == \"request\"" part$i | jq -r .id | sort >ids$i &&
			awk -v a=$(cat addr$i) "\$1 == a && \$2 != \"-\" { print \$2 }" gw.log | sort >seen$i &&
			test -s seen$i && cmp ids$i seen$i || return 1
		done
	'
	start=$(jq -r 'select(.type == "run") | .start_at' "$_m" | sort -u)
	test_expect_success 'both shards were told one --start-at, and started on it' '
		test $(echo "$start" | wc -l) = 1 &&
		sel ".type == \"run\"" "$_m" | jq -s -e "length == 2 and all(.[];
			((.started_at[0:19] + \"Z\" | fromdateiso8601) + (\"0.\" + (.started_at[20:] | rtrimstr(\"Z\")) | tonumber)
			 - .start_at | fabs) < 0.001)"
	'
	# The gateway's view: each request reached HAProxy at start_at + its
	# t_sched_s (HAProxy's clock is the namespaces' clock here; on real
	# hosts the difference would be their skew), never before, and late by
	# at most 0.25 s (a loaded machine).
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
		gp-verify validity <"$_m" >kept.ndjson &&
		sel ".type == \"request\"" kept.ndjson | wc -l | grep -qx 40 &&
		! grep -q "\"type\":\"discard\"" kept.ndjson
	'
}
