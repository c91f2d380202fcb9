#!/bin/sh
# examples/loxilb and examples/gateways without their gateways: every fleet
# file parses with gp's fleet reader and the tools accept it (nothing
# listening is 69 or 1, never 65 "bad fleet"); LoxiLB's mode_cmd, fed the
# REST rule list, metrics and data-plane log line in the shapes LoxiLB's
# source gives, confirms the arm it should and not the others; gp-verify's
# dual proof reads LoxiLB's counters and its X-Request-Id receipt; a broken
# copy of each file is refused with 65 naming the file and the field.
. "$(dirname "$0")/lib.sh"

for c in jq python3 curl; do command -v $c >/dev/null || skip_all "no $c"; done
for t in gp-health gp-probe gp-verify; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
BASE=$(free_port_range 3) || skip_all "no free ports"
VIP=$BASE BE=$((BASE + 1)) API=$((BASE + 2))
FLEETS="$GP_TOP/examples/loxilb/fleet.json $GP_TOP/examples/loxilb/fleet-pd.json
	$GP_TOP/examples/gateways/vllm-router.json $GP_TOP/examples/gateways/llm-d-epp.json
	$GP_TOP/examples/gateways/dynamo-router.json"

# fill FILE: the template with loopback addresses where nothing listens (the
# VIP, the backends) and the stand-in LoxiLB API; any other placeholder
# becomes a path that does not exist.
fill() {
	sed -e "s|\${GP_TOP}|$GP_TOP|g; s/\${GP_MODEL}/m/g; s/\${GP_VIP}/127.0.0.1/g" \
	    -e "s/\${GP_VIP_PORT}/$VIP/g; s/\${GP_GATEWAY}/127.0.0.1:$VIP/g" \
	    -e "s/\${GP_B[1-4]}:\${GP_BACKEND_PORT}/127.0.0.1:$BE/g; s/\${GP_B[1-4]}/127.0.0.1:$BE/g" \
	    -e "s/\${GP_LOXILB_API}/127.0.0.1:$API/g; s/\${GP_EPP}/127.0.0.1/g" \
	    -e "s|\${GP_[A-Z_]*}|$TRASH/absent|g" "$1"
}
for f in $FLEETS; do fill "$f" >"$(basename "$f")"; done

test_expect_success 'every fleet file is JSON and every placeholder is filled' '
	for f in $FLEETS; do
		jq -e ".arms | length > 0" "$f" >/dev/null || { echo "$f"; exit 1; }
		! grep -n "\\\${" "$(basename "$f")" || { echo "$f: placeholder left"; exit 1; }
	done
'

test_expect_success 'gp-health reads each fleet and finds it unreachable (69, not 65)' '
	for f in $FLEETS; do b=$(basename "$f")
		gp-health --fleet "$b" --timeout-s 1 -q >h.out 2>h.err; rc=$?
		test $rc = 69 || { echo "$b: exit $rc"; cat h.err; exit 1; }
		grep -q "unreachable" h.err && ! grep -q "field" h.err || { cat h.err; exit 1; }
	done
'

test_expect_success 'gp-probe takes every arm: its mode_regex compiles, nothing is 65' '
	for f in $FLEETS; do b=$(basename "$f")
		for a in $(jq -r ".arms[].name" "$b"); do
			GP_VIP=127.0.0.1 GP_VIP_PORT=$VIP GP_LOXILB_API=127.0.0.1:$API \
			GP_LOXILB_DPLOG=$TRASH/absent GP_LOXILB_STATE=$TRASH/absent \
				gp-probe --fleet "$b" --arm "$a" --requests 2 --timeout-s 1 >p.out 2>p.err; rc=$?
			case $rc in 1|69) ;; *) echo "$b $a: exit $rc"; cat p.err; exit 1 ;; esac
			jq -e "select(.type == \"probe\") | .arm == \"$a\"" p.out >/dev/null || { echo "$b $a"; exit 1; }
		done
	done
'

