#!/bin/sh
# gen.sh — writes the generated inputs of the golden cases (the files are
# committed; run `sh gen.sh` here only to rebuild them after changing this).
#
# reps ARM RATE N G1 G2 ...: one rep per Gk, N request records each, the first
# Gk of them good under a 500 ms / 50 ms SLO (ttft 100 ms, tpot 10 ms) and the
# rest over the TTFT SLO (ttft 900 ms), so rep k's good fraction is Gk / N;
# request i is sent at i / RATE s, so the achieved rate is the label.
reps() {
	awk -v a="$1" -v r="$2" -v n="$3" -v gs="$4" 'BEGIN {
		k = split(gs, g, " ")
		for (rep = 1; rep <= k; rep++)
			for (i = 0; i < n; i++)
				printf "{\"type\":\"request\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"%s%d-%d\",\"t_sent_s\":%g,\"outcome\":\"ok\",\"ttft_ms\":%d,\"tpot_ms\":10}\n", a, r, rep, a, rep, i, i / r, i < g[rep] ? 100 : 900
	}'
}
validity='{"type":"validity","kept":1,"discarded":0,"runs":[],"rules":[]}'

# verdicts.ndjson: 20 requests a rep at 4 rps; good fractions
#   floor {0.50 0.55 0.50 0.45 0.50}   win  {0.90 0.95 0.90 0.95 0.90}
#   loss  {0.10 0.15 0.10 0.15 0.10}   noisy {0.30 0.80 0.40 0.75 0.25}
#   same  {0.50 0.50 0.55 0.50 0.45}   few  {0.90 0.95 0.90} (3 reps)
{
	reps floor 4 20 "10 11 10 9 10"
	reps win 4 20 "18 19 18 19 18"
	reps loss 4 20 "2 3 2 3 2"
	reps noisy 4 20 "6 16 8 15 5"
	reps same 4 20 "10 10 11 10 9"
	reps few 4 20 "18 19 18"
	echo "$validity"
} >verdicts.ndjson

# allgood.ndjson: two arms whose 5 reps are all good (20 of 20): no spread.
{
	reps a 4 20 "20 20 20 20 20"
	reps b 4 20 "20 20 20 20 20"
	echo "$validity"
} >allgood.ndjson

# ladder.ndjson: arm "k" over rungs 2, 4, 8 rps, 3 reps of 10 requests:
#   2 rps {1.0 1.0 1.0}  4 rps {0.9 1.0 0.9}  8 rps {0.5 0.6 0.4}
# arm "top" clears every rung; arm "low" none.
{
	reps k 2 10 "10 10 10"
	reps k 4 10 "9 10 9"
	reps k 8 10 "5 6 4"
	reps top 2 10 "10 10 10"
	reps top 4 10 "10 10 10"
	reps low 2 10 "5 5 6"
	reps low 4 10 "2 3 2"
	echo "$validity"
} >ladder.ndjson

# dip.ndjson: arm "dip" over rungs 2, 4, 8 rps, 3 reps of 20 requests whose
# curve fails in the middle and clears again at the top (issue 22):
#   2 rps {0.95 0.95 0.95}  4 rps {0.85 0.85 0.85}  8 rps {0.95 0.90 0.95}
{
	reps dip 2 20 "19 19 19"
	reps dip 4 20 "17 17 17"
	reps dip 8 20 "19 18 19"
	echo "$validity"
} >dip.ndjson
