#!/bin/sh
# Steps that cannot be done stop the campaign before anything drives the
# fleet (campaign.sh preflight: a cache reset with no reset_url, a
# placeholder left, a relative command path, an arm the fleet lacks), and
# every example fleet can reset its caches; gp-health's gateway checks
# (fleet gateway.checks: expect and at_least, LoxiLB's prefill timeout);
# gp-calibrate idle against gp-sim with a half-speed member.
. "$(dirname "$0")/lib.sh"

for c in jq curl flock; do command -v $c >/dev/null || skip_all "no $c"; done
for t in gp-sim gp-health gp-calibrate gp-trace; do
	test -x "$GP_BIN/$t" || skip_all "$t not built"
done
C=$GP_TOP/examples/campaign
BASE=$(free_port_range 7) || skip_all "no free ports"
export GP_B1=127.0.0.1:$BASE GP_B2=127.0.0.1:$((BASE + 1)) GP_B3=127.0.0.1:$((BASE + 2)) \
	GP_B4=127.0.0.1:$((BASE + 3)) GP_ROUTER=127.0.0.1:$((BASE + 4)) \
	GP_VIP_PORT=$((BASE + 5)) GP_PROM_PORT=$((BASE + 6))
fill() {
	sed -e "s|\${GP_TOP}|$GP_TOP|g; s/\${GP_VIP_PORT}/$GP_VIP_PORT/g; s/\${GP_PROM_PORT}/$GP_PROM_PORT/g" \
	    -e "s/\${GP_ROUTER}/$GP_ROUTER/g" \
	    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" "$1"
}
fill "$C/fleet.json" >fleet.json
cp "$C/protocol.json" protocol.json
pre() { # FLEET: campaign.sh preflight on it, into pre.err
	mkdir -p o && rm -f o/preflight.ok
	env FLEET=$TRASH/$1 PROTOCOL=$TRASH/protocol.json OUT=$TRASH/o sh "$C/campaign.sh" preflight 2>pre.err
}

test_expect_success 'preflight: the filled example fleet passes' '
	pre fleet.json && test -e o/preflight.ok && ! test -s pre.err
'
test_expect_success 'preflight: cache "reset" and a backend without reset_url: 65, naming the backend' '
	jq "del(.backends[1].reset_url)" fleet.json >f1.json &&
	{ pre f1.json; test $? = 65; } && ! test -e o/preflight.ok &&
	grep -q "protocol cache \"reset\": backend b2 (field .backends\[1\].) has no reset_url" pre.err
'
test_expect_success 'preflight: the same with cache_reset_cmd, or cache "warm": passes' '
	jq "del(.backends[1].reset_url) | .cache_reset_cmd = \"true\"" fleet.json >f2.json && pre f2.json &&
	jq ".cache = \"warm\"" protocol.json >p.json && jq "del(.backends[1].reset_url)" fleet.json >f3.json &&
	mkdir -p o && env FLEET=$TRASH/f3.json PROTOCOL=$TRASH/p.json OUT=$TRASH/o sh "$C/campaign.sh" preflight
'
test_expect_success 'preflight: an unexpanded placeholder: 65, naming the field' '
	jq ".backends[2].url = \"http://\${GP_B3}\"" fleet.json >f4.json &&
	{ pre f4.json; test $? = 65; } &&
	grep -q "field .backends\[2\].url. holds the unexpanded placeholder \${GP_B3}" pre.err
'
test_expect_success 'preflight: a command variable not set in the environment: 65, naming the field' '
	jq ".arms[0].mode_cmd = \"sh \${GP_NO_SUCH_VAR}/mode.sh\"" fleet.json >f5.json &&
	{ pre f5.json; test $? = 65; } &&
	grep -q "field .arms\[0\].mode_cmd.: \${GP_NO_SUCH_VAR} is not set" pre.err
'
test_expect_success 'preflight: a relative up_cmd path: 65, naming the field and the path' '
	jq ".arms[1].up_cmd = \"exec haproxy -db -f examples/haproxy/common.cfg\"" fleet.json >f6.json &&
	{ pre f6.json; test $? = 65; } &&
	grep -q "field .arms\[1\].up_cmd.: relative path .examples/haproxy/common.cfg." pre.err &&
	! grep -q "arms\[0\]" pre.err
