#!/bin/sh
# gp-analyze input handling: refusal without the validity record, --pass
# ordering, bad input (exit 65 with file:line:field), the run_end attempted
# cross-check, discarded runs, gzip input, determinism of the seed, options.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"
command -v jq >/dev/null || skip_all "jq missing"


# run ARM RATE REP N — N requests (ttft i*10 ms, tpot 5+i%7), a run header and trailer
run() {
	awk -v a="$1" -v r="$2" -v rep="$3" -v n="$4" 'BEGIN {
		printf "{\"type\":\"run\",\"run\":\"%s-%s-%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d}\n", a, r, rep, a, r, rep
		for (i = 0; i < n; i++)
			printf "{\"type\":\"request\",\"run\":\"%s-%s-%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"q%d\",\"t_sent_s\":%g,\"ttft_ms\":%d,\"tpot_ms\":%d,\"outcome\":\"ok\"}\n", a, r, rep, a, r, rep, i, i / r, 10 * i + rep, 5 + (i * 7 + rep) % 11
		printf "{\"type\":\"run_end\",\"run\":\"%s-%s-%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"attempted\":%d,\"ok\":%d,\"single_token\":0,\"failed\":0,\"by_error\":{}}\n", a, r, rep, a, r, rep, n, n
	}'
}
valid() { echo '{"type":"validity","kept":6,"discarded":0,"rules":[]}'; }
{ for rep in 1 2 3; do run a 2 $rep 40; run b 2 $rep 40; done; } >raw
{ cat raw; valid; } >in
A="--ttft-slo-ms 250 --tpot-slo-ms 12 --resamples 1000"

test_expect_code 65 'refuses a stream without the validity record' 'gp-analyze $A raw'
test_expect_success 'the refusal says how to fix it, and writes nothing' '
	! gp-analyze $A raw >o 2>err && test ! -s o &&
	grep -q "gp-verify validity" err && grep -q -- "--no-validity" err
'
test_expect_success '--no-validity accepts it' '
	gp-analyze $A --no-validity raw >o && jall "select(.type == \"goodfrac\") | .attempted == 40" o
'
test_expect_success '--pass: the input records first, byte for byte, then the analysis' '
	gp-analyze $A --pass in >o &&
	n=$(wc -l <in) && head -n "$n" o | cmp - in &&
	tail -n +"$((n + 1))" o | head -n 1 | jq -e ".type == \"slo\"" >/dev/null &&
	test "$(tail -n +"$((n + 1))" o | jq -r .type | sort -u | tr "\n" " ")" = "arm_summary goodfrac knee slo "
'
test_expect_success 'without --pass only analysis records' '
	gp-analyze $A in >o &&
	test "$(jq -r .type o | sort -u | tr "\n" " ")" = "arm_summary goodfrac knee slo "
'
test_expect_success 'gzip input gives the same analysis' '
	gzip -c in >in.gz && gp-analyze $A in.gz >o2 && cmp o o2
'
test_expect_success 'several files and stdin mix' '
	head -n 50 in >part1 && tail -n +51 in >part2 &&
	gp-analyze $A part1 - <part2 >o3 && cmp o o3
'
test_expect_success 'determinism: the same seed gives byte-identical output' '
	gp-analyze $A --seed 42 in >s1 && gp-analyze $A --seed 42 in >s2 && cmp s1 s2 &&
	jall "select(.type == \"slo\") | .seed == 42" s1
'
test_expect_success 'another seed gives other intervals' '
	gp-analyze $A --seed 43 in >s3 && ! cmp -s s1 s3
'
test_expect_success 'input order does not change the output' '
	{ valid; tac raw; } >rev && gp-analyze $A --seed 42 rev >s4 && cmp s1 s4
'
test_expect_success 'an arm'"'"'s intervals do not depend on the other arms present' '
	grep -v "\"arm\":\"b\"" in >only_a && gp-analyze $A --seed 42 only_a >s5 &&
	jq -c "select(.type == \"arm_summary\" and .arm == \"a\")" s1 >x1 &&
	jq -c "select(.type == \"arm_summary\" and .arm == \"a\")" s5 >x5 && test -s x1 && cmp x1 x5
'

bad() { # LINE-NUMBER REPLACEMENT-JQ : rewrite one request record
	awk -v n="$1" -v r="$2" 'NR == n { print r; next } { print }' in >bad.ndjson
}
test_expect_success 'a missing field: exit 65, file:line:field' '
	line=$(jq -c "select(.type == \"request\") | del(.ttft_ms)" in | head -n 1) &&
	bad 2 "$line" &&
	{ gp-analyze $A bad.ndjson 2>err; test $? = 65; } &&
	grep -q "bad.ndjson:2: field .ttft_ms. is missing" err
