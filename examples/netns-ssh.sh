#!/bin/sh
# netns-ssh.sh — a stand-in for ssh that GNU parallel can use (--ssh) so that
# a "host" of --sshlogin is a network namespace of this machine:
#
#   parallel --ssh examples/netns-ssh.sh -S 1/ns1,1/ns2 CMD ::: ...
#
# parallel calls it as `$ssh HOST -- COMMAND...` (COMMAND is one shell
# command line, as ssh would hand it to the remote shell); it runs that line
# with sh inside namespace HOST (ip netns exec: needs CAP_NET_ADMIN).  The
# namespace shares this machine's files, clock and environment, so shards
# need no file transfer; only their network (addresses, routes) is their own.
# tests/t3045-replay-netns-shard.sh runs two shards this way.
#
# As sshd does, it gives the command the user's login shell in SHELL and a
# HOME: parallel's remote worker runs the job with $SHELL, and with SHELL
# unset (a bare environment, as in CI) it runs nothing and exits 0.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 NETNS [--] COMMAND..." >&2; exit 2; }
ns=$1
shift
[ "$1" = -- ] && shift
pw=$(getent passwd "$(id -u)" || true)
login_shell=$(printf '%s\n' "$pw" | cut -d: -f7)
[ -x "${login_shell:-/nonexistent}" ] || login_shell=/bin/sh
export SHELL="${SHELL:-$login_shell}"
[ -n "${HOME:-}" ] || { HOME=$(printf '%s\n' "$pw" | cut -d: -f6); export HOME="${HOME:-/}"; }
exec ip netns exec "$ns" /bin/sh -c "$*"