# A stand-in for LoxiLB's REST API and metrics on 127.0.0.1:$API: static
# files in the shapes of loxilb-inference-gateway's
# api/restapi/operations/get_config_loadbalancer_all.go and
# api/prometheus/sockproxy_metrics.go; the data-plane log line as
# loxilb-ebpf's common/log.c writes it.
mkdir -p www/netlox/v1/config/loadbalancer
rule() { # SEL KVEXACT PD — the service's rule (sel and kvExactMode omitted when 0, as LoxiLB does)
	jq -nc --argjson port $VIP --argjson sel $1 --argjson kv $2 --argjson pd $3 '{lbAttr: [
	  {serviceArguments: ({externalIP: "127.0.0.1", port: $port, protocol: "tcp", mode: 4, name: "gp-\($port)"}
	    + (if $sel > 0 then {sel: $sel} else {} end) + (if $kv > 0 then {kvExactMode: $kv} else {} end)
	    + (if $pd then {pd_disagg_mode: true} else {} end)),
	   endpoints: [{endpointIP: "127.0.0.1", targetPort: 1, weight: 1}]},
	  {serviceArguments: {externalIP: "10.0.0.9", port: 80, protocol: "tcp", mode: 4, sel: 8}, endpoints: []}]}' \
		>www/netlox/v1/config/loadbalancer/all
}
watchdog() { printf '# TYPE loxilb_pd_kv_zero_hit_watchdog_total counter\nloxilb_pd_kv_zero_hit_watchdog_total{service_id="1"} %s\n' "$1" >www/metrics; }
rule 0 0 false; watchdog 0
(cd www && exec python3 -m http.server $API --bind 127.0.0.1 >/dev/null 2>&1) &
cleanup_pid $!
wait_port $API || skip_all "the stand-in API did not start"
echo "2026-12-01 10:00:00 INFO  sockproxy_http.c:2144: CHWBL: Initialized for rule 1 with 3 endpoints, 256 vnodes each" >dp.log
export GP_VIP=127.0.0.1 GP_VIP_PORT=$VIP GP_LOXILB_API=127.0.0.1:$API GP_LOXILB_DPLOG=$TRASH/dp.log GP_LOXILB_STATE=$TRASH/st
echo 0 >st.logpos
# confirmed ARM FLEET: 0 when gp-probe confirmed the mode (then the VIP is unreachable: 69)
confirmed() {
	gp-probe --fleet "$2" --arm "$1" --requests 2 --timeout-s 1 >p.out 2>p.err; rc=$?
	jq -e "select(.type == \"probe\") | .mode_confirmed" p.out >/dev/null && test $rc = 69
}

test_expect_success 'rr: the REST rule list (sel omitted) confirms rr, not chwbl or kv' '
	rule 0 0 false && echo 99999 >st.logpos &&
	confirmed rr fleet.json && ! confirmed chwbl fleet.json && ! confirmed kv fleet.json
'
test_expect_success 'chwbl: the CHWBL line written after the rule was made confirms it' '
	rule 8 0 false && echo 0 >st.logpos &&
	confirmed chwbl fleet.json && jq -r "select(.type == \"probe\") | .mode_evidence" p.out | grep -q "^CHWBL: Initialized for rule 1 with 3 endpoints" &&
	! confirmed rr fleet.json
'
test_expect_success 'chwbl: a CHWBL line from before the rule (an earlier arm) does not' '
	rule 8 0 false && wc -c <dp.log >st.logpos &&
	! confirmed chwbl fleet.json && jq -e "select(.type == \"probe\") | .mode_confirmed == false" p.out >/dev/null
'
test_expect_success 'kv and pd: the rule and a zero watchdog confirm; a counting watchdog does not' '
	rule 8 3 false && watchdog 0 && confirmed kv fleet.json &&
	watchdog 12 && ! confirmed kv fleet.json &&
	rule 0 1 true && watchdog 0 && confirmed pd fleet-pd.json && ! confirmed kv fleet.json
