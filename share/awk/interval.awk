# interval.awk — the per-rep statistics re-derived from the recount.
#   cv        for every arm_summary: the number of reps, the mean of the
#             per-rep good fractions and their CV (sample sd / mean) equal the
#             recount's to 1e-9 (an undefined CV — one rep or a zero mean — must
#             be null in the record too)
#   interval  the cluster-robust (per-rep) interval, recomputed here: a
#             t-interval over the per-rep good fractions, mean +-
#             t(1 - a/2, n - 1) sqrt(v / n) at the level of gp-analyze's
#             good_fraction_ci, with v the sample variance floored at the
#             binomial one, p(1 - p)/(attempted / n), p = (good + 1/2) /
#             (attempted + 1) over the cell (gp-analyze(1)).  Its estimate and
#             bounds must equal the arm_summary's good_fraction_ci within
#             TOL = 1e-6 (absolute, on fractions: the two t quantiles differ
#             by about 1e-9).  The design effect deff = (h_c / h_p)^2 / (t / z)^2
#             (h_c the per-rep half-width, h_p the pooled bootstrap one, z the
#             normal quantile) is reported as information: reps that differ by
#             more than their binomial noise (deff over chi2(0.999, n - 1) /
#             (n - 1)) are overdispersed, a property of real fleets, and get a
#             footnote line ("footnote <TAB> info <TAB> text"), never a
#             failure.  Fewer than 2 reps: not checked.
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
	g = is_good($6, $8, $9, sttft, stpot, pol)
	good[k] += g
	c = cellkey($2, $3); cgood[c] += g; catt[c]++
}
pass == 2 && $1 == "A" {
	na++
	ak[na] = cellkey($2, $3); areps[na] = $4; amean[na] = $5; acv[na] = $6
	pest[na] = $7; plo[na] = $8; phi[na] = $9; plev[na] = $10
	cest[na] = $11; clo[na] = $12; chi[na] = $13; clev[na] = $14
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
	TOL = 1e-6
	bad = 0; checked = 0; skipped = 0; nover = 0
	for (i = 1; i <= na; i++) {
		c = ak[i]
		if (!(c in reps) || cest[i] == "" || clo[i] == "" || chi[i] == "") { skipped++; continue }
		m = reps[c]
		if (m < 2) { skipped++; continue }
		lev = clev[i] == "" ? 0.95 : num(clev[i])
		q = t_quantile(1 - (1 - lev) / 2, m - 1)
		pt = (num(cgood[c]) + 0.5) / (num(catt[c]) + 1)
		fl = catt[c] > 0 ? pt * (1 - pt) / (num(catt[c]) / m) : 0
		v = sd[c] ^ 2; if (v < fl) v = fl
		h = q * sqrt(v / m)
		lo = mean[c] - h; hi = mean[c] + h
		checked++
		if (absf(num(cest[i]) - mean[c]) > TOL || absf(num(clo[i]) - lo) > TOL || absf(num(chi[i]) - hi) > TOL) {
			bad++
			note("iv", sprintf("%s: good_fraction_ci %s [%s, %s], recomputed %.6g [%.6g, %.6g] (tolerance %g)", showkey(c), cest[i], clo[i], chi[i], mean[c], lo, hi, TOL))
			continue
		}
		deff = ""
		if (plo[i] != "" && phi[i] != "") {
			hp = (num(phi[i]) - num(plo[i])) / 2
			zq = z_quantile(1 - (1 - lev) / 2)
			bound = chi2_quantile(0.999, m - 1) / (m - 1)
			hs = q * sd[c] / sqrt(m)
			if (hp > 0) {
				deff = (hs / hp) ^ 2 / (q / zq) ^ 2
				if (deff > bound) {
					nover++
					print "footnote", "info", sprintf("overdispersion: %s: between-rep variance %.3g times the binomial (design effect over %.3g); the per-rep interval, which carries it, is the one used", showkey(c), deff, bound)
				}
			}
		}
		if (checked == 1) first = sprintf("e.g. %s: %.4g [%.4g, %.4g]%s", showkey(c), mean[c], lo, hi, deff == "" ? "" : sprintf(", design effect %.3g", deff))
	}
	if (bad) report("interval", "fail", notes_of("iv"))
	else if (checked == 0) report("interval", "not_checked", "no arm_summary with a per-rep interval and at least 2 reps")
	else report("interval", "ok", checked " per-rep intervals recomputed within " TOL (skipped ? " (" skipped " not checked: under 2 reps or no interval)" : "") "; " first (nover ? "; " nover " overdispersed (footnoted)" : ""))
}
