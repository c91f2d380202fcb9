#!/bin/sh
# examples/loxilb/mode.sh — print what LoxiLB's runtime says about the rule
# arm.sh made (the arms' mode_cmd), one fact a line:
#     rule VIP:PORT sel=S mode=M kvExactMode=K pd=true|false[ zero_hit_watchdog=N]
#         from the REST API's rule list (GET /netlox/v1/config/loadbalancer/all);
#         zero_hit_watchdog (rules with kvExactMode > 0) is the sum of
#         loxilb_pd_kv_zero_hit_watchdog_total over its service_id labels
#     CHWBL: Initialized for rule N with E endpoints, 256 vnodes each
#         the data-plane log's own line, only from what was written after
#         arm.sh created the rule
# Environment: GP_VIP, GP_VIP_PORT; GP_LOXILB_API (host:port of the REST API,
# default GP_VIP:11111), GP_LOXILB_EXEC, GP_LOXILB_DPLOG, GP_LOXILB_STATE as
# for arm.sh.
set -u
vip=${GP_VIP:?} port=${GP_VIP_PORT:?}
api=${GP_LOXILB_API:-$vip:11111}
x=${GP_LOXILB_EXEC:-}
dplog=${GP_LOXILB_DPLOG:-/var/log/loxilbdp.log}
state=${GP_LOXILB_STATE:-${TMPDIR:-/tmp}/gp-loxilb-$port}

wd=$(curl -sf --max-time 5 "http://$api/metrics" |
	awk '/^loxilb_pd_kv_zero_hit_watchdog_total[{ ]/ { s += $NF } END { print s + 0 }')
curl -sf --max-time 5 "http://$api/netlox/v1/config/loadbalancer/all" |
	jq -r --arg ip "$vip" --argjson port "$port" --arg wd "${wd:-?}" '
	  .lbAttr[]?.serviceArguments | select(.externalIP == $ip and .port == $port) |
	  "rule \(.externalIP):\(.port) sel=\(.sel // 0) mode=\(.mode // 0) kvExactMode=\(.kvExactMode // 0)" +
	  " pd=\(.pd_disagg_mode // false)" + (if (.kvExactMode // 0) > 0 then " zero_hit_watchdog=\($wd)" else "" end)'
off=$(cat "$state.logpos" 2>/dev/null || echo 0)
$x tail -c +"$((off + 1))" "$dplog" 2>/dev/null |
	sed -n 's/^.*: \(CHWBL: Initialized for rule .*\)$/\1/p'
