#!/bin/sh
# bench-scale.sh — how every record tool's CPU time grows with its input: for
# each tool and each dimension (records per run, reps, runs, arms, rates) the
# input is grown 1x, 2x, 4x, 8x with the other dimensions fixed, the tool's
# user+system CPU time is measured, and the least-squares slope of log(time)
# on log(N) — the fitted exponent — is printed beside the times.  1.0 is
# linear; the bench fails when an exponent is over GP_SCALE_MAX (1.25) or a
# figure is missing.  CPU time, not wall time: 2 cores shared by many.
#
#   sh bench/bench-scale.sh                 (after make; about two minutes)
#   GP_SCALE=0.25 sh bench/bench-scale.sh   (smaller inputs, a quick look)
#   GP_SCALE_ONLY="analyze validity" sh bench/bench-scale.sh
#
# Inputs come from bench/gen/campaign.awk (run header, requests, run_end per
# run: the records gp-replay writes); scratch goes to build/bench/scale/.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GP_BIN:-$TOP/bin}
OUT=$TOP/build/bench/scale
SCALE=${GP_SCALE:-1}
MAX=${GP_SCALE_MAX:-1.25}
ONLY=${GP_SCALE_ONLY:-}
AWK=$(command -v mawk || command -v awk)
GEN=$TOP/bench/gen/campaign.awk
mkdir -p "$OUT"
status=0

n_of() { "$AWK" -v b="$1" -v s="$SCALE" -v k="$2" 'BEGIN { n = int(b * s * k); print n < 1 ? 1 : n }'; }
cpu() { # command... : user+sys seconds of one run, the mean of as many runs as
	# make 0.3 s (at most 30): the clock counts in 10 ms ticks, too coarse alone
	_tot=0 _k=0
	while :; do
		/usr/bin/time -f "%U %S" -o "$OUT/t" "$@" >/dev/null 2>"$OUT/err" || { _k=0; break; }
		_tot=$("$AWK" -v t="$_tot" '{ printf "%.3f", t + $1 + $2 }' "$OUT/t")
		_k=$((_k + 1))
		"$AWK" -v t="$_tot" -v k="$_k" 'BEGIN { exit !(t < 0.3 && k < 30) }' || break
	done
	[ "$_k" -gt 0 ] && "$AWK" -v t="$_tot" -v k="$_k" 'BEGIN { printf "%.4f", t / k }'
}
gen() { # arms rates reps per -> file
	f=$OUT/c-$1-$2-$3-$4.ndjson
	[ -s "$f" ] || "$AWK" -v arms="$1" -v rates="$2" -v reps="$3" -v per="$4" -f "$GEN" >"$f"
	echo "$f"
}
# The pipeline's intermediate files of one campaign: validity, analysis.
stage() { # campaign file
	c=$1; v=${c%.ndjson}.valid; a=${c%.ndjson}.analysis
	[ -s "$v" ] || "$BIN/gp-verify" validity "$c" >"$v" 2>/dev/null
	[ -s "$a" ] || "$BIN/gp-analyze" --pass --ttft-slo-ms 300 --tpot-slo-ms 30 --resamples 200 \
		--seed 1 "$v" >"$a"
}
run_tool() { # tool campaign-file
	c=$1; v=${c%.ndjson}.valid; a=${c%.ndjson}.analysis
	case $tool in
	validity) cpu sh -c '"$0" validity "$1"; [ $? -le 1 ]' "$BIN/gp-verify" "$c" ;;
	analyze) cpu "$BIN/gp-analyze" --ttft-slo-ms 300 --tpot-slo-ms 30 --resamples 200 --seed 1 "$v" ;;
	publish) cpu sh -c '"$0" publish -q --awk "$1" "$2"; [ $? -le 1 ]' "$BIN/gp-verify" "$AWK" "$a" ;;
	report) cpu "$BIN/gp-report" --no-plots -q -o "$OUT/rep" "$a" ;;
	esac
}
fit() { # "n1 t1 n2 t2 ..." -> slope of log t on log n
	echo "$1" | "$AWK" '{ k = 0
		for (i = 1; i < NF; i += 2) { if ($(i + 1) <= 0) $(i + 1) = 0.001; x[k] = log($i); y[k] = log($(i + 1)); k++ }
		for (i = 0; i < k; i++) { sx += x[i]; sy += y[i] }
		mx = sx / k; my = sy / k
		for (i = 0; i < k; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2 }
		printf "%.2f", (sxx > 0 ? sxy / sxx : 0) }'
}
report() { # label pairs
	e=$(fit "$2")
	bad=$("$AWK" -v e="$e" -v m="$MAX" 'BEGIN { print (e > m) ? 1 : 0 }')
	printf "%-34s exponent %5s %s   (N cpu_s: %s)\n" "$1" "$e" "$([ "$bad" = 1 ] && echo "OVER $MAX" || echo "ok")" "$2"
	[ "$bad" = 1 ] && status=1
	return 0
}

# dimension: base arms rates reps per; the one that grows is named.
dims="records reps runs arms rates"
echo "== bench-scale: CPU seconds at N x1 x2 x4 x8 (GP_SCALE=$SCALE), exponent of the fit"
for tool in validity analyze publish report; do
	case " ${ONLY:-$tool} " in *" $tool "*) ;; *) continue ;; esac
	for d in $dims; do
		pairs=""
		for k in 1 2 4 8; do
			case $d in
			records) n=$(n_of 25000 $k); c=$(gen 1 1 5 "$(( n / 5 ))") ;;
			reps)    n=$(n_of 2500 $k);  c=$(gen 1 1 "$n" 1) ;;
			runs)    n=$(n_of 1000 $k);  c=$(gen 2 1 "$(( n / 2 ))" 20) ;;
			arms)    n=$(n_of 400 $k);   c=$(gen "$n" 1 5 4) ;;
			rates)   n=$(n_of 400 $k);   c=$(gen 1 "$n" 5 4) ;;
			esac
			stage "$c"
			t=$(run_tool "$c")
			[ -n "$t" ] || { echo "bench-scale: $tool $d: no figure"; status=1; }
			pairs="$pairs $n $t"
		done
		report "gp-$tool ${tool#validity} $d" "$pairs"
	done
done
# gp-trace: synth, stats and prompt on N trace records.
case " ${ONLY:-trace} " in *" trace "*)
	for sub in synth stats prompt; do
		pairs=""
		for k in 1 2 4 8; do
			n=$(n_of 50000 $k); f=$OUT/trace-$n.ndjson
			[ -s "$f" ] || "$BIN/gp-trace" synth --requests "$n" --input-tokens 64 --prefix-tokens 0 \
				--block-tokens 16 >"$f"
			case $sub in
			synth) t=$(cpu "$BIN/gp-trace" synth --requests "$n" --input-tokens 64 --prefix-tokens 0 --block-tokens 16) ;;
			stats) t=$(cpu "$BIN/gp-trace" stats "$f") ;;
			prompt) t=$(cpu "$BIN/gp-trace" prompt --block-tokens 16 "$f") ;;
			esac
			pairs="$pairs $n $t"
		done
		report "gp-trace $sub records" "$pairs"
	done ;;
esac
exit $status
