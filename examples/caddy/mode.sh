#!/bin/sh
# examples/caddy/mode.sh — name the load-balancing policy the running Caddy
# uses, from its own runtime: the admin API's live config (GET /config/ on
# the admin socket), never the file run.sh wrote, e.g.
#     caddy lb_policy: header X-GP-Cache-Key upstreams 4
# A policy changed at run time (POST /load or PATCH /config/...) shows here;
# a Caddy that is not running prints nothing.  The arms' mode_cmd.
# Usage: mode.sh [CADDY_DIR].
dir=${1:-$GP_CADDY_DIR}
curl -s --max-time 5 --unix-socket "$dir/admin.sock" http://localhost/config/apps/http/servers/vip/routes/0/handle/0 |
	jq -r 'select(.handler == "reverse_proxy") |
		"caddy lb_policy: " + (.load_balancing.selection_policy.policy // "random") +
		(if .load_balancing.selection_policy.field then " " + .load_balancing.selection_policy.field else "" end) +
		" upstreams \(.upstreams | length)"' 2>/dev/null
