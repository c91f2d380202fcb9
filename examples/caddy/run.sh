#!/bin/sh
# examples/caddy/run.sh ARM — run Caddy in the foreground in arm ARM (rr,
# least_conn, hash): the arms' up_cmd.  Writes Caddy's native JSON config for
# the arm into $GP_CADDY_DIR (created) and runs `caddy run` on it:
#   GP_VIP_PORT    the gateway's port (the VIP)
#   GP_B1..GP_B4   the backends, host:port
#   GP_CADDY_DIR   a directory of its own: config, admin socket, logs
# The admin API listens on the unix socket $GP_CADDY_DIR/admin.sock (no TCP
# port to collide with; curl --unix-socket reads it): mode.sh asks it for the
# live config, which is the only word on the mode that counts.
#
# What SSE through Caddy takes, token by token (reverse_proxy):
#   flush_interval -1   every read from the upstream is written to the client
#                       at once (Caddy also flushes text/event-stream by
#                       itself; set here so that no content type can buffer).
#   buffer_requests     the request body (a prompt: kilobytes) is read whole
#                       before it is proxied.  Without it Caddy 2.6.2 cuts
#                       streams short: when the upstream answers within
#                       microseconds of the body's last byte (gp-sim sends its
#                       headers ~20 us after it, before the first token),
#                       Caddy's server side closes the client's request body
#                       while its transport still waits to read that body's
#                       EOF, the transport then closes the upstream connection
#                       ("reading from backend: use of closed network
#                       connection" in caddy.log), and the client gets the
#                       200 headers and a clean end of stream with no event.
#                       Measured here: 7 of 240 streams cut without it, 0 of
#                       240 with it (gp-replay, 2 x 120 requests each way);
#                       0 of 120 against uvicorn, which answers later.  The
#                       race is the one of Caddy's issue #5431 (fixed after
#                       2.6 by wrapping the proxied body).
#   encode: none        no encode handler in the route: a compressor holds a
#                       stream back until it has a block.
#   read_timeout 600s   above the longest gap between two tokens and the
#                       longest prefill (Caddy's default is no timeout).
# The upstream that served each request goes back in X-GP-Backend: the
# response header op of reverse_proxy runs after the upstream answered, when
# {http.reverse_proxy.upstream.hostport} names it (host:port).
set -eu
arm=${1:?usage: run.sh rr|least_conn|hash}
: "${GP_VIP_PORT:?}" "${GP_B1:?}" "${GP_B2:?}" "${GP_B3:?}" "${GP_B4:?}" "${GP_CADDY_DIR:?}"
case $arm in
rr) policy='{"policy": "round_robin"}' ;;
least_conn) policy='{"policy": "least_conn"}' ;;
hash) policy='{"policy": "header", "field": "X-GP-Cache-Key"}' ;;
*) echo "run.sh: no arm '$arm' (rr, least_conn, hash)" >&2; exit 2 ;;
esac
mkdir -p "$GP_CADDY_DIR"
rm -f "$GP_CADDY_DIR/admin.sock"
jq -n --arg dir "$GP_CADDY_DIR" --arg vip "127.0.0.1:$GP_VIP_PORT" --argjson policy "$policy" \
	--arg b1 "$GP_B1" --arg b2 "$GP_B2" --arg b3 "$GP_B3" --arg b4 "$GP_B4" '{
  admin: {listen: ("unix/" + $dir + "/admin.sock"), origins: ["localhost"]},
  logging: {logs: {default: {writer: {output: "file", filename: ($dir + "/caddy.log")}, level: "INFO"}}},
  storage: {module: "file_system", root: ($dir + "/data")},
  apps: {http: {servers: {vip: {
    listen: [$vip],
    automatic_https: {disable: true},
    routes: [{handle: [{
      handler: "reverse_proxy",
      upstreams: [{dial: $b1}, {dial: $b2}, {dial: $b3}, {dial: $b4}],
      load_balancing: {selection_policy: $policy},
      flush_interval: -1,
      buffer_requests: true,
      transport: {protocol: "http", read_timeout: 600000000000, keep_alive: {max_idle_conns_per_host: 64}},
      headers: {response: {set: {"X-GP-Backend": ["{http.reverse_proxy.upstream.hostport}"]}}}
    }]}]
  }}}}
}' >"$GP_CADDY_DIR/caddy.json"
# XDG dirs and HOME inside the directory: Caddy writes its autosave there.
export XDG_CONFIG_HOME="$GP_CADDY_DIR/config" XDG_DATA_HOME="$GP_CADDY_DIR/data" HOME="$GP_CADDY_DIR"
exec caddy run --config "$GP_CADDY_DIR/caddy.json"
