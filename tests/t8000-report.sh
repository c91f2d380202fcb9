#!/bin/sh
# gp-report: the report's tables hold the records' numbers, each plot exists
# and is a real PNG/SVG, absent sections say "not measured", bad input is
# exit 65 with file:line, a missing or failing gnuplot is 69/70, and the HTML
# page is self-contained.
. "$(dirname "$0")/lib.sh"

command -v gp-report >/dev/null || skip_all "gp-report not built"
command -v jq >/dev/null || skip_all "jq missing"
command -v gnuplot >/dev/null || skip_all "gnuplot missing (share/packages: gnuplot-nox)"
DATA=$GP_TOP/tests/data/report

# run ARM RATE REP N [INVALID] — N requests; TTFT grows with the rate, so the
# good fraction falls along the ladder; every 7th request fails at 16 req/s.
run() {
	awk -v a="$1" -v r="$2" -v rep="$3" -v n="$4" -v bad="${5:-0}" 'BEGIN {
		id = a "-" r "-" rep
		printf "{\"type\":\"run\",\"run\":\"%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d}\n", id, a, r, rep
		ok = 0; failed = 0
		for (i = 0; i < n; i++) {
			if (r >= 16 && i % 7 == 3) {
				printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"q%d\",\"t_sent_s\":%g,\"ttft_ms\":null,\"tpot_ms\":null,\"outcome\":\"failed\",\"error\":\"timeout\"}\n", id, a, r, rep, i, i / r
				failed++
				continue
			}
			ttft = 20 + (i % 10) * r * (a == "rr" ? 2.2 : 1.6) + rep * 3
			printf "{\"type\":\"request\",\"run\":\"%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"id\":\"q%d\",\"t_sent_s\":%g,\"ttft_ms\":%g,\"tpot_ms\":%g,\"outcome\":\"ok\"}\n", id, a, r, rep, i, i / r, ttft, 5 + (i * 7 + rep) % 11
			ok++
		}
		printf "{\"type\":\"run_end\",\"run\":\"%s\",\"arm\":\"%s\",\"rate_rps\":%s,\"rep\":%d,\"attempted\":%d,\"ok\":%d,\"single_token\":0,\"failed\":%d,\"by_error\":{},\"invalid_framing\":%d,\"achieved_rps\":%g}\n", id, a, r, rep, n, ok, failed, bad, r * (0.97 + rep / 100)
	}'
}
{
	for a in rr hash; do for r in 4 8 16; do for rep in 1 2 3; do
		bad=0; [ $a = hash ] && [ $r = 16 ] && [ $rep = 3 ] && bad=1
		run $a $r $rep 40 $bad
	done; done; done
} >runs.ndjson
gp-verify validity runs.ndjson 2>/dev/null |
	gp-analyze --pass --ttft-slo-ms 250 --tpot-slo-ms 14 --floor rr --equiv rr --delta 0.05 \
		--resamples 500 --seed 3 |
	gp-verify publish --pass --min-reps 3 --rep-cap 5 >all.ndjson 2>publish.err
jq -e -s 'map(select(.type == "verdict")) | length == 1' all.ndjson >/dev/null ||
	{ echo "1..0 # SKIP the pipeline gave no verdict: $(cat publish.err)"; exit 0; }
# the records the report is checked against, without the requests
jq -c 'select(.type != "request")' all.ndjson >analysis.ndjson

test_expect_success 'writes report.md, five plots and the HTML page' '
	gp-report -o out --html --protocol $DATA/protocol.json all.ndjson $DATA/phases.ndjson 2>err &&
	test -s out/report.md && test -s out/report.html &&
	for p in goodfrac ttft_cdf tpot_cdf probe calib; do test -s out/$p.png && test -s out/$p.svg || exit 1; done