'
test_expect_success 'a field of the wrong type: exit 65, file:line:field' '
	line=$(jq -c "select(.type == \"request\") | .rate_rps = \"fast\"" in | sed -n 3p) &&
	bad 5 "$line" &&
	{ gp-analyze $A bad.ndjson 2>err; test $? = 65; } &&
	grep -q "bad.ndjson:5: field .rate_rps. is not a number" err
'
test_expect_success 'an unknown outcome: exit 65 naming it' '
	line=$(jq -c "select(.type == \"request\") | .outcome = \"meh\"" in | head -n 1) &&
	bad 2 "$line" &&
	{ gp-analyze $A bad.ndjson 2>err; test $? = 65; } && grep -q "bad.ndjson:2: field .outcome." err
'
test_expect_success 'a line that is not JSON: exit 65 with file:line' '
	bad 7 "{not json" &&
	{ gp-analyze $A bad.ndjson 2>err; test $? = 65; } && grep -q "bad.ndjson:7:" err
'
test_expect_success 'gzip input: the line numbers are the same' '
	gzip -c bad.ndjson >bad.ndjson.gz &&
	{ gp-analyze $A bad.ndjson.gz 2>err; test $? = 65; } && grep -q "bad.ndjson.gz:7:" err
'
test_expect_success 'lost request records (run_end.attempted mismatch): exit 65 naming the run' '
	awk "NR != 10" in >lost &&
	{ gp-analyze $A lost 2>err; test $? = 65; } && grep -q "run .a-2-1." err && grep -q "lost" err
'
test_expect_success 'a run_end attempted that is not an integer: exit 65, file:line:field' '
	n=$(grep -n "\"type\":\"run_end\"" in | head -n 1 | cut -d: -f1) &&
	awk -v n="$n" "NR == n { sub(/\"attempted\":[0-9]+/, \"\\\"attempted\\\":\\\"forty\\\"\") } { print }" in >badre &&
	grep -q "\"attempted\":\"forty\"" badre &&
	{ gp-analyze $A badre 2>err; test $? = 65; } && grep -q "badre:$n: field .attempted. is not an integer" err
'
test_expect_success 'a discarded run (records dropped by gp-verify) is not a loss' '
	{ grep -v "\"run\":\"b-2-3\",\"arm\"" raw | grep -v "^{\"type\":\"run\"" ; run b 2 3 40 | tail -n 1;
	  echo "{\"type\":\"discard\",\"arm\":\"b\",\"rate_rps\":2,\"rep\":3,\"reasons\":[\"hang\"]}"; valid; } >disc &&
	gp-analyze $A disc >o && jall "select(.type == \"arm_summary\" and .arm == \"b\") | .reps == 2" o
'
test_expect_success 'run_end without run ids: matched by (arm, rate, rep), shards summed' '
	{ run s 1 1 10 | sed "s/\"run\":\"[^\"]*\",//" | head -n -1;
	  echo "{\"type\":\"run_end\",\"arm\":\"s\",\"rate_rps\":1,\"rep\":1,\"attempted\":6}";
	  echo "{\"type\":\"run_end\",\"arm\":\"s\",\"rate_rps\":1,\"rep\":1,\"attempted\":4}"; valid; } >shards &&
	gp-analyze $A shards >o && jall "select(.type == \"goodfrac\") | .attempted == 10" o &&
	sed "s/\"attempted\":4/\"attempted\":5/" shards >shards2 &&
	{ gp-analyze $A shards2 2>err; test $? = 65; } && grep -q "arm .s." err
'
test_expect_success 'runs are units: two runs claiming one (arm, rate, rep) exit 65 naming both' '
	{ cat raw; run a 2 1 40 | sed "s/a-2-1/a-2-1-again/g"; valid; } >twice &&
	{ gp-analyze $A twice 2>err; test $? = 65; } &&
	grep -q "runs .a-2-1. and .a-2-1-again. both claim arm .a., rate 2 rps, rep 1" err
'
test_expect_success 'the same records fed twice are called duplicated, not lost' '
	{ cat raw raw; valid; } >dup &&
	{ gp-analyze $A dup 2>err; test $? = 65; } && grep -q "duplicated" err && ! grep -q "lost" err &&
	{ cat raw; run a 2 1 40 | grep "\"request\"" | head -n 3; valid; } >extra &&
	{ gp-analyze $A extra 2>err; test $? = 65; } && grep -q "were duplicated" err
'
test_expect_success 'a run_end keyed by run alone (no arm, rate_rps, rep) is accepted' '
	{ sed "/run_end/s/\"arm\":\"[a-z]*\",\"rate_rps\":[0-9]*,\"rep\":[0-9]*,//" raw; valid; } >byrun &&
	! grep "run_end" byrun | grep -q "\"arm\"" &&
	gp-analyze $A byrun >o && jall "select(.type == \"goodfrac\") | .attempted == 40" o &&
	awk "NR != 10" byrun >byrun-lost && { gp-analyze $A byrun-lost 2>err; test $? = 65; } && grep -q lost err
