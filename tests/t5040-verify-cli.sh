#!/bin/sh
# gp-verify: command line, exit codes, the man page's synopsis and examples.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
R=$D/runs.ndjson A=$D/analysis.ndjson F=$D/fleet.json
MAN=$GP_TOP/doc/gp-verify.1

test_expect_success '--help prints the usage on stdout, exit 0' '
	gp-verify --help >out && head -n 1 out | grep -q "^Usage: gp-verify validity" &&
	gp-verify publish --help >out2 && cmp out out2 &&
	gp-verify validity -h >out3 && cmp out out3
'
test_expect_success '--version' '
	gp-verify --version | grep -q "^gp-verify (gp) "
'
test_expect_code 2 'no subcommand: usage error' 'gp-verify'
test_expect_code 2 'unknown subcommand: usage error' 'gp-verify check </dev/null'
test_expect_code 2 'unknown option: usage error' 'gp-verify validity --bogus </dev/null'
test_expect_code 2 '--min-reps below 2: usage error' 'gp-verify publish --min-reps 1 </dev/null'
test_expect_code 65 'a fleet file that does not parse: 65 naming the line' '
	printf "{\n\"arms\": [,]}\n" >f.json && gp-verify publish $WAIVE_DESIGN --fleet f.json </dev/null 2>err;
	rc=$?; grep -q "^gp-verify: f.json: line 2:" err && exit $rc
'
test_expect_code 65 'a missing input file: 65' 'gp-verify validity /nonexistent.ndjson'

test_expect_success 'the man page SYNOPSIS is the --help usage' '
	sed -n "/^\.SH SYNOPSIS/,/^\.SH/p" "$MAN" | sed -e "/^\./d" -e "s/\\\\-/-/g" -e "s/^ *//" | tr -s " " >man.txt &&
	gp-verify --help | sed -n "1,/^\$/p" | sed -e "/^\$/d" -e "s/^Usage: //" -e "s/^ *//" | tr -s " " >use.txt &&
	diff use.txt man.txt
'
test_expect_success 'the man page lists every exit status' '
	for c in 0 1 2 65 69 70; do sed -n "/^\.SH EXIT STATUS/,/^\.SH/p" "$MAN" | grep -qx "\.B $c" || exit 1; done
'
test_expect_success 'every long option of --help is in the man page' '
	gp-verify --help | grep -o -- "--[a-z-]*" | sort -u >opts &&
	test -s opts &&
	while read -r o; do grep -q -- "$(printf %s "$o" | sed "s/-/\\\\\\\\-/g")" "$MAN" || { echo "missing $o"; exit 1; }; done <opts
'
test_expect_success 'man example: why was a run discarded?' '
	jq -c "if .type==\"request\" and .id==\"rr-r1-7\" then .outcome=\"failed\" | .error=\"hang\" else . end" "$R" | gzip >runs.ndjson.gz &&
	gp-verify validity runs.ndjson.gz | jq -c "select(.type == \"discard\")" >out &&
	test $(wc -l <out) = 1 && jq -e ".arm==\"rr\" and .rep==1" out
'
test_expect_success 'man example: integrity failures under mawk' '
	gp-verify validity "$R" | cat - "$A" >analysis.ndjson &&
	jq -c "if .type==\"goodfrac\" and .rep==2 and .arm==\"rr\" then .good+=2 else . end" analysis.ndjson >t.ndjson &&
	gp-verify publish $WAIVE_DESIGN -q --awk mawk t.ndjson |
		jq -r "select(.type == \"integrity\" and .ok != true) | \"\(.check): \(.detail)\"" >out;
	test $(wc -l <out) = 1 && grep -q "^recount: rr at 4 rps rep 2" out
'
test_expect_success '-o FILE.gz writes gzip; --pass copies the input first' '
	gp-verify validity -o v.ndjson.gz "$R" && gzip -t v.ndjson.gz &&
	gzip -dc v.ndjson.gz | tail -n 1 | jq -e ".type==\"validity\"" &&
	gzip -dc v.ndjson.gz | cat - "$A" | gp-verify publish $WAIVE_DESIGN -q --pass --fleet "$F" >p &&
	test $(wc -l <p) = $(( $(gzip -dc v.ndjson.gz | wc -l) + $(wc -l <"$A") + 14 + 6 )) &&
	tail -n 1 p | jq -e ".type==\"verdict\" and .publishable"
'
test_expect_success 'the verdict table goes to stderr, stdout stays records' '
	gp-verify validity "$R" | cat - "$A" | gp-verify publish $WAIVE_DESIGN --fleet "$F" >out 2>err &&
	grep -q "^gp-verify: PUBLISHABLE" err && grep -q "rr .* 5 reps .* PUBLISHABLE" err &&
	jq -e . out >/dev/null &&
	gp-verify validity "$R" | cat - "$A" | gp-verify publish $WAIVE_DESIGN -q --fleet "$F" >out 2>err && ! test -s err
'
test_expect_success 'a closed pipe ends quietly' '
	gp-verify validity "$R" 2>err | head -n 1 >/dev/null &&
	! test -s err
'
test_expect_success '--self-check: the gates, statistics and awk arithmetic against known vectors (TAP)' '
	gp-verify --self-check >tap && tail -n 1 tap | grep -qx "1\.\.[0-9]*" &&
	! grep -q "^not ok" tap && grep -q "^ok .* awk t quantile df 4" tap &&
	grep -q "^ok .* Welch 95% lo of the 5-rep example" tap && grep -q "^ok .* miss climb" tap
'
test_expect_code 1 '--self-check fails when the awk arithmetic is wrong' '
	mkdir -p bad && cp "$GP_TOP"/share/awk/*.awk bad/ &&
	sed -i "s/return p < 0.5 ? -z : z/return p < 0.5 ? -z : z + 0.01/" bad/tdist.awk &&
	GP_AWK_DIR=$PWD/bad gp-verify --self-check >tap; rc=$?; grep -q "^not ok .* z quantile" tap && exit $rc
'
test_done