'
test_expect_success 'preflight: every example fleet, filled, passes (commands name their files under ${GP_TOP})' '
	for f in "$GP_TOP"/examples/*/fleet*.json "$GP_TOP"/examples/fleet.json "$GP_TOP"/examples/gateways/*.json; do
		sed -e "s|\${GP_TOP}|$GP_TOP|g" -e "s/\${\(GP_[A-Z0-9_]*\)}/x\1/g" "$f" >ex.json &&
		jq --argjson a "$(jq "[.arms[].name]" ex.json)" ".arms = \$a" protocol.json >ex-p.json &&
		mkdir -p o && env FLEET=$TRASH/ex.json PROTOCOL=$TRASH/ex-p.json OUT=$TRASH/o sh "$C/campaign.sh" preflight ||
			{ echo "$f"; exit 1; }
	done
'
test_expect_success 'preflight: a kubectl resource (deploy/NAME) is no relative path' '
	jq ".arms[0].mode_cmd = \"kubectl logs deploy/epp | tail -n 1\"" fleet.json >f8.json && pre f8.json
'
test_expect_success 'preflight: a protocol arm the fleet lacks: 65' '
	jq ".arms = [.arms[] | select(.name != \"chash\")]" fleet.json >f7.json &&
	{ pre f7.json; test $? = 65; } && grep -q "protocol arm chash is not in the fleet" pre.err
'
test_expect_success 'make stops before phase 0: no health, no calibration, no run' '
	{ make --no-print-directory -f "$C/Makefile" FLEET=$TRASH/f1.json PROTOCOL=$TRASH/protocol.json \
		OUT=$TRASH/m all >make.out 2>&1; test $? != 0; } &&
	grep -q "has no reset_url" make.out && ! test -e m/health && ! test -e m/cal && ! test -e m/runs
'
test_expect_success 'every example fleet gives every backend a reset_url' '
	for f in "$GP_TOP"/examples/*/fleet*.json "$GP_TOP"/examples/fleet.json "$GP_TOP"/examples/gateways/*.json; do
		jq -e "[.backends[] | .reset_url // empty] | length == ($(jq ".backends | length" "$f"))" "$f" >/dev/null ||
			{ echo "$f"; exit 1; }
	done
'
test_expect_code 65 'gp-health: an unexpanded placeholder in a URL is refused naming the field' '
	gp-health --fleet "$C/fleet.json" -q 2>err; rc=$?;
	grep -q "field .gateway.metrics_url. holds the unexpanded placeholder \${GP_PROM_PORT}" err && exit $rc
'

# gp-sim: 4 engines, the fourth at half speed.
start_sim --backends 4 --speed 2,2,2,1 --model gp-sim --max-model-len 8192 \
	--prefill-tok-s 10000 --decode-ms 6 || fail_all "gp-sim did not start"
jq --argjson p "$SIM_PORT" '.vips = [{"name": "vip", "url": "http://127.0.0.1:\($p)"}] | del(.gateway) |
	.backends = [range(4) as $i | {name: "b\($i + 1)", url: "http://127.0.0.1:\($p + $i)",
	reset_url: "http://127.0.0.1:\($p + $i)/reset_prefix_cache"}] | .arms = [{name: "rr"}]' fleet.json >sim.json
gw() { # CHECKS-JSON [gp-health options]: sim.json with these gateway checks
	c=$1; shift
	jq --argjson c "$c" '.gateway = {checks: $c}' sim.json >gw.json && gp-health --fleet gw.json -q "$@" >h.out
}
test_expect_success 'gateway checks: expect matched, at_least met, both ok and first' '
	gw "[{\"name\":\"up\",\"cmd\":\"echo true\",\"expect\":\"^true$\"},
	     {\"name\":\"timeout\",\"cmd\":\"echo 600\",\"at_least\":\"longest_prefill_s\"}]" --longest-prefill-s 3.5 &&
	jq -s -e ".[0].check == \"gateway_cmd\" and .[0].ok and .[1].ok and .[1].value == 600 and .[1].at_least == 3.5
		and .[1].name == \"timeout\" and (.[-1].ready)" h.out >/dev/null
'
test_expect_code 1 'gateway checks: a container not running fails phase 0, naming the check' '
	gw "[{\"name\":\"container up\",\"cmd\":\"echo false\",\"expect\":\"^true$\"}]";
	rc=$?; jq -s -e "(.[0].ok == false) and (.[-1].failed_checks | index(\"gateway_cmd container up\"))" h.out >/dev/null && exit $rc
'
test_expect_code 1 'gateway checks: a prefill timeout below the longest prefill fails' '
	gw "[{\"name\":\"LLB_PD_PREFILL_TIMEOUT_SEC\",\"cmd\":\"echo 2\",\"at_least\":\"longest_prefill_s\"}]" --longest-prefill-s 3.5;
	rc=$?; jq -s -e ".[0].ok == false and (.[0].detail | startswith(\"2 < 3.5\"))" h.out >/dev/null && exit $rc
'
test_expect_code 1 'gateway checks: an unset timeout (not a number) fails' '
	gw "[{\"name\":\"t\",\"cmd\":\"echo unset\",\"at_least\":30}]";
	rc=$?; jq -s -e ".[0].ok == false and (.[0].detail | test(\"not a number\"))" h.out >/dev/null && exit $rc
'
test_expect_success 'gateway checks: without --longest-prefill-s the value is recorded, not judged' '
	gw "[{\"name\":\"t\",\"cmd\":\"echo 2\",\"at_least\":\"longest_prefill_s\"}]" &&
	jq -s -e ".[0].ok and .[0].at_least == null and (.[0].detail | test(\"not compared\"))" h.out >/dev/null
'
test_expect_code 65 'gateway checks: an entry with neither expect nor at_least is bad input' '
	gw "[{\"name\":\"t\",\"cmd\":\"true\"}]" 2>err; rc=$?; grep -q "gateway.checks\[0\]" err && exit $rc
'
test_expect_success 'the LoxiLB fleets check the container and the prefill timeout' '
	for f in "$GP_TOP"/examples/loxilb/fleet.json "$GP_TOP"/examples/loxilb/fleet-pd.json; do
		jq -e "[.gateway.checks[] | .at_least // .expect] == [\"^up$\", \"longest_prefill_s\"]" "$f" >/dev/null || exit 1
	done &&
	env GP_LOXILB_EXEC= sh "$GP_TOP/examples/loxilb/check.sh" prefill-timeout | grep -qx unset
'

# The VIP elsewhere: the idle baseline refuses a target that is one.
jq --argjson p "$GP_VIP_PORT" '.vips = [{"name": "vip", "url": "http://127.0.0.1:\($p)"}]' sim.json >idle.json
gp-trace synth --requests 60 --rate-rps 10 --keys 8 --zipf 0.8 --prefix-tokens 2048 \
	--input-tokens uniform:2100:2400 --output-tokens 16 --block-tokens 512 --seed 7 >trace.ndjson
test_expect_success 'gp-calibrate idle: one idle_request per request, one idle_baseline per member' '
	gp-calibrate idle --fleet idle.json --trace trace.ndjson --requests 4 -o idle.ndjson 2>idle.err ||
		{ cat idle.err; exit 1; }
	test "$(jq -s "map(select(.type == \"idle_request\" and .outcome == \"ok\")) | length" idle.ndjson)" = 16 &&
	test "$(jq -s "map(select(.type == \"idle_baseline\")) | map(.backend) | join(\" \")" -r idle.ndjson)" = "b1 b2 b3 b4"
'
test_expect_success 'gp-calibrate idle: the half-speed member is twice as slow unloaded (TTFT and TPOT)' '
	jq -s -e "map(select(.type == \"idle_baseline\")) as \$b |
		(\$b[3].ttft_ms.p50 / \$b[0].ttft_ms.p50) as \$r | (\$b[3].tpot_ms.p50 / \$b[0].tpot_ms.p50) as \$q |
		\$r > 1.8 and \$r < 2.2 and \$q > 1.8 and \$q < 2.2" idle.ndjson >/dev/null ||
	{ jq -c "select(.type == \"idle_baseline\") | [.backend, .ttft_ms.p50, .tpot_ms.p50]" idle.ndjson; exit 1; }
'
test_expect_success 'gp-calibrate idle: cold prompts (no prefix-cache hit on any member)' '
	for p in 0 1 2 3; do
		curl -sf "http://127.0.0.1:$((SIM_PORT + p))/metrics" |
			awk "/^vllm:prefix_cache_hits_total/ { h += \$2 } /^vllm:prefix_cache_queries_total/ { q += \$2 }
			     END { exit !(q > 0 && h == 0) }" || exit 1
	done
'
test_expect_code 1 'gp-calibrate idle: a member that fails its requests: exit 1, its failures counted' '
	jq ".backends[1].url = \"http://127.0.0.1:$SIM_PORT/nowhere\"" idle.json >bad.json &&
	gp-calibrate idle --fleet bad.json --trace trace.ndjson --requests 2 -o bad.ndjson 2>/dev/null; rc=$?;
	jq -s -e "map(select(.type == \"idle_baseline\" and .backend == \"b2\"))[0].failed == 2" bad.ndjson >/dev/null && exit $rc
'
test_expect_code 2 'gp-calibrate idle: a VIP as a backend is refused' '
	jq ".vips = [{\"url\": .backends[0].url}]" idle.json >vip.json &&
	gp-calibrate idle --fleet vip.json --trace trace.ndjson --requests 1 2>/dev/null
'
test_done
