#!/bin/sh
# One exit and message policy over every tool (doc/conventions.md): -h and
# --help, the --help Usage block against the man SYNOPSIS, a usage error as
# one line plus the Try line, a closed output pipe, the first SIGTERM, an
# output file that cannot be created, SEE ALSO naming tools that exist.
. "$(dirname "$0")/lib.sh"
. "$GP_TOP/tests/gateway.sh"
cd "$TRASH" || exit 1

tools="gp-sim gp-trace gp-replay gp-health gp-probe gp-calibrate gp-analyze gp-verify gp-report"
for t in $tools; do test -x "$GP_BIN/$t" || skip_all "$t not built in $GP_BIN"; done

# opts: the options named in a text on stdin (-x, --long), -h/--help/--version
# left out (every tool has them, the synopsis need not repeat them).
opts() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' |
	grep -oE -- '(^|[][ |(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[][ |(]//' |
	grep -vxE -- '-h|--help|--version' | sort -u
}
# usage_block TOOL: the Usage: lines of --help (up to the first blank line)
usage_block() { "$1" --help | awk 'NR == 1 && !/^Usage: / { exit 1 } /^$/ { exit } { print }'; }
synopsis() { awk '/^\.SH/ { p = 0 } p && !/^\.(nf|fi)/ { print } /^\.SH SYNOPSIS/ { p = 1 }' "$GP_TOP/doc/$1.1"; }

