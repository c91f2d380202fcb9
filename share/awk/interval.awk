# interval.awk — the per-rep statistics re-derived from the recount.
#   cv        for every arm_summary: the number of reps, the mean of the
#             per-rep good fractions and their CV (sample sd / mean) equal the
#             recount's to 1e-9 (an undefined CV — one rep or a zero mean — must
#             be null in the record too)
#   interval  the cluster-robust interval: a t-interval over the per-rep good
#             fractions, mean +- t(1 - a/2, n - 1) sd / sqrt(n) at the level of
#             gp-analyze's pooled interval (default 0.95).  It agrees with the
#             pooled bootstrap interval when each estimate lies inside the
#             other's interval (to 1e-9), and when their widths agree within
#             the design-effect bound: the pooled interval treats every
#             request as independent, so reps that differ by more than their
#             binomial noise make it too narrow.  With h_c the t-interval's
#             half-width, h_p the pooled one's, t = t(1 - a/2, n - 1) and
#             z = z(1 - a/2), the design effect deff = (h_c / h_p)^2 / (t / z)^2
#             estimates s^2 / (p(1 - p)/m), the between-rep variance over the
#             binomial one; under the binomial alone (n - 1) deff is about
#             chi-square(n - 1), so deff > chi2(0.999, n - 1)/(n - 1) fails
#             (a false alarm 1 time in 1000).  Fewer than 2 reps: not checked.
pass == 1 && $1 == "S" { sttft = num($2); stpot = num($3); spol = $4; nslo++ }
pass == 2 && FNR == 1 { pol = (spol == "miss") ? "miss" : "ttft" }
pass == 2 && $1 == "Q" {
	k = runkey($2, $3, $4)
	if (!(k in n)) {
		n[k] = 0
		c = cellkey($2, $3)
		reps[c]++; rk[c, reps[c]] = k
		if (reps[c] == 1) cells[++nc] = c
	}
	n[k]++
	good[k] += is_good($6, $8, $9, sttft, stpot, pol)
}
pass == 2 && $1 == "A" {
	na++
	ak[na] = cellkey($2, $3); areps[na] = $4; amean[na] = $5; acv[na] = $6
	pest[na] = $7; plo[na] = $8; phi[na] = $9; plev[na] = $10
	cest[na] = $11; clo[na] = $12; chi[na] = $13
}
END {
	if (nslo == 0) { report("cv", "not_checked", "no slo record"); report("interval", "not_checked", "no slo record"); exit }
	if (na == 0) { report("cv", "not_checked", "no arm_summary records"); report("interval", "not_checked", "no arm_summary records"); exit }
	for (i = 1; i <= nc; i++) {
		c = cells[i]; m = reps[c]; s = 0
		for (j = 1; j <= m; j++) { k = rk[c, j]; fr[c, j] = n[k] ? num(good[k]) / n[k] : 0; s += fr[c, j] }
		mean[c] = s / m
		ss = 0
		for (j = 1; j <= m; j++) ss += (fr[c, j] - mean[c]) ^ 2
		sd[c] = m > 1 ? sqrt(ss / (m - 1)) : ""
		cv[c] = (m > 1 && mean[c] != 0) ? sd[c] / mean[c] : ""
		seen_a[c] = 0
	}
	# cv
	bad = 0
	for (i = 1; i <= na; i++) {
		c = ak[i]
		if (!(c in reps)) { bad++; note("cv", showkey(c) ": arm_summary without request records"); continue }
		seen_a[c] = 1
		if (num(areps[i]) != reps[c]) { bad++; note("cv", showkey(c) ": reps " areps[i] ", recount " reps[c]) ; continue }
		if (amean[i] != "" && !close_to(num(amean[i]), mean[c])) { bad++; note("cv", sprintf("%s: mean_good_fraction %s, recount %.10g", showkey(c), amean[i], mean[c])) }
		if ((acv[i] == "") != (cv[c] == "") || (cv[c] != "" && !close_to(num(acv[i]), cv[c]))) {
			bad++; note("cv", sprintf("%s: cv %s, recount %s", showkey(c), acv[i] == "" ? "null" : acv[i], cv[c] == "" ? "undefined" : sprintf("%.10g", cv[c])))
		}
	}
	for (i = 1; i <= nc; i++) if (!seen_a[cells[i]]) { bad++; note("cv", showkey(cells[i]) ": no arm_summary record") }
	if (bad) report("cv", "fail", notes_of("cv"))
	else report("cv", "ok", na " arm_summary records: reps, mean and CV of the per-rep good fraction recomputed")

	# interval
	bad = 0; checked = 0; skipped = 0
	for (i = 1; i <= na; i++) {
		c = ak[i]
		if (!(c in reps) || pest[i] == "" || plo[i] == "" || phi[i] == "") { skipped++; continue }
		m = reps[c]
		if (m < 2) { skipped++; continue }
		lev = plev[i] == "" ? 0.95 : num(plev[i])
		q = t_quantile(1 - (1 - lev) / 2, m - 1)
		h = q * sd[c] / sqrt(m)
		lo = mean[c] - h; hi = mean[c] + h
		checked++
		pe = num(pest[i])
		hp = (num(phi[i]) - num(plo[i])) / 2
		zq = z_quantile(1 - (1 - lev) / 2)
		bound = chi2_quantile(0.999, m - 1) / (m - 1)
		deff = hp > 0 ? (h / hp) ^ 2 / (q / zq) ^ 2 : (h > 0 ? "inf" : 0)
		if (pe < lo - EPS || pe > hi + EPS || mean[c] < num(plo[i]) - EPS || mean[c] > num(phi[i]) + EPS) {
			bad++
			note("iv", sprintf("%s: per-rep t-interval %.4g [%.4g, %.4g] and pooled bootstrap %s [%s, %s] do not contain each other's estimate", showkey(c), mean[c], lo, hi, pest[i], plo[i], phi[i]))
		} else if (deff == "inf" || deff > bound) {
			bad++
			note("iv", sprintf("%s: per-rep t-interval half-width %.4g vs pooled %.4g: design effect %s over the bound %.4g (between-rep variance beyond the binomial; the pooled interval is too narrow)", showkey(c), h, hp, deff == "inf" ? "inf" : sprintf("%.4g", deff), bound))
		} else if (checked == 1) first = sprintf("e.g. %s: t %.4g [%.4g, %.4g] vs pooled %s [%s, %s], design effect %.3g (bound %.3g)", showkey(c), mean[c], lo, hi, pest[i], plo[i], phi[i], deff, bound)
	}
	if (bad) report("interval", "fail", notes_of("iv"))
	else if (checked == 0) report("interval", "not_checked", "no arm_summary with a pooled interval and at least 2 reps")
	else report("interval", "ok", checked " cells agree" (skipped ? " (" skipped " not checked: under 2 reps or no pooled interval)" : "") "; " first)
}
