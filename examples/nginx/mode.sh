#!/bin/sh
# examples/nginx/mode.sh — name the balancer the running nginx uses for
# upstream "llm", from its own runtime: one request through the VIP, then the
# debug log line of the peer-selection function the worker ran for it (the
# keepalive module logs "get keepalive peer" around it and is skipped; see
# common.conf), e.g.
#     nginx balancer: get consistent hash peer
# The arms' mode_cmd.  Usage: mode.sh [VIP_PORT [NGINX_DIR]].
port=${1:-$GP_VIP_PORT}
dir=${2:-$GP_NGINX_DIR}
log=$dir/error.log
before=$(wc -l <"$log" 2>/dev/null || echo 0)
curl -s -o /dev/null --max-time 5 -H 'x-gp-cache-key: gp-mode-check' "http://127.0.0.1:$port/v1/models"
sleep 0.2
tail -n +"$((before + 1))" "$log" | grep -o 'get [a-z ]*peer' | grep -v 'get keepalive peer' | tail -n 1 | sed 's/^/nginx balancer: /'
