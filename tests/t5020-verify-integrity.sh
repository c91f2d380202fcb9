#!/bin/sh
# gp-verify publish: the independent integrity re-derivation (share/awk, fed
# by jq) passes on honest input and catches each kind of tampering, under mawk
# and gawk alike; the awk t quantiles against known values.
. "$(dirname "$0")/lib.sh"
D=$GP_TOP/tests/data/verify
R=$D/runs.ndjson A=$D/analysis.ndjson F=$D/fleet.json
command -v jq >/dev/null || skip_all 'jq is not installed'

# back RUNS ANALYSIS [publish args]: the back half of the pipeline
back() { r=$1 a=$2; shift 2; gp-verify validity "$r" | cat - "$a" | gp-verify publish $WAIVE_DESIGN -q --awk "$AWK" --fleet "$F" "$@"; }
# st FILE: "check=status ..." of every integrity record
st() { jq -r 'select(.type=="integrity") | "\(.check)=\(.status)"' "$1" | tr '\n' ' '; }
detail() { jq -r --arg c "$2" 'select(.type=="integrity" and .check==$c) | .detail' "$1"; }
ALL_OK="denominator=ok conservation=ok units=ok recount=ok cv=ok interval=ok slo=ok validity=ok "

for AWK in mawk gawk; do
command -v $AWK >/dev/null || { say "$AWK missing"; continue; }

test_expect_success "[$AWK] honest input: every check passes, publishable, exit 0" '
	back "$R" "$A" >out &&
	test "$(st out)" = "$ALL_OK" &&
	tail -n 1 out | jq -e ".type==\"verdict\" and .publishable==true and ([.reasons[] | select(startswith(\"waived: \") | not)] == [])"
'

# The same checks on what the live gp-analyze writes, not only on the fixture.
LIVE="gp-analyze --pass --ttft-slo-ms 300 --tpot-slo-ms 35 --floor rr --resamples 2000 --accelerators 2 --target 0.8"
live() { r=$1; shift; gp-verify validity "$r" | $LIVE | gp-verify publish $WAIVE_DESIGN -q --awk "$AWK" --fleet "$F" "$@"; }
test_expect_success "[$AWK] honest input through the live gp-analyze: every check passes" '
	live "$R" >out &&
	test "$(st out)" = "$ALL_OK" &&
	tail -n 1 out | jq -e ".publishable==true"
'
# Plant between-rep variance: reps 4 and 5 of the cache arm 3 times slower
# (ttft, tpot and e2e alike, so the unit identity holds), so that they miss
# the SLO while reps 1-3 meet it.  Every count stays consistent; the pooled
# interval, which takes all requests as independent, is far narrower than
# the per-rep one.  That is overdispersion, a property of the fleet and not
# a fault of the analyzer: the interval check recomputes the per-rep
# interval, finds gp-analyze's, and passes; the design effect is a footnote.
# (The verdict is still not publishable: the cell's CV is far over 0.10.)
test_expect_success "[$AWK] planted between-rep variance: integrity passes, overdispersion footnoted" '
	jq -c "if .type==\"request\" and .arm==\"cache\" and .rep >= 4 and .outcome==\"ok\"
		then .ttft_ms*=3 | .tpot_ms*=3 | .e2e_ms*=3 else . end" "$R" >r &&
	live r >out; test $? = 1 &&
	test "$(st out)" = "$ALL_OK" &&
	detail out interval | grep -q "^2 per-rep intervals recomputed within 1e-06; .*; 1 overdispersed (footnoted)" &&
	tail -n 1 out | jq -e ".footnotes | map(select(startswith(\"overdispersion: cache at 4 rps: between-rep variance \"))) | length == 1" &&
	tail -n 1 out | jq -e "[.reasons[] | select(startswith(\"integrity\"))] == []"
'

# A baseline SLO: rr's first run, filtered, as the unloaded baseline; the
# integrity check re-derives the SLO from the baseline requests gp-analyze
# --pass copies, and a tampered slo record fails it.
test_expect_success "[$AWK] a baseline SLO is re-derived from the baseline requests" '
	jq -c "select(.run == \"rr-r1\")" "$R" | gp-verify validity >base.ndjson &&
	gp-verify validity "$R" | gp-analyze --pass --slo-baseline base.ndjson --slo-multiple 3 \
		--floor rr --resamples 500 --accelerators 2 >a.ndjson &&
	gp-verify publish $WAIVE_DESIGN -q --awk "$AWK" --fleet "$F" <a.ndjson >out;
	test "$(jq -r "select(.type==\"integrity\" and .check==\"slo\") | .status" out)" = ok &&
	detail out slo | grep -q "^re-derived from 3[0-9] baseline requests: 3 x p50" &&
	jq -c "if .type==\"slo\" then .tpot_ms += 0.5 else . end" a.ndjson |
		gp-verify publish $WAIVE_DESIGN -q --awk "$AWK" --fleet "$F" >out; test $? = 1 &&
	test "$(jq -r "select(.type==\"integrity\" and .check==\"slo\") | .status" out)" = fail
