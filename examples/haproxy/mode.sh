#!/bin/sh
# examples/haproxy/mode.sh — print the load-balancing algorithm HAProxy runs
# for backend "llm", read from HAProxy's runtime (the stats page with
# show-legends, common.cfg), never from our configuration file:
#     backend llm algo=roundrobin
# The arms' mode_cmd.  HAProxy reports the algorithm (roundrobin, hdr, ...);
# it does not report hash-type or hash-balance-factor, so chash and bounded
# both read "algo=hdr" and the probe's concentration tells them apart.
# Usage: mode.sh [PROM_PORT]   (default $GP_PROM_PORT)
port=${1:-$GP_PROM_PORT}
curl -sf --max-time 5 "http://127.0.0.1:$port/stats;csv" |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "algo") c = i }
		 $1 == "llm" && $2 == "BACKEND" && c { print "backend llm algo=" $c }'
