# tests/gateway.sh — real gateways in front of gp-sim for the e2e tests of
# gp-health and gp-probe.  Source after lib.sh.
#
#   start_fleet [GP-SIM ARGS...]  four gp-sim backends; exports GP_B1..GP_B4,
#                                 GP_VIP_PORT, GP_PROM_PORT (all free, loopback)
#   start_router POLICY [ARGS]    gp-sim's engines with its router on GP_VIP_PORT
#   start_haproxy ARM             haproxy -db with examples/haproxy/common.cfg and
#                                 ARM.cfg, in the foreground of a background job
#   start_nginx ARM               examples/nginx/run.sh ARM, prefix in $TRASH/nginx
#   start_caddy ARM               examples/caddy/run.sh ARM, its files in $TRASH/caddy;
#                                 waits for the VIP and the admin socket
#   stop_gateway                  stop the gateway started last (by its pid)
#   fleet_from TEMPLATE           the example fleet file with the addresses filled
#                                 in and examples/ paths made absolute
#
# Every process is registered with cleanup_pid, so it is killed at exit.

start_fleet() {
	start_sim --backends 4 --max-model-len 8192 "$@" || return 1
	GP_B1=127.0.0.1:$SIM_PORT GP_B2=127.0.0.1:$((SIM_PORT + 1))
	GP_B3=127.0.0.1:$((SIM_PORT + 2)) GP_B4=127.0.0.1:$((SIM_PORT + 3))
	_p=$(free_port_range 2) || return 1
	GP_VIP_PORT=$_p GP_PROM_PORT=$((_p + 1))
	export GP_B1 GP_B2 GP_B3 GP_B4 GP_VIP_PORT GP_PROM_PORT
}

# start_router POLICY [ARGS...]: gp-sim's four engines with its router on
# GP_VIP_PORT (policy POLICY); the router's port is picked first.
start_router() {
	_pol=$1
	shift
	SIM_PORT=$(free_port_range 5) || return 1
	GP_VIP_PORT=$((SIM_PORT + 4)) GP_PROM_PORT=$((SIM_PORT + 4))
	gp-sim --port "$SIM_PORT" --backends 4 --max-model-len 8192 --router "$GP_VIP_PORT" \
		--policy "$_pol" "$@" 2>>"$TRASH/sim.log" &
	SIM_PID=$!
	cleanup_pid $SIM_PID
	GP_B1=127.0.0.1:$SIM_PORT GP_B2=127.0.0.1:$((SIM_PORT + 1))
	GP_B3=127.0.0.1:$((SIM_PORT + 2)) GP_B4=127.0.0.1:$((SIM_PORT + 3))
	export GP_B1 GP_B2 GP_B3 GP_B4 GP_VIP_PORT GP_PROM_PORT
	for _b in 0 1 2 3 4; do wait_port $((SIM_PORT + _b)) || return 1; done
}

start_haproxy() {
	haproxy -db -f "$GP_TOP/examples/haproxy/common.cfg" -f "$GP_TOP/examples/haproxy/$1.cfg" \
		2>>"$TRASH/haproxy.log" &
	GW_PID=$!
	cleanup_pid $GW_PID
	wait_port "$GP_VIP_PORT" && wait_port "$GP_PROM_PORT"
}

start_nginx() {
	GP_NGINX_DIR=$TRASH/nginx
	export GP_NGINX_DIR
	sh "$GP_TOP/examples/nginx/run.sh" "$1" 2>>"$TRASH/nginx.log" &
	GW_PID=$!
	cleanup_pid $GW_PID
	wait_port "$GP_VIP_PORT"
}

start_caddy() {
	GP_CADDY_DIR=$TRASH/caddy
	export GP_CADDY_DIR
	sh "$GP_TOP/examples/caddy/run.sh" "$1" 2>>"$TRASH/caddy.log" &
	GW_PID=$!
	cleanup_pid $GW_PID
	wait_port "$GP_VIP_PORT" || return 1
	for _i in $(seq 1 100); do [ -S "$GP_CADDY_DIR/admin.sock" ] && return 0; sleep 0.05; done
	return 1
}

stop_gateway() {
	kill "$GW_PID" 2>/dev/null
	wait "$GW_PID" 2>/dev/null
	for _i in $(seq 1 100); do port_free "$GP_VIP_PORT" && return 0; sleep 0.05; done
	return 1
}

fleet_from() {
	sed -e "s/\${GP_VIP_PORT}/$GP_VIP_PORT/g; s/\${GP_PROM_PORT}/$GP_PROM_PORT/g" \
	    -e "s/\${GP_B1}/$GP_B1/g; s/\${GP_B2}/$GP_B2/g; s/\${GP_B3}/$GP_B3/g; s/\${GP_B4}/$GP_B4/g" \
	    -e "s|\${GP_NGINX_DIR}|${GP_NGINX_DIR:-}|g; s|\${GP_B1_PORT}|${GP_B1#*:}|g" \
	    -e "s|\${GP_CADDY_DIR}|${GP_CADDY_DIR:-}|g" \
	    -e "s| examples/| $GP_TOP/examples/|g; s|\${GP_TOP}|$GP_TOP|g" "$1"
}
