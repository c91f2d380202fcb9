# selfcheck.awk — gp-verify --self-check: the integrity scripts' own
# arithmetic against known vectors, on a bare host (no input).  One line per
# check, as the integrity protocol:  name <TAB> ok|fail <TAB> got / want.
# Run as  awk -f common.awk -f tdist.awk -f selfcheck.awk /dev/null
# References: closed forms (t with df 1, 2, 4), scipy 1.10.1 (stats.t.ppf,
# stats.t.cdf, stats.norm.ppf, stats.chi2.ppf), numpy 1.24 (np.median).
function want(name, got, ref, tol) {
	report(name, absf(got - ref) <= tol ? "ok" : "fail", sprintf("got %.12g, want %.12g +- %g", got, ref, tol))
}
BEGIN {
	want("awk t quantile df 1 (closed form tan(pi/2 - pi/40))", t_quantile(0.975, 1), 12.706204736175, 1e-9)
	want("awk t quantile df 4 = scipy t.ppf(0.975, 4)", t_quantile(0.975, 4), 2.776445105198, 1e-9)
	want("awk t quantile df 29 = scipy t.ppf(0.975, 29)", t_quantile(0.975, 29), 2.045229642133, 1e-9)
	want("awk t cdf = scipy t.cdf(2, 7)", t_cdf(2.0, 7), 0.957190335719, 1e-9)
	want("awk z quantile (A&S 26.2.23) = scipy norm.ppf(0.975)", z_quantile(0.975), 1.959963984540054, 5e-4)
	want("awk chi2(0.999, 4)/4 (Wilson-Hilferty) = scipy chi2.ppf within 2%", chi2_quantile(0.999, 4) / 4, 4.616706738225792, 0.02 * 4.616706738225792)
	want("awk chi2(0.999, 9)/9 (Wilson-Hilferty) = scipy chi2.ppf within 2%", chi2_quantile(0.999, 9) / 9, 3.097462763472952, 0.02 * 3.097462763472952)
	report("awk conjunction: TTFT over -> miss (never OR)", is_good("ok", 600, 40, 500, 50, "ttft") == 0 ? "ok" : "fail", "")
	report("awk conjunction: both within -> good", is_good("ok", 400, 40, 500, 50, "ttft") == 1 ? "ok" : "fail", "")
	report("awk failed request is a miss", is_good("failed", 1, 1, 500, 50, "ttft") == 0 ? "ok" : "fail", "")
	split("5 1 4 2 3 6", a, " "); for (i = 1; i <= 6; i++) a[i] += 0
	want("awk type-7 median = np.median", median(a, 6), 3.5, 0)
	exit
}
