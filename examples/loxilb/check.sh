#!/bin/sh
# examples/loxilb/check.sh — the gateway checks of gp-health (fleet
# gateway.checks, method §3 step 1) for LoxiLB:
#
#   check.sh up               "up" when LoxiLB runs: its container is running
#                             (GP_LOXILB_CONTAINER, via docker inspect), else its
#                             REST API answers (GP_LOXILB_API)
#   check.sh prefill-timeout  the LLB_PD_PREFILL_TIMEOUT_SEC LoxiLB runs with, in
#                             seconds ("unset" when it has none)
#
# Environment: GP_LOXILB_API (host:port), GP_LOXILB_CONTAINER (optional),
# GP_LOXILB_EXEC (optional: the command where LoxiLB runs, e.g.
# "docker exec llb1", as for arm.sh and mode.sh).
set -u
case ${1:-} in
up)
	if [ -n "${GP_LOXILB_CONTAINER:-}" ]; then
		[ "$(docker inspect -f '{{.State.Running}}' "$GP_LOXILB_CONTAINER" 2>/dev/null)" = true ] &&
			echo up || echo "down: container $GP_LOXILB_CONTAINER is not running"
	else
		curl -sf --max-time 5 -o /dev/null "http://${GP_LOXILB_API:?}/netlox/v1/config/loadbalancer/all" &&
			echo up || echo "down: LoxiLB's API at $GP_LOXILB_API does not answer"
	fi
	;;
prefill-timeout)
	# The variable in LoxiLB's own environment: its process's, where it runs.
	v=$(${GP_LOXILB_EXEC:-} sh -c 'p=$(pidof loxilb 2>/dev/null | cut -d" " -f1);
		[ -n "$p" ] && tr "\0" "\n" <"/proc/$p/environ" | sed -n "s/^LLB_PD_PREFILL_TIMEOUT_SEC=//p"' 2>/dev/null)
	echo "${v:-unset}"
	;;
*) echo "usage: check.sh up|prefill-timeout" >&2; exit 2 ;;
esac