'

test_expect_success "[$AWK] a changed count in a trailer fails the denominator" '
	jq -c "if .type==\"run_end\" and .run==\"rr-r2\" then .attempted=41 else . end" "$R" >r &&
	back r "$A" >out; test $? = 1 &&
	test "$(st out)" = "denominator=fail conservation=fail units=ok recount=ok cv=ok interval=ok slo=ok validity=ok " &&
	detail out denominator | grep -q "rr at 4 rps rep 2: 40 request records, run_end attempted 41"
'

test_expect_success "[$AWK] a changed attempted count in a goodfrac fails the denominator" '
	jq -c "if .type==\"goodfrac\" and .arm==\"cache\" and .rep==4 then .attempted=39 else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	detail out denominator | grep -q "goodfrac cache at 4 rps rep 4: attempted 39, request records 40" &&
	test "$(jq -r "select(.type==\"integrity\" and .check==\"recount\") | .status" out)" = fail
'

test_expect_success "[$AWK] a lost request record fails the denominator and conservation" '
	jq -c "select(.id != \"rr-r3-11\")" "$R" >r &&
	back r "$A" >out; test $? = 1 &&
	test "$(st out | cut -d" " -f1-2)" = "denominator=fail conservation=fail" &&
	detail out denominator | grep -q "rr at 4 rps rep 3: 39 request records, run_end attempted 40"
'

test_expect_success "[$AWK] a request the analyzer lost (goodfrac parts short of attempted) fails conservation" '
	jq -c "if .type==\"goodfrac\" and .arm==\"rr\" and .rep==1 then .paired-=1 else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	test "$(st out)" = "denominator=ok conservation=fail units=ok recount=ok cv=ok interval=ok slo=ok validity=ok " &&
	detail out conservation | grep -q "goodfrac rr at 4 rps rep 1: paired"
'

test_expect_success "[$AWK] an ok request without tpot is a lost request" '
	jq -c "if .id==\"cache-r2-3\" then .tpot_ms=null else . end" "$R" >r &&
	jq -r "select(.id==\"cache-r2-3\") | .outcome" r | grep -qx ok &&
	back r "$A" >out; test $? = 1 &&
	detail out conservation | grep -q "cache at 4 rps rep 2: .*(1 lost)"
'

test_expect_success "[$AWK] latencies in seconds instead of ms fail the unit check" '
	jq -c "if .type==\"request\" then (.ttft_ms, .tpot_ms, .e2e_ms) |= (if . == null then null else . / 1000 end) else . end" "$R" >r &&
	back r "$A" >out; test $? = 1 &&
	detail out units | grep -q "values look like seconds"
'

test_expect_success "[$AWK] TTFT alone in seconds breaks the TPOT identity" '
	jq -c "if .type==\"request\" and .ttft_ms != null then .ttft_ms /= 1000 else . end" "$R" >r &&
	back r "$A" >out; test $? = 1 &&
	detail out units | grep -q "the fields are not in one unit"
'

test_expect_success "[$AWK] latencies in microseconds exceed the deadline" '
	jq -c "if .type==\"request\" then (.ttft_ms, .tpot_ms, .e2e_ms) |= (if . == null then null else . * 1000 end) else . end" "$R" >r &&
	back r "$A" >out; test $? = 1 &&
	detail out units | grep -q "ms over the 30 s deadline"
'

test_expect_success "[$AWK] --deadline-s bounds runs whose header has no deadline" '
	jq -c "if .type==\"run\" then del(.deadline_s) elif .id==\"rr-r1-4\" then .e2e_ms=45000 | .outcome=\"failed\" | .error=\"reset\" | .ttft_ms=null | .tpot_ms=null else . end" "$R" >r &&
	back r "$A" >out;
	detail out units | grep -q "no deadline known" &&
	back r "$A" --deadline-s 30 >out;
	detail out units | grep -q "e2e_ms 45000 ms over the 30 s deadline"
'

