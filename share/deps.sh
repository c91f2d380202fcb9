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
t0=$(date +%s)
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >&2 || {
	echo "deps: apt-get failed; nothing was built" >&2
	exit 1
}
echo "deps: installed in $(( $(date +%s) - t0 )) s" >&2
