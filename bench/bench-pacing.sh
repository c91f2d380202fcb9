#!/bin/sh
# bench-pacing.sh — gp-sim's pacing lag (a token's bytes handed to the kernel
# vs its scheduled time in the engine model) at 500, 1000 and 2000 open
# streams, 20 ms steps, 8 backends, gp-sim on one core: once with the
# engines' step phases spread over a step (as independent arrivals spread
# them), once with every engine stepping at the same instants (each step then
# owes a token to every stream at once).  One line per run; the goal is lag
# p99 <= 1 ms at 1000 streams (issue 9).  Runs bench-sim.sh; BENCH_RT=1 and
# PACING_STREAMS="500 1000 2000" pass through.
set -u
cd "$(dirname "$0")/.." || exit 1
printf '%-7s %-8s %9s %9s %9s %9s %9s %8s %s\n' streams phases events/s p50_ms p99_ms p999_ms max_ms cpu_us warnings
for n in ${PACING_STREAMS:-500 1000 2000}; do
	for st in 20 0; do
		out=$(STAGGER_MS=$st sh bench/bench-sim.sh "$n" 8 20 6 2>&1)
		ph=spread; [ "$st" = 0 ] && ph=aligned
		eps=$(echo "$out" | awk '/^conns/ { for (i = 1; i <= NF; i++) if ($i == "events_per_s") print $(i + 1) }')
		echo "$out" | awk -v n="$n" -v ph="$ph" -v eps="${eps:-?}" '
			/stats:/ { for (i = 1; i <= NF; i++) {
				if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1);
				if ($i == "p99.9") p999 = $(i + 1); if ($i == "max") mx = $(i + 1);
				if ($i == "cpu" && $(i + 1) == "per") cpu = $(i - 2) } }
			/pacing warnings/ { w = $2 }
			END { printf "%-7s %-8s %9s %9s %9s %9s %9s %8s %s\n", n, ph, eps, p50, p99, p999, mx, cpu, w }'
	done
done
