#!/bin/sh
# bench/run.sh — run every bench/bench-*.sh in turn (`make bench`).
# Benchmarks print figures and the ratios behind the goals, each with the
# command that measured it; a bench fails (and so make bench) when a figure is
# missing, not when a goal is missed.  Each script names its
# goal beside what it measured.  Run on a quiet machine; compare ratios measured
# side by side within one run, not absolute times across runs.
cd "$(dirname "$0")/.." || exit 1
GP_BIN=${GP_BIN:-$PWD/bin}
export GP_BIN
status=0
for b in bench/bench-*.sh; do
	[ -f "$b" ] || continue
	case " ${BENCH:-} " in
	"  ") ;;
	*" $(basename "$b" .sh | sed 's/^bench-//') "*) ;;
	*) continue ;;
	esac
	echo "=== $b"
	sh "$b" || { echo "=== $b failed (exit $?)"; status=1; }
done
exit $status
