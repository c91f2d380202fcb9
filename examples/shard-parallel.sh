#!/bin/sh
# shard-parallel.sh — one replay run split across N gp-replay processes with
# GNU parallel, here or on other hosts, all starting on the same wall-clock
# instant, merged into one run file.
#
#   examples/shard-parallel.sh TRACE URL MODEL OUT [gp-replay options...]
#
# Environment:
#   SHARDS     gp-replay processes, one per shard (default 2)
#   SSHLOGIN   when set, parallel -S: the shards run on those hosts, e.g.
#              1/host1,1/host2 or a file given as ..file.  The job slots
#              (the N/ prefixes) must add up to at least SHARDS: a shard left
#              waiting for a slot would start after the common instant.
#              Unset or ":" runs every shard here.
#   SSH        the command parallel runs instead of ssh (--ssh), e.g. the
#              absolute path of examples/netns-ssh.sh, whose "hosts" are
#              network namespaces of this machine.
#   SHARED_FS  1: the hosts see TRACE's directory at the same path (network
#              namespaces, NFS); shards read the trace and write their
#              outputs there.  Otherwise the trace goes to each host with
#              --transferfile and the outputs come back with --return (rsync
#              on both ends; gp-replay on each host's PATH).
#   LEAD_S     how many seconds ahead the common start is set (default 3):
#              enough for parallel (and ssh) to start every shard.
#   JOBLOG     parallel's --joblog file: which host ran which shard, when,
#              and its exit status.
#
# Shard I of N sends the records whose index mod N == I-1; every shard
# computes the whole schedule, so the concatenation of the shards' outputs
# (the merge: shard 1 to N, one after the other) is one run: the same run id,
# each trace record exactly once, one header and one trailer per shard.
# gp-verify validity discards a run whose shards are not all there.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 TRACE URL MODEL OUT [gp-replay options...]" >&2; exit 2; }
trace=$1 url=$2 model=$3 out=$4
shift 4
n=${SHARDS:-2}
start=$(awk -v now="$(date +%s.%N)" -v lead="${LEAD_S:-3}" 'BEGIN { printf "%.3f", now + lead }')
dir=$(cd "$(dirname "$trace")" && pwd)
base=$(basename "$trace")
# parallel runs each shard in the trace's directory: here, or on a remote
# host in the directory --transferfile copied it to (relative names); on a
# shared file system by absolute names.
cd "$dir"
src=$base shard=shard-{}.ndjson
if [ -z "${SSHLOGIN:-}" ] || [ "$SSHLOGIN" = : ]; then
	set -- -j "$n" -- "$@"
elif [ "${SHARED_FS:-0}" = 1 ]; then
	src=$dir/$base shard=$dir/shard-{}.ndjson
	set -- -S "$SSHLOGIN" ${SSH:+--ssh "$SSH"} -- "$@"
else
	set -- -S "$SSHLOGIN" ${SSH:+--ssh "$SSH"} --transferfile "$base" --return "$shard" --cleanup -- "$@"
fi
# "$@" is now: [parallel options] -- [gp-replay options]
popt=
while [ "$1" != -- ]; do popt="$popt $1"; shift; done
shift
# shellcheck disable=SC2086
parallel $popt ${JOBLOG:+--joblog "$JOBLOG"} --halt now,fail=1 \
	gp-replay --url "$url" --model "$model" --shard "{}/$n" --start-at "$start" \
	"$@" -o "$shard" "$src" ::: $(seq 1 "$n")
cd - >/dev/null
# The merge.  parallel can report success for a job that never ran (its
# remote worker, given no SHELL, runs nothing): a shard without output is
# an error, named.
i=1
while [ $i -le "$n" ]; do
	[ -s "$dir/shard-$i.ndjson" ] || {
		echo "$0: shard $i/$n wrote no records ($dir/shard-$i.ndjson)${JOBLOG:+; see $JOBLOG}" >&2
		exit 1
	}
	i=$((i + 1))
done
i=1
: >"$out"
while [ $i -le "$n" ]; do
	cat "$dir/shard-$i.ndjson" >>"$out"
	rm -f "$dir/shard-$i.ndjson"
	i=$((i + 1))
done
