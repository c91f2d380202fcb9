#!/bin/sh
# bench-coverage.sh — the real coverage of every interval gp reports, by
# simulation (bench/coverage.c): the compare (Welch) and noise-floor (t)
# intervals at N = 3, 5, 10 reps under no difference and a known one, the
# false-WIN rate under no difference, the EQUIVALENT rate when the true
# difference equals delta, the knee's goodput and crossing-rate intervals, the
# knee comparison's ratio (Fieller), and
# BCa p50/p90/p99 on lognormal latencies with n = 200 ... 5000.  Beside the
# Welch interval, the bootstrap over rep means gp used before (BCa), for
# contrast.  Prints figures; not a test.
#
# Goals: every 95 % interval covers >= 94 %; false WIN <= 2.5 %; EQUIVALENT at
# |true diff| = delta <= 5 %.  2000 simulations per cell give a Monte Carlo
# standard error of 0.49 % on a 95 % coverage (+-1 % at 95 %).
#
#   sh bench/bench-coverage.sh             (after make; a few minutes on one core)
#   GP_COVERAGE_SIMS=500 sh bench/bench-coverage.sh    (quicker, +-2 %)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/bench
mkdir -p "$OUT"
[ -f "$TOP/build/libgp.a" ] || { echo "bench-coverage: build first (make)"; exit 1; }
make -s -C "$TOP" build/bench/coverage || exit 1
cp "$TOP/build/bench/coverage" "$OUT/coverage" || exit 1
echo "== coverage of gp's intervals (goals: >= 94 % at 95 %; false WIN <= 2.5 %; EQUIVALENT at delta <= 5 %)"
/usr/bin/time -f "# %e s, %M KiB" "$OUT/coverage" "${GP_COVERAGE_SIMS:-2000}" "${GP_COVERAGE_B:-2000}"
