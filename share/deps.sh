#!/bin/sh
# deps.sh [--check] PKG... — install the Debian packages gp needs.
# --check: exit 0 when all are installed, 1 otherwise (prints nothing else).
# Without it: apt-get install the missing ones (as root), or print the exact
# command to run when not root.
check=0
[ "$1" = --check ] && { check=1; shift; }
if ! command -v dpkg-query >/dev/null 2>&1; then
	[ $check = 1 ] && exit 0
	echo "deps: not a Debian system; install the equivalents of: $*" >&2
	exit 0
fi
missing=
for p in "$@"; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $s in *"ok installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
[ $check = 1 ] && exit 1
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages; run:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >&2
