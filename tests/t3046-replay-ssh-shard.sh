#!/bin/sh
# prove: serial — it creates network namespaces and a bridge, runs sshd in them, and times two shards' common start
# Sharded replay over real ssh: examples/shard-parallel.sh's path for real
# hosts.  Two network namespaces on a bridge of the test's own (tests/netns.sh,
# as t3045), each running a real OpenSSH server on its own address with a host
# key and an authorized client key the test generates; GNU parallel logs in
# with ssh (everything under the test's directory: -F ssh_config, no ~/.ssh),
# copies the trace into the run's directory on each "host" (--wd,
# --transferfile, rsync), brings each shard's output back (--return) and
# removes the copies (--cleanup).  Checks: what t3045 checks (every record
# exactly once, one run id, each shard from its own address per HAProxy's
# log, both on --start-at), that each shard ran there on a copy of the trace
# and nothing stayed behind, that a shard whose host refuses ssh makes
# shard-parallel.sh fail, name the shard and its host, exit 69 and write no
# merged file, and that a shard failing while the other runs stops that one
# on its host and leaves no run directory behind.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/netns.sh"

for c in ip parallel haproxy jq curl ssh ssh-keygen rsync perl; do
	command -v $c >/dev/null || skip_all "no $c (share/packages)"
done
test -x /usr/sbin/sshd || skip_all "no /usr/sbin/sshd (openssh-server, share/packages)"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"
[ "$(id -u)" = 0 ] || skip_all "not root: cannot create network namespaces"

# The login's home on the "remote": sshd starts a command there, and
# shard-parallel.sh's run directories (gp-shard.HOST.PID) are made in it.
rhome=$(getent passwd "$(id -u)" | cut -d: -f6)
[ -d "$rhome" ] || skip_all "the login's home directory ${rhome:-(none)} does not exist"
wd_list() { ls -d "$rhome"/gp-shard.* 2>/dev/null | sort; }
wd_list >wd.before
# A run directory this test's runs leave behind goes at exit (only those
# that were not there before).
wd_sweep() {
	wd_list | comm -13 "$TRASH/wd.before" - | while read -r d; do
		case $d in "$rhome"/gp-shard.?*) rm -rf "$d" ;; esac
	done
}
netns_up
trap 'wd_sweep; netns_down; _cleanup' EXIT
netns_gateway

# sshd in each namespace, on its address, port 22 of its own network stack.
# sshd needs its privilege-separation directory (Debian's ssh.service makes
# it at boot; a container without systemd has none).
test -d /run/sshd || mkdir -m 0755 /run/sshd || skip_all "cannot make /run/sshd"
ssh-keygen -q -t ed25519 -N '' -C gp-t3046-client -f id || exit 1
cp id.pub authorized_keys
: >known_hosts
for i in 1 2; do
	eval ns=\$NS$i addr=\$A$i
	ssh-keygen -q -t ed25519 -N '' -C gp-t3046-host$i -f host$i || exit 1
	echo "$addr $(cut -d' ' -f1,2 host$i.pub)" >>known_hosts
	cat >sshd$i.cfg <<CFG
ListenAddress $addr:22
HostKey $TRASH/host$i
AuthorizedKeysFile $TRASH/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $TRASH/sshd$i.pid
LogLevel VERBOSE
CFG
	ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$TRASH/sshd$i.cfg" 2>>sshd$i.log &
	cleanup_pid $!
done
# "down" is a host whose sshd is not running: the bridge's address, on a
# port nothing listens on (the connection is refused).
DEAD=$(free_port_range 1) || exit 1
cat >ssh_config <<CFG
Host down
    HostName $GW
    Port $DEAD
Host *
    User $(id -un)
    IdentityFile $TRASH/id
    IdentitiesOnly yes
    UserKnownHostsFile $TRASH/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
    LogLevel ERROR
CFG
SSH="ssh -F $TRASH/ssh_config"
for i in 1 2; do
	eval addr=\$A$i
	k=0
	until (exec 3<>"/dev/tcp/$addr/22") 2>/dev/null; do
		k=$((k + 1))
		[ $k -lt 200 ] || fail_all "sshd did not listen on $addr:22: $(tail -n 3 sshd$i.log)"
		sleep 0.05
	done
done

test_expect_success 'ssh logs in to each namespace: its address, a login shell and HOME (sshd)' '
	for i in 1 2; do
		eval addr=\$A$i
		env -u SHELL -u HOME $SSH $addr "ip -4 -o addr show; echo \"shell=\$SHELL home=\$HOME\"" >login$i &&
		grep -q " inet $addr/24 " login$i &&
		grep -qx "shell=/.* home=$rhome" login$i || return 1
	done
