#!/bin/sh
# gp-sim's disaggregated prefill/decode (--roles, --router --policy pd): the
# router prefills on a prefill member (the one holding the longest cached
# prefix) and decodes on the least loaded decode member; the KV moves
# between them in the time of sim/pd.h's link model, lands in the decode
# member's prefix cache, and the receipt names both members.  The
# pd_fallback fault serves requests aggregated on one member, and only the
# receipt says so.
. "$(dirname "$0")/lib.sh"
cd "$TRASH" || exit 1

# start_pd NAME ARGS...: four engines, prefill,prefill,decode,decode, the
# pd router in front; ports in P_NAME (first engine) and R_NAME (router).
start_pd() {
	_pdn=$1; shift
	_p=$(free_port_range 5) || return 1
	gp-sim --port "$_p" --backends 4 --roles prefill,prefill,decode,decode --router $((_p + 4)) \
		--policy pd --receipt-header x-gp-receipt --truth "truth-$_pdn" "$@" 2>>"sim-$_pdn.log" &
	cleanup_pid $!
	for _b in 0 1 2 3 4; do wait_port $((_p + _b)) || return 1; done
	eval "P_$_pdn=$_p R_$_pdn=$((_p + 4))"
}
start_pd fast || fail_all "gp-sim did not start"
start_pd slow --kv-link-gbps 0.1 || fail_all "gp-sim did not start (slow link)"
start_pd fb --fault pd_fallback=1 || fail_all "gp-sim did not start (pd_fallback)"
start_pd fq --fault pd_fallback=0.25 --seed 3 || fail_all "gp-sim did not start (pd_fallback=0.25)"
start_pd rr --policy pd_rr || fail_all "gp-sim did not start (pd_rr)"

# 8 requests, 2 keys: 512-token prompts (32 full blocks of 16) of which 480
# are the key's prefix.  A decode member finds all 32 blocks in its cache
# after the handoff and computes the last token alone (at most n - 1 tokens
# come from the cache, as in vLLM): 511 hits of 512 per request.
gp-trace synth --requests 8 --rate-rps 20 --seed 5 --keys 2 --zipf 0 --prefix-tokens 480 \
	--block-tokens 16 --input-tokens 512 --output-tokens 8 >trace || fail_all "gp-trace synth"