test_expect_success "[$AWK] e2e shorter than ttft fails the unit check" '
	jq -c "if .id==\"rr-r2-2\" then .e2e_ms = 1 else . end" "$R" >r &&
	jq -r "select(.id==\"rr-r2-2\") | .outcome" "$R" | grep -qx ok &&
	back r "$A" >out; test $? = 1 &&
	detail out units | grep -q "e2e_ms 1 < ttft_ms"
'

test_expect_success "[$AWK] a goodfrac that does not match the recount fails it" '
	jq -c "if .type==\"goodfrac\" and .arm==\"cache\" and .rep==2 then .good+=1 | .good_fraction=(.good/.attempted) else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	test "$(st out)" = "denominator=ok conservation=ok units=ok recount=fail cv=ok interval=ok slo=ok validity=ok " &&
	detail out recount | grep -q "^cache at 4 rps rep 2: recount"
'

test_expect_success "[$AWK] the recount uses the conjunction: an OR-counting analyzer is caught" '
	jq -c "select(.type==\"request\" and .outcome==\"ok\" and .arm==\"rr\" and .rep==1 and ((.ttft_ms > 300) != (.tpot_ms > 35)))" "$R" >xor &&
	test -s xor &&
	n=$(wc -l <xor) &&
	jq -c --argjson n "$n" "if .type==\"goodfrac\" and .arm==\"rr\" and .rep==1 then .good+=\$n | .good_fraction=(.good/.attempted) else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	detail out recount | grep -q "^rr at 4 rps rep 1: recount"
'

test_expect_success "[$AWK] the single-token policy comes from the slo record" '
	jq -c "if .type==\"slo\" then .single_token=\"miss\" else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	test "$(jq -r "select(.type==\"integrity\" and .check==\"recount\") | .status" out)" = fail
'

test_expect_success "[$AWK] a CV that does not match the per-rep recount fails the cv check" '
	jq -c "if .type==\"arm_summary\" and .arm==\"rr\" then .cv=0.05 else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	test "$(st out)" = "denominator=ok conservation=ok units=ok recount=ok cv=fail interval=ok slo=ok validity=ok "
'

# The client's rules, the shards and the run ids are re-judged from the
# run_ends too: records edited after the filter (the bindings refuse them as
# well; here the awk check is shown on its own).
test_expect_success "[$AWK] the client rules and the run ids are re-judged from the run_end" '
	gp-verify validity "$R" | jq -c "if .type==\"run_end\" and .run==\"rr-r2\" then .capped_sends=3
		elif .type==\"run_end\" and .run==\"rr-r3\" then .interrupted=true
		elif .type==\"run_end\" and .run==\"cache-r1\" then .client_behind=true | .lateness_max_ms=300 | .achieved_rps=8
		elif .type==\"request\" and .id==\"cache-r2-3\" then .run=\"cache-r2-other\" else . end" |
		cat - "$A" | gp-verify publish -q --awk "$AWK" --fleet "$F" >out; test $? = 1 &&
	test "$(jq -r "select(.type==\"integrity\" and .check==\"validity\") | .status" out)" = fail &&
	detail out validity | grep -q "^4 of 10 runs break a validity rule" &&
	detail out validity | grep -q "rr at 4 rps rep 2: capped_sends 3; rr at 4 rps rep 3: interrupted; cache at 4 rps rep 1: client_behind (lateness p99 0.2 ms, max 300 ms; gap 250 ms), achieved_rate 8 against 4; and 1 more"
'

test_expect_success "[$AWK] a per-rep interval that is not the recomputed one fails" '
	jq -c "if .type==\"arm_summary\" and .arm==\"cache\" then .good_fraction_ci.lo -= 0.00001 else . end" "$A" >a &&
	back "$R" a >out; test $? = 1 &&
	test "$(st out)" = "denominator=ok conservation=ok units=ok recount=ok cv=ok interval=fail slo=ok validity=ok " &&
	detail out interval | grep -q "^cache at 4 rps: good_fraction_ci .*, recomputed .* (tolerance 1e-06)"
'

test_expect_success "[$AWK] without analysis records the analysis checks are not checked" '
	gp-verify validity "$R" | gp-verify publish $WAIVE_DESIGN -q --awk "$AWK" --fleet "$F" >out; test $? = 1 &&
	test "$(st out)" = "denominator=ok conservation=ok units=ok recount=not_checked cv=not_checked interval=not_checked slo=not_checked validity=ok " &&
	only() { jq -c "select(.type==\"integrity\" and .status==\"not_checked\")" out; } &&
	test "$(only | jq -r .ok | sort -u)" = null
'

