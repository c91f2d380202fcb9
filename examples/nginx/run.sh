#!/bin/sh
# examples/nginx/run.sh ARM — run nginx in the foreground in arm ARM (rr,
# least_conn, hash): the arms' up_cmd.  Renders common.conf and ARM.conf with
# the environment into $GP_NGINX_DIR (its prefix: config, pid, logs, temp):
#   GP_VIP_PORT    the gateway's port (the VIP)
#   GP_B1..GP_B4   the backends, host:port
#   GP_NGINX_DIR   a directory of its own (created)
# nginx has no environment substitution of its own, hence the sed.
set -eu
arm=${1:?usage: run.sh rr|least_conn|hash}
here=$(cd "$(dirname "$0")" && pwd)
: "${GP_VIP_PORT:?}" "${GP_B1:?}" "${GP_B2:?}" "${GP_B3:?}" "${GP_B4:?}" "${GP_NGINX_DIR:?}"
[ -f "$here/$arm.conf" ] || { echo "run.sh: no arm '$arm' ($here/$arm.conf)" >&2; exit 2; }
mkdir -p "$GP_NGINX_DIR/tmp"
render() {
	sed -e "s|\${GP_VIP_PORT}|$GP_VIP_PORT|g; s|\${GP_NGINX_DIR}|$GP_NGINX_DIR|g" \
	    -e "s|\${GP_B1}|$GP_B1|g; s|\${GP_B2}|$GP_B2|g; s|\${GP_B3}|$GP_B3|g; s|\${GP_B4}|$GP_B4|g" "$1"
}
render "$here/$arm.conf" >"$GP_NGINX_DIR/upstream.conf"
render "$here/common.conf" >"$GP_NGINX_DIR/nginx.conf"
: >"$GP_NGINX_DIR/error.log"
exec nginx -p "$GP_NGINX_DIR" -c "$GP_NGINX_DIR/nginx.conf" -e "$GP_NGINX_DIR/error.log" -g 'daemon off;'
