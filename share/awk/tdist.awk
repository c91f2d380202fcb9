# tdist.awk — Student's t distribution in POSIX awk, for the cluster-robust
# per-rep interval.  Exact for integer degrees of freedom: the closed forms of
# Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df) for
#   A(t|df) = P(|T| <= t),  theta = atan(t / sqrt(df))
#   df odd:  A = 2/pi * (theta + sin(theta) * (cos(theta) + 2/3 cos^3(theta) + ...
#                + (2*4*...*(df-3)) / (1*3*...*(df-2)) cos^(df-2)(theta)))
#            (A = 2/pi * theta for df = 1)
#   df even: A = sin(theta) * (1 + 1/2 cos^2(theta) + (1*3)/(2*4) cos^4(theta) + ...
#                + (1*3*...*(df-3)) / (2*4*...*(df-2)) cos^(df-2)(theta))
# and the quantile by bisection on A.  No code from gp-analyze or a library.

function t_abs_cdf(t, df,   th, c2, s, term, k) {
	if (t <= 0) return 0
	th = atan2(t, sqrt(df))
	c2 = cos(th) * cos(th)
	if (df % 2 == 1) {
		s = 0
		if (df > 1) {
			term = cos(th); s = term
			for (k = 3; k <= df - 2; k += 2) { term *= c2 * (k - 1) / k; s += term }
		}
		return 2 / atan2(0, -1) * (th + sin(th) * s)
	}
	term = 1; s = 1
	for (k = 2; k <= df - 2; k += 2) { term *= c2 * (k - 1) / k; s += term }
	return sin(th) * s
}

# P(T <= t).
function t_cdf(t, df) {
	return t >= 0 ? 0.5 + 0.5 * t_abs_cdf(t, df) : 0.5 - 0.5 * t_abs_cdf(-t, df)
}

# The p-quantile of t(df), 0 < p < 1, df a positive integer.
function t_quantile(p, df,   target, lo, hi, mid, i) {
	if (p == 0.5) return 0
	if (p < 0.5) return -t_quantile(1 - p, df)
	target = 2 * p - 1
	lo = 0; hi = 1
	while (t_abs_cdf(hi, df) < target && hi < 1e12) { lo = hi; hi *= 2 }
	for (i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
		mid = (lo + hi) / 2
		if (t_abs_cdf(mid, df) < target) lo = mid; else hi = mid
	}
	return (lo + hi) / 2
}

# The standard normal quantile, Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4):
# enough for the design-effect bound of interval.awk, which is a bound, not an
# estimate.  0 < p < 1.
function z_quantile(p,   q, t, z) {
	q = p < 0.5 ? p : 1 - p
	t = sqrt(-2 * log(q))
	z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t)
	return p < 0.5 ? -z : z
}
# The chi-square quantile with k degrees of freedom, Wilson & Hilferty (1931):
#   k (1 - 2/(9k) + z_p sqrt(2/(9k)))^3   (relative error about 1e-3 at k >= 2).
function chi2_quantile(p, k,   c) {
	c = 2 / (9 * k)
	return k * (1 - c + z_quantile(p) * sqrt(c)) ^ 3
}