'
test_expect_success 'the back half as one pipeline: gp-verify validity | gp-analyze --pass | gp-verify publish' '
	gp-verify validity raw 2>/dev/null | gp-analyze $A --pass --floor a >piped &&
	jq -e -s "(map(select(.type == \"validity\")) | length == 1) and
		(map(.type) | index(\"validity\") < index(\"slo\"))" piped >/dev/null &&
	{ gp-verify publish <piped >verdict 2>/dev/null; test $? = 1; } &&
	jq -e -s "map(select(.type == \"verdict\")) | length == 1 and (.[0].publishable == false)" verdict >/dev/null &&
	jq -e -s "map(select(.type == \"integrity\" and .check == \"recount\")) | .[0].ok == true" verdict >/dev/null
'
test_expect_code 65 'no request records at all' 'valid | gp-analyze $A'
test_expect_code 2 'an unknown option is a usage error' 'gp-analyze $A --frobnicate in'
test_expect_code 2 'a bad number is a usage error' 'gp-analyze $A --resamples lots in'
test_expect_success '--help prints the usage to stdout, exit 0' '
	gp-analyze --help >h && grep -q "^Usage: gp-analyze" h
'
test_expect_success '--version' 'gp-analyze --version | grep -q "gp-analyze (gp)"'
# The man page as plain text (roff writes - as \-), and its SYNOPSIS block.
man_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(em/--/g' "$GP_TOP/doc/gp-analyze.1"; }
man_synopsis() { man_text | sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' | sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d'; }
help_synopsis() { gp-analyze --help | sed -n '1,/^$/p' | sed '$d' | sed 's/^Usage: //; s/^       //'; }

test_expect_success 'the man page names every option of --help' '
	man_text >man.txt &&
	for o in $(gp-analyze --help | grep -o -- "--[a-z][a-z-]*" | sort -u); do
		grep -q -- "$o" man.txt || { echo "missing $o"; exit 1; }
	done
'
test_expect_success 'the man page SYNOPSIS equals the usage text' '
	man_synopsis >syn && help_synopsis >use && test -s use && diff -b syn use
'
test_expect_success '-o FILE.gz writes compressed records' '
	gp-analyze $A in >o &&
	gp-analyze $A -o out.ndjson.gz in && gzip -dc out.ndjson.gz | cmp - o
'
test_expect_success 'the default resamples (10000) and level (0.95) are recorded' '
	gp-analyze --ttft-slo-ms 250 --tpot-slo-ms 12 in >d &&
	jall "select(.type == \"slo\") | .resamples == 10000 and .level == 0.95" d &&
	jall "select(.type == \"arm_summary\") | .ttft_ms.p50.resamples == 10000 and .good_fraction_ci.level == 0.95" d
'
test_expect_success '--level sets the level of every interval, and narrows it' '
	gp-analyze $A --level 0.8 --floor a in >l80 && gp-analyze $A --floor a in >l95 &&
	jall "select(.type == \"slo\") | .level == 0.8" l80 &&
	jall "select(.type == \"arm_summary\") | .ttft_ms.p90.level == 0.8 and .tpot_ms_cluster.p50.level == 0.8
		and .good_fraction_ci.level == 0.8 and .good_fraction_pooled.level == 0.8" l80 &&
	jall "select(.type == \"compare\" or .type == \"noise_floor\") | .level == 0.8" l80 &&
	w80=$(jq -s "map(select(.type == \"arm_summary\" and .arm == \"a\"))[0].ttft_ms.p50 | .hi - .lo" l80) &&
	w95=$(jq -s "map(select(.type == \"arm_summary\" and .arm == \"a\"))[0].ttft_ms.p50 | .hi - .lo" l95) &&
	awk -v a="$w80" -v b="$w95" "BEGIN { exit !(a < b) }"
'
test_expect_code 2 '--level outside (0.5, 1) is a usage error' 'gp-analyze $A --level 1.5 in'
test_expect_success 'stderr is silent when it is not a terminal' '
	gp-analyze $A --floor a in >o 2>err && test ! -s err
'
if command -v script >/dev/null; then
test_expect_success 'a summary table on stderr when it is a terminal; stdout stays NDJSON' '
	script -qec "gp-analyze $A --floor a in >tty.ndjson" /dev/null >tty.txt &&
	grep -q "^SLO: TTFT <= 250 ms and TPOT <= 12 ms (fixed)" tty.txt &&
	grep -q "^arm  *rate_rps  *reps  *good" tty.txt &&
	grep -q "^b  *2  *3 " tty.txt &&
	grep -q "^compare b vs a at 2 rps: diff" tty.txt && grep -q "^knee a: " tty.txt &&
	gp-analyze $A --floor a in | cmp - tty.ndjson
'
else
	say "script(1) missing: terminal table not tested"
fi

test_done
