#!/bin/sh
# shard-parallel.sh — one replay run split across N gp-replay processes with
# GNU parallel, all starting on the same wall-clock instant.
#
#   examples/shard-parallel.sh TRACE URL MODEL OUT [gp-replay options...]
#
# Environment: SHARDS (default 2) processes; SSHLOGIN, when set, is passed to
# parallel -S, so SSHLOGIN=2/host1,2/host2 spreads the shards over two client
# hosts (each needs gp-replay on its PATH and its clock in NTP sync; the trace
# is copied there with --transferfile and the records come back with
# --return); SSHLOGIN=: runs them here through the same path.  LEAD_S (default
# 3) is how many seconds ahead the common start is set: enough for parallel
# (and ssh) to start every shard.
#
# Shard I of N sends the records whose index mod N == I-1; every shard computes
# the whole schedule, so the concatenation of the shards' outputs is one run:
# the same run id, each trace record exactly once, one header and one trailer
# per shard.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 TRACE URL MODEL OUT [gp-replay options...]" >&2; exit 2; }
trace=$1 url=$2 model=$3 out=$4
shift 4
n=${SHARDS:-2}
start=$(awk -v now="$(date +%s.%N)" -v lead="${LEAD_S:-3}" 'BEGIN { printf "%.3f", now + lead }')
dir=$(dirname "$trace")
base=$(basename "$trace")
# parallel runs each shard in the trace's directory (on a remote host: in the
# directory --transferfile copied it to) and returns shard-I.ndjson.
cd "$dir"
if [ -n "${SSHLOGIN:-}" ] && [ "$SSHLOGIN" != : ]; then
	set -- -S "$SSHLOGIN" --transferfile "$base" --return "shard-{}.ndjson" --cleanup -- "$@"
else
	set -- -- "$@"
fi
# "$@" is now: [remote options] -- [gp-replay options]
remote=
while [ "$1" != -- ]; do remote="$remote $1"; shift; done
shift
# shellcheck disable=SC2086
parallel $remote -j "$n" --halt now,fail=1 \
	gp-replay --url "$url" --model "$model" --shard "{}/$n" --start-at "$start" \
	"$@" -o "shard-{}.ndjson" "$base" ::: $(seq 1 "$n")
cd - >/dev/null
i=1
: >"$out"
while [ $i -le "$n" ]; do
	cat "$dir/shard-$i.ndjson" >>"$out"
	rm -f "$dir/shard-$i.ndjson"
	i=$((i + 1))
done
