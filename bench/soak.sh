#!/bin/sh
# bench/soak.sh — a long steady replay: do gp-replay's memory and its send
# lateness stay flat?  Not part of `make check` or `make bench` (30 minutes).
#
#   sh bench/soak.sh [DURATION_S [RATE_RPS]]     (default 1800 s at 20 req/s)
#
# One gp-sim backend on loopback, a trace of evenly spaced requests (20 prompt
# tokens, 8 output tokens), gp-replay at --rate-rps RATE for DURATION_S.  Every
# SAMPLE_S (default 10) seconds the RSS of gp-replay (VmRSS) is sampled, with
# the host's 1-minute load average.  Afterwards, per window of WINDOW_S
# (default 60) seconds: the median and p99 of send lateness (t_sent_s −
# t_sched_s − connect_ms, doc/records.md).  Each series gets an ordinary
# least-squares slope with its 95% interval (Student t, n − 2 df) and the
# change the slope implies over the run; the first WARMUP_S (default 60)
# seconds are left out of the fit.  A series is flat when both ends of the
# 95% interval imply a change within TOL over the run (RSS: RSS_TOL_KB,
# default 2048 KiB; lateness median: LATE_TOL_MS, default 0.5 ms);
# inconclusive when the interval contains 0 but is wider than that; else not.
# Output: one line per series ending "flat: yes|no|inconclusive"; files in
# $SOAK_DIR (default a mktemp directory, kept).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# /dev/tcp
cd "$(dirname "$0")/.." || exit 1
GP_BIN=${GP_BIN:-$PWD/bin}
PATH=$GP_BIN:$PATH
DUR=${1:-1800}
RATE=${2:-20}
SAMPLE_S=${SAMPLE_S:-10}
WINDOW_S=${WINDOW_S:-60}
WARMUP_S=${WARMUP_S:-60}
RSS_TOL_KB=${RSS_TOL_KB:-2048}
LATE_TOL_MS=${LATE_TOL_MS:-0.5}
D=${SOAK_DIR:-$(mktemp -d /tmp/gp-soak.XXXXXX)}
mkdir -p "$D"
echo "soak: ${DUR} s at ${RATE} req/s, files in $D; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# a free port below the ephemeral range; retried when gp-sim cannot bind it
for try in $(seq 1 20); do
	P=$(awk -v s="$$$try" 'BEGIN { srand(s); printf "%d", 20000 + rand() * 12000 }')
	port_free $P || continue
	gp-sim --port $P --model m --decode-ms 2 >/dev/null 2>"$D/sim.err" &
	SIM=$!
	for i in $(seq 1 100); do port_free $P || break; kill -0 $SIM 2>/dev/null || break; sleep 0.05; done
	kill -0 $SIM 2>/dev/null && ! port_free $P && break
done
trap 'kill $SIM 2>/dev/null' EXIT INT TERM

N=$(awk -v d="$DUR" -v r="$RATE" 'BEGIN { printf "%d", d * r }')
awk -v n="$N" -v r="$RATE" 'BEGIN { for (i = 0; i < n; i++)
	printf "{\"type\":\"trace\",\"id\":\"s%d\",\"t_s\":%.4f,\"input_tokens\":20,\"output_tokens\":8}\n", i, i / r }' >"$D/trace.ndjson"

gp-replay --url http://127.0.0.1:$P --model m --rate-rps "$RATE" "$D/trace.ndjson" >"$D/run.ndjson" 2>"$D/replay.err" &
RP=$!
t0=$(date +%s)
: >"$D/rss.tsv"
while kill -0 $RP 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$RP/status 2>/dev/null)
	[ -n "$rss" ] && echo "$(( $(date +%s) - t0 )) $rss $(cut -d' ' -f1 /proc/loadavg)" >>"$D/rss.tsv"
	sleep "$SAMPLE_S"
done
wait $RP
echo "gp-replay exit $?; $(tail -n 12 "$D/replay.err" | grep attempted)"

jq -r 'select(.type == "request" and .t_sent_s != null) |
	"\(.t_sched_s) \((.t_sent_s - .t_sched_s) * 1000 - .connect_ms)"' "$D/run.ndjson" |
	awk -v w="$WINDOW_S" '{ k = int($1 / w); print k, $2 }' | sort -k1,1n -k2,2g |
	awk -v w="$WINDOW_S" '
	function flush() { if (n) { m = v[int((n - 1) * 0.5) + 1]; p = v[int((n - 1) * 0.99) + 1];
		printf "%d %.4f %.4f %d\n", (cur + 0.5) * w, m, p, n } }
	$1 != cur { flush(); n = 0; cur = $1 } { v[++n] = $2 } END { flush() }' >"$D/late.tsv"

# slope NAME FILE COL TOL UNIT: OLS of column COL on column 1 (seconds).
slope() {
	awk -v name="$1" -v col="$3" -v tol="$4" -v unit="$5" -v dur="$DUR" -v warm="$WARMUP_S" '
	$1 >= warm { n++; x[n] = $1; y[n] = $col; sx += $1; sy += $col }
	END { if (n < 3) { print name ": too few samples (" n ")"; exit }
		mx = sx / n; my = sy / n
		for (i = 1; i <= n; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
		b = sxy / sxx; a = my - b * mx
		for (i = 1; i <= n; i++) sse += (y[i] - a - b * x[i]) ^ 2
		se = sqrt(sse / (n - 2) / sxx)
		df = n - 2; t = df >= 60 ? 2.000 : df >= 30 ? 2.042 : df >= 20 ? 2.086 : df >= 10 ? 2.228 : 2.776
		lo = b - t * se; hi = b + t * se; ch = b * dur
		clo = lo * dur; chi = hi * dur
		flat = tol == "-" ? "(not judged)" : (clo >= -tol && chi <= tol) ? "yes" : \
		       (clo <= 0 && chi >= 0) ? "inconclusive" : "no"
		printf "%s: n %d, mean %.3f %s, first %.3f, last %.3f; slope %.3g %s/h [95%%: %.3g, %.3g]; change over %d s %.3f %s (tolerance %s); flat: %s\n",
			name, n, my, unit, y[1], y[n], b * 3600, unit, lo * 3600, hi * 3600, dur, ch, unit, tol, flat
	}' "$2"
}
slope "RSS" "$D/rss.tsv" 2 "$RSS_TOL_KB" KiB
slope "lateness p50" "$D/late.tsv" 2 "$LATE_TOL_MS" ms
slope "lateness p99" "$D/late.tsv" 3 - ms
awk '{ s += $3; if ($3 > mx) mx = $3 } END { printf "host load (1-min avg) over the run: mean %.2f, max %.2f\n", s / NR, mx }' "$D/rss.tsv"
