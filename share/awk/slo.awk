# slo.awk — the SLO re-derived from the baseline (method §9.1).
#   slo   with a baseline SLO (slo record origin "baseline"), the baseline's ok
#         requests (B lines: what gp-analyze --pass copied from the baseline
#         file) give the slo record's statistic (p50, p90, p99: Hyndman-Fan
#         type 7; or mean) of TTFT and of TPOT, times its multiple; both must
#         equal the slo record's ttft_ms and tpot_ms to 1e-9 (relative).  A
#         fixed SLO has nothing to re-derive (ok, said so); a baseline SLO
#         without B lines is not checked.
pass == 2 && $1 == "S" { ns++; sttft = $2; stpot = $3; origin = $5; stat = $6; mult = $7 }
pass == 2 && $1 == "B" { nb++; bt[nb] = num($2); bp[nb] = num($3) }
# Type-7 quantile of a[1..n] (reordered): h = (n - 1) p + 1, between ranks
# floor(h) and floor(h) + 1.
function q7(a, n, p,   h, lo, v, w, i) {
	h = (n - 1) * p + 1
	lo = int(h)
	v = kth(a, n, lo)
	if (h == lo || lo >= n) return v
	w = a[lo + 1]
	for (i = lo + 2; i <= n; i++) if (a[i] < w) w = a[i]
	return v + (h - lo) * (w - v)
}
function stat_of(a, n,   i, s) {
	if (stat == "mean") { s = 0; for (i = 1; i <= n; i++) s += a[i]; return s / n }
	return q7(a, n, stat == "p90" ? 0.9 : stat == "p99" ? 0.99 : 0.5)
}
END {
	if (ns == 0) { report("slo", "not_checked", "no slo record"); exit }
	if (origin != "baseline") { report("slo", "ok", "fixed SLO (TTFT " sttft " ms, TPOT " stpot " ms): nothing to re-derive"); exit }
	if (nb == 0) { report("slo", "not_checked", "baseline SLO but no baseline_request records (gp-analyze --pass copies them)"); exit }
	if (stat != "mean" && stat != "p50" && stat != "p90" && stat != "p99") { report("slo", "fail", "unknown baseline_stat '" stat "'"); exit }
	wt = num(mult) * stat_of(bt, nb); wp = num(mult) * stat_of(bp, nb)
	if (!close_to(num(sttft), wt) || !close_to(num(stpot), wp))
		report("slo", "fail", sprintf("slo record TTFT %s ms, TPOT %s ms; re-derived from %d baseline requests (%s x %s): TTFT %.10g ms, TPOT %.10g ms", sttft, stpot, nb, mult, stat, wt, wp))
	else
		report("slo", "ok", sprintf("re-derived from %d baseline requests: %s x %s = TTFT %.6g ms, TPOT %.6g ms", nb, mult, stat, wt, wp))
}
