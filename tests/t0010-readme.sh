#!/bin/sh
# prove: serial — it judges a live replay's timing end to end
# The README's 30-second tour runs as written (on free ports instead of 9001),
# every step succeeds, every request is ok, and what it prints has the shape
# the README shows, line for line: so the README cannot drift from the tools.
. "$(dirname "$0")/lib.sh"

for t in gp-sim gp-trace gp-replay gp-analyze gp-verify; do
	[ -x "$GP_BIN/$t" ] || fail_all "$t not built"
done
command -v jq >/dev/null || fail_all "no jq"

# The first indented block under "A 30-second tour" is the commands; the
# second, after "The tour prints", is what they print on stdout.
sed -n '/^A 30-second tour/,/^The tour prints/p' "$GP_TOP/README" |
	grep '^    ' | sed 's/^    //' >tour.sh
awk '/^The tour prints/ { on = 1; next }
	on && /^    / { print substr($0, 5); seen = 1; next }
	on && seen && /^[^ ]/ { exit }' "$GP_TOP/README" >want
port=$(free_port_range 2)
sed -i -e "s/9001/$port/g" -e 's|\$PWD/bin|$GP_BIN|' tour.sh

test_expect_success 'the tour block and its output block were found' '
	grep -q "^gp-sim" tour.sh && grep -q "gp-verify publish" tour.sh &&
	test $(wc -l <want) -ge 3
'
# Run it as a script that stops at the first failing command (pipelines
# included), then stops gp-sim.
# The trap stops the tour's gp-sim also when a step fails before its 'kill %1'.
{ echo 'set -e -o pipefail'; echo 'trap '"'"'kill $(jobs -p) 2>/dev/null || :'"'"' EXIT'; cat tour.sh; } >tour-strict.sh
test_expect_success 'every step of the tour succeeds' '
	timeout 120 bash tour-strict.sh >out 2>err; rc=$?
	cat err; exit $rc
'
n=$(sed -n 's/.*--requests \([0-9]*\).*/\1/p' tour.sh | head -n 1)
test_expect_success 'every request of every repetition was ok' '
	test -n "$n" && test $(ls run-*.ndjson | wc -l) = 5 &&
	for f in run-*.ndjson; do
		jq -e "select(.type==\"run_end\") | .attempted == $n and .ok == $n and .failed == 0" $f >/dev/null ||
			{ echo "$f: not all ok"; exit 1; }
	done &&
	test $(jq -c "select(.type==\"request\" and .outcome==\"ok\")" run-*.ndjson | wc -l) = $((5 * n)) &&
	test $(wc -l <truth.ndjson) -ge $((5 * n))
'
# Shape: the same number of lines, each line valid JSON with the same keys in
# the same order and values of the same JSON types as the README shows.
shape='[to_entries[] | "\(.key):\(.value|type)"] | join(",")'
test_expect_success 'what the tour prints has the shape the README shows' '
	jq -c "$shape" want >want.shape &&
	jq -c "$shape" out >got.shape &&
	diff want.shape got.shape
'
test_expect_success 'the shape check can fail (a changed key is caught)' '
	sed "1s/\"requests\"/\"reqs\"/" out | jq -c "$shape" >bad.shape &&
	! diff -q want.shape bad.shape >/dev/null
'
test_expect_success 'the verdict printed is the verdict the README shows' '
	tail -n 1 want | jq -c "{type, publishable}" >want.v &&
	tail -n 1 out | jq -c "{type, publishable}" >got.v &&
	diff want.v got.v
'
test_done
