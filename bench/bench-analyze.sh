#!/bin/sh
# bench-analyze.sh — gp-analyze speed and memory on 1,000,000 request records,
# and the BCa bootstrap of a p99 against scipy.stats.bootstrap(method='BCa'),
# side by side on the same data.  Prints figures; not a test.
#
#   sh bench/bench-analyze.sh            (from the top of the tree, after make)
#   GP_BENCH_REQUESTS=200000 sh bench/bench-analyze.sh   (a smaller run)
#
# Scratch files go to build/bench/ (the 1M-record input is kept for reuse).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GP_BIN:-$TOP/bin}
OUT=$TOP/build/bench
N=${GP_BENCH_REQUESTS:-1000000}
PY=/usr/bin/python3
mkdir -p "$OUT"
AWK=$(command -v mawk || command -v awk)
TIME=/usr/bin/time

echo "== gp-analyze on $N request records (2 arms x 3 rates x 5 reps), 10000 resamples per CI"
IN=$OUT/requests-$N.ndjson
if [ ! -s "$IN" ]; then
	# A deterministic synthetic campaign: lognormal-ish TTFT/TPOT growing with
	# load, 2 % failed, 3 % single-token; per-run run_end trailers.
	"$AWK" -v total="$N" 'BEGIN {
		srand(12345); per = int(total / 30); nr = 0
		split("floor cache", A, " "); split("4 8 12", R, " ")
		for (a = 1; a <= 2; a++) for (r = 1; r <= 3; r++) for (rep = 1; rep <= 5; rep++) {
			run = A[a] "-" R[r] "-" rep; load = R[r] / 12 * (a == 1 ? 1 : 0.85)
			for (i = 0; i < per; i++) {
				u = rand(); t = i / R[r]
				pre = "{\"type\":\"request\",\"run\":\"" run "\",\"arm\":\"" A[a] "\",\"rate_rps\":" R[r] ",\"rep\":" rep ",\"id\":\"r" i "\",\"t_sent_s\":" sprintf("%.3f", t)
				if (u < 0.02) { print pre ",\"ttft_ms\":null,\"tpot_ms\":null,\"e2e_ms\":null,\"out_tokens\":0,\"outcome\":\"failed\",\"error\":\"timeout\"}"; continue }
				ttft = 80 * exp(0.6 * (rand() + rand() + rand() - 1.5) * 2) * (1 + 4 * load * load)
				if (u < 0.05) { printf "%s,\"ttft_ms\":%.3f,\"tpot_ms\":null,\"e2e_ms\":%.3f,\"out_tokens\":1,\"outcome\":\"single_token\",\"error\":null}\n", pre, ttft, ttft; continue }
				tpot = 18 * exp(0.4 * (rand() + rand() - 1)) * (1 + load)
				printf "%s,\"ttft_ms\":%.3f,\"tpot_ms\":%.3f,\"e2e_ms\":%.3f,\"out_tokens\":128,\"outcome\":\"ok\",\"error\":null}\n", pre, ttft, tpot, ttft + 127 * tpot
			}
			printf "{\"type\":\"run_end\",\"run\":\"%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"attempted\":%d,\"duration_s\":%.3f}\n", run, A[a], R[r], rep, per, per / R[r]
		}
	}' >"$IN.tmp" && mv "$IN.tmp" "$IN"
fi
echo "input: $(grep -c '"request"' "$IN") request records, $(du -m "$IN" | cut -f1) MB"
$TIME -v "$BIN/gp-analyze" --no-validity --ttft-slo-ms 300 --tpot-slo-ms 30 --floor floor \
	--equiv floor --delta 0.02 --resamples 10000 --seed 1 "$IN" >"$OUT/analysis.ndjson" 2>"$OUT/time.txt"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.txt")
user=$(sed -n 's/.*User time (seconds): //p' "$OUT/time.txt")
echo "gp-analyze: wall $wall, user ${user}s, peak RSS $((rss / 1024)) MB, $(wc -l <"$OUT/analysis.ndjson") records out"
printf 'intervals computed: '
jq -s '[.[] | select(.type == "arm_summary") | [.ttft_ms, .tpot_ms, .ttft_ms_cluster, .tpot_ms_cluster][] | .[]] | length + 0' "$OUT/analysis.ndjson" | tr -d '\n'
echo " latency quantile CIs (+ good-fraction, floor and compare CIs)"
# Where the time goes: parsing alone (no resamples worth mentioning).
$TIME -f "%e %M" "$BIN/gp-analyze" --no-validity --ttft-slo-ms 300 --tpot-slo-ms 30 \
	--resamples 100 "$IN" 2>"$OUT/time2.txt" >/dev/null
echo "  of which reading + parsing (same run with 100 resamples): $(cut -d' ' -f1 "$OUT/time2.txt") s"

echo
echo "== BCa of p99, 20000 values, 10000 resamples: gp (boot.c) vs scipy.stats.bootstrap"
# bench/boot-p99.c, built by make under the project's warnings
make -s -C "$TOP" build/bench/boot-p99
"$PY" -c "
import numpy as np
x = np.random.default_rng(2024).lognormal(np.log(200), 0.6, 20000)
np.savetxt('$OUT/p99-values.txt', x, fmt='%.17g')"
gp=$("$OUT/boot-p99" "$OUT/p99-values.txt" 0.99 10000)
gp_t=$(echo "$gp" | cut -d' ' -f4)
# scipy: vectorized BCa; batch=250 bounds memory (the jackknife alone is
# 20000 x 19999 values), measured as peak RSS.
$TIME -f "%M" "$PY" -c "
import time, numpy as np, scipy.stats as st
x = np.loadtxt('$OUT/p99-values.txt')
t0 = time.perf_counter()
r = st.bootstrap((x,), lambda s, axis=-1: np.quantile(s, 0.99, axis=axis), n_resamples=10000,
                 batch=250, method='BCa', random_state=np.random.default_rng(7))
t1 = time.perf_counter()
print('%.9g %.9g %.9g %.6f' % (np.quantile(x, 0.99), r.confidence_interval.low, r.confidence_interval.high, t1 - t0))
" >"$OUT/scipy.txt" 2>"$OUT/scipy-time.txt"
sp=$(cat "$OUT/scipy.txt")
sp_t=$(echo "$sp" | cut -d' ' -f4)
echo "gp    : est lo hi seconds = $gp"
echo "scipy : est lo hi seconds = $sp   (peak RSS $(( $(tail -n 1 "$OUT/scipy-time.txt") / 1024 )) MB)"
"$AWK" -v a="$gp" -v b="$sp" 'BEGIN {
	split(a, g, " "); split(b, s, " ")
	w = s[3] - s[2]
	printf "speed-up: %.0fx (goal >= 20x)\n", s[4] / g[4]
	printf "interval agreement: lo differs by %.2f%%, hi by %.2f%% of the scipy interval width (Monte Carlo, 10000 resamples each)\n",
		100 * (g[2] - s[2]) / w, 100 * (g[3] - s[3]) / w
}'
