# common.awk — helpers of the integrity scripts.  POSIX awk (mawk, gawk,
# busybox): no gensub, asort, length(array), or other extensions.
# Input: the TSV of flatten.jq.  Output: one line per check,
#   check <TAB> ok|fail|not_checked <TAB> detail
# Every script is run as  awk -f common.awk -f tdist.awk -f X.awk PASS1 FLAT :
# two passes, so that pass 1 (pass == 1) can gather what pass 2 needs (the
# SLO, run deadlines) whatever the order of the records.  PASS1 is FLAT
# itself, or (gp-verify: io/flatten's gp_flatten_pass1) FLAT less the Q rows
# that pass 1 does not read: pass 1 reads every row but Q, and of Q rows only
# the first of each run id with arm and run set (idkey below).  A script whose
# pass 1 reads more of the Q rows must change gp_flatten_pass1 too.

BEGIN { FS = "\t"; OFS = "\t"; EPS = 1e-9 }
FNR == 1 { pass++ }

function report(check, status, detail) { print check, status, detail }

# The key of a run and of an (arm, rate) cell.  SUBSEP cannot occur in TSV.
function runkey(arm, rate, rep) { return arm SUBSEP rate SUBSEP rep }
# A run_end may be keyed by run alone (doc/records.md): its arm, rate and
# rep come from the run header (H) or the requests (Q) of that run, gathered in
# pass 1 below.  E lines: $2 arm, $3 rate, $4 rep, $5 run.
pass == 1 && ($1 == "H" || $1 == "Q") && $5 != "" && $2 != "" && !($5 in idkey) { idkey[$5] = runkey($2, $3, $4) }
function ekey() { return ($2 == "" && ($5 in idkey)) ? idkey[$5] : runkey($2, $3, $4) }
function cellkey(arm, rate) { return arm SUBSEP rate }
function showkey(k,   p, n) {
	n = split(k, p, SUBSEP)
	if (n == 3) return p[1] " at " p[2] " rps rep " p[3]
	return p[1] " at " p[2] " rps"
}

# Append a mismatch to a bounded list for the detail text.
function note(list, text) {
	nnote[list]++
	if (nnote[list] <= 3) notes[list] = notes[list] (nnote[list] > 1 ? "; " : "") text
}
function notes_of(list) {
	if (nnote[list] > 3) return notes[list] "; and " (nnote[list] - 3) " more"
	return notes[list]
}

function absf(x) { return x < 0 ? -x : x }
function close_to(a, b) { return absf(a - b) <= EPS * (1 + absf(b)) }
function num(s) { return s + 0 }

# The SLO conjunction: good <=> ok and TTFT <= TTFT_SLO and TPOT <= TPOT_SLO.
# A single-token request (no TPOT) is judged on TTFT alone under policy "ttft"
# (gp-analyze's default) and is a miss under "miss".  Failed = miss.
function is_good(outcome, ttft, tpot, slo_ttft, slo_tpot, policy) {
	if (outcome == "ok")
		return ttft != "" && tpot != "" && num(ttft) <= slo_ttft && num(tpot) <= slo_tpot
	if (outcome == "single_token" && policy == "ttft")
		return ttft != "" && num(ttft) <= slo_ttft
	return 0
}

# The k-th smallest of a[1..n] (1-based), by quickselect (Hoare partition,
# median-of-three pivot, no recursion: expected O(n)); a is reordered so that
# a[1..k-1] <= a[k] <= a[k+1..n].
function kth(a, n, k,   lo, hi, m, p, i, j, t) {
	lo = 1; hi = n
	while (lo < hi) {
		m = int((lo + hi) / 2)
		if (a[m] < a[lo]) { t = a[m]; a[m] = a[lo]; a[lo] = t }
		if (a[hi] < a[lo]) { t = a[hi]; a[hi] = a[lo]; a[lo] = t }
		if (a[hi] < a[m]) { t = a[hi]; a[hi] = a[m]; a[m] = t }
		p = a[m]; i = lo; j = hi
		while (i <= j) {
			while (a[i] < p) i++
			while (a[j] > p) j--
			if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; j-- }
		}
		if (k <= j) hi = j
		else if (k >= i) lo = i
		else return a[k]
	}
	return a[k]
}
# Median (Hyndman-Fan type 7 at p = 0.5) of a[1..n], n >= 1; reorders a.
function median(a, n,   h, lo, v, w, i) {
	h = (n - 1) * 0.5 + 1
	lo = int(h)
	v = kth(a, n, lo)
	if (h == lo) return v
	w = a[lo + 1]
	for (i = lo + 2; i <= n; i++) if (a[i] < w) w = a[i]
	return v + (h - lo) * (w - v)
}
