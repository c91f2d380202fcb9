#!/bin/sh
# bench-verify.sh — gp-verify speed and memory: the validity filter on N
# request records (default 1,000,000) beside `jq -c .` on the same file (a
# pass-through reference) and gp-analyze --pass on its output, and publish's
# integrity re-derivation under mawk and gawk, all in one run; prints the
# CPU ratios against gp-analyze (goals: validity <= 1x, publish <= 3x) with
# the command behind each figure, and fails when a figure is missing.
#
#   sh bench/bench-verify.sh                       (after make)
#   GP_BENCH_REQUESTS=200000 sh bench/bench-verify.sh
#
# Scratch files go to build/bench/.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GP_BIN:-$TOP/bin}
OUT=$TOP/build/bench
N=${GP_BENCH_REQUESTS:-1000000}
TIME=/usr/bin/time
mkdir -p "$OUT"
IN=$OUT/verify-$N.ndjson

if [ ! -s "$IN" ]; then
	# 2 arms x 5 reps at one rate; 3 % failed, 2 % single-token; header,
	# trailer and before/after metrics per run.
	mawk -v total="$N" 'BEGIN {
		srand(777); per = int(total / 10)
		for (a = 1; a <= 2; a++) for (rep = 1; rep <= 5; rep++) {
			arm = a == 1 ? "rr" : "cache"; run = arm "-" rep
			printf "{\"type\":\"run\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":8,\"started_at\":\"2025-01-01T0%d:00:00Z\",\"deadline_s\":60}\n", run, arm, rep, a
			printf "{\"type\":\"metrics\",\"target\":\"gw\",\"run\":\"%s\",\"arm\":\"%s\",\"phase\":\"before\",\"samples\":{\"gw_hits_total\":%d}}\n", run, arm, rep * 1000
			ok = single = failed = 0
			for (i = 0; i < per; i++) {
				u = rand()
				if (u < 0.03) {
					failed++
					printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":8,\"id\":\"%d\",\"ttft_ms\":null,\"tpot_ms\":null,\"e2e_ms\":12.5,\"out_tokens\":0,\"outcome\":\"failed\",\"error\":\"reset\",\"http_status\":200,\"receipt\":\"p=a;d=b\"}\n", run, arm, rep, i
				} else if (u < 0.05) {
					single++; t = 50 + 300 * rand()
					printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":8,\"id\":\"%d\",\"ttft_ms\":%.3f,\"tpot_ms\":null,\"e2e_ms\":%.3f,\"out_tokens\":1,\"outcome\":\"single_token\",\"error\":null,\"http_status\":200,\"receipt\":\"p=a;d=b\"}\n", run, arm, rep, i, t, t + 0.1
				} else {
					ok++; t = 50 + 300 * rand(); p = 10 + 30 * rand(); o = 2 + int(100 * rand())
					printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":8,\"id\":\"%d\",\"ttft_ms\":%.3f,\"tpot_ms\":%.4f,\"e2e_ms\":%.3f,\"out_tokens\":%d,\"outcome\":\"ok\",\"error\":null,\"http_status\":200,\"receipt\":\"p=a;d=b\"}\n", run, arm, rep, i, t, p, t + (o - 1) * p, o
				}
			}
			printf "{\"type\":\"metrics\",\"target\":\"gw\",\"run\":\"%s\",\"arm\":\"%s\",\"phase\":\"after\",\"samples\":{\"gw_hits_total\":%d}}\n", run, arm, rep * 1000 + 500
			printf "{\"type\":\"run_end\",\"run\":\"%s\",\"arm\":\"%s\",\"rep\":%d,\"rate_rps\":8,\"attempted\":%d,\"ok\":%d,\"single_token\":%d,\"failed\":%d,\"by_error\":{\"reset\":%d},\"invalid_framing\":0,\"ended_at\":\"2025-01-01T0%d:50:00Z\"}\n", run, arm, rep, per, ok, single, failed, failed, a
		}
	}' >"$IN"
fi
MB=$(du -m "$IN" | cut -f1)
echo "== input: $N request records, $MB MiB ($IN); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   CPU = user + system seconds, children included (awk, jq): the machine is shared,"
echo "   so the ratios, measured in this one run, are the figures; wall times drift"

missing=
# measure LABEL COMMAND...: prints CPU, wall, records/s, RSS; sets CPU.
measure() {
	label=$1; shift
	CPU=
	$TIME -f "%U %S %e %M" -o "$OUT/time.txt" "$@" || true
	read -r u s secs kb <"$OUT/time.txt" || true
	CPU=$(echo "$u $s" | mawk '{ printf "%.2f", $1 + $2 }')
	printf "%-34s cpu %7.2f s  wall %7.2f s  %8.0f records/s cpu  max RSS %6.1f MiB\n" "$label" "$CPU" "$secs" \
		"$(echo "$N $CPU" | mawk '{ print ($2 > 0 ? $1 / $2 : 0) }')" "$(echo "$kb" | mawk '{ print $1 / 1024 }')"
	echo "   \$ $*"
}
# ratio LABEL A B GOAL: A / B against GOAL (A <= GOAL x B); a missing figure fails.
ratio() {
	if [ -z "$2" ] || [ -z "$3" ]; then missing="$missing $1"; echo "$1: MISSING"; return; fi
	echo "$2 $3 $4" | mawk -v l="$1" '{ r = $2 > 0 ? $1 / $2 : 0
		printf "%s = %.2f (goal <= %s) %s\n", l, r, $3, (r <= $3 ? "ok" : "OVER") }'
}

measure "jq -c . (pass-through reference)" sh -c "jq -c . '$IN' >/dev/null"
JQ=$CPU
measure "gp-verify validity" sh -c "'$BIN/gp-verify' validity '$IN' >'$OUT/verify-valid.ndjson'"
VALID=$CPU
v=$(grep -o '"type":"validity","kept":[0-9]*' "$OUT/verify-valid.ndjson" | tail -n 1)
echo "   ($v)"
[ -n "$v" ] || VALID=
measure "gp-analyze --pass" sh -c "'$BIN/gp-analyze' --pass --ttft-slo-ms 300 --tpot-slo-ms 35 --resamples 1000 \
	'$OUT/verify-valid.ndjson' >'$OUT/verify-analysis.ndjson'"
ANALYZE=$CPU
grep -q '"type":"knee"' "$OUT/verify-analysis.ndjson" || ANALYZE=
PUB=
for awk in mawk gawk; do
	command -v $awk >/dev/null || continue
	measure "gp-verify publish --awk $awk" sh -c "'$BIN/gp-verify' publish -q --awk $awk '$OUT/verify-analysis.ndjson' >'$OUT/verify-publish-$awk.ndjson' || true"
	c=$(grep '"type":"integrity"' "$OUT/verify-publish-$awk.ndjson" | grep -c '"ok":true')
	echo "   integrity checks ok: $c of 7"
	[ "$c" = 7 ] || CPU=
	[ $awk = mawk ] && PUB=$CPU
	[ $awk = gawk ] && PUBG=$CPU
done
echo "== ratios (CPU, this run)"
ratio "validity / analyze --pass" "$VALID" "$ANALYZE" 1
ratio "publish (mawk) / analyze --pass" "$PUB" "$ANALYZE" 3
[ -n "${PUBG:-}" ] && ratio "publish (gawk) / analyze --pass" "$PUBG" "$ANALYZE" 3
ratio "validity / jq -c ." "$VALID" "$JQ" 1
if [ -n "$missing" ]; then
	echo "bench-verify: figures missing:$missing"
	exit 1
fi