'
# With SHELL and HOME unset, as in a bare CI environment.  Over ssh a command
# gets sshd's PATH, which does not hold the gp-replay under test: GP_REPLAY
# names it, here a wrapper that notes where the shard ran and what trace it
# found there before it runs gp-replay.
cat >where-replay <<SH
#!/bin/sh
{ pwd; cmp trace.ndjson "$TRASH/trace.ndjson" && echo same-trace; } >"$TRASH/where.\$PARALLEL_SEQ" 2>&1
exec "$GP_BIN/gp-replay" "\$@"
SH
chmod +x where-replay
test_expect_success 'two shards through GNU parallel over ssh, the trace copied, the outputs returned' '
	shard_run merged.ndjson SSHLOGIN=1/$A1,1/$A2 SSH="$SSH" GP_REPLAY="$TRASH/where-replay" \
		JOBLOG=$TRASH/joblog LEAD_S=6 &&
	test "$(sel ".type == \"run_end\"" merged.ndjson | wc -l)" = 2
'
shard_checks merged.ndjson joblog "$A1=$A1" "$A2=$A2"

# Each shard ran in the run's directory under the login's home (--wd), not
# in the trace's directory: its trace came by --transferfile, and its output
# (written there, -o shard-I.ndjson) reached the merge by --return.  (Both
# "hosts" share this machine's files: one directory for the two.)
test_expect_success 'each shard ran in the run directory on its host, on a copy of the trace' '
	for i in 1 2; do
		cat where.$i &&
		sed -n 1p where.$i | grep -Ex "$rhome/gp-shard\.[^/]+\.[0-9]+" &&
		sed -n 2p where.$i | grep -qx same-trace || return 1
	done
'
test_expect_success 'nothing stayed behind on the remote (--cleanup) nor here' '
	for i in 1 2; do ! test -e "$(sed -n 1p where.$i)" || return 1; done &&
	wd_list | cmp wd.before - &&
	! test -e "$rhome/trace.ndjson" && ! test -e "$rhome/shard-1.ndjson" && ! test -e "$rhome/shard-2.ndjson" &&
	! test -e shard-1.ndjson && ! test -e shard-2.ndjson
'
test_expect_success 'a shard whose host refuses ssh: named, exit 69, no merged file' '
	: >stale.ndjson &&
	{ shard_run stale.ndjson SSHLOGIN=1/$A1,1/down SSH="$SSH" GP_REPLAY="$GP_BIN/gp-replay" \
		JOBLOG=$TRASH/joblog2 LEAD_S=3 2>err; echo $? >rc; } &&
	cat err && test "$(cat rc)" = 69 &&
	grep -Eq "shard [12]/2 on down: exit 255: ssh could not reach down or log in" err &&
	grep -q "parallel failed; no merged run written to $TRASH/stale.ndjson" err &&
	! test -e stale.ndjson && ! test -e shard-1.ndjson && ! test -e shard-2.ndjson
'
# A shard that fails while the other runs on its host: shard 1 (a stand-in
# that opens its output in the run directory, as gp-replay does, and waits)
# is surely running when shard 2 fails; parallel stops it before its
# --cleanup, so the run directory goes only if the script removes it.
# (Shard 2's own --cleanup removes the trace's copy, which is the same file
# here, but not shard 1's output.)
cat >fail-replay <<SH
#!/bin/sh
case \$PARALLEL_SEQ in
1) : >shard-1.ndjson; echo \$\$ >"$TRASH/held.pid"; exec sleep 60 ;;
*) k=0; until test -s "$TRASH/held.pid" || test \$k = 100; do sleep 0.1; k=\$((k + 1)); done; exit 3 ;;
esac
SH
chmod +x fail-replay
test_expect_success 'a shard that fails: the other is stopped on its host, the run directory removed' '
	{ shard_run held.ndjson SSHLOGIN=1/$A1,1/$A2 SSH="$SSH" GP_REPLAY="$TRASH/fail-replay" \
		JOBLOG=$TRASH/joblog3 LEAD_S=3 2>err3; echo $? >rc3; } &&
	cat err3 && test "$(cat rc3)" = 3 && test -s held.pid &&
	grep -Eq "shard 2/2 on ($A1|$A2): exit 3\$" err3 &&
	k=0 && while kill -0 $(cat held.pid) 2>/dev/null && test $k -lt 30; do sleep 0.1; k=$((k + 1)); done &&
	! kill -0 $(cat held.pid) 2>/dev/null &&
	wd_list | cmp wd.before - && ! test -e held.ndjson
'
test_done