'
test_expect_success 'first: the verdict, the headline (each knee, the ratio to the floor with its interval), the plot' '
	sed -n "/^## /{p;q}" out/report.md | grep -qx "## Verdict and headline" &&
	awk "/^## /{n++} n == 1" out/report.md >first &&
	grep -q "PUBLISHABLE" first && grep -q "goodfrac.png" first &&
	jq -r "select(.type == \"knee\" and .rate_rps != null) | .arm" analysis.ndjson >karms && test -s karms &&
	for a in $(cat karms); do grep -q "^- $a: " first || { echo "no headline for $a"; exit 1; }; done &&
	jq -r "select(.type == \"knee_compare\" and .ratio != null) | [.arm, .ratio, .ratio_ci.lo, .ratio_ci.hi] | @tsv" analysis.ndjson >ratios &&
	test -s ratios &&
	while IFS="	" read -r a r lo hi; do
		want=$(printf "%.4g× [%.4g, %.4g] rr'"'"'s" $r $lo $hi)
		grep "^- $a: " first | grep -qF "$want" || { echo "headline of $a lacks $want"; grep "^- $a" first; exit 1; }
	done <ratios
'
test_expect_success 'the power table: per rung of the floor arm what it resolves and what would resolve delta' '
	test "$(jq -s "map(select(.type == \"power\")) | length" analysis.ndjson)" = 3 &&
	grep -q "^### Power: the smallest difference each rung resolves" out/report.md &&
	for r in $(jq -r "select(.type == \"power\") | .rate_rps" analysis.ndjson); do
		hw=$(jq -r --argjson r $r "select(.type == \"power\" and .rate_rps == \$r) | .half_width * 1000 | round / 1000" analysis.ndjson)
		grep -q "^| rr | $r | 3 | 40.0 | $(printf %.3f $hw) | 0.05 |" out/report.md || { echo "power row $r"; exit 1; }
	done
'
test_expect_success 'every PNG is a PNG of a real size, every SVG parses as SVG' '
	for p in out/*.png; do
		test "$(head -c 8 $p | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a || { echo "$p: not PNG"; exit 1; }
		test $(wc -c <$p) -gt 8000 || { echo "$p: too small"; exit 1; }
	done &&
	for s in out/*.svg; do
		grep -q "<svg" $s && { ! command -v xmllint >/dev/null || xmllint --noout $s; } || exit 1
	done
'
fmt_rows() { # AWK-PRINTF-ARGS < TSV
	awk -F'\t' "{ printf $1 }"
}
test_expect_success 'the good-fraction table holds every arm_summary: reps, mean, CV' '
	jq -r "select(.type == \"arm_summary\") | [.arm, .rate_rps, .reps, .mean_good_fraction] | @tsv" all.ndjson |
		fmt_rows "\"| %s | %.4g | %s | %.3f |\\n\", \$1, \$2, \$3, \$4" >want &&
	test $(wc -l <want) = 6 &&
	while read -r row; do grep -qF "$row" out/report.md || { echo "missing: $row"; exit 1; }; done <want
'
test_expect_success 'the stability table says how many reps each rung took, with its verdict' '
	jq -r "select(.type == \"stability\") | [.arm, .rate_rps, .reps, .verdict] | @tsv" all.ndjson >st &&
	test $(wc -l <st) = 6 &&
	while IFS="	" read -r a r n v; do
		grep -E "^\| $a \| $r \| $n \| [^|]* \| $v \|" out/report.md >/dev/null || { echo "missing: $a $r $n $v"; exit 1; }
	done <st &&
	grep -E "^\| hash \| 16 \| 2 \|" out/report.md >/dev/null
'
test_expect_success 'the compare table: each verdict, its diff and its TOST p' '
	jq -r "select(.type == \"compare\") | [.arm, .vs, .rate_rps, .diff, .verdict, .tost.p] | @tsv" all.ndjson |
		fmt_rows "\"| %s | %s | %.4g | %.3f |\\t%s\\t%.4g\\n\", \$1, \$2, \$3, \$4, \$5, \$6" >cmp &&
	test $(wc -l <cmp) = 3 &&
	while IFS="	" read -r head v p; do
		line=$(grep -F "$head" out/report.md) && echo "$line" | grep -qF "| $v" &&
			echo "$line" | grep -qF "| $p |" || { echo "missing: $head $v $p"; exit 1; }
	done <cmp
'
test_expect_success 'the knee table and the SLO sentence come from the records' '
	jq -r "select(.type == \"knee\") | [.arm, (.rate_rps // \"none clears\")] | @tsv" all.ndjson >kn &&
	test $(wc -l <kn) = 2 &&
	while IFS="	" read -r a r; do grep -qE "^\| $a \| $r \|" out/report.md || { echo "knee $a $r"; exit 1; }; done <kn &&
	grep -qF "TTFT <= 250.0 ms AND TPOT <= 14 ms" out/report.md && grep -qF "Origin: fixed." out/report.md
'
test_expect_success 'the discarded run is listed with its reasons; the verdict is stated' '
	reason=$(jq -r "select(.type == \"discard\") | .reasons[0]" all.ndjson) && test -n "$reason" &&
	grep -E "^\| hash \| 16 \| 3 \| " out/report.md | grep -qF "$reason" &&
	if jq -e "select(.type == \"verdict\") | .publishable" all.ndjson >/dev/null
	then grep -q "^PUBLISHABLE" out/report.md; else grep -q "^NOT PUBLISHABLE" out/report.md; fi &&
	jq -r "select(.type == \"verdict\") | .reasons[]" all.ndjson | while read -r r; do
		grep -qF -- "- $r" out/report.md || { echo "reason: $r"; exit 1; }; done
'
test_expect_success 'integrity checks and the protocol, echoed whole' '
	jq -r "select(.type == \"integrity\") | .check" all.ndjson | while read -r c; do
		grep -qE "^\| $c \| (ok|FAIL|not checked) \|" out/report.md || { echo "check $c"; exit 1; }; done &&
	while read -r line; do grep -qF -- "$line" out/report.md || { echo "protocol: $line"; exit 1; }; done <$DATA/protocol.json
'
test_expect_success 'calibration, probe and health tables hold the fixture'"'"'s numbers' '
	grep -qE "^\| b2 \(http://127.0.0.1:9002\) \| prefill \| 600 \| 3 \| yes \|" out/report.md &&
	grep -qE "^\| prefill \| b2 \| 4 \| 8 \| 16 \|" out/report.md &&
	grep -qE "^\| hash \| concentrate \| 2.5 \| yes \| ENGAGED \|" out/report.md &&
	grep -qF "4 checks, 1 failed." out/report.md && grep -qF "NOT READY" out/report.md &&
	test $(grep -c "^| b[12] (http://127.0.0.1:900[12]) | [0-6] |" out/report.md) = \
	     $(jq -s "map(select(.type == \"calib_step\")) | length" $DATA/phases.ndjson)
'
# A campaign's health: 200 gp-health rounds of 6 checks (two arms), six
# failures — b2's metrics in rounds 37, 60, 61, 62 and 150, the VIP in round
# 90 (odd rounds are arm kv, even ones rr).  The section stays short and still names them.
awk 'BEGIN {
	for (r = 1; r <= 200; r++) {
		arm = r % 2 ? "kv" : "rr"; bad = 0
		for (c = 0; c < 6; c++) {
			split("backend_models b1 9001|backend_models b2 9002|metrics b1 9001|metrics b2 9002|vip_chat vip 8080|kv_events vip 8080", L, "|")
			split(L[c + 1], f, " ")
			ok = !((f[1] == "metrics" && f[2] == "b2" && (r == 37 || r == 60 || r == 61 || r == 62 || r == 150)) ||
			       (f[1] == "vip_chat" && r == 90))
			bad += !ok
			printf "{\"type\":\"health\",\"check\":\"%s\",\"name\":\"%s\",\"target\":\"http://127.0.0.1:%s\",\"arm\":\"%s\",\"ok\":%s,\"at\":\"2026-12-01T08:%02d:%02dZ\",\"detail\":\"%s\"}\n",
				f[1], f[2], f[3], arm, ok ? "true" : "false", int(r / 60), r % 60, ok ? "fine" : "round " r " failed"
		}
		printf "{\"type\":\"health_summary\",\"arm\":\"%s\",\"ready\":%s,\"at\":\"2026-12-01T08:%02d:%02dZ\",\"failed_checks\":[%s]}\n",
			arm, bad ? "false" : "true", int(r / 60), r % 60, bad ? "\"x\"" : ""
	}
}' >many-health.ndjson
test_expect_success 'many health records: one row per arm, check and target, failures still named' '
	gp-report -q -o mh --no-plots many-health.ndjson &&
	sed -n "/^## Phase 0/,/^## Phase 1/p" mh/report.md >h.md &&
	test $(wc -l <h.md) -lt 40 &&
	grep -qF "1200 checks, 6 failed." h.md &&
	grep -qF "200 health rounds (gp-health runs): 194 READY, 6 NOT READY." h.md &&
	test $(grep -c "^| \(kv\|rr\) | " h.md) = 12 &&
	grep "^| kv | metrics | b2 (http://127.0.0.1:9002) | 100 | 98 | " h.md >row &&
	grep -qF "| first 2026-12-01T08:00:37Z: round 37 failed (many-health.ndjson:256); last 2026-12-01T08:01:01Z: round 61 failed (many-health.ndjson:424) |" row &&
	grep "^| rr | metrics | b2 (http://127.0.0.1:9002) | 100 | 97 | " h.md |
		grep -qF "| first 2026-12-01T08:01:00Z: round 60 failed (many-health.ndjson:417); last 2026-12-01T08:02:30Z: round 150 failed (many-health.ndjson:1047) |" &&
	grep -q "^| rr | vip_chat | vip (http://127.0.0.1:8080) | 100 | 99 | once: 2026-12-01T08:01:30Z: round 90 failed (many-health.ndjson:628) |$" h.md &&
	grep -q "^| kv | metrics | b1 (http://127.0.0.1:9001) | 100 | 100 | — |$" h.md &&
	grep -qF "The first 5 of 6 failed checks" h.md &&
	test $(grep -c "^- many-health.ndjson:[0-9]*: " h.md) = 5 &&
	grep -qF -- "- many-health.ndjson:628: vip_chat vip http://127.0.0.1:8080 at 2026-12-01T08:01:30Z: round 90 failed" h.md &&
	test $(grep -c "^- health summary (arm .*NOT READY" h.md) = 5 &&
	grep -qF "… and 1 more NOT READY rounds" h.md
'
test_expect_success 'two probe rounds of an arm, and a calibration given twice, are drawn as separate lines' '
	{ jq -c "select(.type == \"probe_sample\" or .type == \"calib_step\") | .run = \"probe-1\"" $DATA/phases.ndjson &&
	  jq -c "select(.type == \"probe_sample\") | .run = \"probe-2\"" $DATA/phases.ndjson; } >rounds.ndjson &&
	gp-report -q -o rounds rounds.ndjson &&
	for f in rounds/gnuplot/probe-*.dat rounds/gnuplot/calib-*.dat; do
		awk "/^#/ { next } /^$/ { blocks++; last = \"\"; next }
		     { if (last != \"\" && \$1 < last + 0) back++; last = \$1 }
		     END { if (back) exit 1; print blocks + 1 }" $f >blocks || { echo "$f: a line goes back"; exit 1; }
		case $f in *probe*) test "$(cat blocks)" = 2 ;; *) test "$(cat blocks)" = 1 ;; esac || { echo "$f: $(cat blocks) blocks"; exit 1; }
	done &&
	jq -c "select(.type == \"calib_step\")" $DATA/phases.ndjson >twice.ndjson &&
	gp-report -q -o twice twice.ndjson twice.ndjson &&
	test "$(grep -c "^$" twice/gnuplot/calib-0.dat)" = 1
'
test_expect_success 'the CDFs are drawn at the ladder'"'"'s moderate rate over the request records' '
	grep -qF "CDFs at 8 req/s, the ladder'"'"'s moderate rate" out/report.md &&
	for a in rr hash; do
		n=$(jq -s "map(select(.type == \"request\" and .arm == \"$a\" and .rate_rps == 8)) | length" all.ndjson) &&
		k=$(jq -s "map(select(.type == \"request\" and .arm == \"$a\" and .rate_rps == 8 and .ttft_ms != null)) | length" all.ndjson) &&
		grep -qF "$a ($k of $n requests have a TTFT)" out/gnuplot/ttft_cdf.gp || { echo "$a: $k of $n"; exit 1; }
	done &&
	test $(grep -vc "^#" out/gnuplot/ttft_cdf-0.dat) -gt 10
'
test_expect_success 'newer analysis fields: knee intervals, edge advice, knee_compare, TOST reason' '
	gp-report -q -o new --no-plots $DATA/analysis-new.ndjson &&
	jq -r "select(.type == \"knee\") | [.arm, .goodput_rps, .goodput_ci.lo, .goodput_ci.hi, .edge, .advice] | @tsv" \
		$DATA/analysis-new.ndjson >kn2 && test $(wc -l <kn2) = 2 &&
	while IFS="	" read -r a g lo hi e adv; do
		want=$(awk -v g=$g -v l=$lo -v h=$hi "BEGIN { printf \"| %.4g [%.4g, %.4g] |\", g, l, h }") &&
		grep -E "^\| $a \| " new/report.md | grep -qF "$want" || { echo "knee $a: $want"; exit 1; }
		grep -qF -- "- $a: the knee is at the $e edge of the ladder — $adv" new/report.md || { echo "edge $a"; exit 1; }
	done <kn2 &&
	jq -r "select(.type == \"knee_compare\") | [.arm, .vs, .rate_rps, .rate_rps_vs, .diff_goodput, .verdict] | @tsv" $DATA/analysis-new.ndjson |
		awk -F"\t" "{ printf \"| %s | %s | %.4g | %.4g | %.4g |\\t%s\\n\", \$1, \$2, \$3, \$4, \$5, \$6 }" >kc &&
	test -s kc && while IFS="	" read -r head v; do
		grep -F "$head" new/report.md | grep -qF "| $v |" || { echo "knee_compare: $head $v"; exit 1; }
	done <kc &&
	r=$(jq -r "select(.type == \"compare\") | .tost.reason" $DATA/analysis-new.ndjson) && test "$r" != null &&
	grep -qF "| fails: $r |" new/report.md &&
	jq -r "select(.type == \"slo\") | \"seed \(.seed), \(.resamples) resamples, confidence level \(.level)\"" \
		$DATA/analysis-new.ndjson >set && grep -qF "Analysis settings: $(cat set)" new/report.md
'
test_expect_success 'an arm has one colour in every plot' '
	for a in rr hash; do
		c=$(grep -h -o "rgb .#[0-9a-f]*. title .$a " out/gnuplot/goodfrac.gp out/gnuplot/ttft_cdf.gp \
			out/gnuplot/tpot_cdf.gp out/gnuplot/probe.gp | sort -u | cut -c5-13 | sort -u | wc -l) &&
		test "$c" = 1 || { echo "$a: $c colours"; exit 1; }
	done &&
	test "$(grep -ho "rgb .#[0-9a-f]*. title .rr " out/gnuplot/goodfrac.gp)" != \
	     "$(grep -ho "rgb .#[0-9a-f]*. title .hash " out/gnuplot/goodfrac.gp | sed s/hash/rr/)"
'
test_expect_success 'the calibration plot marks each endpoint'"'"'s capacity' '
	jq -r "select(.type == \"capacity\") | .capacity_tok_s" $DATA/phases.ndjson | while read -r c; do
		grep -qE "[ ,]$(printf %g $c) with lines dt 3 " out/gnuplot/calib.gp || { echo "capacity $c"; exit 1; }
	done
'
test_expect_success 'arms whose curves or knees coincide stay told apart: a dash type and a knee size each' '
	for g in goodfrac ttft_cdf tpot_cdf; do
		test $(grep -o " dt [0-9]* [^,]*title .\(rr\|hash\) " out/gnuplot/$g.gp | cut -d" " -f3 | sort -u | wc -l) = 2 ||
			{ echo "$g: one dash type"; exit 1; }
	done &&
	test $(grep -o "pt 6 ps [0-9.]*" out/gnuplot/goodfrac.gp | sort -u | wc -l) = 2
'
test_expect_success '--moderate-rps picks the nearest rung and says so' '
	gp-report -q -o mod --no-plots --moderate-rps 15 all.ndjson &&
	grep -qF "CDFs at 16 req/s, the rung nearest --moderate-rps" mod/report.md
'
test_expect_success 'the summary on stderr: a row per arm and rate, the verdict; -q silences it' '
	test $(grep -cE "^  (rr|hash) +(4|8|16) " err) = 6 && grep -q "verdict: " err &&
	gp-report -q -o q --no-plots all.ndjson 2>qerr && test ! -s qerr
'
test_expect_success 'HTML: self-contained (every src a data: URI, no script, no link, no url())' '
	test $(grep -o "<img " out/report.html | wc -l) = 5 &&
	! grep -Eo "(src|href)=\"[^\"]*" out/report.html | grep -v "^src=\"data:image/png;base64," &&
	! grep -qiE "<script|<link|url\(|@import" out/report.html
'
# The page fits its width (checked by eye and measured in Chromium, which the
# tests do not need): no cell is held on one line, so a table narrows by
# wrapping; only a figure and its interval "x [lo, hi]" are kept together
# (no-break spaces); a table that still does not fit scrolls in its own box.
test_expect_success 'HTML: cells may wrap, a figure and its interval stay together, the knee table keeps the whole reason' '
	sed -n "s/.*<style>\(.*\)<\/style>.*/\1/p" out/report.html >css &&
	grep -q "td{" css && ! grep -q nowrap css && grep -q "div.t{overflow-x:auto}" css &&
	test $(grep -c "<table>" out/report.html) -gt 10 &&
	test $(grep -c "<table>" out/report.html) = $(grep -c "<div class=\"t\"><table>" out/report.html) &&
	grep -q "<td[^>]*>[0-9.]*&#160;\[[^] <]*,&#160;[^] <]*\]" out/report.html &&
	! grep -q "<td[^>]*>[^<]*\[[^]<]* " out/report.html &&
	! grep -q "<td[^>]*>[^<]* \[" out/report.html &&
	grep -qF "<td>per-accelerator figures need --accelerators N or --fleet FILE</td>" out/report.html
'
test_expect_success 'sections without records say "not measured"; no plot for them' '
	gp-report -q -o bare analysis.ndjson &&
	for s in "no health or health_summary records" "no calib_step, capacity or ladder records" \
		 "no probe or probe_sample records" "no request records in the input" \
		 "no protocol given"; do
		grep -qF "Not measured: $s" bare/report.md || { echo "missing: $s"; exit 1; }
	done &&
	test -s bare/goodfrac.png && test ! -e bare/ttft_cdf.png && test ! -e bare/probe.png && test ! -e bare/calib.png
'
test_expect_success 'nothing at all: every section not measured, exit 0' '
	gp-report -q -o empty </dev/null && test $(grep -c "^Not measured" empty/report.md) -ge 12
'
test_expect_success 'gzip input and unknown fields or record types change nothing' '
	gzip -c all.ndjson >all.ndjson.gz &&
	{ echo "{\"type\":\"future\",\"x\":1}"; jq -c ". + {\"new_field\": [1]}" all.ndjson; } >extra.ndjson &&
	gp-report -q -o z --no-plots all.ndjson.gz && gp-report -q -o x --no-plots extra.ndjson &&
	gp-report -q -o p --no-plots all.ndjson &&
	cmp p/report.md z/report.md && cmp p/report.md x/report.md
'
test_expect_success '--no-plots: no image, and the report says so' '
	test ! -e p/goodfrac.png && grep -qF "Plots not drawn (--no-plots)." p/report.md
'
test_expect_code 65 'a line that is not JSON: exit 65' '
	{ head -n 2 analysis.ndjson; echo "not json"; } >bad1 && gp-report -q -o b bad1
'
test_expect_success '... and the message names file and line' '
	! gp-report -q -o b bad1 2>e && grep -q "^gp-report: bad1:3: " e
'
test_expect_success 'a missing required field: 65, file:line: field' '
	{ head -n 4 analysis.ndjson; jq -c "select(.type == \"compare\") | del(.verdict)" analysis.ndjson | head -n 1; } >bad2 &&
	{ gp-report -q -o b bad2 2>e; test $? = 65; } && grep -q "^gp-report: bad2:5: field .verdict. is missing" e
'
test_expect_success 'a field of the wrong type: 65, file:line: field' '
	{ jq -c "select(.type == \"knee\") | .rate_rps = \"fast\"" analysis.ndjson | head -n 1; } >bad3 &&
	{ gp-report -q -o b bad3 2>e; test $? = 65; } && grep -q "^gp-report: bad3:1: field .rate_rps. is not a number" e
'
test_expect_success 'an unreadable protocol file: 65' '
	{ gp-report -q -o b --protocol no/such/file analysis.ndjson 2>e; test $? = 65; } && grep -q "no/such/file" e
'
test_expect_success 'gnuplot missing: 69 with a clear message' '
	{ gp-report -q -o g --gnuplot /nonexistent/gnuplot analysis.ndjson 2>e; test $? = 69; } &&
	grep -q "cannot run /nonexistent/gnuplot: not found" e && grep -q -- "--no-plots" e
'
test_expect_success 'gnuplot failing: 70 naming the script' '
	printf "#!/bin/sh\necho \"line 3: undefined variable\" >&2\nexit 1\n" >fakegp && chmod +x fakegp &&
	{ gp-report -q -o g --gnuplot ./fakegp analysis.ndjson 2>e; test $? = 70; } &&
	grep -q "failed on g/gnuplot/goodfrac.gp (exit 1): line 3: undefined variable" e
'
test_expect_code 2 'a usage error is exit 2' 'gp-report --moderate-rps fast analysis.ndjson'
# The protocol's compare list: each pair at every rung, "not compared" when
# no record has it; no such section without a compare list.
test_expect_success 'the comparisons the protocol asked for: the pair'"'"'s verdict and TOST, a missing pair named' '
	gp-analyze --ttft-slo-ms 500 --tpot-slo-ms 50 --resamples 200 --floor floor --equiv floor --delta 0.2 \
		--compare win:loss "$GP_TOP/tests/golden/data/verdicts.ndjson" >pairs.ndjson &&
	echo "{\"type\":\"protocol\",\"compare\":[[\"win\",\"loss\"],[\"few\",\"same\"]]}" >pp.json &&
	gp-report --no-plots -q --protocol pp.json -o pr pairs.ndjson &&
	sed -n "/^## The comparisons asked for/,/^## Comparisons/p" pr/report.md >asked &&
	grep -q "^| win | loss | 4 | 0.800 | \[0.700, 0.900\] | WIN | fails |" asked &&
	grep -q "^| few | same | - | - | n/a | not compared: no compare record of this pair | n/a |" asked &&
	gp-report --no-plots -q -o pr2 pairs.ndjson && ! grep -q "comparisons asked for" pr2/report.md
'
test_done