replay() { # NAME OUT
	eval "_r=\$R_$1"
	gp-replay --url "http://127.0.0.1:$_r" --model gp-sim --arm pd --rep 1 \
		--receipt-header x-gp-receipt --backend-header x-gp-backend <trace >"$2" 2>"$2.err"
}
role() { # PORT BASE → prefill or decode by the engine's index
	_i=$(( ${1##*:} - $2 )); [ $_i -lt 2 ] && echo prefill || echo decode
}

test_expect_success 'every request ok; the receipt names a prefill member and a different decode member' '
	replay fast run &&
	test "$(jq -s "[.[] | select(.type==\"request\" and .outcome==\"ok\")] | length" run)" = 8 &&
	jq -r "select(.type==\"request\") | [.prefill, .decode, .backend] | @tsv" run >pairs &&
	test "$(wc -l <pairs)" = 8 &&
	while read -r p d b; do
		test "$(role "$p" "$P_fast")" = prefill && test "$(role "$d" "$P_fast")" = decode &&
		test "$d" = "$b" || { echo "bad pair: $p $d $b"; exit 1; }
	done <pairs
'
test_expect_success 'the prefill is cache-aware: each key prefilled on one member, hits after the first' '
	jq -r "[.id, .cache_key] | @tsv" trace | sort >keys &&
	jq -r "select(.type==\"request\") | [.id, .prefill] | @tsv" run | sort >pre &&
	join keys pre | awk "{print \$2, \$3}" | sort -u >kp &&
	test "$(cut -d" " -f1 kp | sort | uniq -d | wc -l)" = 0 &&
	curl -s "http://127.0.0.1:$R_fast/metrics" >rm &&
	grep -q "^gp_router_cache_hits_total 6$" rm &&
	test "$(grep -c "^gp_router_prefilled_total.* [1-9]" rm)" -ge 1 &&
	! grep -q "^gp_router_routed_total{engine=\"127.0.0.1:$P_fast\"} [1-9]" rm
'
test_expect_success 'the KV lands in the decode member: its prefix cache holds the prompt, and NIXL metrics count the handoffs' '
	for i in 2 3; do curl -s "http://127.0.0.1:$((P_fast + i))/metrics"; done >dm &&
	hits=$(awk "/^vllm:prefix_cache_hits_total/ {s += \$2} END {print s}" dm) &&
	q=$(awk "/^vllm:prefix_cache_queries_total/ {s += \$2} END {print s}" dm) &&
	n=$(awk "/^vllm:nixl_xfer_time_seconds_count/ {s += \$2} END {print s}" dm) &&
	echo "decode members: $hits of $q prompt tokens from the handoff, $n transfers" &&
	bytes=$(awk "/^vllm:nixl_bytes_transferred_sum/ {s += \$2} END {printf \"%d\", s}" dm) &&
	test "$n" = 8 && test "$bytes" = $((8 * 512 * 16384)) &&
	test "$hits" = $((8 * 511)) && test "$q" = $((8 * 512))
'
test_expect_success 'the transfer is in TTFT: 512 tokens x 16 KiB over 0.1 Gbit/s is 0.67 s' '
	replay slow runs &&
	ft=$(jq -s "[.[] | select(.type==\"request\" and .outcome==\"ok\") | .ttft_ms] | min" runs) &&
	fs=$(jq -s "[.[] | select(.type==\"request\" and .outcome==\"ok\") | .ttft_ms] | max" run) &&
	echo "TTFT min over a 0.1 Gbit/s link $ft ms; max over 100 Gbit/s $fs ms" &&
	awk -v a="$ft" -v b="$fs" "BEGIN { exit !(a >= 671 && b < 300) }"
'
test_expect_success 'pd_fallback: served aggregated; the receipt names one member twice or lacks the decode' '
	replay fb runf &&
	test "$(jq -s "[.[] | select(.type==\"request\" and .outcome==\"ok\")] | length" runf)" = 8 &&
	jq -r "select(.type==\"request\") | [.receipt, .backend] | @tsv" runf >rf &&
	while read -r rc b; do
		case $rc in
		"prefill=$b;decode=$b"|"prefill=$b") ;;
		*) echo "not a fallback receipt: $rc ($b)"; exit 1 ;;
		esac
		test "$(role "$b" "$P_fb")" = prefill || exit 1
	done <rf &&
	grep -q "prefill=[^;]*$" rf && grep -q ";decode=" rf
'
test_expect_success 'a client gone while its KV is on the link: no crash, a truth record, the next request served' '
	printf "%s\n" "{\"type\":\"trace\",\"id\":\"g\",\"t_s\":0,\"input_tokens\":512,\"output_tokens\":8}" >one &&
	curl -s -o /dev/null --max-time 0.4 -H "content-type: application/json" \
		-d "{\"model\":\"gp-sim\",\"prompt\":\"$(printf "w%.0s " $(seq 1 500))\",\"max_tokens\":4,\"stream\":true}" \
		"http://127.0.0.1:$R_slow/v1/completions"; sleep 1 &&
	grep -q "client_closed" truth-slow &&
	gp-replay --url "http://127.0.0.1:$R_slow" --model gp-sim --arm pd --rep 1 <one >r1 2>/dev/null &&
	jq -e "select(.type==\"run_end\") | .ok == 1" r1
'
# The fleet file of a pd router: its members with their roles, the arm
# disaggregated, the receipt header the router writes.
pd_fleet() { # NAME
	eval "_p=\$P_$1 _r=\$R_$1"
	jq -n --arg p "$_p" --arg r "$_r" '{model: "gp-sim", vips: [{name: "vip", url: "http://127.0.0.1:\($r)"}],
		backends: [range(4) as $i | {name: "b\($i + 1)", url: "http://127.0.0.1:\(($p | tonumber) + $i)",
			role: (if $i < 2 then "prefill" else "decode" end)}],
		receipt_header: "x-gp-receipt", backend_header: "x-gp-backend",
		arms: [{name: "pd", expect: "concentrate", routes_by_cache: true, disaggregated: true, up_cmd: "true"}]}'
}
delivery() { # RUNFILE FLEET: the dual_proof record's delivery half
	gp-verify validity "$1" | gp-verify publish -q --fleet "$2" 2>/dev/null |
		jq -r 'select(.type=="dual_proof") | "\(.delivery_ok) \(.detail)"'
}
test_expect_success 'the delivery proof holds on the pd router: every receipt names a prefill and another decode member' '
	pd_fleet fast >fleet-fast.json && delivery run fleet-fast.json >d && cat d &&
	grep -q "^true .*8 (100.0 %) name a prefill member and another decode member" d
'
test_expect_success 'pd_fallback caught by the delivery proof, with the share of bad receipts named' '
	pd_fleet fb >fleet-fb.json && delivery runf fleet-fb.json >d && cat d &&
	grep -q "^false .*0 (0.0 %) name a prefill member and another decode member (100 % needed); bad receipts: [0-9]* no decode half, [0-9]* one member for both halves" d &&
	gp-trace synth --requests 40 --rate-rps 40 --seed 9 --keys 2 --prefix-tokens 32 --block-tokens 16 \
		--input-tokens 48 --output-tokens 4 >t40 &&
	gp-replay --url "http://127.0.0.1:$R_fq" --model gp-sim --arm pd --rep 1 --receipt-header x-gp-receipt \
		--backend-header x-gp-backend <t40 >runq 2>/dev/null &&
	good=$(jq -s "[.[] | select(.type==\"request\" and .prefill != null and .prefill != .decode)] | length" runq) &&
	pd_fleet fq >fleet-fq.json && delivery runq fleet-fq.json >d && cat d &&
	test "$good" -gt 20 && test "$good" -lt 40 &&
	grep -q "^false .*; $good ([0-9.]* %) name a prefill member and another decode member (100 % needed); bad receipts: " d
'
test_expect_success 'pd_rr, the floor: each half in turn over its members, blind to the cache (4 and 4 prefills)' '
	replay rr runr &&
	test "$(jq -s "[.[] | select(.type==\"request\" and .outcome==\"ok\")] | length" runr)" = 8 &&
	jq -r "select(.type==\"request\") | .prefill" runr | sort | uniq -c | awk "{print \$1}" | sort -u >c &&
	test "$(cat c)" = 4 &&
	jq -r "select(.type==\"request\") | .decode" runr | sort | uniq -c | awk "{print \$1}" | sort -u >c &&
	test "$(cat c)" = 4 &&
	pd_fleet rr >fleet-rr.json && delivery runr fleet-rr.json | grep -q "^true " &&
	curl -s "http://127.0.0.1:$R_rr/metrics" | grep -q "^gp_router_mode{mode=\"pd_rr\"} 1$"
'
test_expect_success 'gp-health: each member of a role serves when asked directly (role_chat), the VIP too' '
	gp-health --fleet fleet-fast.json >h 2>herr &&
	test "$(jq -s "[.[] | select(.check==\"role_chat\" and .ok)] | length" h)" = 4 &&
	jq -s -e "[.[] | select(.check==\"role_chat\") | .role] == [\"prefill\",\"prefill\",\"decode\",\"decode\"]" h >/dev/null
'
test_expect_code 1 'gp-health: a decode member that does not answer fails role_chat, naming its role' '
	jq ".backends[3].url = \"http://127.0.0.1:1\" | .backends[3].metrics_url = null" fleet-fast.json >fdead.json &&
	gp-health --fleet fdead.json >h 2>herr; rc=$?;
	jq -s -e "map(select(.check==\"role_chat\" and .name==\"b4\")) | length == 1 and (.[0].ok | not) and (.[0].detail | startswith(\"decode member: \"))" h >/dev/null &&
	jq -s -e "map(select(.type==\"health_summary\")) | .[0].ready == false" h >/dev/null && exit $rc
'
test_expect_code 2 '--policy pd with no member that may decode: a usage error' '
	gp-sim --port 1 --backends 2 --roles prefill --router 9 --policy pd 2>err; rc=$?;
	grep -q "no engine that may decode" err && exit $rc
'
test_expect_code 2 '--fault pd_fallback without the pd router: a usage error' '
	gp-sim --port 1 --backends 2 --fault pd_fallback=0.5 2>err; rc=$?;
	grep -q "pd_fallback needs --router with --policy pd" err && exit $rc
'
test_done
