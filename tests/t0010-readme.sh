#!/bin/sh
# The README's 30-second tour runs as written (on a free port instead of 9001),
# so the README cannot drift from the tools.
. "$(dirname "$0")/lib.sh"

for t in gp-sim gp-trace gp-replay gp-analyze gp-verify; do
	[ -x "$GP_BIN/$t" ] || skip_all "$t not built"
done
command -v jq >/dev/null || skip_all "no jq"

# The indented block under "A 30-second tour", continuation lines joined.
sed -n '/^A 30-second tour/,/^Each record type/p' "$GP_TOP/README" |
	grep '^    ' | sed 's/^    //' >tour.sh
port=$(free_port_range 2)
sed -i "s/9001/$port/g" tour.sh

test_expect_success 'the tour block was found' '
	grep -q "^gp-sim" tour.sh && grep -q "gp-verify publish" tour.sh
'
# The tour starts gp-sim in the background; stop it when the tour is done.
printf 'kill %%1 2>/dev/null; wait\n' >>tour.sh
test_expect_code 0 'the tour runs and its verdict is publishable-or-explained' '
	bash tour.sh >out.ndjson 2>err; rc=$?
	cat err
	# The last record is the verdict; exit 0 or 1 are both verdicts.
	tail -n 1 out.ndjson | jq -e ".type == \"verdict\"" >/dev/null || exit 9
	[ $rc -le 1 ]
'
test_expect_success 'the tour produced records from every step' '
	test -s trace.ndjson && test -s run.ndjson && test -s truth.ndjson &&
	jq -e "select(.type==\"run_end\") | .attempted == 100" run.ndjson
'
test_done
