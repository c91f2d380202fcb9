#!/bin/sh
# gp-verify publish: the dual proof — routing decision (gateway counters, or
# the backends' prefix-cache counters) and delivery (receipts) — per arm.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
R=$D/runs.ndjson A=$D/analysis.ndjson F=$D/fleet.json

back() { r=$1 f=$2; shift 2; gp-verify validity "$r" | cat - "$A" | gp-verify publish $WAIVE_DESIGN -q --fleet "$f" "$@"; }
# dp FILE ARM: "decision_ok delivery_ok evidence delivery_evidence"
dp() { jq -r --arg a "$2" 'select(.type=="dual_proof" and .arm==$a) | "\(.decision_ok) \(.delivery_ok) \(.evidence) \(.delivery_evidence)"' "$1"; }
det() { jq -r --arg a "$2" 'select(.type=="dual_proof" and .arm==$a) | .detail' "$1"; }
reasons() { jq -r 'select(.type=="verdict") | .reasons[]' "$1"; }
HIT='gw_cache_hits_total{mode=\"cache\"}'
MISS='gw_cache_miss_total{reason=\"no_key\"}'

test_expect_success 'honest: the cache arm proves decision and delivery, rr is not applicable' '
	back "$R" "$F" >out &&
	test "$(dp out cache)" = "true true gateway_counters receipt" &&
	test "$(dp out rr)" = "null null not_applicable not_applicable" &&
	det out cache | grep -q "gw_cache_hits_total +165 over 5 replays (0 did not move)" &&
	det out cache | grep -q "189 of 189 completed requests carried a receipt"
'

test_expect_code 1 'counters that never moved: decision fails, the arm is named, not publishable' '
	jq -c "if .type==\"metrics\" and .arm==\"cache\" and .samples[\"$HIT\"] then .samples[\"$HIT\"]=1000 else . end" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache)" = "false true gateway_counters receipt" &&
	reasons out | grep -q "^dual_proof: arm cache: decision: gw_cache_hits_total +0 over 5 replays (5 did not move)" || exit 9
	exit $rc
'

test_expect_code 1 'one run whose counter did not move is enough to fail' '
	jq -c "if .type==\"metrics\" and .run==\"cache-r4\" and .samples[\"$HIT\"] then .samples[\"$HIT\"]=7 else . end" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache | cut -d" " -f1)" = false && det out cache | grep -q "(1 did not move)" || exit 9; exit $rc
'

test_expect_code 1 'a miss counter climbing request-for-request (silent fallback) fails the decision' '
	jq -c "if .type==\"metrics\" and .arm==\"cache\" and .phase==\"after\" and .samples[\"$MISS\"] then .samples[\"$MISS\"] += 36 else . end" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache | cut -d" " -f1)" = false &&
	det out cache | grep -q "5 of 5 replays at or over 0.9 misses per request: fallback" || exit 9; exit $rc
'

test_expect_success 'misses just under the 0.9 threshold pass; --miss-ratio moves it' '
	jq -c "if .type==\"metrics\" and .arm==\"cache\" and .phase==\"after\" and .samples[\"$MISS\"] then .samples[\"$MISS\"] += 33 else . end" "$R" >r &&
	back r "$F" >out && test "$(dp out cache | cut -d" " -f1)" = true &&
	{ back r "$F" --miss-ratio 0.5 >out; test $? = 1; } && test "$(dp out cache | cut -d" " -f1)" = false
'

test_expect_success 'no gateway hit metric: the backends prefix-cache counters are the evidence' '
	jq ".gateway.cache_hit_metric=null | .gateway.miss_metric=null" "$F" >f &&
	back "$R" f >out &&
	test "$(dp out cache)" = "true true backend_prefix_cache receipt" &&
	det out cache | grep -q "no gateway cache_hit_metric; backends. vllm:prefix_cache_hits_total +20000 over 5 replays (0 did not move), vllm:prefix_cache_queries_total +30000"
'

test_expect_code 1 'backend prefix-cache counters that did not move fail the decision' '
	jq ".gateway.cache_hit_metric=null" "$F" >f &&
	jq -c "if .type==\"metrics\" and .arm==\"cache\" then .samples |= with_entries(if (.key|startswith(\"vllm:prefix_cache_hits\")) then .value=5000 else . end) else . end" "$R" >r &&
	back r f >out;
	rc=$?; test "$(dp out cache)" = "false true backend_prefix_cache receipt" || exit 9; exit $rc
'

test_expect_code 1 'no metrics snapshots: the decision is not checked (not a pass)' '
	jq -c "select(.type!=\"metrics\")" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache)" = "null true not_checked receipt" &&
	reasons out | grep -q "^missing: dual_proof: arm cache: decision not checked: no before/after metrics snapshots of gw_cache_hits_total" || exit 9
	exit $rc
'

test_expect_code 1 'a failed scrape is no snapshot' '
	jq -c "if .type==\"metrics\" and .phase==\"after\" then .error=\"connect\" | .samples={} else . end" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache | cut -d" " -f1)" = null || exit 9; exit $rc
'