'

# The dual proof over tests/data/verify's runs with LoxiLB's counters and
# the pd arm: its arm "cache" renamed pd, the gateway counters renamed.
D=$GP_TOP/tests/data/verify
lox() { sed -e 's/"cache"/"pd"/g' \
	    -e 's/gw_cache_hits_total{mode=\\"[a-z]*\\"}/loxilb_pd_kv_tier15_hits_total{ep_idx=\\"0\\"}/g' \
	    -e 's/gw_cache_miss_total{reason=\\"no_key\\"}/loxilb_pd_kv_tier15_miss_reason_total{reason=\\"no_worker\\"}/g' "$1"; }
# The receipts name the fleet's p1 and d1 (by name: here every member is
# 127.0.0.1 on one port, so host:port cannot tell them apart; on LoxiLB's
# fleet they are distinct IPs), judged against the fleet's roles.
LR="prefill=p1;decode=d1"
lox $D/runs.ndjson | sed "s/\"receipt\":\"prefill=b1;decode=b2\"/\"receipt\":\"$LR\"/g" >runs.ndjson
lox $D/analysis.ndjson >analysis.ndjson
dp() { jq -r 'select(.type == "dual_proof" and .arm == "pd") | "\(.decision_ok) \(.delivery_ok) \(.evidence) \(.delivery_evidence)"' "$1"; }
back() { gp-verify validity "$1" | cat - analysis.ndjson | gp-verify publish -q --fleet fleet-pd.json >v.out 2>v.err; }

test_expect_success 'dual proof: LoxiLB hit counter and X-Request-Id receipts prove pd' '
	grep -q loxilb_pd_kv_tier15_hits_total runs.ndjson && { back runs.ndjson; true; } &&
	test "$(dp v.out)" = "true true gateway_counters receipt" &&
	jq -r "select(.type == \"dual_proof\" and .arm == \"pd\") | .detail" v.out |
		grep -q "loxilb_pd_kv_tier15_hits_total +165 over 5 replays.*loxilb_pd_kv_tier15_miss_reason_total"
'
test_expect_success 'dual proof: misses climbing per request, and a lost receipt, fail it' '
	M="loxilb_pd_kv_tier15_miss_reason_total{reason=\\\"no_worker\\\"}" &&
	jq -c "if .type == \"metrics\" and .arm == \"pd\" and .phase == \"after\" and .samples[\"$M\"] then .samples[\"$M\"] += 40 else . end" \
		runs.ndjson >r1 && { back r1; true; } && test "$(dp v.out)" = "false true gateway_counters receipt" &&
	jq -c "if .type == \"request\" and .arm == \"pd\" and .outcome == \"ok\" and (.id | endswith(\"3\")) then .receipt = null else . end" \
		runs.ndjson >r2 && { back r2; true; } && test "$(dp v.out)" = "true false gateway_counters receipt"
'

test_expect_success 'a broken copy of each fleet file is 65, naming the file and the field' '
	for f in $FLEETS; do b=$(basename "$f")
		jq ".arms[0].expect = \"sideways\"" "$b" >"bad-$b" &&
		jq "del(.backends[0].url)" "$b" >"nourl-$b" || exit 1
		for t in gp-health gp-verify; do
			case $t in gp-verify) set -- publish ;; *) set -- ;; esac
			$t "$@" --fleet "bad-$b" </dev/null >/dev/null 2>err; rc=$?
			test $rc = 65 && grep -qF "bad-$b: field '"'"'arms[0].expect'"'"'" err || { echo "$t $b: $rc"; cat err; exit 1; }
		done
		gp-probe --fleet "nourl-$b" --arm "$(jq -r ".arms[0].name" "$b")" >/dev/null 2>err; rc=$?
		test $rc = 65 && grep -qF "nourl-$b: field '"'"'backends[0].url'"'"'" err || { echo "probe $b: $rc"; cat err; exit 1; }
	done
'
test_done