for t in $tools; do
	test_expect_success "$t: -h and --help print the same help on stdout, exit 0, stderr empty" "
		$t -h >h.out 2>h.err && $t --help >help.out 2>help.err &&
		grep -q '^Usage: $t' help.out && cmp h.out help.out && test ! -s h.err && test ! -s help.err
	"
	test_expect_success "$t: the --help Usage lines name the options of the man SYNOPSIS" "
		usage_block $t | opts >u && synopsis $t | opts >s && test -s s &&
		diff u s
	"
	test_expect_success "$t: every option of the Usage lines has a line of its own in --help" "
		usage_block $t | opts >u &&
		$t --help | awk 'f { print } /^$/ { f = 1 }' >body &&
		missing= &&
		for o in \$(cat u); do grep -qE -- \"(^|[ ,])\$o([ ,=]|\\\$)\" body || missing=\"\$missing \$o\"; done &&
		{ test -z \"\$missing\" || { echo \"not described:\$missing\"; false; }; }
	"
	test_expect_success "$t: every option of the man page's OPTIONS is in --help" "
		awk '/^\.SH/ { p = 0 } p { print } /^\.SH \"?OPTIONS/ { p = 1 }' $GP_TOP/doc/$t.1 | opts >m &&
		$t --help | opts >h && test -s m &&
		comm -23 m h >missing && { test ! -s missing || { echo 'not in --help:'; cat missing; false; }; }
	"
	test_expect_success "$t: SEE ALSO names only gp tools that exist" "
		awk '/^\.SH/ { p = 0 } p { print } /^\.SH \"?SEE ALSO/ { p = 1 }' $GP_TOP/doc/$t.1 |
		grep -oE 'gp-[a-z]+' | sort -u >seealso && test -s seealso &&
		for s in \$(cat seealso); do test -x $GP_BIN/\$s || { echo \"no tool \$s\"; exit 1; }; done
	"
done

# usage_error NAME ARGS...: exit 2, one message naming the tool, then the Try line.
usage_error() {
	_t=$1
	shift
	test_expect_success "usage error: $_t $*: exit 2, one message, then the Try line" "
		$_t $* </dev/null >out 2>err; echo \$? >rc; cat err;
		test \$(cat rc) = 2 && test ! -s out && test \$(wc -l <err) = 2 &&
		head -1 err | grep -q '^$_t: ' &&
		tail -1 err | grep -qx \"Try '$_t --help' for more information.\"
	"
}
for t in $tools; do usage_error $t --no-such-option; done
usage_error gp-sim --port
usage_error gp-trace synth --no-such-option
usage_error gp-trace synth -o
usage_error gp-replay --url
usage_error gp-health -o
usage_error gp-probe --fleet
usage_error gp-calibrate ladder --no-such-option
usage_error gp-analyze -o
usage_error gp-verify publish --no-such-option
usage_error gp-verify validity -o
usage_error gp-report -o

# A fleet behind gp-sim's router, and a little data for the filters.
start_router rr || fail_all "gp-sim --router did not start"
fleet_from "$GP_TOP/examples/router/fleet.json" >fleet.json
URL=http://127.0.0.1:$GP_VIP_PORT
gp-trace synth --requests 4 --rate-rps 20 --output-tokens 4 --seed 3 >trace
gp-replay --url "$URL" --model gp-sim --arm rr --rep 1 --rate-rps 20 <trace >runs 2>/dev/null ||
	fail_all "gp-replay against gp-sim failed"

# closed_pipe CMD...: run CMD with stdout a pipe whose reader has already
# gone (so its first write fails with EPIPE); CMD's status is ours.
closed_pipe() {
	rm -f sync && mkfifo sync
	( read -r _ <sync; exec "$@" ) | { exec 0<&-; echo >sync; }
	return "${PIPESTATUS[0]}"
}
epipe() {
	_t=$1
	shift
	test_expect_success "closed pipe: $* exits 1, quietly" "
		closed_pipe $* 2>err; echo \$? >rc; cat err; test \$(cat rc) = 1 && test ! -s err
	"
}
epipe gp-trace gp-trace synth --requests 10
epipe gp-replay gp-replay --url "$URL" --model gp-sim --arm rr --rep 1 trace
epipe gp-health gp-health --fleet fleet.json
epipe gp-probe gp-probe --fleet fleet.json --arm rr --requests 4 --max-tokens 4
epipe gp-calibrate gp-calibrate protocol
epipe gp-analyze gp-analyze --no-validity --ttft-slo-ms 1000 --tpot-slo-ms 100 runs
epipe gp-verify gp-verify validity runs
epipe gp-analyze gp-analyze --self-check
epipe gp-verify gp-verify --self-check
epipe gp-replay gp-replay --help
say "closed pipe: gp-sim and gp-report write nothing on stdout (not applicable)"

# sigterm NAME CMD...: start CMD reading a fifo that stays open (or a long
# run), SIGTERM it once it is at work; 143, and what it wrote is whole NDJSON.
sigterm() {
	_t=$1
	shift
	test_expect_success "first SIGTERM: $_t exits 143, its output whole records" "
		rm -f in && mkfifo in && { sleep 60 >in & } && hold=\$! &&
		{ $* <in >out 2>err & } && pid=\$! &&
		sleep 0.5 && kill -TERM \$pid; wait \$pid; rc=\$?; kill \$hold; cat err;
		test \$rc = 143 && { test ! -s out || jq -c . out >/dev/null; }
	"
}
sigterm gp-trace gp-trace stats
sigterm gp-analyze gp-analyze --no-validity --ttft-slo-ms 1000 --tpot-slo-ms 100
sigterm gp-verify gp-verify validity
sigterm gp-calibrate gp-calibrate ladder --trace trace
sigterm gp-report gp-report -o rep
# gp-health waits on a VIP that stalls after its first token
SIM_PORT0=$SIM_PORT
start_sim --fault stall=1 || fail_all "a second gp-sim did not start"
jq --arg u "http://127.0.0.1:$SIM_PORT" '.vips[0].url = $u' fleet.json >stall.json
SIM_PORT=$SIM_PORT0
sigterm gp-health gp-health --fleet stall.json --timeout-s 30
test_expect_success 'first SIGTERM: gp-replay exits 143, in-flight requests cancelled, run_end last' '
	gp-trace synth --requests 200 --rate-rps 4 --output-tokens 4 >long &&
	{ gp-replay --url "$URL" --model gp-sim --arm rr --rep 1 long >out 2>err & } && pid=$! &&
	for i in $(seq 1 100); do grep -q "\"type\":\"request\"" out && break; sleep 0.1; done &&
	kill -TERM $pid; wait $pid; rc=$?; cat err;
	test $rc = 143 && tail -1 out | jq -e ".type == \"run_end\"" >/dev/null
'
test_expect_success 'first SIGTERM: gp-probe exits 143, the probe record written' '
	{ gp-probe --fleet fleet.json --arm rr --requests 100000 --max-tokens 16 >out 2>err & } && pid=$! &&
	sleep 1 && kill -TERM $pid; wait $pid; rc=$?; cat err;
	test $rc = 143 && jq -s -e "map(select(.type == \"probe\")) | length == 1" out >/dev/null
'
# Records longer than a pipe's atomic write (PIPE_BUF), the reader slow: the
# signal lands while gp-trace is blocked in the middle of a record.
test_expect_success 'first SIGTERM: gp-trace synth into a slow pipe exits 143, every line whole' '
	rm -f slow && mkfifo slow && { { exec 3<slow; sleep 1; cat <&3 >out; } & } && reader=$! &&
	{ gp-trace synth --requests 100000 --input-tokens 1000000 --keys 0 >slow 2>err & } && pid=$! &&
	for i in $(seq 1 100); do grep -qx gp-trace /proc/$pid/comm && break; sleep 0.05; done &&
	sleep 0.3 && kill -TERM $pid; wait $pid; rc=$?; wait $reader; cat err;
	test $rc = 143 && test -s out && jq -c . out >/dev/null
'
# A gzip output must be closed to be read: the signal lands mid-analysis.
test_expect_success 'first SIGTERM: gp-analyze -o FILE.gz exits 143, the gzip stream whole' '
	{ gp-analyze --no-validity --ttft-slo-ms 1000 --tpot-slo-ms 100 --resamples 3000000 \
		-o an.gz runs 2>err & } && pid=$! &&
	sleep 0.5 && kill -TERM $pid; wait $pid; rc=$?; cat err;
	test $rc = 143 && { test ! -e an.gz || { gzip -t an.gz && zcat an.gz | jq -c . >/dev/null; }; }
'
# A gnuplot that writes half an image and hangs; the signal reaches it and
# gp-report both, as a terminal's SIGINT reaches the whole process group.
cat >fake-gnuplot <<EOF
#!/bin/sh
printf half >"../\${1%.gp}.png"
echo \$\$ >"$TRASH/gnuplot.pid"
exec sleep 30
EOF
chmod +x fake-gnuplot
test_expect_success 'first SIGTERM: gp-report mid-plot exits 143, no half image left' '
	gp-analyze --no-validity --pass --ttft-slo-ms 1000 --tpot-slo-ms 100 runs >an 2>/dev/null &&
	rm -rf rep2 gnuplot.pid && { gp-report -o rep2 --gnuplot "$TRASH/fake-gnuplot" an 2>err & } &&
	pid=$! && for i in $(seq 1 100); do test -s gnuplot.pid && break; sleep 0.05; done &&
	test -s rep2/goodfrac.png && kill -TERM $(cat gnuplot.pid) $pid; wait $pid; rc=$?; cat err;
	test $rc = 143 && test "$(ls rep2)" = gnuplot
'
# The same signal, but it reaches gnuplot alone (or ours lands after gnuplot
# is reaped, the race of a terminal's SIGINT): gp-report takes it as its own.
test_expect_success 'SIGTERM to gnuplot alone: gp-report exits 143, no half image left' '
	rm -rf rep2 gnuplot.pid && { gp-report -o rep2 --gnuplot "$TRASH/fake-gnuplot" an 2>err & } &&
	pid=$! && for i in $(seq 1 100); do test -s gnuplot.pid && break; sleep 0.05; done &&
	test -s rep2/goodfrac.png && kill -TERM $(cat gnuplot.pid); wait $pid; rc=$?; cat err;
	test $rc = 143 && test "$(ls rep2)" = gnuplot
'
cat >bad-gnuplot <<EOF
#!/bin/sh
printf half >"../\${1%.gp}.png"
echo "line 3: no such terminal" >&2
exit 1
EOF
chmod +x bad-gnuplot
test_expect_success 'gnuplot fails after half an image: exit 70 naming its message, the image removed' '
	rm -rf rep2 && { gp-report -o rep2 --gnuplot "$TRASH/bad-gnuplot" an 2>err; rc=$?; } ; cat err;
	test $rc = 70 && grep -q "no such terminal" err && test ! -e rep2/goodfrac.png
'
test_expect_success 'SIGTERM: gp-sim, a server, stops cleanly with exit 0' '
	gp-sim --port $(free_port_range 1) 2>err & pid=$! &&
	sleep 0.5 && kill -TERM $pid; wait $pid
'

# An output file that cannot be created (its directory is a file): 74, the
# message names the file.
: >notadir
noout() {
	_t=$1
	shift
	test_expect_success "unopenable output: $_t exits 74 naming the file" "
		$* </dev/null >out 2>err; echo \$? >rc; cat err;
		test \$(cat rc) = 74 && grep -q '^$_t: .*/notadir/x' err
	"
}
noout gp-trace gp-trace synth -o "$TRASH/notadir/x"
noout gp-replay gp-replay --url "$URL" --model gp-sim -o "$TRASH/notadir/x" trace
noout gp-health gp-health --fleet fleet.json -o "$TRASH/notadir/x"
noout gp-probe gp-probe --fleet fleet.json --arm rr -o "$TRASH/notadir/x"
gp-calibrate protocol >proto.json
noout gp-calibrate gp-calibrate --fleet fleet.json --endpoint b1 --role prefill --protocol proto.json -o "$TRASH/notadir/x"
noout gp-analyze gp-analyze --no-validity --ttft-slo-ms 1 --tpot-slo-ms 1 -o "$TRASH/notadir/x" runs
noout gp-verify gp-verify validity -o "$TRASH/notadir/x" runs
noout gp-report gp-report --no-plots -o "$TRASH/notadir/x" runs
noout gp-sim gp-sim --port "$(free_port_range 1)" --truth "$TRASH/notadir/x"
test_done
