#!/bin/sh
# examples/loxilb/arm.sh ARM — (re)create LoxiLB's load-balancer rule for one
# arm of fleet.json / fleet-pd.json, then stay in the foreground (the arms'
# up_cmd: the campaign stops an arm by its process group), following
# LoxiLB's data-plane log so that the arm's gateway log holds LoxiLB's own
# lines.  On SIGTERM the rule is deleted.
#
#   rr     --select=rr                          round robin
#   chwbl  --select=chwbl                       consistent hash, bounded loads
#   kv     --select=chwbl --kv-exact-mode=3     KV-exact routing from the
#                                               engines' KV events (Tier 1.5)
#   pd     --pd-disagg --kv-exact-mode=1        prefill/decode disaggregated,
#          --ep-role=prefill,decode,...         KV-exact over the prefill pool
#
# Environment: GP_VIP, GP_VIP_PORT (the service), GP_B1..GP_B4 (endpoint IPs),
# GP_BACKEND_PORT (their port); optional GP_LOXILB_EXEC (a prefix that runs a
# command where loxicmd and the log are, e.g. "docker exec llb1"),
# GP_LOXILB_DPLOG (default /var/log/loxilbdp.log), GP_LOXILB_STATE (where
# the log offset at rule creation is kept for mode.sh), GP_CHWBL_LOAD_FACTOR
# (125), GP_KV_BLOCK_SIZE (16), GP_KV_HASH_ALGO (sha256_cbor), GP_KV_ZMQ_PORT
# (5557).  Sources for every flag: README.
set -eu
arm=${1:?usage: arm.sh rr|chwbl|kv|pd}
x=${GP_LOXILB_EXEC:-}
vip=${GP_VIP:?} port=${GP_VIP_PORT:?} bport=${GP_BACKEND_PORT:?}
dplog=${GP_LOXILB_DPLOG:-/var/log/loxilbdp.log}
state=${GP_LOXILB_STATE:-${TMPDIR:-/tmp}/gp-loxilb-$port}
name=gp-$port

eps= roles= n=0
for b in "${GP_B1:-}" "${GP_B2:-}" "${GP_B3:-}" "${GP_B4:-}"; do
	[ -n "$b" ] || continue
	n=$((n + 1))
	eps=$eps${eps:+,}$b:1
	# fleet-pd.json's order: b1 prefill, b2 decode, b3 prefill, b4 decode
	if [ $((n % 2)) = 1 ]; then r=prefill; else r=decode; fi
	roles=$roles${roles:+,}$r
done
[ -n "$eps" ] || { echo "arm.sh: no GP_B1..GP_B4" >&2; exit 2; }
kv="--kv-hash-algo=${GP_KV_HASH_ALGO:-sha256_cbor} --kv-block-size=${GP_KV_BLOCK_SIZE:-16}"
kv="$kv --kv-zmq-port=${GP_KV_ZMQ_PORT:-5557}"
case $arm in
rr)	flags="--select=rr" ;;
chwbl)	flags="--select=chwbl --chwbl-load-factor=${GP_CHWBL_LOAD_FACTOR:-125}" ;;
kv)	flags="--select=chwbl --kv-exact-mode=3 --kv-engine-type=vllm $kv" ;;
pd)	flags="--select=rr --pd-disagg --kv-exact-mode=1 $kv --ep-role=$roles" ;;
*)	echo "arm.sh: unknown arm '$arm' (rr, chwbl, kv, pd)" >&2; exit 2 ;;
esac

$x loxicmd delete lb --name="$name" >/dev/null 2>&1 || :
# Where the data-plane log ends now: mode.sh reads only what follows, so a
# CHWBL line left by an earlier arm cannot confirm this one.
$x sh -c 'wc -c <"$1" 2>/dev/null || echo 0' sh "$dplog" >"$state.logpos"
# shellcheck disable=SC2086 # the flags are words
$x loxicmd create lb "$vip" --tcp="$port:$bport" --endpoints="$eps" --mode=fullproxy \
	--name="$name" $flags
trap '$x loxicmd delete lb --name="$name" >/dev/null 2>&1 || :; exit 0' TERM INT
$x tail -n 0 -F "$dplog" &
wait
