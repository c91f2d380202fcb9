#!/bin/sh
# deps.sh [--check|--list] — the Debian packages gp needs (share/packages).
#   --check  exit 0 when all are installed, 1 otherwise (prints nothing)
#   --list   print the package names, one per line
#   (none)   apt-get install the missing ones as root; when not root, print
#            the exact command to run and exit 1
# GP_PACKAGES=FILE reads another list (for tests).
# A line "PKG:CMD" in share/packages is satisfied by the package or by the
# command CMD already on PATH (node and npm often come from elsewhere).
here=$(dirname "$0")
pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${GP_PACKAGES:-$here/packages}")
case ${1:-} in
--list) printf '%s\n' $pkgs | sed 's/:.*//'; exit 0 ;;
--check) check=1 ;;
*) check=0 ;;
esac
if ! command -v dpkg-query >/dev/null 2>&1; then
	[ $check = 1 ] && exit 0
	echo "deps: not a Debian system; install the equivalents of:" $pkgs >&2
	exit 0
fi
missing=
for e in $pkgs; do
	p=${e%%:*}
	case $e in *:*) command -v "${e#*:}" >/dev/null 2>&1 && continue ;; esac
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $s in *"ok installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
[ $check = 1 ] && exit 1
if [ "$(id -u)" != 0 ]; then
	echo "deps: gp needs Debian packages that are not installed; run:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
	echo "deps: then run make again" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Servers on the list (the gateways, sshd) are for the tests, which start
# their own on loopback with configurations of their own: their packages'
# services must not start on install (nginx and caddy on :80, sshd on :22).  A
# policy-rc.d that denies every start, for the time of the install only,
# where the machine has none of its own.
policy=${GP_POLICY_RC:-/usr/sbin/policy-rc.d}
own_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# gp deps.sh: no service starts during its install\nexit 101\n' >"$policy" &&
		chmod 755 "$policy" && own_policy=1
	trap '[ $own_policy = 1 ] && rm -f "$policy"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi
t0=$(date +%s)
rc=0
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >&2 || rc=1
[ $own_policy = 1 ] && rm -f "$policy" && own_policy=0
[ $rc = 0 ] || {
	echo "deps: apt-get failed; nothing was built" >&2
	exit 1
}
echo "deps: installed in $(( $(date +%s) - t0 )) s" >&2
daemons=
for p in $missing; do
	case $p in haproxy) daemons="$daemons haproxy" ;; nginx) daemons="$daemons nginx" ;; caddy) daemons="$daemons caddy" ;; openssh-server) daemons="$daemons ssh" ;; esac
done
[ -z "$daemons" ] || {
	echo "deps: installed for the tests and not started:$daemons (the tests run their own);" >&2
	echo "deps: on a systemd host Debian enables them at boot; to keep them off: systemctl disable$daemons" >&2
}
