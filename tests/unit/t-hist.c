/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of hist: type-7 quantiles against numpy.
 *
 * Reference values from numpy 1.24.2, numpy.quantile(x, q) with its default
 * method 'linear' (= R's quantile type 7), run with /usr/bin/python3:
 *   x = [3,1,4,1,5,9,2,6,5,3,5,8,9,7,9]
 *   y = [1000]; y.append(y[-1] + y[-1] // 64 + 1) 599 times (600 values)
 * Values below 128 ns have exact bins, so x must match to rounding; y spans
 * 1 µs .. 11 ms, where a bin midpoint is within 1/128 of the value, so each
 * quantile must be within 1/128 (0.78 %) of numpy's, relative.
 */
#include <math.h>
#include <stdlib.h>

#include "base/hist.h"
#include "tap.h"

int main(void)
{
	static const int x[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9 };
	static const double xq[] = { 0, 0.1, 0.25, 0.5, 0.9, 0.99, 1 };
	static const double xw[] = { 1.0, 1.4000000000000001, 3.0, 5.0, 9.0, 9.0, 9.0 };
	static const double yq[] = { 0, 0.5, 0.9, 0.99, 0.999, 1 };
	static const double yw[] = { 1000.0, 107145.0, 4399719.900000001, 10148905.519999998,
				     11033950.131999992, 11136578.0 };
	struct gp_hist *h = malloc(sizeof(*h));
	int64_t y = 1000;
	size_t i;

	gp_hist_init(h);
	ok(isnan(gp_hist_quantile(h, 0.5)), "empty: NaN");
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		gp_hist_add(h, x[i]);
	for (i = 0; i < sizeof(xq) / sizeof(xq[0]); i++)
		is_dbl(gp_hist_quantile(h, xq[i]), xw[i], 1e-9, "small sample: q %.2f = numpy %g", xq[i], xw[i]);

	gp_hist_init(h);
	for (i = 0; i < 600; i++, y += y / 64 + 1)
		gp_hist_add(h, y);
	is_int(h->count, 600, "600 values counted");
	is_int(h->max_ns, 11136578, "the maximum is exact");
	for (i = 0; i < sizeof(yq) / sizeof(yq[0]); i++)
		is_dbl(gp_hist_quantile(h, yq[i]), yw[i], yw[i] / 128,
		       "1 µs..11 ms: q %.3f within 1/128 of numpy %.1f", yq[i], yw[i]);
	free(h);
	return done_testing();
}