test_expect_code 1 'missing receipts on a disaggregated arm fail the delivery proof' '
	jq -c "if .type==\"request\" and .run==\"cache-r1\" and (.id|endswith(\"7\")) then .receipt=null else . end" "$R" >r &&
	back r "$F" >out;
	rc=$?; test "$(dp out cache)" = "true false gateway_counters receipt" &&
	reasons out | grep -q "^dual_proof: arm cache: delivery: 18[0-9] of 189 completed requests carried a receipt" || exit 9; exit $rc
'

# Receipts judged against the fleet (issue: a receipt naming one engine
# twice used to pass): roles from the fleet, members by name or host:port.
FPD=$(jq -c ".backends[0].role=\"prefill\" | .backends[1].role=\"decode\"" "$F")
echo "$FPD" >fpd
# rewrite RECEIPT [SHARE]: the cache arm's receipts of requests whose id ends
# in 3 or 7 (about a fifth) replaced by RECEIPT.
rewrite() { jq -c --arg r "$1" "if .type==\"request\" and .arm==\"cache\" and (.id|test(\"[37]\$\")) then .receipt=\$r else . end" "$R"; }
test_expect_success 'roles prefill b1, decode b2: receipts prefill=b1;decode=b2 pass' '
	back "$R" fpd >out && test "$(dp out cache | cut -d" " -f2)" = true &&
	det out cache | grep -q "189 (100.0 %) name a prefill member and another decode member (100 % needed)"
'
test_expect_code 1 'a receipt naming one member for both halves (aggregated) fails, with the share named' '
	rewrite "prefill=b1;decode=b1" >r && back r fpd >out;
	rc=$?; test "$(dp out cache | cut -d" " -f2)" = false &&
	reasons out | grep "delivery:" | grep -q "([0-9.]* %) name a prefill member and another decode member (100 % needed); bad receipts: [0-9]* one member for both halves" &&
	exit $rc
'
test_expect_code 1 'a receipt lacking the decode half fails' '
	rewrite "prefill=b1" >r && back r fpd >out;
	rc=$?; reasons out | grep -q "bad receipts: [0-9]* no decode half" && exit $rc
'
test_expect_code 1 'halves swapped (decode on the prefill member): the wrong role' '
	rewrite "prefill=b2;decode=b1" >r && back r fpd >out;
	rc=$?; reasons out | grep -q "bad receipts: [0-9]* a member in the wrong role" && exit $rc
'
test_expect_code 1 'a member that is no backend of the fleet, and a receipt in no known shape' '
	jq -c "if .type==\"request\" and .id==\"cache-r1-3\" then .receipt=\"prefill=10.9.9.9:1;decode=b2\" elif .type==\"request\" and .id==\"cache-r1-7\" then .receipt=\"garbage\" else . end" "$R" >r &&
	back r fpd >out;
	rc=$?; reasons out | grep -q "bad receipts: 1 unreadable, 1 a member not in the fleet" && exit $rc
'
test_expect_success 'members by host:port (LoxiLB request-id shape) and --delivery-min-share' '
	jq -c "if .type==\"request\" and .arm==\"cache\" and .receipt then .receipt=\"cmpl-___prefill_addr_127.0.0.1:9001___decode_addr_127.0.0.1:9002_abc\" else . end" "$R" >r &&
	back r fpd >out && test "$(dp out cache | cut -d" " -f2)" = true &&
	rewrite "prefill=b1;decode=b1" >r2 &&
	bad=$(jq -s "[.[] | select(.type==\"request\" and .arm==\"cache\" and (.outcome==\"ok\" or .outcome==\"single_token\") and .receipt==\"prefill=b1;decode=b1\")] | length" r2) &&
	echo "# $bad of 189 aggregated" && test "$bad" -gt 10 &&
	back r2 fpd --delivery-min-share 0.7 >out && test "$(dp out cache | cut -d" " -f2)" = true &&
	jq -r "select(.type==\"verdict\") | .footnotes[]" out |
		grep -q "^dual_proof: arm cache: delivery held at --delivery-min-share 0.7 with $bad of 189 completed requests lacking a good receipt"
'
test_expect_success 'receipt_regex: a gateway shape of its own (two groups: prefill, then decode)' '
	jq ".receipt_regex=\"^P=([^ ]+) D=([^ ]*)\$\"" fpd >frx &&
	jq -c "if .type==\"request\" and .arm==\"cache\" and .receipt then .receipt=\"P=127.0.0.1:9001 D=b2\" else . end" "$R" >r &&
	back r frx >out && test "$(dp out cache | cut -d" " -f2)" = true &&
	rewrite "P=b1 D=" >r2 && { back r2 frx >out; test $? = 1; } &&
	reasons out | grep -q "no decode half"
'
test_expect_code 65 'a receipt_regex that does not compile, or has one group: the fleet file is named' '
	jq ".receipt_regex=\"(a\"" fpd >fbad && back "$R" fbad >out 2>err;
	rc=$?; grep -q "fbad: field .receipt_regex.: .(a. is not an extended regular expression" err &&
	jq ".receipt_regex=\"P=(.*)\"" fpd >fbad1 && { back "$R" fbad1 >out 2>err; test $? = 65; } &&
	grep -q "has 1 groups; it needs two" err && exit $rc
