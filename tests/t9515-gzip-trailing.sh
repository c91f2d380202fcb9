#!/bin/sh
# Gzip members and what follows them, through gp-verify, gp-analyze and
# gp-report: plain NDJSON appended to a .gz (`cat run.ndjson.gz rerun.ndjson`)
# and garbage after a member are an error naming the file and the byte offset
# (exit 65), not records silently dropped; two members are both read; a member
# cut short is an error.  Output already written stays whole NDJSON.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
for t in verify analyze report; do
	test -x "$GP_BIN/gp-$t" || skip_all "gp-$t not built"
done

R="$GP_TOP/tests/data/verify/runs.ndjson"
head -n 300 "$R" | gzip -c >a.gz
tail -n +301 "$R" >b.ndjson
gzip -c b.ndjson >b.gz
cat a.gz b.ndjson >gz-plain.ndjson.gz
cat a.gz b.gz >gz-gz.ndjson.gz
{ cat a.gz; printf 'junk\001\002'; } >gz-garbage.ndjson.gz
head -c 2000 a.gz >trunc.ndjson.gz
off=$(stat -c %s a.gz)
ANALYZE="gp-analyze --no-validity --ttft-slo-ms 500 --tpot-slo-ms 100 --resamples 200"

# verify reads stdin (the cat of the brief), analyze and report a named file.
run_tool() {	# tool file → out, err; returns the exit status
	case $1 in
	verify) gp-verify validity <"$2" >out 2>err ;;
	analyze) $ANALYZE "$2" >out 2>err ;;
	report) rm -rf rep && gp-report -q --no-plots -o rep "$2" >out 2>err ;;
	esac
}
name_of() { if [ "$1" = verify ]; then echo "-"; else echo "$2"; fi; }

for t in verify analyze report; do
	for f in gz-plain gz-garbage; do
		test_expect_success "gp-$t: $f: exit 65 naming the file and byte $off" '
			run_tool '$t' '$f'.ndjson.gz; rc=$?
			cat err; test $rc = 65 &&
			grep -F -e "$(name_of '$t' '$f'.ndjson.gz):" err &&
			grep -F "byte '$off': data after the gzip member is not gzip" err &&
			{ test ! -s out || jq -c . out >/dev/null; }
		'
	done
	test_expect_success "gp-$t: truncated .gz: exit 65, cut short" '
		run_tool '$t' trunc.ndjson.gz; rc=$?
		cat err; test $rc = 65 && grep -F "corrupt gzip data: cut short" err &&
		{ test ! -s out || jq -c . out >/dev/null; }
	'
done

# Two members read as the concatenation of their records.
test_expect_success 'gp-verify: .gz + .gz reads both members (as the plain file)' '
	gp-verify validity <"$R" >want && gp-verify validity <gz-gz.ndjson.gz >got &&
	test $(wc -l <got) -gt 300 && cmp want got
'
test_expect_success 'gp-analyze: .gz + .gz reads both members (as the plain file)' '
	$ANALYZE "$R" >want && $ANALYZE gz-gz.ndjson.gz >got && test -s got && cmp want got
'
test_expect_success 'gp-report: .gz + .gz reads both members (as the plain file)' '
	rm -rf rw rg && gp-report -q --no-plots -o rw "$R" && gp-report -q --no-plots -o rg gz-gz.ndjson.gz &&
	cmp rw/report.md rg/report.md
'
test_done