test_expect_success "[$AWK] t quantiles match closed forms and scipy" '
	cat >q.awk <<-\EOF &&
	BEGIN {
		n = split("1 2 3 4 5 9 19 29 99", d, " ")
		for (i = 1; i <= n; i++) printf "%d %.12f %.12f\n", d[i], t_quantile(0.975, d[i]), t_quantile(0.95, d[i])
		printf "cdf %.12f %.12f\n", t_cdf(2.0, 7), t_cdf(-1.5, 12)
	}
	EOF
	$AWK -f "$GP_TOP/share/awk/tdist.awk" -f q.awk >got &&
	# Reference: df 1, 2 and 4 from the closed forms tan(pi (p - 1/2)),
	# (2p - 1)/sqrt(2p(1 - p)) and 2 sqrt(q - 1), q = cos(acos(sqrt(a))/3)/sqrt(a),
	# a = 4p(1 - p); the others from /usr/bin/python3 scipy 1.10.1
	# stats.t.ppf (accurate to about 1e-9) and stats.t.cdf.
	cat >want <<-\EOF &&
	1 12.706204736175 6.313751514675
	2 4.302652729749 2.919985580354
	3 3.182446305284 2.353363434802
	4 2.776445105198 2.131846786327
	5 2.570581836615 2.015048372669
	9 2.262157162741 1.833112932654
	19 2.093024054408 1.729132811521
	29 2.045229642133 1.699127026533
	99 1.984216951509 1.660391155996
	cdf 0.957190335719 0.079728751757
	EOF
	paste got want | $AWK "{ for (i = 2; i <= 3; i++) { d = \$i - \$(i + 3); if (d < 0) d = -d; if (d > 5e-9) { print \"mismatch\", \$0; bad = 1 } } } END { exit bad }"
'

test_expect_success "[$AWK] the quickselect median equals a sorted type-7 median" '
	cat >m.awk <<-\EOF &&
	BEGIN {
		srand(3)
		for (t = 1; t <= 400; t++) {
			n = 1 + int(rand() * 40)
			for (i = 1; i <= n; i++) { a[i] = int(rand() * 10); b[i] = a[i] }
			for (i = 2; i <= n; i++) { v = b[i]; j = i - 1; while (j >= 1 && b[j] > v) { b[j + 1] = b[j]; j-- } b[j + 1] = v }
			h = (n - 1) * 0.5 + 1; lo = int(h)
			want = lo >= n ? b[n] : b[lo] + (h - lo) * (b[lo + 1] - b[lo])
			got = median(a, n)
			if (got != want) { print "n", n, "got", got, "want", want; bad++ }
		}
		print "checked " (t - 1)
		exit bad > 0
	}
	EOF
	$AWK -f "$GP_TOP/share/awk/common.awk" -f m.awk >got && grep -qx "checked 400" got
'

done

test_expect_success 'the integrity checks give the same records under mawk and gawk' '
	jq -c "if .type==\"goodfrac\" and .rep==3 then .good+=1 else . end" "$A" >a &&
	AWK=mawk back "$R" a >m; AWK=gawk back "$R" a >g;
	jq -c "select(.type==\"integrity\")" m >mi && jq -c "select(.type==\"integrity\")" g >gi &&
	test -s mi && cmp mi gi
'

if command -v gawk >/dev/null && command -v mawk >/dev/null; then
test_expect_success 'POSIX awk only: gawk --posix gives the same integrity records as mawk' '
	printf "#!/bin/sh\nexec gawk --posix \"\$@\"\n" >pawk && chmod +x pawk &&
	AWK=$PWD/pawk back "$R" "$A" >p1 && test "$(st p1)" = "$ALL_OK" &&
	AWK=$PWD/pawk back "$R" a >p2;
	jq -c "select(.type==\"integrity\")" p2 >pi && cmp mi pi
'
fi

test_expect_code 1 'an awk that cannot run: every check not checked, not publishable' '
	back "$R" "$A" --awk /nonexistent/awk >out 2>err;
	rc=$?; test "$(jq -r "select(.type==\"integrity\") | .status" out | sort -u)" = not_checked && exit $rc
'

test_expect_code 1 'missing integrity scripts: not checked, not publishable' '
	mkdir empty && back "$R" "$A" --awk-dir empty >out;
	rc=$?; detail out recount | grep -q "no integrity scripts in empty" && exit $rc
'

test_expect_success 'GP_AWK_DIR names the scripts directory' '
	cp -r "$GP_TOP/share/awk" mine && GP_AWK_DIR=$PWD/mine back "$R" "$A" >out &&
	test "$(st out)" = "$ALL_OK"
'
test_done
