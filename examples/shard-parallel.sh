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
#   SSH        the command parallel runs instead of ssh (--ssh), also by
#              rsync (-e): e.g. "ssh -F loadgens.ssh_config", or the absolute
#              path of examples/netns-ssh.sh, whose "hosts" are network
#              namespaces of this machine.
#   SHARED_FS  1: the hosts see TRACE's directory at the same path (network
#              namespaces, NFS); shards read the trace and write their
#              outputs there.  Otherwise (real hosts) each host gets a run
#              directory, gp-shard.HERE.PID under the login's home (--wd):
#              the trace is copied there (--transferfile), each shard's
#              output comes back beside TRACE (--return) and the copies and
#              the directory are removed (--cleanup).  rsync on both ends.
#   GP_REPLAY  the gp-replay command on each host (default gp-replay): over
#              ssh a command gets sshd's PATH (/usr/bin:/bin and the like),
#              not your login shell's, so give an absolute path when
#              gp-replay is installed elsewhere, e.g. /opt/gp/bin/gp-replay.
#   LEAD_S     how many seconds ahead the common start is set (default 3):
#              enough for parallel to start every shard.  On real hosts a
#              shard starts after three ssh logins (the run directory, the
#              trace's copy, the shard itself) and the copy: measure it
#              (JOBLOG; a shard more than 1 s late refuses to start, exit 2).
#   JOBLOG     parallel's --joblog file: which host ran which shard, when,
#              and its exit status.
#
# Real hosts: logins without a password or a question (ssh keys in an agent
# or IdentityFile, the hosts' keys in known_hosts, BatchMode yes), the same
# gp-replay on each (GP_REPLAY), rsync and perl (parallel's remote worker)
# on each, their clocks in NTP sync.  For instance, with the logins and keys
# in a file of their own:
#
#   SSHLOGIN=1/gp@loadgen1,1/gp@loadgen2 SSH="ssh -F $PWD/loadgens.ssh_config" \
#   GP_REPLAY=/opt/gp/bin/gp-replay LEAD_S=5 JOBLOG=shards.log \
#       sh examples/shard-parallel.sh trace.ndjson http://vip:8000 MODEL run.ndjson ...
#
# tests/t3046-replay-ssh-shard.sh runs this path against real sshd servers.
#
# Exit status: 0 when every shard ran and wrote records.  When a shard fails
# parallel stops the others at once (--halt now); the failed shard is named
# with its host on stderr, its exit status is the script's (69 when ssh
# could not reach its host or log in, 127 when the host has no gp-replay on
# sshd's PATH: GP_REPLAY), the run directory is removed on every host that
# can be reached, and OUT is not written (an OUT of an earlier run is
# removed first).  1 when a shard wrote no records.
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
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
jl=${JOBLOG:-$dir/.shard-joblog.$$}
case $jl in /*) ;; *) jl=$(pwd)/$jl ;; esac
rm_shards() {
	i=1
	while [ $i -le "$n" ]; do rm -f "$dir/shard-$i.ndjson"; i=$((i + 1)); done
}
# No shard output of an earlier run may pass for this one's, nor OUT.
rm_shards
rm -f "$out"
# parallel runs each shard in the trace's directory: here, or on a remote
# host in the run directory --transferfile copied it to (relative names); on
# a shared file system by absolute names.
cd "$dir"
src=$base shard=shard-{}.ndjson
mode=local rwd=gp-shard.$(uname -n).$$
if [ -n "${SSHLOGIN:-}" ] && [ "$SSHLOGIN" != : ]; then
	mode=copy
	[ "${SHARED_FS:-0}" = 1 ] && mode=shared src=$dir/$base shard=$dir/shard-{}.ndjson
fi
# The command line is built in "$@", the gp-replay options already there,
# so that no word is split again: SSH="ssh -F FILE" stays one option, and
# parallel quotes each word of the command (-q) for the shell that runs it,
# here or on the host, so that -H 'K: V' reaches gp-replay as two words.
set -- "${GP_REPLAY:-gp-replay}" --url "$url" --model "$model" --shard "{}/$n" --start-at "$start" \
	"$@" -o "$shard" "$src" ::: $(seq 1 "$n")
case $mode in
local) set -- -j "$n" "$@" ;;
shared) set -- -S "$SSHLOGIN" ${SSH:+--ssh "$SSH"} "$@" ;;
copy) set -- -S "$SSHLOGIN" ${SSH:+--ssh "$SSH"} --wd "$rwd" \
	--transferfile "$base" --return "$shard" --cleanup "$@" ;;
esac
rc=0
parallel -q --joblog "$jl" --halt now,fail=1 "$@" || rc=$?
if [ "$rc" != 0 ]; then
	# The joblog names the failed shards: Seq, Host, ..., Exitval, Signal.
	# ssh exits 255 when it cannot connect or log in; the remote shell 127
	# when gp-replay is not on sshd's PATH.
	[ ! -s "$jl" ] || rc=$(awk -F'\t' -v me="$0" -v n="$n" -v rc="$rc" '
		NR > 1 && ($7 != 0 || $8 != 0) {
			if ($8 != 0) why = "killed by signal " $8
			else if ($7 == 255) why = "exit 255: ssh could not reach " $2 " or log in"
			else if ($7 == 127) why = "exit 127: command not found on " $2 " (GP_REPLAY?)"
			else why = "exit " $7
			printf "%s: shard %d/%d on %s: %s\n", me, $1, n, $2, why > "/dev/stderr"
			if ($8 == 0 && !first++) rc = $7 == 255 ? 69 : $7
		}
		END { print rc }' "$jl")
	echo "$0: parallel failed; no merged run written to $out${JOBLOG:+; see $jl}" >&2
	# parallel stopped the other shards before their --cleanup: remove the
	# run's directory on every host (a host that cannot be reached keeps it).
	[ $mode != copy ] || parallel --nonall -S "$SSHLOGIN" ${SSH:+--ssh "$SSH"} \
		rm -rf "$rwd" >/dev/null || :
fi
[ -n "${JOBLOG:-}" ] || rm -f "$jl"
cd - >/dev/null
[ "$rc" = 0 ] || { rm_shards; exit "$rc"; }
# The merge.  parallel can report success for a job that never ran (its
# remote worker, given no SHELL, runs nothing): a shard without output is
# an error, named.
i=1
while [ $i -le "$n" ]; do
	[ -s "$dir/shard-$i.ndjson" ] || {
		echo "$0: shard $i/$n wrote no records ($dir/shard-$i.ndjson)${JOBLOG:+; see $jl}" >&2
		rm_shards
		exit 1
	}
	i=$((i + 1))
done
i=1
: >"$out.part"
while [ $i -le "$n" ]; do
	cat "$dir/shard-$i.ndjson" >>"$out.part"
	i=$((i + 1))
done
mv "$out.part" "$out"
rm_shards
