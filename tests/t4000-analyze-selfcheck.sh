#!/bin/sh
# gp-analyze --self-check: the statistics modules against known vectors, as TAP.
. "$(dirname "$0")/lib.sh"

command -v gp-analyze >/dev/null || skip_all "gp-analyze not built"

test_expect_success 'self-check passes and prints a TAP plan' '
	gp-analyze --self-check >tap &&
	grep -q "^1\.\.[0-9][0-9]*$" tap &&
	! grep -q "^not ok" tap
'

test_expect_success 'self-check covers every required module' '
	n=$(sed -n "s/^1\.\.//p" tap) && test "$n" -ge 30 &&
	test "$(grep -c "^ok" tap)" = "$n" &&
	grep -q "conjunction" tap && grep -q "failed requests stay in the denominator" tap &&
	grep -q "Welch" tap && grep -q "TOST 90% CI" tap && grep -q "BCa p90 lo = scipy" tap &&
	grep -q "CV = statistics.stdev" tap && grep -q "stability: .*PUBLISHABLE_WITH_FOOTNOTE" tap &&
	grep -q "type-7" tap
'

test_expect_success 'self-check needs no SLO, input or network' '
	gp-analyze --self-check </dev/null >/dev/null 2>err && test ! -s err
'
test_done