'

test_expect_success 'receipt_header set and no disaggregated field: receipts expected on every arm' '
	jq ".receipt_header=\"x-receipt\" | .arms[1] |= del(.disaggregated)" "$F" >f &&
	back "$R" f >out; test $? = 1 &&
	test "$(dp out rr | cut -d" " -f2,4)" = "false receipt" &&
	test "$(dp out cache | cut -d" " -f2)" = true
'

test_expect_code 1 'an arm missing from the fleet file is not proven' '
	jq ".arms |= map(select(.name != \"cache\"))" "$F" >f &&
	back "$R" f >out;
	rc=$?; reasons out | grep -q "^missing: dual_proof: arm cache: decision not checked: arm .cache. is not in the fleet file" || exit 9; exit $rc
'

test_expect_success 'without --fleet the dual proof is not checked: missing evidence, not publishable by default' '
	{ gp-verify validity "$R" | cat - "$A" | gp-verify publish $WAIVE_DESIGN -q >out; test $? = 1; } &&
	test "$(dp out cache)" = "null null not_checked not_checked" &&
	reasons out | grep -q "^missing: dual_proof: arm cache: decision not checked: no --fleet file" &&
	jq -e "select(.type==\"verdict\") | .publishable == false and (.missing | length) == 4" out >/dev/null
'
test_expect_success '--allow-missing dual_proof publishes without it, and the reasons say so' '
	gp-verify validity "$R" | cat - "$A" | gp-verify publish $WAIVE_DESIGN -q --allow-missing dual_proof >out &&
	jq -e "select(.type==\"verdict\") | .publishable == true and .missing == [] and (.allowed_missing | length) == 4" out >/dev/null &&
	reasons out | grep -q "^allowed_missing: dual_proof: arm cache: decision not checked: no --fleet file (--allow-missing dual_proof)"
'

test_expect_code 65 'a fleet file with a bad field is bad input naming the field' '
	jq ".arms[0].routes_by_cache=\"yes\"" "$F" >f &&
	back "$R" f 2>err;
	rc=$?; grep -qx "gp-verify: f: field .arms\[0\].routes_by_cache. is not a boolean" err || exit 9; exit $rc
'
# The same proofs on the records the live gp-analyze writes (not the fixture).
live() { r=$1 f=$2; shift 2; gp-verify validity "$r" |
	gp-analyze --pass --ttft-slo-ms 300 --tpot-slo-ms 35 --floor rr --resamples 1000 --accelerators 2 --target 0.8 |
	gp-verify publish $WAIVE_DESIGN -q --fleet "$f" "$@"; }
test_expect_success 'honest through the live gp-analyze: decision and delivery proven, publishable' '
	live "$R" "$F" >out &&
	test "$(dp out cache)" = "true true gateway_counters receipt" &&
	tail -n 1 out | jq -e ".publishable == true and .missing == []"
'
test_expect_success 'live gp-analyze, counters that never moved: the decision fails' '
	jq -c "if .type==\"metrics\" and .phase==\"after\" and .target==\"http://127.0.0.1:8081/metrics\" then .samples[\"$HIT\"] = 0 else . end" "$R" >r &&
	{ live r "$F" >out; test $? = 1; } && test "$(dp out cache | cut -d" " -f1)" = false
'
# Each replay's decision from its own scrapes: a probe burst proves the mode
# (phase 2), never a replay's routing decision.
test_expect_success 'a replay without scrapes of its own is not checked, named; a good probe does not stand in' '
	jq -c "select(.type!=\"metrics\" or .run!=\"cache-r3\")" "$R" >r &&
	{ cat r; jq -c "select(.type==\"metrics\" and .run==\"cache-r2\") | .run=\"probe-cache-r3\" | .source=\"gp-probe\"" "$R"; } >r2 &&
	back r2 "$F" >out; test $? = 1 &&
	test "$(dp out cache)" = "null true gateway_counters receipt" &&
	test "$(jq -c "select(.type==\"dual_proof\" and .arm==\"cache\") | [.replays, .not_scraped]" out)" = "[5,\"cache-r3\"]" &&
	det out cache | grep -q "gw_cache_hits_total +[0-9]* over 4 replays (0 did not move).*; 1 of 5 replays without snapshots of their own: cache-r3" &&
	reasons out | grep -q "^missing: dual_proof: arm cache: decision not checked for 1 of 5 replays (no before/after scrapes of their own: cache-r3)"
'
test_expect_success 'the dual_proof record counts replays only and names those whose counter did not move' '
	jq -c "if .type==\"metrics\" and .run==\"cache-r4\" and .phase==\"after\" and .samples[\"$HIT\"] then .samples[\"$HIT\"] -= 34 else . end" "$R" >r &&
	back r "$F" >out; test $? = 1 &&
	test "$(jq -c "select(.type==\"dual_proof\" and .arm==\"cache\") | [.replays, .not_moved]" out)" = "[5,\"cache-r4\"]" &&
	det out cache | grep -q "over 5 replays (1 did not move).*did not move or fell back: cache-r4"
'

test_done
